#!/bin/sh
# How --check grows with the file (issue 19, items 6 and 7): CPU time
# (user+sys) and peak memory (max RSS) of one --check run per size, from
# getrusage, for
#  - one long expression, `y = x+x+...` of 25,000 to 400,000 terms (it was
#    quadratic: 70,000 terms took 13 s);
#  - many small kernels in one file, 5,000 to 40,000 (each ~140 bytes: a
#    program id, an arange, a masked store), up to 100,000 (13.6 MB) with
#    SCALING_BIG=1;
#  - tests/bench/gen_kernels.py's mixed files (the examples and rule
#    fixtures over and over, kernels renamed per copy), 10,000 to 40,000
#    lines (100,000 and 330,000 with SCALING_BIG=1), with --check --fixes
#    --format=json, --report and --diff (one entry's first edit): these are
#    analysed whole (their module-level code joins every copy), so time
#    and memory are the whole file's. SCALING_VS=OTHER_TILEADVISE measures
#    another build beside this one on the same files; SCALING_ONLY=mixed
#    runs only that table.
# Linear time shows as a flat "us per term" / "us per kernel" column; the
# last column is peak memory over the file's size.
# Usage: tests/bench/scaling.sh [BUILDDIR]
set -eu
build=${1:-_build}
src=$(cd "$(dirname "$0")/../.." && pwd)
ta="$build/src/tileadvise"
[ -x "$ta" ] || { echo "scaling.sh: no $ta: build first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
big=""
[ -n "${SCALING_BIG:-}" ] && big=100000
${PYTHON3:-python3} - "$ta" "$tmp" "$big" "$src" "${SCALING_VS:-}" <<'PY'
import os, resource, subprocess, sys, time
ta, tmp, big, src, vs = sys.argv[1:6]

def measure(path, args=("--check",), prog=None):
    # A child of its own per run, so that ru_maxrss is this run's peak.
    code = ("import resource,subprocess,sys\n"
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(r.ru_utime + r.ru_stime, r.ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", code, prog or ta] + list(args) + [path],
                         stdout=subprocess.PIPE, check=True).stdout.split()
    return float(out[0]), int(out[1]) * 1024

def chain(n):
    p = os.path.join(tmp, "chain%d.py" % n)
    with open(p, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\nx = 1\ny = " + "+".join(["x"] * n) + "\n")
    return p

def kernels(n):
    p = os.path.join(tmp, "kernels%d.py" % n)
    with open(p, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n")
        for i in range(n):
            f.write("@triton.jit\ndef k_%d(x_ptr, n, B: tl.constexpr):\n"
                    "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                    "    tl.store(x_ptr + o, o, mask=o < n)\n\n\n" % i)
    return p

def table(title, unit, sizes, make):
    print("== " + title)
    print("%10s %10s %9s %12s %10s %8s" % (unit, "bytes", "cpu s", "us per " + unit.rstrip("s"),
                                          "max RSS MB", "RSS/size"))
    for n in sizes:
        p = make(n)
        size = os.path.getsize(p)
        cpu, rss = measure(p)
        print("%10d %10d %9.2f %12.2f %10.1f %8.1f" % (n, size, cpu, 1e6 * cpu / n, rss / 2**20, rss / size))
        os.unlink(p)

if os.environ.get("SCALING_ONLY") != "mixed":
    table("one long expression", "terms", [25000, 50000, 100000, 200000, 400000], chain)
sizes = [5000, 10000, 20000, 40000] + ([int(big)] if big else [])
if os.environ.get("SCALING_ONLY") != "mixed":
    table("small kernels in one file", "kernels", sizes, kernels)

# The mixed files: one line per size, mode and build.
print("== gen_kernels.py mixed files, analysed whole")
print("%8s %10s %-8s %-6s %9s %14s %10s %8s" % ("lines", "bytes", "mode", "build", "cpu s", "us per line",
                                                  "max RSS MB", "RSS/size"))
modes = [("check", ("--check", "--fixes", "--format=json")), ("report", ("--report",)),
         ("diff", ("--diff=P2",))]
builds = [("this", ta)] + ([("vs", vs)] if vs else [])
for lines in [10000, 20000, 40000] + ([100000, 330000] if big else []):
    p = os.path.join(tmp, "mixed%d.py" % lines)
    subprocess.run([sys.executable, os.path.join(src, "tests", "bench", "gen_kernels.py"), src, "big", p,
                    str(lines)], check=True)
    size = os.path.getsize(p)
    for mode, args in modes:
        for name, prog in builds:
            cpu, rss = measure(p, args, prog)
            print("%8d %10d %-8s %-6s %9.2f %14.2f %10.1f %8.1f" % (lines, size, mode, name, cpu, 1e6 * cpu / lines,
                                                                 rss / 2**20, rss / size))
    os.unlink(p)
PY
