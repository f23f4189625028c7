#!/bin/sh
# The bundled examples on a real GPU: each run bare (its own correctness
# check and timings), then under `tileadvise --profile`, saving the raw
# record stream. Usage: tests/gpu/examples.sh OUTDIR [NAME...]
# Needs a build in $TA_DEVBUILD (default .devbuild, made with
# --enable-static-deps and carried). Writes OUTDIR/examples.log and
# OUTDIR/rec-NAME.jsonl.
set -u
OUTDIR=${1:?usage: examples.sh OUTDIR [NAME...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
export PYTHONUNBUFFERED=1
names=${*:-softmax layernorm matmul attention cat}
mkdir -p "$OUTDIR"
log="$OUTDIR/examples.log"
{
	date -u +%Y-%m-%dT%H:%MZ
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
} > "$log" 2>&1
for n in $names; do
	f="$ROOT/examples/$n/$n.py"
	echo "=== $n: bare" >> "$log"
	python3 "$f" >> "$log" 2>&1
	echo "rc=$?" >> "$log"
	echo "=== $n: under tileadvise --profile" >> "$log"
	"$B/src/tileadvise" --profile --timeout 240 --save-records "$OUTDIR/rec-$n.jsonl" "$f" >> "$log" 2>&1
	echo "rc=$?" >> "$log"
done
cat "$log"
