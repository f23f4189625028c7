#!/bin/sh
# Replays the record streams captured on an H200 while running the bundled
# examples (tests/recordings/h200-*-example-NAME.jsonl) through decoding,
# grouping and statistics, and compares the whole --profile output (text and
# json) with the expected output stored beside each stream. Prints TAP
# (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
dir="$TA_SRCDIR/tests/recordings"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-replay-ex.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
set -- "$dir"/h200-*-example-*.jsonl
plan $(( $# * 2 ))
for rec in "$@"; do
	name=${rec##*-example-}
	name=${name%.jsonl}
	file="$TA_SRCDIR/examples/$name/$name.py"
	for fmt in text json; do
		want="${rec%.jsonl}.$fmt"
		# Both sides as $(...) leaves them: trailing newlines dropped.
		printf '%s\n' "$(cat "$want")" >"$tmp/want"
		printf '%s\n' "$("$TILEADVISE" --profile --gpu h200 --format "$fmt" --records "$rec" "$file" 2>&1)" >"$tmp/got"
		check_diff "replay of $name ($fmt) gives the recorded figures" "$tmp/want" "$tmp/got"
	done
done
finish
