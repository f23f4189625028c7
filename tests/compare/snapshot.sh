#!/bin/sh
# Records what tileadvise says about a set of files, so that a change meant to
# keep behaviour (a restructure) can be shown to keep it: for every file, the
# --check text and json, the --report json, and the --diff of every finding's
# id at its line. Run it before and after, then `diff -r BEFORE AFTER`.
#
#   tests/compare/snapshot.sh TILEADVISE LIST OUTDIR
#
# LIST names one .py file per line; OUTDIR receives one folder per file
# (the path with / turned into %), each with check.txt, check.json,
# report.json and diffs.txt.
set -u
ta=$1 list=$2 out=$3
mkdir -p "$out"
while IFS= read -r f; do
	d="$out/$(printf '%s' "$f" | tr '/' '%')"
	mkdir -p "$d"
	"$ta" --check "$f" > "$d/check.txt" 2>&1; echo "exit $?" >> "$d/check.txt"
	"$ta" --check --format=json "$f" > "$d/check.json" 2>&1
	"$ta" --report --format=json "$f" > "$d/report.json" 2>&1
	: > "$d/diffs.txt"
	# one --diff per distinct id:line of the text diagnostics
	sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: [a-z]*: .*\[\([A-Z0-9, ]*\)\]$/\2|\1/p' "$d/check.txt" | sort -u |
	while IFS='|' read -r ids line; do
		for id in $(printf '%s' "$ids" | tr ',' ' '); do
			printf '=== %s:%s\n' "$id" "$line" >> "$d/diffs.txt"
			"$ta" --diff="$id:$line" "$f" >> "$d/diffs.txt" 2>&1
			echo "exit $?" >> "$d/diffs.txt"
		done
	done
done < "$list"
