#!/usr/bin/env python3
"""Does the static walk reach the same levers on every spelling of a kernel?
(issue 27, item 3; run by tests/meta/walk_same.sh, which prints its TAP.)

For every naive kernel of tests/gpu/kernels (naive_*.py, and the population
pop_*.py) and every bundled example the recorded walks use (examples/*/*.py), tests/meta/variants.py
writes its meaning-preserving variants; then for the original and for each
variant, in a folder of its own:

  - `tileadvise --check --fixes --format=json`: per entry id, how many
    findings, and of the mechanical ones how many --apply offers to make
    (fix.available) and how many it refuses;
  - the mechanical walk as tests/gpu/walkpays.sh makes it: every mechanical
    entry in --list-rules order applied with --unsafe-fixes at every site it
    offers (12 at most), one after the other; per entry the sites applied,
    how many distinct tiles its diff tunes (`"NAME": 64` in added lines) and
    how many the grid reads (`META["NAME"]`); and whether the walked file
    still parses.

  - where a recorded H200 stream of the file's kernels exists
    (tests/recordings/h200-*-example-NAME.jsonl, the bundled examples), the
    measured walk, `tileadvise --walk --keep-neutral --unsafe-fixes` on that
    stream: each step the advisor tries, in its order, and whether it is
    kept or not made (every run measures the same, so every step made is
    kept), with the tiles and grid reads of its diff as above.

These are the levers. A variant must reach the same ones as its original;
a difference is a failure unless tests/meta/expected-differences.txt lists
it (kernel, transform, lever, original's value, variant's value, why), and a
listed difference that is no longer seen fails too, so that the list shrinks
as the detectors learn to follow values instead of spellings.

Usage: walk_same.py [--list] [--jobs N] [--keep DIR] [FILE...]
  --list     print every difference seen, in the expected file's form (the
             reasons of the lines already there kept, new ones "TODO"), and
             exit 0: `tests/meta/walk_same.py --list > new.txt` to review
  --jobs N   tileadvise runs in parallel (default $META_JOBS, else 2)
  --keep DIR keep the variants and the walks in DIR
The binary is $TILEADVISE (else _build/src/tileadvise), the tree $TA_SRCDIR
(else this script's ../..)."""
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # the source tree stays as it is (read-only in distcheck)
import variants  # noqa: E402

SRCDIR = os.environ.get("TA_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
TA = os.environ.get("TILEADVISE") or os.path.join(SRCDIR, "_build", "src", "tileadvise")
EXPECTED = os.path.join(HERE, "expected-differences.txt")
MIN_VARIANTS = 8
MAX_SITES = 12
# META_FULL_WALK=1: every variant's walk tries every mechanical entry, as tests/gpu/walkpays.sh does
# (slower); by default only the originals' are made both ways, and must agree
FULL_WALK = os.environ.get("META_FULL_WALK") == "1"
PREVIEW = set()  # the entries in preview (--list-rules)
# Left out of the check levers: P1, as since it went to preview (2026-12-05).
# The entries that joined it on 2026-12-07 (S1, P2, P3, ...) are the walk's
# main levers and stay compared, as --check --preview reports them.
CHECK_LEFT_OUT = {"P1"}


def run(args, cwd):
    p = subprocess.run([TA] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def rules():
    """The mechanical entries in --list-rules order, and the entries in preview."""
    rc, out, _ = run(["--list-rules"], SRCDIR)
    ids, preview = [], set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[2] == "mechanical":
            ids.append(f[0])
        if len(f) >= 5 and f[4] == "preview":
            preview.add(f[0])
    return ids, preview


TILE_RE = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_]*)["']\s*:\s*-?\d+""")
META_RE = re.compile(r"""\b[A-Za-z_][A-Za-z0-9_]*\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]""")


def records_for(path):
    """The recorded H200 stream of an example's kernels, or None."""
    base = os.path.basename(path)[:-3]
    found = sorted(glob.glob(os.path.join(SRCDIR, "tests", "recordings", f"h200-*-example-{base}.jsonl")))
    return found[-1] if found else None


def check_json(name, cwd):
    """(rc, diagnostics or None, stderr) of --check --preview --fixes --format=json."""
    rc, text, err = run(["--check", "--preview", "--fixes", "--format=json", name], cwd)
    try:
        return rc, json.loads(text).get("diagnostics", []), err
    except ValueError:
        return rc, None, err


def offered(name, cwd):
    """The entries --check --preview --fixes offers to edit at some site of the file, notes included (an
    S1 tile moved once per program outside the kernel's loop is a note, and its edit is still offered)."""
    rc, text, err = run(["--check", "--preview", "--show-notes", "--fixes", "--format=json", name], cwd)
    try:
        diags = json.loads(text).get("diagnostics", [])
    except ValueError:
        diags = []
    return {d.get("id") for d in diags if d.get("fix", {}).get("available")}


def walk(name, wdir, mech, guided, first=None):
    """The mechanical walk of wdir/name: {id: (sites, tiles, grid reads)} of the entries applied. Guided, an
    entry is tried only when --check offers it (checked again after each entry applied); else every
    mechanical entry is tried, as tests/gpu/walkpays.sh does."""
    steps = {}
    offers = (first if first is not None else offered(name, wdir)) if guided else None
    for i in mech:
        if guided and i not in offers:
            continue
        sites, tiles, metas = 0, set(), set()
        while sites < MAX_SITES:
            rc, text, err = run(["--apply", i, "--unsafe-fixes", name], wdir)
            if rc != 0:
                break
            sites += 1
            for line in text.splitlines():
                if line.startswith("+") and not line.startswith("+++"):
                    tiles |= set(TILE_RE.findall(line))
                    metas |= set(META_RE.findall(line)) if "META" in line else set()
        if sites:
            steps[i] = (sites, tiles, metas)
            if guided:
                offers = offered(name, wdir)
    return steps


def levers(path, work, mech, records=None, full=False):
    """The levers of one file, as {key: value}; full: the walk also made trying every entry, and where
    the two differ, "walk:guided-vs-full" says how."""
    os.makedirs(work, exist_ok=True)
    name = os.path.basename(path)
    out = {}
    cdir = os.path.join(work, "check")
    os.makedirs(cdir, exist_ok=True)
    shutil.copy(path, os.path.join(cdir, name))
    # one run with --preview: the walk's first offers; without the entries in preview, what
    # --check --fixes --format=json reports
    rc, diags, err = check_json(name, cdir)
    if diags is None:
        diags = []
        out["check:error"] = f"rc={rc} {err.strip()[:120]}"
    first = offered(name, cdir)
    per = {}
    # a finding that stands for several sites (S1, once per kernel) counts
    # each site, with its own fix: the levers are sites
    for d in [d for d in diags if d.get("id") not in CHECK_LEFT_OUT]:
        for site in d.get("sites") or [d]:
            e = per.setdefault(d.get("id", "?"), [0, 0, 0, False])
            e[0] += 1
            if "fix" in site:
                e[3] = True
                if site["fix"].get("available"):
                    e[1] += 1
                else:
                    e[2] += 1
    for i, (n, offers, refused, fix) in per.items():
        out[f"check:{i}"] = f"found={n} offered={offers} refused={refused}" if fix else f"found={n}"
    wdir = os.path.join(work, "walk")
    os.makedirs(wdir, exist_ok=True)
    f = os.path.join(wdir, name)
    shutil.copy(path, f)
    steps = walk(name, wdir, mech, guided=not FULL_WALK, first=first)
    for i, (sites, tiles, metas) in steps.items():
        out[f"walk:{i}"] = f"sites={sites}"
        if tiles:
            out[f"walk:{i}:tiles"] = str(len(tiles))
        if metas:
            out[f"walk:{i}:grid-reads"] = str(len(metas))
    if full and not FULL_WALK:
        fdir = os.path.join(work, "fullwalk")
        os.makedirs(fdir, exist_ok=True)
        shutil.copy(path, os.path.join(fdir, name))
        other = walk(name, fdir, mech, guided=False)
        if other != steps or open(os.path.join(fdir, name)).read() != open(f).read():
            out["walk:guided-vs-full"] = (f"guided {' '.join(f'{i}:{v[0]}' for i, v in steps.items())}; "
                                          f"every entry tried {' '.join(f'{i}:{v[0]}' for i, v in other.items())}")
    try:
        src = open(f).read()
        ast.parse(src)
        compile(src, name, "exec")
        out["walk:result"] = "parses"
    except SyntaxError as e:
        out["walk:result"] = f"does not parse (line {e.lineno}: {e.msg})"
    if records:
        mdir = os.path.join(work, "mwalk")
        os.makedirs(mdir, exist_ok=True)
        shutil.copy(path, os.path.join(mdir, name))
        # the walk's levers, in preview since 2026-12-07, but P1 (as before)
        rc, text, err = run(["--walk", "--preview", "--ignore=P1", "--gpu", "h200", "--records", records,
                             "--keep-neutral", "--unsafe-fixes", "--format=jsonl", name], mdir)
        events = []
        for line in text.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
        if not any(e.get("event") == "summary" for e in events):
            out["mwalk:error"] = f"rc={rc} {(err.strip().splitlines() or [''])[-1][:120]}"
        for e in events:
            i = e.get("id")
            if e.get("event") in ("kept", "reverted", "not_made") and i:
                out[f"mwalk:{i}"] = e["event"]
            if e.get("event") == "diff" and i:
                plus = [x for x in e.get("diff", "").splitlines() if x.startswith("+") and not x.startswith("+++")]
                tiles = set().union(*[set(TILE_RE.findall(x)) for x in plus]) if plus else set()
                metas = set().union(*[set(META_RE.findall(x)) for x in plus if "META" in x]) if plus else set()
                if tiles:
                    out[f"mwalk:{i}:tiles"] = str(len(tiles))
                if metas:
                    out[f"mwalk:{i}:grid-reads"] = str(len(metas))
    return out


def kernel_id(path):
    rel = os.path.relpath(path, SRCDIR)
    parts = rel.split(os.sep)
    if len(parts) == 3 and parts[0] == "examples" and parts[2] == parts[1] + ".py":
        return f"examples/{parts[1]}"
    if rel.startswith(os.path.join("tests", "gpu", "kernels") + os.sep):
        return os.path.basename(rel)[:-3]
    return rel[:-3] if rel.endswith(".py") else rel


def sources():
    kdir = os.path.join(SRCDIR, "tests", "gpu", "kernels")
    files = sorted(glob.glob(os.path.join(kdir, "naive_*.py")) + glob.glob(os.path.join(kdir, "pop_*.py")))
    files += sorted(glob.glob(os.path.join(SRCDIR, "examples", "*", "*.py")))
    return files


def read_expected(path):
    """{(kernel, transform, key): (original, variant, reason)}"""
    exp = {}
    if not os.path.exists(path):
        return exp
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) < 6:
            sys.stderr.write(f"{path}:{n}: want 6 tab-separated fields, got {len(f)}\n")
            continue
        exp[(f[0], f[1], f[2])] = (f[3], f[4], f[5])
    return exp


def main(argv):
    args = argv[1:]
    listing = False
    jobs = int(os.environ.get("META_JOBS", "2"))
    keep = None
    files = []
    while args:
        a = args.pop(0)
        if a == "--list":
            listing = True
        elif a == "--jobs":
            jobs = int(args.pop(0))
        elif a == "--keep":
            keep = args.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(os.path.abspath(a))
    default = not files
    files = files or sources()
    root = keep or tempfile.mkdtemp(prefix="ta-meta.")
    os.makedirs(root, exist_ok=True)
    try:
        return check(files, root, jobs, listing, default)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def check(files, root, jobs, listing, default):
    global PREVIEW
    mech, PREVIEW = rules()
    expected = read_expected(EXPECTED)
    plan = []  # (kernel id, transform or "original", path, work dir, records)
    rows = {}
    for path in files:
        kid = kernel_id(path)
        vdir = os.path.join(root, kid.replace("/", "__"), "variants")
        rows[kid] = (path, variants.variants(path, vdir))
        rec = records_for(path)
        plan.append((kid, "original", path, os.path.join(root, kid.replace("/", "__"), "original"), rec))
        for t, status, what in rows[kid][1]:
            if status == "ok":
                plan.append((kid, t, os.path.join(vdir, t + ".py"), os.path.join(root, kid.replace("/", "__"), t), rec))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(lambda p: levers(p[2], p[3], mech, p[4], full=p[1] == "original"), plan))
    sig = {(p[0], p[1]): r for p, r in zip(plan, results)}

    seen = {}
    for kid, t, _, _, _ in plan:
        if t == "original":
            continue
        a, b = sig[(kid, "original")], sig[(kid, t)]
        for key in sorted(set(a) | set(b)):
            va, vb = a.get(key, "-"), b.get(key, "-")
            if va != vb:
                seen[(kid, t, key)] = (va, vb)

    if listing:
        print("# kernel\ttransform\tlever\toriginal\tvariant\twhy (tests/meta/walk_same.py --list)")
        for k in sorted(seen):
            reason = expected.get(k, (None, None, "TODO"))[2]
            print("\t".join(k + seen[k] + (reason,)))
        return 0

    n_checks = 0
    lines = []
    failed = 0

    def ok(desc, good=True, comments=()):
        nonlocal n_checks, failed
        n_checks += 1
        if not good:
            failed += 1
        lines.append(f"{'ok' if good else 'not ok'} {n_checks} - {desc}")
        for c in comments:
            lines.append(f"# {c}")

    for kid, (path, vrows) in rows.items():
        made = [r for r in vrows if r[1] == "ok"]
        ok(f"{kid}: {len(made)} variants, each parses and differs from the original (at least {MIN_VARIANTS})",
           len(made) >= MIN_VARIANTS)
        orig = sig[(kid, "original")]
        gvf = orig.pop("walk:guided-vs-full", None)
        ok(f"{kid}: the original's walk is the same trying only what --check --preview --fixes offers as trying "
           f"every mechanical entry", gvf is None, [gvf] if gvf else [])
        walked = " ".join(f"{k[5:]}:{v[6:]}" for k, v in orig.items()
                          if k.startswith("walk:") and k.count(":") == 1 and k != "walk:result")
        lines.append(f"# {kid}: the original's walk: {walked or 'no step'}; {orig.get('walk:result')}")
        mwalked = " ".join(f"{k[6:]}:{v}" for k, v in orig.items() if k.startswith("mwalk:") and k.count(":") == 1)
        rec = records_for(path)
        lines.append(f"# {kid}: --walk on {os.path.relpath(rec, SRCDIR)}: {mwalked or 'no step'}" if rec else
                     f"# {kid}: no recorded stream of its kernels: no --walk")
        for t, status, what in vrows:
            if status != "ok":
                n_checks += 1
                lines.append(f"ok {n_checks} - {kid} {t} # SKIP not applicable: {what}")
                continue
            diff = {k[2]: v for k, v in seen.items() if k[0] == kid and k[1] == t}
            known = {k[2]: v for k, v in expected.items() if k[0] == kid and k[1] == t}
            unexpected, stale = [], []
            for key in sorted(set(diff) | set(known)):
                if key in diff and key in known and known[key][:2] == diff[key]:
                    continue
                if key in diff and key in known:
                    unexpected.append(f"{key}: original {diff[key][0]}, variant {diff[key][1]}; listed as "
                                      f"{known[key][0]} -> {known[key][1]}: update tests/meta/expected-differences.txt")
                elif key in diff:
                    unexpected.append(f"{key}: original {diff[key][0]}, variant {diff[key][1]} "
                                      f"(not in tests/meta/expected-differences.txt)")
                else:
                    stale.append(f"{key}: listed as {known[key][0]} -> {known[key][1]}, now the same: "
                                 f"remove the line from tests/meta/expected-differences.txt")
            if unexpected or stale:
                ok(f"{kid} {t}: the same levers as the original", False, unexpected + stale)
            elif diff:
                ok(f"{kid} {t}: the same levers but {len(diff)} known difference{'s' * (len(diff) > 1)}"
                   f" ({', '.join(sorted(diff))})")
            else:
                ok(f"{kid} {t}: the same levers as the original")
    # listed lines for kernels or transforms that no longer exist
    # (a kernel not in this tree, as in a distribution tarball without tests/gpu/kernels, is skipped)
    gone = [k for k in expected if k[0] in rows and (k[0], k[1]) not in sig]
    absent = sorted({k[0] for k in expected if k[0] not in rows})
    if absent and default:
        lines.append(f"# listed differences of kernels not in this tree, not checked: {', '.join(absent)}")
    ok("every line of tests/meta/expected-differences.txt names a kernel and variant made today", not gone,
       [f"{k[0]} {k[1]} {k[2]}: no such variant" for k in sorted(gone)])
    print(f"1..{n_checks}")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
