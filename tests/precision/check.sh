#!/bin/sh
# The precision table and the default set (TAP): tests/PRECISION.md is what
# tests/precision/table.sh makes of the judged findings; every judged file is
# well formed; every entry of the default set (no TA_ENTRY_PREVIEW in
# entries.def) is at 90% strict precision or more on at least 10 judged
# findings, or on all its findings when the corpus had fewer; every entry of
# the default set has a judged file (one with no rows says "0 corpus
# findings"); on the development corpus (CORPUS, default /work/corpus; the
# checks are skipped, saying so, where it is absent) every judged row is still
# a finding of its entry at that file and line, and an entry judged on 0
# corpus findings still has none; and --check, --select, --preview and
# --list-rules treat the entries in preview as the README says.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TILEADVISE:?set TILEADVISE to the built binary}"
: "${TA_SRCDIR:?set TA_SRCDIR to the source tree}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-precision.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$TA_SRCDIR" || exit 99
dir=tests/precision
entries=$(awk '/^ENTRY\(/ { sub(/^ENTRY\(/, ""); split($0, f, ",");
	print f[1], (index($0, "TA_ENTRY_PREVIEW") ? "preview" : "default") }' src/checklist/entries.def)
n_entries=$(printf '%s\n' "$entries" | wc -l)
plan $((2 * n_entries + 10))

sh "$dir/table.sh" >"$tmp/table.md"
check_diff "tests/PRECISION.md is up to date (tests/precision/table.sh > tests/PRECISION.md)" \
	tests/PRECISION.md "$tmp/table.md"

# Form: the header line, the corpus count, then file, line, verdict, reason.
bad=
for f in "$dir"/*.tsv "$dir"/before/*.tsv; do
	[ -f "$f" ] || continue
	id=$(basename "$f" .tsv)
	printf '%s\n' "$entries" | grep -q "^$id " || bad="$bad
$f: $id is no entry of entries.def"
	msg=$(awk -F'\t' -v id="$id" '
		NR == 1 { if ($0 !~ "^# " id " judged [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] against [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+$")
			print FILENAME ":1: not \"# " id " judged YYYY-MM-DD against COMMIT\""; next }
		NR == 2 { if ($0 !~ /^# corpus findings: [0-9]+$/) print FILENAME ":2: not \"# corpus findings: N\""; next }
		/^#/ { next }
		NF != 4 || $1 == "" || $2 !~ /^[0-9]+$/ || $4 == "" {
			print FILENAME ":" NR ": not file<TAB>line<TAB>verdict<TAB>reason"; next }
		$3 != "true" && $3 != "false" && $3 != "debatable" { print FILENAME ":" NR ": verdict \"" $3 "\"" }
		seen[$0]++ == 1 { print FILENAME ":" NR ": the same row twice" }' "$f")
	[ -z "$msg" ] || bad="$bad
$msg"
done
result "$([ -z "$bad" ]; echo $?)" "every tests/precision/ID.tsv is well formed" "$bad"

# The bar, entry by entry.
printf '%s\n' "$entries" >"$tmp/entries"
while read -r id status; do
	f=$dir/$id.tsv
	if [ "$status" = preview ]; then
		ok "$id: in preview (not held to the bar)"
		continue
	fi
	if [ ! -f "$f" ]; then
		not_ok "$id: at least 90% on enough judged findings" "no judged file $f (one with no rows when the corpus has 0 findings)"
		continue
	fi
	verdict=$(awk -F'\t' 'NR == 2 { corpus = $0; sub(/^# corpus findings: /, "", corpus) }
		/^#/ { next } { n++; t += $3 == "true" }
		END { corpus += 0; n += 0; need = corpus < 10 ? corpus : 10
			if (n < need) print "judged " n " of the " need " needed"
			else if (n && t * 10 < n * 9) printf "%d of %d true (%.0f%%), below 90%%\n", t, n, 100 * t / n }' "$f")
	result "$([ -z "$verdict" ]; echo $?)" "$id: at least 90% on enough judged findings" "$verdict"
done <"$tmp/entries"

# The bar on fresh code: in the newest re-read of the default set
# (fresh/reread/default-DATE.tsv, today's warnings on public projects outside
# the development corpus, judged by reading), an entry judged on 10 findings
# or more that is below 90% strict is in preview.
fresh=$(ls "$dir"/fresh/reread/default-*.tsv 2>/dev/null | sort | tail -n 1)
if [ -n "$fresh" ]; then
	low=$(awk -F'\t' '!/^#/ && NF { n[$1]++; t[$1] += $4 == "true" }
		END { for (id in n) if (n[id] >= 10 && t[id] * 10 < n[id] * 9)
			printf "%s %d of %d\n", id, t[id], n[id] }' "$fresh" | sort)
	bad=
	while read -r id t of n; do
		[ -n "$id" ] || continue
		printf '%s\n' "$entries" | grep -q "^$id default$" && bad="$bad
$id: $t of $n true in $(basename "$fresh"), below 90%, and not in preview"
	done <<EOF_LOW
$low
EOF_LOW
	result "$([ -z "$bad" ]; echo $?)" "every entry below 90% on fresh code ($(basename "$fresh")) is in preview" "$bad"
	awk -F'\t' '!/^#/ && NF { n[$1]++; t[$1] += $4 == "true" }
		END { for (id in n) if (n[id] >= 10 && t[id] * 10 >= n[id] * 9) print id }' "$fresh" | sort |
		while read -r id; do
			printf '%s\n' "$entries" | grep -q "^$id preview$" &&
				tap_comment "$id: at 90% or more on fresh code, yet in preview"
		done
else
	skip "every entry below 90% on fresh code is in preview" "no tests/precision/fresh/reread/default-*.tsv"
fi

# The bar on every fresh project at its latest phase (the rows of
# "Today's default set on fresh code" in tests/PRECISION.md): an entry of
# the default set judged on 10 findings or more there is at 90% or more.
low=$(for f in "$dir"/fresh/*.tsv; do
	case $f in *.kernels.tsv) continue ;; esac
	last=$(awk -F'\t' '!/^#/ && NF { p = $1 } END { print p }' "$f")
	awk -F'\t' -v last="$last" '!/^#/ && NF && $1 == last { print $2 "\t" $5 }' "$f"
done | awk -F'\t' '{ n[$1]++; t[$1] += $2 == "true" }
	END { for (id in n) if (n[id] >= 10 && t[id] * 10 < n[id] * 9) printf "%s %d of %d\n", id, t[id], n[id] }' | sort)
bad=
while read -r id t of n; do
	[ -n "$id" ] || continue
	printf '%s\n' "$entries" | grep -q "^$id default$" && bad="$bad
$id: $t of $n true on the fresh projects at their latest phase, below 90%, and not in preview"
done <<EOF_LOW
$low
EOF_LOW
result "$([ -z "$bad" ]; echo $?)" "every default entry judged on 10 or more fresh findings is at 90% or more" "$bad"

# The judged rows against today's findings on the corpus: "ID file line" for
# every finding (one line per id of a finding), the way sample.sh counts them.
corpus=${CORPUS:-/work/corpus}
# A finding that stands for several sites (S1, once per kernel) counts at
# each of them: the JSON lists their lines.
if [ -d "$corpus" ]; then
	(cd "$corpus" && "$TILEADVISE" --check --exit-zero --preview --show-notes --format=json . 2>/dev/null) |
		python3 -c '
import json, sys
for d in json.load(sys.stdin)["diagnostics"]:
    f = d["file"][2:] if d["file"].startswith("./") else d["file"]
    for i in d.get("ids") or []:
        for line in [s["line"] for s in d.get("sites") or []] or [d["line"]]:
            print(i, f, line)' >"$tmp/found"
fi
while read -r id status; do
	f=$dir/$id.tsv
	name="$id: its judged findings are today's findings on the corpus"
	if [ ! -d "$corpus" ]; then skip "$name" "no corpus at $corpus (set CORPUS)"; continue; fi
	now=$(awk -v id="$id" '$1 == id' "$tmp/found" | wc -l)
	if [ ! -f "$f" ]; then
		result "$([ "$now" -eq 0 ]; echo $?)" "$name" "$now findings on the corpus and no $f"
		continue
	fi
	msg=$(awk -F'\t' -v id="$id" -v now="$now" '
		FNR == NR { split($0, w, " "); if (w[1] == id) have[w[2] "\t" w[3]] = 1; next }
		FNR == 2 { judged = $0; sub(/^# corpus findings: /, "", judged)
			if (judged + 0 == 0 && now > 0) print FILENAME ": judged on 0 corpus findings, the corpus has " now " now" }
		/^#/ || NF == 0 { next }
		!(($1 "\t" $2) in have) { print FILENAME ":" FNR ": " $1 ":" $2 " (" $3 ") is no " id " finding now: judge again" }
		' "$tmp/found" "$f")
	result "$([ -z "$msg" ]; echo $?)" "$name" "$msg"
	judged=$(sed -n 's/^# corpus findings: //p' "$f")
	[ "$judged" = "$now" ] || tap_comment "$id: judged when the corpus had $judged findings, it has $now now"
done <"$tmp/entries"

# The preview mechanism, on the first entry in preview that the rule cases
# (tests/entries/*.md, as files) or examples show.
cases=$(ta_cases "$tmp/cases") || exit 99
pv=$(printf '%s\n' "$entries" | awk '$2 == "preview" { print $1 }')
"$TILEADVISE" --list-rules >"$tmp/list"
want=$(printf '%s\n' "$entries" | awk '{ print $1, $2 }')
got=$(awk '$1 ~ /^[TLPSGD][0-9]+$/ { print $1, $5 }' "$tmp/list")
result "$([ "$want" = "$got" ]; echo $?)" "--list-rules shows each entry's status as entries.def has it" \
	"$(printf '%s\n' "$want" >"$tmp/w"; printf '%s\n' "$got" >"$tmp/g"; diff "$tmp/w" "$tmp/g")"
id=
for p in $pv; do
	"$TILEADVISE" --check --exit-zero --select "$p" "$cases/rules" examples >"$tmp/named" 2>/dev/null
	if grep -q "\[[^]]*\b$p\b[^]]*\]\$" "$tmp/named"; then id=$p; break; fi
done
if [ -z "$id" ]; then
	skip_rest "no entry in preview has a finding in the fixtures or examples"
	finish
fi
letter=$(printf %.1s "$id")
"$TILEADVISE" --check --exit-zero --show-notes "$cases/rules" examples >"$tmp/default" 2>/dev/null
"$TILEADVISE" --check --exit-zero --preview --show-notes "$cases/rules" examples >"$tmp/preview" 2>/dev/null
"$TILEADVISE" --check --exit-zero --show-notes --select "$letter" "$cases/rules" examples >"$tmp/letter" 2>/dev/null
"$TILEADVISE" --check --exit-zero --preview --show-notes --select "$letter" "$cases/rules" examples >"$tmp/letterp" 2>/dev/null
has() { grep -q "\[[^]]*\b$id\b[^]]*\]\$" "$1"; }
check "$id (preview): --check leaves it out by default" eval '! has "$tmp/default"'
check "$id (preview): --select $id reports it" has "$tmp/named"
check "$id (preview): --select $letter (its section) leaves it out" eval '! has "$tmp/letter"'
check "$id (preview): --preview reports it, with --select $letter too" eval 'has "$tmp/preview" && has "$tmp/letterp"'
# Everything else --preview adds is an entry in preview.
others=$(diff "$tmp/default" "$tmp/preview" | sed -n 's/^> //p' | grep -o '\[[A-Z0-9, ]*\]$' | tr -d '[]' | tr ',' '\n' |
	tr -d ' ' | sort -u)
extra=
for o in $others; do
	printf '%s\n' "$entries" | grep -q "^$o preview$" || grep -q "\[[^]]*\b$o\b[^]]*\]\$" "$tmp/default" || extra="$extra $o"
done
result "$([ -z "$extra" ]; echo $?)" "--preview adds only entries in preview" "added:$extra"
finish
