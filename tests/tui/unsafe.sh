#!/bin/sh
# An unsafe edit in the advisor (issue 14): the step page states its
# assumption above the diff, a asks before applying it (the question names
# the assumption), n leaves the file as it is, a then y applies it. A safe
# edit is applied at once, with no question.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 8

src="$TA_SRCDIR/examples/attention/attention.py"
work="$TA_TMP/w"
mkdir -p "$work"
cp "$src" "$work/attention.py"

ta_start 160 50 "cd '$work' && '$TILEADVISE' --no-profile attention.py"
check "the walk is on screen" ta_wait "Walk of gemma_attn_fwd"
check "j moves to S6" ta_step_to S6
check "the step page states the assumption above the diff" \
	ta_wait "Unsafe: it assumes tanh\.approx\.f32's error"
ta_press a
check "a asks, naming the assumption" ta_wait "Apply S6's unsafe edit at line [0-9]+\? \(y/n\) It assumes tanh\.approx\.f32's error"
ta_press n
check "n answers: not applied" ta_wait "not applied"
cmp -s "$work/attention.py" "$src"; result $? "after n the file is unchanged"
ta_press a
ta_wait "Apply S6's unsafe edit" && ta_press y
check "a then y applies it" ta_wait "applied S6 at line"
! cmp -s "$work/attention.py" "$src" && grep -q "FAST_TANH" "$work/attention.py"
result $? "the file holds the S6 edit"
finish
