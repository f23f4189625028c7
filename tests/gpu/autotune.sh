#!/bin/sh
# The autotune table on a real GPU: runs examples/attention/attention.py
# (3 configs autotuned) under `tileadvise --profile --save-records` and
# prints the table, what Triton printed, and checks. Usage:
#   tests/gpu/autotune.sh OUTDIR
# Needs a build in $TA_DEVBUILD (default .devbuild, made with
# --enable-static-deps and carried). Writes OUTDIR/autotune.log (all of it),
# OUTDIR/rec-attention.jsonl (records + the child's output as "output"
# records) and OUTDIR/profile.json. Takes about a minute (--quick size).
set -u
OUTDIR=${1:?usage: autotune.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
# Triton's prints go to stdout: unbuffered keeps them whole and in order.
export PYTHONUNBUFFERED=1
# The runner sets TRITON_PRINT_AUTOTUNING=1 itself; make sure the caller's
# environment does not turn it off, and that no cached tuning skips it.
unset TRITON_PRINT_AUTOTUNING
export TRITON_CACHE_DIR="$(mktemp -d /tmp/ta-triton-cache.XXXXXX)"
mkdir -p "$OUTDIR"
log="$OUTDIR/autotune.log"
rec="$OUTDIR/rec-attention.jsonl"
f="$ROOT/examples/attention/attention.py"
T=$B/src/tileadvise
{
	echo "== autotune.sh $(date -u +%Y-%m-%dT%H:%MZ)"
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
	if [ ! -x "$T" ]; then
		echo "FAIL: no tileadvise at $T (set TA_DEVBUILD to the carried build)"
		exit 2
	fi
	echo "== 1. profile run (text), records and output saved to $rec"
	timeout 150 "$T" --profile --timeout 140 --save-records "$rec" "$f" -- python3 "$f" --quick
	echo "rc=$?"
	echo "== 2. what Triton printed (output records in the saved stream)"
	grep '"type":"output"' "$rec" | grep -E 'utotuning|with key as|finished after|best config' | head -n 20
	echo "== 3. replay of the saved stream (json), the autotune part"
	"$T" --profile --format json --records "$rec" "$f" >"$OUTDIR/profile.json" 2>&1
	python3 - "$OUTDIR/profile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tabs = d.get("autotune", [])
print("autotune tables:", len(tabs))
for t in tabs:
    print(" kernel", t["kernel"], "key", t["key"], "seconds", t["seconds"], "tunings", t["tunings"])
    for c in t["configs"]:
        print("  %s %5d launches  median %s ns  block %s regs %s smem %s  %s" % (
            "*" if c["chosen"] else " ", c["launches"], c["median_ns"], c["block"][0], c["regs"],
            c["smem_static"] + c["smem_dynamic"], c["config"]))
PY
	echo "== 4. checks"
	n_out=$(grep -c '"type":"output"' "$rec")
	n_best=$(grep -c 'best config selected' "$rec")
	echo "output records: $n_out; 'best config selected' lines: $n_best"
	python3 - "$OUTDIR/profile.json" "$n_best" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); n_best = int(sys.argv[2])
t = [x for x in d.get("autotune", []) if x["kernel"] == "gemma_attn_fwd"]
ok = True
def check(cond, what):
    global ok
    print(("PASS " if cond else "FAIL ") + what); ok &= bool(cond)
check(len(t) == 1, "a table for gemma_attn_fwd")
if t:
    t = t[0]
    rows = t["configs"]
    check(len(rows) >= 2, "at least 2 configs tried (the example has 3; a config that fails is not launched)")
    check(sum(r["chosen"] for r in rows) == 1, "exactly one chosen")
    check(t["tunings"] == n_best, "one tuning per 'best config selected' line (%d)" % n_best)
    if n_best:
        check(all(r["config"] for r in rows if r["chosen"]), "the chosen row has Triton's config text")
        for r in rows:
            if r["config"] and "num_warps: " in r["config"]:
                w = int(r["config"].split("num_warps: ")[1].split(",")[0])
                check(r["block"][0] == 32 * w, "block %d = 32 x num_warps %d" % (r["block"][0], w))
    check(all(r["median_ns"] for r in rows), "every config has a median")
print("RESULT", "PASS" if ok else "FAIL")
PY
} >"$log" 2>&1
cat "$log"
