/* The deeper entries D2-D10, from the strategy's two linked documents and
 * from patterns seen in public kernels (D1 and D11-D16 have files of their
 * own). */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A BLOCK_* constexpr never larger than 16 that sizes a dimension of a dot
 * operand, where the operands' dimensions are known: the first such one
 * (its name). A 3D operand's first axis is its batch, no tile dimension
 * (batched per-row dots: the rows of the batch are not an MMA's M); an
 * operand of four or more dimensions, or two of different ranks, make no
 * dot tl.dot takes, so nothing is read from them. */
static const char *d2_narrow_operand(ta_rule_ctx *c, const ta_op *dot, bool *known)
{
	/* an operand passed by keyword (`tl.dot(a, other=b)`) has no shape
	 * read here: its dims stay empty */
	ta_tile_dims d[2] = { 0 };
	int r[2] = { dot->arg_count > 0 ? ta_rule_tile_dims(c, dot->args[0], dot->span.start, &d[0]) : 0,
		     dot->arg_count > 1 ? ta_rule_tile_dims(c, dot->args[1], dot->span.start, &d[1]) : 0 };
	if (!r[0] && !r[1])
		return NULL;
	*known = true;
	/* tl.dot takes two operands of one rank, 2 or 3: anything else is no
	 * dot Triton compiles, and nothing is read from it */
	if (r[0] > 3 || r[1] > 3 || (r[0] && r[1] && r[0] != r[1]))
		return NULL;
	int first = r[0] >= 3 || r[1] >= 3 ? 1 : 0;
	for (int o = 0; o < 2; o++)
		for (int i = first; r[o] && i < d[o].rank; i++) {
			const char *param = NULL;
			if (ta_rule_size_at_most(c, d[o].size[i], 16, &param) && param && !strncasecmp(param, "BLOCK", 5))
				return param;
		}
	return NULL;
}

/* Whether the constexpr name sizes a tile of the kernel: a range
 * (`tl.arange(0, BLOCK)`), a block made in place (tl.zeros, tl.full) or a
 * block pointer's or descriptor's block_shape of at most three dimensions
 * (a dot's operand at most). One that only scales a
 * program's offset (`off_b = pid * BLOCK_B`) sizes no tile. */
static bool d2_sizes_a_tile(ta_rule_ctx *c, const char *name)
{
	TSNode body = ta_node_field(c->k->node, "body");
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, body);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if ((ta_call_named(c->m, x, "arange") || ta_call_named(c->m, x, "zeros") ||
		     ta_call_named(c->m, x, "full")) &&
		    ta_node_contains_identifier(c->m->src, ta_node_field(x, "arguments"), name))
			yes = true;
		else if (ta_node_is(x, "keyword_argument") &&
			 ta_node_text_eq(c->m->src, ta_node_field(x, "name"), "block_shape") &&
			 ta_node_contains_identifier(c->m->src, ta_node_field(x, "value"), name))
			/* a block of four or more dimensions is no dot operand */
			yes = ta_node_named_count(ta_node_field(x, "value")) <= 3;
		if (yes || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return yes;
}

ta_status ta_detect_d2(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_op *dot = NULL;
	for (size_t i = 0; i < k->op_count && !dot; i++)
		if (k->ops[i].kind == TA_OP_DOT)
			dot = &k->ops[i];
	if (!dot)
		return TA_STATUS_NOT_APPLICABLE;
	/* Where the operands' shapes can be read, a narrow tile is one of
	 * theirs; else any BLOCK_* constexpr of the kernel stands for one. */
	bool shaped = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *d = &k->ops[i];
		if (d->kind != TA_OP_DOT)
			continue;
		bool known = false;
		const char *narrow = d2_narrow_operand(c, d, &known);
		shaped |= known;
		if (!narrow)
			continue;
		const ta_param *p = ta_kernel_param(k, narrow);
		long vals[64], most = 0;
		size_t n = ta_rule_param_values(c, narrow, vals, 64);
		for (size_t v = 0; v < n; v++)
			if (vals[v] > most)
				most = vals[v];
		ta_finding *f = ta_rule_add(c, d->span, "tl.dot in `%s` works on %ld-wide tiles (`%s` is "
					    "never larger): tiles of 32 or more use the tensor cores better",
					    k->name, most, narrow);
		ta_finding_line(f, p->span.line);
		return TA_STATUS_APPLIES;
	}
	bool known = false;
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		if (!p->constexpr_ || strncasecmp(p->name, "BLOCK", 5) || !d2_sizes_a_tile(c, p->name))
			continue;
		long vals[64];
		size_t n = ta_rule_param_values(c, p->name, vals, 64);
		if (!n)
			continue;
		known = true;
		long most = 0;
		for (size_t v = 0; v < n; v++)
			if (vals[v] > most)
				most = vals[v];
		if (most <= 16 && !shaped) {
			ta_finding *f = ta_rule_add(c, dot->span, "tl.dot in `%s` works on %ld-wide tiles (`%s` is "
						    "never larger): tiles of 32 or more use the tensor cores better",
						    k->name, most, p->name);
			ta_finding_line(f, p->span.line);
			return TA_STATUS_APPLIES;
		}
	}
	return known ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool output_alloc(const ta_host_op *op)
{
	static const char *const names[] = {
		"torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.empty_like",
		"torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.empty_strided", "torch.Tensor.new_empty",
		"torch.Tensor.new_zeros", "torch.Tensor.new_ones", "torch.Tensor.new_full", NULL,
	};
	return op->kind == TA_HOST_ALLOC && op->callee && ta_name_among(op->callee, names);
}

/* The kernels h launches, for a message: the same text for each of them,
 * so that the finding, made once per kernel, prints once. */
static char *launched_names(const ta_rule_ctx *c, const ta_host *h)
{
	const ta_kernel **ks = ta_xcalloc(h->launch_count ? h->launch_count : 1, sizeof *ks);
	size_t n = 0, other = 0;
	for (size_t i = 0; i < h->launch_count; i++) {
		int k = c->m->launches[h->launches[i]].kernel;
		if (k >= 0)
			ks[n++] = &c->m->kernels[k];
		else
			other++;
	}
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	if (!other)
		return names;
	/* launches of kernels defined in another module count too */
	char *all = ta_xasprintf("%s%s%zu kernel%s defined elsewhere", names, *names ? " and " : "", other,
				 other == 1 ? "" : "s");
	free(names);
	return all;
}

/* D3 counts the scratch allocations of one path through the wrapper (not
 * the tensors it returns or saves for backward: d3_handed_on): the arms of an
 * if are alternatives, and an arm that returns leaves what follows the if
 * off its path. Allocations are bits (the host's ops, at most 64). */
typedef struct d3_walk {
	const ta_host *h;
	uint64_t allocs;          /* bit i: h->ops[i] is a per-call allocation */
} d3_walk;

static uint64_t allocs_spanned(const d3_walk *w, TSNode n)
{
	uint64_t in = 0;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	for (size_t i = 0; i < w->h->op_count && i < 64; i++)
		if ((w->allocs >> i & 1) && w->h->ops[i].span.start >= a && w->h->ops[i].span.end <= b)
			in |= (uint64_t)1 << i;
	return in;
}

/* The allocations inside n on one path: of `zeros_like(x) if c else
 * empty_like(x)`, the arm with more (the two are alternatives). */
static uint64_t allocs_within(const d3_walk *w, TSNode n)
{
	uint64_t in = allocs_spanned(w, n);
	if (__builtin_popcountll(in) < 2)
		return in;
	ta_walk c;
	ta_walk_start(&c, n);
	do {
		TSNode e = ta_walk_node(&c);
		if (!ta_node_is(e, "conditional_expression") || ta_node_named_count(e) != 3)
			continue;
		uint64_t yes = allocs_spanned(w, ta_node_named_child(e, 0));
		uint64_t no = allocs_spanned(w, ta_node_named_child(e, 2));
		in &= ~(__builtin_popcountll(yes) >= __builtin_popcountll(no) ? no : yes);
	} while (ta_walk_next(&c, true));
	ta_walk_finish(&c);
	return in;
}

static bool block_ends_call(TSNode block)
{
	uint32_t n = ta_node_named_count(block);
	if (!n)
		return false;
	TSNode last = ta_node_named_child(block, n - 1);
	return ta_node_is(last, "return_statement") || ta_node_is(last, "raise_statement");
}

static uint64_t more_allocs(uint64_t a, uint64_t b)
{
	return __builtin_popcountll(b) > __builtin_popcountll(a) ? b : a;
}

/* The allocations of the longest path through the statements of block, in
 * one pass from its last statement back: rest is what the path takes from
 * the statement after the current one to the block's end, which every arm
 * of an if that does not return goes on to (computed once, whatever the
 * number of ifs in a row). Recursion only into the arms, as deep as the
 * ifs nest. */
static uint64_t path_allocs(const d3_walk *w, TSNode block)
{
	uint64_t rest = 0;
	for (uint32_t i = ta_node_named_count(block); i-- > 0;) {
		TSNode st = ta_node_named_child(block, i);
		if (ta_node_is(st, "if_statement")) {
			TSNode arms[16];
			uint32_t na = 0;
			bool has_else = false;
			arms[na++] = ta_node_field(st, "consequence");
			for (uint32_t j = 0; j < ta_node_named_count(st) && na < 16; j++) {
				TSNode alt = ta_node_named_child(st, j);
				if (ta_node_is(alt, "elif_clause"))
					arms[na++] = ta_node_field(alt, "consequence");
				else if (ta_node_is(alt, "else_clause")) {
					arms[na++] = ta_node_field(alt, "body");
					has_else = true;
				}
			}
			uint64_t best = has_else ? 0 : rest;
			for (uint32_t j = 0; j < na; j++) {
				if (ts_node_is_null(arms[j]))
					continue;
				uint64_t arm = path_allocs(w, arms[j]);
				if (!block_ends_call(arms[j]))
					arm |= rest;
				best = more_allocs(best, arm);
			}
			rest = allocs_within(w, ta_node_field(st, "condition")) | best;
		} else if (ta_node_is(st, "return_statement") || ta_node_is(st, "raise_statement")) {
			rest = allocs_within(w, st);
		} else if ((ta_node_is(st, "try_statement") || ta_node_is(st, "with_statement")) &&
			   ta_node_is(ta_node_field(st, "body"), "block")) {
			/* the body's own path (its ifs are alternatives there too);
			 * an except clause's allocations are another path's */
			TSNode body = ta_node_field(st, "body");
			uint64_t in = path_allocs(w, body);
			rest = block_ends_call(body) ? in : (in | rest);
		} else {
			rest |= allocs_within(w, st);
		}
	}
	return rest;
}

/* The per-call allocations on h's longest path (all of them when h's body
 * cannot be found). */
static uint64_t d3_path(const ta_rule_ctx *c, const ta_host *h, uint64_t allocs)
{
	TSNode fn = ta_rule_node(c, h->span);
	if (ta_node_is(fn, "decorated_definition"))
		fn = ta_node_field(fn, "definition");
	TSNode body = ta_node_is(fn, "function_definition") ? ta_node_field(fn, "body") : fn;
	if (ts_node_is_null(body) || !ta_node_is(body, "block"))
		return allocs;
	d3_walk w = { h, allocs };
	return path_allocs(&w, body);
}

/* Some allocation of the path is under an if of h: not every call makes it. */
static bool d3_conditional(const ta_rule_ctx *c, const ta_host *h, uint64_t path)
{
	for (size_t i = 0; i < h->op_count && i < 64; i++) {
		if (!(path >> i & 1))
			continue;
		for (TSNode p = ta_rule_node(c, h->ops[i].span); !ts_node_is_null(p); p = ta_node_parent(p)) {
			if (ta_node_is(p, "function_definition"))
				break;
			if (ta_node_is(p, "if_statement") || ta_node_is(p, "conditional_expression"))
				return true;
		}
	}
	return false;
}

/* A host's D3 path, once per host of the model: each kernel it launches
 * asks (a host may launch thousands). */
typedef struct d3_memo {
	uint64_t path;
	bool done;
} d3_memo;

static void *new_d3_memos(const ta_model *m)
{
	return ta_xcalloc(m->host_count + 1, sizeof(d3_memo));
}

/* Methods that give a view of their tensor, or the tensor itself. */
static bool view_method(const char *m)
{
	static const char *const names[] = { "view", "view_as", "reshape", "reshape_as", "transpose", "permute", "t",
					     "squeeze", "unsqueeze", "flatten", "unflatten", "narrow", "expand",
					     "expand_as", "contiguous", "split", "chunk", "unbind", "select",
					     "as_strided", "detach", "to", "type_as", "movedim", NULL };
	for (int i = 0; names[i]; i++)
		if (!strcmp(m, names[i]))
			return true;
	return false;
}

/* An index that gathers (`t[t != -1]`, `t[idx_list]`, `t[mask & ok]`):
 * the subscript is a copy of what it picks, not a view. */
static bool copying_index(TSNode sub)
{
	uint32_t n = ta_node_named_count(sub);
	for (uint32_t i = 1; i < n; i++) {
		TSNode ix = ta_node_unparen(ta_node_named_child(sub, i));
		if (ta_node_is(ix, "comparison_operator") || ta_node_is(ix, "boolean_operator") ||
		    ta_node_is(ix, "not_operator") || ta_node_is(ix, "call") || ta_node_is(ix, "list"))
			return true;
		if (ta_node_is(ix, "binary_operator") || ta_node_is(ix, "unary_operator")) {
			TSNode op = ta_node_field(ix, "operator");
			if (ta_node_is(op, "&") || ta_node_is(op, "|") || ta_node_is(op, "~"))
				return true;
		}
	}
	return false;
}

/* `d["key"]`: an entry of a dict, by a string key. */
static bool keyed_entry(TSNode left)
{
	return ta_node_is(left, "subscript") && ta_node_named_count(left) == 2 &&
	       ta_node_is(ta_node_named_child(left, 1), "string");
}

/* A set of names, sorted once filled (the names own their text). */
typedef struct name_set {
	char **v;
	size_t n;
} name_set;

static bool set_has(const name_set *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof *s->v, ta_strptr_cmp);
}

static void set_add(name_set *s, char *name)
{
	*TA_APPEND(s->v, s->n) = name;
}

static void set_sort(name_set *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, ta_strptr_cmp);
}

static void set_free(name_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* The names the value n is, or is a view of (`o`, `(o, lse)`,
 * `o.view(b, h, s, d)`, `o[:n]`, `{"out": o}`; not a new tensor computed
 * from one, `o + 1`, `o.sum()`, `t[t != -1]`), added to out. */
static void given_names(const ta_model *m, TSNode n, int depth, name_set *out)
{
	n = ta_node_unparen(n);
	if (ts_node_is_null(n) || depth > 8)
		return;
	if (ta_node_is(n, "identifier")) {
		set_add(out, ta_node_text(m->src, n));
	} else if (ta_node_is(n, "tuple") || ta_node_is(n, "expression_list") || ta_node_is(n, "list") ||
		   ta_node_is(n, "argument_list")) {
		for (uint32_t i = 0; i < ta_node_named_count(n); i++)
			given_names(m, ta_node_named_child(n, i), depth + 1, out);
	} else if (ta_node_is(n, "dictionary")) {
		for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
			TSNode pair = ta_node_named_child(n, i);
			if (ta_node_is(pair, "pair"))
				given_names(m, ta_node_field(pair, "value"), depth + 1, out);
		}
	} else if (ta_node_is(n, "conditional_expression")) {
		given_names(m, ta_node_named_child(n, 0), depth + 1, out);
		given_names(m, ta_node_named_child(n, 2), depth + 1, out);
	} else if (ta_node_is(n, "subscript")) {
		if (!copying_index(n))
			given_names(m, ta_node_field(n, "value"), depth + 1, out);
	} else if (ta_node_is(n, "call")) {
		TSNode fn = ta_node_field(n, "function");
		if (!ta_node_is(fn, "attribute"))
			return;
		char *meth = ta_node_text(m->src, ta_node_field(fn, "attribute"));
		if (view_method(meth))
			given_names(m, ta_node_field(fn, "object"), depth + 1, out);
		free(meth);
	} else if (ta_node_is(n, "attribute")) {   /* o.T, o.mT */
		given_names(m, ta_node_field(n, "object"), depth + 1, out);
	}
}

/* The tensors a host function hands on, found in one walk of it: those it
 * returns (or views of them), keeps in an attribute or a dict by key
 * (`state.buf = buf`, `results["lens"] = lens`; a tensor's slice, `out[a:]
 * = t`, copies t instead), saves for backward or puts in a list, and the
 * names it aliases them from (`z_loss = z_loss_1d if z else None`, three
 * aliases deep). A tensor the caller or autograd keeps is no scratch: as a
 * view of a slab it would keep the whole slab alive with it. */
typedef struct d3_handed {
	name_set *hosts;          /* per host, built on first use */
	bool *done;
	size_t n;
} d3_handed;

static void *new_d3_handed(const ta_model *m)
{
	d3_handed *x = ta_xcalloc(1, sizeof *x);
	x->n = m->host_count;
	x->hosts = ta_xcalloc(x->n + 1, sizeof *x->hosts);
	x->done = ta_xcalloc(x->n + 1, sizeof *x->done);
	return x;
}

static void free_d3_handed(void *p)
{
	d3_handed *x = p;
	for (size_t i = 0; i < x->n; i++)
		set_free(&x->hosts[i]);
	free(x->hosts);
	free(x->done);
	free(x);
}

static void handed_by(const ta_rule_ctx *c, const ta_host *h, name_set *handed)
{
	TSNode fn = ta_rule_node(c, h->span);
	if (ta_node_is(fn, "decorated_definition"))
		fn = ta_node_field(fn, "definition");
	if (!ta_node_is(fn, "function_definition"))
		return;
	/* aliases: alias[i] is given the names of given[i] */
	char **alias = NULL;
	name_set *given = NULL;
	size_t n_alias = 0;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	do {
		TSNode n = ta_walk_node(&w);
		if (ta_node_is(n, "return_statement") && ta_node_named_count(n)) {
			given_names(c->m, ta_node_named_child(n, 0), 0, handed);
		} else if (ta_node_is(n, "assignment") && (ta_node_is(ta_node_field(n, "left"), "attribute") ||
							  keyed_entry(ta_node_field(n, "left")))) {
			given_names(c->m, ta_node_field(n, "right"), 0, handed);
		} else if (ta_node_is(n, "assignment")) {
			/* `x = o`, and each name of a tuple assignment with its
			 * own value (`X, C = C, X`: ping-pong buffers) */
			TSNode left = ta_node_field(n, "left"), right = ta_node_field(n, "right");
			bool one = ta_node_is(left, "identifier");
			uint32_t nl = one ? 1 : ta_node_named_count(left);
			if (!one && !((ta_node_is(left, "pattern_list") || ta_node_is(left, "tuple_pattern")) &&
				      (ta_node_is(right, "expression_list") || ta_node_is(right, "tuple")) &&
				      ta_node_named_count(right) == nl))
				nl = 0;
			for (uint32_t i = 0; i < nl; i++) {
				TSNode l = one ? left : ta_node_named_child(left, i);
				if (!ta_node_is(l, "identifier"))
					continue;
				name_set g = { 0 };
				given_names(c->m, one ? right : ta_node_named_child(right, i), 0, &g);
				if (!g.n)
					continue;
				alias = ta_xrealloc(alias, (n_alias + 1) * sizeof *alias);
				given = ta_xrealloc(given, (n_alias + 1) * sizeof *given);
				alias[n_alias] = ta_node_text(c->m->src, l);
				given[n_alias++] = g;
			}
		} else if (ta_node_is(n, "call")) {
			TSNode f = ta_node_field(n, "function");
			TSNode attr = ta_node_is(f, "attribute") ? ta_node_field(f, "attribute") : (TSNode){ 0 };
			if (!ts_node_is_null(attr) && (ta_node_text_eq(c->m->src, attr, "save_for_backward") ||
						       ta_node_text_eq(c->m->src, attr, "append")))
				given_names(c->m, ta_node_field(n, "arguments"), 0, handed);
		}
	} while (ta_walk_next(&w, true));
	ta_walk_finish(&w);
	set_sort(handed);
	for (int round = 0; round < 3; round++) {
		size_t before = handed->n;
		for (size_t i = 0; i < n_alias; i++)
			if (set_has(handed, alias[i]))
				for (size_t j = 0; j < given[i].n; j++)
					if (strcmp(given[i].v[j], alias[i]) && !set_has(handed, given[i].v[j]))
						set_add(handed, ta_xstrdup(given[i].v[j]));
		if (handed->n == before)
			break;
		set_sort(handed);
	}
	for (size_t i = 0; i < n_alias; i++) {
		free(alias[i]);
		set_free(&given[i]);
	}
	free(alias);
	free(given);
}

static bool d3_handed_on(const ta_rule_ctx *c, const ta_host *h, const char *name)
{
	d3_handed *x = ta_index_cached(c->m, new_d3_handed, free_d3_handed);
	size_t i = (size_t)(h - c->m->hosts);
	if (i >= x->n)
		return false;
	if (!x->done[i]) {
		x->done[i] = true;
		handed_by(c, h, &x->hosts[i]);
	}
	return set_has(&x->hosts[i], name);
}

/* The allocation op's tensor is handed on: the name it is assigned to,
 * also through a conditional (`dx = (empty_like(x) if a else empty(...))`). */
static bool d3_op_handed_on(const ta_rule_ctx *c, const ta_host *h, const ta_host_op *op)
{
	if (op->target)
		return d3_handed_on(c, h, op->target);
	TSNode as = ta_node_ancestor(ta_rule_node(c, op->span), "assignment");
	TSNode left = ta_node_is(as, "assignment") ? ta_node_unparen(ta_node_field(as, "left")) : (TSNode){ 0 };
	if (!ta_node_is(left, "identifier"))
		return false;
	char *name = ta_node_text(c->m->src, left);
	bool handed = d3_handed_on(c, h, name);
	free(name);
	return handed;
}

/* The operand a None test tests (`x is None`, `x is not None`, or a name
 * bound once in fn to one), or a null node. */
static TSNode none_tested(const ta_rule_ctx *c, TSNode fn, TSNode cond)
{
	cond = ta_node_unparen(cond);
	if (ta_node_is(cond, "not_operator"))
		cond = ta_node_unparen(ta_node_field(cond, "argument"));
	if (ta_node_is(cond, "identifier")) {
		uint32_t at = ts_node_start_byte(cond);
		cond = ta_rule_sole_value(c->m, fn, c->m->src->text + at, ts_node_end_byte(cond) - at, 0);
	}
	if (!ta_node_is(cond, "comparison_operator") || ta_node_named_count(cond) != 2 ||
	    !ta_node_is(ta_node_named_child(cond, 1), "none"))
		return (TSNode){ 0 };
	const char *op = ts_node_type(ts_node_child(cond, 1));
	return !strcmp(op, "is") || !strcmp(op, "is not") ? ta_node_named_child(cond, 0) : (TSNode){ 0 };
}

/* An allocation no call makes again: a buffer kept on an object or a
 * class, made the first time (`if Cls.buf is None: Cls.buf =
 * torch.empty(...)`), or, in autograd's backward, a stand-in for a
 * gradient given as None (`need = grad is not None; if need: ... else: g =
 * torch.zeros(...)`), which autograd never gives unless the forward set
 * set_materialize_grads(False). A default made for an optional argument
 * of a forward (`if bias is None: bias = torch.zeros(n)`) is made on every
 * call without it, and stays scratch. */
static bool d3_lazy(const ta_rule_ctx *c, const ta_host_op *op)
{
	TSNode n = ta_rule_node(c, op->span);
	TSNode as = ta_node_ancestor(n, "assignment");
	TSNode fn = ta_node_ancestor(n, "function_definition");
	/* the nearest choice around it: an if, or `a if c else b` */
	TSNode cond = { 0 };
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !ts_node_eq(p, fn); p = ta_node_parent(p)) {
		if (ta_node_is(p, "if_statement")) {
			cond = ta_node_field(p, "condition");
			break;
		}
		if (ta_node_is(p, "conditional_expression") && ta_node_named_count(p) == 3) {
			cond = ta_node_named_child(p, 1);
			break;
		}
	}
	if (ts_node_is_null(as) || ts_node_is_null(fn) || ts_node_is_null(cond))
		return false;
	TSNode x = none_tested(c, fn, cond);
	if (ts_node_is_null(x))
		return false;
	char *target = ta_node_text(c->m->src, ta_node_field(as, "left"));
	char *tested = ta_node_text(c->m->src, x);
	/* a buffer kept on an object or a class, made the first time */
	bool lazy = ta_node_is(x, "attribute") && !strcmp(target, tested);
	/* autograd's backward: a gradient it is given is never None unless
	 * the forward turned materialising off, so the default is not made */
	TSNode fname = ta_node_field(fn, "name");
	if (!lazy && ta_node_is(x, "identifier") && ta_node_text_eq(c->m->src, fname, "backward")) {
		TSNode params = ta_node_field(fn, "parameters");
		for (uint32_t i = 0; i < ta_node_named_count(params) && !lazy; i++) {
			TSNode pn = ta_node_param_name(ta_node_named_child(params, i));
			lazy = !ts_node_is_null(pn) && ta_node_text_eq(c->m->src, pn, tested);
		}
		lazy = lazy && !ta_text_mentions(c->m->src->text, c->m->src->len, "set_materialize_grads");
	}
	free(target);
	free(tested);
	return lazy;
}

static uint64_t d3_host_path(const ta_rule_ctx *c, const ta_host *h)
{
	d3_memo *memo = &((d3_memo *)ta_index_cached(c->m, new_d3_memos, free))[h - c->m->hosts];
	if (!memo->done) {
		uint64_t allocs = 0;
		for (size_t i = 0; i < h->op_count && i < 64; i++)
			if (output_alloc(&h->ops[i]) && h->ops[i].loop_depth == 0 && !d3_op_handed_on(c, h, &h->ops[i]) &&
			    !d3_lazy(c, &h->ops[i]))
				allocs |= (uint64_t)1 << i;
		memo->path = d3_path(c, h, allocs);
		memo->done = true;
	}
	return memo->path;
}

/* The scratch a loop of h makes again on each pass, as a clause for D3's
 * sentence (caller frees): the slab's count leaves it out, but the
 * sentence says how many tensors a call makes. */
static char *d3_loop_clause(const ta_rule_ctx *c, const ta_host *h)
{
	size_t in_loops = 0;
	uint32_t loop_line = 0;
	for (size_t i = 0; i < h->op_count && i < 64; i++)
		if (output_alloc(&h->ops[i]) && h->ops[i].loop_depth > 0 && !d3_op_handed_on(c, h, &h->ops[i])) {
			if (!in_loops++)
				loop_line = h->ops[i].span.line;
		}
	return in_loops ? ta_xasprintf(", and %zu more inside a loop (line %u), made again on each pass", in_loops,
				       loop_line)
			: ta_xstrdup("");
}

/* D3's finding on host h for its allocation path: what it goes on to do
 * (then: `launching K`; on one path of several, does: `launches K`, the
 * function's kernels, which that path need not all launch). */
static void d3_report(ta_rule_ctx *c, const ta_host *h, uint64_t path, const char *then, const char *does)
{
	size_t n = (size_t)__builtin_popcountll(path);
	const ta_host_op *first = &h->ops[__builtin_ctzll(path)];
	/* the kernels are the function's, not the path's: a path of an if
	 * need not launch them all */
	bool one_path = d3_conditional(c, h, path);
	char *more = d3_loop_clause(c, h);
	ta_finding *f = ta_rule_add(c, first->span, one_path
		? "`%s` allocates %zu scratch tensors on one path through it (it %s)%s: one slab with views into "
		  "it is cheaper"
		: "`%s` allocates %zu scratch tensors on every call before %s%s: one slab with views into it is "
		  "cheaper", h->name, n, one_path ? does : then, more);
	free(more);
	for (size_t i = 0; i < h->op_count && i < 64; i++)
		if (path >> i & 1)
			ta_finding_line(f, h->ops[i].span.line);
}

/* Whether host g calls, by its plain name, a function of the file that
 * launches a kernel: those functions, listed into out (`a`, `b` and `c`). */
static bool d3_calls_launchers(const ta_rule_ctx *c, int g, ta_buf *out)
{
	const ta_model *m = c->m;
	size_t found = 0;
	const char *names[8];
	for (size_t h = 0; h < m->host_count; h++) {
		if ((int)h == g || !m->hosts[h].launch_count || !m->hosts[h].name)
			continue;
		size_t nc;
		const ta_name_call *cs = ta_rule_calls_of(m, m->hosts[h].name, strlen(m->hosts[h].name), &nc);
		bool called = false;
		for (size_t i = 0; i < nc && !called; i++)
			called = ta_index_host_at(m, ts_node_start_byte(cs[i].call)) == g;
		if (called && found < 8)
			names[found] = m->hosts[h].name;
		found += called;
	}
	size_t shown = found < 8 ? found : 8;
	for (size_t i = 0; i < shown; i++)
		ta_buf_printf(out, "%s`%s`", !i ? "" : i + 1 == shown && shown == found ? " and " : ", ", names[i]);
	if (found > shown)
		ta_buf_printf(out, " and %zu more", found - shown);
	return found > 0;
}

/* A function that runs the file as a script or a benchmark (`main`,
 * `bench*`, `benchmark*`): it makes its inputs once, no wrapper's cost. */
static bool d3_script_entry(const ta_host *h)
{
	return h->name && (!strcmp(h->name, "main") || !strncmp(h->name, "bench", 5));
}

/* A wrapper that launches k through the file's own functions (it calls
 * `online_softmax(...)`, which launches it): its scratch is made on every
 * call as a launching wrapper's is. Each such caller once. */
static bool d3_through_callers(ta_rule_ctx *c)
{
	const ta_model *m = c->m;
	bool found = false;
	int seen[16];
	size_t nseen = 0;
	ta_host_walk walk = ta_index_host_walk(m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		if (!h->name)
			continue;
		size_t nc;
		const ta_name_call *cs = ta_rule_calls_of(m, h->name, strlen(h->name), &nc);
		for (size_t i = 0; i < nc; i++) {
			int g = ta_index_host_at(m, ts_node_start_byte(cs[i].call));
			bool dup = g < 0 || &m->hosts[g] == h;
			for (size_t s = 0; s < nseen && !dup; s++)
				dup = seen[s] == g;
			if (dup || nseen == 16)
				continue;
			seen[nseen++] = g;
			const ta_host *gh = &m->hosts[g];
			TSNode fn = ta_rule_node(c, gh->span);
			if (ta_node_is(fn, "decorated_definition"))
				fn = ta_node_field(fn, "definition");
			/* the module's own statements run once, and a wrapper that
			 * launches kernels itself is reported as their wrapper */
			if (!ta_node_is(fn, "function_definition") || gh->launch_count || ta_rule_host_is_test(gh) ||
			    d3_script_entry(gh))
				continue;
			uint64_t path = d3_host_path(c, gh);
			ta_buf callees = TA_BUF_INIT;
			if (__builtin_popcountll(path) >= 3 && d3_calls_launchers(c, g, &callees)) {
				const char *es = strstr(callees.data, " and ") ? "" : "es";
				char *then = ta_xasprintf("calling %s, which launch%s Triton kernels", callees.data, es);
				char *does = ta_xasprintf("calls %s, which launch%s Triton kernels", callees.data, es);
				d3_report(c, gh, path, then, does);
				free(does);
				free(then);
				found = true;
			}
			ta_buf_free(&callees);
		}
	}
	return found;
}

ta_status ta_detect_d3(ta_rule_ctx *c)
{
	bool any = false, found = false;
	ta_host_walk walk = ta_index_host_walk(c->m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		any = true;
		uint64_t path = d3_host_path(c, h);
		if (__builtin_popcountll(path) < 3)
			continue;
		char *kernels = launched_names(c, h);
		char *then = ta_xasprintf("launching %s", kernels);
		char *does = ta_xasprintf("launches %s", kernels);
		d3_report(c, h, path, then, does);
		free(does);
		free(then);
		free(kernels);
		found = true;
	}
	found |= d3_through_callers(c);
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* A name loop l carries from one iteration to the next: updated in place
 * (`end += size`) or assigned after the loop has read it (`start = end`
 * after `end = start + size`). */
static bool d5_carried(ta_rule_ctx *c, int l, const char *name)
{
	const ta_loop *lp = &c->k->loops[l];
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n; i++) {
		if (as[i].loop != l || strcmp(as[i].name, name))
			continue;
		if (as[i].augmented)
			return true;
		ta_span before = { .start = lp->header.end, .end = as[i].stmt.start };
		if (before.end > before.start && ta_rule_mentions(c, before, name))
			return true;
		if (ta_rule_mentions(c, as[i].rhs, name))
			return true;
	}
	return false;
}

/* A group bound of loop l: a name the loop assigns from a scalar load in
 * it (`end = tl.load(ends + i)`) or carries (`start = end`). */
static bool d5_bound(ta_rule_ctx *c, int l, const ta_assign *as)
{
	if (as->loop != l)
		return false;
	if (d5_carried(c, l, as->name))
		return true;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->loop == l && op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_SCALAR &&
		    op->span.start >= as->rhs.start && op->span.end <= as->rhs.end)
			return true;
	}
	return false;
}

/* Whether the condition cond reads a group bound of loop l, or a name the
 * loop computes from one (`end = start + size`). */
static bool d5_running_bound(ta_rule_ctx *c, int l, ta_span cond)
{
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n; i++) {
		if (as[i].loop != l || !ta_rule_mentions(c, cond, as[i].name))
			continue;
		if (d5_bound(c, l, &as[i]))
			return true;
		for (size_t j = 0; j < n; j++)
			if (j != i && ta_rule_mentions(c, as[i].rhs, as[j].name) && d5_bound(c, l, &as[j]))
				return true;
	}
	return false;
}

/* Whether the assignment a (in an if of loop l) picks: its name is bound
 * before the loop, so that it carries the pick out of it, and its value
 * is the loop's index or a group bound (`id = group_id`, `off = start`);
 * a value loaded under a validity test (`if pos >= 0: v = tl.load(...)`)
 * is no pick. */
static bool d5_picks(ta_rule_ctx *c, int l, TSNode a)
{
	const ta_loop *lp = &c->k->loops[l];
	char *name = ta_node_text(c->m->src, ta_node_field(a, "left"));
	ta_span rhs = ta_span_of(c->m->src, ta_node_field(a, "right"));
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	bool before = false, value = false;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(as[i].name, name) && as[i].stmt.end <= lp->span.start)
			before = true;
		if (as[i].loop == l && ta_rule_mentions(c, rhs, as[i].name) && d5_bound(c, l, &as[i]))
			value = true;
	}
	value |= lp->var && ta_rule_mentions(c, rhs, lp->var);
	free(name);
	for (size_t i = 0; i < c->k->op_count && value; i++)
		if (c->k->ops[i].kind == TA_OP_LOAD && c->k->ops[i].span.start >= rhs.start &&
		    c->k->ops[i].span.end <= rhs.end)
			value = false;
	return before && value;
}

/* Whether the condition cond of an if in loop l reads a name the loop
 * does not assign: the tile's position, ordered against the bounds (`m >=
 * lo`); a test of a loaded value alone (`pos >= 0`) is no search. */
static bool d5_reads_tile(ta_rule_ctx *c, int l, TSNode cond)
{
	bool outside = false;
	ta_walk w;
	ta_walk_start(&w, cond);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "identifier"))
			continue;
		char *id = ta_node_text(c->m->src, n);
		size_t na;
		const ta_assign *as = ta_rule_assigns(c, &na);
		bool in_loop = false;
		for (size_t i = 0; i < na && !in_loop; i++)
			in_loop = as[i].loop == l && !strcmp(as[i].name, id);
		const char *var = c->k->loops[l].var;
		outside |= !in_loop && (!var || strcmp(id, var) != 0);
		free(id);
	} while (!outside && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return outside;
}

/* The line of an if of loop l (not of a loop inside it), with no else,
 * whose condition orders against a group bound of l and whose body
 * assigns a name: the same pick as a tl.where, the name keeping its value
 * on the iterations the if skips (`if m >= off and m < nxt: g = i`); 0
 * when there is none. */
static uint32_t d5_if_pick(ta_rule_ctx *c, int l)
{
	TSNode loop = ta_rule_node(c, c->k->loops[l].span);
	TSNode body = ta_node_field(loop, "body");
	if (ts_node_is_null(body))
		return 0;
	uint32_t line = 0;
	ta_walk w;
	ta_walk_start(&w, body);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "if_statement"))
			continue;
		TSNode up = ta_node_parent(n);
		while (!ts_node_is_null(up) && !ta_node_is(up, "for_statement") && !ta_node_is(up, "while_statement"))
			up = ta_node_parent(up);
		if (ts_node_start_byte(up) != ts_node_start_byte(loop) || !ts_node_is_null(ta_node_field(n, "alternative")))
			continue;
		ta_span cond = ta_span_of(c->m->src, ta_node_field(n, "condition"));
		if ((!ta_rule_contains(c, cond, "<") && !ta_rule_contains(c, cond, ">")) ||
		    !d5_running_bound(c, l, cond) || !d5_reads_tile(c, l, ta_node_field(n, "condition")))
			continue;
		TSNode then = ta_node_field(n, "consequence");
		for (uint32_t i = 0; i < ta_node_named_count(then) && !line; i++) {
			TSNode st = ta_node_named_child(then, i);
			TSNode a = ta_node_is(st, "expression_statement") ? ta_node_named_child(st, 0) : (TSNode){ 0 };
			if (ta_node_is(a, "assignment") && ta_node_is(ta_node_field(a, "left"), "identifier") &&
			    d5_picks(c, l, a))
				line = ts_node_start_point(n).row + 1;
		}
	} while (!line && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return line;
}

/* D5: a for loop over every group that loads each group's size or end
 * and picks the tile's group with a tl.where whose condition orders the
 * tile against that bound (loaded, or the prefix sum the loop accumulates)
 * and whose value the loop carries (`g = tl.where(tile >= end, i + 1, g)`),
 * or with an if that assigns it (d5_if_pick). A while loop that computes
 * the group by division, or a remap that compares ids for equality, is no
 * search. */
ta_status ta_detect_d5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		if (lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE && lp->kind != TA_LOOP_STATIC_RANGE)
			continue;
		char *it = ta_rule_text(c, lp->iter);
		for (char *p = it; *p; p++)
			*p = (char)(*p | 0x20);
		bool groups = strstr(it, "group") || strstr(it, "expert") || strstr(it, "problem");
		free(it);
		if (!groups)
			continue;
		bool scalar_load = false;
		const ta_op *search = NULL;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->loop != (int)l)
				continue;
			scalar_load |= op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_SCALAR;
			if (op->kind == TA_OP_WHERE && op->arg_count && !search &&
			    (ta_rule_contains(c, op->args[0], "<") || ta_rule_contains(c, op->args[0], ">")) &&
			    op->target && d5_carried(c, (int)l, op->target) && d5_running_bound(c, (int)l, op->args[0]))
				search = op;
		}
		uint32_t pick = search || !scalar_load ? 0 : d5_if_pick(c, (int)l);
		if ((!search && !pick) || !scalar_load)
			continue;
		ta_finding *f = ta_rule_add(c, lp->header,
			"the loop at line %u visits every group and picks the current tile's group with the "
			"%s at line %u against each group's bound: advancing a running `last_problem_end` "
			"visits each group once", lp->span.line, search ? "tl.where" : "if",
			search ? search->span.line : pick);
		ta_finding_line(f, search ? search->span.line : pick);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d7(ta_rule_ctx *c)
{
	bool found = false;
	ta_host_walk walk = ta_index_host_walk(c->m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			if (op->kind != TA_HOST_CLONE || !op->receiver)
				continue;
			bool copied = strstr(op->receiver, "contiguous(") != NULL;
			for (size_t j = 0; j < h->op_count && !copied; j++)
				copied = h->ops[j].kind == TA_HOST_CONTIGUOUS && h->ops[j].target &&
					 !strcmp(h->ops[j].target, op->receiver) && h->ops[j].span.start < op->span.start &&
					 (strstr(h->ops[j].text, "transpose") || strstr(h->ops[j].text, ".t()") ||
					  strstr(h->ops[j].text, ".T") || strstr(h->ops[j].text, "permute"));
			if (!copied)
				continue;
			ta_rule_add(c, op->span, "`%s` clones `%s`, which a transpose+contiguous already copied",
				    h->name, op->receiver);
			found = true;
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* Whether the code at s loads: a tl.load or descriptor load in it, or a
 * call of a @jit helper that loads. */
static bool d8_loads_in(const ta_rule_ctx *c, ta_span s)
{
	const ta_kernel *k = c->k;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *o = &k->ops[i];
		if (o->span.start < s.start || o->span.end > s.end)
			continue;
		if (o->kind == TA_OP_LOAD || o->kind == TA_OP_DESC_LOAD ||
		    (o->kind == TA_OP_HELPER_CALL && o->helper != c->kernel &&
		     ta_kernel_reaches_op(c->m, o->helper, TA_OP_BIT(TA_OP_LOAD), 1)))
			return true;
	}
	return false;
}

/* A test on the code at s, for loop l: d8_loads_in or d8_bends. */
typedef bool (*d8_seed_fn)(ta_rule_ctx *c, ta_span s, int l);

/* Whether the pointer of op satisfies seed, inline or through names that
 * op's loop assigns from such a value, followed to a fixed point. */
static bool d8_pointer_reaches(ta_rule_ctx *c, const ta_op *op, int l, d8_seed_fn seed)
{
	if (seed(c, op->args[0], l))
		return true;
	size_t na, first;
	const ta_assign *as = ta_rule_assigns(c, &na);
	size_t end = ta_rule_assigns_within(as, na, c->k->loops[l].span, &first);
	bool *marked = ta_xcalloc(end - first + 1, sizeof *marked);
	for (size_t a = first; a < end; a++)
		marked[a - first] = seed(c, as[a].rhs, l);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t a = first; a < end; a++)
			for (size_t b = first; b < end && !marked[a - first]; b++)
				if (marked[b - first] && ta_rule_mentions(c, as[a].rhs, as[b].name))
					marked[a - first] = grew = true;
	}
	bool hit = false;
	for (size_t a = first; a < end && !hit; a++)
		hit = marked[a - first] && ta_rule_mentions(c, op->args[0], as[a].name);
	free(marked);
	return hit;
}

static bool d8_loads_seed(ta_rule_ctx *c, ta_span s, int l)
{
	(void)l;
	return d8_loads_in(c, s);
}

/* The pointer of op reads a value loaded in op's loop: inline, or through
 * names the loop assigns from such a value (`start = tl.load(idx + i) *
 * BLOCK; offs = start + tl.arange(0, BLOCK)`). */
static bool d8_loaded_offsets(ta_rule_ctx *c, const ta_op *op, int l)
{
	return d8_pointer_reaches(c, op, l, d8_loads_seed);
}

/* Whether the expression at s holds, over a value that changes with loop
 * l, an operation that bends a step: floor division, modulo, a shift or
 * bit mask, a conditional expression, a clamp or tl.where
 * (`(sub // 2) * 32 + r`, `base + (32 if odd else 0)`): from one iteration
 * to the next the offset then moves by different amounts. */
static bool d8_bends(ta_rule_ctx *c, ta_span s, int l)
{
	static const char *const bending_ops[] = { "//", "%", ">>", "<<", "&", "|", NULL };
	static const char *const bending_calls[] = { "where", "minimum", "maximum", "min", "max", "clamp", NULL };
	TSNode root = ta_rule_node(c, s);
	bool bent = false;
	ta_walk w;
	ta_walk_start(&w, root);
	for (;;) {
		TSNode n = ta_walk_node(&w);
		bool bends = ta_node_is(n, "conditional_expression");
		if (ta_node_is(n, "binary_operator")) {
			TSNode op = ta_node_field(n, "operator");
			for (size_t i = 0; bending_ops[i] && !bends; i++)
				bends = ta_node_text_eq(c->m->src, op, bending_ops[i]);
		} else if (ta_node_is(n, "call")) {
			TSNode fn = ta_node_field(n, "function");
			TSNode last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
			for (size_t i = 0; bending_calls[i] && !bends; i++)
				bends = ta_node_text_eq(c->m->src, last, bending_calls[i]);
		}
		bent = bends && ta_rule_varies_in_loop(c, ta_span_of(c->m->src, n), l);
		if (bent || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return bent;
}

/* Whether the pointer of op moves by a different amount from one
 * iteration of its loop to the next: it bends a value of the loop itself,
 * or reads a name the loop assigns from a bent value. Advancing by one
 * step is then not the same pointer. */
static bool d8_no_fixed_step(ta_rule_ctx *c, const ta_op *op, int l)
{
	return d8_pointer_reaches(c, op, l, d8_bends);
}

/* Whether the expression at n is a number written in the kernel: an
 * integer, a name the kernel binds once to one, or arithmetic, min/max or
 * cdiv of them. A constexpr parameter is not: its value is the launch's
 * (a GEMM's K may be a constexpr of thousands). */
static bool d8_compile_time(ta_rule_ctx *c, TSNode n, int depth)
{
	n = ta_node_unparen(n);
	if (depth > 8 || ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "integer"))
		return true;
	if (ta_node_is(n, "identifier")) {
		char *t = ta_node_text(c->m->src, n);
		bool known = false;
		if (!ta_kernel_param(c->k, t)) {
			TSNode v = ta_rule_sole_value(c->m, c->k->node, t, strlen(t), ts_node_start_byte(n));
			known = !ts_node_is_null(v) && d8_compile_time(c, v, depth + 1);
		}
		free(t);
		return known;
	}
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		static const char *const ops[] = { "+", "-", "*", "//", NULL };
		bool arith = false;
		for (size_t i = 0; ops[i] && !arith; i++)
			arith = ta_node_text_eq(c->m->src, op, ops[i]);
		return arith && d8_compile_time(c, ta_node_field(n, "left"), depth + 1) &&
		       d8_compile_time(c, ta_node_field(n, "right"), depth + 1);
	}
	if (ta_node_is(n, "call")) {
		TSNode fn = ta_node_field(n, "function");
		TSNode last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
		if (!ta_node_text_eq(c->m->src, last, "cdiv") && !ta_node_text_eq(c->m->src, last, "min") &&
		    !ta_node_text_eq(c->m->src, last, "max") && !ta_node_text_eq(c->m->src, last, "minimum") &&
		    !ta_node_text_eq(c->m->src, last, "maximum"))
			return false;
		TSNode args = ta_node_field(n, "arguments");
		uint32_t na = ta_node_named_count(args);
		bool all = na > 0;
		for (uint32_t i = 0; i < na && all; i++)
			all = d8_compile_time(c, ta_node_named_child(args, i), depth + 1);
		return all;
	}
	return false;
}

/* Loop l runs a number of times written in the kernel (`range(0, 4)`, over
 * the sub-blocks of a block): a few passes the compiler can unroll and fold
 * the address arithmetic of, not a walk along a length that grows with the
 * input. */
static bool d8_fixed_trips(ta_rule_ctx *c, int l)
{
	const ta_loop *lp = &c->k->loops[l];
	if (lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE && lp->kind != TA_LOOP_STATIC_RANGE)
		return false;
	TSNode it = ta_node_unparen(ta_rule_node(c, lp->iter));
	if (!ta_node_is(it, "call"))
		return false;
	TSNode args = ta_node_field(it, "arguments");
	uint32_t na = ta_node_named_count(args);
	bool all = na > 0;
	for (uint32_t i = 0; i < na && all; i++) {
		TSNode a = ta_node_named_child(args, i);
		all = !ta_node_is(a, "keyword_argument") && d8_compile_time(c, a, 0);
	}
	return all;
}

/* Whether a broadcast term of the sum at node n (one indexed with None,
 * `offs_k[None, :] * s`) changes in loop l. A tile whose broadcast terms
 * stay and whose change is a scalar term (`+ kw * stride` in a loop over
 * filter taps) is the tile built once plus one step: the compiler hoists
 * the rest, and the loop that moves the tile is another. */
static bool d8_tile_term_varies(ta_rule_ctx *c, TSNode n, int l)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		if (ta_node_text_eq(c->m->src, op, "+") || ta_node_text_eq(c->m->src, op, "-"))
			return d8_tile_term_varies(c, ta_node_field(n, "left"), l) ||
			       d8_tile_term_varies(c, ta_node_field(n, "right"), l);
	}
	ta_span s = ta_span_of(c->m->src, n);
	return ta_rule_contains(c, s, "None") && ta_rule_varies_in_loop(c, s, l);
}

/* The last plain binding of name before offset `before` in the kernel,
 * or NULL. */
static const ta_assign *d8_binding(ta_rule_ctx *c, const char *name, uint32_t before)
{
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n), *last = NULL;
	for (size_t i = 0; i < n && as[i].stmt.start < before; i++)
		if (!strcmp(as[i].name, name))
			last = as[i].augmented ? NULL : &as[i];
	return last;
}

/* Whether the bare term of the sum at node n (an identifier added to the
 * offsets, not scaled) names a value loaded from memory that is not made a
 * pointer (`w = tl.load(w_ptr + offs)` then `w + oc * s + ...`, through
 * plain renames): that sum computes with data, it addresses nothing. A
 * base read from a table of pointers is cast (`.to(tl.pointer_type(..))`). */
static bool d8_data_term(ta_rule_ctx *c, TSNode n, uint32_t before)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		if (!ta_node_text_eq(c->m->src, op, "+") && !ta_node_text_eq(c->m->src, op, "-"))
			return false;
		return d8_data_term(c, ta_node_field(n, "left"), before) ||
		       d8_data_term(c, ta_node_field(n, "right"), before);
	}
	if (!ta_node_is(n, "identifier"))
		return false;
	char *name = ta_node_text(c->m->src, n);
	bool data = false;
	for (int hop = 0; hop < 4; hop++) {
		const ta_assign *b = d8_binding(c, name, before);
		if (!b)
			break;
		TSNode v = ta_node_unparen(ta_rule_node(c, b->rhs));
		if (ta_node_is(v, "identifier")) {
			free(name);
			name = ta_node_text(c->m->src, v);
			before = b->stmt.start;
			continue;
		}
		for (size_t i = 0; i < c->k->op_count && !data; i++) {
			const ta_op *o = &c->k->ops[i];
			data = o->kind == TA_OP_LOAD && o->span.start >= b->rhs.start && o->span.end <= b->rhs.end;
		}
		data = data && !ta_rule_contains(c, b->rhs, "pointer_type");
		break;
	}
	free(name);
	return data;
}

/* How many broadcast index terms (`x[:, None]`, `y[None, :]`) the code at
 * s writes. */
static int d8_broadcasts(ta_rule_ctx *c, ta_span s)
{
	char *t = ta_rule_text(c, s);
	int n = 0;
	for (const char *p = t; (p = strstr(p, "None")); p += 4)
		n++;
	free(t);
	return n;
}

/* The pointer expression op reads: its argument, or, when that is a name
 * bound again inside op's loop (plainly, once, after op), that binding's
 * value, with its line in *line. */
static ta_span d8_rebuilt_in_loop(ta_rule_ctx *c, const ta_op *op, uint32_t *line)
{
	*line = 0;
	TSNode arg = ta_node_unparen(ta_rule_node(c, op->args[0]));
	if (!ta_node_is(arg, "identifier"))
		return op->args[0];
	char *name = ta_node_text(c->m->src, arg);
	size_t n, first;
	const ta_assign *as = ta_rule_assigns(c, &n);
	size_t end = ta_rule_assigns_within(as, n, c->k->loops[op->loop].span, &first);
	const ta_assign *bound = NULL;
	int count = 0;
	for (size_t i = first; i < end; i++)
		if (!strcmp(as[i].name, name)) {
			count++;
			bound = as[i].augmented ? NULL : &as[i];
		}
	free(name);
	if (count != 1 || !bound)
		return op->args[0];
	/* renamed in the loop (`ptrs = x_tile_ptrs`): the renamed value */
	for (int hop = 0; hop < 4; hop++) {
		TSNode v = ta_node_unparen(ta_rule_node(c, bound->rhs));
		if (!ta_node_is(v, "identifier"))
			break;
		char *next = ta_node_text(c->m->src, v);
		const ta_assign *b = NULL;
		for (size_t i = first; i < end; i++)
			if (!strcmp(as[i].name, next) && as[i].stmt.start < bound->stmt.start)
				b = as[i].augmented ? NULL : &as[i];
		free(next);
		if (!b)
			break;
		bound = b;
	}
	/* bound before the access (`x_ptrs = x_ptr + ...; x = tl.load(x_ptrs)`):
	 * that iteration's own pointer, the same value as written inline */
	if (bound->stmt.start < op->span.end)
		return bound->rhs;
	/* bound after the access: the pointer is carried to the next
	 * iteration and rebuilt there, the place an advance would take */
	*line = bound->stmt.line;
	return bound->rhs;
}

ta_status ta_detect_d8(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->loop < 0 || op->ptr_shape != TA_PTR_2D ||
		    !op->arg_count || ta_rule_dots_in_loop(k, op->loop) == 0)
			continue;
		any = true;
		/* a pointer tile named, and bound again inside the loop from
		 * the whole arithmetic (`off_k += 1; k_ptrs = k_ptr + off_k[None,
		 * :] * s + ...`): that binding is the pointer each iteration
		 * after the first reads */
		uint32_t rebuilt_at = 0;
		ta_span ptr = d8_rebuilt_in_loop(c, op, &rebuilt_at);
		if (!ta_rule_contains(c, ptr, "*"))
			continue;
		/* `k_ptrs + start_n * stride` adds one scalar step to a tile of
		 * pointers built before the loop: that is the advanced form. The
		 * rebuilt one broadcasts its offsets inside the loop. */
		if (!ta_rule_contains(c, ptr, "None]") && !ta_rule_contains(c, ptr, "[None"))
			continue;
		/* One broadcast row term added to a tile of column pointers built
		 * before the loop (`q_cols + offs[:, None] * d`, the offsets kept
		 * for the masks) rebuilds one [BLOCK] product, not the pointer
		 * arithmetic: that is near the advanced form already. */
		if (d8_broadcasts(c, ptr) < 2)
			continue;
		if (d8_data_term(c, ta_rule_node(c, ptr), op->span.start))
			continue;
		/* Offsets loaded in the loop (paged KV: `kv_loc = tl.load(...)`,
		 * a block start read from an index table) make a gather: there
		 * is no fixed step to advance by. */
		if (d8_loaded_offsets(c, op, op->loop))
			continue;
		/* The loop that moves the tile: the innermost one, or the one
		 * around it when the inner one moves only a scalar term (a loop
		 * over filter taps) or runs a number of times fixed at compile
		 * time (its passes unrolled into the outer one). */
		int l = op->loop;
		while (l >= 0 && k->loops[l].parent >= 0 &&
		       (d8_fixed_trips(c, l) || !d8_tile_term_varies(c, ta_rule_node(c, ptr), l)))
			l = k->loops[l].parent;
		/* A pointer the loop does not move is not rebuilt in any sense
		 * that costs (the compiler hoists it), and one whose move differs
		 * from iteration to iteration has no one step to advance by. */
		if (!ta_rule_varies_in_loop(c, ptr, l) || d8_no_fixed_step(c, op, l) ||
		    !d8_tile_term_varies(c, ta_rule_node(c, ptr), l) || d8_fixed_trips(c, l) ||
		    (l != op->loop && d8_loaded_offsets(c, op, l)))
			continue;
		/* A store after an inner K loop (the epilogue of each tile of a
		 * persistent or per-group loop) moves by tile, not by a step. */
		if (op->kind == TA_OP_STORE) {
			bool dot_here = false;
			for (size_t d = 0; d < k->op_count && !dot_here; d++)
				dot_here = k->ops[d].kind == TA_OP_DOT && k->ops[d].loop == op->loop;
			if (!dot_here)
				continue;
		}
		char *text = ta_text_one_line(ta_rule_text(c, ptr));
		if (strlen(text) > 60)
			strcpy(text + 57, "...");
		if (rebuilt_at) {
			char *name = ta_rule_text(c, op->args[0]);
			ta_rule_add(c, op->span, "the pointer `%s` is rebuilt as `%s` at line %u, on every iteration "
				    "of the loop at line %u: advance it (or a descriptor offset) by one step instead",
				    name, text, rebuilt_at, k->loops[l].span.line);
			free(name);
		} else {
			ta_rule_add(c, op->span, "the pointer `%s` is rebuilt on every iteration of the loop at line "
				    "%u: advance a pointer (or descriptor offset) by one step instead", text,
				    k->loops[l].span.line);
		}
		free(text);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* A shape whose last two dimensions are 2 and d // 2 (or d / 2): the split
 * into halves D9 names. `(hd // 2, 2)` pairs interleaved elements and
 * `(BLOCK_H // 2, 2, OW)` repeats rows; neither reaches the halves. */
static bool split_reshape(const char *t)
{
	if (!t)
		return false;
	for (const char *p = strstr(t, "2,"); p; p = strstr(p + 1, "2,")) {
		char before = p > t ? p[-1] : '(';
		if (before != '(' && before != '[' && before != ' ' && before != ',')
			continue;
		if (before == ' ' && !(p - t >= 2 && (p[-2] == ',' || p[-2] == '(' || p[-2] == '[')))
			continue;
		const char *d = p + 2;
		size_t n = 0;
		int depth = 0;
		for (; d[n]; n++) {
			if (d[n] == '(' || d[n] == '[')
				depth++;
			else if ((d[n] == ')' || d[n] == ']') && depth-- == 0)
				break;
			else if (d[n] == ',' && depth == 0)
				break;
		}
		if (d[n] != ')' && d[n] != ']')
			continue;
		/* the last dimension: an expression divided by 2 */
		const char *e = d + n;
		while (e > d && e[-1] == ' ')
			e--;
		if (e - d >= 3 && e[-1] == '2' && (!strncmp(e - 4, "// 2", 4) || !strncmp(e - 3, "/ 2", 3)))
			return true;
	}
	return false;
}

typedef struct d9_source {
	bool loaded, reduced;
	int depth;
} d9_source;

/* ta_values_walk's visitor for d9_loaded_tile: loads and reductions in the
 * value. */
static ta_values_step d9_source_visit(const ta_model *m, TSNode n, TSNode via, void *ctx);

static bool d9_source_binding(const ta_model *m, const ta_values_binding *b, TSNode value, void *ctx)
{
	d9_source *s = ctx;
	if (ta_values_binding_plain(b))
		ta_values_walk(m, value, d9_source_visit, s);
	return !s->reduced;
}

static ta_values_step d9_source_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	static const char *const whole[] = { "sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod",
					     "reduce", "dot", "xor_sum", NULL };
	d9_source *s = ctx;
	/* a name bound on each arm of an if, or rebound (`q = tl.load(...)`,
	 * then `q = q + bias` under a flag): every binding before the read */
	if (ta_node_is(n, "identifier") && s->depth < 4 && ts_node_is_null(ta_values_def(m, n, NULL))) {
		s->depth++;
		ta_values_bindings_before(m, (TSNode){ 0 }, n, d9_source_binding, s, NULL);
		s->depth--;
		return s->reduced ? TA_VALUES_STOP : TA_VALUES_DESCEND;
	}
	if (!ta_node_is(n, "call"))
		return TA_VALUES_DESCEND;
	TSNode fn = ta_node_field(n, "function");
	TSNode last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
	char *t = ta_node_text(m->src, last);
	if (t && !strcmp(t, "load"))
		s->loaded = true;
	else if (ta_name_among(t, whole))
		s->reduced = true;
	free(t);
	return s->reduced ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether the reshaped operand is a loaded tile, or one computed from
 * loaded tiles element by element (`x * sign`): its halves can then be
 * loaded at their offsets. A value that reads a reduction (a norm's row
 * statistic, a tl.dot's result) needs the whole row first. */
static bool d9_loaded_tile(ta_rule_ctx *c, const ta_op *op)
{
	TSNode call = ta_rule_node(c, op->span);
	TSNode fn = ta_node_field(call, "function");
	TSNode x = ta_node_is(fn, "attribute") && !ta_node_text_eq(c->m->src, ta_node_field(fn, "object"), "tl")
			   ? ta_node_field(fn, "object")
			   : ta_node_named_child(ta_node_field(call, "arguments"), 0);
	d9_source s = { 0 };
	if (!ts_node_is_null(x))
		ta_values_walk(c->m, x, d9_source_visit, &s);
	return s.loaded && !s.reduced;
}

/* Whether n's value is half of something: `d // 2` or `d / 2`, maybe
 * rounded up to a power of two, in the kernel's names or, for a parameter
 * of k, at every launch (`half_dim = triton.next_power_of_2(head_dim // 2)`
 * passed as HALF). */
static bool d9_half(ta_rule_ctx *c, TSNode n, int depth)
{
	n = ta_node_unparen(ta_values_follow(c->m, n));
	if (ts_node_is_null(n) || depth > 3)
		return false;
	if (ta_call_named(c->m, n, "next_power_of_2"))
		return d9_half(c, ta_node_named_child(ta_node_field(n, "arguments"), 0), depth + 1);
	if (ta_node_is(n, "binary_operator")) {
		long two;
		TSNode op = ta_node_field(n, "operator");
		return (ta_node_text_eq(c->m->src, op, "//") || ta_node_text_eq(c->m->src, op, "/")) &&
		       ta_values_int(c->m, ta_node_field(n, "right"), &two) && two == 2;
	}
	if (!ta_node_is(n, "identifier") || depth > 0)
		return false;
	char *name = ta_node_text(c->m->src, n);
	const ta_param *p = ta_kernel_param(c->k, name);
	free(name);
	if (!p)
		return false;
	size_t launches = 0, halves = 0;
	ta_launch_walk w = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&w));) {
		bool kw;
		launches++;
		halves += d9_half(c, ta_values_launch_arg(c->m, l, c->k, (size_t)(p - c->k->params), &kw), depth + 1);
	}
	return launches && halves == launches;
}

/* A reshape whose last two dimensions are 2 and a value that is half of
 * another (split_reshape reads the same written out). */
static bool d9_value_split(ta_rule_ctx *c, const ta_op *op)
{
	TSNode call = ta_rule_node(c, op->span);
	TSNode args = ta_node_field(call, "arguments");
	uint32_t na = ta_node_named_count(args);
	TSNode fn = ta_node_field(call, "function");
	bool method = ta_node_is(fn, "attribute") && !ta_node_text_eq(c->m->src, ta_node_field(fn, "object"), "tl");
	TSNode dims = args;
	uint32_t first = method ? 0 : 1;
	if (na == first + 1 && (ta_node_is(ta_node_named_child(args, first), "tuple") ||
				ta_node_is(ta_node_named_child(args, first), "list"))) {
		dims = ta_node_named_child(args, first);
		first = 0;
		na = ta_node_named_count(dims);
	}
	if (na < first + 2)
		return false;
	long two;
	TSNode a = ta_node_named_child(dims, na - 2), b = ta_node_named_child(dims, na - 1);
	if (ta_node_is(a, "keyword_argument") || ta_node_is(b, "keyword_argument"))
		return false;
	return ta_values_int(c->m, a, &two) && two == 2 && d9_half(c, b, 0);
}

/* The reshaped operand holds a tl.dot result: an accumulator split into
 * halves for the epilogue (P5's subtile), which has no layout in memory to
 * load the halves from. */
static bool reshapes_accumulator(ta_rule_ctx *c, const ta_op *op)
{
	char *x = op->receiver ? ta_xstrdup(op->receiver) : ta_op_arg(c, op, 0);
	bool acc = false;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; x && i < n && !acc; i++)
		acc = as[i].stmt.end <= op->span.start && !strcmp(as[i].name, x) &&
		      ta_rule_contains(c, as[i].rhs, "dot(");
	free(x);
	return acc;
}

static bool ends_with_split(const ta_rule_ctx *c, TSNode fn)
{
	char *t = ta_node_text(c->m->src, fn);
	size_t n = strlen(t);
	bool yes = n >= 5 && !strcmp(t + n - 5, "split");
	free(t);
	return yes;
}

/* The epilogue-subtile idiom (P5's own edit): in a kernel with a subtile
 * option, a reshape to [M, 2, N // 2] whose result, permuted or not, is split
 * into two register tiles. Nothing is addressed in memory, so it is not D9. */
static bool split_in_registers(ta_rule_ctx *c, const ta_op *op)
{
	bool subtile = false;
	for (size_t i = 0; i < c->k->param_count; i++)
		subtile |= strstr(c->k->params[i].name, "SUBTILE") || strstr(c->k->params[i].name, "subtile");
	if (!subtile)
		return false;
	/* acc.reshape(...).permute(...).split(), tl.split(tl.permute(tl.reshape(...))) */
	for (TSNode p = ta_node_parent(ta_rule_node(c, op->span)); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "call")) {
			if (ends_with_split(c, ta_node_field(p, "function")))
				return true;
		} else if (!ta_node_is(p, "attribute") && !ta_node_is(p, "argument_list")) {
			break;
		}
	}
	/* x = tl.reshape(acc, ...); x = tl.permute(x, ...); a, b = tl.split(x) */
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const char *name = NULL;
	uint32_t after = 0;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].rhs.start <= op->span.start && op->span.end <= as[i].rhs.end) {
			name = as[i].name;
			after = as[i].stmt.end;
		}
	for (int hop = 0; name && hop < 3; hop++) {
		for (size_t i = 0; i < c->k->op_count; i++) {
			const ta_op *s = &c->k->ops[i];
			size_t cl = s->callee ? strlen(s->callee) : 0;
			if (s->span.start >= after && cl >= 5 && !strcmp(s->callee + cl - 5, "split") && s->arg_count &&
			    ta_rule_mentions(c, s->args[0], name))
				return true;
		}
		const char *next = NULL;
		for (size_t i = 0; i < n && !next; i++)
			if (as[i].stmt.start >= after && ta_rule_mentions(c, as[i].rhs, name) &&
			    (ta_rule_contains(c, as[i].rhs, "permute") || ta_rule_contains(c, as[i].rhs, "trans"))) {
				next = as[i].name;
				after = as[i].stmt.end;
			}
		name = next;
	}
	return false;
}

ta_status ta_detect_d9(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_RESHAPE)
			continue;
		char *t = ta_rule_text(c, op->span);
		if ((split_reshape(t) || d9_value_split(c, op)) && !split_in_registers(c, op) && !reshapes_accumulator(c, op) &&
		    d9_loaded_tile(c, op)) {
			ta_rule_add(c, op->span, "a reshape splits a dimension into two halves to reach them in "
				    "registers: loading the two halves at their offsets (0 and half the dimension) "
				    "gives them without reshaping or permuting the tile");
			found = true;
		}
		free(t);
	}
	ta_host_walk walk = ta_index_host_walk(c->m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		for (size_t i = 0; i < h->op_count; i++)
			if (h->ops[i].kind == TA_HOST_RESHAPE && split_reshape(h->ops[i].text)) {
				ta_rule_add(c, h->ops[i].span, "`%s` reshapes a dimension into two halves before "
					    "launching `%s`: a transposed, contiguous layout with an offset is faster",
					    h->name, c->k->name);
				found = true;
			}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}


/* The value walk's visitor for retypes_bytes: a cast to a byte pointee
 * (tl.uint8, tl.int8) in the value. */
static ta_values_step bytes_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *bytes = ctx;
	if (ta_call_named(m, n, "pointer_type")) {
		char *t = ta_node_text(m->src, ta_node_field(n, "arguments"));
		*bytes = t && strstr(t, "int8");
		free(t);
	}
	return *bytes ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether e is known when the kernel compiles: an integer, a tl.constexpr
 * parameter, a local annotated tl.constexpr, or arithmetic of those. */
static bool d10_compile_time(const ta_rule_ctx *c, TSNode e, int depth)
{
	e = ta_node_unparen(e);
	long v;
	if (ts_node_is_null(e) || depth > 6)
		return false;
	if (ta_values_int(c->m, e, &v))
		return true;
	if (ta_node_is(e, "binary_operator"))
		return d10_compile_time(c, ta_node_field(e, "left"), depth + 1) &&
		       d10_compile_time(c, ta_node_field(e, "right"), depth + 1);
	if (!ta_node_is(e, "identifier"))
		return false;
	char *t = ta_node_text(c->m->src, e);
	const ta_param *p = ta_kernel_param(c->k, t);
	free(t);
	if (p)
		return p->constexpr_;
	TSNode binding;
	ta_values_def(c->m, e, &binding);
	TSNode type = ta_node_is(binding, "assignment") ? ta_node_field(binding, "type") : (TSNode){ 0 };
	if (ts_node_is_null(type))
		return false;
	char *tt = ta_node_text(c->m->src, type);
	bool ce = tt && strstr(tt, "constexpr");
	free(tt);
	return ce;
}

/* The pointer that `X.to(tl.pointer_type(T))` re-types is a byte pointer
 * (X's value casts to tl.uint8: symmetric memory's peer buffers, a packed
 * workspace): T is then where the buffer's format puts a field, which no
 * tensor argument carries, not a dtype fixed by mistake. An address read
 * from a table of tensors' pointers and cast straight to a float pointee
 * (a grouped GEMM's operands) still fixes what those tensors may hold. */
static bool retypes_bytes(const ta_rule_ctx *c, const ta_op *op)
{
	TSNode call = ta_rule_node(c, op->span);
	TSNode args = ta_node_parent(call), to = ta_node_parent(args);
	if (!ta_node_is(args, "argument_list") || !ta_node_is(to, "call"))
		return false;
	TSNode fn = ta_node_field(to, "function");
	if (!ta_node_is(fn, "attribute") || !ta_node_text_eq(c->m->src, ta_node_field(fn, "attribute"), "to"))
		return false;
	bool bytes = false;
	ta_values_walk(c->m, ta_node_field(fn, "object"), bytes_visit, &bytes);
	if (bytes)
		return true;
	/* a pointer moved by a compile-time constant to a field of a packed
	 * record before the re-type (`(msg + TOKEN_ELEMS).to(tl.pointer_type(
	 * tl.float32))`: the scale after a message's tokens): the record's
	 * format fixes T there */
	TSNode obj = ta_node_unparen(ta_values_follow(c->m, ta_node_field(fn, "object")));
	if (!ta_node_is(obj, "binary_operator") || !ta_node_text_eq(c->m->src, ta_node_field(obj, "operator"), "+"))
		return false;
	return d10_compile_time(c, ta_node_field(obj, "right"), 0) || d10_compile_time(c, ta_node_field(obj, "left"), 0);
}

/* The value visitor for retypes_tensor: a name that is a parameter of the
 * kernel (ctx: the rule context), an address handed in or a table of them. */
static ta_values_step param_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	const ta_rule_ctx *c = ctx;
	if (!ta_node_is(n, "identifier"))
		return TA_VALUES_DESCEND;
	char *t = ta_node_text(m->src, n);
	bool param = ta_kernel_param(c->k, t) != NULL;
	free(t);
	return param ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* An integer literal, or +, -, * of them (`1024 * 64`). */
static bool d10_literal_arith(const ta_rule_ctx *c, TSNode n)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "integer"))
		return true;
	if (!ta_node_is(n, "binary_operator"))
		return false;
	TSNode op = ta_node_field(n, "operator");
	return (ta_node_text_eq(c->m->src, op, "*") || ta_node_text_eq(c->m->src, op, "+") ||
		ta_node_text_eq(c->m->src, op, "-")) &&
	       d10_literal_arith(c, ta_node_field(n, "left")) && d10_literal_arith(c, ta_node_field(n, "right"));
}

/* Whether the pointer_type call of op re-types an address that comes from
 * the kernel's arguments: `X.to(tl.pointer_type(T))` or `tl.cast(X,
 * tl.pointer_type(T))` with X read from a parameter. A pointer type built
 * for anything else (cast from a literal address, handed to a function
 * Triton does not have) fixes no tensor's dtype. */
static bool retypes_tensor(const ta_rule_ctx *c, const ta_op *op)
{
	TSNode call = ta_rule_node(c, op->span);
	TSNode args = ta_node_parent(call), outer = ta_node_parent(args);
	if (!ta_node_is(args, "argument_list") || !ta_node_is(outer, "call"))
		return false;
	TSNode fn = ta_node_field(outer, "function"), x = { 0 };
	if (ta_node_is(fn, "attribute") && ta_node_text_eq(c->m->src, ta_node_field(fn, "attribute"), "to"))
		x = ta_node_field(fn, "object");
	else if (ta_call_named(c->m, outer, "cast") && ta_node_named_count(args) >= 2 &&
		 !ts_node_eq(ta_node_named_child(args, 0), call))
		x = ta_node_named_child(args, 0);
	if (ts_node_is_null(x))
		return false;
	/* an address a fixed number of bytes into a buffer (`ws + 1024 * 64`
	 * re-typed to float32): scratch carved out of a workspace, whose type
	 * is the kernel's choice, not the tensor's element type */
	TSNode ux = ta_node_unparen(x);
	if (ta_node_is(ux, "binary_operator") &&
	    ta_node_text_eq(c->m->src, ta_node_field(ux, "operator"), "+") &&
	    (d10_literal_arith(c, ta_node_field(ux, "left")) || d10_literal_arith(c, ta_node_field(ux, "right"))))
		return false;
	/* the walk goes through names to their values, and stops on a parameter */
	return !ta_values_walk(c->m, x, param_visit, (void *)c);
}

ta_status ta_detect_d10(ta_rule_ctx *c)
{
	bool any = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (!op->callee || !ta_name_is(op->callee, "triton.language.pointer_type") || !op->arg_count)
			continue;
		any = true;
		char *t = ta_rule_text(c, op->args[0]);
		/* Integer pointees are tables of addresses, offsets or counts
		 * (uint64 pointer tables, int64 split sizes, uint8 scale bytes)
		 * and fp8 ones the format of an fp8 kernel: fixed by design. A
		 * half or single float pointee fixes what the tensor may hold. */
		static const char *const data_types[] = {
			"float16", "bfloat16", "float32", "float64", "fp16", "bf16", "fp32", NULL,
		};
		bool data = false;
		for (size_t d = 0; data_types[d] && !data; d++) {
			const char *at = strstr(t, data_types[d]);
			data = at && (at == t || !ta_text_ident_char(at[-1])) && !ta_text_ident_char(at[strlen(data_types[d])]);
		}
		if (!strstr(t, "dtype") && data && !retypes_bytes(c, op) && retypes_tensor(c, op)) {
			ta_rule_add(c, op->span, "pointer type fixed to %s in `%s`: take the element type from the "
				    "tensor (x.dtype.element_ty) so other dtypes stay correct", t, c->k->name);
			found = true;
		}
		free(t);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

