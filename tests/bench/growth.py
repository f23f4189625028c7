#!/usr/bin/env python3
"""How the analysis grows on each hostile shape (issue 31): writes each shape
of tests/bench/hostile_shapes.py at its base size times each factor, runs
tileadvise on it (the least CPU time, user + system, of REPEAT runs) and
prints the time, the bytes and the growth from the first size.

    growth.py TILEADVISE [options]
      --sizes 1,2,4,8      factors of each shape's base size (default)
      --shapes a,b         only these shapes (default: all)
      --scale X            multiplies every base size (default 1)
      --repeat N           runs per size, the least CPU time kept (default 3)
      --args "..."         what tileadvise is run with (default "--check --fixes")
      --bound SLACK        checks that no shape grows faster than n log n in
                           the file's bytes: from the first file, n bytes, to
                           the last, m bytes, the time may grow by at most
                           SLACK * (m log m) / (n log n); a run past --timeout
                           counts as over it
      --timeout S          seconds one run may take (default 60)
      --floor S            with --bound, a shape whose first size runs in
                           under S CPU seconds (default 0.08) is measured
                           again from twice the size, up to four times while
                           the largest file stays under 4 MiB: a run that
                           short is mostly the process's start and the
                           clock's tick, and its ratio is noise
      --tap                prints TAP (one test per shape; needs --bound)
      --todo a,b           in TAP, these shapes are known to grow faster:
                           their results are marked TODO (an expected failure)
      --split              lets --check analyse a large file in parts as it
                           does by default; without it every file is analysed
                           whole (TILEADVISE_PART_BYTES set past any size), so
                           that crossing the 256 KB threshold adds no step

Exit status: 0, or 1 when --bound is given and a shape is over it.
"""
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_shapes  # noqa: E402


def cpu_of(argv, timeout):
    """CPU seconds (user + system) of one run, or None past the timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None, None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), rc


def measure(ta, opts, shape, name, base, factors, repeat, timeout, bound, tmp):
    """(n, bytes, least CPU seconds or None) of each factor of the base size;
    stops at the first size past the timeout."""
    rows = []
    for f in factors:
        n = max(1, int(round(base * f)))
        path = os.path.join(tmp, "%s_%d.py" % (name, n))
        with open(path, "w") as fh:
            fh.write("".join(shape(n)))
        size = os.path.getsize(path)
        best = None
        for _ in range(repeat):
            # the longest a run may take: the timeout, or far past
            # what the first size allows at n log n
            limit = timeout
            if rows and rows[0][2] is not None and bound:
                b0 = rows[0][1]
                allowed = rows[0][2] * bound * (size * math.log(size)) / (b0 * math.log(b0))
                limit = min(timeout, 10 * allowed + 5)
            s, rc = cpu_of(ta.split() + opts["--args"].split() + [path], limit)
            if s is None or rc not in (0, 1):
                # past the time, or an error (a refused file): no time
                s = None
                best = None
                break
            best = s if best is None else min(best, s)
        os.unlink(path)
        rows.append((n, size, best))
        if best is None:
            break
    return rows


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    ta = argv[1]
    opts = {"--sizes": "1,2,4,8", "--shapes": "", "--scale": "1", "--repeat": "3",
            "--args": "--check --fixes", "--bound": "", "--timeout": "60", "--todo": "",
            "--floor": "0.08"}
    tap = False
    split = False
    i = 2
    while i < len(argv):
        if argv[i] == "--tap":
            tap = True
            i += 1
        elif argv[i] == "--split":
            split = True
            i += 1
        elif argv[i] in opts and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            sys.stderr.write(__doc__)
            return 2
    factors = [float(x) for x in opts["--sizes"].split(",")]
    names = [s.__name__ for s in hostile_shapes.SHAPES]
    if opts["--shapes"]:
        names = opts["--shapes"].split(",")
    repeat, timeout = int(opts["--repeat"]), float(opts["--timeout"])
    bound = float(opts["--bound"]) if opts["--bound"] else None
    floor = float(opts["--floor"])
    if not split:
        os.environ["TILEADVISE_PART_BYTES"] = str(1 << 40)
    out = sys.stdout
    if tap:
        out.write("1..%d\n" % len(names))
    else:
        out.write("%-14s %9s %10s %8s %7s\n" % ("shape", "n", "bytes", "cpu s", "growth"))
    over = 0
    tmp = tempfile.mkdtemp(prefix="ta-growth-")
    try:
        for t, name in enumerate(names, 1):
            shape = getattr(hostile_shapes, name)
            base = hostile_shapes.BASE[name] * float(opts["--scale"])
            for doubling in range(5):
                rows = measure(ta, opts, shape, name, base, factors, repeat, timeout, bound, tmp)
                t0 = rows[0][2]
                # no doubling past 4 MiB: the file limit is 16 MiB, and
                # a refused file would take no time at all
                if (bound is None or t0 is None or t0 >= floor or doubling == 4
                        or len(rows) < len(factors) or 2 * rows[-1][1] > 4 << 20):
                    break
                base *= 2
            n0, b0, t0 = rows[0]
            for n, size, s in rows:
                if not tap:
                    g = "" if s is None or not t0 else "%.2f" % (s / t0)
                    out.write("%-14s %9d %10d %8s %7s\n" % (name, n, size,
                              "timeout" if s is None else "%.3f" % s, g))
            n1, b1, t1 = rows[-1]
            if bound is None:
                continue
            ok = t1 is not None and len(rows) == len(factors)
            allowed = bound * (b1 * math.log(b1)) / (b0 * math.log(b0))
            if ok and t0:
                ok = t1 / t0 <= allowed
            if not ok and name not in opts["--todo"].split(","):
                over += 1
            if tap:
                detail = "%s: n %d -> %d (%d -> %d bytes), %s -> %s s CPU, growth %s (at most %.1f)" % (
                    name, n0, n1, b0, b1, "timeout" if t0 is None else "%.3f" % t0,
                    "timeout" if t1 is None else "%.3f" % t1,
                    "-" if t1 is None or not t0 else "%.1f" % (t1 / t0), allowed)
                todo = " # TODO grows faster than n log n" if name in opts["--todo"].split(",") else ""
                out.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", t, detail, todo))
            elif not ok:
                out.write("%s: grows faster than n log n\n" % name)
            out.flush()
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
