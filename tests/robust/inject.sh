#!/bin/sh
# The CUPTI injector where there is no GPU (as here, and in CI): loaded the
# way the driver loads it (CUDA_INJECTION64_PATH, InitializeInjection) into
# a process that never touches CUDA (tests/robust/inject_host.c), with and
# without a record fd, with the reader gone, with threads, fork, _exit and
# a signal; and through the tool (--profile with H200 facts): every run
# ends, nothing crashes or hangs, and the tool says what happened in a line.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_BUILDDIR, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TA_BUILDDIR:=.}"
: "${TILEADVISE:=./src/tileadvise}"
host="$TA_BUILDDIR/tests/robust/inject_host"
lib="$TA_BUILDDIR/src/profile/inject/.libs/libtileadvise-cupti.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-inject-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

plan 17
if [ ! -f "$lib" ]; then
	skip_rest "injector not built (no CUPTI headers)"
	finish
fi
if [ -e /dev/nvidiactl ]; then
	# With a GPU the injector records for real: tests/gpu covers that.
	skip_rest "injector without a GPU: this machine has one"
	finish
fi

# host MODE [ENV...]: runs inject_host under a 30 s limit; rc, out, err.
host() {
	m=$1
	shift
	env -u TILEADVISE_RECORD_FD -u TILEADVISE_RECORD_INO CUDA_INJECTION64_PATH="$lib" "$@" \
		timeout 30 "$host" "$m" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
why() { echo "rc=$rc out=$(head -c 300 "$tmp/out") err=$(head -c 300 "$tmp/err")"; }

# Not run by tileadvise: it stays out of the way.
for m in plain twice exit_ fork; do
	host $m
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && grep -qx "initialized 1" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]
	result $? "no record fd, $m: InitializeInjection returns 1, nothing written, exit 0" "$(why)"
done
host signal
[ "$rc" = 137 ] && grep -qx "initialized 1" "$tmp/err"
result $? "no record fd, killed by a signal after initializing: no hang" "$(why)"
bad=""
for v in abc -1 99999999 1 0 ""; do
	host plain TILEADVISE_RECORD_FD="$v"
	{ [ "$rc" = 0 ] && [ ! -s "$tmp/out" ]; } || bad="$bad '$v'(rc=$rc)"
done
[ -z "$bad" ]; result $? "a record fd that is no socket or not a number: ignored (6 values)" "bad:$bad"

# Its own socket pair, read back: hello, the CUPTI error, bye.
host selfpair
[ "$rc" = 0 ] && grep -q '^{"type":"hello","v":1,' "$tmp/out" && grep -q '^{"type":"error",.*"where":"cupti' "$tmp/out" &&
	grep -q '^{"type":"bye",' "$tmp/out"
result $? "with a record fd and no GPU: hello, an error record naming the CUPTI call, bye" "$(why)"
if command -v "${PYTHON3:-python3}" >/dev/null 2>&1; then
	"${PYTHON3:-python3}" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" 2>"$tmp/perr"
	result $? "every record line is JSON" "$(cat "$tmp/perr")"
else
	skip "every record line is JSON" "no python3"
fi
host selfpair TILEADVISE_FLUSH_MS=1
[ "$rc" = 0 ] && [ "$(grep -c '"type":"bye"' "$tmp/out")" = 1 ]
result $? "flush every 1 ms: exits, one bye" "$(why)"
host closedpeer
[ "$rc" = 0 ] && grep -qx "initialized 1" "$tmp/err"
result $? "the reader gone before the first record: no SIGPIPE, exit 0" "$(why)"

# Through the tool: --profile with the H200's facts runs the command.
cp "$TA_SRCDIR/tests/fixtures/model/basic.py" "$tmp/k.py"
prof() {
	timeout 60 "$TILEADVISE" --profile --gpu h200 --timeout 30 "$tmp/k.py" -- "$host" "$1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
for m in plain twice fork exit_; do
	prof $m
	[ "$rc" = 0 ] && [ "$(grep -c 'CUPTI error in the child: cuptiActivityEnable' "$tmp/err")" = 1 ] &&
		! grep -q "without the final flush" "$tmp/err" && grep -q "^run: exited 0" "$tmp/out" &&
		grep -q "no launches" "$tmp/out"
	result $? "--profile, $m: the CUPTI error in one line, the run ends, no false 'killed' note" "$(why)"
done
prof signal
[ "$rc" = 2 ] && grep -q "killed by SIGKILL" "$tmp/err"
result $? "--profile, the child killed by a signal: said in one line, exit 2" "$(why)"
prof closedpeer
[ "$rc" = 0 ] && grep -q "injector was not loaded" "$tmp/err"
result $? "--profile, the child drops the record socket: 'not loaded' said, exit 0" "$(why)"

# CUPTI missing: its folder hidden by an empty tmpfs in a private mount
# namespace (needs root and unshare; skipped otherwise).
cdir=$(ldd "$lib" 2>/dev/null | sed -n 's/.*libcupti[^ ]* => \(\/[^ ]*\) .*/\1/p' | head -n 1)
cdir=${cdir%/*}
if [ -n "$cdir" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$cdir" \
		timeout 60 "$TILEADVISE" --profile --gpu h200 --timeout 30 "$tmp/k.py" -- "$host" plain >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && grep -q "libcupti was not found" "$tmp/err" && grep -q "exited with status 3" "$tmp/out"
	result $? "CUPTI missing (its folder hidden): the run ends, 'libcupti was not found' said" "$(why)"
else
	skip "CUPTI missing" "needs root, unshare and ldd to hide libcupti"
fi
finish
