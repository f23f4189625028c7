#!/bin/sh
# The profiler stage on a real GPU. Usage: tests/gpu/run.sh OUTDIR
# Needs a build in $TA_DEVBUILD (default: .devbuild at the repository root,
# made on the development machine with --enable-static-deps, carried over):
# tests/profiler/ta-profile-run, the injector, tests/gpu/occ. Writes to OUTDIR:
# table.md (the figures), occ.txt, rec-*.jsonl (raw record streams, for
# tests/recordings/) and logs.tar.gz (everything else).
set -u
OUTDIR=${1:?usage: run.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
DRV=$B/tests/profiler/ta-profile-run
INJ=$B/src/profile/inject/.libs/libtileadvise-cupti.so
K=$ROOT/tests/gpu/kernels
W=$(mktemp -d /tmp/ta-gpu.XXXXXX)
RUNS=${TA_GPU_RUNS:-5}
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
cd "$W" || exit 1

{
	date -u +%Y-%m-%dT%H:%MZ
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	uname -r
	ls -l "$DRV" "$INJ"
} > env.txt 2>&1
cat env.txt

# Occupancy: ours against CUDA's API.
"$B/tests/gpu/occ" > "$OUTDIR/occ.txt" 2>&1
echo "occ rc=$? $(tail -1 "$OUTDIR/occ.txt")"

profile() {  # profile NAME KERNEL ARGS... : one run under the injector
	name=$1; kern=$2; shift 2
	TA_RESULT_FILE=$W/res-$name.txt "$DRV" --injector "$INJ" --kernel "$kern" --timeout 300 --json \
		--records-out "$W/rec-$name.jsonl" -- "$@" > "$W/prof-$name.json" 2> "$W/prof-$name.err"
	echo "profiled $name rc=$? $(head -c 300 "$W/prof-$name.err")"
}

# 1. Each kernel bare (also warms Triton's cache), then under the profiler.
for k in vector_add:add_kernel softmax:softmax_kernel matmul:matmul_kernel attention:attn_fwd; do
	name=${k%%:*}; kern=${k#*:}
	TA_RESULT_FILE=$W/bare-$name.txt python3 "$K/$name.py" > "$W/bare-$name.log" 2>&1
	echo "bare $name rc=$?"
	profile "$name" "$kern" python3 "$K/$name.py"
done
cp "$W"/rec-vector_add.jsonl "$W"/rec-softmax.jsonl "$W"/rec-matmul.jsonl "$W"/rec-attention.jsonl "$OUTDIR"/ 2>/dev/null

# 2. Overhead: bare and profiled alternately, the script's own timed region.
#    GPU-bound: 8192^3 fp16 matmul x 300. Launch-bound: 20,000 tiny adds,
#    also under Triton's own profiler (proton) in the same loop.
for i in $(seq 1 "$RUNS"); do
	TA_RESULT_FILE=$W/ovh-gpu-bare.txt python3 "$K/matmul.py" 8192 300 >> "$W/ovh.log" 2>&1
	TA_RESULT_FILE=$W/ovh-gpu-prof.txt "$DRV" --injector "$INJ" --kernel matmul_kernel --timeout 300 \
		-- python3 "$K/matmul.py" 8192 300 >> "$W/ovh.log" 2>&1
	TA_RESULT_FILE=$W/ovh-launch-bare.txt python3 "$K/vector_add.py" 4096 20000 >> "$W/ovh.log" 2>&1
	TA_RESULT_FILE=$W/ovh-launch-prof.txt "$DRV" --injector "$INJ" --kernel add_kernel --timeout 300 \
		--records-out "$W/rec-launch-$i.jsonl" -- python3 "$K/vector_add.py" 4096 20000 \
		> "$W/prof-launch-$i.txt" 2>&1
	TA_RESULT_FILE=$W/ovh-launch-proton.txt proton -n "$W/proton-$i" "$K/vector_add.py" 4096 20000 \
		>> "$W/proton.log" 2>&1 || echo "proton rc=$? (see proton.log)"
	echo "overhead round $i done"
done

python3 "$ROOT/tests/gpu/summarize.py" "$W" > "$OUTDIR/table.md" 2> "$W/summarize.err"
cat "$OUTDIR/table.md" "$W/summarize.err"
rm -f "$W"/rec-launch-[2-9].jsonl
tar -czf "$OUTDIR/logs.tar.gz" -C "$W" . 2>/dev/null
ls -l "$OUTDIR"
