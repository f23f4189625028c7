#!/bin/sh
# Profiling overhead on a launch-bound script (20,000 launches of a tiny
# kernel): the script's own timed region bare, under `tileadvise --profile`
# and under Triton's Proton, over ROUNDS rounds whose order rotates so that
# drift does not favour one. Usage: tests/gpu/overhead.sh OUTDIR [ROUNDS].
# Needs a carried build in $TA_DEVBUILD (default .devbuild).
set -u
OUTDIR=${1:?usage: overhead.sh OUTDIR [ROUNDS]}
ROUNDS=${2:-15}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-ovh.XXXXXX)
mkdir -p "$OUTDIR"
script="$K/vector_add.py"
run_one() {  # run_one MODE ROUND
	f="$W/$1.txt"
	case $1 in
	bare)    TA_RESULT_FILE=$f python3 "$script" 4096 20000 > /dev/null 2>&1 ;;
	ta)      TA_RESULT_FILE=$f "$B/src/tileadvise" --profile "$script" -- python3 "$script" 4096 20000 \
			> "$W/ta-$2.out" 2>&1 ;;
	proton)  TA_RESULT_FILE=$f proton -n "$W/proton-$2" "$script" 4096 20000 > /dev/null 2>&1 ;;
	esac
}
python3 "$script" 4096 100 > /dev/null 2>&1   # compile once, warm the cache
for i in $(seq 1 "$ROUNDS"); do
	case $((i % 3)) in
	0) order="bare ta proton" ;;
	1) order="ta proton bare" ;;
	2) order="proton bare ta" ;;
	esac
	for m in $order; do run_one "$m" "$i"; done
done
python3 - "$W" "$ROUNDS" > "$OUTDIR/overhead.md" <<'PY'
import json, statistics, sys
w, rounds = sys.argv[1], int(sys.argv[2])
def times(m):
    return [json.loads(l.split(" ", 1)[1])["timed_s"] for l in open(f"{w}/{m}.txt") if l.startswith("RESULT")]
b, t, p = times("bare"), times("ta"), times("proton")
n = min(len(b), len(t), len(p))
rt = [t[i] / b[i] for i in range(n)]
rp = [p[i] / b[i] for i in range(n)]
print(f"rounds: {n} (order rotated each round)")
print(f"bare s:       median {statistics.median(b):.4f}  min {min(b):.4f}  max {max(b):.4f}")
print(f"tileadvise s: median {statistics.median(t):.4f}  min {min(t):.4f}  max {max(t):.4f}")
print(f"proton s:     median {statistics.median(p):.4f}  min {min(p):.4f}  max {max(p):.4f}")
print(f"tileadvise / bare: median of per-round ratios {statistics.median(rt):.3f}; ratio of medians {statistics.median(t)/statistics.median(b):.3f}")
print(f"proton / bare:     median of per-round ratios {statistics.median(rp):.3f}; ratio of medians {statistics.median(p)/statistics.median(b):.3f}")
print(f"tileadvise / proton: ratio of medians {statistics.median(t)/statistics.median(p):.3f}")
PY
cat "$OUTDIR/overhead.md"
grep -h "add_kernel" "$W"/ta-1.out | head -n 2
