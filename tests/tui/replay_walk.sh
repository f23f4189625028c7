#!/bin/sh
# The recorded walk of the attention example (examples/attention/
# session-walk.h200.json: the six mechanical steps P1, S8, S1, S5, S3, S6
# applied one after another, each re-measured on an H200), replayed
# read-only: what a person sees is every applied step marked with its
# verdict and the ratio its run measured, and on a step's page before ->
# after with the interval and verdict, figures that chain from step to step.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 21

session="$TA_SRCDIR/examples/attention/session-walk.h200.json"

ta_start 120 40 "'$TILEADVISE' --replay '$session'"
check "the header says recorded on an H200, read-only" \
	ta_wait "recorded on NVIDIA H200 — replay, read-only"
check "the figures shown are the last step's run" ta_wait_fixed "measured: after S6, as measured; today's S6 edit differs, 2026-11-29"
check "the walk opens on the launched kernel, not the helper S6 added" ta_wait "Walk of gemma_attn_fwd"
# The list: each step's mark is its verdict and its ratio is the one of
# the workload (GPU time per call over every launch shape), so the ratios
# multiply to the whole walk's: 0.99 x 1.18 x 1.00 x 1.00 x 1.00 x 0.74.
check "P1 applied, 0.99× measured, within noise" ta_wait "≈ P1 .* 0\.99×"
check "S8 applied, 1.18× measured, slower" ta_wait "▼ S8 .* 1\.18×"
check "S1 applied, 1.00× measured, within noise" ta_wait "≈ S1 .* 1\.00×"
check "S5 applied, 1.00× measured" ta_wait "≈ S5 .* 1\.00×"
check "S3 applied, 1.00× measured" ta_wait "≈ S3 .* 1\.00×"
check "S6 applied, 0.74× measured, faster: the star" ta_wait "★ S6 .* 0\.74×"
check "the whole walk: first run to last, the product of the steps" ta_wait_fixed "whole walk 0.86× · 1870.5 → 1613.5 µs"
# A guided entry was not applied by the walk: it still applies, with no ratio.
check "D1 (guided, not in the recording) still applies" ta_wait "● D1 "

check "j moves to S3" ta_step_to S3
check "S3's page: its before is S5's after, within noise" \
	ta_wait "2184\.1 µs → 2185\.3 µs +1\.001× \[0\.975, 1\.027\] 95% +within noise"
check "S3's page: before and after as bars on one scale" ta_wait "^ +│ +after  █{40}$"
esc=$(printf '\033')
ta_until sh -c "tmux -L '$TA_SOCK' capture-pane -p -e -t t$TA_WIN | grep -aq '${esc}\[33m≈'"
result $? "within noise is drawn in its own colour (yellow), not the star's green"
check "j moves to S6" ta_step_to S6
check "S6's page says applied" ta_wait "S6 · .*\[applied(, hint)?\]"
# S6 (the fast tanh) changed registers, not the launch shapes: the
# workloads compare, and the shapes in both runs are listed one by one.
check "S6's page: its before is S3's after, faster" \
	ta_wait "2185\.3 µs → 1613\.5 µs +0\.738× \[0\.720, 0\.757\] 95% +faster"
check "S6's page: the shapes launched in both runs, shape by shape" \
	ta_wait "grid 32×128×1, block 128, 255 regs: .* µs → .* µs +0\.[0-9]+×"
ta_press q
check "q quits with status 0" ta_wait "^EXIT=0"

# No UTF-8: the ASCII applied mark and ratio.
ta_start 120 40 "env NO_COLOR=1 LC_ALL=C LANG=C '$TILEADVISE' --replay '$session'"
check "ASCII: S8 marked v (slower) with 1.18x" ta_wait "^ v S8 .* 1\.18x"
ta_keys q
finish
