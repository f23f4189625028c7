#!/bin/sh
# Apply with a measurement: the recorded H200 stream of the attention
# example stands in for each run (--records), so the walk shows the
# before -> after with its interval and verdict; a failing --test command
# leads to the offer to revert, and y reverts the file.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 9

src="$TA_SRCDIR/examples/attention/attention.py"
rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
work="$TA_TMP/m"
mkdir -p "$work"
cp "$src" "$work/attention.py"

ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu h200 --records '$rec' --test 'echo checking; exit 3' attention.py"
check "the header names the GPU" ta_wait "GPU NVIDIA H200 \(sm_90, 132 SMs\)"
check "the first run is measured" ta_wait "gemma_attn_fwd +1874.8 µs"
check "j moves to S3" ta_step_to S3
check "the evidence figures on the step page" ta_wait_fixed "occupancy 12.5% (2 blocks/SM, limited by shared memory), 31.03 waves"
ta_press a
# The test fails after the edit, so the step is broken: its time is not
# compared (never a verdict), and the page says so first.
check "after the re-run and its failed test: broken, not compared" \
	ta_wait "✗ Broken: the test exited with status 3"
check "the failing test offers to revert" ta_wait "The test failed after S3 \(exited with status 3\). Revert it\? \(y/n\)"
cmp -s "$work/attention.py" "$src"; [ $? -ne 0 ]; result $? "the edit is on disk until answered"
ta_press y
check "y reverts" ta_wait "undid S3"
cmp -s "$work/attention.py" "$src"; result $? "the file is back to its original bytes"
ta_keys q
finish
