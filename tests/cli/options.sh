#!/bin/sh
# The command line as GNU tools read it: options may follow the file, "--"
# still ends the options (the command after it is the profiled one), and a
# refused option is named in plain ASCII with what is wrong with it.
# TAP by hand. Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-opt-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$TA_SRCDIR/tests/fixtures/cli/options.py" "$tmp/k.py"
cd "$tmp" || exit 99

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# has FILE PATTERN: a line matches; the pattern "-": FILE is empty but for
# --check's summary line.
has() {
	if [ "$2" = - ]; then ! grep -Ev '^(Found [0-9]+ findings?|All checks passed)' "$1" | grep -q .
	else grep -Eq -- "$2" "$1"; fi
}
# t DESC EXPECTED-RC STDOUT-PATTERN STDERR-PATTERN ARGS...
t() {
	desc=$1 want=$2 outp=$3 errp=$4
	shift 4
	"$TILEADVISE" "$@" >out 2>err
	rc=$?
	if [ "$rc" -eq "$want" ] && has out "$outp" && has err "$errp"; then ok "$desc"
	else not_ok "$desc" "rc=$rc" "stdout: $(head -c 300 out)" "stderr: $(cat err)"; fi
}

echo "1..40"
t "--format after the file is an option" 1 '"tool": "tileadvise"' - --check k.py --format=json
t "--select after the file selects" 1 '\[P1\]$' - --check k.py --select=P1
if grep -q D12 out; then not_ok "--select after the file leaves the others out"; else ok "--select after the file leaves the others out"; fi
t "a short option after the file" 1 '"version"' - --check k.py -f json
t "-- ends the options: what follows is the command, not --select" 1 '\[D12\]$' - --check k.py -- --select=P1
t "-- before any file: what follows are files" 1 '\[D12\]$' - --check -- k.py
t "-q is named in ASCII" 2 - "^tileadvise: invalid option '-q'$" -q
if LC_ALL=C grep -q '[^ -~]' err; then not_ok "the message is plain ASCII" "$(od -c err | head -3)"; else ok "the message is plain ASCII"; fi
t "a long option without its argument" 2 - "option '--select' needs an argument" --check k.py --select
t "a prefix of several options is no option" 2 - "^tileadvise: unrecognized option '--re'$" --re k.py
# Long options by their whole name only (getopt would take a unique prefix,
# and --fix, ruff's mass fix, was read as --fixes and opened the advisor).
t "a unique prefix is refused, the option named" 2 - "unrecognized option '--chec'; did you mean '--check'\?" --chec k.py
t "--fixe, a prefix of --fixes, is refused" 2 - "unrecognized option '--fixe'; did you mean '--fixes'\?" --fixe k.py
t "--fix goes with --check alone" 2 - "--fix edits the files --check reads" --fix --apply=S3 k.py
t "a misspelling is named" 2 - "unrecognized option '--chekc'; did you mean '--check'\?" --chekc k.py
t "an unknown id lists the ids there are, D16 included" 2 - "unknown checklist id 'Q9' \(T1-T5, L1-L4, P1-P7, S1-S8, G1-G8, D1-D16\)" --check --select=Q9 k.py
t "two edits in one run are refused" 2 - "one edit at a time: '--apply=S8' follows another" --apply=S3 --apply=S8 k.py
t "a flag given an argument" 2 - "option '--check' takes no argument" --check=yes k.py
# --help fits 80 columns and groups the options.
"$TILEADVISE" --help >out
if awk 'length($0) > 80 { bad = 1 } END { exit bad }' out; then ok "--help lines fit 80 columns"
else not_ok "--help lines fit 80 columns" "$(awk 'length($0) > 80' out | head -3)"; fi
if grep -q '^Reading and checking files:$' out && grep -q '^Profiling:$' out && grep -q '^Edits:$' out; then
	ok "--help groups the options"; else not_ok "--help groups the options"; fi
# Other kernels are named as people read them: demangled, not cut at 40.
"$TILEADVISE" --profile --gpu h200 --records "$TA_SRCDIR/tests/recordings/h200-2026-11-29-vector-add.jsonl" \
	"$TA_SRCDIR/examples/softmax/softmax.py" >out 2>err
if grep -q '^other kernels .*; add_kernel (516, .*, at::native::vectorized_elementwise_kernel (468, ' out &&
   ! grep -q '_ZN' out; then ok "other kernels are demangled"
else not_ok "other kernels are demangled" "$(grep '^other' out)"; fi
# A run recorded with TILEADVISE_CAPTURE whose program never called
# cudaProfilerStart: the empty report says what the range needs.
printf '%s\n' '{"type":"hello","v":1,"pid":7,"cupti":130001}' \
	'{"type":"bye","pid":7,"written":2,"dropped":0,"lost":0}' > empty.jsonl
TILEADVISE_CAPTURE=profiler-api "$TILEADVISE" --profile --gpu h200 --records empty.jsonl k.py >out 2>err
if grep -q "no launches of the file's kernels were recorded between cudaProfilerStart and cudaProfilerStop" out &&
   grep -q "torch.cuda.profiler.start()" out; then ok "an empty capture range is explained"
else not_ok "an empty capture range is explained" "$(cat out err)"; fi
"$TILEADVISE" --profile --gpu h200 --records empty.jsonl k.py >out 2>err
if grep -q "no launches of the file's kernels were recorded$" out; then ok "without a capture range, no range is named"
else not_ok "without a capture range, no range is named" "$(cat out err)"; fi
# An unknown --gpu is the same error for every front end: one line, exit 2
# (the advisor's, on a terminal: tests/tui/first.sh).
t "--profile --gpu v100: unknown, exit 2" 2 - "^tileadvise: unknown GPU 'v100' \(known: h200, h100, b200, a100, l40s, rtx4090\)$" \
	--profile --gpu v100 --records "$TA_SRCDIR/tests/recordings/h200-2026-11-29-vector-add.jsonl" k.py
[ "$(wc -l <err)" -eq 1 ] && ok "... in one line" || not_ok "... in one line" "$(cat err)"
t "--record-session --gpu v100: the same" 2 - "^tileadvise: unknown GPU 'v100' \(known: h200, h100, b200, a100, l40s, rtx4090\)$" \
	--record-session s.json --gpu v100 k.py
# --list-rules in JSON (issue 30): the same entries, in the same order, as the
# table; a format it does not write is refused.
t "--list-rules --format=json is JSON" 0 '^\[$' - --list-rules --format=json
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert all(set(r) >= {"id", "section", "title", "edit", "needs", "status", "fix", "assumes"} for r in rows)
print(" ".join(r["id"] for r in rows))' out >ids 2>&1
"$TILEADVISE" --list-rules | awk 'NR > 1 && $1 ~ /^[TLPSGD][0-9]+$/ { printf "%s%s", sep, $1; sep = " " } END { print "" }' >table_ids
if [ -s ids ] && cmp -s ids table_ids; then ok "... with the table's entries in its order"
else not_ok "... with the table's entries in its order" "$(cat ids)" "$(cat table_ids)"; fi
t "--list-rules --format=sarif is refused" 2 - "^tileadvise: --list-rules writes text or json$" --list-rules --format=sarif
# Without a GPU the refusal says what works instead.
"$TILEADVISE" --profile k.py >out 2>err
if ! grep -q "cannot profile: .*no NVIDIA\|cannot profile: .*libcuda" err; then
	ok "no GPU: the message names --no-profile and --replay # SKIP a GPU is here"
elif grep -q -- "--no-profile, or --replay SESSION" err; then ok "no GPU: the message names --no-profile and --replay"
else not_ok "no GPU: the message names --no-profile and --replay" "$(cat err)"; fi
# Colour (issue 30): gcc's on a terminal (bold place, magenta warning, the
# ids in yellow), --color=always|never, NO_COLOR; a file name's own ESC is
# still shown as '?'; --list-rules' bold reaches the terminal as bold.
esc=$(printf '\033')
t "--color=always colours the diagnostics" 1 "^${esc}\[1mk\.py:[0-9]+:[0-9]+:${esc}\[0m ${esc}\[1;35mwarning:" - --check --color=always k.py
t "--color=never does not" 1 '^k\.py:[0-9]+:[0-9]+: warning:' - --check --color=never k.py
if grep -q "$esc" out; then not_ok "... no escape at all with never"; else ok "... no escape at all with never"; fi
t "--color=auto into a pipe does not" 1 '^k\.py:[0-9]+:[0-9]+: warning:' - --check k.py
t "--color=sometimes is refused" 2 - "--color takes auto, always or never, not 'sometimes'" --check --color=sometimes k.py
cp k.py "e${esc}[31mvil.py"
"$TILEADVISE" --check --color=always "e${esc}[31mvil.py" >out 2>err
if grep -q "e?\[31mvil\.py:" out && ! grep -q "e${esc}\[31m" out; then ok "a name's own ESC stays '?' with colour on"
else not_ok "a name's own ESC stays '?' with colour on" "$(cat -v out | head -2)"; fi
if command -v script >/dev/null 2>&1; then
	script -q -c "\"$TILEADVISE\" --check k.py" /dev/null >tty_out 2>&1
	if grep -q "${esc}\[1;35mwarning:" tty_out; then ok "on a terminal, colour by default"
	else not_ok "on a terminal, colour by default" "$(cat -v tty_out | head -2)"; fi
	NO_COLOR=1 script -q -c "\"$TILEADVISE\" --check k.py" /dev/null >tty_out 2>&1
	if grep -q "$esc" tty_out; then not_ok "NO_COLOR turns it off" "$(cat -v tty_out | head -2)"
	else ok "NO_COLOR turns it off"; fi
	script -q -c "\"$TILEADVISE\" --list-rules" /dev/null >tty_out 2>&1
	if grep -q "^${esc}\[1mID " tty_out && ! grep -q '?\[1m' tty_out; then ok "--list-rules on a terminal: bold, not ?[1m"
	else not_ok "--list-rules on a terminal: bold, not ?[1m" "$(cat -v tty_out | head -2)"; fi
else
	for d in "on a terminal, colour by default" "NO_COLOR turns it off" "--list-rules on a terminal: bold, not ?[1m"; do
		ok "$d # SKIP no script(1) here"
	done
fi
# --profile --format=csv and markdown (issue 30): one row per kernel and
# launch shape, a header first; a spreadsheet or a markdown reader takes them.
rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
"$TILEADVISE" --profile --gpu h200 --records "$rec" --format=csv "$TA_SRCDIR/examples/attention/attention.py" >out 2>err
python3 - out <<'PY' >csv_check 2>&1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and rows[0]["kernel"] == "gemma_attn_fwd" and rows[0]["main"] == "yes", rows[:1]
assert rows[0]["median_us"] == "1932.205" and rows[0]["limiter"] == "shared memory", rows[0]
assert all(r["kernel"] == "gemma_attn_fwd" for r in rows) and len({r["shape"] for r in rows}) == len(rows)
print("ok")
PY
if grep -qx ok csv_check; then ok "--profile --format=csv: a header, then one row per launch shape"
else not_ok "--profile --format=csv: a header, then one row per launch shape" "$(cat csv_check err)"; fi
"$TILEADVISE" --profile --gpu h200 --records "$rec" --format=markdown "$TA_SRCDIR/examples/attention/attention.py" >out 2>err
if grep -q '^| kernel | shape | main | launches ' out && grep -q '^| gemma_attn_fwd | 1 | yes | 285 | 284 |' out; then
	ok "--profile --format=markdown: the same rows as a table"
else not_ok "--profile --format=markdown: the same rows as a table" "$(head -5 out)" "$(cat err)"; fi
