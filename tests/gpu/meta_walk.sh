#!/bin/sh
# The walk-pays measurement on the metamorphic variants (issue 27, item 3):
# tests/meta/variants.py rewrites each naive kernel of tests/gpu/kernels into
# its meaning-preserving variants (<kernel>__<transform>.py); then
# tests/gpu/walkpays.sh walks every variant as it walks the kernels (every
# mechanical edit at every site, in the checklist's order) and
# tests/gpu/walkpays.py runs each step on the GPU: its outputs against the
# variant's v0 at the check sizes, its time against the references at the
# bench sizes, and v0 itself against the original kernel ("the same outputs
# at every size" or DIFFERS in walkpays.md; step "variant-vs-original" in
# walkpays.jsonl). The static side, without a GPU, is tests/meta/walk_same.sh.
#
# Usage: tests/gpu/meta_walk.sh OUTDIR [KERNEL...]   (default: every naive_*.py, pop_*.py)
#   META_TRANSFORMS=t1,t2   only these transforms (tests/meta/variants.py --list)
#   META_ORIGINALS=1        walk and measure the originals too, in the same run
#   TA, WALKPAYS_JOBS, TRITON_CACHE_DIR as for tests/gpu/walkpays.sh;
#   WALKPAYS_ONLY_WALK=1 makes the walks only (on a machine without a GPU),
#   WALKPAYS_WALK=DIR measures walks made elsewhere.
# Writes OUTDIR/variants/<kernel>/ (the variants and variants.tsv: which
# transforms did not apply, and why), OUTDIR/src/ (the files walked),
# OUTDIR/walk/, OUTDIR/walkpays.md and OUTDIR/walkpays.jsonl.
set -u
OUTDIR=${1:?usage: meta_walk.sh OUTDIR [KERNEL...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON3:-python3}
if [ $# -gt 0 ]; then
	kernels=$*
else
	kernels=$(cd "$ROOT/tests/gpu/kernels" && ls naive_*.py pop_*.py | sed 's/\.py$//')
fi
mkdir -p "$OUTDIR/src"
names=
for k in $kernels; do
	"$PY" "$ROOT/tests/meta/variants.py" "$ROOT/tests/gpu/kernels/$k.py" "$OUTDIR/variants/$k" || exit 1
	if [ -n "${META_ORIGINALS:-}" ]; then
		cp "$ROOT/tests/gpu/kernels/$k.py" "$OUTDIR/src/$k.py"
		names="$names $k"
	fi
	while IFS="$(printf '\t')" read -r t status _; do
		[ "$status" = ok ] || continue
		case ",${META_TRANSFORMS:-$t}," in *",$t,"*) ;; *) continue ;; esac
		cp "$OUTDIR/variants/$k/$t.py" "$OUTDIR/src/${k}__$t.py"
		names="$names ${k}__$t"
	done < "$OUTDIR/variants/$k/variants.tsv"
done
[ -n "$names" ] || { echo "meta_walk.sh: no variant to walk" >&2; exit 1; }
echo "meta_walk.sh: $(echo $names | wc -w) files: $names"
# walkpays.py imports tests/gpu/kernels (ref_fmha) and loads the originals from there
WALKPAYS_SRC="$OUTDIR/src" exec sh "$ROOT/tests/gpu/walkpays.sh" "$OUTDIR" $names
