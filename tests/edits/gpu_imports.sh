#!/bin/sh
# The GPU corpus harness's import helpers, on the development machine
# (tests/gpu/ta_lazy.py, ta_main.py, standins/): a kernel module deep in a
# package whose __init__.py files import what is not installed still imports,
# and those __init__ files run (and fail, loudly) only when a name they define
# is read; a file with relative imports runs its __main__ check as a module
# of its package; the two stand-in containers behave as their call sites
# need. Builds its own small package tree. TAP. Env: TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }
g="$TA_SRCDIR/tests/gpu"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-gpuimp-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 8
p="$tmp/proj/pkg"
mkdir -p "$p/sub"
echo 'import not_installed_anywhere' > "$p/__init__.py"
printf 'from .inner import VALUE\nTOP = 7\n' > "$p/sub/__init__.py"
echo 'VALUE = 5' > "$p/sub/inner.py"
printf 'from .inner import VALUE\nif __name__ == "__main__":\n    print("main", VALUE * 2)\n' > "$p/sub/kern.py"
run() { (cd "$tmp/proj" && PYTHONPATH="$g:$tmp/proj" "$@" 2>&1); }
out=$(run env TA_LAZY_PKGS=pkg python3 -c 'import ta_lazy; from pkg.sub import inner; import pkg.sub.kern as k; print(inner.VALUE, k.VALUE)')
[ "$out" = "5 5" ]
result $? "a module under a failing package __init__ imports with the lazy finder" "$out"
out=$(run python3 -c 'import pkg.sub.kern' | tail -1)
case $out in *not_installed_anywhere*) true ;; *) false ;; esac
result $? "without it the same import fails at the package's __init__ (the harm it removes)" "$out"
out=$(run env TA_LAZY_PKGS=pkg python3 -c 'import ta_lazy; from pkg.sub import TOP; print(TOP)
try:
    from pkg import anything
except ImportError as e:
    print("init ran:", e.name)')
[ "$out" = "7
init ran: not_installed_anywhere" ]
result $? "a name the package defines runs its real __init__ (which fails here, as it would)" "$out"
out=$(run env TA_LAZY_PKGS=pkg python3 "$g/ta_main.py" "$tmp/proj" "$p/sub/kern.py")
[ "$out" = "main 10" ]
result $? "ta_main.py runs a file with relative imports as pkg.sub.kern" "$out"
out=$(run python3 "$g/ta_main.py" "$tmp/proj" "$p/sub/kern.py" | tail -1)
case $out in *not_installed_anywhere*) true ;; *) false ;; esac
result $? "and without the lazy finder stops at the package's __init__" "$out"
out=$(PYTHONPATH="$g/standins" python3 -c '
from frozendict import frozendict
from easydict import EasyDict
a, b = frozendict(x=1, y=2), frozendict(y=2, x=1)
try:
    a["z"] = 3
    bad = "mutable"
except TypeError:
    bad = "immutable"
e = EasyDict({"n": {"m": 4}})
e.k = 1
print(hash(a) == hash(b), a == b, bad, e.n.m, e["k"], {a: 1}[b])' 2>&1)
[ "$out" = "True True immutable 4 1 1" ]
result $? "frozendict hashes by contents and refuses writes; EasyDict reads keys as attributes" "$out"
# ta_sample's reach: a kernel file the check imports and whose kernel it
# compiled, one it imports without compiling, one it never imports.
# (pytest itself is not needed for this: its hook decorator is stood in.)
printf 'class JITFunction:\n    def __init__(self):\n        self.device_caches = {0: ({}, {}, None, None, None)}\n' > "$tmp/proj/fakejit.py"
printf 'from fakejit import JITFunction\nclass Autotuner:\n    fn = JITFunction()\nkern = Autotuner()\nhelper = JITFunction()\n' > "$tmp/proj/kmod.py"
echo 'x = 1' > "$tmp/proj/other.py"
out=$(cd "$tmp/proj" && PYTHONPATH="$g:$tmp/proj" python3 -c '
import sys, types
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **k: (lambda f: f))
import ta_sample, kmod
print(ta_sample.reach("kmod.py"))
kmod.kern.fn.device_caches[0][0]["spec"] = object()
print(ta_sample.reach("kmod.py"))
print(ta_sample.reach("other.py"))' 2>&1)
[ "$out" = "(True, 2, 0)
(True, 2, 1)
(False, 0, 0)" ]
result $? "reach counts a file's kernels (under an autotuner's .fn) and which compiled" "$out"
out=$(cd "$tmp/proj" && PYTHONPATH="$g:$tmp/proj" TA_FILE="$tmp/proj/other.py" TA_PASSED="$tmp/passed" python3 -c '
import sys, types
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **k: (lambda f: f))
import ta_sample
ta_sample._passed.append("t::a")
ta_sample.pytest_sessionfinish(None, 0)' 2>&1; wc -c < "$tmp/passed" | tr -d ' ')
case $out in *"reach imported=no"*0) true ;; *) false ;; esac
result $? "a check that never imports the file leaves no passing item (its baseline fails)" "$out"
finish
