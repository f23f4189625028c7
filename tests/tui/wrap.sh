#!/bin/sh
# Long lines on a narrow terminal: prose and figures wrap (nothing is cut
# off), code and diffs end in an ellipsis where they are cut and scroll
# sideways with the arrow keys (or > and <), on the step page and in the
# diff overlay.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 11

work="$TA_TMP/w"
mkdir -p "$work"
cp "$TA_SRCDIR/examples/attention/attention.py" "$work/attention.py"
cp "$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl" "$work/rec.jsonl"

ta_start 80 72 "cd '$work' && '$TILEADVISE' --gpu h200 --records rec.jsonl attention.py"
check "the walk is up" ta_wait "Walk of gemma_attn_fwd"
check "j moves to S3" ta_step_to S3
check "the step's title wraps: its mark is whole" ta_wait "│ +\[applies\] *$"
# The launch figures line is longer than the pane: its end wraps onto the
# next line instead of being cut.
check "figures wrap: the end of the grid line is on screen" ta_wait "│ +per block *$"
check "figures wrap: the occupancy line ends with what waves are" ta_wait "all SMs hold at once\) *$"
check "a cut diff line ends in an ellipsis" ta_wait "│   -        qk = tl\.zeros\(\[BLOCK_M, BLOCK_N\]…$"
ta_press Right
check "Right scrolls the code: an ellipsis on the left" ta_wait "│   … qk = tl\.zeros\(\[BLOCK_M, BLOCK_N\], d[a-z]*…$"
ta_press Left
check "Left scrolls back" ta_wait "│   -        qk = tl\.zeros"
ta_press d
check "the diff overlay cuts long lines with an ellipsis" ta_wait "^ .*qk = tl\.zeros\(\[BLOCK_M, BLOCK_N\], dtype=tl\.float32\)|^ .*…$"
ta_press '>' '>' '>' '>' '>'
check "> scrolls the overlay sideways" ta_wait "^ …"
ta_press '<' '<' '<' '<' '<'
check "< scrolls it back" ta_wait "^ @@ "
ta_keys q
finish
