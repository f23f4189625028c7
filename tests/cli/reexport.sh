#!/bin/sh
# Triton re-exported by a project's own module (analyze/reexport.h): a file
# that imports `from proj.triton_utils import tl, triton` (or relatively,
# `from ..triton_utils import ...`) has its kernels seen when that module
# binds the names to Triton; a module that binds them to something else,
# or none found, leaves the file without Triton, and a module file that is
# not a regular file is not read (no hang). A project's own spellings of
# Triton stand for it too: `triton_jit = defer(lambda: triton.jit)` (a
# wrapper around the decorator, applied as `@triton_jit()`), `tl_arange =
# tl.arange` and `tl_constexpr = tl.constexpr` bound in a branch of the
# module (Fast-LLM's form), or plain `triton_jit = triton.jit`; the same
# wrapper around another library's jit is not Triton. A function of the
# package that applies triton.jit (`def jit_kernel(fn): return
# triton.jit(fn)`) is that decorator under any name, imported by name or
# used through its module (`@util.jit_kernel`); and a package that sets
# triton.set_allocator at import spares its kernel files G7. A config
# builder of the package handed the meta-parameters by name
# (`generate_configs({"BLOCK_D": [64, 128]})`) sets them, so S8 does not ask
# for BLOCK_D in the key; a launch value computed by the package's own
# arithmetic (`next_pow2(d)` beside D=d in the key) is one per key, and one
# computed by a function that reads a setting is not.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-reexp-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 15
cp -R "$TA_SRCDIR/tests/fixtures/reexport/." "$tmp/"
cd "$tmp" || exit 99

"$TILEADVISE" --check --preview . >out 2>err
rc=$?
grep -q '^\./proj/ops/scale\.py:16:5: warning: `scale_kernel` is launched with fixed BLOCK=1024' out
result $? "an absolute import of the package's triton_utils: the kernel is seen" "rc=$rc" "$(cat out err)"
grep -q '^\./proj/ops/shift\.py:16:5: warning: `shift_kernel`' out
result $? "a relative import (from ..triton_utils): the kernel is seen" "$(cat out)"
! grep -q 'fake' out
result $? "a module whose tl is not Triton's: nothing seen" "$(grep fake out)"
grep -q '^\./wrap/ops/fill\.py:15:5: warning: `fill_kernel` is launched with fixed BLOCK=1024' out
result $? "@triton_jit() wrapping triton.jit, tl_arange and tl_constexpr aliases: the kernel and its tile are seen" "$(cat out)"
grep -q '^\./wrap/ops/negate\.py:16:5: warning: `negate_kernel` is launched with fixed BLOCK=512' out
result $? "plain aliases through a relative import, the decorator bare: seen" "$(cat out)"
! grep -q 'not_a_kernel_either' out && "$TILEADVISE" --report other/fake2.py 2>&1 | grep -q 'fake2.py: 0 kernels'
result $? "the same wrapper around numba.jit: no kernel" "$("$TILEADVISE" --report other/fake2.py 2>&1 | head -3)"

! grep -q 'tuned_rows' out
result $? "a package's config builder handed BLOCK_D by name: the configs set it, no S8" "$(grep tuned_rows out)"
! grep -q 'pow2_rows' out
result $? "BLOCK_D=next_pow2(d), the package's arithmetic, beside D=d in the key: no S8" "$(grep pow2_rows out)"
grep -q '^\./cfgpkg/ops/norm\.py:17:63: warning: autotune key \["D"\] of `setting_rows` lacks BLOCK_D' out
result $? "BLOCK_D from a package function that reads a setting: S8" "$(grep setting_rows out)"

grep -q '^\./pkgwrap/ops/neg\.py:17:5: warning: `neg_kernel` is launched with fixed BLOCK=1024' out
result $? "@util.jit_kernel, the package's own function around triton.jit, through its module: the kernel is seen" "$(cat out)"
! grep -q 'pkgwrap/ops/copy2d' out && "$TILEADVISE" --report pkgwrap/ops/copy2d.py 2>&1 | grep -q 'copy2d.py: 1 kernel'
result $? "the wrapper imported by name, descriptors in the kernel, the allocator set by the package at import: seen, no G7" "$(grep copy2d out)"
grep -q '^\./pkgnoalloc/ops/copy2d\.py:12:10: warning: `copy2d_kernel` builds tensor descriptors.*\[G7\]' out
result $? "the same where nothing in the package sets the allocator: G7" "$(grep pkgnoalloc out)"

"$TILEADVISE" --report proj/ops/scale.py >out 2>&1
grep -q '^proj/ops/scale.py: 1 kernel, 1 launch' out
result $? "--report of the file alone sees its kernel" "$(head -3 out)"

lone=$(mktemp -d "${TMPDIR:-/tmp}/ta-reexp-lone-XXXXXX") || exit 99
cp proj/ops/scale.py "$lone/"
"$TILEADVISE" --report "$lone/scale.py" >out 2>&1
grep -q 'scale.py: 0 kernels' out
result $? "without the package's module (none in a folder above) nothing is Triton" "$(head -3 out)"
rm -rf "$lone"

mkdir -p fifo/pk/ops && cp proj/ops/scale.py fifo/pk/ops/ && sed -i 's/from proj\./from pk./' fifo/pk/ops/scale.py
if mkfifo fifo/pk/triton_utils.py 2>/dev/null; then
	timeout 20 "$TILEADVISE" --check fifo >out 2>&1
	rc=$?
	result $([ $rc -eq 0 ] && echo 0 || echo 1) "a module file that is a FIFO is not read: --check ends, nothing seen" "rc=$rc" "$(cat out)"
else
	skip "a module file that is a FIFO is not read" "mkfifo failed"
fi
finish
