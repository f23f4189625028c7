#!/bin/sh
# tileadvise --check end to end (TAP): the examples against their expected
# output, the json and SARIF formats, suppression comments,
# --select/--ignore, and the exit codes. What --check prints for each rule
# case is in its entry's file, tests/entries/ID.md (tests/entries/run.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TILEADVISE:?set TILEADVISE to the built binary}"
: "${TA_SRCDIR:?set TA_SRCDIR to the source tree}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

plan 39
cd "$TA_SRCDIR" || exit 1
# Every run names --preview and --show-notes: these checks are about what each detector finds
# and how --check prints it, entries in preview included (which of them the
# default set leaves out is tests/precision/check.sh's business).

"$TILEADVISE" --check --preview --show-notes examples >"$tmp/ex.out" 2>"$tmp/ex.err"; rc=$?
check "examples: exit 1 (findings)" eval '[ $rc -eq 1 ]'
check_diff "examples: diagnostics as expected" tests/rules/expected/examples.txt "$tmp/ex.out"

"$TILEADVISE" --check --preview --show-notes --format=json examples/matmul/matmul.py >"$tmp/j.json"
check "json parses and holds the findings" \
	eval '${PYTHON3:-python3} -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d[\"diagnostics\"]) == 8 and [s[\"line\"] for x in d[\"diagnostics\"] for s in x.get(\"sites\", [])] == [29, 31, 37]" "$tmp/j.json"'

"$TILEADVISE" --check --preview --show-notes --format=sarif examples >"$tmp/s.sarif"
# One SARIF result per finding, as the text output has one line per finding
# (entries that share a detector are one finding with all their ids).
nres=$(grep -c '\[[^]]*\]$' tests/rules/expected/examples.txt)
# notes: the triggers, and findings read for information (a row gather on
# Hopper, a tile moved once per program outside the kernel's loop)
nnotes=$(grep -c ': note: .*\[[^]]*\]$' tests/rules/expected/examples.txt)
check "sarif 2.1.0 with rules and results" \
	eval '${PYTHON3:-python3} -c "
import json,sys
d=json.load(open(sys.argv[1]))
assert d[\"version\"]==\"2.1.0\" and \"\$schema\" in d
run=d[\"runs\"][0]; ids=[r[\"id\"] for r in run[\"tool\"][\"driver\"][\"rules\"]]
assert \"S1\" in ids and \"X0\" in ids
for r in run[\"results\"]:
    assert r[\"ruleId\"] in ids and r[\"message\"][\"text\"]
    assert r[\"level\"] in (\"note\", \"warning\") and (r[\"level\"]==\"note\" or not r[\"ruleId\"].startswith(\"T\"))
    reg=r[\"locations\"][0][\"physicalLocation\"][\"region\"]; assert reg[\"startLine\"]>=1
assert len(run[\"results\"])==$nres
assert sum(r[\"level\"]==\"note\" for r in run[\"results\"])==$nnotes
for r in run[\"tool\"][\"driver\"][\"rules\"]:
    assert r[\"help\"][\"text\"] and r[\"fullDescription\"][\"text\"], r[\"id\"]
shared=[r for r in run[\"results\"] if len(r.get(\"properties\", {}).get(\"ids\", [])) > 1]
assert shared and all(r[\"properties\"][\"ids\"][0]==r[\"ruleId\"] for r in shared)
for r in run[\"results\"]:
    loc=r[\"locations\"][0][\"physicalLocation\"][\"artifactLocation\"]
    assert loc[\"uriBaseId\"]==\"%SRCROOT%\" and not loc[\"uri\"].startswith(\"/\")
assert run[\"originalUriBaseIds\"][\"%SRCROOT%\"][\"uri\"].startswith(\"file:///\")
" "$tmp/s.sarif"'
# Each entry's rule links to its section of the checklist's page, which
# holds an anchor of that id.
check "sarif: each entry's helpUri is its anchor in the checklist's page" \
	eval '${PYTHON3:-python3} -c "
import json,sys,urllib.parse
d=json.load(open(sys.argv[1]))
rules=[r for r in d[\"runs\"][0][\"tool\"][\"driver\"][\"rules\"] if r[\"id\"]!=\"X0\"]
assert rules
for r in rules:
    u=urllib.parse.urlparse(r[\"helpUri\"])
    assert u.scheme==\"file\" and u.fragment==r[\"id\"], r
    page=open(urllib.parse.unquote(u.path)).read()
    assert (\"id=\\\"%s\\\"\" % r[\"id\"]) in page, r[\"id\"]
" "$tmp/s.sarif"'
"$TILEADVISE" --check --preview --show-notes --format=sarif "$TA_SRCDIR/examples/cat/cat.py" >"$tmp/abs.sarif"
check "sarif: an absolute path is a file:// URI" \
	eval '${PYTHON3:-python3} -c "
import json,sys
d=json.load(open(sys.argv[1]))
for r in d[\"runs\"][0][\"results\"]:
    loc=r[\"locations\"][0][\"physicalLocation\"][\"artifactLocation\"]
    assert loc[\"uri\"].startswith(\"file:///\") and \"uriBaseId\" not in loc
assert d[\"runs\"][0][\"results\"]
" "$tmp/abs.sarif"'
"$TILEADVISE" --check --preview --show-notes --exit-zero examples/matmul/matmul.py >"$tmp/ez.out"; rc=$?
check "--exit-zero: findings printed, exit 0" eval '[ $rc -eq 0 ] && [ -s "$tmp/ez.out" ]'
"$TILEADVISE" --check --preview --show-notes --exit-zero "$tmp/missing.py" 2>/dev/null; rc=$?
check "--exit-zero: bad input still exits 2" eval '[ $rc -eq 2 ]'
"$TILEADVISE" --check --preview --show-notes --format=github examples/matmul/matmul.py >"$tmp/gh.out"; rc=$?
check "--format=github: one annotation per finding" \
	eval '[ $rc -eq 1 ] && [ "$(grep -c "^::warning file=examples/matmul/matmul.py,line=[0-9]*,endLine=[0-9]*,col=[0-9]*,title=tileadvise [A-Z][0-9]*::" "$tmp/gh.out")" -eq "$(wc -l <"$tmp/gh.out")" ] && [ "$(wc -l <"$tmp/gh.out")" -eq 8 ]'

# S1 once per kernel (issue 29): one finding for bmm_kernel's three raw
# tiles, each site in the JSON with its own fix, the others SARIF's
# relatedLocations; a suppression on one site's line leaves the others.
"$TILEADVISE" --check --fixes --select S1 --format=json examples/matmul/matmul.py >"$tmp/s1.json"
check "S1: one finding per kernel, every site with its fix in the JSON" \
	eval '${PYTHON3:-python3} -c "
import json,sys
ds=json.load(open(sys.argv[1]))[\"diagnostics\"]
assert len(ds)==1 and ds[0][\"line\"]==29 and \"at line 31\" in ds[0][\"message\"], ds
assert [s[\"line\"] for s in ds[0][\"sites\"]]==[29, 31, 37]
assert all(s[\"fix\"][\"available\"] and s[\"fix\"][\"safety\"]==\"unsafe\" for s in ds[0][\"sites\"])
assert \"lines 29, 31 and 37\" in ds[0][\"fix\"][\"sites\"]
" "$tmp/s1.json"'
"$TILEADVISE" --check --select S1 --format=sarif examples/matmul/matmul.py >"$tmp/s1.sarif"
check "S1: the other sites are SARIF relatedLocations" \
	eval '${PYTHON3:-python3} -c "
import json,sys
r=json.load(open(sys.argv[1]))[\"runs\"][0][\"results\"]
assert len(r)==1 and [x[\"physicalLocation\"][\"region\"][\"startLine\"] for x in r[0][\"relatedLocations\"]]==[31, 37]
" "$tmp/s1.sarif"'
cp examples/matmul/matmul.py "$tmp/mm.py"
sed -i '31s/$/  # tileadvise: ignore[S1]/' "$tmp/mm.py"
"$TILEADVISE" --check --select S1 "$tmp/mm.py" >"$tmp/s1sup.out"
check "S1: a suppression on one site's line leaves the others" \
	eval 'grep -q "loads 1 tile and stores 1 through raw 2D pointers (\`a\` at line 29 and a store at line 37)" "$tmp/s1sup.out" &&
		[ "$(wc -l <"$tmp/s1sup.out")" -eq 1 ]'

# JSON fix edits and end columns (issue 30): applying a finding's edits to
# the file gives what --apply=ID:LINE writes, for every fix of two examples
# (each S1 site's too).
check "json: end_column on findings" eval '"$TILEADVISE" --check --format=json examples/softmax/softmax.py |
	${PYTHON3:-python3} -c "import json,sys; d=json.load(sys.stdin)[\"diagnostics\"]; assert d and all(x[\"end_column\"] >= 1 for x in d)"'
cat >"$tmp/edits.py" <<'PY'
import json, os, shutil, subprocess, sys
ta, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []
tried = 0
def apply(text, edits):
    lines = text.split("\n")
    def off(p):
        line = lines[p["line"] - 1]
        return sum(len(l) + 1 for l in lines[:p["line"] - 1]) + p["column"] - 1
    # back to front; text inserted at one place goes in the order listed
    order = sorted(range(len(edits)), key=lambda i: (edits[i]["start"]["line"], edits[i]["start"]["column"], i))
    for e in [edits[i] for i in reversed(order)]:
        a, b = off(e["start"]), off(e["end"])
        text = text[:a] + e["content"] + text[b:]
        lines = text.split("\n")
    return text
for f in files:
    out = subprocess.run([ta, "--check", "--preview", "--fixes", "--unsafe-fixes", "--format=json", f], capture_output=True, text=True).stdout
    for d in json.loads(out)["diagnostics"]:
        for site in d.get("sites") or [d]:
            fix = site.get("fix") or {}
            if not fix.get("available"):
                continue
            tried += 1
            want = apply(open(f).read(), fix["edits"])
            k = os.path.join(tmp, "k.py")
            shutil.copy(f, k)
            r = subprocess.run([ta, "--apply=%s:%d" % (d["id"], site["line"]), "--unsafe-fixes", k], capture_output=True, text=True)
            if r.returncode != 0 or open(k).read() != want:
                bad.append("%s %s:%d rc=%d" % (f, d["id"], site["line"], r.returncode))
            shutil.rmtree(os.path.join(tmp, ".tileadvise"), ignore_errors=True)
assert tried >= 5 and not bad, (tried, bad)
PY
check "json: a fix's edits are what --apply writes (every fix of two examples)" \
	eval '${PYTHON3:-python3} "$tmp/edits.py" "$TILEADVISE" "$tmp" examples/softmax/softmax.py examples/matmul/matmul.py'

"$TILEADVISE" --check --preview --show-notes --select S1,p3 examples/matmul/matmul.py >"$tmp/sel.out"
check "--select keeps only those ids" eval '[ "$(grep -c "\[S1\]" "$tmp/sel.out")" -eq 1 ] && [ "$(grep -vc "\[S1\]\|\[P3\]" "$tmp/sel.out")" -eq 0 ]'
"$TILEADVISE" --check --preview --show-notes --ignore S1,D8,P2,P3,P4,P1 examples/matmul/matmul.py >"$tmp/ign.out"; rc=$?
check "--ignore everything found: exit 0, no output" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/ign.out" ]'
"$TILEADVISE" --check --preview --show-notes --select Q7 examples/matmul/matmul.py >/dev/null 2>"$tmp/bad.err"; rc=$?
check "unknown id in --select: exit 2 with a message" eval '[ $rc -eq 2 ] && grep -q "Q7" "$tmp/bad.err"'

cp examples/cat/cat.py "$tmp/cat.py"
sed -i 's/copy_kernel\[grid\](t, out, n, offset, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)$/& # tileadvise: ignore[L4, P1]/' "$tmp/cat.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/cat.py" >"$tmp/sup.out"; rc=$?
check "suppression on the finding's line" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/sup.out" ]'
cp examples/softmax/softmax.py "$tmp/softmax.py"
sed -i 's/^def softmax_kernel(.*$/& # tileadvise: ignore[P1, D12]/' "$tmp/softmax.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/softmax.py" >"$tmp/sup2.out"; rc=$?
check "suppression on the kernel's def line" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/sup2.out" ]'
sed -i 's/ignore\[P1, D12\]/ignore[P1, D12, ZZ9]/' "$tmp/softmax.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/softmax.py" >"$tmp/sup3.out"; rc=$?
check "unknown id in a suppression is reported as X0" eval '[ $rc -eq 1 ] && grep -q "unknown checklist id .ZZ9. .*\[X0\]" "$tmp/sup3.out"'
# One id silences the finding it names, whatever other ids it shows: [S5,
# G1] by G1 alone, [S3, G4] by S3 alone (issue 30); the other findings stay.
cp examples/attention/attention.py "$tmp/att.py"
sed -i '50s/$/  # tileadvise: ignore[G1]/; 77s/$/  # tileadvise: ignore[S3]/' "$tmp/att.py"
"$TILEADVISE" --check "$tmp/att.py" >"$tmp/one.out"
check "one id silences the finding it names, with its other ids" \
	eval '! grep -q ":50:\|:77:" "$tmp/one.out" && grep -q ":52:14: .*\[S5, G1\]" "$tmp/one.out"'
# The other forms: a bare ignore (every id), the line before, the file.
cp examples/softmax/softmax.py "$tmp/bare.py"
sed -i 's/^def softmax_kernel(.*$/& # tileadvise: ignore/' "$tmp/bare.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/bare.py" >"$tmp/bare.out"; rc=$?
check "a bare 'tileadvise: ignore' silences every id" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/bare.out" ]'
cp examples/softmax/softmax.py "$tmp/next.py"
sed -i 's/^\(    \)softmax_kernel\[grid\]/\1# tileadvise: ignore-next-line[P1]\n&/' "$tmp/next.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/next.py" >"$tmp/next.out"; rc=$?
check "ignore-next-line silences the next line only" eval '[ $rc -eq 1 ] && ! grep -q "\[P1\]" "$tmp/next.out" && grep -q "\[D12\]" "$tmp/next.out"'
cp examples/softmax/softmax.py "$tmp/file.py"
printf '# tileadvise: ignore-file[D12]\n' >>"$tmp/file.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/file.py" >"$tmp/file.out"; rc=$?
check "ignore-file silences an id in the whole file" eval '[ $rc -eq 1 ] && ! grep -q "\[D12\]" "$tmp/file.out" && grep -q "\[P1\]" "$tmp/file.out"'
# Unused suppressions (ruff's RUF100) as X1, only when asked for: a comment
# naming an id with no finding there; the others, and unknown ids (X0's),
# are not reported; X1 counts findings whatever --select shows.
cp examples/softmax/softmax.py "$tmp/unused.py"
sed -i 's/^def softmax_kernel(.*$/& # tileadvise: ignore[S8, P1]/' "$tmp/unused.py"
sed -i 's/^\(    \)softmax_kernel\[grid\]/\1# tileadvise: ignore-next-line[D4, ZZ8]\n&/' "$tmp/unused.py"
printf '# tileadvise: ignore-file[D12]\n# tileadvise: ignore-file[L4]\n' >>"$tmp/unused.py"
"$TILEADVISE" --check "$tmp/unused.py" >"$tmp/unused0.out" 2>/dev/null
"$TILEADVISE" --check --extend-select=X1 --select=S1 "$tmp/unused.py" >"$tmp/unused.out" 2>/dev/null
check "X1 is off by default" eval '! grep -q "\[X1\]" "$tmp/unused0.out"'
check "--extend-select=X1: the ids that silence nothing, each at its comment" \
	eval '[ "$(grep -c "\[X1\]" "$tmp/unused.out")" -eq 3 ] && grep -q "unused.py:[0-9]*:[0-9]*: warning: unused suppression: this comment silences no S8 finding \[X1\]" "$tmp/unused.out" && grep -q "silences no D4 finding" "$tmp/unused.out" && grep -q "silences no L4 finding" "$tmp/unused.out" && ! grep -q "no P1 finding\|no D12 finding\|ZZ8.*X1" "$tmp/unused.out"'
"$TILEADVISE" --check --preview --show-notes --select S examples/matmul/matmul.py >"$tmp/secs.out"
check "--select S takes the whole section" eval '[ -s "$tmp/secs.out" ] && [ "$(grep -vc "\[S[0-9]*\]" "$tmp/secs.out")" -eq 0 ]'
"$TILEADVISE" --check --preview --show-notes --select ALL --ignore D,P examples/matmul/matmul.py >"$tmp/all.out"
check "--select ALL with --ignore of sections" eval '[ -s "$tmp/all.out" ] && ! grep -q "\[[DP][0-9]*\]" "$tmp/all.out"'

printf 'import triton\n' >"$tmp/clean.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/clean.py" >"$tmp/clean.out"; rc=$?
check "a clean file: exit 0" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/clean.out" ]'

printf 'def f(:\n    pass\n' >"$tmp/broken.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/broken.py" >"$tmp/broken.out"; rc=$?
check "syntax errors print as error diagnostics" eval 'grep -q "broken.py:1:[0-9]*: error: syntax error" "$tmp/broken.out"'

# A starred item in a bare return tuple is valid Python the grammar rejects:
# no error for it (starred_return.py, tests/entries/other.md), but a return
# tuple that is broken in any case is still one.
cases=$(ta_cases "$tmp/cases") || exit 1
"$TILEADVISE" --check --preview --show-notes "$cases/rules/starred_return.py" >"$tmp/star.out"; src=$?
printf 'def f(dx):\n    return dx, *[None] *\n' >"$tmp/star_broken.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/star_broken.py" >"$tmp/star_broken.out"; brc=$?
check "return dx, *[None] * 10 parses (exit 0); return dx, *[None] * is still a syntax error" \
	eval '[ $src -eq 0 ] && [ ! -s "$tmp/star.out" ] && [ $brc -ne 0 ] && grep -q "star_broken.py:2:[0-9]*: error: syntax error" "$tmp/star_broken.out"'

printf '\000\001' >"$tmp/binary.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/binary.py" "$tmp/missing.py" examples/cat/cat.py >"$tmp/mix.out" 2>"$tmp/mix.err"; rc=$?
check "bad files: exit 2, one line each, others still checked, and the summary says so" \
	eval '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/mix.err")" -eq 3 ] && grep -q "cat.py:33" "$tmp/mix.out" &&
		tail -1 "$tmp/mix.err" | grep -q "; some paths could not be checked (see above)\.$"'

mkdir -p "$tmp/tree/.hidden" "$tmp/tree/b" "$tmp/outside"
cp examples/cat/cat.py "$tmp/tree/.hidden/x.py"
cp examples/softmax/softmax.py "$tmp/tree/b/s.py"
cp examples/cat/cat.py "$tmp/tree/a.py"
cp examples/matmul/matmul.py "$tmp/outside/m.py"
ln -s "$tmp/outside" "$tmp/tree/link"
ln -s "$tmp/outside/m.py" "$tmp/tree/m_link.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/tree" >"$tmp/tree.out"; rc=$?
check "folders: hidden skipped, links out of the tree not followed, sorted" \
	eval '[ $rc -eq 1 ] && ! grep -q "hidden\|link" "$tmp/tree.out" && [ "$(cut -d: -f1 "$tmp/tree.out" | uniq | sed "s|.*/tree/||" | tr "\n" " ")" = "a.py b/s.py " ]'

# A package: its empty __init__.py files hold no kernel and are passed
# over; an empty .py file named on the command line is clean too (a
# pre-commit hook names every staged file; issue 30).
mkdir -p "$tmp/pkg/sub"
: >"$tmp/pkg/__init__.py"
: >"$tmp/pkg/sub/__init__.py"
cp examples/cat/cat.py "$tmp/pkg/sub/cat.py"
"$TILEADVISE" --check --preview --show-notes "$tmp/pkg" >"$tmp/pkg.out" 2>"$tmp/pkg.err"; rc=$?
check "a package's empty __init__.py files are passed over (exit 1, the kernel's findings)" \
	eval '[ $rc -eq 1 ] && grep -qx "Found 2 findings." "$tmp/pkg.err" && [ "$(wc -l <"$tmp/pkg.err")" -eq 1 ] &&
		grep -q "sub/cat.py:" "$tmp/pkg.out"'
"$TILEADVISE" --check --preview --show-notes "$tmp/pkg/__init__.py" >/dev/null 2>"$tmp/empty.err"; rc=$?
check "an empty .py file named on the command line: clean, exit 0" \
	eval '[ $rc -eq 0 ] && [ "$(cat "$tmp/empty.err")" = "All checks passed." ]'

"$TILEADVISE" --check --preview --show-notes --format=markdown examples/cat/cat.py >/dev/null 2>&1; rc=$?
check "--check refuses markdown" eval '[ $rc -eq 2 ]'

# The trigger notes (T1-T5) order the advisor's walk: --check leaves them
# out unless --show-notes is given or --select names them.
"$TILEADVISE" --check --preview examples/attention/attention.py >"$tmp/nonotes.out"
check "without --show-notes: no note, the warnings as with it" \
	eval '! grep -q ": note: " "$tmp/nonotes.out" && [ "$(grep -v ": note: " "$tmp/ex.out" | grep -c "^examples/attention/")" -eq "$(wc -l <"$tmp/nonotes.out")" ]'
"$TILEADVISE" --check --preview --select T1 examples/attention/attention.py >"$tmp/t1.out"
check "--select T1 reports T1's note without --show-notes" eval 'grep -q "note: .*\[T1\]$" "$tmp/t1.out" && [ "$(wc -l <"$tmp/t1.out")" -eq 1 ]'
"$TILEADVISE" --check --preview --select T examples/attention/attention.py >"$tmp/tsec.out"
check "--select T (the section) reports the notes" eval 'grep -q "\[T1\]$" "$tmp/tsec.out" && grep -q "\[T3\]$" "$tmp/tsec.out"'

finish
