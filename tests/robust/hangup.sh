#!/bin/sh
# The advisor whose terminal goes away ends as after q, even when no SIGHUP
# reaches it (its window closed while another process group held the
# terminal's foreground, as under tmux when the server is killed): poll then
# reports the hangup on every turn, and the advisor once read keys in a
# loop at full CPU for as long as nobody killed it (seen after a CI run, an
# orphan spinning for an hour). Here it runs on a pseudo-terminal with
# SIGHUP blocked across exec, and the terminal is closed under it.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TILEADVISE:=./src/tileadvise}"
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
py=${PYTHON3:-python3}
command -v "$py" >/dev/null 2>&1 || skip_all "no python3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-hangup-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$TA_SRCDIR/examples/softmax/softmax.py" "$tmp/softmax.py"
case $TILEADVISE in /*) ta=$TILEADVISE ;; *) ta=$PWD/$TILEADVISE ;; esac

plan 2
out=$(cd "$tmp" && "$py" - "$ta" <<'EOP'
import os, pty, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    os.environ["TERM"] = "xterm"
    os.execv(sys.argv[1], [sys.argv[1], "--no-profile", "softmax.py"])
# the first frame, then the terminal goes
seen, t0 = b"", time.time()
while b"softmax" not in seen and time.time() - t0 < 30:
    try:
        seen += os.read(fd, 65536)
    except OSError:
        break
os.close(fd)
t0 = time.time()
while time.time() - t0 < 10:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("exited %d after %.1f s" % (os.waitstatus_to_exitcode(status), time.time() - t0))
        sys.exit(0)
    time.sleep(0.1)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print("still running 10 s after the hangup")
EOP
)
case $out in exited*) true ;; *) false ;; esac
result $? "the advisor ends when its terminal hangs up without a SIGHUP ($out)"
case $out in "exited 0 "*) true ;; *) false ;; esac
result $? "and exits 0, as after q (the session saved)"
finish
