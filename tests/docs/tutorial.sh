#!/bin/sh
# docs/tutorial.md's commands and figures, without a GPU: what it quotes of
# the replayed walk (the report's S6 and whole-walk lines), the edit it
# makes on a copy of the softmax example (the messages it quotes), the
# command-line forms it lists, and the counts it gives. Its screens are the
# TUI tests' (tests/tui/screens/walk.txt opens on G1; replay_walk.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-tut-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 10
# the tutorial as one line: a quoted figure may wrap
doc="$tmp/tutorial.txt"
tr '\n' ' ' <"$TA_SRCDIR/docs/tutorial.md" >"$doc"
"$TILEADVISE" --report --replay "$TA_SRCDIR/examples/attention/session-walk.h200.json" >"$tmp/r.md" 2>/dev/null
grep -q '2185\.3 µs → 1613\.5 µs, ratio 0\.738 \[0\.720, 0\.757\]: faster' "$tmp/r.md" &&
	grep -q '2185\.3 µs → 1613\.5 µs 0\.738× \[0\.720, 0\.757\] 95% faster' "$doc"
result $? "S6's measurement, as the tutorial quotes it"
grep -q '| 1870\.5 µs (recorded run) | 1613\.5 µs .* | 0\.863 ' "$tmp/r.md" && grep -q 'whole walk 0\.86× · 1870\.5 → 1613\.5 µs' "$doc"
result $? "the whole walk, as the tutorial quotes it"
cp "$TA_SRCDIR/examples/softmax/softmax.py" "$tmp/softmax.py"
cd "$tmp" || exit 99
"$TILEADVISE" --check softmax.py >out 2>err
"$TILEADVISE" --check --preview softmax.py >out2 2>/dev/null
grep -q '\[D12\]$' out && ! grep -q '\[P1\]$' out && grep -q '^Found 1 finding\.$' err && grep -q '\[P1\]$' out2
result $? "--check: D12, then the summary; P1 (in preview) with --preview"
"$TILEADVISE" --diff=D12 softmax.py >out 2>&1
grep -q '^+.*triton\.cdiv(n_rows, rows_per_program)' out
result $? "--diff=D12 shows the triton.cdiv edit"
cp softmax.py orig.py
"$TILEADVISE" --apply=D12 softmax.py >out 2>err
grep -q 'applied D12 at line 37 of softmax.py (tileadvise --undo softmax.py reverts it)' err &&
	grep -q 'applied D12 at line 37 of softmax.py (tileadvise --undo softmax.py reverts it)' "$doc"
result $? "--apply=D12: the message the tutorial quotes" "$(cat err)"
"$TILEADVISE" --undo softmax.py >/dev/null 2>&1
cmp -s softmax.py orig.py
result $? "--undo takes it back"
"$TILEADVISE" --diff . >out 2>/dev/null
grep -q '^+++ b/\./softmax\.py$' out && cmp -s softmax.py orig.py
result $? "--diff . shows the edits --fix would make, writing nothing"
"$TILEADVISE" --fix . >/dev/null 2>err
grep -q 'made D12 at line 37' err
result $? "--fix . makes them" "$(cat err)"
[ "$("$TILEADVISE" --list-rules --format=json | grep -c '"id":')" -eq 48 ] && grep -q "checklist's 48 entries" "$doc"
result $? "48 entries, as the tutorial says"
"$TILEADVISE" --explain=S1 >out 2>&1
result $? "--explain=S1 explains S1" "$(head -3 out)"
finish
