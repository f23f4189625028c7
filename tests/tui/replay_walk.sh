#!/bin/sh
# The recorded walk of the attention example (examples/attention/
# session-walk.h200.json: the six mechanical steps P1, S8, S1, S5, S3, S6
# applied one after another, each re-measured on an H200), replayed
# read-only: what a person sees is every applied step marked, with the ratio
# its run measured, and on a step's page the before -> after medians with
# the interval and verdict.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 21

session="$TA_SRCDIR/examples/attention/session-walk.h200.json"

ta_start 120 40 "'$TILEADVISE' --replay '$session'"
check "the header says recorded on an H200, read-only" \
	ta_wait "recorded on NVIDIA H200 — replay, read-only"
check "the figures shown are the last step's run" ta_wait_fixed "measured: after S6, as measured; today's S6 edit differs, 2026-11-29"
check "the walk opens on the launched kernel, not the helper S6 added" ta_wait "Walk of gemma_attn_fwd"
# The list: the verdict's mark (none was faster: no star) and the measured
# ratio on each step's row.
check "P1 applied, 0.98× measured, within noise" ta_wait "≈ P1 .* 0\.98×"
check "S1 applied, 1.03× measured" ta_wait "≈ S1 .* 1\.03×"
check "S3 applied, 1.00× measured" ta_wait "≈ S3 .* 1\.00×"
check "S5 applied, 1.00× measured" ta_wait "≈ S5 .* 1\.00×"
check "S6 applied, 1.92× measured (another set of launch shapes)" ta_wait "≈ S6 .* 1\.92×"
check "S8 applied, 0.99× measured (launch configuration changed)" ta_wait "≈ S8 .* 0\.99×"
check "the whole walk: first run to last, GPU time per call" ta_wait_fixed "whole walk 0.82× · 1928.5 → 1582.8 µs"
# A guided entry was not applied by the walk: it still applies, with no ratio.
check "D1 (guided, not in the recording) still applies" ta_wait "● D1 "

check "j moves to S3" ta_step_to S3
check "S3's page: before → after, within noise" \
	ta_wait "2324\.9 µs → 2318\.1 µs +0\.997× \[0\.993, 1\.003\] 95% +within noise"
check "S3's page: before and after as bars on one scale" ta_wait "^ +│ +after  █{40}$"
esc=$(printf '\033')
ta_until sh -c "tmux -L '$TA_SOCK' capture-pane -p -e -t t$TA_WIN | grep -aq '${esc}\[33m≈'"
result $? "within noise is drawn in its own colour (yellow), not the star's green"
check "j moves to S6" ta_step_to S6
check "S6's page says applied" ta_wait "S6 · .*\[applied\]"
# The runs launched other sets of shapes: the dominant shapes' figures,
# not comparable, then the shapes found in both, one by one.
check "S6's page: 1969.1 µs → 3786.6 µs, not comparable" \
	ta_wait "1969\.1 µs → 3786\.6 µs +1\.923× \[1\.114, 1\.925\] 95% +not comparable"
check "S6's page: the dominant shape compared with itself" \
	ta_wait "11%  grid 32×128×1, block 128, 255 regs: 3787\.3 µs → 3786\.6 µs +1\.000×"
ta_press q
check "q quits with status 0" ta_wait "^EXIT=0"

# No UTF-8: the ASCII applied mark and ratio.
ta_start 120 40 "env NO_COLOR=1 LC_ALL=C LANG=C '$TILEADVISE' --replay '$session'"
check "ASCII: S8 marked = (within noise or not comparable) with 0.99x" ta_wait "^ = S8 .* 0\.99x"
ta_keys q
finish
