#!/bin/sh
# The key table (src/ui/tui/keys.def) is the one source of the keys: every
# request's help text must be in the man page's ADVISOR KEYS section (the
# help overlay is drawn from the table itself), and so must the mouse lines
# of keymap.h. Prints TAP.
set -u
defs="$TA_SRCDIR/src/ui/tui/keys.def"
man="$TA_SRCDIR/man/tileadvise.1"
section=$(sed -n '/^\.SH ADVISOR KEYS/,/^\.SH /p' "$man" | sed 's/\\-/-/g')
helps=$(sed -n 's/^REQ([A-Z_]*, .*"\([^"]*\)", [A-Z_0 |]*)$/\1/p' "$defs"
	sed -n 's/^#define TA_MOUSE_[A-Z]*_HELP "\(.*\)"$/\1/p' "$TA_SRCDIR/src/ui/tui/keymap.h")
count=$(echo "$helps" | grep -c .)
echo "1..$count"
n=0 fails=0
echo "$helps" | {
	while IFS= read -r h; do
		n=$((n + 1))
		if printf '%s\n' "$section" | grep -qxF -- "$h"; then
			echo "ok $n - man page: $h"
		else
			echo "not ok $n - man page: $h"
			fails=$((fails + 1))
		fi
	done
	[ "$fails" -eq 0 ]
}
