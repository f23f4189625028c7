#!/bin/sh
# The GPU corpus harness's classification, on the development machine
# (tests/gpu/corpus_edits.py, fixtures in tests/fixtures/gpu_table): a check
# that stops only at the host contracts the edits write counts as "stopped by
# its contract"; any other failure beside it keeps the site "newly failing";
# the table splits safe and unsafe edits and sums both into newly failing. TAP.
# Env: TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }
py="$TA_SRCDIR/tests/gpu/corpus_edits.py"
fx="$TA_SRCDIR/tests/fixtures/gpu_table"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-gputable-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 14
for c in "contract.log pytest contract" "mixed.log pytest fail" "crash.log pytest fail" \
	"diff_contract.log diff contract" "diff_wrong.log diff fail"; do
	set -- $c
	got=$(TA=/bin/false python3 "$py" classify "$fx/$1" "$2")
	[ "$got" = "$3" ]
	result $? "$1 ($2) is classified $3" "got $got"
done
cp "$fx/results.jsonl" "$tmp/"
TA=/bin/false python3 "$py" table "$fx" "$tmp" >/dev/null
# S1: 5 offered, 1 refused, 4 applied (4 unsafe), 4 run: 1 passing, 1 contract, 1 failing, 1 timed out
grep -q '^| S1 | 5 | 1 | 4 (4) | 4 | 0 | 0 | 1 | 1 | 1 | 1 | 1 | — |$' "$tmp/table.md"
result $? "S1's row splits passing, contract stop, newly failing and timed out" "$(grep '^| S1' "$tmp/table.md")"
# a safe edit that stops at an assert is failing (S8), D4: 1 passing 1 failing
grep -q '^| \*\*all\*\* | 9 | 1 | 8 (5) | 8 | 1 | 2 | 1 | 2 | 1 | 1 | 2 | |$' "$tmp/table.md"
result $? "the totals: safe failures include a safe edit stopped by an assert" "$(grep '^| \*\*all' "$tmp/table.md")"
grep -q '^Newly failing: 3 (2 safe, 1 unsafe); stopped by a stated contract: 2; still passing: 2; timed out: 1$' "$tmp/table.md"
result $? "the headline counts contract stops apart, never as passing" "$(grep '^Newly' "$tmp/table.md")"
# carry: an earlier run's result holds for a site whose diff is unchanged
# (path headers aside); a changed diff, a new site and a site never run in a
# file whose baseline passed are to run again; a site now refused is counted
mkdir -p "$tmp/old/sites" "$tmp/new/sites/5" "$tmp/new/sites/6" "$tmp/new/sites/7" "$tmp/new/sites/8"
site() { printf '{"n": %s, "project": "p", "file": "k.py", "rule": "%s", "line": %s, "applied": %s}' "$@"; }
printf '{"sites": [%s, %s, %s, %s, %s]}\n' "$(site 0 P1 10 true)" "$(site 1 S1 20 true)" "$(site 2 P2 30 true)" \
	"$(site 3 D4 40 true)" "$(site 4 D4 40 true | sed 's/k\.py/q.py/')" > "$tmp/old/plan.json"
printf '{"sites": [%s, %s, %s, %s]}\n' "$(site 5 P1 10 true)" "$(site 6 S1 20 true)" "$(site 7 P2 30 true)" \
	"$(site 8 S8 50 true)" > "$tmp/new/plan.json"
printf -- '--- a/k.py\n+++ b/k.py\n-x\n+y\n' > "$tmp/old/sites/0.diff"
printf -- '--- /elsewhere/k.py\n+++ /elsewhere/k.py\n-x\n+y\n' > "$tmp/new/sites/5/diff"
printf -- '-a\n+b\n' > "$tmp/old/sites/1.diff"
printf -- '-a\n+c\n' > "$tmp/new/sites/6/diff"
for n in 2 3; do printf -- '-q\n' > "$tmp/old/sites/$n.diff"; done
printf -- '-q\n' > "$tmp/new/sites/7/diff"
printf -- '-s\n' > "$tmp/new/sites/8/diff"
{ echo '{"kind": "baseline", "project": "p", "file": "k.py", "status": "pass"}'
  for n in 0 1 3; do echo '{"kind": "site", "n": '$n', "status": "pass"}'; done; } > "$tmp/old/results.jsonl"
TA=/bin/false python3 "$py" carry "$tmp/new" "$tmp/old" "$tmp/old/results.jsonl" > "$tmp/carry.txt"
[ "$(cat "$tmp/new/rerun.txt")" = "p/k.py:P2:30
p/k.py:S1:20
p/k.py:S8:50" ]
result $? "carry: a changed diff, a site never run and a new site run again; the same diff does not" \
	"$(cat "$tmp/new/rerun.txt")"
grep -q '^| p | 1 | 1 | 1 | 1 | 1 |$' "$tmp/carry.txt"
result $? "carry: one each of changed, new, unrun, now refused (it had passed) and carried pass" "$(cat "$tmp/carry.txt")"
# a file the new plan did not look at is not "now refused"
[ "$(grep -c '^| p |' "$tmp/carry.txt")" = 1 ] && grep -q '^| project | changed | new | not run | now refused (pass) | pass |$' "$tmp/carry.txt"
result $? "carry: sites of files outside the new plan are not counted as refused" "$(cat "$tmp/carry.txt")"
# holds: over two runs, a site passes where an identical diff passed and
# none failed; a diff that failed in either run is listed and sets the exit
# status; a site whose diff changed since is not counted as verified
mkdir -p "$tmp/ra/sites" "$tmp/rb/sites"
printf '{"sites": [%s, %s, %s]}\n' "$(site 0 P1 10 true)" "$(site 1 S1 20 true)" "$(site 2 P2 30 true)" > "$tmp/ra/plan.json"
printf '{"sites": [%s, %s]}\n' "$(site 0 P1 10 true)" "$(site 1 P2 30 true)" > "$tmp/rb/plan.json"
printf -- '-x\n+y\n' > "$tmp/ra/sites/0.diff"      # P1: passed in a with the plan's diff
printf -- '-a\n+z\n' > "$tmp/ra/sites/1.diff"      # S1: passed in a with another diff
printf -- '-q\n' > "$tmp/ra/sites/2.diff"           # P2: passed in a ...
printf -- '-q\n' > "$tmp/rb/sites/1.diff"           # ... and failed in b, the same diff
printf -- '-x\n+y\n' > "$tmp/rb/sites/0.diff"
for n in 0 1 2; do echo '{"kind": "site", "n": '$n', "status": "pass"}'; done > "$tmp/ra/results.jsonl"
{ echo '{"kind": "site", "n": 0, "status": "timeout"}'; echo '{"kind": "site", "n": 1, "status": "fail"}'; } > "$tmp/rb/results.jsonl"
(cd "$tmp/ra" && tar -czf ../ra.tar.gz plan.json sites) && (cd "$tmp/rb" && tar -czf ../rb.tar.gz plan.json sites)
mkdir -p "$tmp/now/sites/0" "$tmp/now/sites/1" "$tmp/now/sites/2"
printf '{"sites": [%s, %s, %s]}\n' "$(site 0 P1 10 true)" "$(site 1 S1 20 true)" "$(site 2 P2 30 true)" > "$tmp/now/plan.json"
printf -- '--- a/k.py\n+++ b/k.py\n-x\n+y\n' > "$tmp/now/sites/0/diff"
printf -- '-a\n+b\n' > "$tmp/now/sites/1/diff"
printf -- '-q\n' > "$tmp/now/sites/2/diff"
# run a from its logs archive, run b from the hash list made of its archive
TA=/bin/false python3 "$py" sitehashes "$tmp/rb.tar.gz" > "$tmp/rb.json" &&
	! grep -q -e '-q' "$tmp/rb.json" && grep -q '"hunks_sha256": "[0-9a-f]\{64\}"' "$tmp/rb.json"
result $? "sitehashes: a run's sites with a hash of each diff, no line of the diffs" "$(cat "$tmp/rb.json")"
TA=/bin/false python3 "$py" holds "$tmp/now" "$tmp/ra.tar.gz=$tmp/ra/results.jsonl" "$tmp/rb.json=$tmp/rb/results.jsonl" > "$tmp/holds.txt"
[ $? = 1 ] && grep -q '^| project | changed | fail | pass |$' "$tmp/holds.txt" && grep -q '^| p | 1 | 1 | 1 |$' "$tmp/holds.txt"
result $? "holds: one site passes, one diff changed, one failed in a later run" "$(cat "$tmp/holds.txt")"
grep -q '^failed with this diff: p/k.py:P2:30$' "$tmp/holds.txt" &&
	grep -q '^public projects: 1 sites pass with this plan.s diffs on 1 projects; 1 sites. diffs failed$' "$tmp/holds.txt"
result $? "holds: the failed site is named and counted" "$(cat "$tmp/holds.txt")"
finish
