#!/bin/sh
# A workload of several launch shapes (98 long launches, 114 shorter, then
# one tiny check, the last seen): the kernel list shows the GPU time per
# call over all of them, the evidence the dominant shape (most GPU time)
# and every shape's share, and a re-measured step compares shape by shape.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 8

work="$TA_TMP/s"
mkdir -p "$work"
cp "$TA_SRCDIR/tests/fixtures/tui/two_kernels.py" "$work/k.py"
awk 'BEGIN {
	t = 1000000000; c = 0
	print "{\"type\":\"hello\",\"v\":1,\"pid\":1,\"cupti\":130001}"
	n[1] = 98; d[1] = 3900000; g[1] = 4096
	n[2] = 114; d[2] = 2200000; g[2] = 2048
	n[3] = 1; d[3] = 160000; g[3] = 16
	for (s = 1; s <= 3; s++)
		for (i = 0; i < n[s]; i++) {
			c++
			printf "{\"type\":\"kernel\",\"pid\":1,\"name\":\"scale_kernel\",\"start\":%d,\"end\":%d,\"grid\":[%d,1,1],\"block\":[128,1,1],\"regs\":26,\"smem_static\":0,\"smem_dynamic\":0,\"local\":0,\"device\":0,\"stream\":7,\"corr\":%d,\"graph\":0,\"graph_node\":0}\n", t, t + d[s] + (i % 3) * 1000, g[s], c
			t += d[s] + 20000
		}
	printf "{\"type\":\"bye\",\"pid\":1,\"written\":%d,\"dropped\":0,\"lost\":0}\n", c + 1
}' >"$work/shapes.jsonl"

ta_start 170 50 "cd '$work' && '$TILEADVISE' --gpu h200 --records shapes.jsonl k.py"
check "the kernel list shows the time per call over every shape" ta_wait "scale_kernel +2972.8 µs"
ta_keys Enter
check "the evidence gives the per-call time and the shapes" \
	ta_wait_fixed "2972.8 µs per call over 211 steady launches of 3 shapes"
check "the dominant shape is the one with most GPU time" \
	ta_wait_fixed "dominant shape (most GPU time): median 3901.0 µs, IQR 2.0 µs, n=97"
check "the dominant shape's grid describes the figures" ta_wait "grid 4096×1×1, block 128"
check "every shape has its share" ta_wait " 40%  grid 2048×1×1, block 128, 26 regs, shared memory 0 B: 113 launches, median 2201.0 µs"
check "the lone last launch is listed, not the headline" ta_wait "  0%  grid 16×1×1, block 128, 26 regs, shared memory 0 B: 1 launch, median 160.0 µs"
ta_keys q
check "the advisor ends" ta_wait "EXIT=0"
# Reopened without profiling: the session kept the shapes.
ta_start 120 50 "cd '$work' && '$TILEADVISE' --no-profile k.py"
check "the saved session keeps the per-call time" ta_wait "scale_kernel +2972.8 µs"
ta_keys q
finish
