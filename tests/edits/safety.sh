#!/bin/sh
# Every mechanical edit keeps working code working (issue 14): for each case
# of tests/fixtures/safety/cases, a trap the edit must refuse (one line
# naming the failed precondition, exit 2, nothing written, no placeholder
# comment on stdout), a true case it still makes (safe: --apply alone), or
# an edit it makes only under a stated assumption (unsafe: --diff says it,
# --apply refuses it without --unsafe-fixes and makes it with). Every made
# edit still compiles (and holds the lines FILE.keep names, where there is
# one). Prints TAP.
. "$TA_SRCDIR/tests/lib/tap.sh"
fx="$TA_SRCDIR/tests/fixtures/safety"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-safety.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
compiles() {
	[ -z "$PYTHON3" ] || "$PYTHON3" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$1" 2>/dev/null
}
n=$(grep -cv '^\(#\|$\)' "$fx/cases")
plan "$n"
grep -v '^\(#\|$\)' "$fx/cases" >"$tmp/cases"
while read -r file spec outcome pattern; do
	# the fixture with its folder: a declared requirement sits beside it
	rm -rf "$tmp/w" && mkdir -p "$tmp/w/$(dirname "$file")"
	cp "$fx/$(dirname "$file")"/* "$tmp/w/$(dirname "$file")/" 2>/dev/null
	k="$tmp/w/$file"
	"$TILEADVISE" --diff="$spec" "$k" >"$tmp/diff" 2>"$tmp/derr"
	drc=$?
	case $outcome in
	refuse)
		"$TILEADVISE" --apply="$spec" --unsafe-fixes "$k" >"$tmp/out" 2>"$tmp/err"
		arc=$?
		[ $drc -eq 2 ] && [ $arc -eq 2 ] && [ ! -s "$tmp/diff" ] && [ ! -s "$tmp/out" ] &&
			[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$pattern" "$tmp/err" &&
			cmp -s "$fx/$file" "$k"
		result $? "$file $spec: refused, one line: $pattern" "diff rc=$drc apply rc=$arc: $(cat "$tmp/err")" ;;
	safe)
		"$TILEADVISE" --apply="$spec" "$k" >"$tmp/out" 2>"$tmp/err"
		arc=$?
		[ $drc -eq 0 ] && [ $arc -eq 0 ] && ! grep -q unsafe "$tmp/derr" "$tmp/err" &&
			cmp -s "$tmp/diff" "$tmp/out" && compiles "$k"
		result $? "$file $spec: a safe edit, made by --apply alone" "diff rc=$drc apply rc=$arc: $(cat "$tmp/derr" "$tmp/err")" ;;
	unsafe)
		"$TILEADVISE" --apply="$spec" "$k" >"$tmp/out" 2>"$tmp/err"
		arc=$?
		cmp -s "$fx/$file" "$k"
		unchanged=$?
		"$TILEADVISE" --apply="$spec" --unsafe-fixes "$k" >"$tmp/out2" 2>"$tmp/err2"
		urc=$?
		[ $drc -eq 0 ] && grep -q '^+++ ' "$tmp/diff" && grep -qF -- "$pattern" "$tmp/derr" &&
			[ $arc -eq 2 ] && [ $unchanged -eq 0 ] && grep -qF -- "$pattern" "$tmp/err" &&
			[ $urc -eq 0 ] && cmp -s "$tmp/diff" "$tmp/out2" && compiles "$k" &&
			{ [ ! -f "$fx/$file.keep" ] || ( while IFS= read -r l; do grep -qxF -- "$l" "$k" || exit 1; done <"$fx/$file.keep" ); }
		result $? "$file $spec: unsafe, stated: $pattern" "diff rc=$drc apply rc=$arc/$urc: $(cat "$tmp/derr" "$tmp/err" "$tmp/err2")" ;;
	*)
		result 1 "$file $spec: unknown outcome $outcome" ;;
	esac
done <"$tmp/cases"
finish
