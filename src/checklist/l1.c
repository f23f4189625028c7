/* L1: One kernel serving two layouts. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The condition of an if/elif/conditional expression node, or null. */
static TSNode condition_of(TSNode n)
{
	if (ta_node_is(n, "if_statement") || ta_node_is(n, "elif_clause") || ta_node_is(n, "while_statement"))
		return ta_node_field(n, "condition");
	if (ta_node_is(n, "conditional_expression") && ta_node_named_count(n) >= 2)
		return ta_node_named_child(n, 1);
	TSNode none = { 0 };
	return none;
}

/* True when the op sits under a test of `flag`. */
static bool guarded_by(const ta_rule_ctx *c, const ta_op *op, const char *flag)
{
	TSNode n = ta_rule_node(c, op->span);
	while (!ts_node_is_null(n) && !ta_node_is(n, "function_definition")) {
		TSNode cond = condition_of(n);
		if (!ts_node_is_null(cond) && ta_node_contains_identifier(c->m->src, cond, flag))
			return true;
		/* else/elif branches: their if_statement holds the condition. */
		if (ta_node_is(n, "else_clause") || ta_node_is(n, "elif_clause")) {
			TSNode parent = ta_node_parent(n);
			TSNode pc = condition_of(parent);
			if (!ts_node_is_null(pc) && ta_node_contains_identifier(c->m->src, pc, flag))
				return true;
		}
		n = ta_node_parent(n);
	}
	return false;
}

ta_status ta_detect_l1(ta_rule_ctx *c)
{
	const ta_param *flag = NULL;
	for (size_t i = 0; i < c->k->param_count && !flag; i++)
		if (ta_is_layout_flag(c->k->params[i].name))
			flag = &c->k->params[i];
	if (!flag)
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->loop < 0 || (op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE && op->kind != TA_OP_RESHAPE))
			continue;
		if (!guarded_by(c, op, flag->name))
			continue;
		ta_finding *f = ta_rule_add(c, op->span,
			"`%s` transposes a tile inside the loop at line %u for one value of `%s`: "
			"two kernels with the branch resolved avoid it%s",
			c->k->name, c->k->loops[op->loop].span.line, flag->name,
			flag->constexpr_ ? "" : " (the flag is not tl.constexpr: guided)");
		ta_finding_line(f, flag->span.line);
		if (!flag->constexpr_)
			f->tags |= TA_TAG_GUIDED;
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

typedef enum site_kind { SITE_IF, SITE_COND, SITE_NAME, SITE_DROP } site_kind;

/* A part of the kernel's text that differs between the two kernels. */
typedef struct site {
	site_kind kind;
	uint32_t start, end;
	TSNode node;              /* the if statement / conditional expression */
	bool negated;             /* tests `not FLAG` */
} site;

typedef struct l1_ctx {
	const ta_model *m;
	const ta_kernel *k;
	const ta_param *flag;
	site *sites;
	size_t count, cap;
	bool value;               /* the flag's value in the kernel being written */
	char *names[2];           /* [0]: flag false, [1]: flag true */
	char *why;
} l1_ctx;

static void add_site(l1_ctx *c, site_kind kind, uint32_t s, uint32_t e, TSNode n, bool negated)
{
	ta_grow((void **)&c->sites, &c->cap, c->count + 1, sizeof *c->sites);
	c->sites[c->count++] = (site){ kind, s, e, n, negated };
}

/* Does cond test the flag alone: FLAG or not FLAG (parenthesised or not)?
 * 1 FLAG, 2 not FLAG, 0 neither. */
static int flag_test(const l1_ctx *c, TSNode cond)
{
	cond = ta_node_unparen(cond);
	if (ta_node_is(cond, "identifier"))
		return ta_node_text_eq(c->m->src, cond, c->flag->name) ? 1 : 0;
	if (ta_node_is(cond, "not_operator"))
		return flag_test(c, ta_node_field(cond, "argument")) == 1 ? 2 : 0;
	return 0;
}

/* The range that removes a list element n with one comma next to it. */
static void drop_range(TSNode n, uint32_t *s, uint32_t *e)
{
	TSNode prev = ts_node_prev_named_sibling(n);
	while (!ts_node_is_null(prev) && ta_node_is(prev, "comment"))
		prev = ts_node_prev_named_sibling(prev);
	TSNode next = ts_node_next_named_sibling(n);
	while (!ts_node_is_null(next) && ta_node_is(next, "comment"))
		next = ts_node_next_named_sibling(next);
	*s = ts_node_start_byte(n);
	*e = ts_node_end_byte(n);
	if (!ts_node_is_null(prev))
		*s = ts_node_end_byte(prev);
	else if (!ts_node_is_null(next))
		*e = ts_node_start_byte(next);
}

/* Collects the if statements and conditional expressions on the flag. */
static void find_tests(l1_ctx *c, TSNode n)
{
	if (ta_node_is(n, "if_statement") && flag_test(c, ta_node_field(n, "condition"))) {
		add_site(c, SITE_IF, ts_node_start_byte(n), ts_node_end_byte(n), n,
			 flag_test(c, ta_node_field(n, "condition")) == 2);
	} else if (ta_node_is(n, "conditional_expression") && ta_node_named_count(n) == 3 &&
		   flag_test(c, ta_node_named_child(n, 1))) {
		add_site(c, SITE_COND, ts_node_start_byte(n), ts_node_end_byte(n), n,
			 flag_test(c, ta_node_named_child(n, 1)) == 2);
	}
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++)
		find_tests(c, ta_node_named_child(n, i));
}

static bool inside_site(const l1_ctx *c, TSNode n)
{
	for (size_t i = 0; i < c->count; i++) {
		const site *s = &c->sites[i];
		if (s->kind == SITE_NAME)
			continue;
		TSNode cond = s->kind == SITE_IF ? ta_node_field(s->node, "condition") :
			      s->kind == SITE_COND ? ta_node_named_child(s->node, 1) : (TSNode){ 0 };
		uint32_t a = ts_node_is_null(cond) ? s->start : ts_node_start_byte(cond);
		uint32_t b = ts_node_is_null(cond) ? s->end : ts_node_end_byte(cond);
		if (ts_node_start_byte(n) >= a && ts_node_end_byte(n) <= b)
			return true;
	}
	return false;
}

/* Every read of the flag must go away with the split. */
static TSNode stray_flag(const l1_ctx *c, TSNode n)
{
	if (ta_node_is(n, "identifier") && ta_node_text_eq(c->m->src, n, c->flag->name) && !inside_site(c, n))
		return n;
	if (ta_node_is(n, "attribute"))
		return stray_flag(c, ta_node_field(n, "object"));
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode s = stray_flag(c, ta_node_named_child(n, i));
		if (!ts_node_is_null(s))
			return s;
	}
	return (TSNode){ 0 };
}

/* ---- writing one kernel --------------------------------------------------- */

static void render(l1_ctx *c, uint32_t s, uint32_t e, ta_buf *b);

static void raw(const l1_ctx *c, uint32_t s, uint32_t e, ta_buf *b)
{
	if (e > s)
		ta_buf_append(b, c->m->src->text + s, e - s);
}

/* text with `extra` taken off the start of every line (less when a
 * continuation line is indented less). */
static void dedent(const char *text, const char *extra, ta_buf *b)
{
	size_t n = strlen(extra);
	bool bol = true;
	for (const char *p = text; *p; p++) {
		if (bol) {
			size_t i = 0;
			while (i < n && (p[i] == ' ' || p[i] == '\t'))
				i++;
			p += i;
			if (!*p)
				break;
		}
		ta_buf_putc(b, *p);
		bol = *p == '\n';
	}
}

/* The lines of a branch body: from the line after its colon to the line
 * after its last statement. */
static void body_lines(const l1_ctx *c, TSNode colon, TSNode body, uint32_t *s, uint32_t *e)
{
	*s = ta_edits_line_next(c->m, ts_node_end_byte(colon));
	*e = ta_edits_line_next(c->m, ts_node_end_byte(body));
}

static TSNode colon_before(TSNode n, TSNode body)
{
	TSNode colon = { 0 };
	uint32_t k = ta_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (ts_node_start_byte(ch) >= ts_node_start_byte(body))
			break;
		if (!ts_node_is_named(ch) && !strcmp(ts_node_type(ch), ":"))
			colon = ch;
	}
	return colon;
}

static void emit_if(l1_ctx *c, const site *x, ta_buf *b)
{
	const ta_model *m = c->m;
	bool take_then = c->value != x->negated;
	TSNode body = { 0 }, owner = x->node;
	if (take_then) {
		body = ta_node_field(x->node, "consequence");
	} else {
		TSNode alt = ta_node_field(x->node, "alternative");
		if (!ts_node_is_null(alt)) {
			owner = alt;
			body = ta_node_field(alt, "body");
		}
	}
	char *ind = ta_edits_indent_at(m, x->start);
	if (ts_node_is_null(body)) {
		/* No branch for this value: the statement goes, unless its block
		 * would be left empty. */
		TSNode blk = ta_node_parent(x->node);
		uint32_t stmts = 0, k = ta_node_named_count(blk);
		for (uint32_t i = 0; i < k; i++)
			stmts += !ta_node_is(ta_node_named_child(blk, i), "comment");
		if (stmts == 1)
			ta_buf_printf(b, "%spass\n", ind);
		free(ind);
		return;
	}
	uint32_t s, e;
	body_lines(c, colon_before(owner, body), body, &s, &e);
	char *bind = ta_edits_indent_at(m, ts_node_start_byte(body));
	ta_buf inner = TA_BUF_INIT;
	render(c, s, e, &inner);
	/* What the branch body adds to the if's indentation (nothing when a
	 * bent parse puts the body less deep than the if). */
	size_t bl = strlen(bind), il = strlen(ind);
	dedent(ta_buf_str(&inner), bl > il ? bind + il : "", b);
	ta_buf_free(&inner);
	free(bind);
	free(ind);
}

static bool primary(TSNode n)
{
	static const char *const kinds[] = { "identifier", "attribute", "subscript", "call",
					     "parenthesized_expression", "integer", "float", "true",
					     "false", "none", "string", "list", "tuple", NULL };
	for (size_t i = 0; kinds[i]; i++)
		if (ta_node_is(n, kinds[i]))
			return true;
	return false;
}

static void emit_cond(l1_ctx *c, const site *x, ta_buf *b)
{
	TSNode chosen = ta_node_named_child(x->node, c->value != x->negated ? 0 : 2);
	TSNode parent = ta_node_parent(x->node);
	bool bare = primary(chosen) || ta_node_is(parent, "assignment") || ta_node_is(parent, "argument_list") ||
		    ta_node_is(parent, "parenthesized_expression") || ta_node_is(parent, "keyword_argument") ||
		    ta_node_is(parent, "return_statement");
	if (!bare)
		ta_buf_putc(b, '(');
	render(c, ts_node_start_byte(chosen), ts_node_end_byte(chosen), b);
	if (!bare)
		ta_buf_putc(b, ')');
}

/* The first site at or after pos that ends by e (the outermost one). */
static const site *next_site(const l1_ctx *c, uint32_t pos, uint32_t e)
{
	const site *best = NULL;
	for (size_t i = 0; i < c->count; i++) {
		const site *s = &c->sites[i];
		if (s->start < pos || s->end > e)
			continue;
		if (!best || s->start < best->start || (s->start == best->start && s->end > best->end))
			best = s;
	}
	return best;
}

static void render(l1_ctx *c, uint32_t s, uint32_t e, ta_buf *b)
{
	uint32_t pos = s;
	for (const site *x; (x = next_site(c, pos, e));) {
		raw(c, pos, x->start, b);
		switch (x->kind) {
		case SITE_IF:
			emit_if(c, x, b);
			break;
		case SITE_COND:
			emit_cond(c, x, b);
			break;
		case SITE_NAME:
			ta_buf_puts(b, c->names[c->value]);
			break;
		case SITE_DROP:
			break;
		}
		pos = x->end;
	}
	raw(c, pos, e, b);
}

/* ---- checks ---------------------------------------------------------------- */

static bool layout_name(const char *name)
{
	static const char *const flags[] = {
		"transpose", "transpose_a", "transpose_b", "transpose_v", "transpose_k", "transpose_q",
		"trans_a", "trans_b", "trans_v", "a_trans", "b_trans", "is_transposed", "layout",
		"mla_layout", "layout_mode", "kv_layout", NULL,
	};
	for (size_t i = 0; flags[i]; i++)
		if (!strcasecmp(name, flags[i]))
			return true;
	/* IS_COL_MAJOR, B_ROW_MAJOR, TRANS_OUT... */
	char *up = ta_xstrdup(name);
	for (char *p = up; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	bool yes = strstr(up, "TRANS") || strstr(up, "MAJOR") || strstr(up, "LAYOUT");
	free(up);
	return yes;
}

/* The if statements must be whole lines without elif; the flag read
 * nowhere else. Returns 0 or -1 with c->why. */
static int check_sites(l1_ctx *c)
{
	const ta_model *m = c->m;
	for (size_t i = 0; i < c->count; i++) {
		site *x = &c->sites[i];
		if (x->kind != SITE_IF)
			continue;
		uint32_t line = (uint32_t)ta_node_line(x->node);
		uint32_t end, s = ta_edits_stmt_lines(m, x->node, &end);
		TSNode alt = ta_node_field(x->node, "alternative");
		if (s == UINT32_MAX) {
			c->why = ta_xasprintf("line %u: the `if %s` shares its lines with other code", line, c->flag->name);
			return -1;
		}
		if (!ts_node_is_null(alt) && !ta_node_is(alt, "else_clause")) {
			c->why = ta_xasprintf("line %u: `if %s` has an elif: split it by hand", line, c->flag->name);
			return -1;
		}
		TSNode then = ta_node_field(x->node, "consequence");
		TSNode colon = colon_before(x->node, then);
		if (ts_node_is_null(colon) || ts_node_start_byte(then) < ta_edits_line_next(m, ts_node_end_byte(colon))) {
			c->why = ta_xasprintf("line %u: the branch of `if %s` is on the line of the test", line,
					      c->flag->name);
			return -1;
		}
		if (!ts_node_is_null(alt)) {
			TSNode eb = ta_node_field(alt, "body");
			TSNode ec = colon_before(alt, eb);
			if (ts_node_is_null(ec) || ts_node_start_byte(eb) < ta_edits_line_next(m, ts_node_end_byte(ec))) {
				c->why = ta_xasprintf("line %u: the else branch is on the line of the else", line);
				return -1;
			}
		}
		x->start = s;
		x->end = end;
	}
	TSNode stray = stray_flag(c, c->k->node);
	if (!ts_node_is_null(stray)) {
		c->why = ta_xasprintf("line %zu: %s is read other than by `if %s:` or `x if %s else y`",
				      ta_node_line(stray), c->flag->name, c->flag->name, c->flag->name);
		return -1;
	}
	return 0;
}

/* The decorators may name the flag only in the autotune key (dropped). */
static int check_decorators(l1_ctx *c)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	uint32_t ks = 0, ke = 0;
	if (k->autotune && k->autotune->key_span.end > k->autotune->key_span.start) {
		TSNode list = ta_edits_node(m, k->autotune->key_span);
		uint32_t n = ta_node_named_count(list);
		for (uint32_t i = 0; i < n; i++) {
			TSNode el = ta_node_named_child(list, i);
			char *t = ta_node_text(m->src, el);
			size_t tl = strlen(t), fl = strlen(c->flag->name);
			if (tl == fl + 2 && (t[0] == '"' || t[0] == '\'') && !strncmp(t + 1, c->flag->name, fl)) {
				drop_range(el, &ks, &ke);
				add_site(c, SITE_DROP, ks, ke, el, false);
			}
			free(t);
		}
	}
	const char *t = m->src->text;
	size_t fl = strlen(c->flag->name);
	for (uint32_t i = k->span.start; i + fl <= k->def_span.start; i++) {
		if (i >= ks && i < ke)
			continue;
		if (strncmp(t + i, c->flag->name, fl) || (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')) ||
		    isalnum((unsigned char)t[i + fl]) || t[i + fl] == '_')
			continue;
		c->why = ta_xasprintf("the decorators of %s read %s beyond the autotune key", k->name, c->flag->name);
		return -1;
	}
	return 0;
}

/* The flag read by name as a string (`nargs["TRANS"]`, `args.get('TRANS')`)
 * anywhere in the file but the autotune key the split drops: a config's
 * pre_hook, a prune_configs_by function or a heuristic reads the kernel's
 * arguments by name, wherever it is defined, and would find the flag gone
 * (KeyError) once the split removes the parameter. */
static int check_named_reads(l1_ctx *c)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	size_t fl = strlen(c->flag->name);
	TSNode root = ta_syntax_root(m->syn);
	ta_span key = k->autotune ? k->autotune->key_span : (ta_span){ 0 };
	for (size_t at = ta_edits_next_word(m, 0, c->flag->name); at != SIZE_MAX;
	     at = ta_edits_next_word(m, at + 1, c->flag->name)) {
		char q = at > 0 ? m->src->text[at - 1] : 0;
		if ((q != '"' && q != '\'') || at + fl >= m->src->len || m->src->text[at + fl] != q)
			continue;
		if (at >= key.start && at < key.end)
			continue;
		TSNode str = ta_node_named_at(root, (uint32_t)at - 1, (uint32_t)(at + fl + 1));
		if (!ta_node_is(str, "string") || ts_node_end_byte(str) - ts_node_start_byte(str) != fl + 2)
			continue;
		/* what reads it: the subscript, call or comparison around the string */
		TSNode use = ta_node_parent(str);
		if (ta_node_is(use, "argument_list"))
			use = ta_node_parent(use);
		if (ts_node_is_null(use) || ta_node_is(use, "module") || ta_node_is(use, "block") ||
		    ta_node_is(use, "expression_statement"))
			use = str;
		char *t = ta_node_text(m->src, use);
		size_t tl = 0;
		for (size_t i = 0; t[i]; i++)  /* one line */
			if (!isspace((unsigned char)t[i]) || (tl && t[tl - 1] != ' '))
				t[tl++] = isspace((unsigned char)t[i]) ? ' ' : t[i];
		t[tl] = '\0';
		c->why = ta_xasprintf("line %zu: `%.*s%s` reads the argument %s by name, as a tuner's pre_hook, prune or "
				      "heuristic does, and the split removes that parameter: split %s by hand",
				      ta_node_line(str), tl > 60 ? 57 : (int)tl, t, tl > 60 ? "..." : "", c->flag->name,
				      k->name);
		free(t);
		return -1;
	}
	return 0;
}

/* Any mention of the kernel's name outside its definition and launches. */
static TSNode other_use(const l1_ctx *c, TSNode n, const TSNode *callees, size_t nc)
{
	if (ts_node_start_byte(n) >= c->k->span.start && ts_node_end_byte(n) <= c->k->span.end)
		return (TSNode){ 0 };
	if (ta_node_is(n, "identifier") && ta_node_text_eq(c->m->src, n, c->k->name)) {
		for (size_t i = 0; i < nc; i++)
			if (ts_node_eq(n, callees[i]))
				return (TSNode){ 0 };
		return n;
	}
	if (ta_node_is(n, "attribute"))
		return other_use(c, ta_node_field(n, "object"), callees, nc);
	if (ta_node_is(n, "keyword_argument"))
		return other_use(c, ta_node_field(n, "value"), callees, nc);
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode u = other_use(c, ta_node_named_child(n, i), callees, nc);
		if (!ts_node_is_null(u))
			return u;
	}
	return (TSNode){ 0 };
}

/* ---- the launches ------------------------------------------------------- */

/* Drops the flag from launch l and makes it call the kernel for its value. */
static int l1_launch(l1_ctx *c, const ta_launch *l, size_t pidx, ta_edit *out)
{
	const ta_model *m = c->m;
	TSNode call = ta_edits_node(m, l->span);
	TSNode callee = ta_node_field(ta_node_field(call, "function"), "value");
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, c->flag->name);
	for (size_t j = 0; j < l->arg_count && j <= pidx; j++)
		if (m->src->text[l->args[j].start] == '*') {
			c->why = ta_xasprintf("line %u: the launch passes *args: where %s goes is unknown", l->span.line,
					      c->flag->name);
			return -1;
		}
	TSNode arg = { 0 }, value = { 0 };
	if (kw) {
		value = ta_edits_node(m, kw->value_span);
		arg = ta_node_parent(value);
	} else if (pidx < l->arg_count) {
		arg = value = ta_edits_node(m, l->args[pidx]);
	}
	char *vt;
	if (!ts_node_is_null(value))
		vt = ta_node_text(m->src, value);
	else if (c->flag->default_value)
		vt = ta_xstrdup(c->flag->default_value);
	else {
		c->why = ta_xasprintf("line %u: the launch does not pass %s", l->span.line, c->flag->name);
		return -1;
	}
	TSNode stmt = ta_edits_statement(call);
	uint32_t end, ls = ts_node_is_null(stmt) ? UINT32_MAX : ta_edits_stmt_lines(m, stmt, &end);
	bool paren = !ts_node_is_null(value) && (ta_node_is(value, "conditional_expression") || ta_node_is(value, "lambda"));
	char *pick = ta_xasprintf(paren ? "%s if (%s) else %s" : "%s if %s else %s", c->names[1], vt, c->names[0]);
	if (!strcmp(vt, "True") || !strcmp(vt, "1") || !strcmp(vt, "False") || !strcmp(vt, "0")) {
		/* A literal: call that kernel directly. */
		bool on = vt[0] == 'T' || vt[0] == '1';
		ta_edit_replace(out, ts_node_start_byte(callee), ts_node_end_byte(callee), c->names[on]);
	} else if (ls != UINT32_MAX) {
		/* The kernel's old name picks one just before the launch, so the
		 * launch and its continuation lines stay as they are. */
		char *ind = ta_edits_indent_at(m, ls);
		char *sel = ta_xasprintf("%s%s = %s\n", ind, c->k->name, pick);
		ta_edit_replace(out, ls, ls, sel);
		free(sel);
		free(ind);
	} else {
		char *inl = ta_xasprintf("(%s)", pick);
		ta_edit_replace(out, ts_node_start_byte(callee), ts_node_end_byte(callee), inl);
		free(inl);
	}
	if (!ts_node_is_null(arg))
		ta_edits_drop_arg(m, out, arg);
	free(pick);
	free(vt);
	return 0;
}

/* ---- the generator -------------------------------------------------------- */

static bool defined_name(const ta_model *m, const char *name)
{
	return ta_index_function(m, name) || ta_index_identifier(m, name);
}

/* Parameters continued on later lines, aligned under the opening
 * parenthesis, move with the longer name. */
static void realign(const l1_ctx *c, const char *text, const char *name, ta_buf *b)
{
	const ta_model *m = c->m;
	TSNode params = ta_node_field(c->k->node, "parameters");
	uint32_t open = ts_node_start_byte(params);
	size_t old_col = open + 1 - ta_edits_line_start(m, open);
	size_t new_col = old_col + strlen(name) - strlen(c->k->name);
	char *head = ta_xasprintf("def %s(", name);
	const char *d = strstr(text, head);
	free(head);
	if (!d) {
		ta_buf_puts(b, text);
		return;
	}
	int depth = 0;
	const char *p = text;
	ta_buf_append(b, p, (size_t)(d - p));
	for (p = d; *p; p++) {
		ta_buf_putc(b, *p);
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (*p != '\n' || depth <= 0)
			continue;
		size_t sp = 0;
		while (p[1 + sp] == ' ')
			sp++;
		if (sp == old_col && p[1 + sp] != '\t') {
			for (size_t i = 0; i < new_col; i++)
				ta_buf_putc(b, ' ');
			p += sp;
		}
		if (depth <= 0)
			break;
	}
	if (*p)
		ta_buf_puts(b, p + 1);
}

static int l1_kernel(l1_ctx *c, ta_edit *out)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	size_t ki = (size_t)(k - m->kernels), pidx = 0;
	if (k->wrapped || k->alias_count)
		return (c->why = ta_xasprintf("%s is wrapped or aliased: split it by hand", k->name)), -1;
	if (k->is_helper || k->launch_count == 0)
		return (c->why = ta_xasprintf("%s is not launched in this file: nowhere to dispatch", k->name)), -1;
	if (ta_edits_line_start(m, k->span.start) != k->span.start)
		return (c->why = ta_xasprintf("%s is not defined at module level", k->name)), -1;
	if (!c->flag->constexpr_)
		return (c->why = ta_xasprintf("%s is not a tl.constexpr: the branch is taken at run time", c->flag->name)), -1;
	for (size_t v = 0; v < 2; v++)
		if (defined_name(m, c->names[v]))
			return (c->why = ta_xasprintf("the file already uses the name %s", c->names[v])), -1;
	/* The kernel's name and the flag parameter with its comma. */
	TSNode nm = ta_node_field(k->node, "name");
	add_site(c, SITE_NAME, ts_node_start_byte(nm), ts_node_end_byte(nm), nm, false);
	TSNode params = ta_node_field(k->node, "parameters");
	uint32_t np = ta_node_named_count(params);
	TSNode pn = { 0 };
	for (uint32_t i = 0, seen = 0; i < np; i++) {
		TSNode p = ta_node_named_child(params, i);
		if (ta_node_is(p, "comment"))
			continue;
		if (ts_node_start_byte(p) == c->flag->span.start) {
			pn = p;
			pidx = seen;
		}
		if (!ta_node_is(p, "identifier") && !ta_node_is(p, "typed_parameter") &&
		    !ta_node_is(p, "default_parameter") && !ta_node_is(p, "typed_default_parameter"))
			return (c->why = ta_xasprintf("%s: the parameter list has *args, **kwargs or a separator", k->name)), -1;
		seen++;
	}
	if (ts_node_is_null(pn))
		return (c->why = ta_xasprintf("%s: cannot find the parameter %s", k->name, c->flag->name)), -1;
	uint32_t ds, de;
	drop_range(pn, &ds, &de);
	add_site(c, SITE_DROP, ds, de, pn, false);
	if (check_decorators(c) != 0 || check_named_reads(c) != 0 || check_sites(c) != 0)
		return -1;
	/* The launches, and nothing else that names the kernel. */
	TSNode callees[32];
	size_t nc = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		TSNode callee = ta_node_field(ta_node_field(ta_edits_node(m, l->span), "function"), "value");
		if (!ta_node_is(callee, "identifier") || !ta_node_text_eq(m->src, callee, k->name) || nc == 32)
			return (c->why = ta_xasprintf("line %u: %s is launched through another name", l->span.line, k->name)), -1;
		callees[nc++] = callee;
	}
	/* The tree is walked only when the name occurs as a word outside the
	 * kernel other than at its launches: that walk of the whole file, once
	 * per kernel, was most of the advisor's first frame on large files. */
	bool elsewhere = false;
	for (size_t at = ta_edits_next_word(m, 0, k->name); at != SIZE_MAX && !elsewhere;
	     at = ta_edits_next_word(m, at + 1, k->name)) {
		if (at >= k->span.start && at < k->span.end)
			continue;
		elsewhere = true;
		for (size_t i = 0; i < nc && elsewhere; i++)
			elsewhere = !ta_node_is(callees[i], "identifier") || ts_node_start_byte(callees[i]) != at;
	}
	TSNode use = elsewhere ? other_use(c, ta_syntax_root(m->syn), callees, nc) : (TSNode){ 0 };
	if (!ts_node_is_null(use))
		return (c->why = ta_xasprintf("line %zu: %s is used other than by its launches", ta_node_line(use), k->name)), -1;
	walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (l1_launch(c, l, pidx, out) != 0)
			return -1;
	/* The two kernels in place of the one: flag true first. */
	ta_buf b = TA_BUF_INIT;
	for (int v = 1; v >= 0; v--) {
		ta_buf one = TA_BUF_INIT;
		c->value = v;
		render(c, k->span.start, k->span.end, &one);
		realign(c, ta_buf_str(&one), c->names[v], &b);
		ta_buf_puts(&b, v ? "\n\n\n" : "");
		ta_buf_free(&one);
	}
	ta_edit_replace(out, k->span.start, k->span.end, ta_buf_str(&b));
	ta_buf_free(&b);
	return 0;
}

/* The kernel's layout flag: a constexpr parameter named like one that an
 * `if` (or a conditional expression) tests by itself. */
static const ta_param *layout_flag(l1_ctx *c)
{
	for (size_t i = 0; i < c->k->param_count; i++) {
		const ta_param *p = &c->k->params[i];
		if (!layout_name(p->name))
			continue;
		c->flag = p;
		c->count = 0;
		find_tests(c, ta_node_field(c->k->node, "body"));
		if (c->count)
			return p;
	}
	c->flag = NULL;
	return NULL;
}

/* Where the edit points: a transpose under the flag inside a loop, else the
 * first test. */
static uint32_t l1_line(const l1_ctx *c)
{
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->loop < 0 || (op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE && op->kind != TA_OP_RESHAPE))
			continue;
		for (size_t s = 0; s < c->count; s++)
			if ((c->sites[s].kind == SITE_IF || c->sites[s].kind == SITE_COND) &&
			    op->span.start >= c->sites[s].start && op->span.end <= c->sites[s].end)
				return op->span.line;
	}
	for (size_t s = 0; s < c->count; s++)
		if (c->sites[s].kind == SITE_IF || c->sites[s].kind == SITE_COND)
			return (uint32_t)ta_node_line(c->sites[s].node);
	return c->k->def_line;
}

/* Rewrite: two kernels with the layout flag's branches resolved; the launch picks one. */
TA_REWRITE(L1, NULL, TA_SAFE)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (line && !ta_edits_at_line(k->span, line))
			continue;
		l1_ctx c = { .m = m, .k = k };
		if (!layout_flag(&c)) {
			free(c.sites);
			continue;
		}
		char *lower = ta_xstrdup(c.flag->name);
		for (char *p = lower; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		c.names[1] = ta_xasprintf("%s_%s", k->name, lower);
		c.names[0] = ta_xasprintf("%s_not_%s", k->name, lower);
		free(lower);
		int rc = l1_kernel(&c, out);
		if (rc == 0) {
			ta_edit_set_title(out, "split %s on %s into %s and %s; each launch picks one", k->name,
					  c.flag->name, c.names[1], c.names[0]);
			out->line = l1_line(&c);
		} else {
			ta_edit_clear(out);
			ta_sites_refuse(&s, c.why ? c.why : ta_xasprintf("%s: cannot split", k->name));
		}
		free(c.names[0]);
		free(c.names[1]);
		free(c.sites);
		if (rc == 0) {
			return ta_sites_done(&s);
		}
	}
	return ta_sites_end(&s, why_not, line, "no kernel with a tl.constexpr layout flag tested by `if`");
}
