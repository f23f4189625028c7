#!/bin/sh
# Key scripts (TILEADVISE_SCRIPT) as a user of them meets them: a script
# with a typo fails before the advisor starts, naming the line and what
# does not parse; a missing script says so; neither leaves a file behind.
# A script that saves a screen it cannot write says so on the screen and
# goes on to its end. (tests/tui/screens.sh drives the views with them.)
. "$TA_SRCDIR/tests/tui/lib.sh"
plan 8
export TERM=screen NO_COLOR=1 LC_ALL=C.UTF-8 LANG=C.UTF-8
session="examples/attention/session.h200.json"

printf 'jj\n<Dwn>\n:screen %s/never.txt\n' "$TA_TMP" >"$TA_TMP/typo.keys"
ta_script "$TA_SRCDIR" "$TA_TMP/typo.keys" --replay $session
rc=$?
check "a key name that is no key: exit 2" eval '[ $rc -eq 2 ]'
check "... the message names the line and the name" grep -q 'line 2: `<Dwn>` names no key' "$TA_TMP/script-out"
check "... nothing ran: no screen saved" eval '[ ! -e "$TA_TMP/never.txt" ]'

printf ':screne x.txt\n' >"$TA_TMP/cmd.keys"
ta_script "$TA_SRCDIR" "$TA_TMP/cmd.keys" --replay $session
rc=$?
check "an unknown command: exit 2, the commands named" \
	eval '[ $rc -eq 2 ] && grep -q "no script command (:screen PATH, :size W H)" "$TA_TMP/script-out"'

ta_script "$TA_SRCDIR" "$TA_TMP/missing.keys" --replay $session
rc=$?
check "a script that is not there: exit 2, said" \
	eval '[ $rc -eq 2 ] && grep -q "cannot read the key script" "$TA_TMP/script-out"'

# A screen path in a folder that does not exist: the message line says
# so, and the next screen, saved where it can be, shows it.
printf ':size 100 34\n:screen %s/no/such/dir/a.txt\n:screen %s/b.txt\n' "$TA_TMP" "$TA_TMP" >"$TA_TMP/nodir.keys"
ta_script "$TA_SRCDIR" "$TA_TMP/nodir.keys" --replay $session
rc=$?
check "an unwritable screen path: the script still ends, exit 0" eval '[ $rc -eq 0 ]'
check "... the next screen shows why the first was not written" grep -q "cannot write the screen to" "$TA_TMP/b.txt"
# The literal `<` and a control key by name: `<lt>` is typed into the
# search, <Ctrl-L> redraws; the search line shows what was typed.
printf ':size 100 34\n/a<lt>b\n:screen %s/c.txt\n<Esc><Ctrl-L>\n' "$TA_TMP" >"$TA_TMP/lt.keys"
ta_script "$TA_SRCDIR" "$TA_TMP/lt.keys" --replay $session
check "<lt> types a literal <: the search line shows a<b" grep -q "/a<b" "$TA_TMP/c.txt"
finish
