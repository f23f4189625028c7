#!/bin/sh
# `--check` with every default rule against ast-grep 0.51.1 running four
# rules of comparable patterns (a tl.load without mask, a hand-written
# ceiling division, tl.dot inside a loop, a .contiguous() copy), both
# single-threaded on the same 64 real kernel files, interleaved in one run
# (the order swapped every round). Prints the medians of wall and CPU time
# (user+sys, from getrusage) and their ratio; target: ratio <= 1.0.
# ast-grep is installed from npm (@ast-grep/cli) into a temporary folder.
# Usage: tests/bench/astgrep.sh [BUILDDIR] [ROUNDS]   (TA_CORPUS: the corpus,
#        /work/corpus by default; the files are every 15th of its *.py files
#        that contain `triton.jit`, sorted by path)
set -eu
build=${1:-_build}
rounds=${2:-21}
corpus=${TA_CORPUS:-/work/corpus}
ta="$build/src/tileadvise"
[ -x "$ta" ] || { echo "astgrep.sh: no $ta: build first" >&2; exit 2; }
[ -d "$corpus" ] || { echo "astgrep.sh: no corpus at $corpus (set TA_CORPUS)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --silent --no-audit --no-fund --prefix "$tmp" @ast-grep/cli@0.51.1 >/dev/null 2>&1 ||
	{ echo "astgrep.sh: npm could not install @ast-grep/cli@0.51.1" >&2; exit 2; }
# The native binary itself, not a node wrapper (npm may skip the postinstall).
sg=$(ls "$tmp"/node_modules/@ast-grep/cli-linux-*/ast-grep 2>/dev/null | head -1)
[ -n "$sg" ] || sg="$tmp/node_modules/.bin/ast-grep"
grep -rl --include='*.py' 'triton.jit' "$corpus" | LC_ALL=C sort | awk 'NR % 15 == 1' | head -64 >"$tmp/files"
cat >"$tmp/rules.yml" <<'RULES'
id: load-without-mask
language: python
severity: warning
message: tl.load without a mask
rule:
  pattern: tl.load($PTR)
---
id: hand-cdiv
language: python
severity: warning
message: ceiling division written by hand
rule:
  pattern: ($A + $B - 1) // $B
---
id: dot-in-loop
language: python
severity: warning
message: tl.dot in a loop
rule:
  pattern: tl.dot($$$ARGS)
  inside:
    kind: for_statement
    stopBy: end
---
id: contiguous-copy
language: python
severity: warning
message: .contiguous() copy on the host
rule:
  pattern: $X.contiguous()
RULES
echo "files: $(wc -l <"$tmp/files") ($(cat $(cat "$tmp/files") | wc -l) lines), $("$sg" --version), $rounds rounds"
${PYTHON3:-python3} - "$ta" "$sg" "$tmp/rules.yml" "$tmp/files" "$rounds" <<'PY'
import os, resource, statistics, subprocess, sys, time
ta, sg, rules, listing, rounds = sys.argv[1:6]
files = open(listing).read().split()
rules = open(rules).read()
cmds = {
    "tileadvise --check": [ta, "--check"] + files,
    "ast-grep scan -j 1": [sg, "scan", "--inline-rules", rules, "-j", "1"] + files,
}
def run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t1 - t0, cpu, p.stdout
found = {}
for name, cmd in cmds.items():   # one warm-up each: page cache, and counts
    found[name] = run(cmd)[2].count(b"warning")
wall = {k: [] for k in cmds}; cpu = {k: [] for k in cmds}
names = list(cmds)
for r in range(int(rounds)):
    for name in (names if r % 2 == 0 else names[::-1]):
        w, c, _ = run(cmds[name])
        wall[name].append(w); cpu[name].append(c)
for name in names:
    print("%-20s wall %7.1f ms  cpu %7.1f ms  (medians; %d findings)" % (
        name, 1e3 * statistics.median(wall[name]), 1e3 * statistics.median(cpu[name]), found[name]))
a, b = names
rw = [x / y for x, y in zip(wall[a], wall[b])]
rc = [x / y for x, y in zip(cpu[a], cpu[b])]
print("ratio tileadvise/ast-grep: wall %.2f (rounds %.2f-%.2f), cpu %.2f (rounds %.2f-%.2f); target <= 1.0" % (
    statistics.median(rw), min(rw), max(rw), statistics.median(rc), min(rc), max(rc)))
PY
