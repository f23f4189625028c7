"""pytest plugin for tests/gpu/corpus_edits.py: run a small, fixed sample of a
project's own tests, the same sample before and after an edit.

Environment:
  TA_KEYWORD   keep only items whose id contains this word (when any does)
  TA_SAMPLE    keep at most this many items, evenly spaced over the sorted ids
               (spread over the parametrisations, not the first N of one)
  TA_ONLY      a file of node ids, one a line: run exactly these
  TA_PASSED    write the ids of the items that passed to this file
  TA_ALIAS     "a.b=c.d,...": make module a.b an alias of c.d before
               collection (a project's tests that import a renamed package)
"""
import importlib
import os
import sys


def _alias():
    for pair in filter(None, os.environ.get("TA_ALIAS", "").split(",")):
        name, target = pair.split("=")
        try:
            sys.modules[name] = importlib.import_module(target)
        except Exception as e:  # the baseline then fails and says why
            print(f"ta_sample: alias {name}={target}: {e}", file=sys.stderr)


_alias()


def pytest_collection_modifyitems(session, config, items):
    only = os.environ.get("TA_ONLY")
    if only:
        want = set(open(only).read().split("\n")) - {""}
        keep = [it for it in items if it.nodeid in want]
    else:
        keep = list(items)
        word = os.environ.get("TA_KEYWORD", "").lower()
        if word:
            hit = [it for it in keep if word in it.nodeid.lower()]
            if hit:
                keep = hit
        n = int(os.environ.get("TA_SAMPLE", "0") or 0)
        if n and len(keep) > n:
            keep.sort(key=lambda it: it.nodeid)
            step = len(keep) / n
            keep = [keep[int(i * step + step / 2)] for i in range(n)]
    kept = set(map(id, keep))
    dropped = [it for it in items if id(it) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


_passed = []


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        _passed.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("TA_PASSED")
    if out:
        with open(out, "w") as f:
            f.write("".join(n + "\n" for n in _passed))
