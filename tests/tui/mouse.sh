#!/bin/sh
# The mouse: a click on a kernel shows its walk, a click on a step shows
# its page, the wheel moves between steps over the walk and scrolls the
# page. The events are typed into the pane as the SGR sequences a terminal
# sends (ESC [ < button ; column ; row M/m); TERM names a terminal whose
# terminfo asks for them. A terminal without a mouse gets the keys only.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
if [ "$(tput -T xterm-256color kmous 2>/dev/null)" != "$(printf '\033[<')" ]; then
	echo "1..0 # SKIP no xterm-256color terminfo with SGR mouse reports"
	exit 0
fi
plan 12

work="$TA_TMP/w"
mkdir -p "$work"
cp "$TA_SRCDIR/tests/fixtures/tui/two_kernels.py" "$work/two.py"

# ta_mouse BUTTON COL ROW: a press and a release (1-based cell).
ta_mouse() {
	ta_keys -l "$(printf '\033[<%s;%s;%sM\033[<%s;%s;%sm' "$1" "$2" "$3" "$1" "$2" "$3")"
}
# ta_wheel DIR COL ROW: one wheel notch (up or down); wheels send no release.
ta_wheel() {
	b=64
	[ "$1" = down ] && b=65
	ta_keys -l "$(printf '\033[<%s;%s;%sM' "$b" "$2" "$3")"
}
# row_of PATTERN: the 1-based screen row of the first line matching.
row_of() { ta_screen | grep -n -E -- "$1" | head -n 1 | cut -d: -f1; }
# page_line N: row N of the step page (right of the bar).
page_line() { ta_screen | sed -n "${1}p" | sed 's/^.*│//'; }

ta_start 120 40 "cd '$work' && TERM=xterm-256color '$TILEADVISE' --no-profile two.py"
check "the first kernel's walk is shown" ta_wait "Walk of scale_kernel"

row=$(row_of "^  tile_kernel ")
ta_mouse 0 5 "${row:-0}"
check "a click on the second kernel shows its walk" ta_wait "Walk of tile_kernel"
check "and its marker moves there" ta_wait "^▶ tile_kernel "

row=$(row_of "^ . S1  ")
ta_mouse 0 6 "${row:-0}"
check "a click on S1 in the walk opens its page" ta_wait "│ S1 · Raw pointer loads"
check "the page shows the finding" ta_wait "line 20: \`a\` tile loaded with a raw 2D pointer"

before=$(page_line 6)
ta_wheel down 80 12
page_moved() { [ "$(page_line 6)" != "$before" ]; }
check "the wheel over the page scrolls it down" ta_until page_moved
ta_wheel up 80 12
check "and back up" ta_wait "^ Kernels +│ S1 · Raw pointer loads"

ta_wheel down 5 12
# the next row after S1 is T5, the note the walk keeps for last
check "the wheel over the walk moves to the next row" ta_wait "^ Kernels +│ T5 · Catastrophic gap"
ta_keys q
check "quits cleanly" ta_wait "^EXIT=0"

grep -q '"kernel": "tile_kernel"' "$work/.tileadvise/session-two.py.json"
result $? "the session of two.py (its own file in .tileadvise/) keeps the kernel picked"

# vt100 has no mouse: the reports arrive as plain bytes and change nothing
# the keys cannot; the advisor keeps working.
ta_start 120 40 "cd '$work' && TERM=vt100 '$TILEADVISE' --no-profile two.py"
check "reopening resumes at the kernel picked with the mouse" ta_wait "Walk of tile_kernel"
ta_mouse 0 5 4
ta_keys Tab
check "without a mouse the keys still work" ta_wait "Walk of scale_kernel"
finish
