#!/bin/sh
# --deep from recorded H200 runs (tests/recordings/h200-*-deep-NAME.jsonl:
# the timed run, the PC sampling run and the counters run of one script):
# the hot line of the deliberately slow kernel is its slow line, the
# counters put the kernels on the right side of the roofline, and text and
# JSON say it. Prints TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR, PYTHON3.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
p="$TA_SRCDIR/tests/recordings"
k="$TA_SRCDIR/tests/gpu/kernels"
PY=${PYTHON3:-python3}
TA_TMP_DEEP=$(mktemp -d "${TMPDIR:-/tmp}/ta-deep.XXXXXX") || exit 99
trap 'rm -rf "$TA_TMP_DEEP"' EXIT
plan 17
profile() {  # profile NAME FORMAT
	"$TILEADVISE" --profile --gpu h200 --format "$2" --records "$p/h200-2026-11-29-deep-$1.jsonl" "$k/$1.py" 2>&1
}

slow=$(grep -n '# SLOW' "$k/slowline.py" | cut -d: -f1)
text=$(profile slowline text)
printf '%s\n' "$text" | grep -Eq "^    line +$slow +5[0-9]\.[0-9]%  not_selected" 
result $? "slowline: the hottest line is the slow one (line $slow), over half the samples"
first=$(printf '%s\n' "$text" | grep -E '^    line ' | head -1 | awk '{print $2}')
[ "$first" = "$slow" ]
result $? "slowline: hot lines are listed hottest first"
printf '%s\n' "$text" | grep -q "100% on lines of slowline.py"
result $? "slowline: every sample is on a line of the file"
printf '%s\n' "$text" | grep -q "SM 95.8%.*compute-bound"
result $? "slowline: SM throughput 95.8%, compute-bound (ncu said 95.6%)"

text=$(profile vector_add text)
printf '%s\n' "$text" | grep -q "DRAM 91.5% of peak (4.40 of 4.81 TB/s).*memory-bound"
result $? "vector_add: DRAM 91.5% of peak, 4.40 TB/s, memory-bound (ncu said 91.2%)"
printf '%s\n' "$text" | grep -Eq "^    line +17 +88\.[0-9]%  long_scoreboard"
result $? "vector_add: the store's line waits on global memory"

text=$(profile matmul text)
printf '%s\n' "$text" | grep -q "median of 3 launches with the steady grid"
result $? "matmul: the counters of launches with the steady (autotuned) grid only"
printf '%s\n' "$text" | grep -q "DRAM 19.5%.*SM 79.4%.*achieved occupancy 24.7%: compute-bound"
result $? "matmul: 19.5% DRAM, 79.4% SM, 24.7% occupancy: compute-bound (ncu: 19.5, 79.5, 24.8)"
printf '%s\n' "$text" | grep -q "hardware buffer overflowed"
result $? "matmul: a PC sampling buffer overflow is said"

json=$(profile matmul json)
if "$PY" -c 'pass' 2>/dev/null; then
	printf '%s' "$json" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)["deep"]
k = d["kernels"][0]
assert k["name"] == "matmul_kernel" and k["sol"]["bound"] == "compute-bound", k
assert abs(k["sol"]["sm_pct"] - 79.4) < 0.1 and k["sol"]["steady_grid"] is True
assert d["pc_overhead"] > 0 and d["sol_overhead"] > 0
assert sum(l["samples"] for l in k["lines"]) == k["on_lines"]
'
	result $? "matmul: JSON carries the same figures, overheads and lines"
else
	skip "matmul: JSON" "no python3"
fi

# Without --deep data nothing deep is printed; with --deep and no data, a note.
out=$("$TILEADVISE" --profile --gpu h200 --records "$p/h200-2026-11-29-example-matmul.jsonl" \
	"$TA_SRCDIR/examples/matmul/matmul.py" 2>&1)
printf '%s\n' "$out" | grep -q "^deep" 
[ $? -ne 0 ]
result $? "a run without --deep data prints no deep section"
out=$("$TILEADVISE" --profile --deep --gpu h200 --records "$p/h200-2026-11-29-example-matmul.jsonl" \
	"$TA_SRCDIR/examples/matmul/matmul.py" 2>&1)
printf '%s\n' "$out" | grep -q "deep collected no PC samples or counters"
result $? "--deep over records without deep data says so"

# Another CUPTI client in the program (torch.profiler on an H200): replayed
# run by run through the injector's stand-in, the advisor says what the
# --deep runs cost the program's own trace; and a CUPTI refusal for that
# reason in the records is explained.
speak="$TA_SRCDIR/tests/profiler/scripts/speak.py"
out=$(TILEADVISE_LIBDIR="$TA_BUILDDIR/src/profile/inject/.libs" "$TILEADVISE" --profile --deep \
	--gpu h200 "$k/with_profiler.py" -- "$PY" "$speak" replay "$p/h200-2026-11-29-deep-kineto.jsonl" 2>&1)
printf '%s\n' "$out" | grep -q "own CUPTI client (torch.profiler or another profiler) could not start during the --deep runs"
result $? "torch.profiler losing its trace in the --deep runs is said"
printf '%s\n' "$out" | grep -q "in the timed run it started"
result $? "a timed run that left torch.profiler alone is not blamed (the 2026-11-29 recording)"
# The timed run itself (adaptive tracing, 2026-12-02 on an H200): Kineto was
# refused there; the user is told, with the way out and its cost.
out=$(TILEADVISE_LIBDIR="$TA_BUILDDIR/src/profile/inject/.libs" "$TILEADVISE" --profile \
	--gpu h200 "$k/with_profiler.py" -- "$PY" "$speak" replay "$p/h200-2026-12-02-kineto-adaptive.jsonl" 2>&1)
printf '%s\n' "$out" | grep -q "own CUPTI client (torch.profiler or another profiler) could not start in the timed run: tileadvise's launch callbacks hold CUPTI's one subscriber"
result $? "torch.profiler refused in the timed run is said, with TILEADVISE_TRACE=plain" "$out"
rec="$TA_TMP_DEEP/refused.jsonl"
mkdir -p "$TA_TMP_DEEP"
printf '%s\n' '{"type":"hello","v":1,"pid":7,"cupti":130001}' \
	'{"type":"error","pid":7,"where":"cuptiActivityEnable(CONCURRENT_KERNEL)","code":39,"message":"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"}' \
	'{"type":"bye","pid":7,"written":2,"dropped":0,"lost":0}' > "$rec"
out=$("$TILEADVISE" --profile --gpu h200 --records "$rec" "$k/vector_add.py" 2>&1)
printf '%s\n' "$out" | grep -q "another CUPTI client holds the program (a profiler such as ncu"
result $? "a CUPTI refusal because another profiler came first is explained"
# A collector's note (code 0) is a note, not a CUPTI error, and --deep's
# empty result points at it.
printf '%s\n' '{"type":"hello","v":1,"pid":7,"cupti":130001}' \
	'{"type":"error","pid":7,"where":"cuptiPCSamplingGetData","code":0,"message":"sampling was on, but no sample came back"}' \
	'{"type":"bye","pid":7,"written":3,"dropped":0,"lost":0}' > "$rec"
out=$("$TILEADVISE" --profile --deep --gpu h200 --records "$rec" "$k/vector_add.py" 2>&1)
printf '%s\n' "$out" | grep -q "^tileadvise: note from the profiled run: cuptiPCSamplingGetData: sampling was on" &&
	! printf '%s\n' "$out" | grep -q "CUPTI error\|(code 0)" &&
	printf '%s\n' "$out" | grep -q "collected no PC samples or counters (the notes above say why)"
result $? "an injector's note is shown as a note and named as the reason --deep found nothing" "$out"
finish
