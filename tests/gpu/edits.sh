#!/bin/sh
# Every mechanical edit tileadvise finds in the bundled examples, applied in
# order on a copy of each example and measured on the GPU: after each step
# the example runs under `tileadvise --profile --baseline <previous version>`
# (its own correctness check decides the exit status; the comparison gives
# the ratio of medians with its bootstrap interval and verdict).
# Usage: tests/gpu/edits.sh OUTDIR [NAME...]. Needs a carried build in
# $TA_DEVBUILD (default .devbuild). Writes OUTDIR/edits.log,
# OUTDIR/edits.tsv (example, step, id, rc, the comparison lines) and
# OUTDIR/edits.tar.gz (every version and its record stream: vK.py ran as
# rec-K.jsonl, v0 the example as committed; tests/gpu/walks.sh turns it into
# the examples' recorded walks).
set -u
OUTDIR=${1:?usage: edits.sh OUTDIR [NAME...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
TA="$B/src/tileadvise"
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
export PYTHONUNBUFFERED=1
names=${*:-softmax layernorm matmul attention cat}
# The entries this build rewrites itself (the EDIT column of --list-rules).
MECHANICAL=$("$TA" --list-rules | awk '$3 == "mechanical" {print $1}' | tr '\n' ' ')
mkdir -p "$OUTDIR"
log="$OUTDIR/edits.log"
tsv="$OUTDIR/edits.tsv"
: > "$log"
printf 'example\tstep\tid\tsites\trc\tcomparison\town timing (bare, previous then new)\n' > "$tsv"
W=$(mktemp -d /tmp/ta-edits.XXXXXX)
bare_timing() {  # the example's own timing lines of one version, run bare, on one line
	python3 "$1" 2>&1 | grep -E '^[a-z]+(\[.*\])?: triton' | sed "s|^|$(basename "$1" .py) |" | tr '\n\t' '  '
}
for n in $names; do
	own_new=
	echo "=== $n $(date -u +%H:%M:%S)" >> "$log"
	d="$W/$n"
	mkdir -p "$d"
	cp "$ROOT/examples/$n/$n.py" "$d/$n.py"
	cp "$d/$n.py" "$d/v0.py"
	# v0's own run: the first run of the walk that tests/gpu/walks.sh records.
	"$TA" --profile --timeout 300 --save-records "$d/rec-0.jsonl" "$d/v0.py" >> "$log" 2>&1
	step=0
	# Every id of every diagnostic, in file order ("[S3, G4]" gives both).
	ids=$("$TA" --check "$d/$n.py" 2>/dev/null | grep -o '\[[A-Z][0-9, A-Z]*\]$' | tr -d '[] ' | tr ',' '\n' |
		awk '!seen[$0]++')
	echo "=== $n: findings $(echo $ids)" >> "$log"
	for id in $ids; do
		case " $MECHANICAL " in *" $id "*) ;; *) continue ;; esac
		sites=0
		while [ $sites -lt 12 ] && "$TA" --apply "$id" --unsafe-fixes "$d/$n.py" >> "$log" 2>&1; do
			sites=$((sites + 1))
		done
		[ $sites -gt 0 ] || continue
		prev="$d/v$step.py"
		step=$((step + 1))
		cp "$d/$n.py" "$d/v$step.py"
		echo "--- $n step $step: $id ($sites sites), measured against v$((step - 1)) $(date -u +%H:%M:%S)" >> "$log"
		# The baseline is the previous version, run the same way.
		"$TA" --profile --timeout 300 --baseline "python3 $prev" \
			--save-records "$d/rec-$step.jsonl" "$d/v$step.py" > "$W/out.txt" 2>&1
		rc=$?
		cat "$W/out.txt" >> "$log"
		cmp=$(grep -i -E 'baseline|ratio|faster|slower|noise' "$W/out.txt" | head -n 3 | tr '\n\t' '  ')
		# The example's own do_bench lines, previous and new version, run bare
		# (the previous version's were taken at the step before, when it was new).
		[ -n "${own_new:-}" ] || own_new=$(bare_timing "$prev")
		own_prev=$own_new
		own_new=$(bare_timing "$d/v$step.py")
		own="$own_prev $own_new"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$step" "$id" "$sites" "$rc" "$cmp" "$own" >> "$tsv"
	done
	# EDITS_NO_TOTAL=1 skips the first-to-last comparison (a long example's
	# call can then fit its steps in the time it has).
	if [ $step -gt 1 ] && [ -z "${EDITS_NO_TOTAL:-}" ]; then
		echo "--- $n: last version v$step against the original v0" >> "$log"
		"$TA" --profile --timeout 300 --baseline "python3 $d/v0.py" "$d/v$step.py" > "$W/out.txt" 2>&1
		rc=$?
		cat "$W/out.txt" >> "$log"
		cmp=$(grep -i -E 'baseline|ratio|faster|slower|noise' "$W/out.txt" | head -n 3 | tr '\n\t' '  ')
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "total" "v0..v$step" "-" "$rc" "$cmp" >> "$tsv"
	fi
	# Every version and record stream so far, in one archive (few files come
	# back, and a call cut short still returns the examples it finished).
	tar -C "$W" -czf "$OUTDIR/edits.tar.gz" . 2>/dev/null
done
echo "=== done $(date -u +%H:%M:%S)" >> "$log"
cat "$tsv"
