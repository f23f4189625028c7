#!/bin/sh
# P1 in a folder of kernels for another back-end (FlagGems'
# runtime/backend/_cambricon, fla's backends/triton_ascend): the folder is
# the project's backend split already, and num_warps, num_stages and a CUDA
# capability mean nothing on those NPUs and MLUs, so P1 says nothing there;
# the same file in a folder for NVIDIA GPUs gets its P1. A vendor's CUDA-like
# platform folder (LightX2V's ops/rope/iluvatar_cuda) is another back-end too.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-backends-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 4
cp -R "$TA_SRCDIR/tests/fixtures/backends/." "$tmp/"
cd "$tmp" || exit 99
"$TILEADVISE" --check --preview . >out 2>err
grep -q '^\./cuda/fill\.py:15:5: warning: `fill_kernel` is launched with fixed BLOCK=1024 and no @triton.autotune' out
result $? "a folder for NVIDIA GPUs: P1" "$(cat out err)"
! grep -q '_cambricon.*\[P1' out
result $? "FlagGems' _cambricon folder: no P1" "$(grep _cambricon out)"
! grep -q 'triton_ascend.*\[P1' out
result $? "a triton_ascend folder: no P1" "$(grep triton_ascend out)"
! grep -q 'iluvatar_cuda.*\[P1' out
result $? "an iluvatar_cuda folder: no P1" "$(grep iluvatar out)"
finish
