#!/bin/sh
# The time per call next to the GPU time (issue 17 item 8), from the record
# stream of the attention example's wrapper in a loop on an H200 with
# adaptive tracing on: the kernel list shows both, the step's evidence says
# what the period is and that the GPU times are a sample.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 5

work="$TA_TMP/c"
mkdir -p "$work"
cp "$TA_SRCDIR/examples/attention/attention.py" "$work/attention.py"
cp "$TA_SRCDIR/tests/recordings/h200-2026-12-02-callperiod-adaptive.jsonl" "$work/run.jsonl"

ta_start 170 50 "cd '$work' && '$TILEADVISE' --gpu h200 --records run.jsonl attention.py"
check "the kernel list shows the GPU time and the time per call" \
	ta_wait_fixed "143.1 µs GPU / 193.7 µs call"
ta_keys Enter
check "the evidence says what the time per call is" \
	ta_wait_fixed "time per call 193.7 µs: the median host time between successive launches of"
check "and how much of it the GPU takes" ta_wait_fixed "the GPU time 143.0 µs is 74% of it"
check "it says the GPU times are a sample" ta_wait_fixed "GPU times from a sample of the launches"
ta_keys q
check "the advisor ends" ta_wait "EXIT=0"
finish
