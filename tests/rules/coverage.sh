#!/bin/sh
# Coverage of the checklist by the tests (TAP): every status each detector
# can return is expected by some fixture or C evidence test. See coverage.py.
: "${TA_SRCDIR:?set TA_SRCDIR to the source tree}"
exec "${PYTHON3:-python3}" "$TA_SRCDIR/tests/rules/coverage.py" --tap "$TA_SRCDIR"
