#!/bin/sh
# The key table (src/ui/tui/keys.def) is the one source of the keys: every
# request's help text must be in the man page's ADVISOR KEYS section (the
# help overlay is drawn from the table itself), and so must the mouse lines
# of keymap.h. Prints TAP (tests/lib/tap.sh).
. "$TA_SRCDIR/tests/lib/tap.sh"
set -u
defs="$TA_SRCDIR/src/ui/tui/keys.def"
man="$TA_SRCDIR/man/tileadvise.1"
section=$(sed -n '/^\.SH ADVISOR KEYS/,/^\.SH /p' "$man" | sed 's/\\-/-/g')
helps=$(sed -n 's/^REQ([A-Z_]*, .*"\([^"]*\)", [A-Z_0 |]*)$/\1/p' "$defs"
	sed -n 's/^#define TA_MOUSE_[A-Z]*_HELP "\(.*\)"$/\1/p' "$TA_SRCDIR/src/ui/tui/keymap.h")
count=$(echo "$helps" | grep -c .)
plan "$count"
echo "$helps" | {
	while IFS= read -r h; do
		printf '%s\n' "$section" | grep -qxF -- "$h"
		result $? "man page: $h"
	done
	finish
}
