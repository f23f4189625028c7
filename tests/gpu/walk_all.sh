#!/bin/sh
# `tileadvise --walk` on the GPU over every bundled example (examples/*/)
# and every naive kernel of tests/gpu/kernels/naive_*.py: each walked with
# --preview (P1, the naive kernels' first lever, is in preview), --unsafe-fixes
# and --format=jsonl on a copy, the file's own run as its
# test (a re-run that fails or whose check lines differ is broken), each
# step kept only when measured faster. Its sessions are what
# examples/NAME/session-walk.h200.json is re-recorded from (each names
# examples/NAME/NAME.py, as the bundled ones do): tests/gpu/walk_import.sh.
#
# Usage: tests/gpu/walk_all.sh OUTDIR [TARGET...]
#   TARGET: an example's name (softmax, layernorm, matmul, attention, cat)
#   or a naive kernel's (naive_matmul, naive_bmm, naive_fmha); default all,
#   in that order. Any other kernel of tests/gpu/kernels walks by its name
#   too (the pop_* population of issue 27: pop_softmax, pop_bmm, ...).
# Env: TA_DEVBUILD (the carried build, default .devbuild);
#   TA_WALK_TOTAL (seconds the whole script may take, default 540: one
#   10-minute call with room for the start and the transfers);
#   TA_WALK_GPUS (walks at a time, one GPU each through CUDA_VISIBLE_DEVICES;
#   default: every GPU nvidia-smi lists);
#   TA_WALK_BUDGET (at most this many seconds per target, default 600);
#   TA_WALK_TIMEOUT (seconds per run, default 150);
#   TA_WALK_BARE (1, the default: run the file bare before and after its
#   walk, so that the example's own timings stand beside the walk's; 0: not);
#   TA_WALK_EXTRA (more options for each walk; a dry run without a GPU:
#   TA_WALK_EXTRA="--gpu h200 --records tests/recordings/FILE.jsonl").
#
# Time: the targets wait in one queue; each GPU takes the next when free
# and gives it an even share of the time left (TA_WALK_TOTAL over the
# targets still queued per GPU, at most TA_WALK_BUDGET). A walk stops
# trying steps a minute before its share ends (--budget) and is
# interrupted at the end of it (SIGINT: the run in flight is cancelled, its
# step reverted, the summary and the session written), so that the script
# ends within TA_WALK_TOTAL and what it brings back is whole; a target
# whose share would be under 90 s is left for another call (its row says
# so).
#
# Writes five files into OUTDIR (the device brings back 8 files, two folders
# down), all of them again after each target: walks.md (a row per target:
# steps tried, kept, reverted, without an edit, the kept steps, the whole
# walk's change), walks.tar.gz (per target TARGET.jsonl, TARGET.stderr,
# TARGET.table.txt (the session's --report --replay), TARGET.session.json,
# TARGET.py (the walked file) and TARGET.bare.txt (the bare runs' output)),
# env.txt (GPU, driver, torch, Triton), walk_all.log. Exit 0 when every
# target was walked to its summary (kept steps or not), 1 otherwise.
#
# How the lead runs it (the device copies /work/main's tree and the
# git-ignored paths named in carry; see /work/.library/device/README.md):
#   on the development machine, in /work/main:
#     mkdir -p .devbuild && cd .devbuild && ../configure --enable-static-deps &&
#       make -j2 src/tileadvise src/profile/inject/libtileadvise-cupti.la && cd ..
#   (tree-sitter and jansson linked in, so that the binary runs on the GPU
#   machine as it is; .devbuild is in .gitignore), then on one H200, three
#   calls (each under 10 minutes):
#     run(command="sh tests/gpu/walk_all.sh $OUT softmax layernorm matmul",
#         carry=[".devbuild"], timeout_s=600)
#   then "attention cat", then "naive_matmul naive_bmm naive_fmha"; or, on
#   kind nvidia-h200-x4 or -x8 when status lends it, one call with no
#   TARGET (every target, one GPU each). Back here, in /work/main:
#     sh tests/gpu/walk_import.sh DIR...   (the folders files_at names)
set -u
OUTDIR=${1:?usage: walk_all.sh OUTDIR [TARGET...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
TA="$B/src/tileadvise"
TOTAL=${TA_WALK_TOTAL:-540}
CAP=${TA_WALK_BUDGET:-600}
TIMEOUT=${TA_WALK_TIMEOUT:-150}
BARE=${TA_WALK_BARE:-1}
T0=$(date +%s)
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
log="$OUTDIR/walk_all.log"
: >"$log"
if ! "$TA" --version >>"$log" 2>&1; then
	echo "walk_all: no tileadvise at $TA (build and carry .devbuild, see the header)" | tee -a "$log"
	exit 1
fi
gpus=${TA_WALK_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
{
	nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
	echo "walks at a time: $gpus; total $TOTAL s; per run $TIMEOUT s"
	date -u +%Y-%m-%dT%H:%M:%SZ
} >"$OUTDIR/env.txt"
# The sessions name the software, as the recorded walks did.
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
sw=$(python3 -c 'import torch, triton; print("torch %s, Triton %s" % (torch.__version__, triton.__version__))' 2>/dev/null)
[ -n "$sw" ] && export TILEADVISE_SOFTWARE="${driver:+driver $driver, }$sw"
targets=${*:-$(cd "$ROOT/examples" && ls -d */ | tr -d /) $(cd "$ROOT/tests/gpu/kernels" && ls naive_*.py | sed 's/\.py$//')}
W=$(mktemp -d "${TMPDIR:-/tmp}/ta-walk-all.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/out" "$W/claim" "$W/done"

# One row per target, from its JSON lines; the archive of what came back.
summarize() {
	python3 - "$W/out" $targets >"$W/walks.md" <<'PY'
import json, os, sys
out, targets = sys.argv[1], sys.argv[2:]
print("| target | tried | kept | reverted | no edit | kept steps | whole walk (GPU time per call) |")
print("|---|---|---|---|---|---|---|")
for t in targets:
    path = os.path.join(out, t + ".jsonl")
    skipped = os.path.join(out, t + ".skipped")
    if os.path.exists(skipped):
        print("| %s | - | - | - | - | not walked: %s | - |" % (t, open(skipped).read().strip()))
        continue
    if not os.path.exists(path):
        print("| %s | - | - | - | - | not walked yet | - |" % t)
        continue
    ev = []
    for l in open(path):
        try:
            ev.append(json.loads(l))
        except ValueError:
            pass
    summ = [e for e in ev if e.get("event") == "summary"]
    kept = [e["id"] for e in ev if e.get("event") == "kept"]
    whole = ["%s %.1f -> %.1f us, %.3f [%.3f, %.3f] %s" % (e["kernel"], e["before_ns"] / 1e3, e["after_ns"] / 1e3,
                                                      e["ratio"], e["ci95"][0], e["ci95"][1], e["verdict"])
             for e in ev if e.get("event") == "measured" and e.get("scope") == "walk" and e.get("ci95")]
    if not summ:
        print("| %s | - | - | - | - | no summary (see walk_all.log) | - |" % t)
        continue
    s = summ[0]
    stop = "; stopped: " + s["stopped"] if s.get("stopped") else ""
    print("| %s | %d | %d | %d | %d | %s | %s |" % (t, s["tried"], s["kept"], s["reverted"], s["not_made"],
                                                   ", ".join(kept) or "none", ("; ".join(whole) or "-") + stop))
PY
	cp "$W/walks.md" "$OUTDIR/walks.md.tmp" && mv "$OUTDIR/walks.md.tmp" "$OUTDIR/walks.md"
	tar -C "$W/out" -czf "$OUTDIR/walks.tar.gz.tmp" . && mv "$OUTDIR/walks.tar.gz.tmp" "$OUTDIR/walks.tar.gz"
}

# bare LABEL FILE: the file run as it is, its output kept beside the walk's.
bare() {
	(cd "$(dirname "$2")" && timeout 120 python3 "$(basename "$2")") >"$W/bare-$t.txt" 2>&1
	brc=$?
	{
		echo "=== $1: python3 $(basename "$2")"
		tail -n 20 "$W/bare-$t.txt"
		echo "=== exit $brc"
	} >>"$W/out/$t.bare.txt"
}

# walk_one GPU TARGET SHARE
walk_one() {
	g=$1 t=$2 share=$3
	# The copy lives where the session should say it does: examples/NAME/NAME.py
	# from the top of a tree (the naive kernels beside their common code).
	tree="$W/tree-$t"
	if [ -f "$ROOT/examples/$t/$t.py" ]; then
		rel="examples/$t/$t.py"
		mkdir -p "$tree/examples/$t"
		cp "$ROOT/examples/$t/$t.py" "$tree/$rel"
	else
		rel="tests/gpu/kernels/$t.py"
		mkdir -p "$tree/tests/gpu/kernels"
		cp "$ROOT"/tests/gpu/kernels/*.py "$tree/tests/gpu/kernels/"
	fi
	export CUDA_VISIBLE_DEVICES="$g"
	start=$(date +%s)
	echo "=== $t on GPU $g, $share s, $(date -u +%H:%M:%S)" >>"$log"
	# The bare runs when the share leaves room for them (a minute each at most).
	do_bare=0
	[ "$BARE" = 1 ] && [ "$share" -gt 240 ] && do_bare=1
	[ $do_bare = 1 ] && bare "before the walk" "$tree/$rel"
	left=$((share - ($(date +%s) - start)))
	[ $do_bare = 1 ] && left=$((left - 60))
	budget=$((left - 60))
	[ $budget -ge 30 ] || budget=30
	# shellcheck disable=SC2086
	(cd "$tree" && exec timeout -s INT -k 30 "$left" "$TA" --walk --preview --unsafe-fixes --format=jsonl \
		--budget="$budget" --timeout="$TIMEOUT" ${TA_WALK_EXTRA:-} "$rel") \
		>"$W/out/$t.jsonl" 2>"$W/out/$t.stderr"
	rc=$?
	echo "=== $t: exit $rc after $(( $(date +%s) - start )) s (--budget=$budget, stopped at $left s)" >>"$log"
	tail -n 3 "$W/out/$t.stderr" >>"$log"
	session="$tree/$(dirname "$rel")/.tileadvise/session-$(basename "$rel").json"
	if [ -f "$session" ]; then
		cp "$session" "$W/out/$t.session.json"
		"$TA" --report --replay "$session" >"$W/out/$t.table.txt" 2>&1
	fi
	cp "$tree/$rel" "$W/out/$t.py"
	if [ $do_bare = 1 ]; then
		if cmp -s "$tree/$rel" "$ROOT/$rel"; then
			echo "=== after the walk: the file is as it was" >>"$W/out/$t.bare.txt"
		else
			bare "after the walk" "$tree/$rel"
		fi
	fi
	# Walked to its summary: exit 0 or 1, or 130 when the share ran out.
	if ! grep -q '"event":"summary"' "$W/out/$t.jsonl"; then
		echo "$t" >>"$W/failed"
	elif [ $rc -gt 1 ] && [ $rc -ne 130 ]; then
		echo "$t" >>"$W/failed"
	fi
	touch "$W/done/$t"
}

# lane GPU: takes the next unclaimed target until none is left or the time
# is spent.
lane() {
	g=$1
	for t in $targets; do
		mkdir "$W/claim/$t" 2>/dev/null || continue
		if [ ! -f "$ROOT/examples/$t/$t.py" ] && [ ! -f "$ROOT/tests/gpu/kernels/$t.py" ]; then
			echo "walk_all: $t: no such example or naive kernel" | tee -a "$log"
			echo "no such example or naive kernel" >"$W/out/$t.skipped"
			echo "$t" >>"$W/failed"
			continue
		fi
		unclaimed=1
		for u in $targets; do [ -d "$W/claim/$u" ] || unclaimed=$((unclaimed + 1)); done
		per=$(( (unclaimed + gpus - 1) / gpus ))
		left=$((T0 + TOTAL - $(date +%s) - 20))
		share=$((left / per))
		[ $share -le "$CAP" ] || share=$CAP
		if [ "$share" -lt 90 ]; then
			echo "=== $t: not walked, $share s would be left for it" >>"$log"
			echo "out of time in this call (walk it in another)" >"$W/out/$t.skipped"
			echo "$t" >>"$W/failed"
			continue
		fi
		walk_one "$g" "$t" "$share"
		(flock 9 && summarize) 9>"$W/lock"
	done
}

i=0
while [ $i -lt "$gpus" ]; do
	lane "$i" &
	i=$((i + 1))
done
wait
summarize
cat "$OUTDIR/walks.md"
if [ -s "$W/failed" ]; then
	echo "walk_all: not every target was walked to its summary: $(tr '\n' ' ' <"$W/failed")(see walk_all.log)"
	exit 1
fi
echo "walk_all: every walk ran"
exit 0
