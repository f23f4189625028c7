#!/bin/sh
# tileadvise --report on bad input: exit 2 and one line on stderr naming the
# file; no kernels: exit 0 and a note; syntax errors: exit 0 and each error
# region by line; json parses; --help/--version exit 0; unknown option exit 2.
# TAP (tests/lib/tap.sh). Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
PYTHON=${PYTHON3:-python3}
fixtures="$TA_SRCDIR/tests/fixtures/model"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-cli-XXXXXX") || exit 99
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# run FILE...: runs tileadvise --report, leaving rc, out and err.
run() {
	"$TILEADVISE" --report "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# bad DESC FILE NEEDLE: exit 2, exactly one stderr line naming FILE with NEEDLE, nothing on stdout.
bad() {
	run "$2"
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$2" "$tmp/err" &&
	   grep -qF -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$1"
	else
		not_ok "$1" "rc=$rc lines=$lines" "stderr: $(cat "$tmp/err")"
	fi
}

plan 19

bad "missing path" "$tmp/missing.py" "no such file"
mkdir "$tmp/dir.py"
bad "a directory" "$tmp/dir.py" "is a directory"

printf 'x = 1\n' >"$tmp/locked.py"
chmod 000 "$tmp/locked.py"
if [ -r "$tmp/locked.py" ]; then
	# root reads any file: check as nobody when we can give root up
	chmod 711 "$tmp"
	if command -v setpriv >/dev/null 2>&1 &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TILEADVISE" --report "$tmp/locked.py" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		   grep -qF "$tmp/locked.py: permission denied" "$tmp/err"; then
			ok "unreadable file (as nobody)"
		else
			not_ok "unreadable file (as nobody)" "rc=$rc" "stderr: $(cat "$tmp/err")"
		fi
	else
		skip "unreadable file" "running as root: mode 000 does not stop reads"
	fi
else
	bad "unreadable file" "$tmp/locked.py" "permission denied"
fi

: >"$tmp/empty.py"
bad "empty file" "$tmp/empty.py" "empty"
printf 'import triton\n\000\001\002' >"$tmp/binary.py"
bad "binary file (NUL bytes)" "$tmp/binary.py" "NUL byte"
printf 'import triton\nx = "\351"\n' >"$tmp/latin1.py"
bad "invalid UTF-8 with line:col" "$tmp/latin1.py" "latin1.py:2:6: invalid UTF-8"
printf '# \300\257\n' >"$tmp/overlong.py"
bad "overlong UTF-8" "$tmp/overlong.py" "overlong.py:1:3: invalid UTF-8"
# sparse: 16 MiB + 1 byte without using the disk
: >"$tmp/big.py"
truncate -s 16777217 "$tmp/big.py" 2>/dev/null || dd if=/dev/zero of="$tmp/big.py" bs=1 count=0 seek=16777217 2>/dev/null
bad "file over 16 MiB" "$tmp/big.py" "16 MiB limit"

# No kernels: exit 0 and a clear note.
run "$fixtures/no_kernels.py"
if [ "$rc" -eq 0 ] && grep -q "No Triton kernel" "$tmp/out"; then
	ok "no kernels: exit 0 with a note"
else
	not_ok "no kernels: exit 0 with a note" "rc=$rc" "$(cat "$tmp/out" "$tmp/err")"
fi

# Syntax errors: exit 0, each region by file:line, and the kernels still there.
run "$fixtures/syntax_errors.py"
errs=$(grep -c "syntax_errors.py:[0-9]*:[0-9]*: syntax error" "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$errs" -eq 3 ] &&
   grep -q "syntax_errors.py:13:" "$tmp/out" && grep -q "syntax_errors.py:21:" "$tmp/out" &&
   grep -q "syntax_errors.py:27:" "$tmp/out"; then
	ok "syntax errors: exit 0, each region reported by line"
else
	not_ok "syntax errors: exit 0, each region reported by line" "rc=$rc errors=$errs" "$(cat "$tmp/out")"
fi
if grep -q "kernel good_kernel" "$tmp/out" && grep -q "kernel after_kernel" "$tmp/out"; then
	ok "syntax errors: what parsed is modelled"
else
	not_ok "syntax errors: what parsed is modelled" "$(cat "$tmp/out")"
fi

# JSON parses, for every fixture, and carries the syntax errors.
jbad=""
for f in "$fixtures"/*.py; do
	"$TILEADVISE" --report --format json "$f" >"$tmp/j" 2>"$tmp/err" &&
		"$PYTHON" -m json.tool "$tmp/j" >/dev/null 2>&1 || jbad="$jbad $(basename "$f")"
done
if [ -z "$jbad" ]; then ok "--format json parses for every fixture"; else not_ok "--format json parses for every fixture" "failed:$jbad"; fi
"$TILEADVISE" --report --format json "$fixtures/syntax_errors.py" >"$tmp/j" 2>/dev/null
if "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [e["line"] for e in d["syntax_errors"]] == [13, 21, 27] and len(d["kernels"]) == 2 else 1)' "$tmp/j"; then
	ok "json: syntax errors by line and kernels"
else
	not_ok "json: syntax errors by line and kernels" "$(head -c 600 "$tmp/j")"
fi

# Markdown is text too; a one-line-per-op host listing even for ops spanning lines.
run --format markdown "$fixtures/basic.py"
if [ "$rc" -eq 0 ] && grep -q "^### kernel \`add_kernel\`" "$tmp/out"; then ok "--format markdown"; else not_ok "--format markdown" "rc=$rc"; fi

"$TILEADVISE" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "^Usage: tileadvise" "$tmp/out"; then ok "--help exits 0"; else not_ok "--help exits 0" "rc=$rc"; fi
"$TILEADVISE" --version >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "^tileadvise " "$tmp/out"; then ok "--version exits 0"; else not_ok "--version exits 0" "rc=$rc"; fi

"$TILEADVISE" --no-such-option >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "no-such-option" "$tmp/err"; then ok "unknown option exits 2"; else not_ok "unknown option exits 2" "rc=$rc $(cat "$tmp/err")"; fi
"$TILEADVISE" --report --format yaml "$fixtures/basic.py" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "yaml" "$tmp/err"; then ok "unknown format exits 2"; else not_ok "unknown format exits 2" "rc=$rc"; fi
"$TILEADVISE" --report >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "needs a FILE" "$tmp/err"; then ok "--report without FILE exits 2"; else not_ok "--report without FILE exits 2" "rc=$rc"; fi
finish
