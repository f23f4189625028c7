#!/bin/sh
# --deep in the advisor: a recorded H200 stream of the matmul test kernel
# with its PC sampling and counters runs stands in for the runs. The step
# page's source has the heat gutter (share of stall samples per line), the
# step says how hot its lines are, the evidence has the speed of light; the
# session keeps it all (reopened without the records, it is still there);
# and the ASCII fallback draws the gutter with ASCII marks.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 13

rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-deep-matmul.jsonl"
work="$TA_TMP/d"
mkdir -p "$work"
cp "$TA_SRCDIR/tests/gpu/kernels/matmul.py" "$work/matmul.py"

ta_start 140 50 "cd '$work' && '$TILEADVISE' --gpu h200 --records '$rec' matmul.py"
check "the run is measured" ta_wait "matmul_kernel +1942\.9 µs"
check "S1 is reached" ta_step_to S1
check "the dot's line is the hottest, in the gutter" ta_wait "▶   37 █  68%│         acc \+= tl\.dot"
check "the loop header and a pointer step are warm" ta_wait "    39 ▓  10%│         b \+= BK \* sbk"
check "the step says how hot its lines are" \
	ta_wait_fixed "69% of stall samples are on lines 37–41: barrier (waiting at a barrier)"
check "the speed of light is in the evidence" \
	ta_wait "speed of light: DRAM 19\.5%, SM 79\.4% of peak, tensor pipe 82\.0%"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

# Reopened with no records and nothing run: the session has the figures.
ta_start 140 50 "cd '$work' && '$TILEADVISE' --no-profile matmul.py"
ta_wait "matmul_kernel +1942\.9 µs" >/dev/null
ta_keys g
ta_wait "(│|\|) T3 (·|-) " >/dev/null
ta_step_to S1 >/dev/null
check "the session keeps the hot lines" ta_wait "▶   37 █  68%│"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

ta_start 140 50 "cd '$work' && env LC_ALL=C LANG=C NO_COLOR=1 '$TILEADVISE' --no-profile matmul.py"
ta_wait "matmul_kernel +1942\.9 µs" >/dev/null
ta_keys g
ta_wait "(│|\|) T3 (·|-) " >/dev/null
ta_step_to S1 >/dev/null
check "ASCII: # for the hottest line" ta_wait "\| >   37 #  68%\|         acc \+= tl\.dot"
check "ASCII: * for a warm one" ta_wait "    39 \*  10%\|"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

# The --deep runs themselves: a stand-in for the injector and the GPU
# (tests/profiler/scripts/speak.py) replays each run's part of the same
# stream, so the advisor's own sequence runs: the timed run, then PC
# sampling, then the counters, each told which kernels to look at.
live="$TA_TMP/live"
mkdir -p "$live"
cp "$TA_SRCDIR/tests/gpu/kernels/matmul.py" "$live/matmul.py"
speak="$TA_SRCDIR/tests/profiler/scripts/speak.py"
ta_start 140 50 "cd '$live' && TILEADVISE_LIBDIR='$TA_BUILDDIR/src/profile/inject/.libs' \
	'$TILEADVISE' --gpu h200 --deep matmul.py -- '${PYTHON3:-python3}' '$speak' replay '$rec'"
check "the timed run, then both --deep runs, end in one message" \
	ta_wait "--deep: [0-9]+ stall samples, counters read; PC sampling run [0-9.]+×, counters run [0-9.]+× the timed run"
ta_keys g
ta_wait "(│|\|) T3 (·|-) " >/dev/null
ta_step_to S1 >/dev/null
check "their hot lines reach the step page" ta_wait "▶   37 █  68%│"
check "and the counters" ta_wait "speed of light: DRAM 19\.5%"
ta_press l
check "each --deep run was told the file's kernels" ta_wait_fixed "deep kernels: matmul_kernel"
ta_keys Escape q
finish
