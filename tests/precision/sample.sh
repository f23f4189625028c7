#!/bin/sh
# Draws the findings of one checklist entry to judge (tests/precision/README):
#
#   tests/precision/sample.sh ID [N]
#
# runs `tileadvise --check --preview --show-notes --select ID` over the development corpus
# (CORPUS, default /work/corpus, one folder per project), prints to stderr how
# many findings ID has there, and to stdout up to N (default 12) of them as
# rows to judge: file, line, "?" and the message, tab-separated. The rows are
# spread over the projects (one from each in turn) and, inside a project, over
# its files (evenly spaced through its findings), so no one file dominates.
# TILEADVISE names the binary (default: _build/src/tileadvise); FINDINGS, a
# file holding the output of `tileadvise --check --preview --show-notes .` run in the
# corpus, saves running it again for each entry.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
id=${1:?usage: sample.sh ID [N]}
n=${2:-12}
ta=${TILEADVISE:-$top/_build/src/tileadvise}
corpus=${CORPUS:-/work/corpus}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-sample.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${FINDINGS:-}" ]; then cat "$FINDINGS"
else (cd "$corpus" && "$ta" --check --exit-zero --preview --show-notes --select "$id" . 2>/dev/null)
fi |
	sed 's|^\./||' |
	awk -v id="$id" '{ if (match($0, /\[[A-Z0-9, ]+\]$/)) { ids = substr($0, RSTART + 1, RLENGTH - 2)
		if (index(", " ids ",", " " id ",")) print } }' >"$tmp/all"
echo "$id: $(wc -l <"$tmp/all") findings on the corpus" >&2
# file:line:col: level: message [IDS]  ->  project, file, line, message
awk -F: -v OFS='\t' '{
	file = $1; line = $2; msg = $0
	sub(/^[^:]*:[^:]*:[^:]*: [a-z]*: /, "", msg); sub(/ \[[A-Z0-9, ]+\]$/, "", msg)
	split(file, p, "/"); print p[1], file, line, msg }' "$tmp/all" >"$tmp/rows"
# Per project: its findings evenly spaced; then one project after another.
awk -F'\t' -v n="$n" -v OFS='\t' '
	{ c[$1]++; row[$1, c[$1]] = $2 OFS $3 OFS "?" OFS $4; if (c[$1] == 1) order[++np] = $1 }
	END {
		got = 0
		for (round = 1; got < n; round++) {
			more = 0
			for (i = 1; i <= np && got < n; i++) {
				pr = order[i]; k = c[pr]
				take = round <= k ? k : 0
				if (!take) continue
				more = 1
				# the round-th pick of k findings, spread: 1, k/2, k/4, 3k/4...
				idx = int((round - 1) * k / (k < n ? k : n)) + 1
				if (idx > k) continue
				if (seen[pr, idx]++) continue
				print row[pr, idx]; got++
			}
			if (!more) break
		}
	}' "$tmp/rows"
