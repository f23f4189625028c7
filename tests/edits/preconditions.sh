#!/bin/sh
# Rewrite preconditions, both ways (tests/fixtures/edits/preconditions/cases):
# on a trap --apply refuses with the sentence that names the failed
# precondition (exit 2, file unchanged); on the true case beside it the edit
# still applies and its diff holds the expected line (--unsafe-fixes: the
# precondition is under test, not the safety gate). TAP.
# Env: TILEADVISE, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
fx="$TA_SRCDIR/tests/fixtures/edits/preconditions"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-pre-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cases=$(grep -v '^#' "$fx/cases")
plan $(printf '%s\n' "$cases" | wc -l)
printf '%s\n' "$cases" | {
n=0
while read -r id file want pattern; do
	n=$((n + 1))
	d="$tmp/$n"
	mkdir -p "$d"
	cp "$fx/$file" "$d/$file"
	(cd "$d" && "$TILEADVISE" --apply "$id" --unsafe-fixes "$file" >out 2>err)
	rc=$?
	if [ "$want" = refuses ]; then
		[ "$rc" = 2 ] && cmp -s "$d/$file" "$fx/$file" && grep -qE -- "$pattern" "$d/err"
		result $? "$id $file: refused ($pattern)" "rc=$rc $(cat "$d/err")"
	else
		[ "$rc" = 0 ] && grep -qE -- "$pattern" "$d/out"
		result $? "$id $file: applied ($pattern)" "rc=$rc $(cat "$d/err")"
	fi
done
finish
}
