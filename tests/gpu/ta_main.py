"""Run a kernel file's own `if __name__ == "__main__":` check for
tests/gpu/corpus_edits.py (issue 14), the way its authors run it.

  python3 ta_main.py ROOT FILE

A file that imports its package's modules relatively (`from .x import y`)
only runs as a module of its package (`python -m pkg.mod` from the project
root, ROOT); run as a script it stops at "attempted relative import with no
known parent package" before its check starts. Such a file runs here as
pkg.mod with ROOT first on sys.path; any other file runs as the script it
is. Packages named in TA_LAZY_PKGS get ta_lazy's lazy __init__.
"""
import os
import re
import runpy
import sys

import ta_lazy  # noqa: F401  (installs the finder when TA_LAZY_PKGS is set)


def module_of(root, path):
    """pkg.mod for path under root when every folder between has an
    __init__.py, else None."""
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        return None
    parts = rel[:-3].split(os.sep)
    for i in range(1, len(parts)):
        if not os.path.isfile(os.path.join(root, *parts[:i], "__init__.py")):
            return None
    return ".".join(parts) if len(parts) > 1 else None


def main():
    root, path = map(os.path.abspath, sys.argv[1:3])
    with open(path, errors="replace") as f:
        relative = re.search(r"^\s*from\s+\.", f.read(), re.M)
    mod = None
    if relative:
        mod = module_of(root, path) or module_of(os.path.join(root, "src"), path)
    sys.argv = [path] + sys.argv[3:]
    if mod:
        base = root if module_of(root, path) else os.path.join(root, "src")
        sys.path.insert(0, base)
        runpy.run_module(mod, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(path))
        runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    main()
