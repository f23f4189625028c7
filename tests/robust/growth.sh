#!/bin/sh
# Analysis time linear in the file for every hostile shape (issue 31): each
# shape of tests/bench/hostile_shapes.py at its base size and at four times
# it, `--check --fixes` on each (the least CPU time of two runs, every file
# analysed whole); a shape fails when its time grows faster than n log n in
# the file's bytes, with a slack of 2 for a loaded machine (a quadratic
# shape grows 16 times, the bound is about 9; a shape whose first size
# takes under 0.1 s is measured from twice the size, where the process's
# start and the clock's tick are no longer most of it). Before issue 31, one host
# launching many kernels, one kernel launched many times, many literal
# Configs and ifs in a row (2^n) grew far past it, and one kernel of many
# statements (each load's pointer shape and P6 looked through every
# assignment of the kernel) past it too, and one kernel of many loops (each
# loop's questions scanned every op, assignment and loop of the kernel; P2
# looked each masked load's names back through every assignment). With X1
# on, one file of many suppression comments (each X0 and X1 question
# scanned the comments from the first). And one loop of many masked loads
# (each question whether a value varies in the loop read every assignment
# of the loop; D11 asked each mask about every assignment and loop), and
# many wrappers calling one launcher (D3 through the file's functions).
# And one loop of many scalar loads rebinding one name under flag tests
# (P6 asked each load about every assignment of the kernel).
# tests/bench/growth.py
# prints the whole curve.
# TAP. Env: TILEADVISE, TA_SRCDIR; GROWTH_SCALE (default 0.5) scales the sizes.
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
py=${PYTHON3:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3"
	exit 0
fi
exec "$py" "$TA_SRCDIR/tests/bench/growth.py" "$TILEADVISE" --tap --sizes 1,4 --repeat 2 \
	--bound 2 --floor 0.1 --timeout 60 --scale "${GROWTH_SCALE:-0.5}" --args "${GROWTH_ARGS:---check --extend-select=X1}" \
	--shapes kernels,kernels_block,launches,configs,config_names,ifs,nested_ifs,statements,loops,params,many,module_names,chain,parens,suppressions,loop_masks,wrappers,reloads
