#!/usr/bin/env python3
"""Edits compose (issue 14): for every file given, every ordered pair (A, B)
of mechanical edits that --check --fixes says apply to it (safe or unsafe:
--unsafe-fixes is given), A is applied and
then B must still apply, or refuse with a reason compose.allow lists for
that pair. One TAP check per file, then one that every allowed refusal is
still needed. Usage: compose.py TILEADVISE ALLOW FILE..."""
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

ta, allow_path = sys.argv[1], sys.argv[2]
files = [f for f in sys.argv[3:] if os.path.isfile(f)]   # an unmatched glob stays as written
allowed = []
for line in open(allow_path, encoding="utf-8"):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    pair, text, why = (p.strip() for p in line.split("|", 2))
    first, second = pair.split()
    allowed.append({"first": first, "second": second, "text": text, "why": why, "used": 0})


def run(args, cwd):
    r = subprocess.run([ta] + args, cwd=cwd, capture_output=True, text=True)
    return r.returncode, (r.stderr or r.stdout).strip()


def fixable(path):
    # The entries in preview too (S1, P2, P3... are the walk's steps), but
    # not P1, which was in preview alone before and whose pairs this test has
    # never composed
    r = subprocess.run([ta, "--check", "--preview", "--ignore=P1", "--fixes", "--format=json", path],
                       capture_output=True, text=True)
    ids = []
    for d in json.loads(r.stdout)["diagnostics"]:
        fix = d.get("fix")
        if fix and fix.get("available") and d["id"] not in ids:
            ids.append(d["id"])
    return ids


tmp = tempfile.mkdtemp(prefix="ta-compose-")
print("1..%d" % (len(files) + 1))
n = failed = pairs_total = 0
for path in files:
    n += 1
    name = os.path.basename(path)
    ids = fixable(path)
    bad, pairs, refused = [], 0, 0
    for a in ids:
        base = os.path.join(tmp, "a")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        shutil.copy(path, os.path.join(base, name))
        rc, msg = run(["--apply", a, "--unsafe-fixes", name], base)
        if rc != 0:
            bad.append("%s alone: %s" % (a, msg))
            continue
        for b in ids:
            if b == a:
                continue
            pairs += 1
            d = os.path.join(tmp, "ab")
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(base, d)
            rc, msg = run(["--apply", b, "--unsafe-fixes", name], d)
            if rc == 0:
                continue
            ok = [x for x in allowed if x["first"] == a and x["second"] == b and x["text"] in msg]
            if ok:
                ok[0]["used"] += 1
                refused += 1
            else:
                bad.append("%s then %s: %s" % (a, b, msg))
    pairs_total += pairs
    desc = "%s: %d ordered pairs of %d edits compose (%d refusals from compose.allow)" % (
        name, pairs, len(ids), refused)
    if bad:
        failed += 1
        print("not ok %d - %s" % (n, desc))
        for x in bad:
            print("# " + x.replace("\n", "\n# "))
    else:
        print("ok %d - %s" % (n, desc))
unused = [x for x in allowed if not x["used"]]
n += 1
if unused:
    failed += 1
    print("not ok %d - every refusal compose.allow lists still occurs" % n)
    for x in unused:
        print("# not seen: %s then %s (%s)" % (x["first"], x["second"], x["text"]))
else:
    print("ok %d - every refusal compose.allow lists still occurs (%d pairs in all)" % (n, pairs_total))
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
