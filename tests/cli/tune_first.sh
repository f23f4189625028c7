#!/bin/sh
# A measured run of a file that autotunes one of its kernels runs it once
# uninjected first, with Triton's autotuning cache on, so that the measured
# run launches no tuning (with several keys tuned in turn, the tuning
# launches cannot be told from the workload by their order; seen on an H100:
# results/gpu/walk-h100-2026-12-05). A fake python3 on PATH stands in
# for the GPU and notes each run's environment; the runs themselves record
# nothing, so the walk and --profile stop after their first measurement.
# Prints TAP (tests/lib/tap.sh).
set -u
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-tunefirst.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
TAP_ON_FAIL='[ ! -s "$tmp/err" ] || tail -n 20 "$tmp/err"; cat "$tmp/log"'
plan 14
mkdir -p "$tmp/bin" "$tmp/w"
cat >"$tmp/bin/python3" <<'PY'
#!/bin/sh
echo "run inject=${CUDA_INJECTION64_PATH:+set} cache=${TRITON_CACHE_AUTOTUNING:-unset}" >>"$TF_LOG"
if [ -z "${CUDA_INJECTION64_PATH:-}" ]; then
	# what Triton prints where it tunes
	printf 'Triton autotuning for function scale,\nwith key as (1024,),\nfinished after 1.50s,\n'
	printf 'best config selected: BLOCK: 128, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None;\n'
fi
echo "check ok"
PY
chmod +x "$tmp/bin/python3"
cat >"$tmp/w/tuned.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def scale(x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)
PY
sed '/@triton.autotune/d' "$tmp/w/tuned.py" >"$tmp/w/plain.py"
export TF_LOG="$tmp/log" TILEADVISE_LIBDIR="$TA_BUILDDIR/src/profile/inject/.libs"
ta() { (cd "$tmp/w" && PATH="$tmp/bin:$PATH" "$TILEADVISE" "$@") >"$tmp/out" 2>"$tmp/err"; }

: >"$tmp/log"
ta --walk --gpu h200 tuned.py
[ "$(cat "$tmp/log")" = "run inject= cache=1
run inject=set cache=1" ]
result $? "--walk, autotuned file: a tuning run uninjected, then the measured run, both with the cache on"
grep -q "the first run was not measured" "$tmp/err"
result $? "... and a run that records nothing is still said to be unmeasured"

: >"$tmp/log"
ta --walk --gpu h200 plain.py
[ "$(cat "$tmp/log")" = "run inject=set cache=unset" ]
result $? "--walk, no autotune: one measured run, the environment as it was"

: >"$tmp/log"
ta --profile --gpu h200 tuned.py
[ "$(cat "$tmp/log")" = "run inject= cache=1
run inject=set cache=1" ]
result $? "--profile, autotuned file: the same two runs"

: >"$tmp/log"
ta --profile --gpu h200 --save-records="$tmp/saved.jsonl" tuned.py
grep -q '"line":"best config selected: BLOCK: 128' "$tmp/saved.jsonl" && [ "$(grep -c '"line":"check ok"' "$tmp/saved.jsonl")" = 2 ]
result $? "--save-records keeps the tuning run's output beside the measured run's (a replay has the report)"
[ "$(grep -c '"type":"run"' "$tmp/saved.jsonl")" = 1 ] && grep -q '"type":"run","mode":"timed".*"tuned":false' "$tmp/saved.jsonl"
result $? "... one run line, the measured run's: it printed no tuning, so none of its launches is the tuner's"

# a Triton that ignores the cache tunes in the measured run as well
sed -i 's/^if \[ -z "${CUDA_INJECTION64_PATH:-}" \]; then/if true; then/' "$tmp/bin/python3"
ta --profile --gpu h200 --save-records="$tmp/saved2.jsonl" tuned.py
[ "$(grep -c '"type":"run"' "$tmp/saved2.jsonl")" = 1 ] && ! grep -q '"tuned":false' "$tmp/saved2.jsonl"
result $? "... a measured run that tuned all the same is not said to be untuned"

: >"$tmp/log"
(cd "$tmp/w" && PATH="$tmp/bin:$PATH" TRITON_CACHE_AUTOTUNING=0 "$TILEADVISE" --profile --gpu h200 tuned.py) >/dev/null 2>&1
[ "$(cat "$tmp/log")" = "run inject= cache=0
run inject=set cache=0" ]
result $? "a user's own TRITON_CACHE_AUTOTUNING is left as it is"

: >"$tmp/log"
ta --profile --gpu h200 --records "$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-matmul.jsonl" tuned.py
[ ! -s "$tmp/log" ]
result $? "a recorded stream runs nothing"

# The walk's re-run after an edit that adds @triton.autotune: it tunes
# first too, and its measured run, which printed no tuning, has no tuning
# launches. Here the injected runs write the same records each time: 12
# launches of one configuration, then 30 of another (a check size, then
# the benchmark, as naive_fmha's D64 and D128 on an H100). Read as the
# autotuner's trials, the 12 would leave the workload the 30 faster ones
# and the step 0.94x "faster" on identical launches.
cat >"$tmp/w/walked.py" <<'PY'
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)


def run(x):
    n = x.numel()
    block = 128
    scale[(triton.cdiv(n, block),)](x, n, BLOCK=block)
    return x


if __name__ == "__main__":
    run(torch.ones(4096, device="cuda"))
PY
"$PYTHON3" - "$tmp/recs.jsonl" <<'PY'
import json, sys
t, corr, out = 10**12, 0, [{"type": "hello", "v": 1, "pid": 7, "cupti": 130001, "driver": 13000}]
def launch(grid, block, ns):
    global t, corr
    corr += 1
    out.append({"type": "kernel", "pid": 7, "name": "scale", "start": t, "end": t + ns, "grid": [grid, 1, 1],
                "block": [block, 1, 1], "regs": 20, "smem_static": 0, "smem_dynamic": 0, "local": 0,
                "device": 0, "stream": 7, "corr": corr, "graph": 0, "graph_node": 0})
    t += ns + 2000
for i in range(12):
    launch(64, 128, 50000 + (i % 3) * 100)
t += 5000000
for i in range(30):
    launch(32, 256, 40000 + (i % 4) * 100)
out.append({"type": "bye", "pid": 7, "written": len(out) + 1, "dropped": 0, "lost": 0})
open(sys.argv[1], "w").write("".join(json.dumps(x) + "\n" for x in out))
PY
cat >"$tmp/bin/python3" <<'PY'
#!/bin/sh
echo "run inject=${CUDA_INJECTION64_PATH:+set} cache=${TRITON_CACHE_AUTOTUNING:-unset}" >>"$TF_LOG"
if [ -z "${CUDA_INJECTION64_PATH:-}" ] && grep -q triton.autotune "$1"; then
	printf 'Triton autotuning for function scale,\nwith key as (4096,),\nfinished after 1.50s,\n'
	printf 'best config selected: BLOCK: 256, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None;\n'
fi
[ -z "${TILEADVISE_RECORD_FD:-}" ] ||
	"$TF_PY" -c 'import os, sys; os.write(int(os.environ["TILEADVISE_RECORD_FD"]), open(sys.argv[1], "rb").read())' "$TF_RECORDS"
echo "check ok"
PY
: >"$tmp/log"
TF_PY=$(command -v "$PYTHON3") TF_RECORDS="$tmp/recs.jsonl" ta --walk --gpu h200 --select P1 --unsafe-fixes walked.py
grep -q "P1: scale 44.8 µs -> 44.8 µs, 1.000 .* within noise" "$tmp/err" &&
	grep -q "run inject= cache=1" "$tmp/log"
result $? "--walk: the re-run after P1 tunes first, and its measured run has no tuning launches (same launches, same figure)"
"$PYTHON3" -c '
import json, sys
s = json.load(open(sys.argv[1] + "/.tileadvise/session-walked.py.json"))
sys.exit(0 if [k["autotune"] for r in s["runs"] for k in r["kernels"]] == [0, 0] else 1)' "$tmp/w"
result $? "... the session says so: no run has autotuning launches"

# A tuning run that stops early (its time limit, on the H100 a P1 of 16
# configs compiled and tried over four keys: 212 s against the walk's 150)
# leaves keys untuned, and the measured run tunes them: its launches mix the
# tuner's trials with the workload's. It is dropped and made once more; the
# stream keeps its records behind a "dropped" run line, so a replay drops
# them too. Here the tuning run exits 1 as a run stopped at its limit would
# not exit 0; the first measured run tunes, the second reads the cache.
cat >"$tmp/bin/python3" <<'PY'
#!/bin/sh
echo "run inject=${CUDA_INJECTION64_PATH:+set} cache=${TRITON_CACHE_AUTOTUNING:-unset}" >>"$TF_LOG"
[ -n "${CUDA_INJECTION64_PATH:-}" ] || exit 1
if [ ! -e "$TF_LOG.tuned" ]; then
	: >"$TF_LOG.tuned"
	printf 'Triton autotuning for function scale,\nwith key as (4096,),\nfinished after 1.50s,\n'
	printf 'best config selected: BLOCK: 256, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None;\n'
fi
"$TF_PY" -c 'import os, sys; os.write(int(os.environ["TILEADVISE_RECORD_FD"]), open(sys.argv[1], "rb").read())' "$TF_RECORDS"
echo "check ok"
PY
: >"$tmp/log"
rm -f "$tmp/log.tuned"
TF_PY=$(command -v "$PYTHON3") TF_RECORDS="$tmp/recs.jsonl" ta --profile --gpu h200 --save-records="$tmp/saved3.jsonl" tuned.py
[ "$(cat "$tmp/log")" = "run inject= cache=1
run inject=set cache=1
run inject=set cache=1" ]
result $? "a tuning run that did not end well: the measured run that tuned all the same is made again"
grep -q '"type":"run","mode":"timed".*"dropped":true' "$tmp/saved3.jsonl" &&
	[ "$(grep -c '"type":"run"' "$tmp/saved3.jsonl")" = 2 ] && grep -q '"tuned":false' "$tmp/saved3.jsonl"
result $? "... the stream says the first was dropped, the second tuned nothing"
grep -q "scale: 42 launches" "$tmp/out" &&
	(cd "$tmp/w" && "$TILEADVISE" --profile --gpu h200 --records "$tmp/saved3.jsonl" tuned.py) 2>/dev/null | grep -q "scale: 42 launches"
result $? "... its launches are counted once, live and in a replay of the stream"
