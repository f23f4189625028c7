#!/bin/sh
# Does the mechanical walk pay on naive kernels? Each naive kernel of
# tests/gpu/kernels (naive_*.py) is copied, every mechanical edit tileadvise
# offers is applied at every site it offers, one entry after the other in
# the checklist's order (the walk's order), each step kept as vN.py; then
# tests/gpu/walkpays.py runs every version at the kernel's check sizes and
# bench sizes on the GPU, compares its output with the original's and times
# it against the references (a tutorial-06-style attention, cuBLAS).
# Usage: tests/gpu/walkpays.sh OUTDIR [KERNEL...]. The walk needs a
# tileadvise ($TA, default _build/src/tileadvise, else .devbuild's); with
# WALKPAYS_WALK=DIR it measures the versions already made in DIR (made on
# another machine by WALKPAYS_ONLY_WALK=1 tests/gpu/walkpays.sh DIR/..).
# With WALKPAYS_SRC=DIR the kernels are DIR/<kernel>.py instead (the
# variants tests/gpu/meta_walk.sh makes, named <kernel>__<transform>).
# Writes OUTDIR/walk/<kernel>/ (versions, steps.tsv, walk.log),
# OUTDIR/walkpays.md and OUTDIR/walkpays.jsonl.
set -u
OUTDIR=${1:?usage: walkpays.sh OUTDIR [KERNEL...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
names=${*:-$(cd "$ROOT/tests/gpu/kernels" && ls naive_*.py pop_*.py | sed "s/\.py$//")}
WALK=${WALKPAYS_WALK:-$OUTDIR/walk}
mkdir -p "$OUTDIR"
if [ -z "${WALKPAYS_WALK:-}" ]; then
	TA=${TA:-$ROOT/_build/src/tileadvise}
	[ -x "$TA" ] || TA=$ROOT/.devbuild/src/tileadvise
	export TILEADVISE_DATADIR="$ROOT/data"
	# The entries this build rewrites, in the checklist's order.
	MECHANICAL=$("$TA" --list-rules | awk '$3 == "mechanical" {print $1}')
	for n in $names; do
		d="$WALK/$n"
		rm -rf "$d"
		mkdir -p "$d"
		cp "${WALKPAYS_SRC:-$ROOT/tests/gpu/kernels}/$n.py" "$d/$n.py"
		cp "$d/$n.py" "$d/v0.py"
		printf '0\toriginal\t-\tv0.py\n' > "$d/steps.tsv"
		step=0
		for id in $MECHANICAL; do
			sites=0
			while [ $sites -lt 32 ] && "$TA" --apply "$id" --unsafe-fixes "$d/$n.py" >> "$d/walk.log" 2>&1; do
				sites=$((sites + 1))
			done
			# the last refusal, for the record
			"$TA" --diff "$id" "$d/$n.py" 2>&1 | grep -v '^[-+@ ]' | head -n 3 | sed "s/^/$id: /" >> "$d/walk.log"
			[ $sites -gt 0 ] || continue
			step=$((step + 1))
			cp "$d/$n.py" "$d/v$step.py"
			printf '%s\t%s\t%s\tv%s.py\n' "$step" "$id" "$sites" "$step" >> "$d/steps.tsv"
		done
		echo "$n: $(cut -f2,3 "$d/steps.tsv" | tr '\t\n' ': ')"
	done
	[ -z "${WALKPAYS_ONLY_WALK:-}" ] || exit 0
fi
# Triton compiles every config of every version once, in parallel (the
# autotuners pick while sharing the GPU: only the cache counts); the
# measurement then runs alone, one version after the other, on a warm cache.
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-$OUTDIR/triton-cache}
jobs=${WALKPAYS_JOBS:-8}
for n in $names; do
	cut -f4 "$WALK/$n/steps.tsv" | sed "s|^|$n |"
done | xargs -P "$jobs" -n 2 sh -c 'python3 "$0" --warm "$1" "$2" "$3"' "$ROOT/tests/gpu/walkpays.py" "$WALK" \
	> "$OUTDIR/warm.log" 2>&1
echo "warm: $(date -u +%H:%M:%S)" >> "$OUTDIR/warm.log"
exec python3 "$ROOT/tests/gpu/walkpays.py" "$WALK" "$OUTDIR" $names
