#!/usr/bin/env python3
"""The advisor's first frame and redraws as a terminal sees them: the
program runs in a pseudo-terminal of its own (no tmux in between, so no
polling of a pane), and the clock stops when its output for a frame has
arrived.

  pty_frame.py BINARY FILE [STARTS] [KEYS]

Each start (the file's .tileadvise/ removed first, as tests/bench/tui.sh
does): from fork to the byte that ends the first frame (the footer's
"q quit" and the output then idle for 30 ms; the 30 ms are not counted).
Then KEYS presses of j (k back up at the walk's end: a key that prints
nothing within 300 ms turns the direction and is not counted): from the
write of the key to the last byte of the redraw. Prints one line per
figure: first_frame_ms N / redraw_ms N, then the medians.
"""
import os
import pty
import select
import shutil
import struct
import sys
import time
import fcntl
import termios

IDLE = 0.030     # output idle this long: the frame is complete


def spawn(binary, path):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("TILEADVISE_BENCH", None)
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


def main():
    binary, path = sys.argv[1], sys.argv[2]
    starts = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    keys = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    settle = float(os.environ.get("TA_BENCH_SETTLE", "0"))
    firsts, redraws = [], []
    for i in range(starts):
        # A cold start each time: no session of an earlier start to resume.
        shutil.rmtree(os.path.join(os.path.dirname(os.path.abspath(path)), ".tileadvise"),
                      ignore_errors=True)
        t0 = time.monotonic()
        pid, fd = spawn(binary, path)
        t, _ = read_until_idle(fd, want=b" quit")
        if t is None:
            sys.exit("no first frame within 20 s")
        firsts.append((t - t0) * 1e3)
        print("first_frame_ms %.3f" % firsts[-1], flush=True)
        if i == starts - 1:
            if settle:
                drain(fd, settle)
            key = b"j"
            pressed = 0
            while len(redraws) < keys and pressed < 4 * keys:
                pressed += 1
                t0 = time.monotonic()
                os.write(fd, key)
                t, _ = read_until_idle(fd, first_by=0.3, limit=5.0)
                if t is None:
                    key = b"k" if key == b"j" else b"j"
                    continue
                redraws.append((t - t0) * 1e3)
                print("redraw_ms %.3f" % redraws[-1], flush=True)
        os.write(fd, b"q")
        drain(fd, 10.0)   # to the end of its output: it has saved the session
        os.waitpid(pid, 0)
        os.close(fd)
    print("median first frame %.1f ms over %d starts; median redraw %.2f ms over %d keys"
          % (median(firsts), len(firsts), median(redraws), len(redraws)))


if __name__ == "__main__":
    main()
