#!/bin/sh
# Make the bundle a GPU machine call carries for tests/gpu/corpus_edits.sh
# (issue 14), on the development machine; the GPU machine then only runs it.
#
#   tests/gpu/corpus_bundle.sh DEST TA TARGETS [CORPUS]
#
# DEST     a git-ignored folder of the checkout the device call copies (the
#          device copies /work/main, so e.g. /work/main/.gpucorpus); replaced
# TA       a tileadvise binary the GPU machine can run (configure
#          --enable-static-deps), built from this checkout's HEAD
# TARGETS  project/file lines: the kernel files to plan and check
# CORPUS   the development corpus (default /work/corpus); packed trimmed,
#          never committed
#
# DEST gets this checkout's tests/gpu (its results left out), examples and
# data, the binary as .devbuild/src/tileadvise, .gpucorpus/corpus.tar.gz,
# .gpucorpus/work.tar.gz (the plan: every mechanical site of the targets
# applied, one edited copy a site, made here so the device call only checks),
# targets.txt, COMMIT and plan.txt. Then, on the GPU machine, from DEST:
#   sh tests/gpu/corpus_edits.sh OUTDIR      (knobs: see corpus_edits.py)
set -eu
DEST=${1:?usage: corpus_bundle.sh DEST TA TARGETS [CORPUS]}
TA=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
TARGETS=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
CORPUS=${4:-/work/corpus}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$DEST"
mkdir -p "$DEST/.devbuild/src" "$DEST/.gpucorpus"
git -C "$ROOT" archive HEAD tests/gpu examples data | tar -C "$DEST" -xf -
rm -rf "$DEST/results/gpu"
cp "$TA" "$DEST/.devbuild/src/tileadvise"
git -C "$ROOT" rev-parse --short HEAD > "$DEST/COMMIT"
cp "$TARGETS" "$DEST/targets.txt"
sh "$DEST/tests/gpu/corpus_edits.sh" pack "$CORPUS" >/dev/null
# Plan over the packed corpus and the examples, laid out as corpus_edits.sh
# lays them out on the GPU machine (which points the plan at its own copy).
W=$(mktemp -d "${TMPDIR:-/tmp}/ta-bundle.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
mkdir -p "$W/corpus/examples"
tar -C "$W/corpus" -xzf "$DEST/.gpucorpus/corpus.tar.gz"
for f in "$ROOT"/examples/*/*.py; do
	n=$(basename "$f" .py)
	mkdir -p "$W/corpus/examples/$n" && cp "$f" "$W/corpus/examples/$n/"
done
TA="$DEST/.devbuild/src/tileadvise" TILEADVISE_DATADIR="$DEST/data" TA_ONLY_TARGETS="$TARGETS" \
	TA_JOBS=${TA_JOBS:-2} python3 "$DEST/tests/gpu/corpus_edits.py" plan "$W/corpus" "$W/work" > "$W/work.txt" 2>&1 ||
	{ cat "$W/work.txt"; exit 1; }
{ "$TA" --version | head -1; echo "commit $(cat "$DEST/COMMIT")"; cat "$W/work.txt"; } > "$DEST/plan.txt"
cp "$DEST/plan.txt" "$W/work/plan.txt"
tar -C "$W/work" -czf "$DEST/.gpucorpus/work.tar.gz" .
cat "$DEST/plan.txt"
du -sh "$DEST"
