#!/bin/sh
# What a user checks on the bundled examples, example by example:
# --report (text and json) finds the kernel the example is about and exits
# 0 without an error line; --check reports every planted pattern of its
# expected-findings.txt at its line; the recorded H200 session opens with
# --report --replay and lists the same steps; a session recorded with a
# baseline reports the comparison T4/T5 use. Prints TAP (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
ex="$TA_SRCDIR/examples"
prof="$TA_SRCDIR/tests/recordings"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The example and the kernel it exists to show.
examples="softmax:softmax_kernel layernorm:layernorm_fwd_kernel matmul:bmm_kernel
attention:gemma_attn_fwd cat:copy_kernel"
plan $((5 * 9 + 3))
for pair in $examples; do
	name=${pair%%:*}
	kernel=${pair#*:}
	file="$ex/$name/$name.py"

	"$TILEADVISE" --report "$file" >"$tmp/text" 2>"$tmp/err"
	result $? "$name: --report exits 0"
	grep -q "^$file: 1 kernel," "$tmp/text" && grep -q "^kernel $kernel  (lines " "$tmp/text"
	result $? "$name: --report finds the one kernel $kernel"
	! grep -qi "error" "$tmp/text" "$tmp/err"
	result $? "$name: --report prints no error line"

	"$TILEADVISE" --report --format=json "$file" >"$tmp/json" 2>"$tmp/err"
	result $? "$name: --report --format=json exits 0"
	grep -q '"syntax_errors": \[\]' "$tmp/json" && grep -q "\"name\": \"$kernel\"" "$tmp/json" && [ ! -s "$tmp/err" ]
	result $? "$name: the json names $kernel, without syntax errors"

	# --check exits 1 (findings): every planted ID at its LINE is there (entries
	# in preview too: a planted finding stays found whatever the default set).
	"$TILEADVISE" --check --preview --show-notes "$file" >"$tmp/check" 2>&1
	rc=$?
	missing=$(grep -v '^#' "$ex/$name/expected-findings.txt" | while read -r id line _; do
		[ -n "$id" ] || continue
		# One diagnostic may carry served ids too: [S5, G1]; S1's, once per
		# kernel, names its other sites "at line N".
		grep -Eq "^$file:$line:[0-9]+: .*\[([A-Z0-9]+, )*$id(, [A-Z0-9]+)*\]$" "$tmp/check" ||
			grep -Eq "^$file:[0-9]+:[0-9]+: .* at line $line[^0-9].*\[([A-Z0-9]+, )*$id(, [A-Z0-9]+)*\]$" "$tmp/check" ||
			echo "$id@$line"
	done)
	[ "$rc" -eq 1 ] && [ -z "$missing" ]
	result $? "$name: --check reports every planted finding${missing:+ (missing: $(echo $missing))}"

	session="$ex/$name/session.h200.json"
	"$TILEADVISE" --report --replay "$session" >"$tmp/md" 2>"$tmp/err"
	result $? "$name: --report --replay of the recorded session exits 0"
	grep -q "^# tileadvise session: $name.py$" "$tmp/md" && grep -q "^- GPU: NVIDIA H200 " "$tmp/md" &&
		grep -q "^| \`$kernel\` | " "$tmp/md"
	result $? "$name: the session report names the file, the H200 and the measured $kernel"
	missing=$(grep -v '^#' "$ex/$name/expected-findings.txt" | while read -r id _; do
		[ -n "$id" ] || continue
		grep -q "^- \*\*$id\*\* — " "$tmp/md" || echo "$id"
	done | sort -u)
	[ -z "$missing" ]
	result $? "$name: the session report lists every planted step${missing:+ (missing: $(echo $missing))}"
done

# A session recorded with a baseline: softmax against its earlier run.
"$TILEADVISE" --record-session "$tmp/s.json" --gpu h200 --records "$prof/h200-2026-11-29-example-softmax.jsonl" \
	--baseline-records "$prof/h200-2026-11-29-softmax.jsonl" "$ex/softmax/softmax.py" 2>/dev/null
result $? "softmax: --record-session with --baseline-records exits 0"
"$TILEADVISE" --report --replay "$tmp/s.json" >"$tmp/md" 2>&1
grep -q "^## Baseline (.*h200-2026-11-29-softmax.jsonl)$" "$tmp/md" &&
	grep -q "^| \`softmax_kernel\` | 262.5 µs | the same kernel | 260.7 µs | 1.01 |$" "$tmp/md"
result $? "softmax: its report compares the kernel with the baseline"
"$TILEADVISE" --report --replay "$tmp/s.json" --format=json >/dev/null 2>&1
[ $? -eq 2 ]
result $? "--report --replay refuses json (the session file is the json)"
finish
