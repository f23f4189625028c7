#!/usr/bin/env python3
"""Writes the cases of tests/entries/*.md as files, for the tests that read
files: OUT/rules/TITLE for a case with no edit, OUT/edits/NAME.before.py and
NAME.after.py (the source with its diff applied) for a case with one, and
OUT/edits/cases listing those (`ID NAME [guided|profile]`, as
tests/edits/golden.sh reads it). OUT is emptied first.

Usage: extract.py OUT [ENTRIES_FOLDER]   (python3 stdlib only)
"""
import os
import shutil
import sys

# no __pycache__ beside the sources (the folder ships as it is)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import entries as E  # noqa: E402


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip())
    out = sys.argv[1]
    folder = sys.argv[2] if len(sys.argv) == 3 else os.path.dirname(os.path.abspath(__file__))
    # a half-written folder from an earlier run must not mix in
    for sub in ("rules", "edits"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    try:
        E.extract(folder, out)
    except (ValueError, KeyError) as e:
        sys.exit("extract.py: %s" % e)


if __name__ == "__main__":
    main()
