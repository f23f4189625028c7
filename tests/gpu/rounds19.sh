#!/bin/sh
# Issue 19's launch-bound overhead, as many rotated rounds as fit, then the
# two GPU checks that had not run (torch.profiler beside the injector, and
# the range profiler reading launch parameters through the injector core).
# Usage: tests/gpu/rounds19.sh OUTDIR. One device call; it stops itself
# after TOTAL_S seconds (default 550), the rounds after ROUNDS_S (420).
# Needs the carried build in $TA_DEVBUILD (default .gpu19/.devbuild:
# src/tileadvise and src/profile/inject/.libs, --enable-static-deps).
#
# Each round runs tests/gpu/kernels/ovh_workload.py three times, bare,
# under `tileadvise --profile` (adaptive tracing, the default) and under
# Proton, in an order that rotates through all six; a round starts only if
# it can end before ROUNDS_S. In every process the launching thread is
# pinned to one core (the same for all modes) and all other threads of the
# process, and the tileadvise reader, to three helper cores that share no
# physical core with it; the Triton cache is warm and one untimed run of
# each mode comes first. CPU time (user+sys) of each process tree from
# getrusage. rounds19_table.py then gives ratios with bootstrap intervals
# over rounds (resampled whole, so the pairing within a round is kept).
#
# Writes at most 7 files: summary.md, rounds.txt, run.log, profile.txt,
# deep.md, deep.tar.gz, env.txt.
set -u
OUTDIR=${1:?usage: rounds19.sh OUTDIR}
T0=$(date +%s)
TOTAL_S=${TOTAL_S:-550}
ROUNDS_S=${ROUNDS_S:-420}
REGIONS=${REGIONS:-7}
LAUNCH=${LAUNCH:-10000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/rotation.sh"
B=${TA_DEVBUILD:-$ROOT/.gpu19/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
export TA_DEVBUILD=$B PYTHONUNBUFFERED=1
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-r19.XXXXXX)
mkdir -p "$OUTDIR"
TA=$B/src/tileadvise
wl=$K/ovh_workload.py
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
	for c in $MAIN $(echo "$HELPERS" | tr , ' '); do
		echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null)"
	done
	nvidia-smi topo -m 2>&1 | head -4
	uptime
	"$TA" --version 2>&1 | head -1
	ls -l "$TILEADVISE_LIBDIR"
} > "$OUTDIR/env.txt" 2>&1
log "env: $(head -4 "$OUTDIR/env.txt" | tr '\n' ' ')"

# ---- overhead rounds -------------------------------------------------------
cpu() {  # cpu OUTFILE CMD...: CMD on the helper cores; its RESULT line and CPU seconds appended
	out=$1
	shift
	rm -f "$W/result"
	OVH_RESULT=$W/result taskset -c "$HELPERS" python3 -c '
import os, resource, subprocess, sys
p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
text = open(os.environ["OVH_RESULT"]).read() if os.path.exists(os.environ["OVH_RESULT"]) else p.stdout
res = [l for l in text.splitlines() if l.startswith("RESULT ")]
open(sys.argv[1], "a").write("%s CPU %.6f\n" % (res[0] if res else "NORESULT", r.ru_utime + r.ru_stime))
if not res or os.environ.get("KEEP_OUTPUT"):
    sys.stderr.write(p.stdout[-3000:])
' "$out" "$@"
}
run_one() {  # run_one MODE ROUND
	case $1 in
	bare)   cpu "$W/bare.txt" python3 "$wl" "$REGIONS" "$LAUNCH" 200 ;;
	ta)     cpu "$W/ta.txt" "$TA" --profile "$wl" -- python3 "$wl" "$REGIONS" "$LAUNCH" 200 ;;
	proton) cpu "$W/proton.txt" proton -n "$W/proton-$2" "$wl" "$REGIONS" "$LAUNCH" 200 ;;
	esac
}
taskset -c "$HELPERS" python3 "$wl" 1 100 10 > /dev/null 2>&1   # compile, warm the cache
for m in bare ta proton; do run_one "$m" 0; done
# one profile kept whole, to see that every launch was counted
KEEP_OUTPUT=1 cpu "$W/check.txt" "$TA" --profile "$wl" -- python3 "$wl" 2 "$LAUNCH" 20 \
	> "$OUTDIR/profile.txt" 2>&1
rm -f "$W/bare.txt" "$W/ta.txt" "$W/proton.txt"
log "warm-up done"
i=0
dur=0
while [ $(( $(elapsed) + dur )) -lt "$ROUNDS_S" ]; do
	i=$((i + 1))
	r0=$(date +%s)
	order=$(rotation3 "$i" bare ta proton)
	for m in $order; do run_one "$m" "$i"; done
	dur=$(( $(date +%s) - r0 ))
	rm -rf "$W"/proton-"$i"*
done
log "rounds: $i (last took ${dur}s)"
for m in bare ta proton; do sed "s/^/$m /" "$W/$m.txt"; done > "$OUTDIR/rounds.txt"
python3 "$ROOT/tests/gpu/rounds19_table.py" "$OUTDIR/rounds.txt" \
	"launching thread on cpu $MAIN, everything else on cpus $HELPERS; $REGIONS regions of $LAUNCH launches" \
	> "$OUTDIR/summary.md" 2>&1
cat "$OUTDIR/summary.md"
log "summary written"

# ---- torch.profiler beside the injector, and the range profiler ------------
# deep.sh's kineto part (adaptive, TILEADVISE_TRACE=plain, --deep), then its
# vector_add part, whose counters run is the range profiler (sol.cc) with
# the grid and block it now reads through ta_inject_launch_params; ncu
# measures the same launches for comparison.
left=$(( TOTAL_S - $(elapsed) - 8 ))
log "deep parts: ${left}s left"
if [ "$left" -gt 30 ]; then
	# kineto first: deep.sh runs its parts in its own order
	timeout "$left" sh "$ROOT/tests/gpu/deep.sh" "$W/deep" kineto > "$W/deep.out" 2>&1
	log "deep.sh kineto rc=$?"
	mv "$W/deep/logs.tar.gz" "$W/deep/logs-kineto.tar.gz" 2>/dev/null   # the next call writes its own
	left=$(( TOTAL_S - $(elapsed) - 6 ))
	[ "$left" -gt 20 ] && timeout "$left" sh "$ROOT/tests/gpu/deep.sh" "$W/deep" vector_add >> "$W/deep.out" 2>&1
	log "deep.sh vector_add rc=$? (${left}s given)"
	cat "$W/deep.out" >> "$OUTDIR/run.log"
	cp "$W/deep/deep.md" "$OUTDIR/deep.md" 2>/dev/null
	# the range records: each with the grid and block of its launch?
	python3 - "$W/deep/deep-vector_add.jsonl" <<'PY' 2>&1 | tee -a "$OUTDIR/run.log"
import json, sys
n = with_shape = 0
kinds = {}
try:
    for line in open(sys.argv[1]):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        kinds[r.get("type")] = kinds.get(r.get("type"), 0) + 1
        if r.get("type") == "sol":
            n += 1
            with_shape += "grid" in r and "block" in r
            if n == 1:
                print("first sol record:", json.dumps(r)[:400])
except OSError as e:
    print("no vector_add stream:", e)
print(f"range profiler: {n} sol records, {with_shape} with grid and block; record types {kinds}")
PY
	tar -C "$W" -czf "$OUTDIR/deep.tar.gz" deep deep.out 2>/dev/null
fi
log "end"
