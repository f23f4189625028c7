#!/bin/sh
# --fix and --diff with no id, ruff's mass fix: every edit --apply would
# make, in files and folders, one after another, each checked as --apply
# checks it and journaled (--undo takes them back one at a time); unsafe
# edits only with --unsafe-fixes; suppression comments, --select and
# syntax errors honoured; what is left reported as --check reports it.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-fix-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 22
ex="$TA_SRCDIR/examples"
fresh() {
	cd "$tmp" && rm -rf "$tmp/p" && mkdir "$tmp/p" &&
		cp "$ex/softmax/softmax.py" "$ex/layernorm/layernorm.py" "$ex/attention/attention.py" \
			"$ex/matmul/matmul.py" "$tmp/p/" && cd "$tmp/p" &&
		# the mass fix of the walk's levers: the entries in preview (S1, P2,
		# ...) but P1, as a project opts in to them
		printf '[tool.tileadvise]\npreview = true\nignore = ["P1"]\n' >pyproject.toml
}
fresh || exit 99
sums() { cksum softmax.py layernorm.py attention.py matmul.py; }
before=$(sums)

# --diff alone: the diffs, nothing written, exit 1 when there are some
"$TILEADVISE" --diff . >"$tmp/d" 2>"$tmp/de"
rc=$?
result $([ $rc -eq 1 ] && echo 0 || echo 1) "--diff alone exits 1 when --fix has edits to make" "rc=$rc" "$(cat "$tmp/de")"
result $([ "$(sums)" = "$before" ] && echo 0 || echo 1) "--diff alone changes nothing"
[ ! -e .tileadvise ]
result $? "--diff alone writes no .tileadvise/"
grep -q '^+++ b/\./layernorm.py$' "$tmp/d" && grep -q '^+++ b/\./softmax.py$' "$tmp/d"
result $? "--diff alone shows every file's edits" "$(grep '^+++' "$tmp/d")"
grep -q '^tileadvise: --fix would make [0-9]* edits in 4 files' "$tmp/de"
result $? "--diff alone counts the edits" "$(cat "$tmp/de")"
"$TILEADVISE" --check --diff softmax.py >"$tmp/d1" 2>/dev/null
grep -q 'triton.cdiv' "$tmp/d1"
result $? "--check --diff is the same (softmax's D12)" "$(cat "$tmp/d1")"
"$TILEADVISE" --diff D12 softmax.py >"$tmp/d2" 2>&1
grep -q '^@@' "$tmp/d2" && ! grep -q 'would make' "$tmp/d2"
result $? "--diff ID FILE is still one entry's edit" "$(cat "$tmp/d2")"

# --fix: the same edits, written; the rest reported
cp -R . "$tmp/patched" && (cd "$tmp/patched" && patch -s -p1 <"$tmp/d") >/dev/null 2>&1
patched=$?
"$TILEADVISE" --fix . >"$tmp/o" 2>"$tmp/e"
rc=$?
result $([ $rc -eq 1 ] && echo 0 || echo 1) "--fix exits 1 while findings remain" "rc=$rc"
if [ $patched -eq 0 ]; then
	ok=0
	for f in softmax.py layernorm.py attention.py matmul.py; do cmp -s "$f" "$tmp/patched/$f" || ok=1; done
	result $ok "--fix writes what --diff showed"
else
	skip "--fix writes what --diff showed" "patch could not apply the diff here"
fi
grep -q '^tileadvise: \./softmax.py: made D12 at line 37 ' "$tmp/e"
result $? "--fix names each edit it made" "$(cat "$tmp/e")"
grep -Eq '^Found [0-9]+ findings \([0-9]+ fixed, [0-9]+ remaining\)\.$' "$tmp/e"
result $? "--fix ends with the findings fixed and left" "$(tail -2 "$tmp/e")"
! grep -q 'D12\]$' "$tmp/o" && grep -q '\[S1\]$' "$tmp/o"
result $? "what --fix made is no longer reported; unsafe edits (S1's) are left" "$(cat "$tmp/o")"
"$TILEADVISE" --diff . >"$tmp/d3" 2>"$tmp/e3"
rc=$?
result $([ $rc -eq 0 ] && [ ! -s "$tmp/d3" ] && echo 0 || echo 1) "after --fix, --diff has nothing left to make" \
	"rc=$rc" "$(cat "$tmp/e3")"
n=$(grep -o 'made .*(' "$tmp/e" | grep 'layernorm' -c)
nl=$(grep 'layernorm' "$tmp/e" | grep -o ' at line ' | wc -l)
i=0
while [ $i -lt "$nl" ]; do "$TILEADVISE" --undo layernorm.py >/dev/null 2>&1; i=$((i + 1)); done
cmp -s layernorm.py "$ex/layernorm/layernorm.py"
result $? "--undo takes --fix's edits back one at a time ($nl in layernorm.py)"

# --unsafe-fixes: the unsafe ones too
"$TILEADVISE" --fix --unsafe-fixes matmul.py >/dev/null 2>"$tmp/e"
grep -q 'made .*P2 at line' "$tmp/e" && grep -q 'S1 at line' "$tmp/e"
result $? "--fix --unsafe-fixes makes the unsafe edits too (P2's, S1's)" "$(cat "$tmp/e")"

# what is silenced, not selected, or broken is not touched
fresh || exit 99
printf '%s\n' '# tileadvise: ignore-file[D12]' | cat - "$ex/softmax/softmax.py" >softmax.py
cp softmax.py "$tmp/s.py"
"$TILEADVISE" --fix softmax.py >/dev/null 2>"$tmp/e"
cmp -s softmax.py "$tmp/s.py"
result $? "a suppressed finding is not fixed" "$(cat "$tmp/e")"
"$TILEADVISE" --fix --select=D4 layernorm.py attention.py >/dev/null 2>"$tmp/e"
grep -q 'layernorm.py: made D4 at line' "$tmp/e" && cmp -s attention.py "$ex/attention/attention.py"
result $? "--select limits the edits" "$(cat "$tmp/e")"
{ cat "$ex/softmax/softmax.py"; printf 'x = tl.load(\n'; } >broken.py
cp broken.py "$tmp/b.py"
"$TILEADVISE" --fix broken.py >/dev/null 2>"$tmp/e"
rc=$?
cmp -s broken.py "$tmp/b.py" && [ $rc -eq 2 ] && grep -q 'not fixed: syntax error' "$tmp/e"
result $? "a file with syntax errors is not edited (exit 2)" "rc=$rc" "$(cat "$tmp/e")"
"$TILEADVISE" --fix - <"$ex/softmax/softmax.py" >/dev/null 2>"$tmp/e"
rc=$?
[ $rc -eq 2 ] && grep -q 'standard input is not edited' "$tmp/e"
result $? "standard input is refused" "rc=$rc" "$(cat "$tmp/e")"
chmod a-w attention.py
"$TILEADVISE" --fix attention.py >/dev/null 2>"$tmp/e"
rc=$?
chmod u+w attention.py
cmp -s attention.py "$ex/attention/attention.py" && [ $rc -eq 2 ]
result $? "a read-only file is refused, not edited" "rc=$rc" "$(cat "$tmp/e")"

# the summary line of --check
"$TILEADVISE" --check --fixes matmul.py >/dev/null 2>"$tmp/e"
grep -Eq '^Found [0-9]+ findings\.$' "$tmp/e" && grep -Eq '^[0-9]+ fixable with --fix \([0-9]+ more with --unsafe-fixes\)\.$' "$tmp/e"
result $? "--check --fixes ends with how many --fix can make" "$(cat "$tmp/e")"
printf 'import torch\n' >clean.py
"$TILEADVISE" --check clean.py >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/o" ] && grep -qx 'All checks passed.' "$tmp/e"
result $? "a clean file: All checks passed, exit 0" "rc=$rc" "$(cat "$tmp/e")"
finish
