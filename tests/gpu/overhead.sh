#!/bin/sh
# Launch-bound profiling overhead, tileadvise against Triton's Proton,
# measured inside each process (issue 19). Usage: tests/gpu/overhead.sh
# OUTDIR. One device call: rounds until ROUNDS_S seconds (default 450) have
# passed since the start. Needs the carried build in $TA_DEVBUILD (default
# .devbuild: src/tileadvise and src/profile/inject/.libs, made with
# `configure --enable-static-deps`).
#
# Whole processes of the same launch-bound script ran at two speeds on the
# H200 (0.15 or 0.24 s for 10,000 launches, whatever the profiler), so
# rounds of whole processes left the ratio ±11-22% wide. Here each process
# switches its profiler off and on between regions (tests/gpu/kernels/
# ovh_ab.py: PAIRS pairs, LAUNCH timed launches a region) and its overhead
# is its on time over its off time. A round runs three such processes in an
# order that rotates: bare (an A/A test of the method), tileadvise (the
# range between torch.cuda.profiler.start and stop, TILEADVISE_CAPTURE=
# profiler-api, adaptive tracing as by default) and Proton (proton.start and
# finalize). In every process the launching thread is pinned to one core
# and every other thread, and tileadvise's reader, to three helper cores
# that share no physical core with it; the Triton cache is warm.
#
# Before the rounds, the capture range itself is checked: tileadvise must
# count exactly the launches between start and stop, with adaptive and with
# full tracing, and say what happened when a program never calls start.
#
# Writes summary.md (overhead_table.py), rounds.txt, checks.txt, run.log,
# env.txt and capture-*.txt.
set -u
OUTDIR=${1:?usage: overhead.sh OUTDIR}
T0=$(date +%s)
ROUNDS_S=${ROUNDS_S:-450}
PAIRS=${PAIRS:-16}
LAUNCH=${LAUNCH:-2000}
WARM=${WARM:-200}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/rotation.sh"
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
export PYTHONUNBUFFERED=1
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-ovh.XXXXXX)
mkdir -p "$OUTDIR"
TA=$B/src/tileadvise
wl=$K/ovh_workload.py
ab=$K/ovh_ab.py
elapsed() { echo $(( $(date +%s) - T0 )); }
log() { echo "$(date -u +%H:%M:%S) +$(elapsed)s $*" | tee -a "$OUTDIR/run.log"; }

# The launching core and three helpers: none shares a physical core with
# the launching one, cpu0 (interrupts) is left out.
set -- $(python3 - <<'PY'
import os
def parse(s):
    out = set()
    for part in s.strip().split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
def sib(c):
    try:
        return parse(open(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list").read())
    except OSError:
        return {c}
cpus = [c for c in sorted(os.sched_getaffinity(0)) if c != 0]
main = cpus[1] if len(cpus) > 4 else cpus[0]
used, helpers = set(sib(main)), []
for c in cpus:
    if c not in used and len(helpers) < 3:
        helpers.append(c)
        used |= sib(c)
print(main, ",".join(map(str, helpers or [main])))   # a small machine: shared
PY
)
MAIN=$1 HELPERS=$2
export OVH_MAIN_CPU=$MAIN OVH_HELPER_CPUS=$HELPERS
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pstate --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	echo "nproc $(nproc); launching cpu $MAIN; helper cpus $HELPERS"
	uptime
	"$TA" --version 2>&1 | head -1
} > "$OUTDIR/env.txt" 2>&1
log "env: $(head -4 "$OUTDIR/env.txt" | tr '\n' ' ')"

cpu() {  # cpu OUTFILE CMD...: CMD pinned; its RESULT line and CPU seconds appended
	rm -f "$W/result"
	OVH_RESULT=$W/result taskset -c "$HELPERS" python3 "$ROOT/tests/gpu/rusage_run.py" "$@"
}
run_one() {  # run_one MODE ROUND
	case $1 in
	bare)   cpu "$W/bare.txt" timeout 120 python3 "$ab" bare "$PAIRS" "$LAUNCH" "$WARM" ;;
	ta)     TILEADVISE_CAPTURE=profiler-api cpu "$W/ta.txt" \
			"$TA" --profile --timeout 120 "$wl" -- python3 "$ab" ta "$PAIRS" "$LAUNCH" "$WARM" ;;
	proton) OVH_PROTON_NAME=$W/proton-$2 cpu "$W/proton.txt" \
			timeout 120 python3 "$ab" proton "$PAIRS" "$LAUNCH" "$WARM" ;;
	esac
}

# ---- the capture range, checked --------------------------------------------
taskset -c "$HELPERS" python3 "$ab" bare 1 100 10 > /dev/null 2>&1   # compile, warm the cache
want=$((3 * (1000 + 100)))
check() {  # check NAME EXPECTED-PATTERN: the profile in capture-NAME.txt
	if grep -q "$2" "$OUTDIR/capture-$1.txt"; then r=pass; else r=FAIL; fi
	echo "$r capture $1: expected /$2/; got: $(grep -m1 -E 'tiny_add:|no launches' "$OUTDIR/capture-$1.txt")" |
		tee -a "$OUTDIR/checks.txt"
}
for tm in adaptive full; do
	KEEP_OUTPUT=1 TILEADVISE_TRACE=$tm TILEADVISE_CAPTURE=profiler-api cpu "$W/check.txt" \
		"$TA" --profile --timeout 90 "$wl" -- python3 "$ab" ta 3 1000 100 > "$OUTDIR/capture-$tm.txt" 2>&1
	check "$tm" "tiny_add: $want launches"
	grep -A4 "tiny_add:" "$OUTDIR/capture-$tm.txt" | sed "s/^/  $tm: /" >> "$OUTDIR/checks.txt"
done
# a program that never calls start: nothing recorded, and the report says why
KEEP_OUTPUT=1 TILEADVISE_CAPTURE=profiler-api cpu "$W/check.txt" \
	"$TA" --profile --timeout 90 "$wl" -- python3 "$wl" 1 100 10 > "$OUTDIR/capture-never.txt" 2>&1
check never "cudaProfilerStart"
log "checks: $(grep -c '^pass' "$OUTDIR/checks.txt") passed, $(grep -c '^FAIL' "$OUTDIR/checks.txt") failed"

# ---- rounds -----------------------------------------------------------------
for m in bare ta proton; do run_one "$m" 0; done   # one untimed process of each first
rm -f "$W/bare.txt" "$W/ta.txt" "$W/proton.txt"
log "warm-up done"
i=0
dur=0
while [ $(( $(elapsed) + dur )) -lt "$ROUNDS_S" ]; do
	i=$((i + 1))
	r0=$(date +%s)
	for m in $(rotation3 "$i" bare ta proton); do run_one "$m" "$i"; done
	dur=$(( $(date +%s) - r0 ))
	rm -rf "$W"/proton-"$i"*
done
log "rounds: $i (last took ${dur}s)"
for m in bare ta proton; do sed "s/^/$m /" "$W/$m.txt"; done > "$OUTDIR/rounds.txt"
python3 "$ROOT/tests/gpu/overhead_table.py" "$OUTDIR/rounds.txt" \
	"launching thread on cpu $MAIN, everything else on cpus $HELPERS" > "$OUTDIR/summary.md" 2>&1
cat "$OUTDIR/summary.md"
cat "$OUTDIR/checks.txt"
log "end"
