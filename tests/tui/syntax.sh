#!/bin/sh
# A file that does not parse (issue 30, item 2): the advisor says the parse
# error first (line, column, the parser's words), opens on the kernel it is
# in, shows the lines around it with the column marked, and walks nothing of
# that kernel (an unclosed call once read a store as a descriptor store,
# "T4 · Descriptors in place"). Saved fixed, the file is read again and
# walked. An error outside the kernels leaves their walk.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 8
work="$TA_TMP/s"
mkdir -p "$work"
src="$TA_SRCDIR/examples/softmax/softmax.py"
sed '20s/$/ (/' "$src" >"$work/k.py"
ta_start 120 30 "cd '$work' && '$TILEADVISE' --no-profile k.py"
check "the parse error is said first, with its place and the kernel it stops" \
	ta_wait "syntax error at line 20, column 9: cannot parse .mask.; .softmax_kernel. is not advised until it parses"
check "the kernel is marked as not parsing" ta_wait "softmax_kernel +does not parse"
check "the page names the error and why nothing is advised" ta_wait "nothing is advised on this"
check "the error line is shown, marked" ta_wait "▶ +20 │ +mask = \(cols < n_cols\) & \(row < n_rows\) \($"
ta_screen | grep -q "● P1\|● D12\|T4 "
result $((1 - $?)) "no step of the kernel is walked"
cp "$src" "$work/k.py"
check "saved fixed, it is read again and walked" ta_wait "● D12 Hand-written ceiling division"
ta_keys q
# outside the kernels: said, and the walk goes on
{ cat "$src"; printf 'def broken(:\n    pass\n'; } >"$work/k2.py"
ta_start 120 30 "cd '$work' && '$TILEADVISE' --no-profile k2.py"
check "an error outside the kernels is said" ta_wait "syntax error at line [0-9]+, column [0-9]+: .* \(outside the kernels: their walk goes on\)"
check "... and the kernel is walked" ta_wait "● D12 Hand-written ceiling division"
ta_keys q
finish
