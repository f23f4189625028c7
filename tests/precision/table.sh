#!/bin/sh
# Writes tests/PRECISION.md (to stdout) from the judged findings in
# tests/precision/ID.tsv and the entries' status in src/checklist/entries.def:
#
#   tests/precision/table.sh > tests/PRECISION.md
#
# It fails when an entry of the default set has no judged file. tests/precision/check.sh
# fails when the committed file differs from this output, when an entry of
# the default set is below the bar, and when a judged row is no finding today.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/tests/precision
# The per-entry table of "ID<TAB>verdict" lines on stdin: judged, true,
# false, debatable and strict precision per entry, then all of them.
entry_table() {
	printf '| Entry | Judged | True | False | Debatable | Strict precision |\n'
	printf '|-------|-------:|-----:|------:|----------:|-----------------:|\n'
	awk -F'\t' '{ n[$1]++; v[$1, $2]++; t++; tv[$2]++ }
		END {
			for (id in n)
				printf "| %s | %d | %d | %d | %d | %.0f%% |\n", id, n[id], v[id, "true"], v[id, "false"],
					v[id, "debatable"], 100 * v[id, "true"] / n[id]
			printf "| zz all | %d | %d | %d | %d | %.1f%% |\n", t, tv["true"], tv["false"], tv["debatable"],
				100 * tv["true"] / t
		}' | sort -t'|' -k2,2 | sed 's/^| zz all /| all /'
}
# "ID status" per entry, in the table's order (preview: TA_ENTRY_PREVIEW).
entries=$(awk '/^ENTRY\(/ { sub(/^ENTRY\(/, ""); split($0, f, ",");
	print f[1], (index($0, "TA_ENTRY_PREVIEW") ? "preview" : "default") }' "$top/src/checklist/entries.def")
# An entry of the default set is judged, or its file says 0 corpus findings.
missing=$(printf '%s\n' "$entries" | while read -r id status; do
	[ "$status" = preview ] || [ -f "$dir/$id.tsv" ] || printf ' %s' "$id"
done)
if [ -n "$missing" ]; then
	echo "table.sh: default entries with no tests/precision/ID.tsv:$missing (judge them, or write the file with 0 corpus findings)" >&2
	exit 1
fi
cat <<'HEAD'
# Precision of the checklist's findings, measured by reading

Each entry's findings on the development corpus (`/work/corpus`: Liger-Kernel,
FlagGems, flash-linear-attention, lightllm, kernl, attorch, triton-lang/kernels,
applied-ai, mamba, unsloth, torchao) were drawn with `tests/precision/sample.sh
ID` (spread over projects and files) and judged one by one against the entry's
definition in CHECKLIST.md, reading the code around each: **true** (the
finding holds and its message states only what is so), **false**, or
**debatable**. The verdicts, with the file, line and a one-line reason, are
in `tests/precision/ID.tsv`; this file is made from them by
`tests/precision/table.sh`.

*Strict precision* is true / judged. *Corpus* is how many findings the entry
had on the corpus when judged (all of them are judged when fewer than 10).
The **default** set (reported by `--check`) holds the entries at 90% or more
on at least 10 judged findings (or all of them); an entry below that is in
**preview**: `--check` reports it with `--preview` or `--select ID`, the
advisor shows it as a hint. The status is the `TA_ENTRY_PREVIEW` flag of
`src/checklist/entries.def`, the one place it is kept;
`tests/precision/check.sh` holds the default set to the bar.

HEAD
# The date of the latest judgement, from the judged files' first lines.
latest=$(awk 'FNR == 1 && sub(/^# [A-Z0-9]* judged /, "") { print $1 }' "$dir"/*.tsv | sort | tail -n 1)
printf 'Latest judgement: %s.\n\n' "$latest"
cat <<'HEAD'
| Entry | Judged | True | False | Debatable | Strict precision | Corpus | Judged on | Status |
|-------|-------:|-----:|------:|----------:|-----------------:|-------:|-----------|--------|
HEAD
# One row of the table from a judged file.
row() {
	awk -F'\t' -v id="$1" -v status="$2" '
		NR == 1 { date = $0; sub(/^# [A-Z0-9]+ judged /, "", date); split(date, d, " "); date = d[1]; commit = d[3]; next }
		/^# corpus findings: / { corpus = $0; sub(/^# corpus findings: /, "", corpus); next }
		/^#/ || NF == 0 { next }
		{ n++; v[$3]++ }
		END {
			p = n ? sprintf("%.0f%%", 100 * v["true"] / n) : "no findings"
			printf "| %s | %d | %d | %d | %d | %s | %s | %s (%s) | %s |\n", id, n, v["true"], v["false"],
				v["debatable"], p, corpus == "" ? "?" : corpus, date, commit, status
		}' "$3"
}
printf '%s\n' "$entries" | while read -r id status; do
	f=$dir/$id.tsv
	if [ -f "$f" ]; then
		row "$id" "$status" "$f"
	else
		printf '| %s | – | – | – | – | not judged | – | – | %s |\n' "$id" "$status"
	fi
done
# The judgements made before a detector was fixed, kept for comparison.
if ls "$dir"/before/*.tsv >/dev/null 2>&1; then
	cat <<'BEFORE'

## Before the fixes of issue 15

The same kind of sample, judged on the detectors as they were before the
fixes (`tests/precision/before/ID.tsv`). The status column is today's.

| Entry | Judged | True | False | Debatable | Strict precision | Corpus | Judged on | Status |
|-------|-------:|-----:|------:|----------:|-----------------:|-------:|-----------|--------|
BEFORE
	printf '%s\n' "$entries" | while read -r id status; do
		if [ -f "$dir/before/$id.tsv" ]; then row "$id" "$status" "$dir/before/$id.tsv"; fi
	done
fi
# Fresh code: public projects outside the development corpus, judged by
# reading all (or a sample) of their findings and some kernels for misses.
if ls "$dir"/fresh/*.tsv >/dev/null 2>&1; then
	cat <<'FRESH'

## Fresh code, not the development corpus

Public projects neither in the development corpus nor judged before nor in
`../shared/RESERVED.txt` (issue 29, item 4), read the same strict way: every
finding of `--check --preview` (or a sample), one row per entry id of a
finding, in `tests/precision/fresh/PROJECT.tsv`, before and after the
detectors changed; and kernels drawn at random read whole for what the
checklist misses, in `PROJECT.kernels.tsv`. Recall is the ids found true on
those kernels over those found and missed. These figures, not the
development corpus's above, say how the checklist does on code written
elsewhere.
FRESH
	for f in "$dir"/fresh/*.tsv; do
		case $f in *.kernels.tsv) continue ;; esac
		k=${f%.tsv}.kernels.tsv
		head -n 1 "$f" | sed 's/^# /\n/; s/$/./'
		# the header's notes on each phase, up to the columns' line
		awk 'NR > 1 && /^# / && !/^# phase\t/ { sub(/^# /, "- "); print; next } NR > 1 { exit }' "$f"
		printf '\n| Entry | Phase | Judged | True | False | Debatable | Strict precision |\n'
		printf '|-------|-------|-------:|-----:|------:|----------:|-----------------:|\n'
		awk -F'\t' '/^#/ || NF == 0 { next }
			{ k = $2 "\t" $1; if (!(k in n)) order[++no] = k; n[k]++; v[k, $5]++
			  t[$1]++; tv[$1, $5]++ }
			END {
				for (i = 1; i <= no; i++) {
					split(order[i], p, "\t"); k = order[i]
					printf "| %s | %s | %d | %d | %d | %d | %.0f%% |\n", p[1], p[2], n[k], v[k, "true"],
						v[k, "false"], v[k, "debatable"], 100 * v[k, "true"] / n[k]
				}
				for (ph in t)
					printf "| all | %s | %d | %d | %d | %d | %.0f%% |\n", ph, t[ph], tv[ph, "true"],
						tv[ph, "false"], tv[ph, "debatable"], 100 * tv[ph, "true"] / t[ph]
			}' "$f" | sort -t'|' -k2,2 -k3,3r
		[ ! -f "$k" ] || awk -F'\t' '/^#/ || NF == 0 { next }
			{ nk[$1]++; f = $5 == "-" ? 0 : split($5, a, /[, ]+/); m = $6 == "-" ? 0 : split($6, b, /[, ]+/)
			  found[$1] += f; missed[$1] += m }
			END { printf "\n"
				for (ph in nk)
					printf "Recall, %s: %d of %d (%.0f%%) on %d kernels read.\n", ph, found[ph],
						found[ph] + missed[ph], 100 * found[ph] / (found[ph] + missed[ph]), nk[ph] }' "$k" | sort
		[ -f "$k" ] || printf '\nNo kernels read for recall.\n'
	done
	# Findings re-read after a change, kept apart from the projects' phases.
	for f in "$dir"/fresh/reread/*.tsv; do
		[ -f "$f" ] || continue
		case $(basename "$f") in default-*) continue ;; esac
		printf '\n### Re-read: %s\n\n' "$(basename "$f" .tsv)"
		sed -n '1,2p' "$f" | sed 's/^# /- /'
		awk -F'\t' '!/^#/ && NF { n++; a[$4]++; b[$5]++ }
			END { printf "\n%d findings: then %d true, %d false, %d debatable; now %d true, %d false, %d debatable, %d withdrawn (%d rightly).\n",
				n, a["true"], a["false"], a["debatable"], b["true"], b["false"], b["debatable"],
				b["withdrawn-right"] + b["withdrawn-wrong"], b["withdrawn-right"] }' "$f"
	done
	# The default set re-read on today's warnings (what --check prints
	# without --preview), entry by entry: the bar of the default set.
	for f in "$dir"/fresh/reread/default-*.tsv; do
		[ -f "$f" ] || continue
		printf '\n### Default set re-read: %s\n\n' "$(basename "$f" .tsv | sed 's/^default-//')"
		awk '/^# / && !/^# id\t/ { sub(/^# /, "- "); print }' "$f"
		printf '\n'
		awk -F'\t' '!/^#/ && NF { print $1 "\t" $4 }' "$f" | entry_table
	done
	# Every project at its latest phase (the phase of its file's last row),
	# summed: the figure issue 29 measures against.
	printf '\n### All fresh projects, each at its latest phase\n\n'
	for f in "$dir"/fresh/*.tsv; do
		case $f in *.kernels.tsv) continue ;; esac
		last=$(awk -F'\t' '!/^#/ && NF { p = $1 } END { print p }' "$f")
		awk -F'\t' -v last="$last" '!/^#/ && NF && $1 == last { print $2 "\t" $5 }' "$f"
	done | entry_table
	# The same rows for the entries of today's default set: what a user of
	# plain --check reads (warnings), and with the trigger notes that
	# --show-notes and the advisor add. tests/precision/check.sh puts an
	# entry judged on 10 or more of them below 90% in preview.
	defaults=$(printf '%s\n' "$entries" | awk '$2 == "default" { printf " %s", $1 }')
	for f in "$dir"/fresh/*.tsv; do
		case $f in *.kernels.tsv) continue ;; esac
		last=$(awk -F'\t' '!/^#/ && NF { p = $1 } END { print p }' "$f")
		awk -F'\t' -v last="$last" '!/^#/ && NF && $1 == last { print $2 "\t" $5 }' "$f"
	done | awk -F'\t' -v d="$defaults " 'index(d, " " $1 " ")' >"${TMPDIR:-/tmp}/ta-table-default.$$"
	cat <<'DEFAULT'

### Today's default set on fresh code

The rows above of the entries in the default set now, each project at its
latest phase. Warnings are what `--check` prints; the trigger notes (T1-T5)
are added by `--show-notes` and the advisor. Issue 29 asks 95% overall and
90% for every default entry, on at least 100 findings from two projects or
more.

DEFAULT
	grep -v '^T' "${TMPDIR:-/tmp}/ta-table-default.$$" | entry_table | sed 's/^| all |/| all warnings |/'
	printf '
With the trigger notes: '
	awk -F'\t' '{ n++; t += $2 == "true" } END { printf "%d of %d true (%.1f%%).\n", t, n, n ? 100 * t / n : 0 }' \
		"${TMPDIR:-/tmp}/ta-table-default.$$"
	rm -f "${TMPDIR:-/tmp}/ta-table-default.$$"
fi
