#!/usr/bin/env python3
"""The advisor's first frame and redraws as a terminal sees them: the
program runs in a pseudo-terminal of its own (no tmux in between, so no
polling of a pane), and the clock stops when its output for a frame has
arrived.

  pty_frame.py BINARY FILE [STARTS] [KEYS]

With TA_BENCH_WARM=1 the starts resume a session instead (the file's
.tileadvise/ kept; one start that is not counted makes it first): the
advisor then also reads the session, every step's diff included, before
its first frame.

With TA_BENCH_VS=OTHER_BINARY, each start of BINARY is followed by one of
OTHER (the same file, the same cold start): both builds' figures come from
the same minutes of a shared machine, and the per-pair ratios of the first
frame are printed with the medians.

Each start (the file's .tileadvise/ removed first, as tests/bench/tui.sh
does): from fork to the byte that ends the first frame (the footer's
"q quit" and the output then idle for 30 ms; the 30 ms are not counted).
Then KEYS presses of j (k back up at the walk's end: a key that prints
nothing within 300 ms turns the direction and is not counted): from the
write of the key to the last byte of the redraw. Prints one line per
figure: first_frame_ms N / redraw_ms N, then the medians. The process's
CPU time at its first frame (the advisor's own first_frame_cpu_ms mark,
through TILEADVISE_BENCH) is printed too: on a loaded machine it shows
what the wall clock cannot, how much of the wait was the program's work.
"""
import os
import pty
import select
import shutil
import struct
import sys
import tempfile
import time
import fcntl
import termios

IDLE = 0.030     # output idle this long: the frame is complete


def spawn(binary, path, marks):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ["TILEADVISE_BENCH"] = marks
        os.execv(binary, [binary, "--no-profile", path])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    return pid, fd


def read_until_idle(fd, want=None, limit=20.0, first_by=None):
    """Reads until `want` was seen (if given) and the output is then idle
    for IDLE s. Returns (time of the last byte, the bytes) or (None, bytes)
    when nothing came within first_by seconds or the limit passed."""
    out = b""
    last = None
    end = time.monotonic() + limit
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if now > end:
            return None, out
        wait = IDLE if last is not None else (first_by - (now - start) if first_by else end - now)
        if wait <= 0:
            return None, out
        r, _, _ = select.select([fd], [], [], wait)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return last, out
            if not chunk:
                return last, out
            out += chunk
            if want is None or want in out:
                last = time.monotonic()
        elif last is not None:
            return last, out


def drain(fd, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                if not os.read(fd, 65536):
                    return
            except OSError:
                return


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return float("nan")
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def cpu_mark(marks):
    """The advisor's first_frame_cpu_ms mark of one start; None if absent."""
    try:
        for line in open(marks):
            if line.startswith("first_frame_cpu_ms "):
                return float(line.split()[1])
    except OSError:
        pass
    return None


def start(binary, path, marks, keys, settle, redraws, warm):
    """One start of BINARY: returns (first frame ms, CPU ms or None);
    with KEYS > 0 the keys' redraws are appended to REDRAWS."""
    if not warm:
        # A cold start: no session of an earlier start to resume.
        shutil.rmtree(os.path.join(os.path.dirname(os.path.abspath(path)), ".tileadvise"),
                      ignore_errors=True)
    open(marks, "w").close()
    t0 = time.monotonic()
    pid, fd = spawn(binary, path, marks)
    t, _ = read_until_idle(fd, want=b" quit")
    if t is None:
        sys.exit("no first frame within 20 s")
    first = (t - t0) * 1e3
    if keys:
        if settle:
            drain(fd, settle)
        key = b"j"
        pressed = 0
        got = 0
        while got < keys and pressed < 4 * keys:
            pressed += 1
            t0 = time.monotonic()
            os.write(fd, key)
            t, _ = read_until_idle(fd, first_by=0.3, limit=5.0)
            if t is None:
                key = b"k" if key == b"j" else b"j"
                continue
            got += 1
            redraws.append((t - t0) * 1e3)
            print("redraw_ms %.3f" % redraws[-1], flush=True)
    os.write(fd, b"q")
    drain(fd, 10.0)   # to the end of its output: it has saved the session
    os.waitpid(pid, 0)
    os.close(fd)
    return first, cpu_mark(marks)


def main():
    binary, path = sys.argv[1], sys.argv[2]
    starts = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    keys = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    settle = float(os.environ.get("TA_BENCH_SETTLE", "0"))
    vs = os.environ.get("TA_BENCH_VS", "")
    warm = os.environ.get("TA_BENCH_WARM", "") not in ("", "0")
    marks = os.path.join(tempfile.mkdtemp(), "marks")
    if warm:
        shutil.rmtree(os.path.join(os.path.dirname(os.path.abspath(path)), ".tileadvise"),
                      ignore_errors=True)
        start(binary, path, marks, 0, 0, [], False)
    firsts, cpus, redraws = [], [], []
    vs_firsts, vs_cpus, vs_redraws = [], [], []
    for i in range(starts):
        last = i == starts - 1
        f, c = start(binary, path, marks, keys if last else 0, settle, redraws, warm)
        firsts.append(f)
        print("first_frame_ms %.3f%s" % (f, "" if c is None else " cpu %.3f" % c), flush=True)
        if c is not None:
            cpus.append(c)
        if vs:
            f, c = start(vs, path, marks, keys if last else 0, settle, vs_redraws, warm)
            vs_firsts.append(f)
            print("vs first_frame_ms %.3f%s" % (f, "" if c is None else " cpu %.3f" % c), flush=True)
            if c is not None:
                vs_cpus.append(c)
    shutil.rmtree(os.path.dirname(marks), ignore_errors=True)
    cpu = " (CPU time at it %.1f ms)" % median(cpus) if cpus else ""
    print("%s starts" % ("warm (a session resumed)" if warm else "cold"))
    print("median first frame %.1f ms%s over %d starts; median redraw %.2f ms over %d keys"
          % (median(firsts), cpu, len(firsts), median(redraws), len(redraws)))
    if vs:
        cpu = " (CPU time at it %.1f ms)" % median(vs_cpus) if vs_cpus else ""
        print("%s: median first frame %.1f ms%s; median redraw %.2f ms over %d keys"
              % (vs, median(vs_firsts), cpu, median(vs_redraws), len(vs_redraws)))
        print("ratio of the first frame (this / that), median of %d pairs: %.3f"
              % (len(firsts), median([a / b for a, b in zip(firsts, vs_firsts)])))
        if len(cpus) == len(vs_cpus) and cpus:
            print("ratio of the CPU time at it, median of %d pairs: %.3f"
                  % (len(cpus), median([a / b for a, b in zip(cpus, vs_cpus)])))
    print("load average: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
