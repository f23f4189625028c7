#!/bin/sh
# Launch-bound profiling overhead with an interval that resolves (issue 19):
# the tiny-kernel script (tests/gpu/kernels/vector_add.py, LAUNCHES launches
# in its timed region) bare, under `tileadvise --profile` and under Triton's
# Proton, interleaved in each round in an order that cycles through all six
# permutations, every process pinned to the same 4 cores, after one run that
# compiles the kernel and warms the Triton cache. For each mode the script's
# own timed region and the CPU time (user+sys, getrusage of the process and
# its children) are kept; the table gives each ratio of medians with a
# bootstrap 95% interval (rounds resampled, 4,000 times).
# Stops starting rounds after BUDGET_S seconds (default 480) so that one
# device call holds it. Usage: tests/gpu/overhead_ci.sh OUTDIR [ROUNDS]
# [LAUNCHES]. Needs a carried build in $TA_DEVBUILD (default .devbuild).
set -u
OUTDIR=${1:?usage: overhead_ci.sh OUTDIR [ROUNDS] [LAUNCHES]}
ROUNDS=${2:-30}
LAUNCHES=${3:-50000}
BUDGET_S=${BUDGET_S:-480}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/rotation.sh"
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-ovci.XXXXXX)
mkdir -p "$OUTDIR"
script="$K/vector_add.py"
CORES=${TA_CORES:-0-3}
# cpu FILE CMD...: runs CMD pinned, appends its CPU seconds to FILE.
cpu() {
	out=$1
	shift
	taskset -c "$CORES" python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "a").write("%.6f\n" % (r.ru_utime + r.ru_stime))' "$out" "$@"
}
run_one() {  # run_one MODE ROUND
	case $1 in
	bare)   TA_RESULT_FILE=$W/bare.txt cpu "$W/bare.cpu" python3 "$script" 4096 "$LAUNCHES" ;;
	ta)     TA_RESULT_FILE=$W/ta.txt cpu "$W/ta.cpu" "$B/src/tileadvise" --profile "$script" -- \
			python3 "$script" 4096 "$LAUNCHES" ;;
	proton) TA_RESULT_FILE=$W/proton.txt cpu "$W/proton.cpu" proton -n "$W/proton-$2" "$script" 4096 "$LAUNCHES" ;;
	esac
}
taskset -c "$CORES" python3 "$script" 4096 100 > /dev/null 2>&1   # compile once, warm the cache
# One untimed run of each mode: first-use costs (Proton's imports, our injector's page-in).
for m in bare ta proton; do run_one "$m" 0; done
rm -f "$W"/*.txt "$W"/*.cpu
start=$(date +%s)
done_rounds=0
for i in $(seq 1 "$ROUNDS"); do
	[ $(( $(date +%s) - start )) -lt "$BUDGET_S" ] || break
	order=$(rotation3 "$i" bare ta proton)
	for m in $order; do run_one "$m" "$i"; done
	done_rounds=$i
done
"$B/src/tileadvise" --profile "$script" -- python3 "$script" 4096 "$LAUNCHES" > "$OUTDIR/ta-profile.txt" 2>&1
python3 - "$W" "$done_rounds" "$LAUNCHES" "$CORES" > "$OUTDIR/overhead_ci.md" <<'PY'
import json, random, statistics, sys
w, rounds, launches, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def timed(m):
    return [json.loads(l.split(" ", 1)[1])["timed_s"] for l in open(f"{w}/{m}.txt") if l.startswith("RESULT")]
def cpu(m):
    return [float(x) for x in open(f"{w}/{m}.cpu")]
data = {m: (timed(m), cpu(m)) for m in ("bare", "ta", "proton")}
n = min(min(len(v[0]), len(v[1])) for v in data.values())
rng = random.Random(19)
def ci(a, b):
    """ratio of medians a/b over paired rounds, with a bootstrap 95% interval"""
    est = statistics.median(a) / statistics.median(b)
    boots = []
    for _ in range(4000):
        idx = [rng.randrange(n) for _ in range(n)]
        boots.append(statistics.median([a[i] for i in idx]) / statistics.median([b[i] for i in idx]))
    boots.sort()
    return est, boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
print(f"rounds: {n} of {launches} launches each (bare, tileadvise, Proton interleaved, order cycling "
      f"through all six permutations; every process pinned to cores {cores}; Triton cache warm)\n")
print("| figure | median bare | median tileadvise | median Proton |")
print("| --- | --- | --- | --- |")
for k, name in ((0, "timed region, s"), (1, "process CPU time, s")):
    print(f"| {name} | {statistics.median(data['bare'][k][:n]):.4f} | {statistics.median(data['ta'][k][:n]):.4f} "
          f"| {statistics.median(data['proton'][k][:n]):.4f} |")
print("\n| ratio (of medians) | timed region [95% interval] | CPU time [95% interval] |")
print("| --- | --- | --- |")
for a, b, label in (("ta", "bare", "tileadvise / bare"), ("proton", "bare", "Proton / bare"),
                    ("ta", "proton", "tileadvise / Proton")):
    cells = []
    for k in (0, 1):
        e, lo, hi = ci(data[a][k][:n], data[b][k][:n])
        cells.append(f"{e:.3f} [{lo:.3f}, {hi:.3f}] (±{50 * (hi - lo) / e:.1f}%)")
    print(f"| {label} | {cells[0]} | {cells[1]} |")
PY
cat "$OUTDIR/overhead_ci.md"
grep -h "add_kernel" "$OUTDIR/ta-profile.txt" | head -n 3
