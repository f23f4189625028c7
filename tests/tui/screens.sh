#!/bin/sh
# Whole-screen golden tests, one or more per view of the advisor (tig's
# style): a key script (TILEADVISE_SCRIPT) drives the advisor on a virtual
# screen, each key taken when the advisor is idle, and saves whole screens
# as text, compared with the expected screens in tests/tui/screens/NAME.txt;
# on a difference the diff is printed as TAP comments. No terminal, no tmux
# and no polling: what a screen shows follows from the keys alone. Every
# screen is 100x34, TERM=screen, NO_COLOR, LC_ALL=C.UTF-8 (the ASCII one
# LC_ALL=C), of a recorded session (--replay, no GPU) or --no-profile on a
# copy of an example opened by a relative name: nothing on these screens
# depends on the clock or on where the tree is. TA_UPDATE_SCREENS=1 writes
# the saved screens as the expected ones instead (read each one before
# committing it).
#
#   walk      the walk of a kernel and the step page of its first step
#   step      the step page of S3: reason, source excerpt, figures, diff
#   fold      the row of folded steps and its page
#   kernels   the next kernel's walk (Tab), on a file with two kernels
#   help      the help overlay (?)
#   diff      the diff overlay (d)
#   log       the log overlay (l)
#   small     the too-small screen (60x20)
#   refused   a key a replay refuses, in the message line
#   ascii     the walk without UTF-8
. "$TA_SRCDIR/tests/tui/lib.sh"
plan 17

session="examples/attention/session.h200.json"
S=$TA_TMP/screens
mkdir -p "$S"
export TERM=screen NO_COLOR=1 LC_ALL=C.UTF-8 LANG=C.UTF-8

# The recorded session: from the first step to act on, g goes to the
# first step and eight j to S3 (the walk's order is the recording's).
cat >"$TA_TMP/main.keys" <<KEYS
:size 100 34
:screen $S/walk.txt
gjjjjjjjj
:screen $S/step.txt
d
:screen $S/diff.txt
<Esc>?
:screen $S/help.txt
<Esc>l
:screen $S/log.txt
<Esc>a
:screen $S/refused.txt
G
:screen $S/fold.txt
:size 60 20
:screen $S/small.txt
KEYS
ta_script "$TA_SRCDIR" "$TA_TMP/main.keys" --replay $session
check "the key script ran to its end and quit: exit 0" eval '[ $? -eq 0 ]'
ta_saved_is walk "walk: the kernels, the walk of gemma_attn_fwd, the page of its first step to act on (past the trigger notes)"
ta_saved_is step "step: S3's page (reason, source with its lines marked, figures, diff)"
ta_saved_is diff "diff overlay: S3's whole diff"
ta_saved_is help "help overlay: marks and keys from the key table"
ta_saved_is log "log overlay: the recorded run's output"
ta_saved_is refused "a replay refuses a (apply): said in the message line"
ta_saved_is fold "fold: the folded steps' row selected, its page"
ta_saved_is small "too small: 60x20"

# A file with two kernels, static analysis only, opened by a relative name.
mkdir -p "$TA_TMP/two"
cp "$TA_SRCDIR/tests/fixtures/tui/two_kernels.py" "$TA_TMP/two/two.py"
cat >"$TA_TMP/two.keys" <<KEYS
:size 100 34
:screen $S/noprofile.txt
<Tab>
:screen $S/kernels.txt
KEYS
ta_script "$TA_TMP/two" "$TA_TMP/two.keys" --no-profile two.py
check "--no-profile: the key script ran to its end: exit 0" eval '[ $? -eq 0 ]'
ta_saved_is noprofile "--no-profile: the first kernel's walk, why nothing is measured"
ta_saved_is kernels "Tab: the second kernel's walk"

# The recorded walk: each applied step's verdict mark and ratio, the whole
# walk's change under the walk's title, and on a step's page the measured
# change with its before/after bars (S3 is the walk's fifth step there).
cat >"$TA_TMP/walked.keys" <<KEYS
:size 100 34
:screen $S/walked.txt
gjjjj<Space><Space>
:screen $S/measured.txt
KEYS
ta_script "$TA_SRCDIR" "$TA_TMP/walked.keys" --replay examples/attention/session-walk.h200.json
check "the recorded walk: the key script ran to its end: exit 0" eval '[ $? -eq 0 ]'
ta_saved_is walked "walked: verdict marks, ratios and the whole walk's change"
ta_saved_is measured "measured: S3's change, its interval, verdict and bars"

cat >"$TA_TMP/ascii.keys" <<KEYS
:size 100 34
:screen $S/ascii.txt
KEYS
LC_ALL=C LANG=C ta_script "$TA_SRCDIR" "$TA_TMP/ascii.keys" --replay $session
check "ASCII: the key script ran to its end: exit 0" eval '[ $? -eq 0 ]'
ta_saved_is ascii "ASCII: the walk without UTF-8"
finish
