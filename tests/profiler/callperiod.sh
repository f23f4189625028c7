#!/bin/sh
# The time per call next to the GPU time (issue 17 item 8) and adaptive
# tracing (issue 19), from a record stream captured on an H200
# (tests/recordings/h200-2026-12-02-callperiod-adaptive.jsonl: the attention
# example's autotuned wrapper called 200 times in a Python loop by
# tests/gpu/kernels/callperiod.py, adaptive tracing on): the --profile text
# and json, a session recorded from it, its markdown report, and an older
# session without the new fields. Prints TAP (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
rec="$TA_SRCDIR/tests/recordings/h200-2026-12-02-callperiod-adaptive.jsonl"
file="$TA_SRCDIR/examples/attention/attention.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-callperiod.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
plan 10
for fmt in text json; do
	printf '%s\n' "$(cat "${rec%.jsonl}.$fmt")" >"$tmp/want"
	printf '%s\n' "$("$TILEADVISE" --profile --gpu h200 --format "$fmt" --records "$rec" "$file" 2>&1)" >"$tmp/got.$fmt"
	check_diff "replay ($fmt) gives the recorded figures" "$tmp/want" "$tmp/got.$fmt"
done
# 799 launches of the chosen config counted by the callback, 252 of them
# timed (the first 32 or so in full, then one a millisecond); the period
# of the loop (the script's own perf_counter said 196.4 µs) next to 143 µs.
grep -q "GPU times of 252 of 799 launches (adaptive tracing" "$tmp/got.text"
result $? "the sampled launches are said, with the counted ones"
grep -q "time per call 193.7 µs (median host time from the kernel's previous launch to this one, IQR 48.1-203.5 µs, n=799): GPU 74% of it" "$tmp/got.text"
result $? "the time per call of the dominant shape, with the GPU's share of it"
grep -q "at::native::vectorized_elementwise_kernel (948," "$tmp/got.text"
result $? "other kernels' launches are the counted ones"
grep -q '"period_ns": 193663' "$tmp/got.json" && grep -q '"sampled": true' "$tmp/got.json"
result $? "json has the period and says the shape was sampled"
# A session from the stream: the report shows the time per call, and a
# step's before/after compares it too.
"$TILEADVISE" --record-session "$tmp/s.json" --gpu h200 --records "$rec" --step "S3=$rec" "$file" 2>"$tmp/err"
result $? "--record-session from the stream exits 0"
"$TILEADVISE" --report --replay "$tmp/s.json" >"$tmp/report.md" 2>&1
grep -q '^| `gemma_attn_fwd` | 1384 | 143.0 µs | 0.8 µs | 193.7 µs |' "$tmp/report.md"
result $? "the report's last measurement has the time per call"
grep -q 'time per call (host time between launches) 193.7 µs → 193.7 µs (1.000)' "$tmp/report.md"
result $? "the applied step compares the time per call"
# A session recorded before the field: it loads, its table as before.
"$TILEADVISE" --report --replay "$TA_SRCDIR/examples/attention/session.h200.json" >"$tmp/old.md" 2>&1 &&
	grep -q '^| `gemma_attn_fwd` | 392 | 1932.2 µs | 476.0 µs | 12.5% (shared memory) |' "$tmp/old.md" &&
	! grep -q "time per call" "$tmp/old.md"
result $? "an older session loads, without a time per call"
finish
