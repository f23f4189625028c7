#!/bin/sh
# --check, --diff and --apply agree (issue 13): for every finding of an entry
# the tool writes, over the examples and the fixtures, `--check --fixes` says
# whether the edit can be made at that finding's site, and `--diff=ID:LINE`
# does exactly that: a diff (exit 0) where --check says it can, the same
# reason and exit 2 where it says it cannot. A guided entry's --diff is a
# template at the finding, or the diff of a rewrite the tool only shows
# (exit 0); an id with no finding on a line is
# refused (exit 2). Prints TAP.
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-agree.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# One line per finding: ID LINE AVAILABLE REASON (AVAILABLE: yes, no, or
# guided for entries the tool does not write; triggers left out).
findings() {
	"$TILEADVISE" --check --preview --fixes --format=json "$1" 2>/dev/null | "$PYTHON3" -c '
import json, sys
for d in json.load(sys.stdin)["diagnostics"]:
    if not d["id"] or d["id"].startswith("T") or d["id"] == "X0":
        continue
    fix = d.get("fix")
    state = "guided" if fix is None else ("yes" if fix["available"] else "no")
    print(d["id"], d["line"], state, (fix or {}).get("reason", ""))'
}

files=$(ls "$TA_SRCDIR"/examples/*/*.py "$TA_SRCDIR"/tests/fixtures/rules/*.py \
	"$TA_SRCDIR"/tests/fixtures/edits/*.before.py)
plan 5
total=0 made=0 refused=0 guided=0
: >"$tmp/bad"
for f in $files; do
	cp "$f" "$tmp/k.py"
	findings "$tmp/k.py" >"$tmp/list"
	while read -r id line state reason; do
		total=$((total + 1))
		"$TILEADVISE" --diff="$id:$line" "$tmp/k.py" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		case $state in
		yes)
			made=$((made + 1))
			[ $rc -eq 0 ] && grep -q '^+++ ' "$tmp/out" ||
				echo "$f: $id:$line: --check says the edit can be made, --diff exits $rc: $(cat "$tmp/err")" >>"$tmp/bad" ;;
		no)
			refused=$((refused + 1))
			[ $rc -eq 2 ] && grep -qF -- "$reason" "$tmp/err" ||
				echo "$f: $id:$line: --check says '$reason', --diff exits $rc: $(cat "$tmp/err")" >>"$tmp/bad" ;;
		guided)
			guided=$((guided + 1))
			# a template, or the diff of a rewrite the tool only shows (D6)
			[ $rc -eq 0 ] && grep -q '^+++ ' "$tmp/out" ||
				echo "$f: $id:$line: guided, but --diff exits $rc: $(cat "$tmp/err")" >>"$tmp/bad" ;;
		esac
	done <"$tmp/list"
done
[ "$made" -gt 20 ] && [ "$refused" -gt 0 ] && [ "$guided" -gt 10 ]
result $? "the files hold findings of each kind ($total: $made made, $refused refused, $guided guided)"
[ ! -s "$tmp/bad" ]
result $? "--diff does at every finding what --check --fixes says" "$(head -n 20 "$tmp/bad")"

# An id with no finding on that line: refused with the reason, nothing shown.
ex="$TA_SRCDIR/examples/matmul/matmul.py"
"$TILEADVISE" --diff=S1:1 "$ex" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "S1 does not apply on line 1" "$tmp/err"
result $? "--diff=S1:1 on a line without an S1 finding is refused (exit 2)" "$(cat "$tmp/err")"
# (the A load padded with 1.0, which a descriptor cannot do)
sed '30s/other=0.0/other=1.0/' "$ex" >"$tmp/m.py"
cp "$tmp/m.py" "$tmp/m0.py"
"$TILEADVISE" --apply=S1:29 "$tmp/m.py" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && cmp -s "$tmp/m0.py" "$tmp/m.py" && grep -q "other=1.0: a descriptor pads out-of-bounds elements with 0" "$tmp/err"
result $? "--apply at a finding --check --fixes calls guided refuses with the same reason" "$(cat "$tmp/err")"
# Without --fixes, --check says nothing more (and runs no rewrite).
"$TILEADVISE" --check "$ex" | grep -q ': note: no mechanical'
[ $? -ne 0 ]
result $? "plain --check prints no fix notes"
finish
