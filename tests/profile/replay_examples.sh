#!/bin/sh
# Replays the record streams captured on an H200 while running the bundled
# examples (tests/profiles/h200-*-example-NAME.jsonl) through decoding,
# grouping and statistics, and compares the whole --profile output (text and
# json) with the expected output stored beside each stream. Prints TAP.
set -u
dir="$TA_SRCDIR/tests/profiles"
n=0
fails=0
set -- "$dir"/h200-*-example-*.jsonl
echo "1..$(( $# * 2 ))"
for rec in "$@"; do
	name=${rec##*-example-}
	name=${name%.jsonl}
	file="$TA_SRCDIR/examples/$name/$name.py"
	for fmt in text json; do
		n=$((n + 1))
		want="${rec%.jsonl}.$fmt"
		got=$("$TILEADVISE" --profile --gpu h200 --format "$fmt" --records "$rec" "$file" 2>&1)
		if [ "$got" = "$(cat "$want")" ]; then
			echo "ok $n - replay of $name ($fmt) gives the recorded figures"
		else
			fails=$((fails + 1))
			echo "not ok $n - replay of $name ($fmt) gives the recorded figures"
			printf '%s\n' "$got" | diff "$want" - | sed 's/^/# /' | head -n 20
		fi
	done
done
[ "$fails" -eq 0 ]
