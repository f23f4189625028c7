#!/bin/sh
# The advisor in the product's own words, and no dead end first (issue 17,
# item 9): a static walk does not open on a step that waits for a baseline
# (T5 goes last, as a note); step headers cite no document the user lacks;
# shared memory and waves are said in words; the header rows and the footer
# end in '…' where the terminal cuts them. --explain names no such document
# either. A session recorded with T5 first (examples/matmul, before the walk
# put its notes last) is replayed in the same order as a built walk, its
# measured figures kept; --report --replay lists T5 last too.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 17

work="$TA_TMP/w"
mkdir -p "$work"
cp "$TA_SRCDIR/tests/fixtures/tui/two_kernels.py" "$work/two.py"
cp "$TA_SRCDIR/examples/attention/attention.py" "$work/attention.py"
cp "$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl" "$work/rec.jsonl"

ta_start 100 40 "cd '$work' && '$TILEADVISE' --no-profile two.py"
check "the static walk is up" ta_wait "Walk of scale_kernel"
# The walk opens on its first step: not T5, which waits for a baseline.
if ta_wait "^ Kernels +│ [A-Z][0-9]+ · " && ! grep -q "│ T5 · " "$TA_TMP/last-screen"; then r=0; else r=1; fi
result $r "the walk opens on a step the user can act on, not T5"
# T5 is the last of the open steps, right above the folded ones.
t5_last() {
	ta_screen >"$TA_TMP/last-screen"
	grep -A1 ' T5  Catastrophic' "$TA_TMP/last-screen" | tail -1 | grep -q '▸ [0-9]* satisfied'
}
check "T5 (needs baseline) is listed last, as a note" ta_until t5_last
ta_keys q
check "the advisor ends" ta_wait "EXIT=0"

# A measured walk at 80 columns.
ta_start 80 60 "cd '$work' && '$TILEADVISE' --gpu h200 --records rec.jsonl attention.py"
check "the walk is up" ta_wait "Walk of gemma_attn_fwd"
footer_cut() { ta_screen | sed '/^ *$/d' | tail -1 | grep -q '… ? help  q quit$'; }
check "the footer's keys do not fit in 80 columns: an ellipsis, and help and quit kept at the end" ta_until footer_cut
check "j moves to P1" ta_step_to P1
ta_screen >"$TA_TMP/s"
if grep -qi 'seed\|optimizing-reference\|advanced-patterns' "$TA_TMP/s"; then r=1; else r=0; fi
result $r "the step header cites no seed document" "$(sed -n 3,5p "$TA_TMP/s")"
ta_step_to S3 >/dev/null
check "shared memory and waves are said in words" ta_wait "all SMs hold at once\) *$"
ta_keys q
# A recorded session: the header names where it was recorded and is cut.
ta_start 80 30 "'$TILEADVISE' --replay '$TA_SRCDIR/examples/attention/session.h200.json'"
check "a cut header row ends in an ellipsis" ta_wait "^ tileadvise │ attention.py │ recorded on .*…$"
ta_keys q
# A recording that stores T5 as its first open step (the line after T5's
# id gives its status; T1-T4 before it are not applicable).
mm="$TA_SRCDIR/examples/matmul/session.h200.json"
first_open=$(grep -A1 '"id": ' "$mm" | grep -E -B1 '"status": "(applies|needs)' | sed -n 's/.*"id": "\([A-Z0-9]*\)".*/\1/p' | head -1)
result $([ "$first_open" = T5 ] && echo 0 || echo 1) "the recorded matmul session stores T5 first" "first open step stored: $first_open"
ta_start 100 40 "'$TILEADVISE' --replay '$mm'"
check "the replay is up" ta_wait "Walk of bmm_kernel"
if ta_wait "^ Kernels +│ [A-Z][0-9]+ · " && grep -q "│ P1 · " "$TA_TMP/last-screen"; then r=0; else r=1; fi
result $r "the replay opens on P1, not on the stored first step T5" "$(sed -n 3p "$TA_TMP/last-screen")"
check "T5 is listed last in the replay, as a note" ta_until t5_last
check "the recorded median is kept" ta_wait "bmm_kernel +[0-9.]+ µs"
ta_keys q
# The markdown report of the same recording: T5 after every other step.
"$TILEADVISE" --report --replay "$mm" >"$TA_TMP/mm.md" 2>&1
last=$(sed -n 's/^- \*\*\([A-Z0-9]*\)\*\*.*/\1/p' "$TA_TMP/mm.md" | tail -1)
result $([ "$last" = T5 ] && echo 0 || echo 1) "--report --replay lists T5 last" "last step listed: $last"
# --explain of every entry: no document the user does not have.
bad=
for id in $("$TILEADVISE" --list-rules | awk '$1 ~ /^[TLPSGD][0-9]+$/ {print $1}'); do
	"$TILEADVISE" --explain="$id" | grep -qi 'seed\|optimizing-reference\|advanced-patterns' && bad="$bad $id"
done
result $([ -z "$bad" ] && echo 0 || echo 1) "--explain names no seed document (every entry)" "in:$bad"
finish
