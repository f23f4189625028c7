#!/usr/bin/env python3
"""Runs the cases of the entry files (tests/entries/ID.md) and prints TAP.

Each case is written alone into a fresh folder and checked there:
  - what `tileadvise --check --preview --show-notes NAME` prints (stdout,
    then stderr) is its console block, and the exit status is 0 or 1;
  - its `# expect: ID STATUS [KERNEL]` lines hold for the statuses a
    recorded session gives (--record-session), every finding of such an ID
    (--check --format=json: each site, each of its ids) sits on a line
    marked `# @ID` and every marked line has one (`# @ID:note`: a note;
    once a file marks one note it marks them all), and `# only-applies:`
    names every id found (what tests/unit/test_rules.c checks in process;
    not in a case with an edit: several sources of edits began as copies of
    other cases and keep their lines, which no test ever read);
  - with a diff block (edit="SPEC"), `--diff SPEC --unsafe-fixes NAME`
    prints it and `--apply SPEC --unsafe-fixes` writes the source with it
    applied, byte for byte (crlf, bom, noeol: the source block's attributes
    say the file's line ends, byte order mark and last newline; the block is
    compared with the printed diff's CR LF read as LF). A `guided` diff is
    only printed (tests/edits/golden.sh checks that --apply refuses it); a
    `profile` diff is the edit the advisor makes once measured: --diff
    refuses without a profile, and the diff must apply.

Usage: run.py [ID...]   (no ID: every entry file)
Env: TILEADVISE (the binary; default: TA_BUILDDIR's, else _build's, else the
source tree's), TA_SRCDIR; TA_UPDATE_ENTRIES=1 writes what the binary prints
into the console and diff blocks instead of comparing.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# no __pycache__ beside the sources (the folder ships as it is)
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import entries as E  # noqa: E402

CHECK = ["--check", "--preview", "--show-notes"]
STATUS = {"not applicable": "n/a", "needs profile": "needs-profile", "needs baseline": "needs-baseline"}
EXPECT = re.compile(r"^# expect: (\S+) (\S+)(?: (\S+))?")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, good, desc, why=()):
        self.n += 1
        if good:
            print("ok %d - %s" % (self.n, desc))
            return
        self.failed += 1
        print("not ok %d - %s" % (self.n, desc))
        for line in why:
            for l in str(line).split("\n"):
                print("# " + l)


def run(ta, args, cwd):
    r = subprocess.run([ta] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def udiff(want, got, limit=60):
    d = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "got", lineterm=""))
    return d[:limit] + (["... %d more lines" % (len(d) - limit)] if len(d) > limit else [])


def fresh(tmp, case, n):
    """A new folder holding the case's source; returns it."""
    d = os.path.join(tmp, "%d" % n)
    path = os.path.join(d, case.title)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(E.file_bytes(case.source))
    return d


def marks(line):
    """{ID: is a note} of the `# @ID` markers at the end of line."""
    i = line.rfind("# @")
    if i < 0:
        return {}
    return {m.group(1): bool(m.group(2))
            for m in re.finditer(r"@([A-Z][0-9]+)(:note)?(?![A-Z0-9])", line[i:])}


def expectations(ta, case, d, tmp):
    """Problems with the case's # expect / # only-applies / # @ID lines."""
    text = E.text_of(case.source)
    lines = text.split("\n")
    expect = [m.groups() for m in map(EXPECT.match, lines) if m]
    only = [l[len("# only-applies: "):].strip() for l in lines if l.startswith("# only-applies: ")]
    problems = []
    rc, out, err = run(ta, CHECK + ["--format=json", case.title], d)
    found = {}
    for diag in json.loads(out)["diagnostics"]:
        for site in diag.get("sites") or [diag]:
            for i in diag.get("ids") or [diag["id"]]:
                found.setdefault(i, {})[site["line"]] = diag["severity"] == "note"
    if expect:
        session = os.path.join(tmp, "session.json")
        rc, out, err = run(ta, ["--record-session=" + session, case.title], d)
        if rc != 0:
            return ["--record-session exits %d: %s" % (rc, err.strip())]
        with open(session, encoding="utf-8") as f:
            walk = json.load(f)["walk"]["kernels"]
        os.unlink(session)
        statuses = {k["name"]: {s["id"]: STATUS.get(s["status"], s["status"]) for s in k["steps"]} for k in walk}
        rc, out, err = run(ta, ["--report", "--format=json", case.title], d)
        kernels = json.loads(out)["kernels"]
        # the first kernel the file launches, else the first one
        first = next((k["name"] for k in kernels if k.get("launches")), kernels[0]["name"] if kernels else None)
        for eid, want, kernel in expect:
            k = kernel or first
            got = statuses.get(k, {}).get(eid)
            if got != want:
                problems.append("# expect: %s %s %s: got %s" % (eid, want, k, got or "no such kernel or id"))
        for eid in sorted({e[0] for e in expect}):
            marked = {n + 1: marks(l)[eid] for n, l in enumerate(lines) if eid in marks(l)}
            at = found.get(eid, {})
            for line in sorted(set(at) - set(marked)):
                problems.append("line %d: a %s finding on a line not marked # @%s" % (line, eid, eid))
            for line in sorted(set(marked) - set(at)):
                problems.append("line %d: marked # @%s, no %s finding there" % (line, eid, eid))
            if any(marked.values()):
                for line in sorted(set(marked) & set(at)):
                    if marked[line] != at[line]:
                        problems.append("line %d: the %s finding should %sbe a note" %
                                        (line, eid, "" if marked[line] else "not "))
    for allowed in only:
        ok = set(allowed.split(","))
        extra = sorted(set(found) - ok)
        if extra:
            problems.append("# only-applies: %s, and %s found" % (allowed, ", ".join(extra)))
    return problems


def planned(case):
    n = 1
    d = case.diff
    if d is None and re.search(r"^# (expect|only-applies): ", E.text_of(case.source), re.M):
        n += 1
    if d is not None:
        n += 1 if d.attrs.get("profile") or d.attrs.get("guided") else 2
    return n


def check_case(ta, tap, case, tmp, n, update):
    name = "%s %s" % (case.md.id, case.title)
    d = fresh(tmp, case, n)
    # what --check prints
    rc, out, err = run(ta, CHECK + [case.title], d)
    got = "$ tileadvise %s %s\n" % (" ".join(CHECK), case.title) + out + err
    if case.console is None:
        tap.result(False, "%s: diagnostics as expected" % name, ["%s: no console block" % case.where])
    elif update:
        E.set_body(case.console, got)
        tap.result(rc in (0, 1), "%s: diagnostics written" % name, ["exit %d" % rc])
    else:
        tap.result(rc in (0, 1) and case.console.body == got, "%s: diagnostics as expected" % name,
                   ["exit %d (%s)" % (rc, case.where)] + udiff(case.console.body, got))
    text = E.text_of(case.source)
    diff = case.diff
    if diff is None and re.search(r"^# (expect|only-applies): ", text, re.M):
        problems = expectations(ta, case, d, tmp)
        tap.result(not problems, "%s: # expect, # @ID and # only-applies lines hold" % name, problems)
    if diff is None:
        return
    spec = diff.attrs.get("edit")
    crlf = case.source.attrs.get("crlf")
    rc, out, err = run(ta, ["--diff", spec, "--unsafe-fixes", case.title], d)
    if crlf:
        out = out.replace("\r\n", "\n")
    if diff.attrs.get("profile"):
        try:
            E.apply_diff(text, diff.body)
            bad = []
        except ValueError as e:
            bad = [str(e)]
        good = rc == 2 and "needs a profile" in err and not out and not bad
        tap.result(good, "%s: --diff %s refuses without a profile; the advisor's diff applies" % (name, spec),
                   ["exit %d: %s" % (rc, err.strip())] + bad)
        return
    if update and rc == 0:
        E.set_body(diff, out)
    tap.result(rc == 0 and diff.body == out, "%s: --diff %s prints the diff" % (name, spec),
               ["exit %d: %s (%s)" % (rc, err.strip(), case.where)] + udiff(diff.body, out))
    if diff.attrs.get("guided"):
        return
    try:
        want = E.encode(E.apply_diff(text, diff.body), case.source.attrs)
    except ValueError as e:
        tap.result(False, "%s: --apply %s writes the diff's bytes" % (name, spec), [str(e)])
        return
    d = fresh(tmp, case, -n)
    rc, out, err = run(ta, ["--apply", spec, "--unsafe-fixes", case.title], d)
    with open(os.path.join(d, case.title), "rb") as f:
        wrote = f.read()
    why = ["exit %d: %s" % (rc, err.strip())]
    if wrote != want:
        why += udiff(want.decode("utf-8", "replace"), wrote.decode("utf-8", "replace"))
        if len(why) == 1:
            why.append("the same text, other bytes (line ends, byte order mark, last newline)")
    tap.result(rc == 0 and wrote == want, "%s: --apply %s writes the diff's bytes" % (name, spec), why)


def main():
    srcdir = os.environ.get("TA_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
    ta = os.environ.get("TILEADVISE")
    if not ta:
        # by hand: the build folder named, else ./setup's, else an in-tree build
        builds = [os.environ.get("TA_BUILDDIR"), os.path.join(srcdir, "_build"), srcdir]
        ta = next((os.path.join(b, "src", "tileadvise") for b in builds
                   if b and os.access(os.path.join(b, "src", "tileadvise"), os.X_OK)),
                  os.path.join(srcdir, "src", "tileadvise"))
    # each case runs in its own folder: a relative path would not be found
    ta = os.path.abspath(ta) if os.sep in ta else shutil.which(ta) or ta
    if not os.access(ta, os.X_OK):
        print("Bail out! no tileadvise binary at %s (set TILEADVISE)" % ta)
        return 1
    update = os.environ.get("TA_UPDATE_ENTRIES") == "1"
    ids = [a.upper() if re.match(r"^[a-z][0-9]+$", a) else a for a in sys.argv[1:]]
    try:
        files = E.entries(os.path.join(srcdir, "tests", "entries"), ids)
    except ValueError as e:
        print("Bail out! %s" % e)
        return 1
    cases = [c for e in files for c in e.cases]
    print("1..%d" % sum(planned(c) for c in cases))
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="ta-entries-")
    try:
        for n, c in enumerate(cases, 1):
            check_case(ta, tap, c, tmp, n, update)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if update:
        for e in files:
            if e.write():
                print("# wrote %s" % os.path.relpath(e.path, srcdir))
    if tap.failed:
        print("# %d of %d checks failed%s" % (tap.failed, tap.n, "" if update else
              " (TA_UPDATE_ENTRIES=1 %s writes what the binary prints now)" % os.path.relpath(__file__, srcdir)))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
