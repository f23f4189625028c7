#!/bin/sh
# The cases of tests/entries/ID.md, every entry or those named (TAP; see
# tests/entries/README.md). Env: TILEADVISE, TA_SRCDIR, PYTHON3;
# TA_UPDATE_ENTRIES=1 writes what the binary prints into the files.
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
export TA_SRCDIR
exec "${PYTHON3:-python3}" "$TA_SRCDIR/tests/entries/run.py" "$@"
