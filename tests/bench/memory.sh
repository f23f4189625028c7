#!/bin/sh
# Memory of `--check` per byte of the file (issue 18, item 7): for the
# largest kernel files of a corpus (those holding `triton.jit`), the peak
# resident memory of one `--check` (getrusage, a child per run), less that
# of a run on an empty .py file (the program, its libraries and the
# catalog), over the file's size; and, when valgrind is installed, the
# heap's peak (massif: useful bytes and malloc's own overhead) over the
# size. Target: 10 times the file.
# Usage: tests/bench/memory.sh [BUILDDIR] [N]   (TA_CORPUS: the corpus,
#        /work/corpus by default; N largest files, 8 by default)
set -eu
build=${1:-_build}
n=${2:-8}
corpus=${TA_CORPUS:-/work/corpus}
ta="$build/src/tileadvise"
[ -x "$ta" ] || { echo "memory.sh: no $ta: build first" >&2; exit 2; }
[ -d "$corpus" ] || { echo "memory.sh: no corpus at $corpus (set TA_CORPUS)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -rl --include='*.py' 'triton.jit' "$corpus" | while IFS= read -r f; do
	printf '%s\t%s\n' "$(wc -c <"$f")" "$f"
done | sort -rn | head -"$n" | cut -f2 >"$tmp/files"
: >"$tmp/empty.py"
${PYTHON3:-python3} - "$ta" "$tmp" <<'PY'
import os, re, shutil, subprocess, sys
ta, tmp = sys.argv[1], sys.argv[2]
files = open(os.path.join(tmp, "files")).read().split("\n")[:-1]

def rss(path):
    code = ("import resource,subprocess,sys\n"
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", code, ta, "--check", path],
                         stdout=subprocess.PIPE, check=True).stdout
    return int(out) * 1024

def heap(path):
    out = os.path.join(tmp, "massif.out")
    subprocess.run(["valgrind", "--tool=massif", "--massif-out-file=" + out, ta, "--check", path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = 0
    for snap in open(out).read().split("snapshot=")[1:]:
        h = int(re.search(r"mem_heap_B=(\d+)", snap).group(1))
        x = int(re.search(r"mem_heap_extra_B=(\d+)", snap).group(1))
        best = max(best, h + x)
    return best

base = min(rss(os.path.join(tmp, "empty.py")) for _ in range(3))
grind = shutil.which("valgrind") is not None
print("resident memory of --check on an empty file: %.1f MB" % (base / 2**20))
print("%9s %12s %12s %9s %12s %9s  %s" % ("bytes", "max RSS MB", "over empty", "per byte",
                                        "heap peak MB" if grind else "", "per byte" if grind else "", "file"))
for f in files:
    size = os.path.getsize(f)
    r = min(rss(f) for _ in range(3))
    row = "%9d %12.1f %12.1f %9.1f" % (size, r / 2**20, (r - base) / 2**20, (r - base) / size)
    if grind:
        h = heap(f)
        row += " %12.2f %9.1f" % (h / 2**20, h / size)
    print(row + "  " + os.path.relpath(f, os.environ.get("TA_CORPUS", "/work/corpus")))
PY
