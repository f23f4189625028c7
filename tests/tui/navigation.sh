#!/bin/sh
# Finding one's way (issue 30, item 4): the selected kernel stays in view
# when the kernels do not all fit (the list scrolls, and says how many lie
# above and below), the walk's title says where the selection is ("3/5"),
# Tab passes over a helper (a @jit function only kernels call), and a
# resize never leaves the step page scrolled past its end; `/` searches
# the steps, the kernels and the file's lines, n and N step through.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 13
work="$TA_TMP/n"
mkdir -p "$work"
"${PYTHON3:-python3}" - "$work/many.py" <<'PY'
import sys
out = ["import triton", "import triton.language as tl", ""]
for i in range(14):
    out += ["@triton.jit", "def kern%02d(x_ptr, n, BLOCK: tl.constexpr):" % i,
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
            "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)", ""]
out += ["def run(x):", "    n = x.numel()"] + ["    kern%02d[((n + 255) // 256,)](x, n, BLOCK=256)" % i for i in range(14)]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
ta_start 80 24 "cd '$work' && '$TILEADVISE' --no-profile many.py"
check "the walk is up, where the selection is in its title" ta_wait "Walk of kern00 +1/[0-9]+ "
i=0
while [ $i -lt 11 ]; do ta_press Tab || break; i=$((i + 1)); done
check "eleven Tabs on: the selected kernel is in view" ta_wait "^▶ kern11 "
check "... with how many lie above and below" ta_wait "\(6 above, 2 below: Tab\)"
check "... and its walk" ta_wait "Walk of kern11 "
# / search: a kernel by name, a step by what it found, n and N, a miss
ta_keys / k e r n 0 3 Enter
check "/kern03 goes to the kernel" ta_wait "^▶ kern03 "
ta_keys / c e i l i n g Enter
check "/ceiling goes to the next step that says it: kern03's D12" ta_wait "│ D12 · Hand-written ceiling division .* kern03$|/ceiling: kern03, D12"
ta_keys n
check "n: the next match, kern04's D12" ta_wait "/ceiling: kern04, D12"
ta_keys N
check "N: back to kern03's" ta_wait "/ceiling: kern03, D12"
ta_keys / z z q z Enter
check "a miss says so" ta_wait "/zzqz: not found"
ta_keys q
# Tab passes over the helper _fast_tanh of the walked attention session.
ta_start 120 40 "'$TILEADVISE' --replay '$TA_SRCDIR/examples/attention/session-walk.h200.json'"
ta_wait "Walk of gemma_attn_fwd" >/dev/null
ta_keys Tab
sleep 0.5
ta_screen | grep -q "Walk of gemma_attn_fwd"
result $? "Tab passes over a helper: the kernel's walk stays"
# Scrolled to the end of a long page, then made larger: it is not left
# scrolled past its end above blank rows (here the page now fits whole).
ta_step_to S6 >/dev/null
check "a page longer than the pane says where it is" ta_wait "│ +lines 1-[0-9]+ of [0-9]+, Space for more *$"
i=0
while [ $i -lt 30 ]; do ta_keys Space; i=$((i + 1)); done
sleep 0.5
ta_resize 200 60
check "after a resize the page is not scrolled past its end: it fits, so its title is back" \
	ta_wait "│ S6 · Precise tanh in the inner loop +\[applied(, hint)?\]"
ta_screen | grep -q "Typical impact"
result $? "... and its last section is shown"
ta_keys q
finish
