#!/usr/bin/env python3
"""Coverage of the checklist's detectors by the tests (issue 3).

Reads the `# expect: ID STATUS [KERNEL]` lines of every case with no edit in
tests/entries/*.md (the ones tests/entries/run.py checks) and the statuses the C evidence tests assert
(`status_of(r, "ID"), TA_STATUS_X` in tests/unit/test_rules.c), and prints a
table entry x status. Which statuses an entry must be covered for comes from
its detector in src/checklist/*.c: every TA_STATUS_* its function (and the
ta_status helpers it calls) can yield; an entry served by another through
ta_rule_serve() can yield `applies` plus what the server yields.

Exit status 1 when some entry lacks a status its detector can return (so
T1-T3, D4, D5, D7, D9, D11-D15, which never return `satisfied`, are not asked
for one; T4/T5 must show `needs baseline`, P7/D1 `needs profile`).

Usage: coverage.py SRCDIR   (prints TAP when --tap is given)
"""
import glob
import os
import re
import sys

STATUSES = ["applies", "satisfied", "n/a", "needs-profile", "needs-baseline"]
C_NAMES = {
    "TA_STATUS_APPLIES": "applies",
    "TA_STATUS_SATISFIED": "satisfied",
    "TA_STATUS_NOT_APPLICABLE": "n/a",
    "TA_STATUS_NEEDS_PROFILE": "needs-profile",
    "TA_STATUS_NEEDS_BASELINE": "needs-baseline",
}
HEAD = {"applies": "applies", "satisfied": "satisf", "n/a": "n/a",
        "needs-profile": "profile", "needs-baseline": "baseline"}


def c_functions(text):
    """{name: body} of every function returning ta_status in text."""
    out = {}
    for m in re.finditer(r"^(?:static\s+)?ta_status\s+(\w+)\s*\([^;{]*\)\s*\{", text, re.M):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = text[m.end():i]
    return out


def detector_statuses(srcdir):
    """{ID: set of statuses} from src/checklist/*.c and its entries.def."""
    funcs = {}
    for path in sorted(glob.glob(os.path.join(srcdir, "src/checklist/*.c"))):
        with open(path, encoding="utf-8") as f:
            funcs.update(c_functions(re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)))
    with open(os.path.join(srcdir, "src/checklist/entries.def"), encoding="utf-8") as f:
        table = re.findall(r'^ENTRY\((\w+),\s*(\w+),', f.read(), flags=re.M)
    if len(table) != 48:
        sys.exit("coverage.py: expected 48 entries in entries.def, found %d" % len(table))
    memo = {}

    def of(fn, seen=()):
        if fn in memo:
            return memo[fn]
        if fn in seen or fn not in funcs:
            return set()
        body = funcs[fn]
        got = {C_NAMES[t] for t in re.findall(r"TA_STATUS_[A-Z_]+", body) if t in C_NAMES}
        for callee in re.findall(r"\b(\w+)\s*\(", body):
            if callee != fn and callee in funcs and callee != "ta_rule_serve":
                got |= of(callee, seen + (fn,))
        for server in re.findall(r'ta_rule_serve\s*\(\s*c\s*,\s*"(\w+)"', body):
            s = of("ta_detect_" + server.lower(), seen + (fn,))
            got |= {"applies"} | {"satisfied" if x == "applies" else x for x in s}
        memo[fn] = got
        return got

    return [(eid, of("ta_detect_" + det)) for eid, det in table]


def covered(srcdir):
    """{ID: {status: [where, ...]}} from the entry files' cases and the C tests."""
    cov = {}
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(srcdir, "tests", "entries"))
    import entries
    for e in entries.entries(os.path.join(srcdir, "tests", "entries")):
        for c in e.cases:
            if c.diff is not None:
                continue
            for line in entries.text_of(c.source).split("\n"):
                m = re.match(r"# expect: (\w+) (\S+)(?: (\w+))?\s*$", line)
                if m:
                    cov.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(c.title)
    with open(os.path.join(srcdir, "tests/unit/test_rules.c"), encoding="utf-8") as f:
        ctext = f.read()
    for eid, st in re.findall(r'status_of\(r,\s*"(\w+)"\),\s*(TA_STATUS_[A-Z_]+)', ctext):
        cov.setdefault(eid, {}).setdefault(C_NAMES[st], []).append("test_rules.c")
    return cov


def main():
    args = [a for a in sys.argv[1:] if a != "--tap"]
    tap = "--tap" in sys.argv
    srcdir = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    need = detector_statuses(srcdir)
    cov = covered(srcdir)
    known = {eid for eid, _ in need}
    problems = []
    for eid in sorted(set(cov) - known):
        problems.append("%s: expected in a test but not a checklist entry" % eid)
    for eid, sts in cov.items():
        for st in sts:
            if st not in STATUSES:
                problems.append("%s: unknown status %r in %s" % (eid, st, ", ".join(sts[st])))
    lines = ["%-4s %s   fixtures" % ("id", " ".join("%-8s" % HEAD[s] for s in STATUSES))]
    missing = []
    for eid, can in need:
        have = cov.get(eid, {})
        cells = []
        for s in STATUSES:
            if s not in can:
                cells.append("-" if s not in have else "!")
            elif s in have:
                cells.append("%d" % len(have[s]))
            else:
                cells.append("MISSING")
                missing.append("%s %s" % (eid, s))
            if s not in can and s in have:
                problems.append("%s: tests expect %s, which its detector never returns" % (eid, s))
        files = sorted({f for s in have for f in have[s]})
        lines.append("%-4s %s   %s" % (eid, " ".join("%-8s" % x for x in cells), ", ".join(files)))
    lines.append("(number = how many expectations; - = the detector never returns it; "
                 "MISSING = no test)")
    problems += ["%s: no test" % m for m in missing]
    if tap:
        print("1..2")
        for l in lines:
            print("# " + l)
        print("%s 1 - every status each detector can return is tested%s" %
              ("not ok" if missing else "ok", (": missing " + ", ".join(missing)) if missing else ""))
        other = [p for p in problems if "no test" not in p]
        print("%s 2 - expectations name known entries and statuses%s" %
              ("not ok" if other else "ok", (": " + "; ".join(other)) if other else ""))
    else:
        print("\n".join(lines))
        for p in problems:
            print("coverage: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
