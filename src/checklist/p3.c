/* P3: tl.trans on a raw-loaded tile inside a loop.
 * Its detector and its rewrite. */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The value an operand reads its elements from: through tl.reshape and
 * tl.view (the same elements, their layout unchanged) and method calls on
 * a value (`a.to(tl.float16)`, `x.reshape(...)`), not through other calls
 * of triton.language (tl.load is the source itself). */
static TSNode tile_source(const ta_rule_ctx *c, TSNode n, bool *reshaped)
{
	for (int hop = 0; hop < 8; hop++) {
		n = ta_node_unparen(n);
		if (!ta_node_is(n, "call"))
			break;
		TSNode fn = ta_node_field(n, "function");
		char *name = ta_model_canonical(c->m, fn);
		bool reshape = name && (!strcmp(name, "triton.language.reshape") || !strcmp(name, "triton.language.view"));
		bool library = name && !strncmp(name, "triton.", 7);
		free(name);
		if (reshape) {
			*reshaped = true;
			TSNode args = ta_node_field(n, "arguments");
			n = ta_node_named_count(args) ? ta_node_named_child(args, 0) : (TSNode){ 0 };
		} else if (!library && ta_node_is(fn, "attribute")) {
			TSNode method = ta_node_field(fn, "attribute");
			*reshaped |= ta_node_text_eq(c->m->src, method, "reshape") || ta_node_text_eq(c->m->src, method, "view");
			n = ta_node_field(fn, "object");
		} else {
			break;
		}
	}
	return n;
}

/* Where a tile comes from: 1 raw 2D pointer load, 2 descriptor/block
 * pointer, 0 unknown (or changed in place after its load). For 1, *load
 * is that load. */
static int tile_origin(ta_rule_ctx *c, const char *name, uint32_t before, int depth, const ta_op **load,
		       bool *reshaped)
{
	if (!name || depth > 4)
		return 0;
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const ta_assign *def = NULL;
	/* the binding in effect at the read: one that ends before it (the
	 * read's own statement, `b = tl.trans(b)`, binds after it) */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(as[i].name, name) && as[i].stmt.end <= before && !as[i].augmented)
			def = &as[i];
	if (!def)
		return 0;
	/* `x *= scale` after the load: the tile read is a computed one */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(as[i].name, name) && as[i].augmented && as[i].stmt.start > def->stmt.start &&
		    as[i].stmt.start < before)
			return 0;
	int origin = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->span.start < def->rhs.start || op->span.end > def->rhs.end)
			continue;
		if (op->kind == TA_OP_DESC_LOAD || (op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_BLOCK_PTR))
			return 2;
		/* raw pointers laid out as a 2D tile (the shape the rewrite swaps);
		 * a block pointer the model could not place is not one */
		if (op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_2D) {
			origin = 1;
			*load = op;
		}
	}
	if (origin)
		return origin;
	/* `b = a.to(tl.float16)`, `b = tl.reshape(a, ...)`: follow a plain name. */
	TSNode rhs = tile_source(c, ta_rule_node(c, def->rhs), reshaped);
	if (ta_node_is(rhs, "identifier")) {
		char *t = ta_node_text(c->m->src, rhs);
		int o = tile_origin(c, t, def->stmt.start, depth + 1, load, reshaped);
		free(t);
		return o;
	}
	return 0;
}

/* The operand a transpose applies to, as text (caller frees). */
static char *trans_operand_text(ta_rule_ctx *c, const ta_op *op)
{
	if (op->receiver)
		return ta_xstrdup(op->receiver);
	return ta_op_arg(c, op, 0);
}

static bool is_identifier(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Reads of name (as ta_edits_ident_count counts them, less x.dtype and x.shape)
 * starting in [from, to). One walk (analyze/flat.h): ts_node_named_child is linear in
 * the child's index, and going down the kernel by it was a tenth of the
 * rules' time. */
static size_t reads_between(const ta_model *m, TSNode n, const char *name, uint32_t from, uint32_t to)
{
	size_t c = 0;
	if (ts_node_is_null(n))
		return 0;
	ta_walk cur;
	ta_walk_start(&cur, n);
	for (;;) {
		TSNode x = ta_walk_node(&cur);
		bool descend = false;
		if (!ts_node_is_named(x) || ts_node_end_byte(x) <= from || ts_node_start_byte(x) >= to) {
			/* a token, or outside the range: nothing to count */
		} else if (ta_node_is(x, "identifier")) {
			c += ta_node_text_eq(m->src, x, name) && ts_node_start_byte(x) >= from ? 1 : 0;
		} else if (ta_node_is(x, "attribute")) {
			/* x.dtype, x.shape: the tile's type, not its layout */
			TSNode a = ta_node_field(x, "attribute");
			if (!ta_node_text_eq(m->src, a, "dtype") && !ta_node_text_eq(m->src, a, "shape"))
				c += reads_between(m, ta_node_field(x, "object"), name, from, to);
		} else if (ta_node_is(x, "keyword_argument")) {
			c += reads_between(m, ta_node_field(x, "value"), name, from, to);
		} else {
			descend = true;
		}
		if (!ta_walk_next(&cur, descend))
			break;
	}
	ta_walk_finish(&cur);
	return c;
}

/* Whether the value of name that the transpose at off reads is used
 * anywhere else: between the last binding of name before off and the next
 * binding after it, name is read more than once. */
static bool used_otherwise(const ta_model *m, const ta_kernel *k, const char *name, uint32_t off)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, name, &d);
	uint32_t from = 0, to = ts_node_end_byte(k->node);
	size_t own = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (ts_node_end_byte(d.v[i]) <= off)
			from = ts_node_end_byte(d.v[i]);
		else if (ts_node_start_byte(d.v[i]) > off && ts_node_start_byte(d.v[i]) < to)
			to = ts_node_start_byte(d.v[i]);
		else if (ts_node_end_byte(d.v[i]) < to) {
			/* the transpose's own `x = tl.trans(x)`: later reads are of
			 * the transposed value, and its target is no read */
			to = ts_node_end_byte(d.v[i]);
			own = 1;
		}
	}
	if (!from)
		return false;
	return reads_between(m, k->node, name, from, to) > 1 + own;
}

/* The operand a transpose applies to, looked through reshapes and casts
 * (`tl.trans(tl.reshape(x, ...), (0, 2, 1))` transposes x's elements): its
 * text (caller frees), and *load when it is a tl.load written in place. */
static char *trans_source(ta_rule_ctx *c, const ta_op *op, const ta_op **load, bool *reshaped)
{
	TSNode n = { 0 };
	if (op->receiver) {
		/* x.T, x.trans(), x.permute(1, 0) */
		TSNode at = ta_rule_node(c, op->span);
		if (ta_node_is(at, "call"))
			at = ta_node_field(at, "function");
		if (ta_node_is(at, "attribute"))
			n = ta_node_field(at, "object");
	} else if (op->arg_count) {
		n = ta_rule_node(c, op->args[0]);
	}
	if (ts_node_is_null(n))
		return trans_operand_text(c, op);
	n = tile_source(c, n, reshaped);
	for (size_t j = 0; j < c->k->op_count; j++) {
		const ta_op *o = &c->k->ops[j];
		if (o->kind == TA_OP_LOAD && o->span.start == ts_node_start_byte(n) &&
		    o->span.end == ts_node_end_byte(n) && o->ptr_shape != TA_PTR_BLOCK_PTR)
			*load = o;
	}
	return ta_node_text(c->m->src, n);
}

/* Whether loop l is a persistent kernel's tile loop (from the program id,
 * stepping by the program count) that holds a loop of its own, its K
 * loop: what it transposes outside that loop (the ragged K tail, the
 * epilogue) it transposes once per output tile, not on every step of the
 * work, as S1 reads such tiles. */
static bool p3_once_per_tile(const ta_kernel *k, int l)
{
	/* the cheap question first: most loops hold no other */
	bool holds = false;
	for (size_t j = 0; j < k->loop_count && !holds; j++)
		holds = k->loops[j].parent == l;
	return holds && ta_kernel_tile_loop(k, (size_t)l);
}

ta_status ta_detect_p3(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false, good = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE) || op->loop < 0 || p3_once_per_tile(k, op->loop))
			continue;
		const ta_op *load = NULL;
		bool reshaped = false;
		char *x = trans_source(c, op, &load, &reshaped);
		int origin = 0;
		if (load)
			origin = 1;     /* tl.trans(tl.load(...)) directly */
		else if (x && is_identifier(x))
			origin = tile_origin(c, x, op->span.start, 0, &load, &reshaped);
		/* A tile also used untransposed (a second tl.dot, a sum) needs
		 * both layouts: loading it transposed would not remove the shuffle
		 * without a second load, so nothing is established. */
		if (origin == 1 && x && is_identifier(x) && used_otherwise(c->m, k, x, op->span.start))
			origin = 0;
		/* The loop that loads the tile: a tile loaded outside every loop
		 * around the transpose, and not rebound in them (a prefetched
		 * `cur = k`), is the same on each iteration (the transpose of a
		 * loop-invariant value, hoisted); one loaded in an outer loop is
		 * transposed once per iteration of that loop. */
		int l = op->loop;
		ta_span operand = op->arg_count ? op->args[0] : op->span;
		if (origin == 1 && load && load->loop != op->loop && !ta_loop_within(k, load->loop, op->loop) &&
		    !ta_rule_varies_in_loop(c, operand, op->loop)) {
			l = load->loop >= 0 && ta_loop_within(k, op->loop, load->loop) ? load->loop : -1;
			if (l < 0)
				origin = 0;
		}
		/* a reshaped tile by the name it was loaded as; read otherwise
		 * than through the reshape, it is needed as loaded */
		const char *shown = origin == 1 && reshaped && load && load->target ? load->target : x;
		if (origin == 1 && x && strcmp(shown, x) && used_otherwise(c->m, k, shown, op->span.start))
			origin = 0;
		if (origin == 1) {
			ta_buf where = TA_BUF_INIT;
			if (l == op->loop)
				ta_buf_printf(&where, "on every iteration of the loop at line %u", k->loops[l].span.line);
			else
				ta_buf_printf(&where, "inside the loop at line %u, and loaded on every iteration of the loop "
					      "at line %u", k->loops[op->loop].span.line, k->loops[l].span.line);
			ta_finding *f = reshaped ?
				ta_rule_add(c, op->span, "`%s` is reshaped and permuted %s; loading it in the permuted "
					    "order (offsets and strides arranged as the permuted tile) avoids the shuffle",
					    shown, ta_buf_str(&where)) :
				ta_rule_add(c, op->span, "`%s` is transposed %s; loading it transposed (swap the "
					    "offset/stride roles) avoids the shuffle", shown, ta_buf_str(&where));
			ta_finding_line(f, k->loops[l].span.line);
			if (l != op->loop)
				ta_finding_line(f, load->span.line);
			ta_buf_free(&where);
			found = true;
		} else if (origin == 2) {
			good = true;
		}
		free(x);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return good ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* The right side of the only binding of name in the kernel, when that is a
 * plain `name = expr` before off; else a null node. */
static TSNode single_def(const ta_model *m, const ta_kernel *k, const char *name, uint32_t off, TSNode *assign)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, name, &d);
	if (d.n != 1 || d.more || !ta_node_is(d.v[0], "assignment") || ts_node_end_byte(d.v[0]) > off ||
	    !ta_node_is(ta_node_field(d.v[0], "left"), "identifier"))
		return (TSNode){ 0 };
	*assign = d.v[0];
	return ta_node_field(d.v[0], "right");
}

/* ---- P3: load the transposed tile directly ------------------------------- */

/* Writes n with rows and columns swapped (x[:, None] <-> x[None, :]); in a
 * sum or an & of one row term and one column term, the two terms trade
 * places so the tile keeps the file's order of rows first or columns first. */
static void swap_render(const ta_model *m, TSNode n, ta_buf *b);

static bool swap_chain(const ta_model *m, TSNode n, ta_buf *b)
{
	if (!ta_node_is(n, "binary_operator"))
		return false;
	TSNode opn = ta_node_field(n, "operator");
	const char *op = ta_node_text_eq(m->src, opn, "+") ? "+" : ta_node_text_eq(m->src, opn, "&") ? "&" : NULL;
	TSNode t[16];
	size_t count = op ? ta_edits_chain_terms(m, n, op, t, 16) : 0;
	if (count < 2)
		return false;
	size_t row = count, col = count;
	for (size_t i = 0; i < count; i++) {
		int bm = ta_edits_bcast_mask(m, t[i]);
		if (bm == 1 && row == count)
			row = i;
		else if (bm == 2 && col == count)
			col = i;
		else if (bm != 0)
			return false;
	}
	if (row == count || col == count)
		return false;
	for (size_t i = 0; i < count; i++) {
		size_t src = i == row ? col : i == col ? row : i;
		swap_render(m, t[src], b);
		if (i + 1 < count) {
			char *sep = ta_edits_text(m, ts_node_end_byte(t[i]), ts_node_start_byte(t[i + 1]));
			ta_buf_puts(b, sep);
			free(sep);
		}
	}
	return true;
}

static void swap_render(const ta_model *m, TSNode n, ta_buf *b)
{
	int k = ta_edits_bcast_kind(m, n);
	if (k > 0) {
		swap_render(m, ta_node_field(n, "value"), b);
		ta_buf_puts(b, k == 1 ? "[None, :]" : "[:, None]");
		return;
	}
	if (swap_chain(m, n, b))
		return;
	uint32_t pos = ts_node_start_byte(n), c = ta_node_child_count(n);
	for (uint32_t i = 0; i < c; i++) {
		TSNode ch = ts_node_child(n, i);
		if (!ta_edits_bcast_mask(m, ch))
			continue;
		char *gap = ta_edits_text(m, pos, ts_node_start_byte(ch));
		ta_buf_puts(b, gap);
		free(gap);
		swap_render(m, ch, b);
		pos = ts_node_end_byte(ch);
	}
	char *rest = ta_edits_text(m, pos, ts_node_end_byte(n));
	ta_buf_puts(b, rest);
	free(rest);
}

static char *swapped(const ta_model *m, TSNode n)
{
	ta_buf b = TA_BUF_INIT;
	swap_render(m, n, &b);
	return ta_buf_steal(&b);
}

/* "(1, 0)", "[1, 0]" or the two arguments 1, 0: the 2D transpose order. */
static bool order_10(const ta_model *m, uint32_t s, uint32_t e)
{
	char buf[16];
	size_t k = 0;
	for (uint32_t i = s; i < e; i++) {
		char ch = m->src->text[i];
		if (isspace((unsigned char)ch) || ch == '(' || ch == ')' || ch == '[' || ch == ']')
			continue;
		if (k + 1 >= sizeof buf)
			return false;
		buf[k++] = ch;
	}
	buf[k] = '\0';
	return !strcmp(buf, "1,0");
}

/* The tile a plain 2D transpose applies to: tl.trans(x), x.trans(), x.T,
 * tl.permute(x, (1, 0)), x.permute(1, 0). Null when it is not one. */
static TSNode trans_operand(const ta_model *m, const ta_op *t, TSNode tn)
{
	if (ta_node_is(tn, "attribute"))
		return ta_node_text_eq(m->src, ta_node_field(tn, "attribute"), "T") ? ta_node_field(tn, "object") :
		       (TSNode){ 0 };
	if (!ta_node_is(tn, "call") || t->kwarg_count)
		return (TSNode){ 0 };
	TSNode fn = ta_node_field(tn, "function");
	char *canon = ta_model_canonical(m, fn);
	bool module_form = canon && (ta_name_is(canon, "triton.language.trans") ||
				     ta_name_is(canon, "triton.language.permute"));
	free(canon);
	TSNode x;
	size_t first;             /* index of the first order argument */
	if (module_form) {
		if (t->arg_count < 1)
			return (TSNode){ 0 };
		x = ta_edits_node(m, t->args[0]);
		first = 1;
	} else if (ta_node_is(fn, "attribute")) {
		x = ta_node_field(fn, "object");
		first = 0;
	} else {
		return (TSNode){ 0 };
	}
	if (t->arg_count == first)
		return t->kind == TA_OP_TRANS ? x : (TSNode){ 0 };
	if (!order_10(m, t->args[first].start, t->args[t->arg_count - 1].end))
		return (TSNode){ 0 };
	return x;
}

typedef struct p3_ctx {
	const ta_model *m;
	const ta_kernel *k;
	const ta_op *trans;
	ta_edit *out;
	size_t loads;             /* loads being swapped: 1, or 2 in an if and its else */
	TSNode calls[2];          /* those loads' calls */
	TSNode swapped[4];        /* named definitions rewritten already */
	size_t n_swapped;
} p3_ctx;

/* No name n reads is bound again in (from, to]: n's text reads the same
 * values at to as where it is written. */
static bool p3_names_hold(const ta_model *m, TSNode n, uint32_t from, uint32_t to)
{
	bool hold = true;
	ta_walk w;
	ta_walk_start(&w, n);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") &&
		    !(ta_node_is(ta_node_parent(x), "attribute") &&
		      ts_node_eq(ta_node_field(ta_node_parent(x), "attribute"), x)))
			hold = !ta_values_bound_between(m, x, from, to);
		if (!hold || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hold;
}

/* A pointer or mask passed by name: its one definition is rewritten, and it
 * may only be advanced by scalars (`ptrs += BLOCK_K * stride`). Returns the
 * broadcasts of the definition, or -1 with *why. */
/* A mask that other code reads untransposed, or that is bound more than
 * once: the binding that reaches the load, when its value is made of
 * broadcasts whose names still hold there, is written transposed in the
 * load in place of the name (`ks_mask` shared with the A tile's load,
 * `kv_mask` bound in each of two loops). Returns its broadcasts, or -1. */
static int p3_mask_copy(p3_ctx *c, TSNode id)
{
	const ta_model *m = c->m;
	TSNode bind, v = ta_values_def(m, id, &bind);
	if (ts_node_is_null(v) || !ta_node_is(bind, "assignment"))
		return -1;
	int r = ta_edits_bcast_mask(m, v);
	if (r <= 0 || (r & 4) || !p3_names_hold(m, v, ts_node_end_byte(bind), ts_node_start_byte(id)))
		return -1;
	char *t = swapped(m, v), *p = ta_xasprintf("(%s)", t);
	ta_edit_replace(c->out, ts_node_start_byte(id), ts_node_end_byte(id), p);
	free(t);
	free(p);
	return r;
}

static int p3_named(p3_ctx *c, TSNode id, const char *what, char **why)
{
	const ta_model *m = c->m;
	bool mask = !strcmp(what, "mask");
	char *name = ta_node_text(m->src, id);
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, c->k->node, name, &d);
	TSNode def = { 0 };
	int r = -1;
	for (size_t i = 0; i < d.n; i++) {
		if (ta_node_is(d.v[i], "assignment") && ts_node_is_null(def) &&
		    ta_node_is(ta_node_field(d.v[i], "left"), "identifier")) {
			def = d.v[i];
		} else if (!ta_node_is(d.v[i], "augmented_assignment") ||
			   ta_edits_bcast_mask(m, ta_node_field(d.v[i], "right")) != 0) {
			if (mask && (r = p3_mask_copy(c, id)) >= 0)
				goto done;
			*why = ta_xasprintf("line %u: the %s %s is bound again at line %zu", c->trans->span.line, what,
					    name, ta_node_line(d.v[i]));
			goto done;
		}
	}
	if (ts_node_is_null(def) || d.more) {
		if (mask && (r = p3_mask_copy(c, id)) >= 0)
			goto done;
		*why = ta_xasprintf("line %u: the %s %s has no single definition in %s", c->trans->span.line, what,
				    name, c->k->name);
		goto done;
	}
	/* Every use: its bindings plus its reads in the loads being swapped
	 * (`mask=kv_mask` in one branch's load of v need not be all: the
	 * else's load of k may read it too, and keeps the untransposed tile) */
	size_t in_loads = 0;
	for (size_t i = 0; i < c->loads && i < 2; i++)
		in_loads += ts_node_is_null(c->calls[i]) ? 1 : ta_edits_ident_count(m, c->calls[i], name);
	if (ta_edits_ident_count(m, c->k->node, name) != d.n + in_loads) {
		if (mask && (r = p3_mask_copy(c, id)) >= 0)
			goto done;
		*why = ta_xasprintf("line %u: the %s %s is used by other code too, which still wants the "
				    "untransposed tile", c->trans->span.line, what, name);
		goto done;
	}
	TSNode rhs = ta_node_field(def, "right");
	r = ta_edits_bcast_mask(m, rhs);
	if (r & 4) {
		*why = ta_xasprintf("line %zu: the %s %s is not built from x[:, None] and x[None, :] alone",
				    ta_node_line(def), what, name);
		r = -1;
		goto done;
	}
	bool again = false;   /* both branches' loads name it: rewrite it once */
	for (size_t i = 0; i < c->n_swapped; i++)
		again |= ts_node_eq(c->swapped[i], def);
	if (r && !again) {
		char *t = swapped(m, rhs);
		ta_edit_replace(c->out, ts_node_start_byte(rhs), ts_node_end_byte(rhs), t);
		free(t);
		if (c->n_swapped < sizeof c->swapped / sizeof *c->swapped)
			c->swapped[c->n_swapped++] = def;
	}
done:
	free(name);
	return r;
}

/* Some term of the & chain n is a name. */
static bool p3_names_a_term(const ta_model *m, TSNode n)
{
	TSNode t[16];
	size_t count = ta_edits_chain_terms(m, n, "&", t, 16);
	for (size_t i = 0; i < count; i++) {
		TSNode u = ta_node_unparen(t[i]);
		if (ta_node_is(u, "identifier") ||
		    (ta_node_is(u, "binary_operator") && p3_names_a_term(m, u)))
			return true;
	}
	return false;
}

/* One argument of the load: a name's definition is rewritten (p3_named), a
 * conditional `A if EVEN_N else B` (P2's form) arm by arm, so that a name in
 * either arm is followed too (one left untransposed would not compile), and
 * any other expression has its broadcasts swapped in place. */
static int p3_arg(p3_ctx *c, TSNode v, bool named_ok, const char *what, bool inline_load, char **why)
{
	const ta_model *m = c->m;
	TSNode u = ta_node_unparen(v);
	if (ta_node_is(u, "identifier") && named_ok)
		return p3_named(c, u, what, why);
	/* a mask made of names and broadcasts (`col_ok & ks_mask`): term by
	 * term, so that each name is followed */
	if (named_ok && !strcmp(what, "mask") && ta_node_is(u, "binary_operator") &&
	    ta_node_text_eq(m->src, ta_node_field(u, "operator"), "&") && p3_names_a_term(m, u)) {
		int a = p3_arg(c, ta_node_field(u, "left"), named_ok, what, inline_load, why);
		int b = a < 0 ? -1 : p3_arg(c, ta_node_field(u, "right"), named_ok, what, inline_load, why);
		return a < 0 || b < 0 ? -1 : a | b;
	}
	if (ta_node_is(u, "conditional_expression") && ta_node_named_count(u) == 3) {
		int a = p3_arg(c, ta_node_named_child(u, 0), named_ok, what, inline_load, why);
		if (a < 0)
			return -1;
		if (ta_edits_bcast_mask(m, ta_node_named_child(u, 1)) != 0) {
			*why = ta_xasprintf("line %zu: the load's %s tests a tile: not the x[:, None] / x[None, :] form",
					    ta_node_line(v), what);
			return -1;
		}
		int b = p3_arg(c, ta_node_named_child(u, 2), named_ok, what, inline_load, why);
		return b < 0 ? -1 : a | b;
	}
	int bits = ta_edits_bcast_mask(m, v);
	if (bits & 4) {
		*why = ta_xasprintf("line %zu: the load's arguments reshape or transpose: not the "
				    "x[:, None] / x[None, :] form", ta_node_line(v));
		return -1;
	}
	if (bits && !inline_load) {
		char *t = swapped(m, v);
		ta_edit_replace(c->out, ts_node_start_byte(v), ts_node_end_byte(v), t);
		free(t);
	}
	return bits;
}

/* Swaps the load's pointer tile, mask and other; inline: the load's own
 * text is returned (caller frees) to replace the transpose with. */
static int p3_load(p3_ctx *c, TSNode call, bool inline_load, char **inline_text, char **why)
{
	const ta_model *m = c->m;
	TSNode args = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(args), pos = 0;
	int ptr_bits = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "comment"))
			continue;
		bool kw = ta_node_is(a, "keyword_argument");
		TSNode v = kw ? ta_node_field(a, "value") : a;
		bool ptr = kw ? ta_node_text_eq(m->src, ta_node_field(a, "name"), "pointer") : pos == 0;
		bool mask = kw ? ta_node_text_eq(m->src, ta_node_field(a, "name"), "mask") : pos == 1;
		if (!kw)
			pos++;
		int bits = p3_arg(c, v, ptr || mask, ptr ? "pointer tile" : "mask", inline_load, why);
		if (bits < 0)
			return -1;
		if (ptr)
			ptr_bits = bits;
	}
	if (ptr_bits != 3) {
		*why = ta_xasprintf("line %zu: the pointer tile is not base + rows[:, None] ... + cols[None, :] ...",
				    ta_node_line(call));
		return -1;
	}
	if (inline_load)
		*inline_text = swapped(m, call);
	return 0;
}

static const ta_op *load_at(const ta_kernel *k, TSNode call)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_LOAD && k->ops[i].span.start == ts_node_start_byte(call) &&
		    k->ops[i].span.end == ts_node_end_byte(call))
			return &k->ops[i];
	return NULL;
}

/* text with up to n spaces taken off the start of each line but the first. */
static char *shift_left(const char *text, uint32_t n)
{
	ta_buf b = TA_BUF_INIT;
	for (const char *p = text; *p; p++) {
		ta_buf_putc(&b, *p);
		if (*p != '\n')
			continue;
		for (uint32_t i = 0; i < n && p[1] == ' '; i++)
			p++;
	}
	return ta_buf_steal(&b);
}

/* The if statement whose consequence or else branch holds the statement
 * st directly, or a null node. */
static TSNode arm_of(TSNode st, bool *in_else)
{
	TSNode block = ta_node_parent(st);
	TSNode up = ts_node_is_null(block) ? block : ta_node_parent(block);
	if (!ts_node_is_null(up) && ta_node_is(up, "else_clause")) {
		*in_else = true;
		return ta_node_parent(up);
	}
	*in_else = false;
	return !ts_node_is_null(up) && ta_node_is(up, "if_statement") ? up : (TSNode){ 0 };
}

/* A tile loaded in both branches of one if/else (`if EVEN_K: b = tl.load(p)
 * else: b = tl.load(p, mask=...)`, as P2 writes it), and only there: the
 * two loads (true), which P3 swaps alike. */
static bool branch_loads(const ta_model *m, const ta_kernel *k, const char *name, uint32_t off,
			 const ta_op *ld[2])
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, name, &d);
	if (d.n != 2 || d.more)
		return false;
	TSNode ifs[2];
	bool in_else[2];
	for (size_t i = 0; i < 2; i++) {
		TSNode a = d.v[i];
		if (!ta_node_is(a, "assignment") || ts_node_end_byte(a) > off ||
		    !ta_node_is(ta_node_field(a, "left"), "identifier"))
			return false;
		TSNode st = ta_node_parent(a);   /* the expression statement */
		ifs[i] = ts_node_is_null(st) ? st : arm_of(st, &in_else[i]);
		ld[i] = load_at(k, ta_node_unparen(ta_node_field(a, "right")));
		if (ts_node_is_null(ifs[i]) || !ld[i])
			return false;
	}
	return ts_node_eq(ifs[0], ifs[1]) && in_else[0] != in_else[1];
}

static int p3_one(const ta_model *m, const ta_kernel *k, const ta_op *t, ta_edit *out, char **why)
{
	TSNode tn = ta_edits_node(m, t->span);
	TSNode x = trans_operand(m, t, tn);
	if (ts_node_is_null(x))
		return ta_edits_refuse(why, "line %u: not a plain 2D transpose (tl.trans(x), x.T, "
				       "tl.permute(x, (1, 0)))", t->span.line);
	x = ta_node_unparen(x);
	p3_ctx c = { .m = m, .k = k, .trans = t, .out = out, .loads = 1 };
	const ta_op *ld = NULL;
	bool inline_load = ta_node_is(x, "call"), rebound = false;
	char *name = NULL;
	if (inline_load) {
		ld = load_at(k, x);
	} else if (ta_node_is(x, "identifier")) {
		name = ta_node_text(m->src, x);
		TSNode assign;
		TSNode rhs = single_def(m, k, name, t->span.start, &assign);
		/* bound more than once (a loop below the diagonal and one on
		 * it): the binding that reaches the transpose, read by it alone */
		if (ts_node_is_null(rhs) && !used_otherwise(m, k, name, t->span.start)) {
			TSNode v = ta_values_def(m, x, &assign);
			if (ta_node_is(assign, "assignment") && ta_node_is(ta_node_field(assign, "left"), "identifier") &&
			    load_at(k, ta_node_unparen(v))) {
				rhs = v;
				rebound = true;
			}
		}
		if (!ts_node_is_null(rhs))
			ld = load_at(k, ta_node_unparen(rhs));
		const ta_op *both[2];
		if (!ld && ts_node_is_null(rhs) && branch_loads(m, k, name, t->span.start, both)) {
			/* Loaded in an if and its else: both loads are swapped. */
			c.loads = 2;
			if (reads_between(m, k->node, name, 0, UINT32_MAX) != 3) {
				int r = ta_edits_refuse(why, "line %u: %s is also used untransposed: load it twice or "
							"transpose by hand", t->span.line, name);
				free(name);
				return r;
			}
			for (size_t i = 0; i < 2; i++)
				c.calls[i] = ta_edits_node(m, both[i]->span);
			for (size_t i = 0; i < 2; i++) {
				if (both[i]->ptr_shape != TA_PTR_2D || both[i]->ptr_rank != 2 || both[i]->gather) {
					int r = ta_edits_refuse(why, "line %u: %s is not loaded through a plain 2D "
								"pointer tile", both[i]->span.line, name);
					free(name);
					return r;
				}
				if (p3_load(&c, ta_edits_node(m, both[i]->span), false, NULL, why) != 0) {
					free(name);
					return -1;
				}
			}
			ta_edit_replace(out, ts_node_start_byte(tn), ts_node_end_byte(tn), name);
			ta_edit_set_title(out, "load %s transposed in both branches (rows and columns of its pointer "
					  "tiles swapped) instead of transposing it in the loop", name);
			out->line = t->span.line;
			free(name);
			return 0;
		}
		if (ld && !rebound && reads_between(m, k->node, name, 0, UINT32_MAX) != 2) {
			int r = ta_edits_refuse(why, "line %u: %s is also used untransposed: load it twice or "
						"transpose by hand", t->span.line, name);
			free(name);
			return r;
		}
	}
	if (!ld) {
		int r = ta_edits_refuse(why, "line %u: %s is not the result of one tl.load in %s", t->span.line,
					name ? name : "the transposed tile", k->name);
		free(name);
		return r;
	}
	if (ld->ptr_shape != TA_PTR_2D || ld->ptr_rank != 2 || ld->gather) {
		int r = ta_edits_refuse(why, "line %u: %s is not loaded through a plain 2D pointer tile",
					t->span.line, name ? name : "the tile");
		free(name);
		return r;
	}
	/* A transpose under an if that the load is not under (`if TRANS:
	 * b = tl.trans(b)`): the load serves the other path as it is. */
	for (TSNode p = ta_node_parent(tn); !ts_node_is_null(p) && !ta_node_is(p, "for_statement") &&
					    !ta_node_is(p, "while_statement") && !ta_node_is(p, "function_definition");
	     p = ta_node_parent(p)) {
		if ((ta_node_is(p, "if_statement") || ta_node_is(p, "conditional_expression")) &&
		    (ld->span.start < ts_node_start_byte(p) || ld->span.end > ts_node_end_byte(p))) {
			int r = ta_edits_refuse(why, "line %u: %s is transposed only on one path of the if at line %u, "
						"and its load at line %u serves the other as it is: load it in each "
						"branch first", t->span.line, name ? name : "the tile",
						ts_node_start_point(p).row + 1, ld->span.line);
			free(name);
			return r;
		}
	}
	char *text = NULL;
	c.calls[0] = ta_edits_node(m, ld->span);
	if (p3_load(&c, c.calls[0], inline_load, &text, why) != 0) {
		free(name);
		return -1;
	}
	if (inline_load) {
		/* The load moves left to where the transpose began: so do its
		 * continuation lines. */
		char *moved = shift_left(text, ts_node_start_byte(x) - ts_node_start_byte(tn));
		free(text);
		text = moved;
	}
	/* `x = tl.trans(x)` becomes nothing, not `x = x` */
	TSNode st = ta_node_parent(tn);
	uint32_t line_end = 0, line_start = UINT32_MAX;
	if (!inline_load && name && ta_node_is(st, "assignment") && ts_node_eq(ta_node_field(st, "right"), tn) &&
	    ta_node_is(ta_node_field(st, "left"), "identifier") &&
	    ta_node_text_eq(m->src, ta_node_field(st, "left"), name) &&
	    ta_node_is(ta_node_parent(st), "expression_statement"))
		line_start = ta_edits_stmt_lines(m, ta_node_parent(st), &line_end);
	if (line_start != UINT32_MAX)
		ta_edit_replace(out, line_start, line_end, "");
	else
		ta_edit_replace(out, ts_node_start_byte(tn), ts_node_end_byte(tn), inline_load ? text : name);
	ta_edit_set_title(out, "load %s transposed (rows and columns of its pointer tile swapped) instead of "
			  "transposing it in the loop", name ? name : "the tile");
	out->line = t->span.line;
	free(text);
	free(name);
	return 0;
}

static bool p3_site(const ta_model *m, const ta_kernel *k, const ta_op *t)
{
	(void)m, (void)k;
	return (t->kind == TA_OP_TRANS || t->kind == TA_OP_PERMUTE) && t->loop >= 0;
}

/* Rewrite: load the tile transposed (swap the pointer tile's rows and columns), drop the transpose. */
TA_REWRITE(P3, NULL, TA_SAFE)
{
	return ta_edits_each_op(m, kernel_or_host, line, p3_site, p3_one, out, why_not,
				"no transpose of a loaded tile inside a kernel loop");
}
