#!/bin/sh
# The metamorphic suite (issue 27, item 3): every naive kernel of
# tests/gpu/kernels (naive_*, pop_*) and every bundled example is rewritten by
# tests/meta/variants.py into meaning-preserving variants (names bound or
# inline, tiles renamed, launch by keyword or position, grid as tuple, lambda,
# def or variable, a helper extracted, masks reordered, bound or inlined,
# pointers advanced or indexed, range or tl.range), and the static checklist
# and the mechanical walk must reach the same levers on each as on the
# original, but for the differences tests/meta/expected-differences.txt lists
# with their reasons. tests/meta/walk_same.py does the work and prints the TAP.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TILEADVISE:?set TILEADVISE to the built binary}"
py=${PYTHON3:-python3}
command -v "$py" >/dev/null 2>&1 || skip_all "no python3"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || skip_all "python3 older than 3.9 (ast.unparse)"
TILEADVISE=$TILEADVISE TA_SRCDIR=$TA_SRCDIR exec "$py" "$TA_SRCDIR/tests/meta/walk_same.py"
