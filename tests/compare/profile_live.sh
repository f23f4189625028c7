#!/bin/sh
# What `tileadvise --profile` says of live runs, saved so that a change of
# how it runs them can be shown to keep it (issue 28: --profile a driver of
# the advisor's runs). No GPU is needed: each child is a shell command that
# writes a recorded H200 stream to the record socket the runner gives it
# (TILEADVISE_RECORD_FD), with --gpu h200 for the device's facts. Cases:
# text and json; --repeat 3; --save-records (the stream saved, its wall
# times left out); a child that fails after printing (the log tail); one
# that cannot start; one that times out; one whose output names another
# CUPTI client; one that sends nothing; --deep (three children: timed, PC
# sampling, counters); --baseline CMD (measured as often as the file),
# failing, and --baseline-records that do not read; --repeat with a child
# failing once. Run from the top of the tree:
#
#   tests/compare/profile_live.sh TILEADVISE OUTDIR
#
# then `diff -r BEFORE AFTER`. Wall times (the runner's "run" lines, a
# child's seconds, the --deep runs' overhead) are masked.
set -u
ta=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
rec=$(pwd)/tests/recordings
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-live.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

mask() {
	sed -e 's/"wall_s":[0-9.e+-]*/"wall_s":W/g' -e 's/[0-9][0-9]*\.[0-9][0-9]* s\b/T s/g' \
		-e 's/[0-9.]*× the timed run/R× the timed run/g' -e 's/"\([a-z_]*overhead\)": *[0-9.e+-]*/"\1": R/g' \
		-e "s|$tmp|TMP|g" "$@"
}

# case NAME ARGS...: stdout, stderr, exit status (and a saved stream)
case_() {
	n=$1
	shift
	rm -f "$tmp/saved.jsonl"
	"$ta" --profile --gpu h200 "$@" >"$tmp/o" 2>"$tmp/e"
	echo "$?" >"$out/$n.rc"
	mask "$tmp/o" >"$out/$n.out"
	mask "$tmp/e" >"$out/$n.err"
	[ ! -f "$tmp/saved.jsonl" ] || mask "$tmp/saved.jsonl" >"$out/$n.saved"
}

att=examples/attention/attention.py
attrec=$rec/h200-2026-11-29-example-attention.jsonl
mm=tests/gpu/kernels/matmul.py
mmrec=$rec/h200-2026-11-29-deep-matmul.jsonl
send() { printf 'cat %s >&$TILEADVISE_RECORD_FD' "$1"; }
# a child that sends once and fails every other time (the count in a file)
cat >"$tmp/flaky.sh" <<EOF
cat $attrec >&\$TILEADVISE_RECORD_FD
n=\$(cat $tmp/count 2>/dev/null || echo 0); echo \$((n + 1)) >$tmp/count
[ \$((n % 2)) -eq 0 ] || { echo "odd run \$n"; exit 3; }
EOF

for fmt in text json; do
	case_ "plain.$fmt" --format "$fmt" "$att" -- sh -c "$(send "$attrec")"
	case_ "repeat.$fmt" --format "$fmt" --repeat 3 "$att" -- sh -c "$(send "$attrec")"
	case_ "save.$fmt" --format "$fmt" --save-records "$tmp/saved.jsonl" "$att" -- sh -c "$(send "$attrec")"
	case_ "fails.$fmt" --format "$fmt" "$att" -- sh -c "$(send "$attrec"); echo one; echo two; exit 1"
	case_ "noexec.$fmt" --format "$fmt" "$att" -- /nonexistent/python3 x.py
	case_ "timeout.$fmt" --format "$fmt" --timeout 1 "$att" -- sh -c "$(send "$attrec"); sleep 5"
	case_ "client.$fmt" --format "$fmt" "$att" -- sh -c "$(send "$attrec"); echo 'CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED'"
	case_ "silent.$fmt" --format "$fmt" "$att" -- sh -c "echo nothing sent"
	case_ "deep.$fmt" --format "$fmt" --deep "$mm" -- sh -c "$(send "$mmrec")"
	case_ "deep-save.$fmt" --format "$fmt" --deep --save-records "$tmp/saved.jsonl" "$mm" -- sh -c "$(send "$mmrec")"
	case_ "deep-client.$fmt" --format "$fmt" --deep "$mm" -- sh -c "$(send "$mmrec"); echo MULTIPLE_SUBSCRIBERS"
	case_ "deep-fails.$fmt" --format "$fmt" --deep "$mm" -- sh -c "$(send "$mmrec"); exit 1"
	case_ "baseline.$fmt" --format "$fmt" --baseline "$(send "$rec/h200-2026-11-29-attention-v2.jsonl")" "$att" \
		-- sh -c "$(send "$attrec")"
	case_ "baseline-repeat.$fmt" --format "$fmt" --repeat 2 \
		--baseline "$(send "$rec/h200-2026-11-29-attention-v2.jsonl")" "$att" -- sh -c "$(send "$attrec")"
	case_ "baseline-fails.$fmt" --format "$fmt" --baseline "exit 4" "$att" -- sh -c "$(send "$attrec")"
	case_ "baseline-badrec.$fmt" --format "$fmt" --baseline-records /nonexistent.jsonl "$att" -- sh -c "$(send "$attrec")"
	case_ "baseline-rec.$fmt" --format "$fmt" --baseline-records "$rec/h200-2026-11-29-attention-v2.jsonl" \
		"$att" -- sh -c "$(send "$attrec")"
	rm -f "$tmp/count"
	case_ "flaky.$fmt" --format "$fmt" --repeat 3 "$att" -- sh "$tmp/flaky.sh"
done
# Without --gpu and without a GPU: one line.
"$ta" --profile "$att" -- sh -c true >"$out/nogpu.out" 2>"$tmp/e"
echo "$?" >"$out/nogpu.rc"
mask "$tmp/e" >"$out/nogpu.err"
# A file that does not read, and an unknown GPU.
"$ta" --profile --gpu h200 /nonexistent/k.py -- sh -c true >"$out/nofile.out" 2>"$out/nofile.err"
echo "$?" >"$out/nofile.rc"
"$ta" --profile --gpu a100 "$att" -- sh -c true >"$out/a100.out" 2>"$out/a100.err"
echo "$?" >"$out/a100.rc"
