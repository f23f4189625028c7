#!/bin/sh
# --deep on a real GPU. Usage: tests/gpu/deep.sh OUTDIR [PART...]
# Needs the carried build in $TA_DEVBUILD (default .devbuild): src/tileadvise
# and the injector. For each test kernel: `tileadvise --profile --deep`
# (JSON and the raw records, for tests/recordings/), then Nsight Compute on
# the same script for the same three figures (ncu --clock-control none),
# then the checks: the slow line is the hot one; our DRAM %, SM % and
# achieved occupancy within 5 points of ncu's. Writes OUTDIR/deep.md (the
# table), OUTDIR/*.jsonl, OUTDIR/*.json, OUTDIR/logs/.
set -u
OUTDIR=${1:?usage: deep.sh OUTDIR [PART...]}
shift
# Parts: slowline vector_add matmul kineto (all by default).
PARTS=" ${*:-slowline vector_add matmul kineto} "
want() { case $PARTS in *" $1 "*) return 0 ;; esac; return 1; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
K=$ROOT/tests/gpu/kernels
export TILEADVISE_DATADIR=$ROOT/data TILEADVISE_LIBDIR=$B/src/profile/inject/.libs
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/ta-deep-triton-cache
TA=$B/src/tileadvise
mkdir -p "$OUTDIR/logs"
L=$OUTDIR/logs

NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{
	date -u +%Y-%m-%dT%H:%MZ
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	echo "ncu: ${NCU:-none}"
} > "$L/env.txt" 2>&1
cat "$L/env.txt"

deep() {  # deep NAME SCRIPT ARGS...: tileadvise --profile --deep, JSON and records
	name=$1 script=$2
	shift 2
	# A bare run first fills Triton's cache, so that the timed run and the two
	# extra runs of --deep all find the kernels compiled: their wall times
	# then compare the profiling alone. Then a plain --profile, timed, as the
	# reference for what --deep costs in all.
	timeout 200 python3 "$K/$script" "$@" > "$L/warm-$name.out" 2>&1
	t0=$(date +%s.%N)
	timeout 200 "$TA" --profile --timeout 150 "$K/$script" -- python3 "$K/$script" "$@" \
		> "$L/plain-$name.out" 2>&1
	t1=$(date +%s.%N)
	TILEADVISE_SOL_LIST=$L/metrics-$name.txt timeout 200 "$TA" --profile --deep --format json \
		--timeout 150 --save-records "$OUTDIR/deep-$name.jsonl" "$K/$script" \
		-- python3 "$K/$script" "$@" > "$OUTDIR/deep-$name.json" 2> "$L/deep-$name.err"
	rc=$?
	t2=$(date +%s.%N)
	echo "$t0 $t1 $t2" | awk '{printf "plain %.2f s, deep %.2f s, deep / plain %.2f\n", $2-$1, $3-$2, ($3-$2)/($2-$1)}' \
		> "$OUTDIR/wall-$name.txt"
	echo "deep $name rc=$rc $(cat "$OUTDIR/wall-$name.txt") $(head -c 600 "$L/deep-$name.err" | tr '\n' ' ')"
	# the compiled kernel's line table, to read the attribution against
	find "${TRITON_CACHE_DIR:-$HOME/.triton/cache}" -name '*.cubin' -newer "$L/env.txt" \
		-exec sh -c 'nvdisasm --print-line-info "$1" > "$2/$(basename "$1").sass" 2>&1' _ {} "$L" \;
}

ncu_run() {  # ncu_run NAME KERNEL SKIP SCRIPT ARGS...
	name=$1 kern=$2 skip=$3 script=$4
	shift 4
	[ -n "$NCU" ] || return 0
	timeout 150 "$NCU" --clock-control none --csv --page raw -k "regex:^$kern" \
		--launch-skip "$skip" --launch-count 3 \
		--metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
		python3 "$K/$script" "$@" > "$L/ncu-$name.csv" 2> "$L/ncu-$name.err"
	echo "ncu $name rc=$? $(grep -c "$kern" "$L/ncu-$name.csv") rows"
}

if want slowline; then
	deep slowline slowline.py
	ncu_run slowline slow_line_kernel 1 slowline.py
fi
if want vector_add; then
	deep vector_add vector_add.py
	ncu_run vector_add add_kernel 1 vector_add.py
fi
if want matmul; then
	deep matmul matmul.py 8192 300
	ncu_run matmul matmul_kernel 250 matmul.py 8192 300
fi

# Another CUPTI client in the same process (torch.profiler): the script
# must still pass; what we could not collect must be said. The timed run's
# launch callback takes CUPTI's one subscriber too (adaptive tracing, the
# time per call): "traceplain" runs it with TILEADVISE_TRACE=plain, which
# leaves the subscriber to the program.
want kineto && for mode in plain traceplain deep; do
	flag=; [ "$mode" = deep ] && flag=--deep
	tm=${TILEADVISE_TRACE:-adaptive}; [ "$mode" = traceplain ] && tm=plain
	TILEADVISE_TRACE=$tm timeout 120 "$TA" --profile $flag --timeout 100 \
		--save-records "$OUTDIR/kineto-$mode.jsonl" \
		"$K/with_profiler.py" > "$L/kineto-$mode.out" 2> "$L/kineto-$mode.err"
	echo "kineto $mode rc=$? $(grep -h KINETO "$OUTDIR/kineto-$mode.jsonl" | head -c 200)"
	head -c 800 "$L/kineto-$mode.err"
done

python3 - "$OUTDIR" "$L" "$K/slowline.py" <<'PY' | tee "$OUTDIR/deep.md"
import csv, json, os, re, statistics, sys
out, logs, slow_src = sys.argv[1:4]
slow_line = next(i for i, l in enumerate(open(slow_src), 1) if "# SLOW" in l)

def load(name):
    try:
        return json.load(open(os.path.join(out, f"deep-{name}.json")))
    except Exception as e:
        print(f"- {name}: no JSON ({e})")
        return None

METRICS = ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__warps_active.avg.pct_of_peak_sustained_active")

def grid_key(g):
    return "(" + ", ".join(str(int(x)) for x in g) + ")"

def ncu(name):
    """ncu's medians per grid: an autotuned kernel can settle on another
    configuration in ncu's run than in ours, so only equal grids compare."""
    path = os.path.join(logs, f"ncu-{name}.csv")
    if not os.path.exists(path):
        return {}
    # the script's own output lines are interleaved: keep the CSV rows
    rows = [r for r in csv.reader(open(path)) if len(r) > 20]
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        return {}
    cols = rows[head]
    per_grid = {}
    for r in rows[head + 2:]:
        grid = (grid_key(re.findall(r"\d+", r[cols.index("Grid Size")]))
                if "Grid Size" in cols else "?")
        vals = per_grid.setdefault(grid, {})
        for m in METRICS:
            if m in cols:
                try:
                    vals.setdefault(m, []).append(float(r[cols.index(m)].replace(",", "")))
                except ValueError:
                    pass
    return {g: {m: statistics.median(v) for m, v in vals.items() if v} for g, vals in per_grid.items()}

def ours_per_grid(name, kern):
    """Our counter records of one kernel, medians per grid (the raw stream)."""
    per_grid = {}
    try:
        for line in open(os.path.join(out, f"deep-{name}.jsonl")):
            r = json.loads(line)
            if r.get("type") == "sol" and r.get("kernel", "").startswith(kern) and "grid" in r:
                vals = per_grid.setdefault(grid_key(r["grid"]), {})
                for m in METRICS:
                    if m in r.get("metrics", {}):
                        vals.setdefault(m, []).append(r["metrics"][m])
    except OSError:
        pass
    return {g: {m: statistics.median(v) for m, v in vals.items()} for g, vals in per_grid.items()}

print("## PC sampling: the deliberately slow line\n")
d = load("slowline")
if d and d.get("deep"):
    for k in d["deep"]["kernels"]:
        lines = sorted(k["lines"], key=lambda l: -l["samples"])
        top = lines[0] if lines else None
        share = top["samples"] / k["samples"] if top and k["samples"] else 0
        ok = top is not None and top["line"] == slow_line
        print(f"- {k['name']}: {k['samples']} samples, {k['on_lines']} on kernel lines; hottest line "
              f"{top['line'] if top else '-'} ({100*share:.1f}% of samples, stalls {top['stalls'] if top else '-'}); "
              f"slow line is {slow_line}: {'PASS' if ok else 'FAIL'}")
    print(f"- overhead: PC sampling run {d['deep']['pc_overhead']}x, counters run {d['deep']['sol_overhead']}x the timed run")

print("\n## Speed of light: tileadvise vs ncu --clock-control none (target: within 5 points)\n")
print("| kernel | figure | tileadvise | ncu | diff (points) | verdict |")
print("|---|---|---|---|---|---|")
pairs = [("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
         ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
         ("occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active")]
for name, kern in (("vector_add", "add_kernel"), ("slowline", "slow_line_kernel"),
                   ("matmul", "matmul_kernel")):
    d = load(name)
    ours = None
    if d and d.get("deep"):
        ours = next((k["sol"] for k in d["deep"]["kernels"] if k["name"] == kern), None)
    theirs = ncu(name)
    raw = ours_per_grid(name, kern)
    steady = None
    if d:
        km = next((k for k in d.get("kernels", []) if k.get("name") == kern), None)
        main = next((g for g in (km or {}).get("groups", []) if g.get("main")), None)
        steady = grid_key(main["grid"]) if main else None
    # The tool's own figures when ncu measured the steady grid; otherwise our
    # records of the grid ncu measured (the same configuration either way).
    for grid, nv in sorted(theirs.items()):
        if grid == steady and ours:
            mine, src = {m: ours.get(k) for k, m in pairs}, "tool's figures, steady grid"
        elif grid in raw:
            mine, src = raw[grid], "our records of this grid"
        else:
            print(f"| {kern} | grid {grid} | - | measured | - | no record of ours with this grid |")
            continue
        for key, metric in pairs:
            a, b = mine.get(metric), nv.get(metric)
            if a is None or b is None:
                print(f"| {kern} | {key}, grid {grid} | {a} | {b} | - | missing |")
                continue
            diff = a - b
            print(f"| {kern} | {key}, grid {grid} ({src}) | {a:.1f} | {b:.1f} | {diff:+.1f} | "
                  f"{'PASS' if abs(diff) <= 5 else 'FAIL'} |")
    if not theirs:
        print(f"| {kern} | - | {ours} | no ncu rows | - | missing |")
    if ours:
        print(f"| {kern} | bound, launches, passes (steady grid {steady}) | {ours.get('bound')} | "
              f"{ours.get('launches')} launches, {ours.get('passes')} passes | | |")

print("\n## Overhead of --deep (wall time of each extra run / the timed run)\n")
for name in ("slowline", "vector_add", "matmul"):
    d = load(name)
    if d and d.get("deep"):
        print(f"- {name}: PC sampling {d['deep']['pc_overhead']}, counters {d['deep']['sol_overhead']}")
    wall = os.path.join(out, f"wall-{name}.txt")
    if os.path.exists(wall):
        print(f"  - whole command, warm cache: {open(wall).read().strip()}")
PY
tar czf "$OUTDIR/logs.tar.gz" -C "$OUTDIR" logs && rm -rf "$L"
