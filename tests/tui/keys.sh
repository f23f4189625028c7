#!/bin/sh
# The key table (src/ui/tui/keys.def, named by keymap.c) is the one source of
# the keys: the help overlay the program draws from it (? in the advisor)
# and the man page's ADVISOR KEYS section must list the same keys, by the
# same names, with the same help text, in the same order; the mouse lines of
# keymap.h too. One check per key (its names and its text in the man page),
# then the two lists whole. Prints TAP (tests/lib/tap.sh).
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
set -u
defs="$TA_SRCDIR/src/ui/tui/keys.def"
man="$TA_SRCDIR/man/tileadvise.1"
nreq=$(grep -c '^REQ(' "$defs")
# Every request and the two mouse lines, then the two lists compared whole
# and the count.
plan $((nreq + 2 + 2))

# The man page: each ".TP / .B "KEYS" / TEXT" of the section as KEYS|TEXT.
sed -n '/^\.SH ADVISOR KEYS/,/^\.SH CHECKLIST/p' "$man" | sed 's/\\-/-/g' |
	awk '/^\.TP$/ { tp = 1; next }
	     tp && /^\.B "/ { k = $0; sub(/^\.B "/, "", k); sub(/"$/, "", k); tp = 2; next }
	     tp == 2 { print k "|" $0; tp = 0; next }
	     { tp = 0 }' >"$TA_TMP/man"

# The program: the help overlay, tall enough to hold it whole; the rows
# below "Keys:" and "Mouse, ...:" as KEYS|TEXT (the " *" of keys a replay
# refuses left out: the man page says that in a sentence).
# (on a copy: the advisor keeps its session beside the file, and the source
# tree may be read-only)
mkdir -p "$TA_TMP/k"
cp "$TA_SRCDIR/examples/attention/attention.py" "$TA_TMP/k/"
ta_start 100 60 "cd '$TA_TMP/k' && '$TILEADVISE' --no-profile attention.py"
ta_wait "Walk of gemma_attn_fwd" >/dev/null
ta_keys "?"
ta_wait "^ +wheel +" >/dev/null
ta_screen | awk '/^ +Keys:$/ || /^ +Mouse, / { on = 1; next }
	on && /^ *$/ { on = 0; next }
	on { sub(/^ +/, ""); sub(/ \*$/, ""); n = index($0, "  "); k = substr($0, 1, n - 1);
	     t = substr($0, n); sub(/^ +/, "", t); print k "|" t }' >"$TA_TMP/help"
ta_keys Escape q
rm -f "$TA_TMP/last-screen"   # failures below show their own comments

# One check per row of the overlay: the man page has it, names and text.
while IFS='|' read -r keys text; do
	grep -qxF -- "$keys|$text" "$TA_TMP/man"
	result $? "man page: $keys — $text" \
		"the man page says: $(grep -F -- "|$text" "$TA_TMP/man" | cut -d'|' -f1)"
done <"$TA_TMP/help"
# (too few rows read from the screen: the count below fails and the plan too)
check_diff "the man page lists the overlay's keys whole, in its order" "$TA_TMP/help" "$TA_TMP/man"
[ "$(wc -l <"$TA_TMP/help")" -eq $((nreq + 2)) ]
result $? "the overlay shows every request of keys.def and the two mouse lines" \
	"$(wc -l <"$TA_TMP/help") rows read, $nreq requests in keys.def"
finish
