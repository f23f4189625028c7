#!/bin/sh
# One long expression (issue 19, item 6): `y = x+x+...` of 200,000 terms
# (a 400 KB file) once stalled --check past a minute in tree-sitter query
# matching, whose cost grew with the square of the chain. The model now
# reads the tree in one walk: --check and --report finish (linear time; the
# figures are in tests/bench/long_chain.sh and tests/ROBUSTNESS.md). The
# limit here only keeps a regression from hanging the suite.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR, TA_CHAIN_TERMS (default 200000).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TILEADVISE:=./src/tileadvise}"
terms=${TA_CHAIN_TERMS:-200000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-chain-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# A kernel whose body holds the chain, and the chain at module level.
awk -v n="$terms" 'BEGIN {
	print "import triton"
	print "import triton.language as tl"
	print ""
	print "@triton.jit"
	print "def k(x_ptr, BLOCK: tl.constexpr):"
	print "    x = tl.load(x_ptr + tl.arange(0, BLOCK))"
	printf "    y = x"; for (i = 1; i < n / 2; i++) printf "+x"; print ""
	print "    tl.store(x_ptr + tl.arange(0, BLOCK), y)"
	print ""
	printf "z = (1"; for (i = 1; i < n / 2; i++) printf " + 1"; print ") // 2"
}' >"$tmp/chain.py"

plan 2
for mode in --check --report; do
	timeout 300 "$TILEADVISE" $mode "$tmp/chain.py" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -lt 2 ] && ! grep -qE 'AddressSanitizer|runtime error' "$tmp/err"; then
		ok "$terms-term chain, $mode: finishes (exit $rc)"
	else
		not_ok "$terms-term chain, $mode: finishes" "rc=$rc $(head -c 300 "$tmp/err")"
	fi
done
finish
