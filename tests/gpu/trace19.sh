#!/bin/sh
# Issue 19's overhead method and issue 17's whole-call time, in one device
# call. Usage: tests/gpu/trace19.sh OUTDIR. Needs a carried build in
# $TA_DEVBUILD (default .devbuild, configured with --enable-static-deps).
#
# 1. Whole-call time: the attention example's autotuned wrapper called in a
#    Python loop (tests/gpu/kernels/callperiod.py, perf_counter around each
#    call) bare and under `tileadvise --profile`; the profiler's "time per
#    call" (launch-to-launch host period) against the loop's own figures.
# 2. Overhead: tests/gpu/kernels/ovh_workload.py (a launch-bound part, 5
#    regions of LAUNCH tiny launches, and a GPU-bound part, 5 regions of 200
#    adds of 2^26 floats; each figure the median region of the process) run
#    bare, under tileadvise (adaptive tracing, the default), under
#    tileadvise with TILEADVISE_TRACE=full and under Proton, interleaved in
#    each round in an order that rotates, every process pinned to the same
#    cores, the Triton cache warm and one untimed run of each mode first;
#    CPU time (user+sys) from getrusage of each process tree. Rounds until
#    BUDGET_S seconds (default 240). Ratios of medians with bootstrap 95%
#    intervals; kernel figures of adaptive vs full tracing from the saved
#    record streams.
set -u
OUTDIR=${1:?usage: trace19.sh OUTDIR}
BUDGET_S=${BUDGET_S:-240}
LAUNCH=${LAUNCH:-10000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-t19.XXXXXX)
mkdir -p "$OUTDIR"
CORES=${TA_CORES:-0-3}
TA=$B/src/tileadvise
wl="$K/ovh_workload.py"
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$OUTDIR/trace19.log"; }
{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	nproc
} > "$W/versions.txt" 2>&1
log "versions: $(tr '\n' ' ' < "$W/versions.txt")"

# ---- 1. whole-call time ---------------------------------------------------
cp=$K/callperiod.py
att=$ROOT/examples/attention/attention.py
taskset -c "$CORES" python3 "$cp" 200 > "$W/callperiod-bare.txt" 2>&1
OVH_RESULT=$W/callperiod-profile.result taskset -c "$CORES" \
	"$TA" --profile --save-records "$OUTDIR/callperiod.jsonl" "$att" -- \
	python3 "$cp" 200 > "$OUTDIR/callperiod-profile.txt" 2>&1
log "callperiod bare: $(grep RESULT "$W/callperiod-bare.txt")"
log "callperiod profiled: $(cat "$W/callperiod-profile.result" 2>/dev/null)"
grep -B4 "time per call" "$OUTDIR/callperiod-profile.txt" | head -12 | tee -a "$OUTDIR/trace19.log"

# ---- 2. overhead rounds ---------------------------------------------------
cpu() {  # cpu OUTFILE CMD...: CMD pinned; its RESULT line and CPU seconds appended
	rm -f "$W/result"
	OVH_RESULT=$W/result taskset -c "$CORES" python3 "$ROOT/tests/gpu/rusage_run.py" "$@"
}
run_one() {  # run_one MODE ROUND
	case $1 in
	bare)   cpu "$W/bare.txt" python3 "$wl" 5 "$LAUNCH" 200 ;;
	ta)     cpu "$W/ta.txt" "$TA" --profile --save-records "$W/ta-$2.jsonl" "$wl" -- python3 "$wl" 5 "$LAUNCH" 200 ;;
	full)   TILEADVISE_TRACE=full cpu "$W/full.txt" "$TA" --profile --save-records "$W/full-$2.jsonl" "$wl" -- \
			python3 "$wl" 5 "$LAUNCH" 200 ;;
	proton) cpu "$W/proton.txt" proton -n "$W/proton-$2" "$wl" 5 "$LAUNCH" 200 ;;
	esac
}
taskset -c "$CORES" python3 "$wl" 1 100 10 > /dev/null 2>&1   # compile, warm the cache
for m in bare ta full proton; do run_one "$m" 0; done
rm -f "$W"/bare.txt "$W"/ta.txt "$W"/full.txt "$W"/proton.txt
start=$(date +%s)
i=0
while [ $(( $(date +%s) - start )) -lt "$BUDGET_S" ]; do
	i=$((i + 1))
	case $((i % 8)) in
	0) order="bare ta full proton" ;;
	1) order="ta full proton bare" ;;
	2) order="full proton bare ta" ;;
	3) order="proton bare ta full" ;;
	4) order="proton full ta bare" ;;
	5) order="bare proton full ta" ;;
	6) order="ta bare proton full" ;;
	7) order="full ta bare proton" ;;
	esac
	for m in $order; do run_one "$m" "$i"; done
done
log "rounds: $i"
# The device call returns at most 8 files: the rounds' raw lines in one,
# one adaptive record stream (the full ones are too large), and the two
# profiles of round 1 in one.
for m in bare ta full proton; do sed "s/^/$m /" "$W/$m.txt"; done > "$OUTDIR/rounds.txt"
cp "$W/ta-1.jsonl" "$OUTDIR/ovh-adaptive.jsonl" 2>/dev/null
{
	"$TA" --profile --records "$W/ta-1.jsonl" "$wl"
	echo "---- full tracing"
	"$TA" --profile --records "$W/full-1.jsonl" "$wl"
} > "$OUTDIR/ovh-profiles.txt" 2>&1
python3 "$ROOT/tests/gpu/trace19_table.py" "$W" "$CORES" "$LAUNCH" > "$OUTDIR/trace19.md" 2>&1
cat "$OUTDIR/trace19.md"
