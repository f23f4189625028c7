/* S6: Precise tanh in the inner loop. Its detector and its rewrite. */
#include "config.h"
#include "analyze/names.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_s6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool fast = false, found = false;
	/* tanh.approx.f32 is PTX: a file under an Ascend, ROCm or other
	 * back-end's folder has no such instruction to use. */
	if (ta_file_other_backend(c->m, NULL) == TA_BACKEND_FOLDER)
		return TA_STATUS_NOT_APPLICABLE;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_INLINE_ASM)
			fast = true;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_TANH || op->loop < 0)
			continue;
		if (fast)
			return TA_STATUS_SATISFIED;
		ta_rule_add(c, op->span, "%s inside the loop at line %u: a fast tanh approximation "
			    "(tanh.approx.f32 behind a flag) is cheaper", op->callee ? op->callee : "tanh",
			    k->loops[op->loop].span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : fast ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- where the tanh's argument comes from ------------------------------- */

/* tanh.approx.f32 is as precise as 16-bit data, not as float32 data: the
 * flag may turn it on only where every value reaching the tanh was loaded
 * from a float16 or bfloat16 tensor. This follows the argument back through
 * names, arithmetic, casts and Triton calls to the tl.load (or descriptor
 * load) it comes from, and the load's pointer to a parameter of the kernel;
 * the launch then tests those tensors' dtypes. */
typedef enum s6_mode { S6_VALUE, S6_POINTER, S6_DESC } s6_mode;

typedef struct s6_src {
	const ta_model *m;
	const ta_kernel *k;
	size_t params[16];        /* the tensor parameters loaded from */
	size_t np;
	uint32_t seen[128];       /* definitions already followed (their start) */
	size_t nseen;
	bool loaded;
	bool widened;             /* a cast to float32 on the way */
	char *why;                /* the first thing that could not be followed */
} s6_src;

static void s6_follow(s6_src *s, s6_mode mode, TSNode e);

static void s6_fail(s6_src *s, TSNode at, const char *what)
{
	if (s->why)
		return;
	char *t = ta_node_text(s->m->src, at);
	size_t n = strcspn(t, "\n"), cut = n > 60 ? 60 : n;
	while (cut > 0 && cut < n && ((unsigned char)t[cut] & 0xC0) == 0x80)
		cut--;  /* not inside a UTF-8 sequence */
	s->why = ta_xasprintf("line %zu: `%.*s`%s %s", ta_node_line(at), (int)cut, t, cut < n ? "..." : "", what);
	free(t);
}

static size_t s6_param_index(const ta_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->param_count; i++)
		if (!strcmp(k->params[i].name, name))
			return i;
	return k->param_count;
}

/* The name has reached the kernel's entry without another definition. */
static void s6_entry(s6_src *s, s6_mode mode, TSNode use, const char *name)
{
	size_t i = s6_param_index(s->k, name);
	if (i == s->k->param_count) {
		/* Triton reads module-level names as constants. */
		if (mode == S6_VALUE && ta_index_module_assign(s->m, name) != UINT32_MAX)
			return;
		s6_fail(s, use, "is not assigned before it is read in the kernel");
		return;
	}
	if (mode == S6_VALUE)   /* a scalar or constexpr parameter scales the data */
		return;
	if (mode == S6_DESC || s->k->params[i].constexpr_) {
		s6_fail(s, use, mode == S6_DESC ? "is a descriptor made by the caller: the tensor under it is not "
				"an argument of the launch" : "is a tl.constexpr parameter, not a tensor");
		return;
	}
	for (size_t j = 0; j < s->np; j++)
		if (s->params[j] == i)
			return;
	if (s->np == sizeof s->params / sizeof *s->params)
		s6_fail(s, use, "is loaded from too many tensors to test");
	else
		s->params[s->np++] = i;
}

/* One definition of name (a statement binding it): follows what it
 * assigns. Returns true when it binds name on every path through it. */
static bool s6_def(s6_src *s, s6_mode mode, TSNode def, const char *name)
{
	if (ta_node_is(def, "expression_statement") && ta_node_named_count(def) == 1)
		def = ta_node_named_child(def, 0);
	if (ta_node_is(def, "for_statement")) {
		/* a loop variable: a Python or Triton integer counter */
		if (mode != S6_VALUE)
			s6_fail(s, ta_node_field(def, "left"), "is a loop variable");
		return false;
	}
	bool aug = ta_node_is(def, "augmented_assignment");
	if (!aug && !ta_node_is(def, "assignment")) {
		s6_fail(s, def, "binds the name in a way this check does not follow");
		return true;
	}
	TSNode left = ta_node_field(def, "left"), right = ta_node_field(def, "right");
	if (!ta_node_is(left, "identifier") || !ta_node_text_eq(s->m->src, left, name) || ts_node_is_null(right)) {
		s6_fail(s, def, "unpacks or annotates the name, which this check does not follow");
		return true;
	}
	uint32_t at = ts_node_start_byte(def);
	for (size_t i = 0; i < s->nseen; i++)
		if (s->seen[i] == at)
			return !aug;
	if (s->nseen == sizeof s->seen / sizeof *s->seen) {
		s6_fail(s, def, "is one definition too many to follow");
		return true;
	}
	s->seen[s->nseen++] = at;
	/* `p += off` keeps a pointer's base and a descriptor is not added to */
	if (!aug || mode == S6_VALUE)
		s6_follow(s, mode, right);
	return !aug;
}

/* The definitions of name that reach use: the statements before it in its
 * block and the blocks around it, back to the last one that binds it on
 * every path; inside a loop, also those later in the loop's body (the next
 * iteration reads them). A branch that binds it may or may not run, so the
 * walk goes on past it. */
static void s6_name(s6_src *s, s6_mode mode, TSNode use, const char *name)
{
	TSNode body = ta_node_field(s->k->node, "body");
	TSNode cur = use;
	while (!ts_node_is_null(cur) && !ta_node_is(ta_node_parent(cur), "block"))
		cur = ta_node_parent(cur);
	while (!ts_node_is_null(cur) && !s->why) {
		for (TSNode p = ts_node_prev_named_sibling(cur); !ts_node_is_null(p); p = ts_node_prev_named_sibling(p)) {
			if (ta_node_is(p, "comment") || ta_node_is(p, "function_definition") ||
			    ta_node_is(p, "decorated_definition"))
				continue;
			bool simple = ta_node_is(p, "expression_statement");
			ta_edits_defs d = { 0 };
			ta_edits_find_defs(s->m, p, name, &d);
			if (d.more) {
				s6_fail(s, p, "is one of too many definitions to follow");
				return;
			}
			bool every = false;
			for (size_t i = 0; i < d.n && !s->why; i++)
				every |= s6_def(s, mode, d.v[i], name) && simple;
			if (every || s->why)
				return;
		}
		TSNode blk = ta_node_parent(cur);
		if (ts_node_eq(blk, body)) {
			s6_entry(s, mode, use, name);
			return;
		}
		TSNode owner = ta_node_parent(blk);
		if (ta_node_is(owner, "for_statement") || ta_node_is(owner, "while_statement")) {
			TSNode left = ta_node_field(owner, "left");
			if (!ts_node_is_null(left) && ta_node_contains_identifier(s->m->src, left, name)) {
				s6_def(s, mode, owner, name);
				return;
			}
			ta_edits_defs d = { 0 };
			ta_edits_find_defs(s->m, blk, name, &d);
			if (d.more) {
				s6_fail(s, owner, "holds too many definitions to follow");
				return;
			}
			for (size_t i = 0; i < d.n && !s->why; i++)
				s6_def(s, mode, d.v[i], name);
			cur = owner;
		} else if (ta_node_is(owner, "elif_clause") || ta_node_is(owner, "else_clause")) {
			cur = ta_node_parent(owner);
		} else if (ta_node_is(owner, "if_statement") || ta_node_is(owner, "with_statement")) {
			cur = owner;
		} else {
			s6_fail(s, use, "is read in a statement this check does not follow");
			return;
		}
	}
	if (ts_node_is_null(cur))
		s6_fail(s, use, "is read outside the statements of the kernel's body");
}

/* A call's positional arguments (keywords such as dtype= or axis= say how,
 * not what); `acc=` of tl.dot carries values. */
static void s6_args(s6_src *s, TSNode call, size_t from)
{
	TSNode args = ta_node_field(call, "arguments");
	size_t pos = 0;
	for (uint32_t i = 0; i < ta_node_named_count(args) && !s->why; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "comment"))
			continue;
		if (ta_node_is(a, "keyword_argument")) {
			if (ta_node_text_eq(s->m->src, ta_node_field(a, "name"), "acc"))
				s6_follow(s, S6_VALUE, ta_node_field(a, "value"));
			continue;
		}
		if (pos++ >= from)
			s6_follow(s, S6_VALUE, a);
	}
}

/* canon is a function of triton.language (or a module under it) whose
 * last name is last. */
static bool s6_tl(const char *canon, const char *last)
{
	if (!canon || strncmp(canon, "triton.language.", 16))
		return false;
	const char *dot = strrchr(canon, '.');
	return !strcmp(dot + 1, last);
}

static bool s6_callee_is(const char *canon, const char *const *names)
{
	for (; *names; names++)
		if (s6_tl(canon, *names))
			return true;
	return false;
}

/* A cast whose arguments name float32. */
static bool s6_to_f32(const ta_model *m, TSNode call)
{
	TSNode args = ta_node_field(call, "arguments");
	return ta_edits_reads_in(m, ts_node_start_byte(args), ts_node_end_byte(args), "float32");
}

static void s6_call(s6_src *s, TSNode call)
{
	static const char *const consts[] = { "zeros", "full", "arange", "program_id", "num_programs", "cdiv",
					      "zeros_like", "full_like", NULL };
	const ta_model *m = s->m;
	TSNode fn = ta_node_field(call, "function");
	TSNode root = fn;
	while (ta_node_is(root, "attribute"))
		root = ta_node_field(root, "object");
	char *rt = ta_node_is(root, "identifier") ? ta_node_text(m->src, root) : NULL;
	bool module = rt && ta_index_import_alias(m, rt);
	free(rt);
	if (ta_node_is(fn, "attribute") && !module) {
		/* a method of a tile (x.to(...), x.reshape(...)) or a descriptor */
		TSNode obj = ta_node_field(fn, "object"), meth = ta_node_field(fn, "attribute");
		if (ta_node_text_eq(m->src, meth, "load")) {
			s->loaded = true;
			s6_follow(s, S6_DESC, obj);
			return;
		}
		s6_follow(s, S6_VALUE, obj);
		if (!ta_node_text_eq(m->src, meth, "to") && !ta_node_text_eq(m->src, meth, "cast"))
			s6_args(s, call, 0);
		else
			s->widened |= s6_to_f32(m, call);
		return;
	}
	char *canon = ta_model_canonical(m, fn);
	bool triton = canon && !strncmp(canon, "triton.language.", 16);
	bool builtin = canon && !module && !ta_index_function(m, canon);
	if (s6_tl(canon, "load")) {
		s->loaded = true;
		s6_follow(s, S6_POINTER, ta_edits_call_arg(m, call, 0, "pointer"));
	} else if (triton && s6_callee_is(canon, consts)) {
		/* fills and indices: no data */
	} else if (s6_tl(canon, "where")) {
		s6_follow(s, S6_VALUE, ta_edits_call_arg(m, call, 1, "x"));
		s6_follow(s, S6_VALUE, ta_edits_call_arg(m, call, 2, "y"));
	} else if (s6_tl(canon, "cast")) {
		s6_follow(s, S6_VALUE, ta_edits_call_arg(m, call, 0, "input"));
		s->widened |= s6_to_f32(m, call);
	} else if (triton && !s6_tl(canon, "inline_asm_elementwise") && !strstr(canon, "descriptor") &&
		   !s6_tl(canon, "make_block_ptr") && !s6_tl(canon, "advance")) {
		s6_args(s, call, 0);    /* arithmetic, reductions, tl.dot, reshapes */
	} else if (builtin && (!strcmp(canon, "float") || !strcmp(canon, "int"))) {
		/* float("-inf"): a constant */
	} else if (builtin && (!strcmp(canon, "min") || !strcmp(canon, "max"))) {
		s6_args(s, call, 0);
	} else {
		s6_fail(s, call, "is a call whose result this check does not follow to a tl.load");
	}
	free(canon);
}

static void s6_follow(s6_src *s, s6_mode mode, TSNode e)
{
	const ta_model *m = s->m;
	e = ta_node_unparen(e);
	if (s->why || ts_node_is_null(e))
		return;
	if (ta_node_is(e, "identifier")) {
		char *name = ta_node_text(m->src, e);
		s6_name(s, mode, e, name);
		free(name);
		return;
	}
	if (mode == S6_POINTER) {
		/* the base a pointer sum starts from: `x_ptr + offs`, `base - 1` */
		if (ta_node_is(e, "binary_operator") && (ta_node_text_eq(m->src, ta_node_field(e, "operator"), "+") ||
							 ta_node_text_eq(m->src, ta_node_field(e, "operator"), "-"))) {
			s6_follow(s, mode, ta_node_field(e, "left"));
			return;
		}
		if (ta_node_is(e, "call")) {
			TSNode fn = ta_node_field(e, "function");
			char *canon = ta_model_canonical(m, fn);
			bool adv = s6_tl(canon, "advance");
			bool blk = s6_tl(canon, "make_block_ptr");
			free(canon);
			if (adv || blk) {
				s6_follow(s, mode, ta_edits_call_arg(m, e, 0, "base"));
				return;
			}
		}
		s6_fail(s, e, "is a pointer this check does not follow to a parameter of the kernel");
		return;
	}
	if (mode == S6_DESC) {
		if (ta_node_is(e, "call")) {
			char *canon = ta_model_canonical(m, ta_node_field(e, "function"));
			bool make = s6_tl(canon, "make_tensor_descriptor");
			free(canon);
			if (make) {
				s6_follow(s, S6_POINTER, ta_edits_call_arg(m, e, 0, "base"));
				return;
			}
		}
		s6_fail(s, e, "is a descriptor this check does not follow to a parameter of the kernel");
		return;
	}
	if (ta_node_is(e, "integer") || ta_node_is(e, "float") || ta_node_is(e, "true") || ta_node_is(e, "false") ||
	    ta_node_is(e, "none") || ta_node_is(e, "string"))
		return;
	if (ta_node_is(e, "binary_operator") || ta_node_is(e, "boolean_operator")) {
		s6_follow(s, mode, ta_node_field(e, "left"));
		s6_follow(s, mode, ta_node_field(e, "right"));
	} else if (ta_node_is(e, "unary_operator") || ta_node_is(e, "not_operator")) {
		s6_follow(s, mode, ta_node_field(e, "argument"));
	} else if (ta_node_is(e, "conditional_expression") && ta_node_named_count(e) == 3) {
		s6_follow(s, mode, ta_node_named_child(e, 0));   /* not the condition */
		s6_follow(s, mode, ta_node_named_child(e, 2));
	} else if (ta_node_is(e, "comparison_operator") || ta_node_is(e, "list") || ta_node_is(e, "tuple") ||
		   ta_node_is(e, "expression_list")) {
		for (uint32_t i = 0; i < ta_node_named_count(e); i++)
			s6_follow(s, mode, ta_node_named_child(e, i));
	} else if (ta_node_is(e, "subscript")) {
		s6_follow(s, mode, ta_node_field(e, "value"));
	} else if (ta_node_is(e, "attribute")) {
		char *canon = ta_model_canonical(m, e);
		bool ty = canon && !strncmp(canon, "triton.", 7);   /* tl.float32 */
		free(canon);
		if (ta_node_text_eq(m->src, ta_node_field(e, "attribute"), "T"))
			s6_follow(s, mode, ta_node_field(e, "object"));
		else if (!ty)
			s6_fail(s, e, "is an attribute this check does not follow to a tl.load");
	} else if (ta_node_is(e, "call")) {
		s6_call(s, e);
	} else {
		s6_fail(s, e, "is an expression this check does not follow to a tl.load");
	}
}

/* An expression the host can read .dtype of twice: a name or a.b.c. */
static bool s6_plain(TSNode a)
{
	while (ta_node_is(a, "attribute"))
		a = ta_node_field(a, "object");
	return ta_node_is(a, "identifier");
}

/* A line of n (a function, or the module) where x may be None: a default
 * of None, `x = None` (or a conditional that may give None), a test `x is
 * None` / `x is not None`; 0 when none. */
static size_t s6_maybe_none(const ta_model *m, TSNode n, const char *x)
{
	const char *key = NULL, *val = NULL;
	if (ta_node_is(n, "default_parameter") || ta_node_is(n, "typed_default_parameter"))
		key = "name", val = "value";
	else if (ta_node_is(n, "assignment"))
		key = "left", val = "right";
	if (key) {
		TSNode v = ta_node_unparen(ta_node_field(n, val));
		bool none = ta_node_is(v, "none");
		for (uint32_t i = 0; ta_node_is(v, "conditional_expression") && i < ta_node_named_count(v); i++)
			none |= ta_node_is(ta_node_unparen(ta_node_named_child(v, i)), "none");
		if (none && ta_node_text_eq(m->src, ta_node_field(n, key), x))
			return ta_node_line(n);
	}
	if (ta_node_is(n, "comparison_operator") && ta_node_named_count(n) == 2) {
		TSNode a = ta_node_named_child(n, 0), b = ta_node_named_child(n, 1);
		if ((ta_node_is(a, "none") && ta_node_text_eq(m->src, b, x)) ||
		    (ta_node_is(b, "none") && ta_node_text_eq(m->src, a, x)))
			return ta_node_line(n);
	}
	for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
		size_t l = s6_maybe_none(m, ta_node_named_child(n, i), x);
		if (l)
			return l;
	}
	return 0;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Rewrite: fast tanh (tanh.approx.f32) behind a FAST_TANH constexpr, on for
 * NVIDIA GPUs when the tensors the tanh's argument is loaded from are 16-bit. */
TA_REWRITE(S6, NULL, TA_UNSAFE("assumes tanh.approx.f32's error (about 2^-11 relative) is within what the kernel's "
			       "output tolerates: the flag turns it on only for float16 and bfloat16 inputs, whose own "
			       "rounding (2^-11, 2^-8) is as large or larger; float32 inputs keep the exact tanh"))
{
	ta_backend_fact be;
	if (ta_file_other_backend(m, &be) == TA_BACKEND_FOLDER)
		return ta_edits_refuse(why_not, "the file is under %.*s/, a folder for another back-end than CUDA: "
				       "tanh.approx.f32 is a PTX instruction", be.len, be.text);
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		bool fast = false;
		for (size_t i = 0; i < k->op_count; i++)
			fast |= k->ops[i].kind == TA_OP_INLINE_ASM;
		if (fast)
			continue;
		const ta_op *first = NULL;
		for (size_t i = 0; i < k->op_count && !first; i++)
			if (k->ops[i].kind == TA_OP_TANH && k->ops[i].loop >= 0 && ta_edits_at_line(k->ops[i].span, line))
				first = &k->ops[i];
		if (!first)
			continue;
		if (k->is_helper || k->launch_count == 0) {
			ta_sites_refuse(&s, ta_xasprintf("%s is not launched in this file: nowhere to set FAST_TANH", k->name));
			continue;
		}
		if (ta_edits_line_start(m, k->span.start) != k->span.start) {
			ta_sites_refuse(&s, ta_xasprintf("%s is not defined at module level", k->name));
			continue;
		}
		if (ta_edits_defined(m, "_fast_tanh") || ta_edits_defined(m, "_HAS_FAST_TANH") || ta_kernel_param(k, "FAST_TANH")) {
			ta_sites_refuse(&s, ta_xstrdup("the file already defines _fast_tanh, _HAS_FAST_TANH or FAST_TANH"));
			continue;
		}
		char *torch = ta_edits_module(m, "torch.cuda");
		char *jit = ta_edits_module(m, "triton.jit");
		char *tl = ta_edits_module(m, "triton.language");
		char *ce = ta_edits_module(m, "triton.language.constexpr");
		/* Every tanh of the kernel (in or out of loops) takes the flag; only
		 * plain one-argument calls. */
		char *tv = ta_edits_module(m, "torch.version");
		char *th = ta_edits_module(m, "torch");
		bool ok = torch && jit && tl && ce && tv && th;
		char *exact = NULL;
		s6_src src = { .m = m, .k = k };
		for (size_t i = 0; i < k->op_count && ok; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_TANH)
				continue;
			TSNode call = ta_edits_node(m, op->span);
			TSNode fnn = ta_node_field(call, "function");
			if (op->arg_count != 1 || op->kwarg_count || op->receiver || !ta_node_is(call, "call")) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: not a plain tanh(x) call", op->span.line));
				ok = false;
				break;
			}
			char *t = ta_node_text(m->src, fnn);
			if (!exact)
				exact = t;
			else if (strcmp(exact, t)) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: tanh is called as %s and %s", op->span.line, exact, t));
				ok = false;
				free(t);
				break;
			} else {
				free(t);
			}
			/* The one flag serves every tanh of the kernel: the tensors
			 * all their arguments are loaded from. */
			TSNode arg = ta_edits_node(m, op->args[0]);
			bool before = src.loaded;
			src.loaded = false;
			s6_follow(&src, S6_VALUE, arg);
			if (!src.why && !src.loaded) {
				char *at = ta_node_text(m->src, arg);
				ta_sites_refuse(&s, ta_xasprintf("line %u: tanh's argument `%s` is not loaded from a tensor "
								 "parameter, so whether it is 16-bit data cannot be told",
								 op->span.line, at));
				free(at);
				ok = false;
				break;
			}
			src.loaded |= before;
			if (src.why) {
				ta_sites_refuse(&s, ta_xasprintf("%s; whether tanh at line %u gets 16-bit data cannot be told",
								 src.why, op->span.line));
				ok = false;
				break;
			}
			ta_edit_replace(out, ts_node_start_byte(fnn), ts_node_end_byte(fnn), "_fast_tanh");
			ta_edit_replace(out, op->args[0].end, op->args[0].end, ", FAST_TANH");
		}
		if (ok && !src.np) {
			/* every load was followed to a parameter, or refused */
			ta_sites_refuse(&s, ta_xasprintf("line %u: no tensor parameter is found under tanh's argument",
							 first->span.line));
			ok = false;
		}
		if (ok) {
			char *w = NULL;
			if (ta_edits_add_constexpr(m, k, "FAST_TANH", "False", NULL, out, &w) != 0) {
				ta_sites_refuse(&s, w);
				ok = false;
			}
		}
		/* Each launch sets the flag from the module-level test and the
		 * dtypes of the tensors it passes for those parameters. */
		ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
		for (const ta_launch *l; ok && (l = ta_launch_walk_next(&walk));) {
			char *w = NULL;
			if (ta_edits_launch_alone(m, l, &w) != 0) {   /* the other kernel takes no flag */
				ta_sites_refuse(&s, w);
				ok = false;
				break;
			}
			TSNode call = ta_edits_node(m, l->span);
			ta_buf flag = TA_BUF_INIT;
			ta_buf_puts(&flag, ", FAST_TANH=_HAS_FAST_TANH");
			for (size_t j = 0; j < src.np && ok; j++) {
				const char *pn = k->params[src.params[j]].name;
				TSNode a = ta_node_unparen(ta_edits_launch_arg_node(m, l, k, src.params[j]));
				char *t = ts_node_is_null(a) ? NULL : ta_node_text(m->src, a);
				TSNode fn = ta_node_ancestor(call, "function_definition");
				size_t none = t && s6_plain(a) ?
					s6_maybe_none(m, ts_node_is_null(fn) ? ts_tree_root_node(m->syn->tree) : fn, t) : 0;
				if (!t)
					ta_sites_refuse(&s, ta_xasprintf("line %u: the launch passes no argument the flag could "
									 "test for %s, which tanh's argument is loaded from",
									 l->span.line, pn));
				else if (!s6_plain(a))
					ta_sites_refuse(&s, ta_xasprintf("line %u: the launch passes `%s` for %s, not a name "
									 "whose dtype the flag can read", l->span.line, t, pn));
				else if (none)
					ta_sites_refuse(&s, ta_xasprintf("line %zu: `%s`, passed for %s at line %u, may be None, "
									 "so the flag cannot read its dtype", none, t, pn,
									 l->span.line));
				else
					ta_buf_printf(&flag, " and %s.dtype in (%s.float16, %s.bfloat16)", t, th, th);
				ok = t && s6_plain(a) && !none;
				free(t);
			}
			if (!ok) {
				ta_buf_free(&flag);
				break;
			}
			TSNode args = ta_node_field(call, "arguments");
			uint32_t na = ta_node_named_count(args);
			TSNode last = na ? ta_node_named_child(args, na - 1) : (TSNode){ 0 };
			while (!ts_node_is_null(last) && ta_node_is(last, "comment"))
				last = ts_node_prev_named_sibling(last);
			if (ts_node_is_null(last) || ta_node_is(last, "dictionary_splat") ||
			    ta_node_is(last, "list_splat")) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: the launch has no plain last argument", l->span.line));
				ta_buf_free(&flag);
				ok = false;
				break;
			}
			ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), ta_buf_str(&flag));
			ta_buf_free(&flag);
		}
		if (ok) {
			const char *u = ta_edits_indent_unit(m, "");
			ta_buf b = TA_BUF_INIT;
			/* torch.version.cuda is None on ROCm and CPU builds. It does not
			 * name hip: P1 reads a hip test as the author's word that the
			 * file runs on another back-end, and this guard is not that. */
			ta_buf_printf(&b, "# tanh.approx.f32 is PTX: NVIDIA GPUs only (sm_75+); launches use it for 16-bit "
				      "inputs only\n");
			ta_buf_printf(&b, "_HAS_FAST_TANH = %s.is_available() and %s.cuda is not None\n\n\n", torch, tv);
			ta_buf_printf(&b, "@%s\ndef _fast_tanh(x, FAST: %s):\n", jit, ce);
			ta_buf_printf(&b, "%s# FAST: one MUFU instruction, relative error about 2**-11; else the exact tanh\n", u);
			ta_buf_printf(&b, "%sif FAST:\n", u);
			ta_buf_printf(&b, "%s%sreturn %s.inline_asm_elementwise(\n", u, u, tl);
			ta_buf_printf(&b, "%s%s%s\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x.to(%s.float32)],\n", u, u, u, tl);
			ta_buf_printf(&b, "%s%s%sdtype=%s.float32, is_pure=True, pack=1).to(x.dtype)\n", u, u, u, tl);
			ta_buf_printf(&b, "%selse:\n%s%sreturn %s(x)\n\n\n", u, u, u, exact);
			ta_edits_before_def(m, k->span.start, ta_buf_str(&b), out);
			ta_buf_free(&b);
			ta_edit_set_title(out, "fast tanh for %s behind FAST_TANH (on for 16-bit inputs on NVIDIA GPUs)",
					  k->name);
			ta_buf names = TA_BUF_INIT;
			for (size_t j = 0; j < src.np; j++)
				ta_buf_printf(&names, "%s%s", j == 0 ? "" : j + 1 == src.np ? " and " : ", ",
					      k->params[src.params[j]].name);
			ta_edit_set_unsafe(out, "assumes tanh.approx.f32's error (about 2^-11 relative) is within what %s's "
					   "output tolerates: FAST_TANH is on only when the %s passed for %s %s float16 or "
					   "bfloat16, whose own rounding (2^-11, 2^-8) is as large or larger%s; float32 "
					   "inputs keep the exact tanh", k->name, src.np > 1 ? "tensors" : "tensor",
					   ta_buf_str(&names), src.np > 1 ? "are" : "is",
					   src.widened ? " (the kernel widens the values to float32, but they hold no more "
					   "than 16 bits' precision)" : "");
			ta_buf_free(&names);
			out->line = first->span.line;
			char *w = NULL;
			if (ta_edits_need_triton(m, 2, 2, "tl.inline_asm_elementwise", out, &w) != 0) {
				ta_sites_refuse(&s, w);
				ok = false;
			}
		}
		free(exact);
		free(tv);
		free(th);
		free(src.why);
		free(torch);
		free(jit);
		free(tl);
		free(ce);
		if (ok) {
			return ta_sites_done(&s);
		}
		ta_edit_clear(out);
	}
	return ta_sites_end(&s, why_not, line, "no tanh inside a kernel loop");
}
