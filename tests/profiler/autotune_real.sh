#!/bin/sh
# The autotune table from a run on an H200 with Triton 3.6's own report
# (the child's output is saved in the stream as "output" records): replaying
# it gives the recorded --profile output, table included. Prints TAP
# (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
dir="$TA_SRCDIR/tests/recordings"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-autotune.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
plan 2
got=$("$TILEADVISE" --profile --gpu h200 --records "$dir/h200-2026-11-29-attention-autotune.jsonl" \
	"$TA_SRCDIR/examples/attention/attention.py" 2>&1)
printf '%s\n' "$(cat "$dir/h200-2026-11-29-attention-autotune.text")" >"$tmp/want"
printf '%s\n' "$got" >"$tmp/got"
check_diff "replay gives the recorded output" "$tmp/want" "$tmp/got"
printf '%s\n' "$got" | grep -q '^  \*  *2002 .*BLOCK_M: 64, BLOCK_N: 64, num_warps: 4, num_stages: 3$'
result $? "the chosen configuration is Triton's best config, with its launches"
finish
