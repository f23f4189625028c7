"""pytest plugin for tests/gpu/corpus_edits.py: run a small, fixed sample of a
project's own tests, the same sample before and after an edit.

Environment:
  TA_KEYWORD   keep only items whose id contains this word (when any does);
               "a|b": the first of the words that some id contains
  TA_SAMPLE    keep at most this many items, evenly spaced over the sorted ids
               (spread over the parametrisations, not the first N of one)
  TA_RESERVE   after those, up to this many more (default 2 x TA_SAMPLE),
               each run only while fewer than TA_SAMPLE items have passed:
               a sample that lands on items the test skips (a parameter
               combination it does not support) still gets its items
  TA_ONLY      a file of node ids, one a line: run exactly these
  TA_PASSED    write the ids of the items that passed to this file
  TA_FILE      the kernel file under test: at the end, say whether the run
               imported it and compiled any of its module-level Triton
               kernels ("ta_sample: reach ..."); where it did neither, no
               item counts as passed (a check that never reaches the file
               cannot tell an edit of it from the original)
  TA_ALIAS     "a.b=c.d,...": make module a.b an alias of c.d before
               collection (a project's tests that import a renamed package)
"""
import importlib
import os
import sys

import pytest

import ta_lazy  # noqa: F401  (lazy package __init__ where TA_LAZY_PKGS says)


def _alias():
    for pair in filter(None, os.environ.get("TA_ALIAS", "").split(",")):
        name, target = pair.split("=")
        try:
            sys.modules[name] = importlib.import_module(target)
        except Exception as e:  # the baseline then fails and says why
            print(f"ta_sample: alias {name}={target}: {e}", file=sys.stderr)


_alias()


_reserve = set()
_want = [0]


def _spread(items, n):
    if n <= 0 or len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step + step / 2)] for i in range(n)]


def pytest_collection_modifyitems(session, config, items):
    only = os.environ.get("TA_ONLY")
    if only:
        want = set(open(only).read().split("\n")) - {""}
        keep = [it for it in items if it.nodeid in want]
    else:
        keep = list(items)
        for word in os.environ.get("TA_KEYWORD", "").lower().split("|"):
            hit = [it for it in keep if word and word in it.nodeid.lower()]
            if hit:
                keep = hit
                break
        n = int(os.environ.get("TA_SAMPLE", "0") or 0)
        if n and len(keep) > n:
            keep.sort(key=lambda it: it.nodeid)
            first = _spread(keep, n)
            chosen = set(map(id, first))
            rest = [it for it in keep if id(it) not in chosen]
            more = _spread(rest, int(os.environ.get("TA_RESERVE", str(2 * n))))
            _reserve.update(map(id, more))
            _want[0] = n
            keep = first + more
    kept = set(map(id, keep))
    dropped = [it for it in items if id(it) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if id(item) in _reserve and len(_passed) >= _want[0]:
        pytest.skip("ta_sample: reserve item, the sample has its passing items")


_passed = []


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        _passed.append(report.nodeid)


def _jit_of(obj, depth=0):
    """The JITFunction under Triton's wrappers (autotune, heuristics, and
    projects' own launchers keep it as .fn), or None."""
    if depth > 6 or obj is None:
        return None
    if type(obj).__name__ == "JITFunction":
        return obj
    return _jit_of(getattr(obj, "fn", None), depth + 1)


def _compiled(jf):
    """Compiled specialisations of a JITFunction, or None where this
    Triton keeps them somewhere this does not know."""
    caches = getattr(jf, "device_caches", None)
    if isinstance(caches, dict):
        n = 0
        for v in caches.values():
            c = v[0] if isinstance(v, tuple) and v and isinstance(v[0], dict) else None
            if c is None:
                return None
            n += len(c)
        return n
    cache = getattr(jf, "cache", None)
    if isinstance(cache, dict):
        return sum(len(v) for v in cache.values() if isinstance(v, dict))
    return None


def reach(path):
    """(imported, kernels, compiled): whether a loaded module's file is path,
    how many module-level Triton kernels it defines, how many of them have
    a compiled specialisation (None: not knowable here)."""
    want = os.path.realpath(path)
    mods = [m for m in list(sys.modules.values())
            if getattr(m, "__file__", None) and os.path.realpath(m.__file__) == want]
    kernels, compiled, known = 0, 0, True
    seen = set()
    for m in mods:
        for v in list(vars(m).values()):
            jf = _jit_of(v)
            if jf is None or id(jf) in seen:
                continue
            seen.add(id(jf))
            kernels += 1
            c = _compiled(jf)
            if c is None:
                known = False
            else:
                compiled += c > 0
    return bool(mods), kernels, (compiled if known else None)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("TA_FILE")
    if path:
        imported, kernels, compiled = reach(path)
        print(f"\nta_sample: reach imported={'yes' if imported else 'no'} kernels={kernels} "
              f"compiled={'?' if compiled is None else compiled}", file=sys.stderr)
        if not imported or (kernels and compiled == 0):
            _passed.clear()
    out = os.environ.get("TA_PASSED")
    if out:
        with open(out, "w") as f:
            f.write("".join(n + "\n" for n in _passed))
