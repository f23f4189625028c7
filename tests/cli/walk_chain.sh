#!/bin/sh
# The figures of every committed walk (examples/*/session-walk.h200.json)
# chain, as its replay reports them: each applied step's before is the
# step before's after, the first step's before and the last step's after
# are the whole walk's first and last runs, each ratio is its after over
# its before, and the steps' ratios multiply to the whole walk's. Whatever
# recorded the walks (tests/gpu/walks.sh from edits.sh's streams, or
# tileadvise --walk on the GPU through tests/gpu/walk_all.sh), a replay
# whose numbers disagree with each other is what a user distrusts first
# (a walk that kept no step has nothing to chain).
# Prints TAP (tests/lib/tap.sh).
set -u
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-chain.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
TAP_ON_FAIL='[ ! -s "$tmp/why" ] || cat "$tmp/why"'
set -- "$TA_SRCDIR"/examples/*/session-walk.h200.json
plan $#
for s in "$@"; do
	name=$(basename "$(dirname "$s")")
	"$TILEADVISE" --report --replay "$s" >"$tmp/md" 2>"$tmp/why" &&
		"$PYTHON3" - "$tmp/md" >"$tmp/why" 2>&1 <<'PY'
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
def us(v, unit):
    return float(v) * (1000.0 if unit == "ms" else 1.0)
T = r"([0-9.]+) (µs|ms)"
steps = re.findall(r"^  - `([^`]+)`: " + T + " → " + T + r", ratio ([0-9.]+)", md, re.M)
whole = re.findall(r"^\| `([^`]+)` \| " + T + r" \([^|]*\) \| " + T + r" \([^|]*\) \| ([0-9.]+)", md, re.M)
bad = []
if "## Applied edits" not in md:
    bad.append("no applied edits section")
per = {}
for k, a, au, b, bu, r in steps:
    per.setdefault(k, []).append(((a, au), (b, bu), float(r)))
for k, rows in per.items():
    for i, (a, b, r) in enumerate(rows):
        A, B = us(*a), us(*b)
        # the printed figures are rounded: 0.05 of their unit, 0.0005 of a ratio
        tol = 0.0005 + 0.06 * (1000.0 if a[1] == "ms" else 1.0) * (1 + r) / A
        if abs(r - B / A) > tol:
            bad.append("%s step %d: ratio %.3f, but %s -> %s is %.4f" % (k, i + 1, r, A, B, B / A))
        if i and rows[i - 1][1] != a:
            bad.append("%s step %d: before %s %s, the step before's after %s %s" % ((k, i + 1) + a + rows[i - 1][1]))
for k, f, fu, l, lu, r in whole:
    rows = per.get(k)
    if not rows:
        continue
    if rows[0][0] != (f, fu):
        bad.append("%s: the whole walk's first run %s %s, the first step's before %s %s" % ((k, f, fu) + rows[0][0]))
    if rows[-1][1] != (l, lu):
        bad.append("%s: the whole walk's last run %s %s, the last step's after %s %s" % ((k, l, lu) + rows[-1][1]))
    prod = 1.0
    for _, _, x in rows:
        prod *= x
    if abs(prod - float(r)) > 0.001 * len(rows) + 0.0005:
        bad.append("%s: the steps' ratios multiply to %.4f, the whole walk says %s" % (k, prod, r))
if per and not whole:
    bad.append("no whole walk")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	result $? "$name: the replay's figures chain from step to step and to the whole walk"
done
finish
