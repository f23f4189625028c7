#!/bin/sh
# tileadvise --walk, without a GPU: the recorded H200 stream of the attention
# example stands in for every run (--records), so each step measures the
# same as the first run: within noise, reverted (kept with --keep-neutral);
# a failing --test reverts a step as broken. The file ends as of the last
# kept step, the session is written beside it, --format=jsonl is one JSON
# object per event, and without a GPU the walk says so in one line.
# (tests/unit/test_advisor.c walks recorded streams that differ.)
# Prints TAP (tests/lib/tap.sh).
set -u
. "$TA_SRCDIR/tests/lib/tap.sh"
ex="$TA_SRCDIR/examples/attention/attention.py"
rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-walk.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
TAP_ON_FAIL='[ ! -s "$tmp/err" ] || tail -n 20 "$tmp/err"'
plan 20

fresh() { rm -rf "$tmp/w" && mkdir -p "$tmp/w" && cp "$ex" "$tmp/w/attention.py"; }
walk() { (cd "$tmp/w" && "$TILEADVISE" --walk --gpu h200 --records "$rec" "$@" attention.py) >"$tmp/out" 2>"$tmp/err"; }

fresh
walk --select=S3,S5
rc=$?
[ $rc -eq 1 ]
result $? "nothing measured faster: exit 1 (got $rc)"
grep -q "^S3 .*within noise *reverted: within noise" "$tmp/out" && grep -q "^S5 .*reverted: within noise" "$tmp/out"
result $? "each step within noise, reverted, in the table"
cmp -s "$ex" "$tmp/w/attention.py"
result $? "the file is as it was"
! grep -q "^S8 " "$tmp/out"
result $? "--select leaves the other steps untried"
grep -q "^kept 0 of 2 steps tried (2 reverted, 0 without an edit)$" "$tmp/out"
result $? "the table says what was kept"
"$TILEADVISE" --report --replay "$tmp/w/.tileadvise/session-attention.py.json" >"$tmp/md" 2>"$tmp/err" &&
	grep -A2 "^## Applied edits" "$tmp/md" | grep -q "^None yet.$" &&
	grep -q "^- file versions: 3; measured runs: 3$" "$tmp/md"
result $? "the session is beside the file: three runs, the reverted steps undone"

fresh
walk --select=S3 --keep-neutral --format=jsonl
rc=$?
[ $rc -eq 0 ] && ! cmp -s "$ex" "$tmp/w/attention.py" && grep -q "qk = tl.dot(q, k.T)$" "$tmp/w/attention.py"
result $? "--keep-neutral keeps S3: exit 0, the file edited"
"$PYTHON3" -c '
import json, sys
events = [json.loads(l)["event"] for l in open(sys.argv[1])]
events = [e for e in events if e != "note"]
sys.exit(events != ["first_run", "step", "diff", "measured", "kept", "measured", "summary"])
' "$tmp/out"
result $? "--format=jsonl: one JSON object per event, in order"
grep -q '"event":"measured","id":"S3","scope":"step","kernel":"gemma_attn_fwd",.*"ratio":1.0,"ci95":\[' "$tmp/out"
result $? "a measured event has before, after, ratio, interval and verdict"
grep -q '"event":"summary","tried":1,"kept":1,"reverted":0' "$tmp/out"
result $? "the summary counts the kept step"

fresh
walk --select=S3 --test 'echo checking; exit 3'
[ $? -eq 1 ] && grep -q "^S3 .*reverted: broken: the test exited with status 3" "$tmp/out" && cmp -s "$ex" "$tmp/w/attention.py"
result $? "a failing test reverts the step as broken"

fresh
walk --select=S6
grep -q "^S6 .*no edit: no S6 edit to make: unsafe: it " "$tmp/out" && cmp -s "$ex" "$tmp/w/attention.py"
result $? "an unsafe edit is not made without --unsafe-fixes"

fresh
walk --budget=0.000001
grep -q "stopped early: the budget of 1e-06 s is spent$" "$tmp/out" && grep -q "^kept 0 of 0 steps" "$tmp/out"
result $? "--budget stops the walk"

fresh
(cd "$tmp/w" && "$TILEADVISE" --walk --format=json attention.py) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^tileadvise: --walk writes text, markdown or jsonl$" "$tmp/err"
result $? "--format=json is refused"
(cd "$tmp/w" && "$TILEADVISE" --walk --select=Q9 --gpu h200 --records "$rec" attention.py) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "Q9" "$tmp/err" && cmp -s "$ex" "$tmp/w/attention.py"
result $? "an unknown --select id: exit 2, the file untouched"
# The walk leaves out what --check leaves out: the project's ignore
# (pyproject.toml above the file), --ignore, and neither with --isolated.
fresh
if "$TILEADVISE" --version | grep -q "pyproject.toml \[tool.tileadvise\]: read"; then
	printf '[tool.tileadvise]\nignore = ["S3"]\n' >"$tmp/pyproject.toml"
	walk --select=S3,S5
	! grep -q "^S3 " "$tmp/out" && grep -q "^S5 .*reverted: within noise" "$tmp/out" &&
		grep -q "^tileadvise: $tmp/pyproject.toml: the walk leaves out what \[tool.tileadvise\] ignore = S3 leaves out of --check$" "$tmp/err"
	result $? "the project's ignore leaves S3 untried, and says so"
	fresh
	walk --select=S3,S5 --isolated
	grep -q "^S3 " "$tmp/out" && grep -q "^S5 " "$tmp/out"
	result $? "--isolated: the project is not read"
	rm -f "$tmp/pyproject.toml"
else
	skip "the project's ignore leaves S3 untried, and says so" "built without toml++"
	skip "--isolated: the project is not read" "built without toml++"
fi
fresh
walk --select=S3,S5 --ignore=S5
grep -q "^S3 " "$tmp/out" && ! grep -q "^S5 " "$tmp/out"
result $? "--ignore leaves S5 untried"
# Ctrl-C during a run: the run is cancelled, nothing is left changed (here
# the first run, a child that would sleep for a minute).
fresh
(cd "$tmp/w" && exec "$TILEADVISE" --walk --gpu h200 attention.py -- sh -c 'sleep 60') >"$tmp/out" 2>"$tmp/err" &
pid=$!
n=0
while [ $n -lt 100 ] && ! ls "$tmp/w/.tileadvise/lock-attention.py" >/dev/null 2>&1 && ! grep -q . "$tmp/err"; do
	sleep 0.1
	n=$((n + 1))
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
if grep -q "profiling is off in this build" "$tmp/err"; then
	skip "Ctrl-C cancels the run and leaves the file" "built without CUPTI"
else
	[ $rc -eq 2 ] && grep -q "the first run was not measured: interrupted" "$tmp/err" && cmp -s "$ex" "$tmp/w/attention.py"
	result $? "Ctrl-C cancels the run and leaves the file (exit $rc)"
fi
(cd "$tmp/w" && "$TILEADVISE" --walk attention.py) >"$tmp/out" 2>"$tmp/err"
rc=$?
if ! grep -q "no GPU" "$tmp/err"; then
	skip "without a GPU: one line, exit 2" "a GPU is here"
else
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		grep -q "^tileadvise: --walk measures every step and cannot here: no GPU: " "$tmp/err"
	result $? "without a GPU: one line, exit 2"
fi
finish
