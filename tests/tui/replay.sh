#!/bin/sh
# The recorded H200 session of the attention example, read-only (the
# quick-start demo), at 80x24 and 120x40; monochrome and ASCII; the
# messages when there is no terminal or the session is unusable.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 18

session="$TA_SRCDIR/examples/attention/session.h200.json"

ta_start 80 24 "'$TILEADVISE' --replay '$session'"
check "80x24: the header says recorded on an H200, read-only" \
	ta_wait "recorded on NVIDIA H200 — replay, read-only"
check "the recording's date" ta_wait_fixed "measured: recorded run, 2026-11-29"
check "the kernel's recorded median" ta_wait "gemma_attn_fwd +1932\.2 µs"
check "j moves to S3" ta_step_to S3
ta_press a
check "apply is refused in a replay" ta_wait "recorded session, shown read-only"
ta_press d
check "d shows the whole diff" ta_wait "Diff of S3"
check "the diff's added line" ta_wait "^ \+        qk = tl\.dot\(q, k\.T\)"
ta_press Escape
check "Esc closes the diff" ta_wait "Walk of gemma_attn_fwd"
ta_press q
check "q quits with status 0" ta_wait "^EXIT=0"

ta_start 120 40 "'$TILEADVISE' --replay '$session'"
check "120x40: the recorded figures on the step page" ta_step_to S1
check "occupancy and its limiter" ta_wait_fixed "occupancy 12.5% (2 blocks/SM, limited by shared memory)"
check "grid, block and registers" ta_wait_fixed "grid 64×128×1, block 128, 138 registers"
ta_keys q

# No colour, no UTF-8: ASCII marks and reverse video for the highlight.
ta_start 100 30 "env NO_COLOR=1 LC_ALL=C LANG=C '$TILEADVISE' --replay '$session'"
check "ASCII fallback marks" ta_wait "^ \* T1  Attention"
ta_step_to S3 >/dev/null
mono() { ta_screen_attr | grep -a ">   77 |" | grep -Eq "$(printf '\033')\[([0-9]+;)*7m"; }
check "monochrome highlight is reverse video" ta_until mono
ta_keys q

# Without a terminal: a pointer to --check/--report, exit status 2.
out=$("$TILEADVISE" --no-profile "$TA_SRCDIR/examples/attention/attention.py" </dev/null 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q -- "--check" && echo "$out" | grep -q -- "--report"
result $? "stdout not a terminal: exit 2 and a pointer to --check/--report"

# Unusable sessions: a clear message, the kernel untouched.
mkdir -p "$TA_TMP/bad/.tileadvise"
cp "$TA_SRCDIR/examples/softmax/softmax.py" "$TA_TMP/bad/"
printf '{"version": 1, "file": ' >"$TA_TMP/bad/.tileadvise/session-softmax.py.json"
ta_start 80 24 "'$TILEADVISE' --no-profile '$TA_TMP/bad/softmax.py'"
# (Long lines wrap at 80 columns: match words that stay on one line.)
corrupt_message() { ta_wait "session-softmax.py.json" && ta_wait "the kernel file was not touched"; }
check "a corrupted session is named, with what to do" corrupt_message
cmp -s "$TA_SRCDIR/examples/softmax/softmax.py" "$TA_TMP/bad/softmax.py"; result $? "the kernel is untouched"
sed 's/"version": 1,/"version": 99,/' "$session" >"$TA_TMP/future.json"
ta_start 80 24 "'$TILEADVISE' --replay '$TA_TMP/future.json'"
check "a newer session format is refused by name" ta_wait "format version 99"
finish
