#!/bin/sh
# Golden edits through the command line: for each case with an edit of
# tests/entries/*.md (extracted: NAME.before.py, NAME.after.py, the cases
# index; see tests/entries/README.md), --diff changes nothing, --apply gives the
# .after.py bytes exactly, --undo gives the .before.py bytes back, --redo
# the .after.py again (a fresh process each time: the journal carries the
# state), and the result compiles with python3 when present (--apply with
# --unsafe-fixes: the pairs hold unsafe edits too; tests/rules/agree.sh
# checks that --apply alone refuses them); a profile case (D1) is refused
# by both without a profile, as --check offers nothing there. Then the
# refusals: stale journal, external edit, symlink out of the folder,
# read-only file, corrupted and future journals, injected write failures.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR, PYTHON3.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
PYTHON=${PYTHON3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-edits-XXXXXX") || exit 99
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fx=$(ta_cases "$tmp/cases")/edits || exit 99

have_py=0
"$PYTHON" -c 'pass' 2>/dev/null && have_py=1

cases=$(grep -v '^#' "$fx/cases")
plan $(( $(printf '%s\n' "$cases" | wc -l) * 5 + 11 ))

printf '%s\n' "$cases" | {
while read -r id name kind; do
	d="$tmp/$name"
	mkdir -p "$d"
	cp "$fx/$name.before.py" "$d/$name.py"
	(cd "$d" && "$TILEADVISE" --diff "$id" "$name.py" >diff.out 2>err.out)
	rc=$?
	if [ "$kind" = profile ]; then
		# Decided by a measurement (D1 spills or not): --check offers nothing
		# without a profile, and neither --diff nor --apply makes it; the
		# advisor's edit at the finding is test_edit's test_profile_edit.
		grep -q "needs a profile" "$d/err.out" && [ "$rc" = 2 ] && [ ! -s "$d/diff.out" ]
		result $? "$id $name: --diff refuses without a profile, in one line" "rc=$rc $(cat "$d/err.out")"
		(cd "$d" && "$TILEADVISE" --apply "$id" --unsafe-fixes "$name.py" >apply.out 2>err.out)
		rc=$?
		cmp -s "$d/$name.py" "$fx/$name.before.py" && [ "$rc" = 2 ] && grep -q "needs a profile" "$d/err.out" &&
			[ "$(wc -l <"$d/err.out")" = 1 ]
		result $? "$id $name: --apply refuses without a profile and leaves the file alone" "rc=$rc $(cat "$d/err.out")"
		skip "$id $name: --undo restores the exact bytes" "needs a profile, not applied"
		skip "$id $name: --redo applies it again" "needs a profile, not applied"
		skip "$id $name: the edited file compiles" "needs a profile, not applied"
		continue
	fi
	cmp -s "$d/$name.py" "$fx/$name.before.py" && [ "$rc" = 0 ] && [ -s "$d/diff.out" ] && [ ! -e "$d/.tileadvise" ]
	result $? "$id $name: --diff prints a diff and changes nothing" "rc=$rc $(cat "$d/err.out")"
	if [ "$kind" = guided ]; then
		# Demoted to guided: shown, never written by the tool.
		(cd "$d" && "$TILEADVISE" --apply "$id" "$name.py" >apply.out 2>err.out)
		rc=$?
		cmp -s "$d/$name.py" "$fx/$name.before.py" && [ "$rc" = 2 ] && grep -q "guided edit" "$d/err.out" &&
			grep -q "^+" "$d/diff.out"
		result $? "$id $name: --apply refuses a guided edit and leaves the file alone" "rc=$rc $(cat "$d/err.out")"
		skip "$id $name: --undo restores the exact bytes" "guided edit, not applied"
		skip "$id $name: --redo applies it again" "guided edit, not applied"
		skip "$id $name: the edited file compiles" "guided edit, not applied"
		continue
	fi
	(cd "$d" && "$TILEADVISE" --apply "$id" --unsafe-fixes "$name.py" >apply.out 2>err.out)
	rc=$?
	cmp -s "$d/$name.py" "$fx/$name.after.py" && [ "$rc" = 0 ] && cmp -s "$d/apply.out" "$d/diff.out"
	result $? "$id $name: --apply gives the golden bytes and prints the same diff" "rc=$rc $(cat "$d/err.out")"
	(cd "$d" && "$TILEADVISE" --undo "$name.py" >/dev/null 2>err.out)
	rc=$?
	cmp -s "$d/$name.py" "$fx/$name.before.py" && [ "$rc" = 0 ]
	result $? "$id $name: --undo restores the exact bytes" "rc=$rc $(cat "$d/err.out")"
	(cd "$d" && "$TILEADVISE" --redo "$name.py" >/dev/null 2>err.out)
	rc=$?
	cmp -s "$d/$name.py" "$fx/$name.after.py" && [ "$rc" = 0 ]
	result $? "$id $name: --redo applies it again" "rc=$rc $(cat "$d/err.out")"
	if [ $have_py = 1 ]; then
		PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -c 'import sys; compile(open(sys.argv[1],"rb").read(), sys.argv[1], "exec")' "$d/$name.py" 2>"$d/err.out"
		result $? "$id $name: the edited file compiles" "$(cat "$d/err.out")"
	else
		skip "$id $name: the edited file compiles" "no python3"
	fi
done

d="$tmp/refuse"
mkdir -p "$d/sub" "$d/outside"
cp "$fx/d12.before.py" "$d/k.py"
"$TILEADVISE" --apply D12 "$d/k.py" >/dev/null 2>&1
printf '# edited by hand\n' >>"$d/k.py"
cp "$d/k.py" "$d/k.expected"
"$TILEADVISE" --undo "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$d/err")" = 1 ] && grep -q "changed since" "$d/err" && cmp -s "$d/k.py" "$d/k.expected"
result $? "undo after an external edit refuses in one line and keeps the file" "rc=$rc $(cat "$d/err")"

"$TILEADVISE" --apply S3 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$d/err")" = 1 ] && cmp -s "$d/k.py" "$d/k.expected"
result $? "--apply with no site exits 2 in one line" "rc=$rc $(cat "$d/err")"

cp "$fx/d12.before.py" "$d/outside/real.py"
ln -s ../outside/real.py "$d/sub/link.py"
"$TILEADVISE" --apply D12 "$d/sub/link.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "outside its folder" "$d/err" && cmp -s "$d/outside/real.py" "$fx/d12.before.py"
result $? "a symlink out of the kernel's folder is refused" "rc=$rc $(cat "$d/err")"

cp "$fx/d12.before.py" "$d/sub/real.py"
chmod 640 "$d/sub/real.py"
ln -s real.py "$d/sub/in.py"
"$TILEADVISE" --apply D12 "$d/sub/in.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 0 ] && [ -L "$d/sub/in.py" ] && cmp -s "$d/sub/real.py" "$fx/d12.after.py" &&
	[ "$(stat -c %a "$d/sub/real.py")" = 640 ]
result $? "a symlink inside the folder: the real file is edited, keeps its mode, the link stays" "rc=$rc $(cat "$d/err")"

cp "$fx/d12.before.py" "$d/ro.py"
chmod 444 "$d/ro.py"
"$TILEADVISE" --apply D12 "$d/ro.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "read-only" "$d/err" && cmp -s "$d/ro.py" "$fx/d12.before.py"
result $? "a read-only file is refused" "rc=$rc $(cat "$d/err")"

mkdir "$d/rodir"
cp "$fx/d12.before.py" "$d/rodir/k.py"
chmod 555 "$d/rodir"
"$TILEADVISE" --apply D12 "$d/rodir/k.py" >/dev/null 2>"$d/err"
rc=$?
chmod 755 "$d/rodir"
[ "$rc" = 2 ] && grep -q "read-only" "$d/err" && cmp -s "$d/rodir/k.py" "$fx/d12.before.py"
result $? "a read-only folder is refused" "rc=$rc $(cat "$d/err")"

mkdir "$d/bad"
cp "$fx/d12.before.py" "$d/bad/k.py"
mkdir "$d/bad/.tileadvise"
printf '{"version": 1, "file": "k.py", "entries": [' >"$d/bad/.tileadvise/journal-k.py.json"
"$TILEADVISE" --apply D12 "$d/bad/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "corrupted" "$d/err" && cmp -s "$d/bad/k.py" "$fx/d12.before.py"
result $? "a corrupted journal: clear message, kernel untouched" "rc=$rc $(cat "$d/err")"

printf '{"version": 9, "file": "k.py", "entries": [], "position": 0}\n' >"$d/bad/.tileadvise/journal-k.py.json"
"$TILEADVISE" --undo "$d/bad/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "newer tileadvise" "$d/err" && cmp -s "$d/bad/k.py" "$fx/d12.before.py"
result $? "a future-version journal: clear message, kernel untouched" "rc=$rc $(cat "$d/err")"

for step in write fsync rename; do
	mkdir -p "$d/f-$step"
	cp "$fx/d12.before.py" "$d/f-$step/k.py"
	# The third careful write is the kernel file (two version files first).
	TILEADVISE_FAULT="$step:3" "$TILEADVISE" --apply D12 "$d/f-$step/k.py" >/dev/null 2>"$d/err"
	rc=$?
	left=$(ls -A "$d/f-$step" | grep -c tileadvise-)
	[ "$rc" = 2 ] && cmp -s "$d/f-$step/k.py" "$fx/d12.before.py" && [ "$left" = 0 ] &&
		"$TILEADVISE" --undo "$d/f-$step/k.py" 2>&1 | grep -q "nothing to undo"
	result $? "an injected $step failure leaves the file and journal as they were" "rc=$rc left=$left $(cat "$d/err")"
done
finish
}
