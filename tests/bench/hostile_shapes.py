#!/usr/bin/env python3
"""Writes one hostile shape of Triton file at a given size (issue 31): the
shapes that once made --check quadratic or worse, and those tests/robust/
already had. tests/bench/growth.sh doubles each; tests/robust/growth.sh
checks that none grows faster than n log n.

    hostile_shapes.py list                 the shape names, one a line
    hostile_shapes.py SHAPE N [OUT]        the file of size N (stdout when no OUT)
    hostile_shapes.py base SHAPE           the size growth.sh starts from
"""
import sys

HEAD = "import torch\nimport triton\nimport triton.language as tl\n\n"
SMALL_KERNEL = "@triton.jit\ndef k%d(x):\n    tl.store(x, 1)\n\n"
KERNEL = ("@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
          "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
          "    tl.store(x_ptr + offs, 1.0, mask=offs < n)\n\n")


def kernels(n):
    """n small kernels, each launched once from one host function (about
    80 bytes a kernel: 5,000 are 400 KB)."""
    out = [HEAD] + [SMALL_KERNEL % i for i in range(n)] + ["def run(x):\n"]
    out += ["    k%d[(1,)](x)\n" % i for i in range(n)]
    return out


def kernels_block(n):
    """n kernels with loads, masks and a constexpr tile, each launched once
    from one host function with a fixed BLOCK."""
    body = ("@triton.jit\ndef k%d(x_ptr, n, BLOCK: tl.constexpr):\n"
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n\n")
    out = [HEAD] + [body % i for i in range(n)] + ["def run(x):\n"]
    out += ["    k%d[(1,)](x, x.numel(), BLOCK=128)\n" % i for i in range(n)]
    return out


def launches(n):
    """n launches of one kernel in one host function (50,000 are 2.2 MB)."""
    return [HEAD, KERNEL, "def run(x):\n"] + \
        ["    k[(triton.cdiv(x.numel(), 128),)](x, x.numel(), BLOCK=128)\n"] * n


def configs(n):
    """one autotuned kernel with n literal triton.Config, all alike (30,000
    are 1.3 MB): each config was compared with every other."""
    out = [HEAD, "@triton.autotune(configs=[\n"]
    out += ["    triton.Config({'BLOCK': 64}, num_warps=4, num_stages=2),\n"] * n
    out += ["], key=['n'])\n", KERNEL, "def run(x):\n    k[(1,)](x, x.numel())\n"]
    return out


def config_names(n):
    """one autotuned kernel whose n configs each set a name of their own."""
    out = [HEAD, "@triton.autotune(configs=[\n"]
    out += ["    triton.Config({'BLOCK': 64, 'P%d': 1}, num_warps=4),\n" % i for i in range(n)]
    out += ["], key=['n'])\n", KERNEL, "def run(x):\n    k[(1,)](x, x.numel())\n"]
    return out


def ifs(n):
    """a host function with n ifs in a row before its launch (D3 walked the
    paths through them: 2^n)."""
    out = [HEAD, KERNEL, "def run(x, a):\n    y = torch.empty_like(x)\n"]
    out += ["    if a == %d:\n        z%d = torch.empty_like(x)\n" % (i, i) for i in range(n)]
    out += ["    k[(1,)](x, x.numel(), BLOCK=128)\n"]
    return out


def nested_ifs(n):
    """a host function with ifs nested n deep (one space of indent a level)."""
    out = [HEAD, KERNEL, "def run(x, a):\n"]
    for i in range(n):
        out.append(" " * (i + 1) + "if a > %d:\n" % i)
    out.append(" " * (n + 1) + "k[(1,)](x, x.numel(), BLOCK=128)\n")
    return out


def statements(n):
    """one kernel of n statements, each a load and a store."""
    out = [HEAD, "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n",
           "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"]
    out += ["    v%d = tl.load(x_ptr + offs + %d, mask=offs < n)\n    tl.store(x_ptr + offs, v%d)\n"
            % (i, i, i) for i in range(n)]
    out += ["\ndef run(x):\n    k[(1,)](x, x.numel(), BLOCK=128)\n"]
    return out


def loops(n):
    """one kernel with n loops in a row, each loading and accumulating."""
    out = [HEAD, "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n",
           "    offs = tl.arange(0, BLOCK)\n    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n"]
    out += ["    for i%d in range(0, n, BLOCK):\n        acc += tl.load(x_ptr + i%d + offs, mask=i%d + offs < n)\n"
            % (i, i, i) for i in range(n)]
    out += ["    tl.store(x_ptr + offs, acc)\n\ndef run(x):\n    k[(1,)](x, x.numel(), BLOCK=128)\n"]
    return out


def params(n):
    """one kernel of n parameters, launched once with n arguments."""
    names = ["p%d" % i for i in range(n)]
    out = [HEAD, "@triton.jit\ndef k(x_ptr, %s, BLOCK: tl.constexpr):\n" % ", ".join(names),
           "    tl.store(x_ptr + tl.arange(0, BLOCK), %s)\n\n" % " + ".join(names[:50]),
           "def run(x):\n    k[(1,)](x, %s, BLOCK=128)\n" % ", ".join("%d" % i for i in range(n))]
    return out


def many(n):
    """n small kernels each with a host function of its own and a module
    launch (tests/bench/hostile.sh's 10,000-kernel file)."""
    out = [HEAD]
    for i in range(n):
        out.append(
            "@triton.jit\ndef k%d(x_ptr, n, BLOCK: tl.constexpr):\n"
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            "    for i in range(4):\n"
            "        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n\n"
            "def run%d(x):\n    grid = lambda meta: (triton.cdiv(x.numel(), meta['BLOCK']),)\n"
            "    k%d[grid](x, x.numel(), BLOCK=128)\n\n"
            "grid = (%d,)\nk%d[grid](None, 0, BLOCK=64)\n\n" % (i, i, i, i + 1, i))
    return out


def module_names(n):
    """n module-level assignments, then a kernel and its launch reading the last."""
    out = [HEAD] + ["C%d = %d\n" % (i, i) for i in range(n)]
    out += [KERNEL, "def run(x):\n    k[(1,)](x, C%d, BLOCK=128)\n" % (n - 1)]
    return out


def chain(n):
    """y = x+x+...: one expression of n terms in a kernel (tests/robust/long_chain.sh)."""
    return [HEAD, "@triton.jit\ndef k(x_ptr):\n    x = tl.load(x_ptr)\n    y = ",
            "+".join(["x"] * n), "\n    tl.store(x_ptr, y)\n\nk[(1,)](None)\n"]


def parens(n):
    """n nested parentheses around an arange (tests/unit/test_model.c)."""
    return [HEAD, "@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    offs = ", "(" * n,
            "tl.arange(0, BLOCK)", ")" * n, "\n    tl.store(x_ptr + offs, 1.0)\n\nk[(1,)](None, BLOCK=16)\n"]


def suppressions(n):
    """n kernels, each with three suppression comments (one silencing, two not:
    X1's question) and the findings they name."""
    body = ("@triton.jit\ndef k%d(x, BLOCK: tl.constexpr):  # tileadvise: ignore[S8]\n"
            "    r = tl.arange(0, BLOCK)\n"
            "    for j in range(4):\n"
            "        c = tl.expand_dims(r, 1)  # tileadvise: ignore[D4]\n"
            "    # tileadvise: ignore-next-line[P1, ZZ9]\n"
            "    tl.store(x + r, r)\n\n")
    return [HEAD] + [body % i for i in range(n)]


def loop_masks(n):
    """one loop of n masked loads whose mask is the loop variable against its
    stop, and n against a range's own width (D11 asked each mask about every
    loop and every assignment of the kernel)."""
    out = [HEAD, "@triton.jit\ndef k(x_ptr, n, T: tl.constexpr, BLOCK: tl.constexpr):\n",
           "    offs = tl.arange(0, BLOCK)\n    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n",
           "    for i in range(T):\n"]
    out += ["        acc += tl.load(x_ptr + i * %d, mask=i < T)\n"
            "        acc += tl.load(x_ptr + offs + %d, mask=offs < BLOCK)\n" % (i, i) for i in range(n)]
    out += ["    tl.store(x_ptr + offs, acc)\n\ndef run(x):\n    k[(1,)](x, x.numel(), T=4, BLOCK=128)\n"]
    return out


def wrappers(n):
    """n wrappers, each making scratch (some only when a gradient is None)
    and calling one launcher (D3 through the file's own functions)."""
    out = [HEAD, KERNEL, "def launch(x):\n    k[(1,)](x, x.numel(), BLOCK=128)\n\n"]
    out += ["def w%d(x, g):\n    need = g is not None\n    a = torch.empty_like(x)\n"
            "    b = torch.empty_like(x) if need else torch.zeros_like(x)\n    c = torch.empty_like(x)\n"
            "    launch(a)\n    return x\n\n" % i for i in range(n)]
    return out


def reloads(n):
    """one autotuned loop of n scalar loads that bind the same name, each
    under a flag test placed before the update in one mode and after it in
    the other (P6 asked each load whether its name reaches an address by
    reading every assignment of the kernel; S8 looks for each test's twin)."""
    out = [HEAD, "@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (2, 4)], key=['n'])\n",
           "@triton.jit\ndef k(x_ptr, n, F: tl.constexpr):\n    a = tl.load(x_ptr)\n    for i in range(n):\n"]
    out += ["        if not F:\n            a = tl.load(x_ptr + %d + i)\n"
            "        if F:\n            a = tl.load(x_ptr + %d + i)\n" % (j, j) for j in range(n)]
    out += ["    tl.store(x_ptr, a)\n\ndef run(x, f):\n    k[(1,)](x, x.numel(), F=f)\n"]
    return out


SHAPES = [kernels, kernels_block, launches, configs, config_names, ifs, nested_ifs,
          statements, loops, params, many, module_names, chain, parens, suppressions,
          loop_masks, wrappers, reloads]
# The size each starts from in growth.sh (about 0.05-0.2 s of --check;
# statements, loops and loop_masks more: below 4,000, 2,000 and 4,000 of
# them the parse hides a quadratic term, or fixed costs blur the ratio).
BASE = {"kernels": 1250, "kernels_block": 1250, "launches": 6250, "configs": 3750,
        "config_names": 2000, "ifs": 2000, "nested_ifs": 250, "statements": 8000,
        "loops": 2000, "params": 1000, "many": 500, "module_names": 5000,
        "chain": 25000, "parens": 1250, "suppressions": 2000, "loop_masks": 4000,
        "wrappers": 1000, "reloads": 1000}


def main(argv):
    by_name = {f.__name__: f for f in SHAPES}
    if len(argv) == 2 and argv[1] == "list":
        print("\n".join(f.__name__ for f in SHAPES))
        return 0
    if len(argv) == 3 and argv[1] == "base":
        print(BASE[argv[2]])
        return 0
    if len(argv) not in (3, 4) or argv[1] not in by_name:
        sys.stderr.write(__doc__)
        return 2
    text = "".join(by_name[argv[1]](int(argv[2])))
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
