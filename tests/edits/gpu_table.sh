#!/bin/sh
# The GPU corpus harness's classification, on the development machine
# (tests/gpu/corpus_edits.py, fixtures in tests/fixtures/gpu_table): a check
# that stops only at the host contracts the edits write counts as "stopped by
# its contract"; any other failure beside it keeps the site "newly failing";
# the table splits safe and unsafe edits and sums both into newly failing. TAP.
# Env: TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }
py="$TA_SRCDIR/tests/gpu/corpus_edits.py"
fx="$TA_SRCDIR/tests/fixtures/gpu_table"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-gputable-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 8
for c in "contract.log pytest contract" "mixed.log pytest fail" "crash.log pytest fail" \
	"diff_contract.log diff contract" "diff_wrong.log diff fail"; do
	set -- $c
	got=$(TA=/bin/false python3 "$py" classify "$fx/$1" "$2")
	[ "$got" = "$3" ]
	result $? "$1 ($2) is classified $3" "got $got"
done
cp "$fx/results.jsonl" "$tmp/"
TA=/bin/false python3 "$py" table "$fx" "$tmp" >/dev/null
# S1: 5 offered, 1 refused, 4 applied (4 unsafe), 4 run: 1 passing, 1 contract, 1 failing, 1 timed out
grep -q '^| S1 | 5 | 1 | 4 (4) | 4 | 0 | 0 | 1 | 1 | 1 | 1 | 1 | — |$' "$tmp/table.md"
result $? "S1's row splits passing, contract stop, newly failing and timed out" "$(grep '^| S1' "$tmp/table.md")"
# a safe edit that stops at an assert is failing (S8), D4: 1 passing 1 failing
grep -q '^| \*\*all\*\* | 9 | 1 | 8 (5) | 8 | 1 | 2 | 1 | 2 | 1 | 1 | 2 | |$' "$tmp/table.md"
result $? "the totals: safe failures include a safe edit stopped by an assert" "$(grep '^| \*\*all' "$tmp/table.md")"
grep -q '^Newly failing: 3 (2 safe, 1 unsafe); stopped by a stated contract: 2; still passing: 2; timed out: 1$' "$tmp/table.md"
result $? "the headline counts contract stops apart, never as passing" "$(grep '^Newly' "$tmp/table.md")"
finish
