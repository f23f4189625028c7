#!/bin/sh
# --record-session OUT --step ID=RECORDS[,MEASURED]: a session of applied
# steps made from record streams saved on a GPU, with no GPU here. The
# recording is the attention walk of tests/gpu/edits.sh on an H200
# (results/gpu/edits-h200-2026-11-29-attention.tar.gz: v0..v5.py and
# rec-1..5.jsonl, rec-K the run of vK). Checks: the session's edits and
# runs as --report --replay prints them (golden record_walk.golden); each
# example's committed session-walk.h200.json is what walks.sh makes of the
# later recordings (edits-h200-2026-11-29-{b,attention-b}); every
# version today's edits make is the measured file; a measured file that
# differs is kept and labelled; steps that cannot be made fail by name.
# Prints TAP (tests/lib/tap.sh).
set -u
. "$TA_SRCDIR/tests/lib/tap.sh"
ex="$TA_SRCDIR/examples/attention"
golden="$TA_SRCDIR/tests/cli/record_walk.golden"
tarball="$TA_SRCDIR/results/gpu/edits-h200-2026-11-29-attention.tar.gz"
v0run="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
# Each failure shows what the last command said.
TAP_ON_FAIL='[ ! -s "$tmp/err" ] || cat "$tmp/err"'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-walk.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
plan 18

tar -C "$tmp" -xzf "$tarball"
d="$tmp/attention"
cmp -s "$d/v0.py" "$ex/attention.py"
result $? "the recording's v0.py is examples/attention/attention.py as committed"

# record OUT [V2]: the walk as tests/gpu/edits.sh applied and measured it;
# V2 replaces the measured file of the second step.
record() {
	"$TILEADVISE" --record-session "$1" --gpu h200 --records "$v0run" \
		--step "G8=$d/rec-1.jsonl,$d/v1.py" --step "S8=$d/rec-2.jsonl,${2:-$d/v2.py}" \
		--step "S5=$d/rec-3.jsonl,$d/v3.py" --step "S3=$d/rec-4.jsonl,$d/v4.py" \
		--step "S6=$d/rec-5.jsonl,$d/v5.py" "$ex/attention.py" 2>"$tmp/err"
}
# edits_and_runs SESSION: the report's counts, last run and applied edits.
edits_and_runs() {
	"$TILEADVISE" --report --replay "$1" | sed -n '/^- file versions/,/^## Kernel/p' | sed '$d'
}

record "$tmp/s.json"
result $? "--record-session with five --step exits 0"
# G8 was applied on the H200, but every config of that file already keeps
# BLOCK_M a multiple of BLOCK_N: today's checklist finds no G8 there, so its
# measured text stands, labelled so. S6's edit has changed since (its guard
# tests torch.version.cuda now), so its measured text stands too; the other
# steps are today's edits.
grep -q "session with 5 applied steps written to" "$tmp/err" && grep -q "2 of 5 steps keep the measured file" "$tmp/err"
result $? "it says so, and keeps two measured files: G8's, which today's checklist does not make, and S6's"
edits_and_runs "$tmp/s.json" >"$tmp/report"
diff -u "$golden" "$tmp/report" >"$tmp/err"
result $? "its edits and runs (before → after, ratio, verdict) are the golden ones"
for l in "after G8, as measured; today's tileadvise makes no G8 edit there" "after S8" "after S5" \
	"after S3" "after S6, as measured; today's S6 edit differs"; do
	grep -q "\"label\": \"$l\"" "$tmp/s.json" || echo "$l" >>"$tmp/missing"
done
[ ! -s "$tmp/missing" ] && grep -q '"current": 5,' "$tmp/s.json"
result $? "six versions, labelled after each step, the last current"
grep -Eq '"from_version": 1,' "$tmp/s.json" && grep -Eq '"after_run": 5,' "$tmp/s.json" &&
	[ "$(grep -c '"undone": false' "$tmp/s.json")" -eq 5 ]
result $? "five edits in effect, chained version to version and run to run"

# Every example's committed walk is what tests/gpu/walks.sh makes from the
# later recordings (all five examples, v0's own run included in them).
: >"$tmp/err"
for rec in b attention-b; do
	TILEADVISE="$TILEADVISE" sh "$TA_SRCDIR/tests/gpu/walks.sh" \
		"$TA_SRCDIR/results/gpu/edits-h200-2026-11-29-$rec.tsv" \
		"$TA_SRCDIR/results/gpu/edits-h200-2026-11-29-$rec.tar.gz" "$tmp/later" \
		>/dev/null 2>"$tmp/walks-err" || { echo "walks.sh failed on $rec:"; cat "$tmp/walks-err"; } >>"$tmp/err"
done
# (A walk re-recorded by tests/gpu/walk_all.sh, `tileadvise --walk` on the
# GPU, is no recording: it is left out, and tests/cli/walk_chain.sh checks
# its figures.)
compared=0
for name in softmax layernorm matmul cat attention; do
	committed="$TA_SRCDIR/examples/$name/session-walk.h200.json"
	grep -q '"host": "recorded on ' "$committed" || continue
	compared=$((compared + 1))
	edits_and_runs "$committed" >"$tmp/committed" &&
		edits_and_runs "$tmp/later/$name/session-walk.h200.json" >"$tmp/made" &&
		grep -q '^- \*\*[A-Z][0-9]*\*\* at line' "$tmp/committed" &&
		diff -u "$tmp/committed" "$tmp/made" >>"$tmp/err" || echo "$name differs" >>"$tmp/err"
done
if [ $compared -eq 0 ]; then
	skip "each example's committed session-walk.h200.json holds the edits and runs of its recording" \
		"the committed walks were made by --walk on the GPU"
else
	! grep -q . "$tmp/err"
	result $? "each example's committed session-walk.h200.json holds the edits and runs of its recording ($compared)"
fi

# tests/gpu/walks.sh, which makes such sessions for every example from
# what edits.sh brings back, gives the same edits and runs.
TILEADVISE="$TILEADVISE" sh "$TA_SRCDIR/tests/gpu/walks.sh" \
	"$TA_SRCDIR/results/gpu/edits-h200-2026-11-29-attention.tsv" "$tarball" "$tmp/walks" \
	>/dev/null 2>"$tmp/err" && edits_and_runs "$tmp/walks/attention/session-walk.h200.json" >"$tmp/w" &&
	diff -u "$golden" "$tmp/w" >>"$tmp/err"
result $? "tests/gpu/walks.sh writes that walk from the archive and its table"

# A measured file that today's edit does not give: kept, and said.
{ cat "$d/v2.py"; echo "# not what tileadvise writes"; } >"$tmp/v2-other.py"
record "$tmp/other.json" "$tmp/v2-other.py"
result $? "a measured file that differs: still exits 0"
# The next step is made on the kept text, so S5's result differs from v3.py
# too (by the same comment); S3 and S6 start again from measured files.
grep -q "4 of 5 steps keep the measured file" "$tmp/err"
result $? "it says that four steps keep the measured file (G8, S8, S5 made on S8's, and S6)"
grep -q "\"label\": \"after S8, as measured; today's S8 edit differs\"" "$tmp/other.json" &&
	grep -q "# not what tileadvise writes" "$tmp/other.json"
result $? "the version is the measured text, labelled as such"
grep -q "\"label\": \"after S5, as measured; today's S5 edit differs\"" "$tmp/other.json" &&
	grep -q '"label": "after S3"' "$tmp/other.json"
result $? "S5 is labelled so too; S3, made on the measured v3, is not"

# Steps that cannot be made: exit 2, the step named, nothing written.
"$TILEADVISE" --record-session "$tmp/twice.json" --gpu h200 --step "S8=$d/rec-2.jsonl" \
	--step "S8=$d/rec-2.jsonl" "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^tileadvise: --step S8 (step 2 of 2): no S8 edit to make: " "$tmp/err" &&
	[ ! -e "$tmp/twice.json" ]
result $? "a step with no site left fails by name and writes nothing"
"$TILEADVISE" --record-session "$tmp/x.json" --step "T1=$d/rec-1.jsonl" "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "T1 has no mechanical edit" "$tmp/err"
result $? "an entry without a mechanical edit is refused"
"$TILEADVISE" --record-session "$tmp/x.json" --step "S8=$tmp/none.jsonl" "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "step 1 of 1.*none.jsonl" "$tmp/err"
result $? "records that cannot be read name the file"
"$TILEADVISE" --step "G8=$d/rec-1.jsonl" "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--step belongs to --record-session" "$tmp/err"
result $? "--step without --record-session is a usage error"
"$TILEADVISE" --record-session "$tmp/x.json" --step G8 "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--step needs ID=RECORDS" "$tmp/err"
result $? "--step without records is a usage error"
"$TILEADVISE" --record-session "$tmp/x.json" --step "G8:21=$d/rec-1.jsonl" "$ex/attention.py" 2>"$tmp/err"
[ $? -eq 2 ]
result $? "--step takes an id, not ID:LINE (a step is every site)"
finish
