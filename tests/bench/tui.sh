#!/bin/sh
# Screen benchmark of the advisor, driven through tmux (a pseudo-terminal)
# at 120x40 on a generated 2,000-line kernel file (copies of the examples and
# rule fixtures, tests/bench/gen_kernels.py), or on TA_BENCH_FILE
# (--no-profile, so nothing else runs):
#  - start to first complete frame, 11 starts: the advisor's own clock
#    (TILEADVISE_BENCH: process start to the end of the first refresh) and
#    the outside view (tmux launch until the footer is on the pane);
#  - keypress to redraw over 50 keypresses that move the selection (j, and
#    k back up from the last row; a file with a short walk bounces between
#    its ends): inside (key read to the end of the refresh) and outside
#    (send-keys until the pane changed).
# Every wait has a time limit, so a key that changes nothing (j on the
# last row) or a frame that never comes cannot hang the script.
# Prints medians; targets: first frame < 100 ms, median redraw < 16 ms.
# TA_BENCH_VS=OTHER_BINARY interleaves the starts with another build's and
# prints the median of the per-pair ratios of the first frame.
# Usage: TILEADVISE=build/src/tileadvise TA_SRCDIR=. tests/bench/tui.sh
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/common.sh"
: "${TILEADVISE:?set TILEADVISE}"
: "${TA_SRCDIR:?set TA_SRCDIR}"
command -v tmux >/dev/null || { echo "tmux is needed"; exit 2; }
sock="ta-bench-$$"
tmp=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null; sleep 0.3; rm -rf "$tmp"' EXIT
if [ -n "${TA_BENCH_FILE:-}" ]; then
	file=$TA_BENCH_FILE
	cp "$file" "$tmp/"
	kernel="$tmp/$(basename "$file")"
else
	kernel="$tmp/kernels2000.py"
	${PYTHON3:-python3} "$TA_SRCDIR/tests/bench/gen_kernels.py" "$TA_SRCDIR" big "$kernel" 2000
	file=$kernel
fi
log="$tmp/bench.log"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
screen() { tmux -L "$sock" capture-pane -p -t b 2>/dev/null; }
# Waits until TEXT is on the pane, at most MS milliseconds; 1 if not.
wait_for() {
	end=$(($(now_ms) + $2))
	until screen | grep -q "$1"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
	done
}

: >"$tmp/outside-first"
# One start of BIN: the advisor's own figure goes to LOG, the outside one
# to OUT; it is quit and waited for (a quit saves the session) before the
# next start.
# Only a start's first first_frame_ms line counts (builds before this
# script's fix marked the loop's first redraw as a first frame too).
start_once() {
	rm -rf "$tmp/.tileadvise"
	: >"$tmp/one.log"
	t0=$(now_ms)
	tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 -s b \
		"TILEADVISE_BENCH='$tmp/one.log' '$1' --no-profile '$kernel'; echo TA_EXITED; exec sleep 60"
	wait_for "q quit" 20000 || { echo "no frame after 20 s:"; screen; exit 1; }
	echo $(($(now_ms) - t0)) >>"$3"
	tmux -L "$sock" send-keys -t b q
	wait_for TA_EXITED 10000 || echo "# the advisor did not quit within 10 s" >&2
	tmux -L "$sock" kill-session -t b
	grep -m1 '^first_frame_ms' "$tmp/one.log" >>"$2"
	grep -m1 '^first_frame_cpu_ms' "$tmp/one.log" >>"$2"
}
# TA_BENCH_VS=OTHER: the same starts of another build, interleaved with
# these (A B A B ...), and the ratio of the two taken pair by pair.
vs=${TA_BENCH_VS:-}
: >"$tmp/vs.log"
: >"$tmp/vs-outside"
for i in $(seq 11); do
	start_once "$TILEADVISE" "$log" "$tmp/outside-first"
	[ -z "$vs" ] || start_once "$vs" "$tmp/vs.log" "$tmp/vs-outside"
done
first_in=$(grep '^first_frame_ms' "$log" | awk '{print $2}' | median)
# The process's CPU time at the first frame (builds from 2026-12-02 on).
cpu_in=$(grep '^first_frame_cpu_ms' "$log" | awk '{print $2}' | median)
first_out=$(median <"$tmp/outside-first")
if [ -n "$vs" ]; then
	vs_in=$(grep '^first_frame_ms' "$tmp/vs.log" | awk '{print $2}' | median)
	vs_cpu=$(grep '^first_frame_cpu_ms' "$tmp/vs.log" | awk '{print $2}' | median)
	grep '^first_frame_ms' "$log" | awk '{print $2}' >"$tmp/a"
	grep '^first_frame_ms' "$tmp/vs.log" | awk '{print $2}' >"$tmp/b"
	ratio=$(paste -d' ' "$tmp/a" "$tmp/b" | awk '$2 > 0 { printf "%.3f\n", $1 / $2 }' | median)
fi

rm -rf "$tmp/.tileadvise"
: >"$log"
tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 -s b \
	"TILEADVISE_BENCH='$log' '$TILEADVISE' --no-profile '$kernel'; exec sleep 60"
wait_for "q quit" 20000 || { echo "no frame after 20 s:"; screen; exit 1; }
: >"$tmp/outside-key"
# A key counts when the pane changed; one that changed nothing within
# 300 ms of the advisor logging its redraw (or 5 s in all) was at an end of
# the walk: the direction turns and the key is not counted.
key=j
moved=0
pressed=0
while [ $moved -lt 50 ] && [ $pressed -lt 200 ]; do
	pressed=$((pressed + 1))
	before=$(screen)
	logged=$(grep -c '^key_to_frame_ms' "$log")
	t0=$(date +%s%N)
	tmux -L "$sock" send-keys -t b "$key"
	changed=0
	end=$(($(now_ms) + 5000))
	seen=""
	while :; do
		[ "$(screen)" = "$before" ] || { changed=1; break; }
		now=$(now_ms)
		[ "$now" -lt "$end" ] || break
		if [ -z "$seen" ] && [ "$(grep -c '^key_to_frame_ms' "$log")" -gt "$logged" ]; then
			seen=$now
			end=$((now + 300))
		fi
	done
	if [ $changed = 1 ]; then
		echo "$(( ($(date +%s%N) - t0) / 1000 ))" | awk '{ printf "%.3f\n", $1 / 1000 }' >>"$tmp/outside-key"
		moved=$((moved + 1))
	elif [ $key = j ]; then
		key=k
	else
		key=j
	fi
done
redraw_in=$(grep '^key_to_frame_ms' "$log" | awk '{print $2}' | median)
redraw_out=$(median <"$tmp/outside-key")
keys=$(grep -c '^key_to_frame_ms' "$log")
[ $moved -gt 0 ] || { echo "no key changed the pane (a walk of one row?)"; exit 1; }

echo "file: $(basename "$file") ($(wc -l <"$file") lines), 120x40, --no-profile"
echo "first frame, median of 11 starts: ${first_in} ms inside, ${first_out} ms seen through tmux (target < 100 ms)${cpu_in:+; CPU time at it ${cpu_in} ms}"
[ -z "$vs" ] || echo "interleaved with $vs: ${vs_in} ms inside${vs_cpu:+ (CPU ${vs_cpu} ms)}; ratio (this / that), median of 11 pairs: $ratio"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "keypress to redraw: ${redraw_in} ms inside (median of $keys keys), ${redraw_out} ms seen through tmux (median of the $moved that changed the pane; target < 16 ms)"
