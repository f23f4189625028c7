#!/bin/sh
# The advisor draws the static analysis before the profiled run ends, and
# a step's diff (made when the step is shown) is there during the run: the
# profiled command here sleeps for a minute and never finishes on its own.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
work="$TA_TMP/f"
mkdir -p "$work"
cp "$TA_SRCDIR/examples/attention/attention.py" "$work/attention.py"

ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu h200 attention.py -- sh -c 'sleep 60'"
ta_wait "running \(first run\)|profiling is off in this build"
ta_screen | grep -q "profiling is off in this build" && skip_all "built without CUPTI: nothing is profiled"
plan 6
check "the run is going" ta_wait "running \(first run\)"
check "the walk is drawn while it runs" ta_wait_fixed "● S3  Fresh zeros + 3-argument dot"
check "j moves to S3 during the run" ta_step_to S3
check "S3's diff is on the step page during the run" ta_wait "│   \+        qk = tl\.dot\(q, k\.T\)$"
ta_screen | grep -q "running (first run)"
result $? "the run had not finished"
ta_keys Escape
ta_keys q
# An unknown --gpu is refused before anything is drawn, as --profile and
# --record-session refuse it (tests/cli/options.sh).
ta_start 120 40 "cd '$work' && '$TILEADVISE' --gpu v100 attention.py"
refused() { ta_wait "^tileadvise: unknown GPU 'v100' \(known: h200, h100, b200, a100, l40s, rtx4090\)$" && ta_wait "^EXIT=2$"; }
check "an unknown --gpu: one line, exit 2" refused
finish
