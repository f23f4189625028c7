#!/bin/sh
# T4/T5 against a baseline in the advisor: recorded H200 streams stand in
# for the file's run (--records) and for the baseline (--baseline-records);
# the step page shows the comparison, the session keeps the baseline for
# the next opening, and a --baseline command that launches no kernel says
# so and keeps the one measured before.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 8

prof="$TA_SRCDIR/tests/recordings"
rec="$prof/h200-2026-11-29-example-softmax.jsonl"
base="$prof/h200-2026-11-29-softmax.jsonl"
work="$TA_TMP/b"
mkdir -p "$work"
cp "$TA_SRCDIR/examples/softmax/softmax.py" "$work/softmax.py"

ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu h200 --records '$rec' softmax.py"
check "the run is measured" ta_wait "softmax_kernel +262.4 µs"
check "without a baseline T5 waits for one" ta_wait "◑ T5 "
ta_step_to T5
check "and its page says how to give one" ta_wait_fixed "give one with --baseline CMD"
ta_keys q
ta_wait "^EXIT=0"

ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu h200 --records '$rec' --baseline-records '$base' softmax.py"
check "with a recorded baseline T5 is decided" ta_wait "│ T5 · Catastrophic gap .*\[satisfied\]"
check "the page shows what it was compared with" ta_wait "baseline h200-2026-11-29-softmax\.jsonl: same"
# (the line wraps where the baseline's path is long: match its end)
check "and the ratio" ta_wait "(^|kernel |│ +)260\.7 µs, ratio 1\.01×"
ta_keys q
ta_wait "^EXIT=0"

# The session keeps the baseline; a command that launches nothing keeps it too.
ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu h200 --records '$rec' --baseline 'echo no kernels here' softmax.py"
check "a baseline command without kernels says so" ta_wait "the baseline launched no kernel"
check "the earlier baseline still decides T5" ta_wait "│ T5 · Catastrophic gap .*\[satisfied\]"
ta_keys q
# ended before the server goes: a slow (ASan) build still drawing when q
# came once outlived the test
ta_wait "^EXIT=0"
finish
