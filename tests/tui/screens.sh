#!/bin/sh
# Whole-screen golden tests, one or more per view of the advisor (tig's
# style): keys in, the whole screen captured as text and compared with the
# expected screen in tests/tui/screens/NAME.txt; on a difference the diff is
# printed as TAP comments. Every screen is 100x34, TERM=screen, NO_COLOR,
# LC_ALL=C.UTF-8 (the ASCII one LC_ALL=C), of a recorded session (--replay,
# no GPU) or --no-profile on a copy of an example opened by a relative name:
# nothing on these screens depends on the clock or on where the tree is.
# TA_UPDATE_SCREENS=1 writes what is on screen as the expected screens
# instead (read each one before committing it).
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
ta_need_tmux
plan 13

session="examples/attention/session.h200.json"
env="TERM=screen NO_COLOR=1 LC_ALL=C.UTF-8 LANG=C.UTF-8"

ta_start 100 34 "cd '$TA_SRCDIR' && env $env '$TILEADVISE' --replay $session"
ta_wait "Walk of gemma_attn_fwd" >/dev/null
ta_screen_is walk "walk: the kernels, the walk of gemma_attn_fwd, the page of its first step to act on (past the trigger notes)"
ta_step_to S3 >/dev/null
ta_screen_is step "step: S3's page (reason, source with its lines marked, figures, diff)"
ta_keys d
ta_wait "Diff of S3" >/dev/null
ta_screen_is diff "diff overlay: S3's whole diff"
ta_keys Escape
ta_wait_gone "Diff of S3" >/dev/null
ta_keys "?"
ta_wait "Help: tileadvise keys" >/dev/null
ta_screen_is help "help overlay: marks and keys from the key table"
ta_keys Escape
ta_wait_gone "Help: tileadvise keys" >/dev/null
ta_keys l
ta_wait "Output of the last run" >/dev/null
ta_screen_is log "log overlay: the recorded run's output"
ta_keys Escape
ta_wait_gone "Output of the last run" >/dev/null
ta_keys a
ta_wait "recorded session, shown read-only" >/dev/null
ta_screen_is refused "a replay refuses a (apply): said in the message line"
ta_keys G
ta_wait "satisfied or not applicable" >/dev/null
ta_screen_is fold "fold: the folded steps' row selected, its page"
ta_resize 60 20
ta_wait "Terminal too small" >/dev/null
ta_screen_is small "too small: 60x20"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

# A file with two kernels, static analysis only, opened by a relative name.
mkdir -p "$TA_TMP/two"
cp "$TA_SRCDIR/tests/fixtures/tui/two_kernels.py" "$TA_TMP/two/two.py"
ta_start 100 34 "cd '$TA_TMP/two' && env $env '$TILEADVISE' --no-profile two.py"
ta_wait "Walk of scale_kernel" >/dev/null
ta_screen_is noprofile "--no-profile: the first kernel's walk, why nothing is measured"
ta_keys Tab
ta_wait "Walk of tile_kernel" >/dev/null
ta_screen_is kernels "Tab: the second kernel's walk"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

# The recorded walk: each applied step's verdict mark and ratio, the whole
# walk's change under the walk's title, and on a step's page the measured
# change with its before/after bars.
ta_start 100 34 "cd '$TA_SRCDIR' && env $env '$TILEADVISE' --replay examples/attention/session-walk.h200.json"
ta_wait "Walk of gemma_attn_fwd" >/dev/null
ta_screen_is walked "walked: verdict marks, ratios and the whole walk's change"
ta_step_to S3 >/dev/null
ta_keys Space Space
ta_wait "after  ████" >/dev/null
ta_screen_is measured "measured: S3's change, its interval, verdict and bars"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

ta_start 100 34 "cd '$TA_SRCDIR' && env TERM=screen NO_COLOR=1 LC_ALL=C LANG=C '$TILEADVISE' --replay $session"
ta_wait "Walk of gemma_attn_fwd" >/dev/null
ta_screen_is ascii "ASCII: the walk without UTF-8"
ta_keys q
finish
