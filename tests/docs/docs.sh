#!/bin/sh
# The man page and --help must cover every option of src/options.def and
# every checklist entry --list-rules prints: they are written for users and
# must not drift from the program. Prints TAP.
set -u
man="$TA_SRCDIR/man/tileadvise.1"
defs="$TA_SRCDIR/src/options.def"
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

options=$(sed -n 's/^OPTION("\([a-z-]*\)".*/\1/p' "$defs")
ids=$("$TILEADVISE" --list-rules | awk '$1 ~ /^[TLPSGD][0-9]+$/ {print $1}')
count=$(( $(echo "$options" | wc -l) * 2 + $(echo "$ids" | wc -l) + 1 ))
echo "1..$count"

help=$("$TILEADVISE" --help)
for o in $options; do
	manname=$(echo "$o" | sed 's/-/\\\\-/g')
	if grep -q -- "\\\\-\\\\-$manname" "$man"; then ok "man page documents --$o"
	else not_ok "man page documents --$o"; fi
	if echo "$help" | grep -q -- "--$o"; then ok "--help lists --$o"
	else not_ok "--help lists --$o"; fi
done
for id in $ids; do
	if grep -q "^\.B $id\$" "$man"; then ok "man page lists checklist entry $id"
	else not_ok "man page lists checklist entry $id"; fi
done
if command -v groff >/dev/null 2>&1; then
	warnings=$(groff -man -ww -z "$man" 2>&1)
	if [ -z "$warnings" ]; then ok "groff -man -ww -z reports nothing"
	else not_ok "groff -man -ww -z reports nothing: $warnings"; fi
else
	ok "groff -man -ww -z reports nothing # SKIP groff not installed"
fi
[ "$fails" -eq 0 ]
