#!/bin/sh
# Do the sampled records' weights make adaptive tracing agree with full
# tracing when a shape's GPU time changes after its first 4,096 launches?
# (issue 28). Runs tests/gpu/probes/sampled_drift.py under tileadvise
# --profile twice, adaptive (the default) and TILEADVISE_TRACE=full, saves
# both record streams, and prints per mode the kernel's per-call GPU time
# and median as tileadvise reports them, and the same figures recomputed
# from the records without the weights (what an unweighted reader sees).
# Needs a GPU, torch and Triton; tileadvise from $TA (default .devbuild's).
# Usage: tests/gpu/probes/sampled_drift.sh OUTDIR
set -u
OUT=${1:?usage: sampled_drift.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
TA=${TA:-$ROOT/.devbuild/src/tileadvise}
[ -x "$TA" ] || TA=$ROOT/_build/src/tileadvise
mkdir -p "$OUT"
for mode in adaptive full; do
	if [ $mode = full ]; then export TILEADVISE_TRACE=full; else unset TILEADVISE_TRACE; fi
	"$TA" --profile --format=json --save-records="$OUT/$mode.records" \
		"$ROOT/tests/gpu/probes/sampled_drift.py" > "$OUT/$mode.json" 2> "$OUT/$mode.err"
	echo "$mode: exit $?"
done
unset TILEADVISE_TRACE
python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
for mode in ("adaptive", "full"):
    rep = json.load(open(f"{out}/{mode}.json"))
    ks = [k for k in rep.get("kernels", []) if k.get("name", "").startswith("spin_kernel")]
    d, w = [], []
    for line in open(f"{out}/{mode}.records"):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "kernel" and o.get("name", "").startswith("spin_kernel"):
            d.append(o["end"] - o["start"])
            w.append(o.get("w", 1))
    d, w = d[1:], w[1:]   # the first launch is the warm-up
    weighted = sum(a * b for a, b in zip(d, w)) / sum(w) if w else 0
    for k in ks:
        print(f"{mode}: tileadvise per call {k.get('per_call_ns', 0) / 1e3:.2f} us over {k.get('steady_calls')} calls;"
              f" records {len(d)} (weights sum {sum(w)}, {sum(1 for x in w if x > 1)} above 1);"
              f" unweighted mean {statistics.fmean(d) / 1e3:.2f} us, median {statistics.median(d) / 1e3:.2f} us;"
              f" weighted mean {weighted / 1e3:.2f} us")
PY
