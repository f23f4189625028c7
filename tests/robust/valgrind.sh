#!/bin/sh
# valgrind memcheck over a representative set of command lines: no invalid
# access, no use of uninitialised values, nothing definitely lost. Run by
# .ci/run on the plain (-O2 -g) build, not by `make check` (it is slow).
#
#   tests/robust/valgrind.sh [TILEADVISE]
#
# TAP; one line per command. Env: TA_SRCDIR (default: this tree).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/common.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
TILEADVISE=${1:-${TILEADVISE:-./_build/src/tileadvise}}
src=$TA_SRCDIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-vg-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
cp "$src/tests/fixtures/edits/d12.before.py" "$tmp/k.py"
printf 'import triton\n\000\001' >"$tmp/binary.py"

# Each line: a description, a tab, the arguments (word-split; no spaces in paths).
ex="$src/examples"
prof="$src/tests/profiles/h200-2026-11-29-example"
cat >"$tmp/cases" <<EOC
--report attention (text)	--report $ex/attention/attention.py
--report matmul (json)	--report --format json $ex/matmul/matmul.py
--report layernorm (markdown)	--report --format markdown $ex/layernorm/layernorm.py
--report syntax errors	--report $src/tests/fixtures/model/syntax_errors.py
--report CRLF, BOM, tabs	--report $src/tests/fixtures/model/crlf_bom_tabs.py
--report a binary file (refused)	--report $tmp/binary.py
--check examples/ (text)	--check $ex
--check fixtures/rules (sarif)	--check --format sarif $src/tests/fixtures/rules
--check fixtures/edits (json)	--check --format json $src/tests/fixtures/edits
--profile --records matmul --gpu h200	--profile --records $prof-matmul.jsonl --gpu h200 $ex/matmul/matmul.py
--profile --records attention --gpu h200 (json)	--profile --format json --records $prof-attention.jsonl --gpu h200 $ex/attention/attention.py
--diff D12	--diff D12 $tmp/k.py
--apply D12 on a copy	--apply D12 $tmp/k.py
--undo	--undo $tmp/k.py
--redo	--redo $tmp/k.py
--undo again	--undo $tmp/k.py
--record-session with records	--record-session $tmp/s.json --records $prof-softmax.jsonl --gpu h200 $ex/softmax/softmax.py
--explain S3	--explain S3
--list-rules	--list-rules
EOC
echo "1..$(wc -l <"$tmp/cases")"
n=0
fail=0
tab=$(printf '\t')
while IFS="$tab" read -r desc args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
		--log-file="$tmp/vg.log" "$TILEADVISE" $args >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" -ne 99 ] && [ ! -s "$tmp/vg.log" ]; then
		echo "ok $n - valgrind: $desc (exit $rc)"
	else
		echo "not ok $n - valgrind: $desc (exit $rc)"
		sed 's/^/# /' "$tmp/vg.log" | head -n 40
		fail=1
	fi
done <"$tmp/cases"
exit 0
