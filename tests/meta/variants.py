#!/usr/bin/env python3
"""Meaning-preserving variants of a Triton kernel file (issue 27, item 3).

Usage:
  variants.py SRC OUTDIR    writes OUTDIR/<transform>.py for every transform
                            that applies to SRC, and OUTDIR/variants.tsv, one
                            line a transform: name, "ok" and the file, or
                            "n/a" and why it does not apply (no file then)
  variants.py --list        the transforms and what each does

Each transform rewrites the file with Python's ast (the kernels are Python)
so that every output stays the same for every input: what changes is how
the code is spelled, the way other people write the same kernel. The
top-level statements a transform leaves alone keep their text (comments
included); the ones it changes are written by ast.unparse (their comments
are lost). A variant is written only when it parses, compiles and differs
from the original as a syntax tree; a transform that finds nothing to
rewrite says so in variants.tsv instead of writing a copy.

Python 3.9 or newer, standard library only."""
import ast
import builtins
import copy
import difflib
import os
import sys


class NotApplicable(Exception):
    """The transform finds nothing in the file it can rewrite (the message says why)."""


# ---------------------------------------------------------------- the tree

def dotted(node):
    """'a.b.c' for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def is_jit_decorator(d):
    f = d.func if isinstance(d, ast.Call) else d
    return dotted(f) in ("triton.jit", "jit")


def is_constexpr_annotation(a):
    return a is not None and dotted(a) in ("tl.constexpr", "triton.language.constexpr", "constexpr")


def own_nodes(fn):
    """The nodes of a function, lambdas included, nested defs and classes left out."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def stored(node):
    """Names stored anywhere in node (Assign, AugAssign, for targets, with ... as)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
    return out


def stored_all(stmts):
    out = set()
    for s in stmts:
        out |= stored(s)
    return out


def loaded(node):
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
    return out


def loaded_all(stmts):
    out = set()
    for s in stmts:
        out |= loaded(s)
    return out


def ordered_names(node, ctx):
    """Names of node in source order (first occurrence), of the given ctx class."""
    seen = []

    class V(ast.NodeVisitor):
        def visit_Name(self, n):
            if isinstance(n.ctx, ctx) and n.id not in seen:
                seen.append(n.id)

        def visit_AugAssign(self, n):
            # the target is read before it is written
            if isinstance(n.target, ast.Name) and ctx is ast.Load and n.target.id not in seen:
                seen.append(n.target.id)
            self.visit(n.value)
            self.visit(n.target)

    V().visit(node)
    return seen


STMT_LISTS = ("body", "orelse", "finalbody")


def blocks(node):
    """Every statement list under node (node's own body included)."""
    for field in STMT_LISTS:
        lst = getattr(node, field, None)
        if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt):
            yield lst
            for s in lst:
                yield from blocks(s)
    for h in getattr(node, "handlers", []) or []:
        yield from blocks(h)


def shallow_walk(stmt):
    """The nodes of one statement that belong to it, not to a statement nested in it."""
    todo = [stmt]
    while todo:
        n = todo.pop()
        yield n
        for f, v in ast.iter_fields(n):
            if n is stmt and f in STMT_LISTS + ("handlers",):
                continue
            if isinstance(v, list):
                todo.extend(x for x in v if isinstance(x, ast.AST))
            elif isinstance(v, ast.AST):
                todo.append(v)


def stmt_index(root):
    """id(node) -> (block, index) of the innermost statement holding node."""
    idx = {}
    for block in blocks(root):
        for i, st in enumerate(block):
            for n in shallow_walk(st):
                idx[id(n)] = (block, i)
    return idx


def substitute(root, mapping):
    """Replaces nodes by identity: mapping id(old) -> new node (or None: removed from a list)."""

    class R(ast.NodeTransformer):
        def visit(self, node):
            if id(node) in mapping:
                return mapping[id(node)]
            return self.generic_visit(node)

    return R().visit(root)


def replace_names(expr, values):
    """expr with each loaded Name in values replaced by a copy of its value."""

    class R(ast.NodeTransformer):
        def visit_Name(self, n):
            if isinstance(n.ctx, ast.Load) and n.id in values:
                return copy.deepcopy(values[n.id])
            return n

    return R().visit(expr)


def rename_names(node, mapping):
    class R(ast.NodeTransformer):
        def visit_Name(self, n):
            if n.id in mapping:
                n.id = mapping[n.id]
            return n

        def visit_arg(self, a):
            if a.arg in mapping:
                a.arg = mapping[a.arg]
            return self.generic_visit(a)

    return R().visit(node)


def dump(n):
    return ast.dump(n)


def same(a, b):
    return dump(a) == dump(b)


def const(v):
    return ast.Constant(value=v)


def name(i, store=False):
    return ast.Name(id=i, ctx=ast.Store() if store else ast.Load())


def assign(target, value):
    return ast.Assign(targets=[name(target, True)], value=value, lineno=0)


def is_const(n, v=None):
    return isinstance(n, ast.Constant) and (v is None or (type(n.value) is type(v) and n.value == v))


def simplify(e, scalars=()):
    """0 + x, x + 0, x - 0, 1 * x, x * 1 -> x (the shapes stay those of x); 0 * s, s * 0 -> 0 for s a
    constant or a scalar name (a kernel parameter), where no shape is lost."""

    def scalar(n):
        return isinstance(n, ast.Constant) or (isinstance(n, ast.Name) and n.id in scalars)

    class S(ast.NodeTransformer):
        def visit_BinOp(self, b):
            self.generic_visit(b)
            if isinstance(b.op, ast.Mult) and ((is_const(b.left, 0) and scalar(b.right))
                                               or (is_const(b.right, 0) and scalar(b.left))):
                return const(0)
            if isinstance(b.op, ast.Add):
                if is_const(b.left, 0):
                    return b.right
                if is_const(b.right, 0):
                    return b.left
            if isinstance(b.op, ast.Sub) and is_const(b.right, 0):
                return b.left
            if isinstance(b.op, ast.Mult):
                if is_const(b.left, 1):
                    return b.right
                if is_const(b.right, 1):
                    return b.left
            return b

    return S().visit(e)


HOST_PURE_CALLS = {"triton.cdiv", "cdiv", "triton.next_power_of_2", "next_power_of_2", "min", "max",
                   "int", "len", "abs", "float", "bool", "math.ceil", "math.floor", "math.sqrt", "math.log2",
                   "divmod", "round"}
HOST_PURE_METHODS = {"stride", "size", "numel", "dim", "element_size"}
KERNEL_PURE_CALLS = {"arange", "expand_dims", "broadcast_to", "full", "zeros", "minimum", "maximum",
                     "where", "abs", "cdiv", "multiple_of", "max_contiguous"}


def host_pure(e):
    for n in ast.walk(e):
        if isinstance(n, ast.Call):
            d = dotted(n.func)
            if d in HOST_PURE_CALLS:
                continue
            if isinstance(n.func, ast.Attribute) and n.func.attr in HOST_PURE_METHODS:
                continue
            return False
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda,
                          ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return False
    return True


def kernel_pure(e, tl_alias):
    for n in ast.walk(e):
        if isinstance(n, ast.Call):
            d = dotted(n.func) or ""
            if d.startswith(tl_alias + ".") and d[len(tl_alias) + 1:] in KERNEL_PURE_CALLS:
                continue
            if isinstance(n.func, ast.Attribute) and n.func.attr == "to":
                continue
            return False
        if isinstance(n, (ast.NamedExpr, ast.Lambda)):
            return False
    return True


# ---------------------------------------------------------------- the module

LAUNCH_OPTIONS = {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "grid", "warmup",
                  "enable_warp_specialization", "num_buffers_warp_spec", "num_consumer_groups",
                  "reg_dec_producer", "reg_inc_consumer", "stream", "device", "extern_libs", "debug"}


class Mod:
    def __init__(self, tree):
        self.tree = tree
        self.jit = {}
        for fn in tree.body:
            if isinstance(fn, ast.FunctionDef) and any(is_jit_decorator(d) for d in fn.decorator_list):
                self.jit[fn.name] = fn
        self.used = set()
        for n in ast.walk(tree):
            for attr in ("id", "arg", "name", "attr", "asname"):
                v = getattr(n, attr, None)
                if isinstance(v, str):
                    self.used.add(v)
        self.used |= set(dir(builtins))
        self.tl = "tl"
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.name == "triton.language":
                        self.tl = a.asname or a.name
            if isinstance(n, ast.ImportFrom) and n.module == "triton":
                for a in n.names:
                    if a.name == "language":
                        self.tl = a.asname or "language"

    def fresh(self, base):
        cand, k = base, 1
        while cand in self.used:
            cand = f"{base}_{k}"
            k += 1
        self.used.add(cand)
        return cand

    def functions(self):
        """Every def of the file (methods and nested ones too)."""
        return [n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def host_functions(self):
        return [f for f in self.functions() if not any(f is j for j in self.jit.values())]

    def launches(self):
        """(host function, call) for every `kernel[grid](...)` of a @triton.jit kernel of the file that
        runs as a statement of its function runs (not inside a lambda or a comprehension)."""
        out = []
        for fn in self.host_functions():
            deferred = set()
            for n in own_nodes(fn):
                if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    deferred |= {id(x) for x in ast.walk(n)}
            for n in own_nodes(fn):
                if id(n) in deferred:
                    continue
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)
                        and isinstance(n.func.value, ast.Name) and n.func.value.id in self.jit):
                    out.append((fn, n))
        out.sort(key=lambda p: (getattr(p[1], "lineno", 0), getattr(p[1], "col_offset", 0)))
        return out

    def kernels(self):
        launched = {c.func.value.id for _, c in self.launches()}
        return [f for n, f in self.jit.items() if n in launched]

    def helpers(self):
        launched = {c.func.value.id for _, c in self.launches()}
        return [f for n, f in self.jit.items() if n not in launched]

    def params(self, kname):
        fn = self.jit[kname]
        return [a.arg for a in fn.args.posonlyargs + fn.args.args]

    def constexprs(self, fn):
        return [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                if is_constexpr_annotation(a.annotation)]

    def tuned(self, kname):
        """Parameters the kernel's @triton.autotune or @triton.heuristics sets (not passed by a launch)."""
        fn = self.jit[kname]
        out = set()
        for d in fn.decorator_list:
            for n in ast.walk(d):
                if isinstance(n, ast.Dict):
                    out |= {k.value for k in n.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        # configs given by name: a module-level list of triton.Config
        for d in fn.decorator_list:
            if isinstance(d, ast.Call) and dotted(d.func) in ("triton.autotune", "autotune"):
                for kw in d.keywords:
                    if kw.arg == "configs":
                        for n in self.module_values(kw.value):
                            for m in ast.walk(n):
                                if isinstance(m, ast.Dict):
                                    out |= {k.value for k in m.keys
                                            if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        return out

    def module_values(self, e):
        """e and, for names of e, the values the module assigns them (one level)."""
        out = [e]
        names = loaded(e)
        for st in self.tree.body:
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in st.targets):
                out.append(st.value)
            if isinstance(st, ast.FunctionDef) and st.name in names:
                out.append(st)
        return out


# ---------------------------------------------------------------- host side

def single_def(fn, nm):
    """The one Assign statement storing nm in fn (and its block, index), if nm is stored exactly once there."""
    defs = [n for n in own_nodes(fn) if isinstance(n, ast.Name) and n.id == nm and isinstance(n.ctx, ast.Store)]
    if len(defs) != 1 or any(a.arg == nm for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs):
        return None
    idx = stmt_index(fn)
    if id(defs[0]) not in idx:
        return None
    block, i = idx[id(defs[0])]
    st = block[i]
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return block, i, st.value
    return None


def region_ok(fn, block, i, nm, value):
    """Whether every use of nm (defined by block[i]) follows it in block and sees the same value of
    value's names: nm and value's names are not stored again between the definition and the last use."""
    idx = stmt_index(fn)
    uses = [n for n in own_nodes(fn) if isinstance(n, ast.Name) and n.id == nm and isinstance(n.ctx, ast.Load)]
    if not uses:
        return False
    last = i
    for u in uses:
        # the statement of block holding u: walk up through the index
        pos = top_in_block(idx, u, block, fn)
        if pos is None or pos <= i:
            return False
        last = max(last, pos)
    between = block[i + 1:last + 1]
    if nm in stored_all(between):
        return False
    if loaded(value) & stored_all(between):
        return False
    return True


def top_in_block(idx, node, block, fn):
    """The index in block of the statement that holds node, directly or nested; None if outside block."""
    # find the chain of statements from node upwards
    if id(node) not in idx:
        return None
    b, i = idx[id(node)]
    while True:
        if b is block:
            return i
        st = b[i]
        if id(st) not in idx:
            return None
        b, i = idx[id(st)]


def uses_in_lambda(fn, nm):
    for n in own_nodes(fn):
        if isinstance(n, ast.Lambda) and nm in loaded(n.body):
            return True
    return False


def launch_statements(m, fn):
    idx = stmt_index(fn)
    out = set()
    for f, call in m.launches():
        if f is fn and id(call) in idx:
            b, i = idx[id(call)]
            out.add(id(b[i]))
    return out


def grid_name(call):
    g = call.func.slice
    return g.id if isinstance(g, ast.Name) else None


def t_inline_names(m):
    """Host names that only feed a launch (tiles, sizes, launch options) inlined where they are read."""
    changed = False
    hosts = {id(fn): fn for fn, _ in m.launches()}
    for fn in hosts.values():
        # split `A, B = 1, 2` into one assignment a name
        for block in list(blocks(fn)):
            k = 0
            while k < len(block):
                st = block[k]
                if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Tuple)
                        and isinstance(st.value, ast.Tuple) and len(st.targets[0].elts) == len(st.value.elts)
                        and all(isinstance(t, ast.Name) for t in st.targets[0].elts)
                        and all(host_pure(v) for v in st.value.elts)
                        and not (loaded(st.value) & {t.id for t in st.targets[0].elts})):
                    block[k:k + 1] = [assign(t.id, v) for t, v in zip(st.targets[0].elts, st.value.elts)]
                    changed = True
                k += 1
        grids = {grid_name(c) for f, c in m.launches() if f is fn} - {None}
        progress = True
        while progress:
            progress = False
            launch_ids = launch_statements(m, fn)
            idx = stmt_index(fn)
            grid_defs = set()
            for g in grids:
                d = single_def(fn, g)
                if d:
                    grid_defs.add(id(d[0][d[1]]))
            for st in [s for b in blocks(fn) for s in b]:
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                    continue
                nm = st.targets[0].id
                if nm in grids:
                    continue
                d = single_def(fn, nm)
                if not d or not host_pure(d[2]):
                    continue
                block, i, value = d
                uses = [n for n in own_nodes(fn) if isinstance(n, ast.Name) and n.id == nm
                        and isinstance(n.ctx, ast.Load)]
                if not uses:
                    continue
                # every use in a launch, or in the grid's definition
                ok = True
                for u in uses:
                    b, j = idx[id(u)]
                    if id(b[j]) not in launch_ids and id(b[j]) not in grid_defs:
                        ok = False
                if not ok:
                    continue
                if not isinstance(value, ast.Constant):
                    if uses_in_lambda(fn, nm) or not region_ok(fn, block, i, nm, value):
                        continue
                mapping = {id(u): copy.deepcopy(value) for u in uses}
                substitute(fn, mapping)
                del block[i]
                changed = progress = True
                break
    if not changed:
        raise NotApplicable("no host name used only by a launch or its grid")


def grid_tuple(m, fn, call):
    """(tuple node, statement to bind before, lambda or None) of a launch's grid."""
    idx = stmt_index(fn)
    g = call.func.slice
    if isinstance(g, ast.Name):
        d = single_def(fn, g.id)
        if not d:
            return None
        block, i, value = d
        st = block[i]
    else:
        value = g
        b, j = idx[id(call)]
        st = b[j]
    if isinstance(value, ast.Tuple):
        return value, st, None
    if isinstance(value, ast.Lambda) and isinstance(value.body, ast.Tuple):
        return value.body, st, value
    return None


def insert_before(fn, st, new):
    idx = stmt_index(fn)
    for b in blocks(fn):
        for k, s in enumerate(b):
            if s is st:
                b[k:k] = new
                return True
    return False


def t_bind_grid(m):
    """The grid's computed dimensions bound to local names first (`grid_1 = triton.cdiv(N, BLOCK_M)`)."""
    done = False
    seen = set()
    for fn, call in m.launches():
        gt = grid_tuple(m, fn, call)
        if not gt or id(gt[0]) in seen:
            continue
        tup, st, lam = gt
        seen.add(id(tup))
        new = []
        for k, e in enumerate(tup.elts):
            if isinstance(e, (ast.Name, ast.Constant)) or not host_pure(e):
                continue
            if lam is not None:
                if {a.arg for a in lam.args.args} & loaded(e):
                    continue
                # evaluated now instead of at the launch: its names must not change in between
                if any(single_def(fn, n) is None and n not in [a.arg for a in fn.args.args] for n in loaded(e)):
                    continue
                if any(n in stored(fn) for n in loaded(e) if n in [a.arg for a in fn.args.args]):
                    continue
            nm = m.fresh(f"grid_{k}")
            new.append(assign(nm, tup.elts[k]))
            tup.elts[k] = name(nm)
        if new and insert_before(fn, st, new):
            done = True
    if not done:
        raise NotApplicable("no grid dimension is an expression to bind")


def t_bind_args(m):
    """Every computed launch argument bound to a local named after its parameter (`stride_qb = q.stride(0)`)."""
    done = False
    for fn, call in m.launches():
        idx = stmt_index(fn)
        if id(call) not in idx:
            continue
        b, j = idx[id(call)]
        st = b[j]
        params = m.params(call.func.value.id)
        new = []
        for k, a in enumerate(call.args):
            if isinstance(a, (ast.Name, ast.Constant, ast.Starred)) or k >= len(params):
                continue
            nm = m.fresh(params[k])
            new.append(assign(nm, a))
            call.args[k] = name(nm)
        for kw in call.keywords:
            if kw.arg is None or isinstance(kw.value, (ast.Name, ast.Constant)) or kw.arg in LAUNCH_OPTIONS:
                continue
            nm = m.fresh(kw.arg)
            new.append(assign(nm, kw.value))
            kw.value = name(nm)
        if new:
            b[j:j] = new
            done = True
    if not done:
        raise NotApplicable("no launch argument is an expression to bind")


def stride_call(e):
    """(x, d) for `x.stride(d)` with x a name and d an int literal, else None."""
    if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "stride"
            and isinstance(e.func.value, ast.Name) and len(e.args) == 1 and not e.keywords
            and isinstance(e.args[0], ast.Constant) and type(e.args[0].value) is int):
        return e.func.value.id, e.args[0].value
    return None


def host_rank(fn, x, before):
    """The number of dimensions the host function fn states for tensor x in the statements of its
    body before the statement `before` (straight-line, x not bound again since): `a, b, c = x.shape`,
    `assert x.dim() == 3`, or x = torch.empty((a, b, c)) / torch.empty_like(y) of a known y. None
    when it does not say."""
    rank = None
    for st in fn.body:
        if st is before:
            break
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t, v = st.targets[0], st.value
            if (isinstance(t, ast.Tuple) and isinstance(v, ast.Attribute) and v.attr == "shape"
                    and isinstance(v.value, ast.Name) and v.value.id == x
                    and not any(isinstance(e, ast.Starred) for e in t.elts)):
                rank = len(t.elts)
            elif isinstance(t, ast.Name) and t.id == x:
                rank = None
                if (isinstance(v, ast.Call) and dotted(v.func) in ("torch.empty", "torch.zeros")
                        and v.args and isinstance(v.args[0], ast.Tuple)):
                    rank = len(v.args[0].elts)
                elif (isinstance(v, ast.Call) and dotted(v.func) in ("torch.empty_like", "torch.zeros_like")
                        and v.args and isinstance(v.args[0], ast.Name)):
                    rank = host_rank(fn, v.args[0].id, st)
            elif x in stored(st):
                rank = None
        elif x in stored(st):
            rank = None
        if isinstance(st, ast.Assert):
            for c in ast.walk(st.test):
                if (isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.Eq)
                        and isinstance(c.left, ast.Call) and isinstance(c.left.func, ast.Attribute)
                        and c.left.func.attr == "dim" and isinstance(c.left.func.value, ast.Name)
                        and c.left.func.value.id == x and isinstance(c.comparators[0], ast.Constant)):
                    rank = c.comparators[0].value
    return rank


def launch_statement(fn, call):
    for st in fn.body:
        if any(n is call for n in ast.walk(st)):
            return st
    return None


def t_splat_strides(m):
    """Every run `x.stride(0), ..., x.stride(r - 1)` of launch arguments, x a tensor the host says has r
    dimensions, passed as `*x.stride()` instead."""
    done = False
    for fn, call in m.launches():
        st = launch_statement(fn, call)
        args, out, i = call.args, [], 0
        while i < len(args):
            sc = stride_call(args[i])
            r = host_rank(fn, sc[0], st) if sc and sc[1] == 0 else None
            if r and r >= 2 and i + r <= len(args) and all(stride_call(args[i + d]) == (sc[0], d) for d in range(r)):
                out.append(ast.Starred(value=ast.Call(func=ast.Attribute(value=name(sc[0]), attr="stride",
                                                                         ctx=ast.Load()),
                                                      args=[], keywords=[]), ctx=ast.Load()))
                i += r
                done = True
                continue
            out.append(args[i])
            i += 1
        call.args = out
    if not done:
        raise NotApplicable("no launch passes every stride of a tensor of known rank in order")


def t_unsplat_strides(m):
    """Every `*x.stride()` of a launch, x a tensor the host says has r dimensions, written out as
    `x.stride(0), ..., x.stride(r - 1)`."""
    done = False
    for fn, call in m.launches():
        st = launch_statement(fn, call)
        out = []
        for a in call.args:
            v = a.value if isinstance(a, ast.Starred) else None
            r = None
            if (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "stride"
                    and isinstance(v.func.value, ast.Name) and not v.args and not v.keywords):
                r = host_rank(fn, v.func.value.id, st)
            if not r:
                out.append(a)
                continue
            for d in range(r):
                out.append(ast.Call(func=ast.Attribute(value=name(v.func.value.id), attr="stride", ctx=ast.Load()),
                                    args=[const(d)], keywords=[]))
            done = True
        call.args = out
    if not done:
        raise NotApplicable("no launch passes *x.stride() of a tensor of known rank")


def rename_everywhere(m, mapping):
    """Renames identifiers of the file consistently: names, parameters, keywords of calls to the file's
    own functions and launches and of triton.Config/dict, and the strings that name them (config keys,
    META["X"], args["X"], key=[...] lists)."""
    tree = m.tree
    own = {f.name for f in m.functions()}
    rename_names(tree, mapping)
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            target = None
            if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and f.value.id in m.jit:
                target = "launch"
            elif isinstance(f, ast.Name) and f.id in own:
                target = "own"
            elif dotted(f) in ("triton.Config", "Config", "dict"):
                target = "config"
            if target:
                for kw in n.keywords:
                    if kw.arg in mapping:
                        kw.arg = mapping[kw.arg]
            if dotted(f) in ("triton.autotune", "autotune", "triton.jit", "jit", "triton.heuristics", "heuristics"):
                for kw in n.keywords:
                    if kw.arg in ("key", "restore_value", "reset_to_zero", "do_not_specialize", "do_not_specialize_on_alignment"):
                        for e in ast.walk(kw.value):
                            if isinstance(e, ast.Constant) and e.value in mapping:
                                e.value = mapping[e.value]
        if isinstance(n, ast.Dict):
            for k in n.keys:
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value in mapping:
                    k.value = mapping[k.value]
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value in mapping:
            n.slice.value = mapping[n.slice.value]
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "pop", "setdefault")
                and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value in mapping):
            n.args[0].value = mapping[n.args[0].value]


def tile_params(m):
    out = []
    for fn in m.jit.values():
        for p in m.constexprs(fn):
            if "BLOCK" in p.upper() or "TILE" in p.upper():
                if p not in out:
                    out.append(p)
    return out


def t_rename_tiles(m):
    """The tiles (constexpr parameters named BLOCK*/TILE*) renamed everywhere: BLOCK_M -> TILE_M."""
    tiles = tile_params(m)
    if not tiles:
        raise NotApplicable("no constexpr parameter named BLOCK* or TILE*")
    mapping = {}
    for p in tiles:
        if "BLOCK" in p:
            new = p.replace("BLOCK", "TILE")
        elif "block" in p:
            new = p.replace("block", "tile")
        elif "TILE" in p:
            new = p.replace("TILE", "BLK")
        else:
            new = p.replace("tile", "blk").replace("Tile", "Blk").replace("Block", "Tile")
        mapping[p] = m.fresh(new)
    rename_everywhere(m, mapping)


def t_rename_constexprs(m):
    """The other constexpr parameters (HEAD_DIM, IS_CAUSAL...) renamed everywhere: HEAD_DIM -> HEAD_DIM_C."""
    tiles = set(tile_params(m))
    others = []
    for fn in m.jit.values():
        for p in m.constexprs(fn):
            if p not in tiles and p not in others:
                others.append(p)
    if not others:
        raise NotApplicable("no constexpr parameter besides the tiles")
    rename_everywhere(m, {p: m.fresh(p + ("_c" if p.islower() else "_C")) for p in others})


def t_launch_positional(m):
    """Launch keyword arguments that can go by position (tiles included) passed positionally."""
    done = False
    for fn, call in m.launches():
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            continue
        params = m.params(call.func.value.id)
        kws = {k.arg: k for k in call.keywords}
        k = len(call.args)
        while k < len(params) and params[k] in kws:
            call.args.append(kws[params[k]].value)
            call.keywords.remove(kws[params[k]])
            k += 1
            done = True
    if not done:
        raise NotApplicable("no launch passes by keyword a parameter that could go by position")


def t_launch_keyword(m):
    """Positional launch arguments passed by keyword (in the parameters' order)."""
    done = False
    for fn, call in m.launches():
        if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        params = m.params(call.func.value.id)
        if len(call.args) > len(params) or set(params[:len(call.args)]) & LAUNCH_OPTIONS:
            continue
        kws = [ast.keyword(arg=p, value=a) for p, a in zip(params, call.args)]
        call.args = []
        call.keywords = kws + call.keywords
        done = True
    if not done:
        raise NotApplicable("no launch passes an argument by position")


def grid_value(m, fn, call):
    """(value, defining statement or None, launch statement) of the launch's grid, when a tuple or a
    lambda bound once in the same block as the launch, before it, or written in the launch."""
    idx = stmt_index(fn)
    b, j = idx[id(call)]
    g = call.func.slice
    if isinstance(g, ast.Name):
        d = single_def(fn, g.id)
        if not d:
            return None
        block, i, value = d
        if block is not b or i >= j:
            return None
        uses = [n for n in own_nodes(fn) if isinstance(n, ast.Name) and n.id == g.id and isinstance(n.ctx, ast.Load)]
        if len(uses) != 1:
            return None
        if isinstance(value, ast.Tuple) and (loaded(value) & stored_all(b[i + 1:j + 1])):
            return None
        return value, block[i], b[j]
    return g, None, b[j]


def t_grid_lambda(m):
    """A tuple grid written as `lambda META: (...)`."""
    done = False
    for fn, call in m.launches():
        gv = grid_value(m, fn, call)
        if not gv or not isinstance(gv[0], ast.Tuple):
            continue
        value, st, _ = gv
        lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=m.fresh("META"))], vararg=None,
                                            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=value)
        if st is not None:
            st.value = lam
        else:
            call.func.slice = lam
        done = True
    if not done:
        raise NotApplicable("no launch has a tuple grid")


def t_grid_def(m):
    """The grid written as a nested function `def grid_fn(META): return (...)`."""
    done = False
    for fn, call in m.launches():
        gv = grid_value(m, fn, call)
        if not gv:
            continue
        value, st, lst = gv
        if isinstance(value, ast.Lambda):
            if value.args.vararg or value.args.kwarg or len(value.args.args) != 1:
                continue
            args, body = value.args, value.body
        elif isinstance(value, ast.Tuple):
            args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=m.fresh("META"))], vararg=None, kwonlyargs=[],
                                 kw_defaults=[], kwarg=None, defaults=[])
            body = value
        else:
            continue
        fname = m.fresh("grid_fn")
        fdef = ast.FunctionDef(name=fname, args=args, body=[ast.Return(value=body)], decorator_list=[],
                               returns=None, type_comment=None, lineno=0)
        if st is not None:
            for b in blocks(fn):
                for k, s in enumerate(b):
                    if s is st:
                        b[k] = fdef
            call.func.slice = name(fname)
        else:
            insert_before(fn, lst, [fdef])
            call.func.slice = name(fname)
        done = True
    if not done:
        raise NotApplicable("no launch has a tuple or lambda grid")


def t_grid_inline(m):
    """A grid bound to a local name written in the launch instead (`k[(a, b)](...)`)."""
    done = False
    for fn, call in m.launches():
        if not isinstance(call.func.slice, ast.Name):
            continue
        gv = grid_value(m, fn, call)
        if not gv or gv[1] is None or not isinstance(gv[0], (ast.Tuple, ast.Lambda)):
            continue
        value, st, _ = gv
        if isinstance(value, ast.Tuple) and not host_pure(value):
            continue
        call.func.slice = value
        for b in blocks(fn):
            if st in b:
                b.remove(st)
                break
        done = True
    if not done:
        raise NotApplicable("no launch reads a grid bound to a local name just before it")


def t_grid_variable(m):
    """A grid written in the launch bound to a local name `grid` first."""
    done = False
    for fn, call in m.launches():
        g = call.func.slice
        if isinstance(g, ast.Name) or not (isinstance(g, ast.Lambda) or host_pure(g)):
            continue
        idx = stmt_index(fn)
        b, j = idx[id(call)]
        nm = m.fresh("grid")
        b[j:j] = [assign(nm, g)]
        call.func.slice = name(nm)
        done = True
    if not done:
        raise NotApplicable("every launch reads its grid through a name already")


# ---------------------------------------------------------------- kernel side

def jit_decorator_copy(fn):
    for d in fn.decorator_list:
        if is_jit_decorator(d):
            f = d.func if isinstance(d, ast.Call) else d
            return copy.deepcopy(f)
    return ast.Attribute(value=name("triton"), attr="jit", ctx=ast.Load())


def has(node, types):
    return any(isinstance(n, types) for n in ast.walk(node))


def calls_to(node, tl, names):
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and dotted(n.func) in {f"{tl}.{x}" for x in names}:
            return True
    return False


def t_helper_extract(m):
    """The kernel's main loop (the first with a tl.dot, else a tl.load) moved into a @triton.jit helper
    that takes what it reads and returns what the rest of the kernel reads; a kernel without a loop has
    its body from the first load on moved instead."""
    done = False
    for fn in m.kernels():
        body = fn.body
        pick = None
        for want in ("dot", "load"):
            for i, st in enumerate(body):
                if isinstance(st, ast.For) and calls_to(st, m.tl, [want]):
                    pick = (i, i + 1, "loop")
                    break
            if pick:
                break
        if not pick:
            for i, st in enumerate(body):
                if calls_to(st, m.tl, ["load"]):
                    pick = (i, len(body), "body")
                    break
        if not pick:
            continue
        i0, i1, kind = pick
        part = body[i0:i1]
        if any(has(s, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for s in part):
            continue
        if kind == "body" and any(has(s, (ast.Break, ast.Continue)) for s in part):
            continue
        allparams = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
        # what is defined before the part, as Triton scopes it: a name first stored inside a loop's
        # body is not visible after the loop
        defined = set(allparams)
        for st in body[:i0]:
            if not isinstance(st, (ast.For, ast.While)):
                defined |= stored(st)
        reads = [n for n in ordered_names(ast.Module(body=part, type_ignores=[]), ast.Load) if n in defined]
        after = loaded_all(body[i1:])
        # what the rest reads of what the part changes; a name first defined inside a loop is not
        # visible after it in Triton, so only names defined before the part come back
        writes = [n for n in ordered_names(ast.Module(body=part, type_ignores=[]), ast.Store)
                  if n in after and n in defined]
        cexpr = {a.arg: a.annotation for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                 if is_constexpr_annotation(a.annotation)}
        hname = m.fresh(f"_{fn.name.lstrip('_')}_{kind}")
        hargs = [ast.arg(arg=r, annotation=copy.deepcopy(cexpr[r]) if r in cexpr else None) for r in reads]
        hbody = copy.deepcopy(part)
        if writes:
            rv = name(writes[0]) if len(writes) == 1 else ast.Tuple(elts=[name(w) for w in writes], ctx=ast.Load())
            hbody.append(ast.Return(value=rv))
        helper = ast.FunctionDef(name=hname, args=ast.arguments(posonlyargs=[], args=hargs, vararg=None,
                                                                kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                                defaults=[]),
                                 body=hbody, decorator_list=[jit_decorator_copy(fn)], returns=None,
                                 type_comment=None, lineno=0)
        callx = ast.Call(func=name(hname), args=[name(r) for r in reads], keywords=[])
        if not writes:
            new = ast.Expr(value=callx)
        elif len(writes) == 1:
            new = assign(writes[0], callx)
        else:
            new = ast.Assign(targets=[ast.Tuple(elts=[name(w, True) for w in writes], ctx=ast.Store())],
                             value=callx, lineno=0)
        body[i0:i1] = [new]
        k = m.tree.body.index(fn)
        m.tree.body.insert(k, helper)
        done = True
    if not done:
        raise NotApplicable("no kernel has a loop or a load to move into a helper")


def t_helper_inline(m):
    """Calls of a @triton.jit helper (as a statement, or assigned to names) replaced by its body, its
    locals renamed; the helper removed when nothing calls it any more."""
    helpers = {f.name: f for f in m.helpers()}
    done = False
    for hname, h in helpers.items():
        rets = [n for n in ast.walk(h) if isinstance(n, ast.Return)]
        if rets and (len(rets) != 1 or h.body[-1] is not rets[0]):
            continue
        if h.args.vararg or h.args.kwarg or h.args.kwonlyargs or h.args.posonlyargs:
            continue
        if any(isinstance(n, (ast.FunctionDef, ast.Lambda, ast.Global, ast.Nonlocal)) for n in ast.walk(h)
               if n is not h):
            continue
        params = [a.arg for a in h.args.args]
        defaults = dict(zip(params[len(params) - len(h.args.defaults):], h.args.defaults))
        hstored = stored_all(h.body)
        hfree = loaded_all(h.body) - hstored - set(params)
        for caller in list(m.jit.values()):
            if caller is h:
                continue
            progress = True
            while progress:
                progress = False
                for b in blocks(caller):
                    for k, st in enumerate(b):
                        if isinstance(st, ast.Expr):
                            c, targets = st.value, None
                        elif isinstance(st, ast.Assign) and len(st.targets) == 1:
                            c, targets = st.value, st.targets[0]
                        else:
                            continue
                        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == hname):
                            continue
                        if any(isinstance(a, ast.Starred) for a in c.args) or any(kw.arg is None for kw in c.keywords):
                            continue
                        if hfree & stored(caller):
                            continue
                        if targets is not None and not (rets and (isinstance(targets, ast.Name) or (
                                isinstance(targets, ast.Tuple) and all(isinstance(e, ast.Name) for e in targets.elts)))):
                            continue
                        argmap = dict(zip(params, c.args))
                        argmap.update({kw.arg: kw.value for kw in c.keywords})
                        if any(p not in argmap and p not in defaults for p in params):
                            continue
                        for p in params:
                            argmap.setdefault(p, defaults.get(p))
                        pre, values, ren = [], {}, {}
                        for p in params:
                            a = argmap[p]
                            if isinstance(a, (ast.Name, ast.Constant)) and p not in hstored:
                                values[p] = a
                            else:
                                nm = m.fresh(f"{p}_{hname.strip('_')}")
                                pre.append(assign(nm, copy.deepcopy(a)))
                                ren[p] = nm
                        for s in sorted(hstored - set(params)):
                            ren[s] = m.fresh(f"{s}_{hname.strip('_')}")
                        newbody = copy.deepcopy(h.body)
                        ret = None
                        if rets:
                            ret = newbody.pop().value
                        mod = ast.Module(body=newbody + ([ast.Expr(value=ret)] if ret is not None else []),
                                         type_ignores=[])
                        rename_names(mod, ren)
                        replace_names(mod, values)
                        newbody = mod.body
                        if ret is not None:
                            ret = newbody.pop().value
                        tail = []
                        if targets is not None:
                            tail = [ast.Assign(targets=[targets], value=ret, lineno=0)]
                        b[k:k + 1] = pre + newbody + tail
                        done = progress = True
                        break
                    if progress:
                        break
        if not any(isinstance(n, ast.Name) and n.id == hname for n in ast.walk(m.tree)):
            m.tree.body.remove(h)
    if not done:
        raise NotApplicable("no @triton.jit helper called as a statement or assigned to names")


def jit_nodes(m):
    for fn in m.jit.values():
        yield from ast.walk(fn)


def t_mask_swap(m):
    """Every `a & b` of the kernels written `b & a` (masks combined in the other order)."""
    done = False
    for n in list(jit_nodes(m)):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitAnd):
            n.left, n.right = n.right, n.left
            done = True
    if not done:
        raise NotApplicable("no `&` in a kernel")


def mem_calls(m, node):
    """tl.load / tl.store calls under node."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and dotted(n.func) in (f"{m.tl}.load", f"{m.tl}.store"):
            yield n


def mask_of(call):
    for kw in call.keywords:
        if kw.arg == "mask":
            return kw
    return None


def target_name(st, call, m):
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id
    ptr = call.args[0] if call.args else None
    if ptr is not None:
        for n in ordered_names(ptr, ast.Load):
            return n.replace("_ptrs", "").replace("_ptr", "")
    return "store"


def mask_bind(m, parts):
    done = False
    for fn in m.jit.values():
        for b in list(blocks(fn)):
            k = 0
            bound = []  # (dump, name, free names) of masks bound earlier in this block
            while k < len(b):
                st = b[k]
                if not isinstance(st, (ast.Assign, ast.AugAssign, ast.Expr)):
                    # a statement with its own block: what it stores ends what was bound
                    s = stored(st)
                    bound = [x for x in bound if not (x[2] & s) and x[1] not in s]
                    k += 1
                    continue
                new = []
                for call in mem_calls(m, st):
                    kw = mask_of(call)
                    if kw is None or isinstance(kw.value, ast.Name):
                        continue
                    if not kernel_pure(kw.value, m.tl):
                        continue
                    if parts:
                        ops = []

                        def flat(e):
                            if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitAnd):
                                flat(e.left)
                                flat(e.right)
                            else:
                                ops.append(e)

                        flat(kw.value)
                        if len(ops) < 2:
                            continue
                    else:
                        ops = [kw.value]
                    names = []
                    for e in ops:
                        if isinstance(e, ast.Name):
                            names.append(e.id)
                            continue
                        hit = [x for x in bound if x[0] == dump(e)]
                        if hit:
                            names.append(hit[-1][1])
                            continue
                        if parts:
                            base = next(iter(ordered_names(e, ast.Load)), "cond")
                            nm = m.fresh(f"{base}_mask")
                        else:
                            nm = m.fresh(f"{target_name(st, call, m)}_mask")
                        new.append(assign(nm, e))
                        bound.append((dump(e), nm, loaded(e)))
                        names.append(nm)
                    v = name(names[0])
                    for nm in names[1:]:
                        v = ast.BinOp(left=v, op=ast.BitAnd(), right=name(nm))
                    kw.value = v
                    done = True
                if parts:
                    # a tl.where reading a bound mask reads the name
                    for n in ast.walk(st):
                        if isinstance(n, ast.Call) and dotted(n.func) == f"{m.tl}.where" and n.args:
                            hit = [x for x in bound if x[0] == dump(n.args[0])]
                            if hit:
                                n.args[0] = name(hit[-1][1])
                b[k:k] = new
                k += len(new)
                s = stored(st)
                bound = [x for x in bound if not (x[2] & s) and x[1] not in s]
                k += 1
    return done


def t_mask_bind(m):
    """Every mask written in a tl.load/tl.store bound to a name first, one name for one mask in a block."""
    if not mask_bind(m, False):
        raise NotApplicable("no load or store with a mask written in place")


def t_mask_bind_parts(m):
    """Each operand of a combined mask bound to its own name (`row_mask = ...; col_mask = ...;
    mask=row_mask & col_mask`), a tl.where reading the same condition reading the name."""
    if not mask_bind(m, True):
        raise NotApplicable("no load or store with a mask combined by & in place")


def t_mask_inline(m):
    """A mask bound to a name written where it is read instead (in the loads, stores and tl.where)."""
    done = False
    for fn in m.jit.values():
        progress = True
        while progress:
            progress = False
            masks = set()
            for call in mem_calls(m, fn):
                kw = mask_of(call)
                if kw is not None and isinstance(kw.value, ast.Name):
                    masks.add(kw.value.id)
            for n in ast.walk(fn):
                if (isinstance(n, ast.Call) and dotted(n.func) == f"{m.tl}.where" and n.args
                        and isinstance(n.args[0], ast.Name)):
                    masks.add(n.args[0].id)
            params = {a.arg for a in fn.args.args}
            for b in blocks(fn):
                for i, st in enumerate(b):
                    if not (isinstance(st, ast.Assign) and len(st.targets) == 1
                            and isinstance(st.targets[0], ast.Name) and st.targets[0].id in masks):
                        continue
                    nm = st.targets[0].id
                    if nm in params or not kernel_pure(st.value, m.tl) or nm in loaded(st.value):
                        continue
                    # the uses this definition reaches: the statements after it, to the next definition
                    j = i + 1
                    while j < len(b) and nm not in stored(b[j]):
                        j += 1
                    region = b[i + 1:j]
                    if j < len(b) and nm in loaded(b[j]):
                        continue
                    uses = [n for s in region for n in ast.walk(s)
                            if isinstance(n, ast.Name) and n.id == nm and isinstance(n.ctx, ast.Load)]
                    inside = {id(u) for u in uses}
                    # the name's other uses are reached by another definition, never by this one
                    if not uses or any(reaching_def(fn, u, nm) in (st, None) for u in ast.walk(fn)
                                       if isinstance(u, ast.Name) and u.id == nm
                                       and isinstance(u.ctx, ast.Load) and id(u) not in inside):
                        continue
                    last = max(k for k in range(len(region)) if nm in loaded(region[k]))
                    if loaded(st.value) & stored_all(region[:last + 1]):
                        continue
                    if any(isinstance(s, (ast.For, ast.While)) for s in region[:last + 1]
                           if nm in loaded(s) and (loaded(st.value) & stored(s))):
                        continue
                    substitute(ast.Module(body=region, type_ignores=[]),
                               {id(u): copy.deepcopy(st.value) for u in uses})
                    del b[i]
                    done = progress = True
                    break
                if progress:
                    break
    if not done:
        raise NotApplicable("no mask bound to a name in a kernel")


def reaching_def(fn, use, nm):
    """The one simple assignment of nm that reaches use, or None when it is not one statement (a
    definition inside a compound statement, a loop body that defines nm after use, none at all)."""
    idx = stmt_index(fn)
    node = use
    while id(node) in idx:
        b, i = idx[id(node)]
        for s in reversed(b[:i]):
            if nm in stored(s):
                if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                        and s.targets[0].id == nm):
                    return s
                return None
        owner = b[i]
        # the statement holding this block: a loop body may see its own later definitions
        if id(owner) in idx:
            ob, oi = idx[id(owner)]
            parent = ob[oi]
        else:
            parent = fn
        if isinstance(parent, (ast.For, ast.While)) and b is parent.body and nm in stored_all(b[i:]):
            return None
        if parent is fn:
            return None
        node = parent
    return None


def range_call(m, it):
    """(lo, hi, step) of `range(...)` / `tl.range(...)` with positional arguments, else None."""
    if not isinstance(it, ast.Call) or dotted(it.func) not in ("range", f"{m.tl}.range"):
        return None
    a = it.args
    if any(isinstance(x, ast.Starred) for x in a) or not 1 <= len(a) <= 3:
        return None
    if len(a) == 1:
        return const(0), a[0], const(1)
    if len(a) == 2:
        return a[0], a[1], const(1)
    return a[0], a[1], a[2]


class NotAffine(Exception):
    pass


def affine(m, e, i, lo, defs, scalars):
    """(e at i = lo, d e / d i) for e affine in the loop index i, defs the loop's earlier definitions;
    the derivative is None when e does not depend on i, and is made of constants and scalars only."""
    if isinstance(e, ast.Name):
        if e.id == i:
            return copy.deepcopy(lo), const(1)
        if e.id in defs:
            return affine(m, defs[e.id], i, lo, defs, scalars)
        return copy.deepcopy(e), None
    if isinstance(e, ast.Constant):
        return copy.deepcopy(e), None
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult)):
        a0, da = affine(m, e.left, i, lo, defs, scalars)
        b0, db = affine(m, e.right, i, lo, defs, scalars)
        e0 = ast.BinOp(left=a0, op=type(e.op)(), right=b0)
        if isinstance(e.op, ast.Mult):
            if da is not None and db is not None:
                raise NotAffine("product of two terms in the index")
            if da is None and db is None:
                return e0, None
            if da is not None:
                coef, other = da, b0
            else:
                coef, other = db, a0
            if not loaded(other) <= scalars:
                raise NotAffine("index scaled by a tensor")
            return e0, ast.BinOp(left=coef, op=ast.Mult(), right=copy.deepcopy(other))
        if da is None and db is None:
            return e0, None
        if db is None:
            return e0, da
        if da is None:
            return e0, db if isinstance(e.op, ast.Add) else ast.UnaryOp(op=ast.USub(), operand=db)
        return e0, ast.BinOp(left=da, op=type(e.op)(), right=db)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        a0, da = affine(m, e.operand, i, lo, defs, scalars)
        if da is None or isinstance(e.op, ast.UAdd):
            return ast.UnaryOp(op=type(e.op)(), operand=a0), da
        return ast.UnaryOp(op=ast.USub(), operand=a0), ast.UnaryOp(op=ast.USub(), operand=da)
    if isinstance(e, ast.Subscript):
        v0, dv = affine(m, e.value, i, lo, defs, scalars)
        if depends(e.slice, i, defs):
            raise NotAffine("index in a subscript")
        return ast.Subscript(value=v0, slice=copy.deepcopy(e.slice), ctx=ast.Load()), dv
    if isinstance(e, ast.Call):
        d = dotted(e.func)
        if d in (f"{m.tl}.multiple_of", f"{m.tl}.max_contiguous") and e.args:
            return affine(m, e.args[0], i, lo, defs, scalars)
        if d == f"{m.tl}.expand_dims" and e.args:
            x0, dx = affine(m, e.args[0], i, lo, defs, scalars)
            if any(depends(x, i, defs) for x in e.args[1:]) or any(depends(k.value, i, defs) for k in e.keywords):
                raise NotAffine("index in expand_dims' axis")
            return ast.Call(func=copy.deepcopy(e.func), args=[x0] + copy.deepcopy(e.args[1:]),
                            keywords=copy.deepcopy(e.keywords)), dx
        if isinstance(e.func, ast.Attribute) and e.func.attr == "to":
            x0, dx = affine(m, e.func.value, i, lo, defs, scalars)
            if any(depends(x, i, defs) for x in e.args):
                raise NotAffine("index in a cast")
            return ast.Call(func=ast.Attribute(value=x0, attr="to", ctx=ast.Load()), args=copy.deepcopy(e.args),
                            keywords=copy.deepcopy(e.keywords)), dx
    if depends(e, i, defs):
        raise NotAffine("index under " + type(e).__name__)
    return expand(e, defs), None


def expand(e, defs):
    """e with the loop's earlier definitions written in place (recursively)."""
    e = copy.deepcopy(e)
    for _ in range(20):
        names = loaded(e) & set(defs)
        if not names:
            return e
        e = replace_names(e, {n: defs[n] for n in names})
    raise NotAffine("definitions too deep")


def depends(e, i, defs, seen=None):
    names = loaded(e)
    if i in names:
        return True
    seen = seen or set()
    for n in names & set(defs):
        if n not in seen:
            seen.add(n)
            if depends(defs[n], i, defs, seen):
                return True
    return False


def pointer_arg(call):
    if call.args:
        return call.args, 0
    for kw in call.keywords:
        if kw.arg == "pointer":
            return kw, None
    return None


def t_ptr_advance(m):
    """Pointers computed from the loop index in a loop's loads and stores (`a + (k0 + offs) * s`) made
    loop-carried instead: computed once before the loop and advanced at the end of each pass
    (`a_ptrs += BLOCK_K * s`)."""
    done = False
    for fn in m.jit.values():
        scalars = {a.arg for a in fn.args.args}
        for loop in [n for n in ast.walk(fn) if isinstance(n, ast.For)]:
            rc = range_call(m, loop.iter)
            if rc is None or not isinstance(loop.target, ast.Name) or loop.orelse:
                continue
            if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(loop)):
                continue
            lo, hi, step = rc
            i = loop.target.id
            body = loop.body
            # the loop index may be rebound to itself under a hint (tl.multiple_of), nothing else
            ok = True
            for k, st in enumerate(body):
                if i in stored(st):
                    if not (k == 0 and isinstance(st, ast.Assign) and len(st.targets) == 1
                            and isinstance(st.targets[0], ast.Name) and st.targets[0].id == i
                            and isinstance(st.value, ast.Call)
                            and dotted(st.value.func) in (f"{m.tl}.multiple_of", f"{m.tl}.max_contiguous")
                            and st.value.args and isinstance(st.value.args[0], ast.Name)
                            and st.value.args[0].id == i):
                        ok = False
            if not ok:
                continue
            loop_stored = stored_all(body)
            nested = set()
            for st in body:
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                    nested |= stored(st)
            top_count = {}
            for st in body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                    top_count[st.targets[0].id] = top_count.get(st.targets[0].id, 0) + 1
            after = set()
            fidx = stmt_index(fn)
            # names read after the loop in the enclosing blocks: a hoisted named pointer must not be one
            for b in blocks(fn):
                if loop in b:
                    after |= loaded_all(b[b.index(loop) + 1:])
            pointers = {}  # dump of the expanded pointer -> (name, p0, inc)
            order = []
            defs = {}
            removed = []
            for k, st in enumerate(body):
                for call in list(mem_calls(m, st)):
                    pa = pointer_arg(call)
                    if pa is None or pa[1] is None:
                        continue
                    p = call.args[0]
                    named = None
                    if isinstance(p, ast.Name):
                        if p.id not in defs or top_count.get(p.id) != 1 or p.id in nested:
                            continue
                        named = p.id
                        expr = defs[p.id]
                    else:
                        expr = p
                    if not depends(expr, i, defs):
                        continue
                    try:
                        # names the loop changes, other than by its earlier definitions, are not ours to read
                        free = loaded(expand(expr, defs))
                        if i in free:
                            free.discard(i)
                        if free & (loop_stored - set()):
                            raise NotAffine("reads a name the loop changes")
                        p0, d = affine(m, expr, i, lo, defs, scalars)
                    except NotAffine:
                        continue
                    if d is None or (loaded(d) - scalars):
                        continue
                    if loaded(p0) & loop_stored:
                        continue
                    if named is not None:
                        ndefs = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == named
                                 and isinstance(n.ctx, ast.Store)]
                        if len(ndefs) != 1 or named in after:
                            continue
                    key = dump(expand(expr, defs))
                    if key not in pointers:
                        pname = named or m.fresh(f"{target_name(st, call, m)}_ptrs")
                        inc = ast.BinOp(left=copy.deepcopy(step), op=ast.Mult(), right=d)
                        pointers[key] = (pname, simplify(simplify(p0, scalars), scalars), simplify(inc, scalars))
                        order.append(key)
                        if named is not None:
                            removed.append(named)
                    if named is None:
                        call.args[0] = name(pointers[key][0])
                if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                    defs[st.targets[0].id] = st.value
            if not order:
                continue
            loop.body = [s for s in body if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                                                 and isinstance(s.targets[0], ast.Name)
                                                 and s.targets[0].id in removed)]
            pre = [assign(pointers[key][0], pointers[key][1]) for key in order]
            loop.body += [ast.AugAssign(target=name(pointers[key][0], True), op=ast.Add(), value=pointers[key][2])
                          for key in order]
            insert_before(fn, loop, pre)
            done = True
    if not done:
        raise NotApplicable("no load or store in a loop at an address affine in the loop index")


def t_ptr_index(m):
    """Pointers advanced at the end of each pass (`a_ptrs += BLOCK_K * s`) indexed from the loop index
    instead (`tl.load(a_ptrs + k0 * s)`), the advance removed."""
    done = False
    for fn in m.jit.values():
        for loop in [n for n in ast.walk(fn) if isinstance(n, ast.For)]:
            rc = range_call(m, loop.iter)
            if rc is None or not isinstance(loop.target, ast.Name) or loop.orelse:
                continue
            if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(loop)):
                continue
            lo, hi, step = rc
            i = loop.target.id
            if any(i in stored(s) for s in loop.body):
                continue
            after = set()
            for b in blocks(fn):
                if loop in b:
                    after |= loaded_all(b[b.index(loop) + 1:])
            adv = []
            for k, st in enumerate(loop.body):
                p = inc = None
                if isinstance(st, ast.AugAssign) and isinstance(st.op, ast.Add) and isinstance(st.target, ast.Name):
                    p, inc = st.target.id, st.value
                elif (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                      and isinstance(st.value, ast.BinOp) and isinstance(st.value.op, ast.Add)
                      and isinstance(st.value.left, ast.Name) and st.value.left.id == st.targets[0].id):
                    p, inc = st.targets[0].id, st.value.right
                if p is None:
                    continue
                others = [s for s in loop.body if s is not st]
                if p in stored_all(others) or p in after or p in loaded(inc):
                    continue
                if loaded(inc) & stored_all(loop.body) or i in loaded(inc):
                    continue
                # every read of p in the loop comes before its advance
                if any(p in loaded(s) for s in loop.body[k + 1:]):
                    continue
                # a pointer advanced must hold values, not be a fresh name the loop defines
                adv.append((k, st, p, inc))
            if not adv:
                continue
            for k, st, p, inc in adv:
                # the pass number times the advance
                if is_const(lo, 0):
                    span = name(i)
                else:
                    span = ast.BinOp(left=name(i), op=ast.Sub(), right=copy.deepcopy(lo))
                if (isinstance(inc, ast.BinOp) and isinstance(inc.op, ast.Mult)
                        and (same(inc.left, step) or same(inc.right, step))):
                    other = inc.right if same(inc.left, step) else inc.left
                    off = ast.BinOp(left=span, op=ast.Mult(), right=copy.deepcopy(other))
                elif same(inc, step):
                    off = span
                elif is_const(step, 1):
                    off = ast.BinOp(left=span, op=ast.Mult(), right=copy.deepcopy(inc))
                else:
                    off = ast.BinOp(left=ast.BinOp(left=span, op=ast.FloorDiv(), right=copy.deepcopy(step)),
                                    op=ast.Mult(), right=copy.deepcopy(inc))
                ptr = ast.BinOp(left=name(p), op=ast.Add(), right=off)
                for s in loop.body[:k]:
                    for n in list(ast.walk(s)):
                        for f, v in ast.iter_fields(n):
                            if isinstance(v, ast.Name) and v.id == p and isinstance(v.ctx, ast.Load):
                                setattr(n, f, copy.deepcopy(ptr))
                            elif isinstance(v, list):
                                for j, x in enumerate(v):
                                    if isinstance(x, ast.Name) and x.id == p and isinstance(x.ctx, ast.Load):
                                        v[j] = copy.deepcopy(ptr)
            loop.body = [s for s in loop.body if all(s is not a[1] for a in adv)]
            if not loop.body:
                loop.body = [ast.Pass()]
            done = True
    if not done:
        raise NotApplicable("no pointer advanced at the end of a loop's pass")


def t_tl_range(m):
    """`for ... in range(...)` of the kernels written `tl.range(...)`."""
    done = False
    for n in jit_nodes(m):
        if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and dotted(n.iter.func) == "range":
            n.iter.func = ast.Attribute(value=name(m.tl), attr="range", ctx=ast.Load())
            done = True
    if not done:
        raise NotApplicable("no `range` loop in a kernel")


def t_py_range(m):
    """`for ... in tl.range(...)` without options written `range(...)`."""
    done = False
    for n in jit_nodes(m):
        if (isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and dotted(n.iter.func) == f"{m.tl}.range"
                and not n.iter.keywords):
            n.iter.func = name("range")
            done = True
    if not done:
        raise NotApplicable("no `tl.range` loop without options in a kernel")


def t_reformat(m):
    """The whole file through ast.unparse: comments dropped, quotes, parentheses and line breaks normalised."""
    m.whole = True


def t_combined(m):
    """Several at once, the first of each pair that applies: tiles renamed, launch by position or by
    keyword, grid dimensions bound, the grid a lambda, masks bound by parts or inlined, pointers
    advanced or indexed, the main loop in a helper or a helper inlined, tl.range or range."""
    applied = []
    for alts in (("rename-tiles",), ("launch-positional", "launch-keyword"), ("bind-grid",), ("grid-lambda",),
                 ("splat-strides", "unsplat-strides"),
                 ("mask-bind-parts", "mask-inline"), ("ptr-advance", "ptr-index"),
                 ("helper-extract", "helper-inline"), ("tl-range", "py-range")):
        for nm in alts:
            try:
                TRANSFORMS[nm][0](m)
                applied.append(nm)
                break
            except NotApplicable:
                pass
    if len(applied) < 2:
        raise NotApplicable("fewer than two of the transforms apply")
    m.note = "+".join(applied)


TRANSFORMS = {
    "reformat": (t_reformat, "host+kernel"),
    "inline-names": (t_inline_names, "host"),
    "bind-grid": (t_bind_grid, "host"),
    "bind-args": (t_bind_args, "host"),
    "splat-strides": (t_splat_strides, "host"),
    "unsplat-strides": (t_unsplat_strides, "host"),
    "rename-tiles": (t_rename_tiles, "host+kernel"),
    "rename-constexprs": (t_rename_constexprs, "host+kernel"),
    "launch-positional": (t_launch_positional, "host"),
    "launch-keyword": (t_launch_keyword, "host"),
    "grid-lambda": (t_grid_lambda, "host"),
    "grid-def": (t_grid_def, "host"),
    "grid-inline": (t_grid_inline, "host"),
    "grid-variable": (t_grid_variable, "host"),
    "helper-extract": (t_helper_extract, "kernel"),
    "helper-inline": (t_helper_inline, "kernel"),
    "mask-swap": (t_mask_swap, "kernel"),
    "mask-bind": (t_mask_bind, "kernel"),
    "mask-bind-parts": (t_mask_bind_parts, "kernel"),
    "mask-inline": (t_mask_inline, "kernel"),
    "ptr-advance": (t_ptr_advance, "kernel"),
    "ptr-index": (t_ptr_index, "kernel"),
    "tl-range": (t_tl_range, "kernel"),
    "py-range": (t_py_range, "kernel"),
    "combined": (t_combined, "host+kernel"),
}


# ---------------------------------------------------------------- output

try:
    class _Unparser(ast._Unparser):  # Python 3.9+: keeps `kernel[(a, b)]` as written by most authors
        def visit_Subscript(self, node):
            if (isinstance(node.slice, ast.Tuple) and node.slice.elts
                    and not any(isinstance(e, (ast.Slice, ast.Starred)) for e in node.slice.elts)):
                self.set_precedence(ast._Precedence.ATOM, node.value)
                self.traverse(node.value)
                with self.delimit("[", "]"):
                    self.traverse(node.slice)
                return
            super().visit_Subscript(node)

    def _unparse(node):
        return _Unparser().visit(node)
except AttributeError:  # another Python: its own spelling
    _unparse = ast.unparse


def wrap(text, width=100):
    """Long lines broken after commas inside brackets (where Python ignores line breaks)."""
    import io
    import tokenize
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        try:
            toks = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        # cut after a comma inside brackets, never inside a subscript (`x[:, None]`)
        cuts, stack, prev = [], [], None
        for t in toks:
            if t.type == tokenize.OP and t.string in "([{":
                sub = t.string == "[" and prev is not None and (
                    prev.type in (tokenize.NAME, tokenize.STRING) or prev.string in (")", "]"))
                stack.append("sub" if sub else t.string)
            elif t.type == tokenize.OP and t.string in ")]}":
                stack.pop()
            elif t.type == tokenize.OP and t.string == "," and stack and "sub" not in stack:
                cuts.append(t.end[1])
            prev = t
        budget = width - indent - 8
        pieces, start, prev = [], 0, 0
        for c in cuts + [len(line)]:
            if c - start > budget and prev > start:
                pieces.append(line[start:prev])
                start = prev
            prev = c
        pieces.append(line[start:])
        first = pieces[0]
        rest = [" " * (indent + 8) + p.strip() for p in pieces[1:]]
        out.append("\n".join([first.rstrip()] + rest))
    return "\n".join(out)


def unparse(node):
    return wrap(_unparse(node))


def emit(src, orig, new):
    """The new module's text: top-level statements equal to the original's keep their text (and the
    comments above them); the others are unparsed, after the comments of the statement they replace."""
    lines = src.splitlines(keepends=True)
    segs = []  # (leading text, statement text)
    prev = 0
    for st in orig.body:
        first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])]) - 1
        segs.append(("".join(lines[prev:first]), "".join(lines[first:st.end_lineno])))
        prev = st.end_lineno
    tail = "".join(lines[prev:])
    a = [dump(s) for s in orig.body]
    b = [dump(s) for s in new.body]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            for k in range(i1, i2):
                out.append(segs[k][0] + segs[k][1])
            continue
        for n, j in enumerate(range(j1, j2)):
            st = new.body[j]
            if i1 + n < i2:
                lead = segs[i1 + n][0]
            else:
                lead = "\n\n" if isinstance(st, (ast.FunctionDef, ast.ClassDef)) else ""
            if out and not out[-1].endswith("\n"):
                out.append("\n")
            out.append(lead + unparse(st) + "\n")
    text = "".join(out) + tail
    return text if text.endswith("\n") else text + "\n"


def variants(src_path, outdir):
    src = open(src_path).read()
    orig = ast.parse(src)
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for tname, (fn, _) in TRANSFORMS.items():
        m = Mod(copy.deepcopy(orig))
        m.whole = False
        m.note = ""
        try:
            fn(m)
        except NotApplicable as e:
            rows.append((tname, "n/a", str(e)))
            continue
        except Exception as e:  # noqa: BLE001 - a transform that fails on a file is reported, not fatal
            rows.append((tname, "n/a", f"the transform failed: {type(e).__name__}: {e}"))
            continue
        ast.fix_missing_locations(m.tree)
        text = unparse(m.tree) + "\n" if m.whole else emit(src, orig, m.tree)
        try:
            tree = ast.parse(text)
            compile(text, tname, "exec")
        except SyntaxError as e:
            rows.append((tname, "n/a", f"the variant does not parse: {e}"))
            continue
        if dump(tree) == dump(orig) and not m.whole:
            rows.append((tname, "n/a", "nothing changed"))
            continue
        if m.whole and text == src:
            rows.append((tname, "n/a", "nothing changed"))
            continue
        out = os.path.join(outdir, tname + ".py")
        with open(out, "w") as f:
            f.write(text)
        rows.append((tname, "ok", os.path.basename(out) + (f" ({m.note})" if m.note else "")))
    with open(os.path.join(outdir, "variants.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    return rows


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        for tname, (fn, where) in TRANSFORMS.items():
            doc = " ".join((fn.__doc__ or "").split())
            print(f"{tname}\t{where}\t{doc}")
        return 0
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    rows = variants(argv[1], argv[2])
    n = sum(1 for r in rows if r[1] == "ok")
    print(f"{argv[1]}: {n} variants in {argv[2]}")
    for r in rows:
        if r[1] != "ok":
            print(f"  {r[0]}: not applicable: {r[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
