#!/bin/sh
# What the advisor's front ends say, saved so that a restructure of them
# (issue 28: one advisor core under the TUI, --record-session, --profile and
# --walk) can be shown to keep it, byte for byte:
#
#   profile/   --profile --records STREAM FILE for every recorded stream of
#              tests/recordings (each with the kernel file it ran): text and
#              json, plain, --deep, and --baseline-records (the stream itself,
#              and for the attention walk's streams the version before),
#              stdout and stderr and the exit status; and with --gpu a100 (an
#              unknown GPU), and with no --gpu
#   record/    --record-session OUT --records STREAM FILE for the same pairs
#              (with --gpu h200, with --baseline-records, with --gpu a100), the
#              session and its --report --replay
#   walk/      --record-session --step: tests/gpu/walks.sh over the three
#              archives of results/gpu (every example), and the five-step
#              attention walk of tests/cli/record_walk.sh, sessions and reports
#   replay/    --report --replay of every committed examples/*/session*.json
#   corpus/    --check --fixes --format=json over a list of files (one run)
#
# Sessions keep the time they were written ("updated", "last saved") and a
# session made without records the time it was made: those lines are left
# out. Run from the top of the tree:
#
#   tests/compare/advisor.sh TILEADVISE OUTDIR [CORPUS.list]
#
# then `diff -r BEFORE AFTER`.
set -u
ta=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
list=${3:-}
mkdir -p "$out/profile" "$out/record" "$out/walk" "$out/replay" "$out/corpus" || exit 1
out=$(cd "$out" && pwd)
rec=tests/recordings
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-compare.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# The time a session was written, and when it was made without a run.
stamp() {
	sed -e '/^ *"updated": /d' -e '/^ *"created": /d' -e '/^- session started /d' "$@"
}

# run NAME CMD...: stdout, stderr and the exit status into NAME.{out,err,rc}
run() {
	n=$1
	shift
	"$@" >"$n.out" 2>"$tmp/err"
	echo "$?" >"$n.rc"
	sed "s|$tmp|TMP|g" "$tmp/err" >"$n.err"
}

# STREAM FILE BASELINE: each recorded stream, the kernel file it ran and the
# stream its baseline variant compares with.
pairs() {
	cat <<EOF
attention-autotune examples/attention/attention.py attention-autotune
attention-v2 examples/attention/attention.py example-attention
attention-v3 examples/attention/attention.py attention-v2
attention-v4 examples/attention/attention.py attention-v3
attention-v5 examples/attention/attention.py attention-v4
attention tests/gpu/kernels/attention.py attention
deep-kineto tests/gpu/kernels/with_profiler.py deep-kineto
deep-matmul tests/gpu/kernels/matmul.py matmul
deep-slowline tests/gpu/kernels/slowline.py deep-slowline
deep-vector_add tests/gpu/kernels/vector_add.py vector-add
example-attention examples/attention/attention.py example-attention
example-cat examples/cat/cat.py example-cat
example-layernorm examples/layernorm/layernorm.py example-layernorm
example-matmul examples/matmul/matmul.py example-matmul
example-softmax examples/softmax/softmax.py example-softmax
matmul tests/gpu/kernels/matmul.py matmul
softmax-p1 tests/recordings/h200-2026-11-29-softmax-p1.py softmax-p1
softmax tests/gpu/kernels/softmax.py softmax
vector-add tests/gpu/kernels/vector_add.py vector-add
callperiod-adaptive examples/attention/attention.py callperiod-adaptive
kineto-adaptive tests/gpu/kernels/with_profiler.py kineto-adaptive
EOF
}

stream() {
	ls "$rec"/h200-*-"$1".jsonl | head -n 1
}

pairs | while read -r s f b; do
	r=$(stream "$s")
	base=$(stream "$b")
	p="$out/profile/$s"
	for fmt in text json; do
		run "$p.$fmt" "$ta" --profile --gpu h200 --format "$fmt" --records "$r" "$f"
		run "$p.$fmt.deep" "$ta" --profile --deep --gpu h200 --format "$fmt" --records "$r" "$f"
		run "$p.$fmt.baseline" "$ta" --profile --gpu h200 --format "$fmt" --records "$r" \
			--baseline-records "$base" "$f"
		run "$p.$fmt.nogpu" "$ta" --profile --format "$fmt" --records "$r" "$f"
		run "$p.$fmt.a100" "$ta" --profile --gpu a100 --format "$fmt" --records "$r" "$f"
	done
	q="$out/record/$s"
	for v in h200 baseline a100; do
		rm -f "$tmp/s.json"
		case $v in
		h200) run "$q.$v" "$ta" --record-session "$tmp/s.json" --gpu h200 --records "$r" "$f" ;;
		baseline) run "$q.$v" "$ta" --record-session "$tmp/s.json" --gpu h200 --records "$r" \
			--baseline-records "$base" "$f" ;;
		a100) run "$q.$v" "$ta" --record-session "$tmp/s.json" --gpu a100 --records "$r" "$f" ;;
		esac
		if [ -f "$tmp/s.json" ]; then
			stamp "$tmp/s.json" >"$q.$v.session.json"
			"$ta" --report --replay "$tmp/s.json" 2>&1 | stamp >"$q.$v.report.md"
		fi
	done
done

# The walks tests/gpu/walks.sh makes from what edits.sh brought back.
for a in attention b attention-b; do
	arch=results/gpu/edits-h200-2026-11-29-$a
	TILEADVISE="$ta" sh tests/gpu/walks.sh "$arch.tsv" "$arch.tar.gz" "$tmp/walks-$a" \
		>"$tmp/wout" 2>"$tmp/err"
	echo "$?" >"$out/walk/walks-$a.rc"
	sed "s|$tmp|TMP|g" "$tmp/wout" >"$out/walk/walks-$a.out"
	sed "s|$tmp|TMP|g" "$tmp/err" >"$out/walk/walks-$a.err"
	for sess in "$tmp/walks-$a"/*/session-walk.h200.json; do
		[ -f "$sess" ] || continue
		n=$(basename "$(dirname "$sess")")
		stamp "$sess" >"$out/walk/$a-$n.session.json"
		"$ta" --report --replay "$sess" 2>&1 | stamp >"$out/walk/$a-$n.report.md"
	done
done
# The five-step attention walk of tests/cli/record_walk.sh, from its archive.
tar -C "$tmp" -xzf results/gpu/edits-h200-2026-11-29-attention.tar.gz
d="$tmp/attention"
run "$out/walk/five" "$ta" --record-session "$tmp/five.json" --gpu h200 \
	--records "$rec/h200-2026-11-29-example-attention.jsonl" \
	--step "G8=$d/rec-1.jsonl,$d/v1.py" --step "S8=$d/rec-2.jsonl,$d/v2.py" \
	--step "S5=$d/rec-3.jsonl,$d/v3.py" --step "S3=$d/rec-4.jsonl,$d/v4.py" \
	--step "S6=$d/rec-5.jsonl,$d/v5.py" examples/attention/attention.py
stamp "$tmp/five.json" >"$out/walk/five.session.json"
"$ta" --report --replay "$tmp/five.json" 2>&1 | stamp >"$out/walk/five.report.md"
# Steps without measured files, and with an unknown GPU.
run "$out/walk/two" "$ta" --record-session "$tmp/two.json" --gpu h200 \
	--records "$rec/h200-2026-11-29-example-attention.jsonl" \
	--step "S8=$rec/h200-2026-11-29-attention-v2.jsonl" \
	--step "S5=$rec/h200-2026-11-29-attention-v3.jsonl" examples/attention/attention.py
stamp "$tmp/two.json" >"$out/walk/two.session.json"
run "$out/walk/two-a100" "$ta" --record-session "$tmp/two-a100.json" --gpu a100 \
	--records "$rec/h200-2026-11-29-example-attention.jsonl" \
	--step "S8=$rec/h200-2026-11-29-attention-v2.jsonl" examples/attention/attention.py
[ ! -f "$tmp/two-a100.json" ] || stamp "$tmp/two-a100.json" >"$out/walk/two-a100.session.json"

# The committed sessions as their replays report them.
for sess in examples/*/session*.json; do
	n=$(printf '%s' "$sess" | tr '/' '%')
	"$ta" --report --replay "$sess" >"$out/replay/$n.md" 2>&1
	echo "exit $?" >>"$out/replay/$n.md"
done

if [ -n "$list" ]; then
	xargs -d '\n' "$ta" --check --fixes --format=json <"$list" >"$out/corpus/check-fixes.json" \
		2>"$out/corpus/check-fixes.err"
	echo "$?" >"$out/corpus/check-fixes.rc"
fi
