#!/bin/sh
# A large file analysed in parts (issue 18, item 7; src/analyze/split.h):
# --check parses a file over 256 KB a part at a time and frees each part's
# tree before the next. The findings, their fixes and syntax errors must be
# exactly those of the whole file's analysis, and the peak memory far
# below what the whole tree takes (84 times the file for 10,000 small
# kernels before; about 14 times now, over an empty file's run).
# TILEADVISE_PART_BYTES sets the part size (and the size a file must pass):
# 1 makes every group of statements that name each other a part of its own.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TILEADVISE:=./src/tileadvise}"
src=${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-parts-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
whole=1000000000

plan 6

# check NAME PART FILES...: --check --fixes json with parts of PART bytes
# equals the whole file's.
same() {
	name=$1 part=$2
	shift 2
	TILEADVISE_PART_BYTES=$whole "$TILEADVISE" --check --fixes --format=json "$@" >"$tmp/whole.json" 2>"$tmp/whole.err"
	a=$?
	TILEADVISE_PART_BYTES=$part "$TILEADVISE" --check --fixes --format=json "$@" >"$tmp/parts.json" 2>"$tmp/parts.err"
	b=$?
	if [ "$a" = "$b" ] && cmp -s "$tmp/whole.json" "$tmp/parts.json" && cmp -s "$tmp/whole.err" "$tmp/parts.err"; then
		ok "$name"
	else
		not_ok "$name (exit $a/$b)"
		diff "$tmp/whole.json" "$tmp/parts.json" | head -20 | sed 's/^/# /'
	fi
}

# 1-2: every example and case of tests/entries, one by one, in the smallest parts.
cases=$(ta_cases "$tmp/cases") || exit 99
set -- "$src"/examples/*/*.py "$cases"/rules/*.py "$cases"/edits/*.py
same "examples and fixtures: parts of 1 byte give the whole file's findings and fixes" 1 "$@"
same "examples and fixtures: parts of 4 KB" 4096 "$@"

# 3: a generated 250 KB file of them (renamed per copy), parts of 16 KB.
${PYTHON3:-python3} "$src/tests/bench/gen_kernels.py" "$src" parts "$tmp/gen.py" 6000
same "a generated 250 KB file in parts of 16 KB" 16384 "$tmp/gen.py"

# 4: a syntax error in a large file: analysed whole, the error reported.
{ cat "$tmp/gen.py"; printf 'def broken(:\n    pass\n'; } >"$tmp/bad.py"
same "a syntax error: the whole file's findings and error" 16384 "$tmp/bad.py"

# 5-6: peak memory of 10,000 small kernels (1.39 MB) over an empty file's run.
awk 'BEGIN {
	print "import triton"; print "import triton.language as tl"; print ""
	for (i = 0; i < 10000; i++) {
		printf "@triton.jit\ndef k_%d(x_ptr, n, B: tl.constexpr):\n", i
		print "    o = tl.program_id(0) * B + tl.arange(0, B)"
		print "    tl.store(x_ptr + o, o, mask=o < n)"; print ""; print ""
	}
}' >"$tmp/k.py"
: >"$tmp/empty.py"
same "10,000 small kernels: the whole file's findings" 262144 "$tmp/k.py"
if grep -q __asan_init "$TILEADVISE" 2>/dev/null; then
	skip "peak memory" "a sanitizer build"
else
	rss() {
		${PYTHON3:-python3} -c 'import resource,subprocess,sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)' "$TILEADVISE" --check "$1"
	}
	base=$(rss "$tmp/empty.py")
	big=$(rss "$tmp/k.py")
	size=$(wc -c <"$tmp/k.py")
	per=$(( (big - base) / size ))
	tap_comment "peak RSS $big bytes, $base for an empty file, $size bytes of file: $per per byte"
	check "10,000 small kernels: peak memory under 30 times the file (over an empty run)" [ "$per" -lt 30 ]
fi
finish
