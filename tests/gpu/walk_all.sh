#!/bin/sh
# `tileadvise --walk` on the GPU over every bundled example (examples/*/)
# and every naive kernel of tests/gpu/kernels/naive_*.py: each walked with
# --unsafe-fixes and --format=jsonl on a copy, the example's own check
# (its exit status) as the correctness test, each step kept only when
# measured faster. Its sessions are what examples/NAME/session-walk.h200.json
# is re-recorded from (each names examples/NAME/NAME.py, as the bundled
# ones do).
#
# Usage: tests/gpu/walk_all.sh OUTDIR [TARGET...]
#   TARGET: an example's name (softmax, layernorm, matmul, attention, cat)
#   or a naive kernel's (naive_matmul, naive_bmm, naive_fmha); default all.
# Env: TA_DEVBUILD (the carried build, default .devbuild), TA_WALK_BUDGET
#   (seconds per target, default 170: three targets fit one 10-minute call),
#   TA_WALK_TIMEOUT (seconds per run, default 150), TA_WALK_EXTRA (more
#   options for each walk; a dry run without a GPU:
#   TA_WALK_EXTRA="--gpu h200 --records tests/recordings/FILE.jsonl").
#
# Writes at most five files into OUTDIR (the device brings back 8 files, two
# folders down): walks.md (a row per target: steps tried, kept, reverted,
# without an edit, the whole walk's change), walks.tar.gz (per target
# TARGET.jsonl, TARGET.table.txt, TARGET.stderr, TARGET.session.json and
# the walked file TARGET.py), env.txt (GPU, driver, torch, Triton) and
# walk_all.log. Exit 0 when every walk ran to its summary (kept steps or
# not), 1 otherwise.
#
# How the lead runs it (the device copies /work/main's tree and the
# git-ignored paths named in carry; see /work/.library/device/README.md):
#   on the development machine, in /work/main:
#     mkdir -p .devbuild && cd .devbuild && ../configure --enable-static-deps &&
#       make -j2 src/tileadvise src/profile/inject/libtileadvise-cupti.la && cd ..
#   (tree-sitter and jansson linked in, so that the binary runs on the GPU
#   machine as it is; .devbuild is in .gitignore), then on the H200:
#     run(command="sh tests/gpu/walk_all.sh $OUT softmax layernorm matmul",
#         carry=[".devbuild"], timeout_s=600)
#   and again with "attention cat", and with "naive_matmul naive_bmm
#   naive_fmha" (each call under 10 minutes). Back here, for each example:
#     tar -xzf walks.tar.gz NAME.session.json &&
#       cp NAME.session.json examples/NAME/session-walk.h200.json
#   and tests/gpu/results/ keeps walks.md and the JSON lines.
set -u
OUTDIR=${1:?usage: walk_all.sh OUTDIR [TARGET...]}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
TA="$B/src/tileadvise"
BUDGET=${TA_WALK_BUDGET:-170}
TIMEOUT=${TA_WALK_TIMEOUT:-150}
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
{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
	date -u +%Y-%m-%dT%H:%M:%SZ
} >"$OUTDIR/env.txt"
targets=${*:-$(cd "$ROOT/examples" && ls -d */ | tr -d /) $(cd "$ROOT/tests/gpu/kernels" && ls naive_*.py | sed 's/\.py$//')}
W=$(mktemp -d "${TMPDIR:-/tmp}/ta-walk-all.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/out"
failed=0
for t in $targets; do
	# The copy lives where the session should say it does: examples/NAME/NAME.py
	# from the top of a tree (the naive kernels beside their common code).
	if [ -f "$ROOT/examples/$t/$t.py" ]; then
		rel="examples/$t/$t.py"
		mkdir -p "$W/tree/examples/$t"
		cp "$ROOT/examples/$t/$t.py" "$W/tree/$rel"
	elif [ -f "$ROOT/tests/gpu/kernels/$t.py" ]; then
		rel="tests/gpu/kernels/$t.py"
		mkdir -p "$W/tree/tests/gpu/kernels"
		cp "$ROOT"/tests/gpu/kernels/*.py "$W/tree/tests/gpu/kernels/"
	else
		echo "walk_all: $t: no such example or naive kernel" | tee -a "$log"
		failed=1
		continue
	fi
	echo "=== $t $(date -u +%H:%M:%S)" >>"$log"
	start=$(date +%s)
	# shellcheck disable=SC2086
	(cd "$W/tree" && "$TA" --walk --unsafe-fixes --format=jsonl --budget="$BUDGET" --timeout="$TIMEOUT" \
		${TA_WALK_EXTRA:-} "$rel") \
		>"$W/out/$t.jsonl" 2>"$W/out/$t.stderr"
	rc=$?
	echo "=== $t: exit $rc after $(( $(date +%s) - start )) s" >>"$log"
	tail -n 3 "$W/out/$t.stderr" >>"$log"
	# The table as a person reads it, from the same walk's session.
	session="$W/tree/$(dirname "$rel")/.tileadvise/session-$(basename "$rel").json"
	[ -f "$session" ] && cp "$session" "$W/out/$t.session.json"
	cp "$W/tree/$rel" "$W/out/$t.py"
	[ -f "$session" ] && "$TA" --report --replay "$session" >"$W/out/$t.table.txt" 2>&1
	grep -q '"event":"summary"' "$W/out/$t.jsonl" || failed=1
	[ $rc -le 1 ] || failed=1
done
# One row per target, from its JSON lines.
python3 - "$W/out" $targets >"$OUTDIR/walks.md" <<'PY'
import json, os, sys
out, targets = sys.argv[1], sys.argv[2:]
print("| target | tried | kept | reverted | no edit | kept steps | whole walk (GPU time per call) |")
print("|---|---|---|---|---|---|---|")
for t in targets:
    path = os.path.join(out, t + ".jsonl")
    if not os.path.exists(path):
        print("| %s | - | - | - | - | not walked | - |" % t)
        continue
    ev = [json.loads(l) for l in open(path) if l.startswith("{")]
    summ = [e for e in ev if e["event"] == "summary"]
    kept = [e["id"] for e in ev if e["event"] == "kept"]
    whole = ["%s %.1f -> %.1f us, %.3f [%.3f, %.3f] %s" % (e["kernel"], e["before_ns"] / 1e3, e["after_ns"] / 1e3,
                                                      e["ratio"], e["ci95"][0], e["ci95"][1], e["verdict"])
             for e in ev if e["event"] == "measured" and e.get("scope") == "walk"]
    if not summ:
        print("| %s | - | - | - | - | no summary (see walk_all.log) | - |" % t)
        continue
    s = summ[0]
    stop = "; stopped: " + s["stopped"] if s.get("stopped") else ""
    print("| %s | %d | %d | %d | %d | %s | %s |" % (t, s["tried"], s["kept"], s["reverted"], s["not_made"],
                                                   ", ".join(kept) or "none", ("; ".join(whole) or "-") + stop))
PY
tar -C "$W/out" -czf "$OUTDIR/walks.tar.gz" .
cat "$OUTDIR/walks.md"
echo "walk_all: $([ $failed -eq 0 ] && echo "every walk ran" || echo "a walk failed: see walk_all.log")"
exit $failed
