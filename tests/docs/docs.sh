#!/bin/sh
# The man page and the README must cover every option of src/options.def,
# and the man page's CHECKLIST section must list the entries of
# src/checklist/entries.def as --list-rules prints them (ids, order and
# titles): they are written for users and must not drift from the program.
# (--help prints options.def itself, so it is not checked against it.)
# Prints TAP (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
man="$TA_SRCDIR/man/tileadvise.1"
defs="$TA_SRCDIR/src/options.def"

options=$(sed -n 's/^OPTION("\([a-z-]*\)".*/\1/p' "$defs")
ids=$("$TILEADVISE" --list-rules | awk '$1 ~ /^[TLPSGD][0-9]+$/ {print $1}')
count=$(( $(echo "$options" | wc -l) * 2 + $(echo "$ids" | wc -l) + 4 ))
plan "$count"

readme="$TA_SRCDIR/README.md"
for o in $options; do
	manname=$(echo "$o" | sed 's/-/\\\\-/g')
	if grep -q -- "\\\\-\\\\-$manname" "$man"; then ok "man page documents --$o"
	else not_ok "man page documents --$o"; fi
	case $o in
	help | version) skip "README mentions --$o" "every program has it" ;;
	*)
		if grep -q -- "--$o\>" "$readme"; then ok "README mentions --$o"
		else not_ok "README mentions --$o"; fi ;;
	esac
done
for id in $ids; do
	if grep -q "^\.B $id\$" "$man"; then ok "man page lists checklist entry $id"
	else not_ok "man page lists checklist entry $id"; fi
done
# The whole CHECKLIST section against the table: "ID<tab>title" per entry, in
# order, from the man page (escapes undone) and from --list-rules.
from_man=$("$PYTHON3" - "$man" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
sec = text.split("\n.SH CHECKLIST\n", 1)[1].split("\n.SH ", 1)[0].split("\n")
def plain(s):
    s = re.sub(r"\\\[u([0-9A-Fa-f]{4})\]", lambda m: chr(int(m.group(1), 16)), s)
    for a, b in (("\\-", "-"), ("\\(mu", "\u00d7"), ("\\(->", "\u2192"), ("\\(sc", "\u00a7"),
                 ("\\(aq", "'"), ("\\&", "")):
        s = s.replace(a, b)
    return s
for i, line in enumerate(sec):
    m = re.match(r"\.B ([TLPSGD][0-9]+)$", line)
    if m:
        print("%s\t%s" % (m.group(1), plain(sec[i + 1])))
PY
)
from_table=$("$TILEADVISE" --list-rules | awk '$1 ~ /^[TLPSGD][0-9]+$/ {
	id = $1; $1 = $2 = $3 = $4 = $5 = $6 = ""; sub(/^ +/, ""); print id "\t" $0 }')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-docs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$from_man" >"$tmp/man"
printf '%s\n' "$from_table" >"$tmp/table"
check_diff "man page CHECKLIST section equals the table (ids, order, titles)" "$tmp/table" "$tmp/man"
# The key list and the CHECKLIST section are written by man/gen-sections.py
# from keys.def, entries.def and checklist.json: the page is as it writes it.
"$PYTHON3" "$TA_SRCDIR/man/gen-sections.py" --check "$TA_SRCDIR" >"$tmp/gen.diff" 2>&1
result $? "man page's generated parts are as man/gen-sections.py writes them (run it after changing a .def)" \
	"$(head -n 30 "$tmp/gen.diff")"
# The checklist's page (a SARIF rule's helpUri) is as data/gen-checklist-html.py
# writes it from the catalog.
"$PYTHON3" "$TA_SRCDIR/data/gen-checklist-html.py" --check "$TA_SRCDIR" >"$tmp/html.diff" 2>&1
result $? "data/checklist.html is as data/gen-checklist-html.py writes it (run it after changing checklist.json)" \
	"$(head -n 30 "$tmp/html.diff")"
if command -v groff >/dev/null 2>&1; then
	warnings=$(groff -man -ww -z "$man" 2>&1)
	if [ -z "$warnings" ]; then ok "groff -man -ww -z reports nothing"
	else not_ok "groff -man -ww -z reports nothing" "$warnings"; fi
else
	skip "groff -man -ww -z reports nothing" "groff not installed"
fi
finish
