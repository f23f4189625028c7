#!/bin/sh
# The README's first quick-start command, `./setup demo`, in a real terminal:
# on this machine (no GPU) it must open the session recorded on an H200,
# labelled as such, and quit cleanly. Uses the build under test
# (SETUP_NO_BUILD=1) rather than building another one.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 3
build=$(cd "$(dirname "$TILEADVISE")/.." && pwd)
ta_start 120 40 "cd '$TA_SRCDIR' && SETUP_NO_BUILD=1 TILEADVISE_DEMO=replay TILEADVISE_BUILD='$build' ./setup demo"
ta_wait 'H200' && ta_wait 'read-only'
result $? "./setup demo opens the recorded H200 session, labelled read-only"
ta_wait 'gemma_attn_fwd'
result $? "the demo shows the example's kernel"
ta_keys q
ta_wait 'EXIT=0'
result $? "q quits with status 0"
finish
