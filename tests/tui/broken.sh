#!/bin/sh
# A broken edit is never shown as a win (issue 14, item 8): the user's own
# run is a test too. A stand-in for the injector and the GPU
# (tests/profiler/scripts/speak.py) replays the attention example's recorded
# stream for every run, and the command then prints a check line of its
# own: "ok" while the file is the original, a mismatch once it is edited
# (or, in the second case, exits with status 1). The re-run after S3 then
# marks S3 broken: no star and no ratio in the walk, the step page says so
# first, the revert is offered, and y reverts.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 16

src="$TA_SRCDIR/examples/attention/attention.py"
rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
speak="$TA_SRCDIR/tests/profiler/scripts/speak.py"
py=${PYTHON3:-python3}
libdir="$TA_BUILDDIR/src/profile/inject/.libs"
[ -e "$libdir/libtileadvise-cupti.so" ] || skip_all "built without the CUPTI injector"

work="$TA_TMP/w"
mkdir -p "$work"
cp "$src" "$work/attention.py"
cp "$src" "$work/orig.py"

# The recorded run tuned in the run itself (its launches hold the autotuner's
# trials): it printed Triton's tuning report, which says so to the
# measurement (a run after the tuning run that printed none tuned nothing).
tuned="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.autotune.log"
# The check line the command prints after the replayed run.
check_ok='if cmp -s attention.py orig.py; then echo "attention: ok, max abs err 1.95e-03"; else echo "attention: MISMATCH vs torch, max abs err 4.1e+00"; fi'
ta_start 120 40 "cd '$work' && TILEADVISE_LIBDIR='$libdir' '$TILEADVISE' --gpu h200 attention.py -- \
	sh -c '\"$py\" \"$speak\" replay \"$rec\"; cat \"$tuned\"; $check_ok'"
check "the first run is measured" ta_wait "gemma_attn_fwd +1874.8 µs"
check "j moves to S3" ta_step_to S3
ta_press a
check "the re-run's check line differs: the revert is offered, saying why" \
	ta_wait_fixed "S3 broke the program (its step page says how). Revert it? (y/n)"
check "the walk marks S3 broken, with no ratio" ta_wait "✗ S3 .* broken"
ta_screen | grep -Eq "★ S3|S3 .*[0-9]\.[0-9]+×"; [ $? -ne 0 ]; result $? "no star and no speed-up figure for S3"
check "the step page says it first, and why" \
	ta_wait_fixed "✗ Broken: it printed \"attention: MISMATCH vs torch, max abs err 4.1e+00\""
check "no verdict under Measured" ta_wait_fixed "not compared: the run after the edit shows it broke the program"
ta_press n
check "n keeps the edit" ta_wait_fixed "kept"
cmp -s "$work/attention.py" "$src"; [ $? -ne 0 ]; result $? "the edit is still on disk"
ta_press u
check "u reverts it" ta_wait "undid S3"
cmp -s "$work/attention.py" "$src"; result $? "the file is back to its original bytes"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

# The session keeps the verdict, and the report writes no ratio for it.
rm -rf "$work/.tileadvise"
ta_start 120 40 "cd '$work' && TILEADVISE_LIBDIR='$libdir' '$TILEADVISE' --gpu h200 attention.py -- \
	sh -c '\"$py\" \"$speak\" replay \"$rec\"; cat \"$tuned\"; cmp -s attention.py orig.py || exit 1'"
ta_wait "gemma_attn_fwd +1874.8 µs" >/dev/null
ta_step_to S3 >/dev/null
ta_press a
check "a re-run that exits non-zero is broken too" \
	ta_wait_fixed "S3 broke the program: the run after it exited with status 1. Revert it? (y/n)"
ta_press n
ta_press w
check "the report is written" ta_wait "report written to"
ta_keys q
ta_wait "^EXIT=0" >/dev/null
report="$work/.tileadvise/report-attention.py.md"
grep -q "^  - \*\*broken\*\*: the run after it exited with status 1; not compared" "$report"
result $? "the report says S3 broke the run"
grep -A3 "^- \*\*S3\*\*" "$report" | grep -q "ratio"; [ $? -ne 0 ]; result $? "and gives it no ratio"
grep -q '"broken": "the run after it exited with status 1"' "$work/.tileadvise/session-attention.py.json"
result $? "the session file keeps it"
finish
