#!/bin/sh
# The recorded walk of the attention example (examples/attention/
# session-walk.h200.json: five mechanical steps applied one after another,
# each re-measured on an H200), replayed read-only: what a person sees is
# every applied step marked, with the ratio its run measured, and on a
# step's page the before -> after medians with the interval and verdict.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
echo "1..16"

session="$TA_SRCDIR/examples/attention/session-walk.h200.json"

ta_start 120 40 "'$TILEADVISE' --replay '$session'"
ta_check "the header says recorded on an H200, read-only" \
	ta_wait "recorded on NVIDIA H200 — replay, read-only"
ta_check "the figures shown are the last step's run" ta_wait_fixed "measured: after S6, 2026-11-29"
ta_check "the walk opens on the launched kernel, not the helper S6 added" ta_wait "Walk of gemma_attn_fwd"
# The list: an applied mark and the measured ratio on each step's row.
ta_check "G8 applied, 1.02× measured" ta_wait "★ G8 .* 1\.02×"
ta_check "S8 applied, 1.30× measured (the recording's slowdown)" ta_wait "★ S8 .* 1\.30×"
ta_check "S5 applied, 1.00× measured" ta_wait "★ S5 .* 1\.00×"
ta_check "S3 applied, 1.00× measured" ta_wait "★ S3 .* 1\.00×"
ta_check "S6 applied, 1.01× measured" ta_wait "★ S6 .* 1\.01×"
# Edits the tool has gained since the recording were not measured: they
# still apply, with no ratio.
newer_edits_apply() { ta_wait "● P1 " && ta_wait "● S1 "; }
ta_check "P1 and S1 (newer edits, not in the recording) still apply" newer_edits_apply

ta_check "j moves to S3" ta_step_to S3
ta_check "S3's page: before → after, within noise" \
	ta_wait "1908\.8 µs → 1914\.6 µs +1\.003× \[0\.986, 1\.017\] 95% +within noise"
ta_check "j moves to S8" ta_step_to S8
ta_check "S8's page says applied" ta_wait "S8 · .*\[applied\]"
ta_check "S8's page: 1930.8 µs → 2506.3 µs, 1.298×" \
	ta_wait "1930\.8 µs → 2506\.3 µs +1\.298× \[1\.298, 1\.299\] 95%"
ta_press q
ta_check "q quits with status 0" ta_wait "^EXIT=0"

# No UTF-8: the ASCII applied mark and ratio.
ta_start 120 40 "env NO_COLOR=1 LC_ALL=C LANG=C '$TILEADVISE' --replay '$session'"
ta_check "ASCII: S8 marked A with 1.30x" ta_wait "^ A S8 .* 1\.30x"
ta_keys q
ta_done
