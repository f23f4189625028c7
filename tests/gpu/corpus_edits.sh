#!/bin/sh
# Every mechanical edit on public kernels, verified on the GPU (issue 14).
#
#   tests/gpu/corpus_edits.sh pack [CORPUS]   on the development machine: copy the
#       development corpus (default /work/corpus), trimmed to the Python and small
#       config files the checks need, into .gpucorpus/corpus.tar.gz (git-ignored,
#       never committed; carry it with the build)
#   tests/gpu/corpus_edits.sh OUTDIR [TARBALL] on the GPU machine: unpack the
#       corpus, add the bundled examples, apply every mechanical edit at every
#       site --check offers (one site a copy), then check each edited copy with
#       the project's own tests, the file's own __main__ run, or the examples'
#       differential harness, against the unedited original in the same run.
#
# Needs the tileadvise binary ($TA, default .devbuild/src/tileadvise), pytest
# (carried as .whl/pylib when the machine has none). Knobs: see corpus_edits.py
# (TA_JOBS, TA_SAMPLE, TA_TIMEOUT, TA_DEADLINE, TA_MAX_SITES, TA_PROJECTS).
# Writes OUTDIR/env.txt, plan.txt, results.jsonl, table.md, logs.tar.gz (the
# diff of every applied site, the log of every check that failed).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = pack ]; then
	src=${2:-/work/corpus}
	dst=$ROOT/.gpucorpus
	rm -rf "$dst/tree" && mkdir -p "$dst/tree"
	# unsloth is left out: its package imports need more than the GPU machine has.
	for p in "$src"/*; do
		n=$(basename "$p")
		[ "$n" = unslothai+unsloth ] && continue
		mkdir -p "$dst/tree/$n"
		(cd "$p" && find . -type f \( -name '*.py' -o -name '*.yaml' -o -name '*.yml' -o -name '*.ini' \
			-o -name '*.cfg' -o -name '*.toml' -o -name 'requirements*.txt' -o -name '*.json' \) \
			-size -256k -not -path '*/.git/*' -print0 |
			tar --null -T - -cf -) | tar -C "$dst/tree/$n" -xf -
	done
	tar -C "$dst/tree" -czf "$dst/corpus.tar.gz" . && rm -rf "$dst/tree"
	ls -l "$dst/corpus.tar.gz"
	exit 0
fi
OUTDIR=${1:?usage: corpus_edits.sh OUTDIR [TARBALL] | pack [CORPUS]}
TAR=${2:-$ROOT/.gpucorpus/corpus.tar.gz}
export TA=${TA:-$ROOT/.devbuild/src/tileadvise}
export TILEADVISE_DATADIR="$ROOT/data"
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
W=$(mktemp -d /tmp/ta-corpus.XXXXXX)
C=$W/corpus
mkdir -p "$C/examples"
tar -C "$C" -xzf "$TAR" || exit 1
for f in "$ROOT"/examples/*/*.py; do
	n=$(basename "$f" .py)
	mkdir -p "$C/examples/$n" && cp "$f" "$C/examples/$n/"
done
{
	date -u +%Y-%m-%dT%H:%MZ
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	python3 -c 'import pytest; print("pytest", pytest.__version__)' 2>&1 | tail -1
	PYTHONPATH=$ROOT/.whl/pylib python3 -c 'import pytest; print("carried pytest", pytest.__version__)' 2>&1 | tail -1
	for m in numpy einops transformers tokenizers packaging scipy; do
		python3 -c "import $m; print('$m', getattr($m, '__version__', '?'))" 2>&1 | tail -1
	done
	"$TA" --version | head -1
	# COMMIT: written beside a build carried without its repository.
	echo "tileadvise commit $(cat "$ROOT/COMMIT" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "cores $(nproc)"
} > "$OUTDIR/env.txt" 2>&1
cat "$OUTDIR/env.txt"
# A plan made on the development machine (corpus_edits.py plan, packed as
# .gpucorpus/work.tar.gz) saves the GPU machine's time; else plan here.
if [ -f "$ROOT/.gpucorpus/work.tar.gz" ] && [ -z "${TA_REPLAN:-}" ]; then
	mkdir -p "$W/work" && tar -C "$W/work" -xzf "$ROOT/.gpucorpus/work.tar.gz"
	cp "$W/work/plan.txt" "$OUTDIR/plan.txt" 2>/dev/null
	export TA_CORPUS="$C"
else
	python3 "$ROOT/tests/gpu/corpus_edits.py" plan "$C" "$W/work" > "$OUTDIR/plan.txt" 2>&1
fi
tail -n 20 "$OUTDIR/plan.txt"
python3 "$ROOT/tests/gpu/corpus_edits.py" run "$W/work" "$OUTDIR" > "$OUTDIR/run.txt" 2>&1
cat "$OUTDIR/run.txt"
# Diffs of the sites run, and the logs of every baseline and of every site that did not pass.
python3 - "$W/work" "$OUTDIR" <<'EOF'
import json, os, sys, tarfile
work, out = sys.argv[1:]
R = [json.loads(l) for l in open(os.path.join(out, "results.jsonl"))]
with tarfile.open(os.path.join(out, "logs.tar.gz"), "w:gz") as tf:
    tf.add(os.path.join(work, "plan.json"), "plan.json")
    for n in sorted(os.listdir(os.path.join(work, "sites")) if os.path.isdir(os.path.join(work, "sites")) else [], key=int):
        tf.add(os.path.join(work, "sites", n, "diff"), f"sites/{n}.diff")
    for r in R:
        if r["kind"] == "baseline":
            p = os.path.join(work, "logs", f"base-{r['target']}.log")
        elif r["status"] in ("pass", "fail", "timeout"):
            if r["status"] == "pass":
                continue
            p = os.path.join(work, "logs", f"site-{r['n']}.log")
        else:
            continue
        if os.path.exists(p):
            tf.add(p, "logs/" + os.path.basename(p))
EOF
ls -l "$OUTDIR"
