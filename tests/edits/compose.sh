#!/bin/sh
# Edits compose (issue 14): every ordered pair of mechanical edits that
# each apply to a file, over the examples and the fixtures, still applies
# after the other, or refuses with a reason tests/edits/compose.allow
# lists and justifies (tests/edits/compose.py does the work). The naive
# kernels of issue 16 (tests/gpu/kernels/naive_*.py) and the population of
# issue 27 (pop_*.py, written by people who never read this code) too. TAP.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
PYTHON=${PYTHON3:-python3}
"$PYTHON" -c 'pass' 2>/dev/null || skip_all "python3 not found"
s="$TA_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-compose-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
# the cases of tests/entries/*.md as files
c=$(ta_cases "$tmp/cases") || exit 99
"$PYTHON" "$s/tests/edits/compose.py" "$TILEADVISE" "$s/tests/edits/compose.allow" \
	"$s"/examples/*/*.py "$c"/edits/*.before.py "$c"/rules/*.py \
	"$s"/tests/fixtures/tui/*.py "$s"/tests/gpu/kernels/naive_*.py "$s"/tests/gpu/kernels/pop_*.py
