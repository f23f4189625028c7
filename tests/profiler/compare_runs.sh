#!/bin/sh
# Before/after comparisons of record streams saved on an H200 while the
# attention example was edited step by step (tests/gpu/edits.sh): a step
# whose runs fall into the same phases is compared phase by phase; a step
# that changed the launch configurations and the phases is "not comparable".
# Prints TAP (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
dir="$TA_SRCDIR/tests/recordings"
# The kernel names come from the example (the edited versions add only a
# jit helper, which is never launched on its own).
file="$TA_SRCDIR/examples/attention/attention.py"
plan 5
cmp_runs() {  # cmp_runs BEFORE AFTER EXPECTED-LINE DESCRIPTION
	got=$("$TILEADVISE" --profile --gpu h200 --records "$dir/h200-2026-11-29-attention-v$2.jsonl" \
		--baseline-records "$dir/h200-2026-11-29-attention-v$1.jsonl" "$file" 2>&1 | grep '^vs baseline')
	[ "$got" = "$3" ]
	result $? "$4" "want: $3" "got:  $got"
}
cmp_runs 2 3 "vs baseline: gemma_attn_fwd 1906.8 µs -> 1908.8 µs, ratio 1.001 [0.986, 1.006]: within noise (8 phases compared in order)" \
	"S5 step: 8 phases paired, within noise"
cmp_runs 3 4 "vs baseline: gemma_attn_fwd 1908.8 µs -> 1914.6 µs, ratio 1.003 [0.986, 1.017]: within noise (8 phases compared in order)" \
	"S3 step: 8 phases paired, within noise"
# The figures are the dominant shapes' (most GPU time); the runs launched
# other sets of shapes, so they are not comparable.
cmp_runs 4 5 "vs baseline: gemma_attn_fwd 1928.9 µs -> 795.5 µs, ratio 0.412 [0.410, 0.551]: not comparable: the launch configuration changed" \
	"S6 step: phases and configurations changed, not comparable"
# Metric by metric, as Nsight Compute's baseline view (issue 30): the main
# launch shapes' launches, threads, blocks, registers, memory, occupancy and
# waves, both values and the change; in JSON under "metrics".
got=$("$TILEADVISE" --profile --gpu h200 --records "$dir/h200-2026-11-29-attention-v5.jsonl" \
	--baseline-records "$dir/h200-2026-11-29-attention-v4.jsonl" "$file" 2>&1 | grep -A1 '^vs baseline' | tail -1)
want="  main launch shape, baseline -> run: launches 378 -> 548 (+170), threads per block 128 (same), blocks 8192 (same), registers 138 (same), shared memory 114744 B (same), local memory 0 B/thread (same), occupancy 12.5% (same), waves 31.03 (same)"
[ "$got" = "$want" ]
result $? "the main shapes' metrics, baseline to run" "want: $want" "got:  $got"
"$TILEADVISE" --profile --gpu h200 --format=json --records "$dir/h200-2026-11-29-attention-v5.jsonl" \
	--baseline-records "$dir/h200-2026-11-29-attention-v4.jsonl" "$file" 2>/dev/null |
	"${PYTHON3:-python3}" -c 'import json, sys
m = json.load(sys.stdin)["baseline"][0]["metrics"]
assert m["launches"] == {"baseline": 378, "run": 548} and m["registers"]["run"] == 138, m
assert set(m) == {"launches", "threads_per_block", "blocks", "registers", "shared_memory_bytes",
                  "local_bytes_per_thread", "occupancy_percent", "waves"}, sorted(m)'
result $? "... and in JSON"
finish
