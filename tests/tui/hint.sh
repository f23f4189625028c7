#!/bin/sh
# The advisor marks the steps of entries in preview (precision below 90%,
# tests/PRECISION.md) as hints: "hint" at the end of the step's row in the
# walk, "[applies, hint]" and a line saying why on its page. On the matmul
# example, whose bmm_kernel has a planted P4 (a 3D grid).
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 3
if ! "$TILEADVISE" --list-rules | awk '$1 == "P4" && $5 == "preview" { found = 1 } END { exit !found }'; then
	skip_rest "P4 is not in preview"
	finish
fi
work="$TA_TMP/w"
mkdir -p "$work"
cp "$TA_SRCDIR/examples/matmul/matmul.py" "$work/matmul.py"
ta_start 140 45 "cd '$work' && '$TILEADVISE' --no-profile matmul.py"
check "the walk lists P4 with 'hint' at the end of its row" ta_wait "P4 .* hint *│"
check "P4's page says it applies, as a hint" eval 'ta_step_to P4 && ta_wait_fixed "[applies, hint]"'
check "the page says why it is a hint" ta_wait_fixed "A hint: this entry is in preview"
finish
