#!/bin/sh
# The autotune table on the P1 step: a session recorded from the H200
# attention stream plus Triton's report (as "output" records), replayed.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 5

dir="$TA_SRCDIR/tests/recordings"
rec="$TA_TMP/attention.jsonl"
cat "$dir/h200-2026-11-29-example-attention.jsonl" >"$rec"
sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/{"type":"output","line":"&"}/' \
	"$dir/h200-2026-11-29-example-attention.autotune.log" >>"$rec"
"$TILEADVISE" --record-session="$TA_TMP/s.json" --records="$rec" --gpu=h200 \
	"$TA_SRCDIR/examples/attention/attention.py" >/dev/null 2>&1
result $? "a session recorded from the stream with Triton's report"

ta_start 140 60 "'$TILEADVISE' --replay '$TA_TMP/s.json'"
check "j moves to P1" ta_step_to P1
check "P1 shows the Autotune section" ta_wait "│ Autotune *$"
check "the chosen config, its launches and steady median" \
	ta_wait "✓ +284 +1932\.2 µs +128 +138 +113K 12\.5% smem +BLOCK_M=64 BLOCK_N=64 warps=4 stages=3"
check "the Evidence still counts the autotuning launches" ta_wait_fixed "392 launches (107 autotuning, 1 warm-up set apart)"
ta_keys q
finish
