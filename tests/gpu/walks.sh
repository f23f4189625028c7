#!/bin/sh
# Turns what tests/gpu/edits.sh brought back from the GPU machine into the
# examples' recorded walks, on any machine (no GPU needed): for each example
# of the archive, a session whose first run is v0's record stream and whose
# steps are the edits applied there, each measured by its version's stream.
# Usage: tests/gpu/walks.sh EDITS.tsv EDITS.tar.gz OUTDIR [NAME...]
# Writes OUTDIR/NAME/session-walk.h200.json. Env: TILEADVISE (the binary,
# default ./src/tileadvise), TILEADVISE_SOFTWARE (driver, torch and Triton
# versions to name in the sessions), TA_GPU (the device facts, default h200).
# An archive made before edits.sh recorded v0 (no rec-0.jsonl) takes the
# example's first run from tests/recordings/*-example-NAME.jsonl instead.
set -u
TSV=${1:?usage: walks.sh EDITS.tsv EDITS.tar.gz OUTDIR [NAME...]}
TAR=${2:?usage: walks.sh EDITS.tsv EDITS.tar.gz OUTDIR [NAME...]}
OUTDIR=${3:?usage: walks.sh EDITS.tsv EDITS.tar.gz OUTDIR [NAME...]}
mkdir -p "$OUTDIR" || exit 1
shift 3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TA=$(cd "$(dirname "${TILEADVISE:-./src/tileadvise}")" && pwd)/$(basename "${TILEADVISE:-./src/tileadvise}")
W=$(mktemp -d "${TMPDIR:-/tmp}/ta-walks.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM
tar -C "$W" -xzf "$TAR" || exit 1
names=${*:-$(awk -F'\t' 'NR > 1 && $2 ~ /^[0-9]+$/ && !seen[$1]++ {print $1}' "$TSV")}
failed=0
for n in $names; do
	d="$W/$n"
	first="$d/rec-0.jsonl"
	[ -s "$first" ] || first=$(ls "$ROOT"/tests/recordings/*-example-"$n".jsonl 2>/dev/null | tail -n 1)
	if [ ! -d "$d" ] || [ -z "$first" ]; then
		echo "walks: $n: no versions or no first run in the archive" >&2
		failed=1
		continue
	fi
	# --step ID=rec-K.jsonl,vK.py for each measured step, in order.
	steps=$(awk -F'\t' -v n="$n" -v d="$d" '$1 == n && $2 ~ /^[0-9]+$/ && $5 == 0 {
		printf "--step %s=%s/rec-%s.jsonl,%s/v%s.py\n", $3, d, $2, d, $2 }' "$TSV")
	mkdir -p "$OUTDIR/$n"
	out=$(cd "$OUTDIR/$n" && pwd)/session-walk.h200.json
	# From the top of the tree, so that the session names examples/NAME/NAME.py
	# (--record-session leaves the file itself as it is).
	# shellcheck disable=SC2086
	if (cd "$ROOT" && "$TA" --record-session "$out" --gpu "${TA_GPU:-h200}" \
		--records "$first" $steps "examples/$n/$n.py"); then
		echo "walks: $n: $(printf '%s\n' "$steps" | grep -c -- --step) steps -> $OUTDIR/$n/session-walk.h200.json"
	else
		failed=1
	fi
done
exit $failed
