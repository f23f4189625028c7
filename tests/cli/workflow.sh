#!/bin/sh
# --check as a ruff-style workflow: --statistics counts the findings per id,
# and "-" reads the file from standard input.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-wf-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
ex="$TA_SRCDIR/examples"
plan 12

# --statistics: one line per id, its count the number of findings --check
# prints with that id first, most first.
"$TILEADVISE" --check "$ex" >"$tmp/full" 2>/dev/null
"$TILEADVISE" --check --statistics "$ex" >"$tmp/stats" 2>"$tmp/err"
rc=$?
result $([ $rc -eq 1 ] && echo 0 || echo 1) "--statistics exits 1 on findings, as --check does" "rc=$rc"
sed -n 's/.*\[\([A-Z][0-9]*\)[],].*/\1/p' "$tmp/full" | sort | uniq -c |
	awk '{ printf "%s %s\n", $2, $1 }' | sort >"$tmp/want"
sed '$d' "$tmp/stats" >"$tmp/ids"
awk '{ printf "%s %s\n", $2, $1 }' "$tmp/ids" | sort >"$tmp/got"
check_diff "--statistics counts each id's findings" "$tmp/want" "$tmp/got"
awk 'NR > 1 && $1 > prev { bad = 1 } { prev = $1 } END { exit bad }' "$tmp/ids"
result $? "--statistics lists the most frequent first" "$(cat "$tmp/stats")"
grep -q '^ *[0-9][0-9]*  D4     \[\*\] tl.expand_dims in a hot loop$' "$tmp/ids" &&
	grep -q '^ *[0-9][0-9]*  D11        Masks on tiles that are always full$' "$tmp/ids"
result $? "each line gives the count, the id, [*] where the tool writes the edit, and the title" "$(head -3 "$tmp/stats")"
# The last line: the total, and how many findings are of entries with an
# edit (with --fixes: how many can be edited at their site).
total=$(awk '{ n += $1 } END { print n }' "$tmp/ids")
marked=$(awk '$3 == "[*]" { n += $1 } END { print n + 0 }' "$tmp/ids")
tail -n 1 "$tmp/stats" | grep -q "^ *$total  findings; $marked of them of entries marked \[\*\]"
result $? "--statistics ends with the total and the findings of entries marked [*]" "$(tail -n 1 "$tmp/stats")"
"$TILEADVISE" --check --statistics --fixes "$ex" >"$tmp/statsfix" 2>/dev/null
edits=$("$TILEADVISE" --check --fixes "$ex" 2>/dev/null | grep -c ': note: \(safe\|unsafe\) ')
tail -n 1 "$tmp/statsfix" | grep -q "^ *$total  findings; $edits of them can be edited at their site"
result $? "with --fixes, how many can be edited at their site" "$(tail -n 1 "$tmp/statsfix") (notes: $edits)"
"$TILEADVISE" --check --statistics --format=json "$ex" >/dev/null 2>"$tmp/err"
rc=$?
result $([ $rc -eq 2 ] && grep -q 'statistics prints text' "$tmp/err" && echo 0 || echo 1) \
	"--statistics with another format is refused" "rc=$rc" "$(cat "$tmp/err")"

# "-": the file on standard input, named "-" in the diagnostics.
f="$ex/attention/attention.py"
"$TILEADVISE" --check "$f" >"$tmp/file" 2>&1
"$TILEADVISE" --check - <"$f" >"$tmp/stdin" 2>&1
rc=$?
result $([ $rc -eq 1 ] && echo 0 || echo 1) "- exits as the file does" "rc=$rc"
sed "s|^$f:|-:|" "$tmp/file" >"$tmp/want"
check_diff "- reports what the file reports, under the name -" "$tmp/want" "$tmp/stdin"
cat "$f" | "$TILEADVISE" --check --format=json - >"$tmp/json" 2>&1
grep -q '"file": "-"' "$tmp/json"
result $? "- from a pipe, in json" "$(head -c 300 "$tmp/json")"
printf 'def f(:\n' | "$TILEADVISE" --check - >"$tmp/out" 2>&1
rc=$?
result $([ $rc -ne 0 ] && grep -q '^-:1:' "$tmp/out" && echo 0 || echo 1) \
	"a syntax error on standard input is reported on its line" "rc=$rc" "$(cat "$tmp/out")"
"$TILEADVISE" --check - - <"$f" >"$tmp/out" 2>"$tmp/err"
rc=$?
result $([ $rc -eq 2 ] && grep -q "give '-' once" "$tmp/err" && echo 0 || echo 1) \
	"- given twice is refused" "rc=$rc" "$(cat "$tmp/err")"
finish
