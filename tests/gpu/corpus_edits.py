"""Every mechanical edit tileadvise offers on public Triton kernels, applied one
site at a time on a fresh copy of the file, then checked on the GPU by the
project's own tests (a fixed sample of them), the file's own __main__ run, or,
for the bundled examples, a differential harness (tests/gpu/diff_examples.py).

  corpus_edits.py plan CORPUS WORK   find kernel files with a check, their
                                     mechanical sites (--check), apply each
                                     (--apply ID:LINE), keep the edited files
  corpus_edits.py run WORK OUTDIR    baseline each checked file unedited, then
                                     every applied site, in parallel; a site
                                     counts only where its baseline passed
  corpus_edits.py table WORK OUTDIR  the per-rule table again, from the plan
                                     and OUTDIR/results.jsonl
  corpus_edits.py skiplist RESULTS    the project/file of every baseline that
                                     failed in a results.jsonl (a probe's): a
                                     TA_SKIP_TARGETS file for the next run
  corpus_edits.py carry WORK OLD RESULTS...  which GPU results of an earlier
                                     run still hold for a new plan: OLD is
                                     that run's logs.tar.gz unpacked (plan.json,
                                     sites/N.diff), RESULTS its results.jsonl;
                                     a site keeps its result only where its
                                     diff is byte-for-byte the same; prints a
                                     per-project table and writes WORK/rerun.txt
                                     (TA_ONLY_SITES lines: changed, new, unrun)
  corpus_edits.py sitehashes LOGS    a run's applied sites with the sha256 of
                                     each diff's hunks (JSON on stdout), from
                                     its logs.tar.gz: what may be committed
                                     (the diffs hold the projects' code)
  corpus_edits.py holds WORK RUN...  what the GPU has verified of the plan in
                                     WORK over several runs: RUN is a run's
                                     logs.tar.gz or sitehashes list and its
                                     results, joined by = (SITES=RESULTS
                                     [,RESULTS...]); a site counts where its
                                     diff is the one that ran; prints a
                                     per-project table, every site whose diff
                                     failed, and the public projects' total
  corpus_edits.py classify LOG CHECK whether a failing check's output (CHECK:
                                     pytest, main or diff) stopped only at the
                                     edits' host contracts: contract, or fail

Environment: TA (the tileadvise binary), TA_JOBS (parallel jobs, default the
CPU count), TA_SAMPLE (test items a file, default 6), TA_TIMEOUT (seconds a
check, default 150), TA_DEADLINE (seconds for the whole run; jobs not started
by then are reported as not run), TA_MAX_SITES (sites run on the GPU at most,
spread over projects and rules first), TA_PROJECTS (comma list to keep),
TA_BASELINE_ONLY=1 (check the unedited files only: a probe), TA_SKIP_TARGETS
(a file of project/file lines not to check), TA_BASE_JOBS (baselines at once),
TA_TIMEOUT_CAP (seconds no check exceeds, per-file overrides included),
TA_ONLY_TARGETS (a file of project/file lines: plan and check only these),
TA_MAX_PER_FILE (applied sites of one file run at most), TA_ONLY_SITES (a file
of project/file:RULE:LINE lines: run only these sites, e.g. the ones whose
diff changed since an earlier run; their files' baselines run as usual).
"""
import collections
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TA = os.environ.get("TA", os.path.join(ROOT, "_build", "src", "tileadvise"))
JOBS = int(os.environ.get("TA_JOBS", os.cpu_count() or 4))
SAMPLE = os.environ.get("TA_SAMPLE", "6")
TIMEOUT = int(os.environ.get("TA_TIMEOUT", "150"))
# No check runs longer than this, per-file overrides included (a probe's bound).
TIMEOUT_CAP = int(os.environ.get("TA_TIMEOUT_CAP", "100000"))
# pytest carried as plain files (.whl/pylib), used only where the machine has none.
PYLIB = [] if subprocess.run([sys.executable, "-c", "import pytest"], capture_output=True).returncode == 0 \
    else [os.path.join(ROOT, ".whl", "pylib")]

# Per project: extra pytest arguments and environment its tests need here;
# "lazy": top-level packages whose __init__.py runs only when a name it
# defines is read (ta_lazy.py: lightllm's pull in every model and its web
# server, absent here, before the kernel's own module); "standins": the
# tests/gpu/standins folder last on the path (frozendict, easydict: two
# containers lightllm imports, see its README); "files": per-file overrides
# ({regex on the file: {"sample": items, "timeout": seconds}}).
PROJECT = {
    # The tests import the package under its old name inside Triton.
    "triton-lang+kernels": {"env": {"TA_ALIAS": "triton.ops=kernels,triton.ops.blocksparse=kernels.blocksparse"}},
    "ModelTC+lightllm": {"lazy": "lightllm", "standins": True},
    # The SSD kernels' tests (determinism of the backward kernels, each item
    # autotuning them) took over 100 s for 4 items: 2 items, 240 s.
    "state-spaces+mamba": {"files": {r"/ssd_": {"sample": 2, "timeout": 240}}},
    # Each test item compiles the forward and backward kernels of a whole
    # layer (over a minute in the first probe): 1 item, 240 s (an autotuned
    # edit compiles each of its configs too).
    "fla-org+flash-linear-attention": {"sample": 1, "timeout": 240},
    # The MLP tests build whole model blocks: 2 items, 200 s.
    "linkedin+Liger-Kernel": {"files": {r"/(mlp|swiglu|fused_moe_kernels)\.py$": {"sample": 2, "timeout": 200}}},
}


def options(t):
    """The project's entry for a target, its per-file overrides applied."""
    o = dict(PROJECT.get(t["project"], {}))
    for rx, v in o.pop("files", {}).items():
        if re.search(rx, "/" + t["file"]):
            o.update(v)
    return o


# Vendor back-end copies that no test on this GPU reaches.
SKIP_DIR = re.compile(r"/(backends?/_(?!nvidia)[a-z]+|_ascend|_cambricon|_mthreads|_kunlunxin|_metax|_iluvatar|"
                      r"_hygon|_aipu|_tsingmicro|_arm|_sunrise|_enflame|_amd)/")
# Folders that say where code lives, not which kernel it is.
PLAIN_DIRS = {"ops", "kernels", "kernel", "triton", "triton_kernel", "triton_src", "src", "utils", "common",
              "fused", "experimental", "modules", "layers", "implementations", "csrc", "lib"}
OTHER_BACKEND = re.compile(r"cutedsl|cutile|_cute|npu|xpu|ascend|musa|tilelang")
TEST_NAME = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
# Benchmarks and whole-model convergence runs are not correctness checks.
NOT_CHECK = re.compile(r"(^|/)(benchmarks?|convergence|perf)(/|$)|_(perf|speed)\.py$|(^|/)bench")


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def mechanical():
    out = sh([TA, "--list-rules"]).stdout
    return [l.split()[0] for l in out.splitlines() if len(l.split()) > 2 and l.split()[2] == "mechanical"]


def py_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("__pycache__", "node_modules")]
        for f in files:
            if f.endswith(".py"):
                yield os.path.relpath(os.path.join(d, f), root)


def read(p):
    try:
        with open(p, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def module_name(rel):
    parts = rel[:-3].split("/")
    if parts[0] in ("src", "python"):
        parts = parts[1:]
    return ".".join(parts)


def core_word(stem):
    w = re.sub(r"^(triton_|fused_)", "", stem)
    w = re.sub(r"(_kernels?|_triton|_layers?|_ops?|_impl)$", "", w)
    return w


def find_check(root, rel, tests, text, generic=False):
    """The check for one kernel file: ('pytest', [test files], keyword) or
    ('main', None, None), or None. Tests that import the module come first,
    then tests named after it, then tests with a test function named after it."""
    if TEST_NAME.search(rel):
        return ("pytest", [rel], "")
    mod = module_name(rel)
    stem = os.path.basename(rel)[:-3]
    word = core_word(stem)
    parent, _, last = mod.rpartition(".")
    imp = re.compile(r"(from\s+%s\s+import|import\s+%s\b|from\s+%s\s+import\s+[^\n]*\b%s\b)"
                     % (re.escape(mod), re.escape(mod), re.escape(parent), re.escape(last)))
    hits = [t for t, s in tests.items() if parent and imp.search(s)]
    # A test named after the file comes first even where it imports the
    # kernel through its package (`from liger_kernel.ops import X`), and
    # tests of another back-end's copy (cutedsl, cutile, npu) last.
    exact = {f"test_{stem}.py", f"test_{word}.py", f"{stem}_test.py"}
    hits += [t for t in tests if os.path.basename(t) in exact and t not in hits]
    if not hits and len(word) >= 3:
        hits = [t for t in tests if word in os.path.basename(t)]
    if not hits and len(word) >= 4:
        fn = re.compile(r"def test_\w*%s" % re.escape(word))
        hits = [t for t, s in tests.items() if fn.search(s)]
    if hits:
        hits.sort(key=lambda t: (bool(OTHER_BACKEND.search(t)), os.path.basename(t) not in exact,
                                 word not in os.path.basename(t), len(t)))
        # Test ids seldom carry a project prefix of the file name
        # (ssd_chunk_scan.py, tested as "chunk_scan_bwd_dx"): that word next.
        words = [word]
        if "_" in word and len(word.split("_", 1)[1]) >= 6:
            words.append(word.split("_", 1)[1])
        # A name the project gives many files (fla's chunk.py, parallel.py
        # in one folder per model): the folder names the kernel's tests.
        folder = os.path.basename(os.path.dirname(rel))
        if generic and len(folder) >= 3 and folder not in PLAIN_DIRS:
            words.insert(0, folder)
        return ("pytest", hits[:2], "|".join(words))
    if re.search(r"^if __name__ == .__main__.:", text, re.M):
        return ("main", None, None)
    return None


def plan(corpus, work):
    mech = mechanical()
    os.makedirs(work, exist_ok=True)
    keep = set(filter(None, os.environ.get("TA_PROJECTS", "").split(",")))
    only = set(read(os.environ["TA_ONLY_TARGETS"]).split()) if os.environ.get("TA_ONLY_TARGETS") else None
    targets = []
    for proj in sorted(os.listdir(corpus)):
        root = os.path.join(corpus, proj)
        if not os.path.isdir(root) or (keep and proj not in keep):
            continue
        files = list(py_files(root))
        stems = collections.Counter(os.path.basename(f) for f in files
                                    if not TEST_NAME.search(f) and not SKIP_DIR.search("/" + f))
        tests = {f: read(os.path.join(root, f)) for f in files if TEST_NAME.search(f) and not NOT_CHECK.search(f)}
        for rel in files:
            if SKIP_DIR.search("/" + rel):
                continue
            text = read(os.path.join(root, rel))
            if "triton.jit" not in text and "triton.autotune" not in text:
                continue
            if proj == "examples":
                chk = ("diff", None, None)
            else:
                chk = find_check(root, rel, tests, text, generic=stems[os.path.basename(rel)] >= 3)
            if chk and (only is None or proj + "/" + rel in only):
                targets.append({"project": proj, "file": rel, "check": chk[0], "tests": chk[1], "word": chk[2]})
    if os.environ.get("TA_PLAN_NO_SITES"):  # a probe of the checks alone
        for ti, t in enumerate(targets):
            t["id"] = ti
        with open(os.path.join(work, "plan.json"), "w") as f:
            json.dump({"targets": targets, "sites": [], "corpus": os.path.abspath(corpus)}, f, indent=0)
        print(f"plan: {len(targets)} checked files, sites not looked for")
        return
    # Sites: every mechanical finding of --check, one (id, line) once.
    def sites_of(t):
        path = os.path.join(corpus, t["project"], t["file"])
        r = sh([TA, "--check", "-f", "json", "--select=" + ",".join(mech), path])
        try:
            diags = json.loads(r.stdout)["diagnostics"]
        except ValueError:
            return []
        seen, out = set(), []
        for d in diags:
            k = (d.get("id"), d.get("line"))
            if k[0] in mech and k not in seen:
                seen.add(k)
                out.append(k)
        return out
    unsafe_flag = "--unsafe-fixes" in sh([TA, "--help"]).stdout
    def apply(t, rid, line, n):
        src = os.path.join(corpus, t["project"], t["file"])
        d = tempfile.mkdtemp(prefix="ta-apply.")
        # The file where it sits in its project, with the __init__.py of its
        # package folders and the project's declared requirements: edits
        # read them (P1's aten-package check, the Triton version a
        # descriptor needs). .git bounds the search at the copy's root.
        proj = os.path.join(corpus, t["project"])
        dst = os.path.join(d, t["file"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.makedirs(os.path.join(d, ".git"), exist_ok=True)
        shutil.copyfile(src, dst)
        rel = os.path.dirname(t["file"])
        while rel:
            init = os.path.join(proj, rel, "__init__.py")
            if os.path.isfile(init):
                shutil.copyfile(init, os.path.join(d, rel, "__init__.py"))
            rel = os.path.dirname(rel)
        for f in os.listdir(proj):
            if f in ("pyproject.toml", "setup.py") or (f.startswith("requirements") and f.endswith(".txt")):
                shutil.copyfile(os.path.join(proj, f), os.path.join(d, f))
        r = sh([TA, "--apply", f"{rid}:{line}", dst])
        unsafe = False
        if r.returncode != 0 and unsafe_flag and "unsafe" in (r.stdout + r.stderr).lower():
            shutil.copyfile(src, dst)
            r = sh([TA, "--apply", f"{rid}:{line}", "--unsafe-fixes", dst])
            unsafe = r.returncode == 0
        site = {"n": n, "project": t["project"], "file": t["file"], "rule": rid, "line": line,
                "rc": r.returncode, "unsafe": unsafe,
                "message": (r.stderr.strip().splitlines() or [""])[-1].replace(dst, t["file"])[:300]}
        if r.returncode == 0 and read(dst) != read(src):
            sd = os.path.join(work, "sites", str(n))
            os.makedirs(sd, exist_ok=True)
            shutil.copyfile(dst, os.path.join(sd, "edited.py"))
            diff = sh(["diff", "-u", "--label", "a/" + t["file"], "--label", "b/" + t["file"], src, dst]).stdout
            with open(os.path.join(sd, "diff"), "w") as f:
                f.write(diff)
            site["applied"] = True
        else:
            site["applied"] = False
            if r.returncode == 0:
                site["message"] = "exit 0 but the file is unchanged"
        shutil.rmtree(d, ignore_errors=True)
        return site
    with cf.ThreadPoolExecutor(JOBS) as ex:
        found = list(ex.map(sites_of, targets))
        jobs, n = [], 0
        for ti, (t, ss) in enumerate(zip(targets, found)):
            t["id"] = ti
            for rid, line in ss:
                jobs.append((t, rid, line, n))
                n += 1
        sites = list(ex.map(lambda j: apply(*j), jobs))
    for s, j in zip(sites, jobs):
        s["target"] = j[0]["id"]
    with open(os.path.join(work, "plan.json"), "w") as f:
        json.dump({"targets": targets, "sites": sites, "corpus": os.path.abspath(corpus)}, f, indent=0)
    c = collections.Counter((s["project"], s["applied"]) for s in sites)
    for p in sorted({s["project"] for s in sites}):
        print(f"plan: {p}: {c[(p, True)]} applied, {c[(p, False)]} refused")
    print(f"plan: {len(targets)} checked files, {len(sites)} sites, {sum(s['applied'] for s in sites)} applied")


def pick(sites, cap, per_file=None):
    """At most cap applied sites, round-robin over (project, rule) so that a
    short run still covers every project and rule; at most per_file sites
    of one file (its rules taken in turn), so that a file with many sites
    and a slow check does not take the run's time from the others."""
    if per_file:
        byf = collections.OrderedDict()
        for s in sites:
            byf.setdefault((s["project"], s["file"]), collections.OrderedDict()).setdefault(s["rule"], []).append(s)
        kept = set()
        for rules in byf.values():
            n = 0
            while n < per_file and any(rules.values()):
                for g in rules.values():
                    if g and n < per_file:
                        kept.add(id(g.pop(0)))
                        n += 1
        sites = [s for s in sites if id(s) in kept]
    groups = collections.OrderedDict()
    for s in sites:
        groups.setdefault((s["project"], s["rule"]), []).append(s)
    # Within a group, alternate files so one big file does not take the group.
    for k, g in groups.items():
        byfile = collections.OrderedDict()
        for s in g:
            byfile.setdefault(s["file"], []).append(s)
        mixed = []
        while any(byfile.values()):
            for f in byfile:
                if byfile[f]:
                    mixed.append(byfile[f].pop(0))
        groups[k] = mixed
    out = []
    while len(out) < cap and any(groups.values()):
        for k in groups:
            if groups[k] and len(out) < cap:
                out.append(groups[k].pop(0))
    return out


def tree_for(corpus, work, t, edited=None, tag="base"):
    """A copy of the project (hard links, so cheap) with the kernel file
    replaced by the edited one."""
    src = os.path.join(corpus, t["project"])
    dst = os.path.join(work, "trees", tag)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    subprocess.run(["cp", "-al", src, dst], check=True)
    if edited:
        f = os.path.join(dst, t["file"])
        os.unlink(f)
        shutil.copyfile(edited, f)
    return dst


def run_check(corpus, work, t, tree, only=None, passed=None):
    env = dict(os.environ)
    extra = options(t)
    env.update(extra.get("env", {}))
    paths = [tree, os.path.join(tree, "src"), HERE] + PYLIB + [env.get("PYTHONPATH", "")]
    if extra.get("standins"):  # last: an installed package wins
        paths.append(os.path.join(HERE, "standins"))
    env["PYTHONPATH"] = ":".join(p for p in paths if p)
    if extra.get("lazy"):
        env["TA_LAZY_PKGS"] = extra["lazy"]
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["HOME"] = os.path.join(tree, ".home")  # projects that cache to ~ write beside the copy
    if t["check"] == "pytest":
        env["TA_SAMPLE"] = str(extra.get("sample", SAMPLE))
        env["TA_KEYWORD"] = t["word"] or ""
        env["TA_FILE"] = os.path.join(tree, t["file"])  # ta_sample says whether the run reaches it
        if only:
            env["TA_ONLY"] = only
        if passed:
            env["TA_PASSED"] = passed
        cmd = [sys.executable, "-m", "pytest", "-p", "ta_sample", "-p", "no:cacheprovider", "-q", "-rfE",
               "--rootdir", tree] + extra.get("args", []) + [os.path.join(tree, x) for x in t["tests"]]
        cwd = tree
    elif t["check"] == "main":
        # ta_main.py: as `python -m pkg.mod` from the project root where the
        # file imports relatively, else as the script it is.
        cmd = [sys.executable, os.path.join(HERE, "ta_main.py"), tree, os.path.join(tree, t["file"])]
        cwd = os.path.dirname(os.path.join(tree, t["file"]))
    else:  # the bundled examples: differential harness
        name = os.path.basename(t["file"])[:-3]
        cmd = [sys.executable, os.path.join(HERE, "diff_examples.py"), name,
               os.path.join(corpus, t["project"], t["file"]), os.path.join(tree, t["file"])]
        cwd = tree
    t0 = time.time()
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=min(extra.get("timeout", TIMEOUT), TIMEOUT_CAP))
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")) + \
              ((e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or ""))
    return rc, out, time.time() - t0


def summary_line(out):
    lines = [l for l in out.strip().splitlines() if l.strip() and not l.startswith("ta_sample: ")]
    for l in reversed(lines):
        if re.search(r"\b(passed|failed|error|no tests ran)\b", l) and "=" in l:
            return l.strip("= ")[:200]
    return (lines[-1] if lines else "")[:200]


# The asserts the edits write as host contracts (S1's TMA rules, P6's
# tl.assume): a check that stops there stopped at the edit's stated
# assumption, loudly, rather than computing something else.
CONTRACT = re.compile(r"AssertionError: .*(through a TMA tensor descriptor: its |: tl\.assume\(.*\) needs it)")
FAIL_HEAD = re.compile(r"^_+ (.+?) _+$")


def contract_stop(out, check):
    """True when every failure in a check's output is an AssertionError one
    of the edits' host contracts raised; any other failure (a wrong value,
    a crash, a compile error) keeps the site 'newly failing'."""
    lines = out.splitlines()
    if check == "diff":
        bad = [l for l in lines if "EDITED RAISED" in l or " DIFFERS" in l]
        return bool(bad) and all("EDITED RAISED" in l and CONTRACT.search(l) for l in bad)
    if check == "main":
        errs = [l for l in lines if re.match(r"^\w*(Error|Exception)\b", l)]
        return bool(errs) and bool(CONTRACT.search(errs[-1]))
    m = re.search(r"(\d+) failed", summary_line(out))
    e = re.search(r"(\d+) errors?\b", summary_line(out))
    nfail = (int(m.group(1)) if m else 0) + (int(e.group(1)) if e else 0)
    if not nfail or "= FAILURES =" not in out and "= ERRORS =" not in out:
        return False
    # the failure sections between "FAILURES"/"ERRORS" and the next ==== line
    sections, cur, inside = [], None, False
    for l in lines:
        if re.match(r"^=+ (FAILURES|ERRORS) =+$", l):
            inside = True
            continue
        if inside and re.match(r"^=+ .* =+$", l):
            inside = False
        if not inside:
            continue
        if FAIL_HEAD.match(l):
            cur = []
            sections.append(cur)
        elif cur is not None:
            cur.append(l)
    return len(sections) == nfail and all(
        any(l.startswith("E ") and CONTRACT.search(l) for l in sec) for sec in sections)


def timing(out):
    m = re.search(r"^time: original ([0-9.]+) ms, edited ([0-9.]+) ms", out, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def run(work, outdir):
    P = json.load(open(os.path.join(work, "plan.json")))
    corpus = os.environ.get("TA_CORPUS", P["corpus"])  # a plan made on another machine
    targets = {t["id"]: t for t in P["targets"]}
    applied = [s for s in P["sites"] if s["applied"] and targets[s["target"]]["check"] in ("pytest", "main", "diff")]
    # Files whose unedited check is known to fail here (an earlier probe):
    # "project/file" lines; their sites are reported as not run.
    skip = set(read(os.environ.get("TA_SKIP_TARGETS", "/nonexistent")).split())
    # Or only these files (a probe's list, in the order to start them).
    only = read(os.environ["TA_ONLY_TARGETS"]).split() if os.environ.get("TA_ONLY_TARGETS") else None
    key = {tid: t["project"] + "/" + t["file"] for tid, t in targets.items()}
    applied = [s for s in applied if key[s["target"]] not in skip and (only is None or key[s["target"]] in only)]
    sites_only = set(read(os.environ["TA_ONLY_SITES"]).split()) if os.environ.get("TA_ONLY_SITES") else None
    if sites_only is not None:
        applied = [s for s in applied if f"{key[s['target']]}:{s['rule']}:{s['line']}" in sites_only]
    cap = int(os.environ.get("TA_MAX_SITES", "100000"))
    chosen = pick(applied, cap, int(os.environ.get("TA_MAX_PER_FILE", "0")) or None)
    if os.environ.get("TA_BASELINE_ONLY"):  # a probe: every checked file, projects taken in turn
        if only is not None:
            tid_of = {k: tid for tid, k in key.items()}
            chosen = [{"target": tid_of[k]} for k in only if k in tid_of and k not in skip]
        else:
            byp = collections.OrderedDict()
            for t in P["targets"]:
                if key[t["id"]] not in skip:
                    byp.setdefault(t["project"], []).append(t["id"])
            chosen = []
            while any(byp.values()):
                for p in byp:
                    if byp[p]:
                        chosen.append({"target": byp[p].pop(0)})
    deadline = time.time() + float(os.environ.get("TA_DEADLINE", "1e9"))
    os.makedirs(outdir, exist_ok=True)
    logdir = os.path.join(work, "logs")
    os.makedirs(logdir, exist_ok=True)
    results = open(os.path.join(outdir, "results.jsonl"), "w")
    by_target = collections.OrderedDict()
    for s in chosen:
        by_target.setdefault(s["target"], []).append(s)
    base = {}

    def log(name, text):
        with open(os.path.join(logdir, name), "w") as f:
            f.write(text[-20000:])  # the end says what failed; keep the logs small

    def do_base(tid):
        t = targets[tid]
        if time.time() > deadline:
            return tid, {"status": "not run"}
        tree = tree_for(corpus, work, t, tag=f"b{tid}")
        passed = os.path.join(work, f"passed-{tid}.txt")
        rc, out, dt = run_check(corpus, work, t, tree, passed=passed)
        log(f"base-{tid}.log", out)
        ok = rc == 0
        nids = read(passed).split() if t["check"] == "pytest" else []
        if t["check"] == "pytest" and nids:
            ok = True  # the items that passed become the check, failures there are the project's
        if t["check"] == "pytest" and not nids:
            ok = False
        shutil.rmtree(tree, ignore_errors=True)
        m = re.search(r"^ta_sample: reach (.*)$", out, re.M)
        return tid, {"status": "pass" if ok else "fail", "rc": rc, "secs": round(dt, 1), "items": len(nids),
                     "only": passed if nids else None, "summary": summary_line(out), "timing": timing(out),
                     "reach": m.group(1) if m else None}

    def do_site(s):
        t = targets[s["target"]]
        b = base[s["target"]]
        if time.time() > deadline:
            return s, {"status": "not run"}
        sd = os.path.join(work, "sites", str(s["n"]))
        tree = tree_for(corpus, work, t, edited=os.path.join(sd, "edited.py"), tag=f"s{s['n']}")
        rc, out, dt = run_check(corpus, work, t, tree, only=b.get("only"))
        log(f"site-{s['n']}.log", out)
        shutil.rmtree(tree, ignore_errors=True)
        st = "pass" if rc == 0 else ("timeout" if rc == "timeout" else "fail")
        if st == "fail" and contract_stop(out, t["check"]):
            st = "contract"
        return s, {"status": st, "rc": rc, "secs": round(dt, 1), "summary": summary_line(out), "timing": timing(out)}

    t_start = time.time()
    # Baselines go in a few at a time, so that the sites of a file whose
    # baseline passed queue ahead of the later baselines (a run cut short
    # by its deadline then still has whole files checked).
    todo = list(by_target)
    inflight = int(os.environ.get("TA_BASE_JOBS", max(2, JOBS // 3)))
    with cf.ThreadPoolExecutor(JOBS) as ex:
        pend = {ex.submit(do_base, todo.pop(0)) for _ in range(min(inflight, len(todo)))}
        while pend:
            done, pend = cf.wait(pend, return_when=cf.FIRST_COMPLETED)
            for fu in done:
                r = fu.result()
                if isinstance(r[0], int):  # a baseline finished: queue its sites
                    tid, b = r
                    if todo:
                        pend.add(ex.submit(do_base, todo.pop(0)))
                    base[tid] = b
                    t = targets[tid]
                    results.write(json.dumps({"kind": "baseline", "target": tid, "project": t["project"],
                                              "file": t["file"], "check": t["check"], "tests": t["tests"], **b}) + "\n")
                    for s in by_target[tid]:
                        if "n" not in s:  # a probe: baselines only
                            continue
                        if b["status"] == "pass":
                            pend.add(ex.submit(do_site, s))
                        else:
                            results.write(json.dumps({"kind": "site", **{k: s[k] for k in
                                          ("n", "project", "file", "rule", "line", "unsafe")},
                                          "status": "baseline " + b["status"]}) + "\n")
                else:
                    s, res = r
                    results.write(json.dumps({"kind": "site", **{k: s[k] for k in
                                  ("n", "project", "file", "rule", "line", "unsafe")}, **res}) + "\n")
                results.flush()
    results.close()
    print(f"run: {len(chosen)} sites chosen of {len(applied)} applied, {time.time() - t_start:.0f} s")
    table(work, outdir)


def table(work, outdir):
    """The per-rule table (markdown) from plan.json and results.jsonl. Safe
    edits (meaning kept for every input) either still pass or newly fail;
    unsafe ones (kept under a stated assumption, applied with
    --unsafe-fixes) still pass, stop at the host contract that states their
    assumption (an AssertionError the edit wrote: loud, its own column), or
    newly fail otherwise. 'Newly failing' sums both kinds."""
    P = json.load(open(os.path.join(work, "plan.json")))
    R = [json.loads(l) for l in open(os.path.join(outdir, "results.jsonl"))]
    siter = {r["n"]: r for r in R if r["kind"] == "site"}
    basepass = {r["target"] for r in R if r["kind"] == "baseline" and r["status"] == "pass"}
    rows = collections.OrderedDict()
    projs = collections.defaultdict(set)
    for s in P["sites"]:
        d = rows.setdefault(s["rule"], collections.Counter())
        d["offered"] += 1
        d["refused"] += not s["applied"]
        d["applied"] += s["applied"]
        d["applied unsafe"] += bool(s["applied"] and s.get("unsafe"))
        r = siter.get(s["n"])
        if not r:
            continue
        st = r["status"]
        kind = "unsafe" if r.get("unsafe", s.get("unsafe")) else "safe"
        if st in ("pass", "fail", "timeout", "contract"):
            d["run"] += 1
            projs[s["rule"]].add(s["project"])
            if st == "pass":
                d[kind + " pass"] += 1
            elif st == "fail":
                d[kind + " fail"] += 1
            elif st == "contract":
                # a safe edit has no stated assumption: stopping is failing
                d["unsafe contract" if kind == "unsafe" else "safe fail"] += 1
            else:
                d["timeout"] += 1
            if r.get("timing"):
                d["timed"] += 1
                d["t0"] += r["timing"][0]
                d["t1"] += r["timing"][1]
        else:
            d["no baseline"] += 1
    lines = ["| rule | offered | refused | applied (unsafe) | run (baseline passed) | safe: still passing | "
             "safe: newly failing | unsafe: still passing | unsafe: stopped by its contract | "
             "unsafe: newly failing | timed out | projects run | time before → after (ms, summed over timed sites) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    tot = collections.Counter()
    for rule in sorted(rows, key=lambda x: (x[0], int(x[1:]))):
        d = rows[rule]
        tot.update(d)
        tm = f"{d['t0']:.3f} → {d['t1']:.3f} ({d['timed']} sites)" if d["timed"] else "—"
        lines.append(f"| {rule} | {d['offered']} | {d['refused']} | {d['applied']} ({d['applied unsafe']}) | "
                     f"{d['run']} | {d['safe pass']} | {d['safe fail']} | {d['unsafe pass']} | "
                     f"{d['unsafe contract']} | {d['unsafe fail']} | {d['timeout']} | {len(projs[rule])} | {tm} |")
    allp = set().union(*projs.values()) if projs else set()
    lines.append(f"| **all** | {tot['offered']} | {tot['refused']} | {tot['applied']} ({tot['applied unsafe']}) | "
                 f"{tot['run']} | {tot['safe pass']} | {tot['safe fail']} | {tot['unsafe pass']} | "
                 f"{tot['unsafe contract']} | {tot['unsafe fail']} | {tot['timeout']} | {len(allp)} | |")
    byp = collections.Counter()
    for r in siter.values():
        if r["status"] in ("pass", "fail", "timeout", "contract"):
            byp[r["project"]] += 1
    lines.append("")
    lines.append(f"Newly failing: {tot['safe fail'] + tot['unsafe fail']} ({tot['safe fail']} safe, "
                 f"{tot['unsafe fail']} unsafe); stopped by a stated contract: {tot['unsafe contract']}; "
                 f"still passing: {tot['safe pass'] + tot['unsafe pass']}; timed out: {tot['timeout']}")
    lines.append("Sites run per project: " + ", ".join(f"{p} {n}" for p, n in sorted(byp.items())))
    lines.append(f"Checked files whose unedited original passed: {len(basepass)}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(text)
    print(text)


def carry(work, old, results):
    """Earlier GPU results that still hold for the plan in work: a site's
    result carries over only where its diff (hunks, not the path headers)
    is the same as the one that ran."""
    def hunks(path):
        return hunks_of(read(path))
    key = lambda s: (s["project"], s["file"], s["rule"], s["line"])
    P0 = json.load(open(os.path.join(old, "plan.json")))
    status, basepass = {}, set()
    for rp in results:
        for l in open(rp):
            r = json.loads(l)
            if r["kind"] == "site" and r["status"] != "not run":
                status[r["n"]] = r["status"]
            if r["kind"] == "baseline" and r["status"] == "pass":
                basepass.add((r["project"], r["file"]))
    before = {key(s): s for s in P0["sites"] if s["applied"]}
    P = json.load(open(os.path.join(work, "plan.json")))
    now = {key(s): s for s in P["sites"] if s["applied"]}
    rows = collections.defaultdict(collections.Counter)
    rerun = []
    for k, s in sorted(now.items()):
        o = before.get(k)
        same = o is not None and hunks(os.path.join(old, "sites", f"{o['n']}.diff")) == \
            hunks(os.path.join(work, "sites", str(s["n"]), "diff"))
        st = status.get(o["n"], "not run") if same else ("changed" if o else "new")
        rows[k[0]][st] += 1
        if st in ("changed", "new") or (st == "not run" and k[:2] in basepass):
            rerun.append(f"{k[0]}/{k[1]}:{k[2]}:{k[3]}")
    planned = {(t["project"], t["file"]) for t in P.get("targets", [])} | {(s["project"], s["file"]) for s in P["sites"]}
    for k in before:  # only files the new plan looked at: the others were not asked
        if k not in now and k[:2] in planned:
            rows[k[0]]["now refused (" + status.get(before[k]["n"], "not run") + ")"] += 1
    cols = sorted({c for r in rows.values() for c in r})
    print("| project | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for p in sorted(rows):
        print(f"| {p} | " + " | ".join(str(rows[p][c]) for c in cols) + " |")
    with open(os.path.join(work, "rerun.txt"), "w") as f:
        f.write("".join(x + "\n" for x in rerun))
    print(f"{len(rerun)} sites to run again (changed, new, or never run in a file whose baseline passed): "
          f"{os.path.join(work, 'rerun.txt')}")


def hunks_of(text):
    """A diff without its path headers: the same edit in another checkout."""
    return "\n".join(l for l in text.splitlines() if not l.startswith(("--- ", "+++ "))) if text else None


def site_key(s):
    return (s["project"], s["file"], s["rule"], s["line"])


def hunk_hash(text):
    """What identifies an edit without keeping its code: the sha256 of its
    diff's hunks (path headers aside), or None for no diff."""
    import hashlib
    h = hunks_of(text)
    return hashlib.sha256(h.encode()).hexdigest() if h is not None else None


def run_sites(archive):
    """A run's applied sites with the hash of each one's diff: from its logs
    archive (plan.json, sites/N.diff) or from the list `sitehashes` wrote."""
    import tarfile
    if archive.endswith(".json"):
        return json.load(open(archive))
    out = []
    with tarfile.open(archive) as t:
        names = {os.path.normpath(m.name): m for m in t.getmembers() if m.isfile()}
        for s in json.load(t.extractfile(names["plan.json"]))["sites"]:
            m = names.get(os.path.join("sites", f"{s['n']}.diff"))
            if s.get("applied") and m is not None:
                out.append({"n": s["n"], "project": s["project"], "file": s["file"], "rule": s["rule"],
                            "line": s["line"], "hunks_sha256": hunk_hash(t.extractfile(m).read().decode("utf-8", "replace"))})
    return out


def holds(work, runs):
    """For each applied site of the plan in work, the results of every
    earlier run whose diff for that site is the same (by hash): a site holds
    a pass where one of them passed and none failed. Returns the number of
    sites whose identical diff failed somewhere (the exit status)."""
    seen = collections.defaultdict(list)  # site -> [(hash, status)]
    for spec in runs:
        archive, _, res = spec.partition("=")
        status = {}
        for rp in filter(None, res.split(",")):
            for l in open(rp):
                r = json.loads(l)
                if r["kind"] == "site" and r["status"] != "not run":
                    status[r["n"]] = r["status"]
        for s in run_sites(archive):
            if s["n"] in status:
                seen[site_key(s)].append((s["hunks_sha256"], status[s["n"]]))
    P = json.load(open(os.path.join(work, "plan.json")))
    rows = collections.defaultdict(collections.Counter)
    failed = []
    for s in sorted((s for s in P["sites"] if s["applied"]), key=site_key):
        d = hunk_hash(read(os.path.join(work, "sites", str(s["n"]), "diff")))
        got = {st for (h, st) in seen.get(site_key(s), []) if h == d}
        st = "fail" if "fail" in got else "pass" if "pass" in got else \
            min(got) if got else ("changed" if site_key(s) in seen else "never run")
        rows[s["project"]][st] += 1
        if st == "fail":
            failed.append(site_key(s))
    cols = sorted({c for r in rows.values() for c in r})
    print("| project | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for p in sorted(rows):
        print(f"| {p} | " + " | ".join(str(rows[p][c]) for c in cols) + " |")
    public = {p: r["pass"] for p, r in rows.items() if p != "examples" and r["pass"]}
    for k in failed:
        print("failed with this diff: %s/%s:%s:%s" % k)
    print(f"public projects: {sum(public.values())} sites pass with this plan's diffs on {len(public)} projects; "
          f"{len(failed)} sites' diffs failed")
    return len(failed)

if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "plan":
        plan(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "skiplist":  # skiplist RESULTS: the files whose baseline failed
        for l in open(sys.argv[2]):
            r = json.loads(l)
            if r["kind"] == "baseline" and r["status"] != "pass":
                print(r["project"] + "/" + r["file"])
    elif len(sys.argv) >= 5 and sys.argv[1] == "carry":
        carry(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 3 and sys.argv[1] == "sitehashes":  # sitehashes LOGS.tar.gz > SITES.json
        print("[\n" + ",\n".join(json.dumps(x) for x in run_sites(sys.argv[2])) + "\n]")
    elif len(sys.argv) >= 4 and sys.argv[1] == "holds":
        sys.exit(1 if holds(sys.argv[2], sys.argv[3:]) else 0)
    elif len(sys.argv) == 4 and sys.argv[1] == "classify":  # classify LOG CHECK: prints contract or fail
        print("contract" if contract_stop(read(sys.argv[2]), sys.argv[3]) else "fail")
    else:
        print(__doc__)
        sys.exit(2)
