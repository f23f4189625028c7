#!/bin/sh
# valgrind memcheck over a representative set of command lines, then the
# interactive advisor driven through tmux: no invalid access, no use of
# uninitialised values, nothing definitely lost. Run by .ci/run on the plain
# (-O2 -g) build, not by `make check` (it is slow).
#
#   tests/robust/valgrind.sh [TILEADVISE]
#
# TAP (tests/lib/tap.sh); one line per command, one per check of the advisor (skipped without
# tmux). Env: TA_SRCDIR (default: this tree); TA_TUI_TRIES, TA_PRESS_TRIES
# (tests/tui/lib.sh's bounds, 20 ms each: 3000 and 1500 here).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
TILEADVISE=${1:-${TILEADVISE:-./_build/src/tileadvise}}
src=$TA_SRCDIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-vg-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind not installed"
cases=$(ta_cases "$tmp/cases") || exit 99
cp "$cases/edits/d12.before.py" "$tmp/k.py"
printf 'import triton\n\000\001' >"$tmp/binary.py"

# Each line: a description, a tab, the arguments (word-split; no spaces in paths).
ex="$src/examples"
prof="$src/tests/recordings/h200-2026-11-29-example"
cat >"$tmp/commands" <<EOC
--report attention (text)	--report $ex/attention/attention.py
--report matmul (json)	--report --format json $ex/matmul/matmul.py
--report layernorm (markdown)	--report --format markdown $ex/layernorm/layernorm.py
--report syntax errors	--report $src/tests/fixtures/model/syntax_errors.py
--report CRLF, BOM, tabs	--report $src/tests/fixtures/model/crlf_bom_tabs.py
--report a binary file (refused)	--report $tmp/binary.py
--check examples/ (text)	--check $ex
--check the rule cases (sarif)	--check --format sarif $cases/rules
--check the edit cases (json)	--check --format json $cases/edits
--profile --records matmul --gpu h200	--profile --records $prof-matmul.jsonl --gpu h200 $ex/matmul/matmul.py
--profile --records attention --gpu h200 (json)	--profile --format json --records $prof-attention.jsonl --gpu h200 $ex/attention/attention.py
--diff D12	--diff D12 $tmp/k.py
--apply D12 on a copy	--apply D12 $tmp/k.py
--undo	--undo $tmp/k.py
--redo	--redo $tmp/k.py
--undo again	--undo $tmp/k.py
--record-session with records	--record-session $tmp/s.json --records $prof-softmax.jsonl --gpu h200 $ex/softmax/softmax.py
--record-session with --step	--record-session $tmp/w.json --records $prof-attention.jsonl --gpu h200 --step S8=$src/tests/recordings/h200-2026-11-29-attention-v2.jsonl --step S5=$src/tests/recordings/h200-2026-11-29-attention-v3.jsonl $ex/attention/attention.py
--explain S3	--explain S3
--list-rules	--list-rules
EOC
# The interactive advisor under tmux (below): its checks are counted here.
tui_checks=21
plan $(($(wc -l <"$tmp/commands") + tui_checks))
tab=$(printf '\t')
while IFS="$tab" read -r desc args; do
	# shellcheck disable=SC2086
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
		--log-file="$tmp/vg.log" "$TILEADVISE" $args >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	# a command that says "(refused)" exits 2, every other one 0 or 1: a
	# wrong path in this list is a failure, not a clean run of nothing
	case $desc in
	*"(refused)"*) want=2 ;;
	*) want=01 ;;
	esac
	[ "$rc" -ne 99 ] && [ ! -s "$tmp/vg.log" ] && case $want in *"$rc"*) true ;; *) false ;; esac
	result $? "valgrind: $desc (exit $rc)" "$(head -n 40 "$tmp/vg.log" "$tmp/err")"
done <"$tmp/commands"

# ---- the interactive advisor (src/ui/tui/) under valgrind -------------------
# Two sessions in a private tmux server (tests/tui/lib.sh): the recorded H200
# session of the attention example (--replay, read-only), then --no-profile
# on a copy of that example. Each goes through steps, the diff, help and log
# overlays, the too-small screen and back, an edit (refused in the replay;
# applied on the copy, where --no-profile means nothing runs after it) and
# undo, then quits; valgrind's log must stay empty. Waits are bounded (60 s
# each by default) and give up at once when the advisor has already exited.
if ! command -v tmux >/dev/null 2>&1; then
	skip_rest "tmux not installed"
	finish
fi
(
	. "$src/tests/tui/lib.sh"
	: "${TA_TUI_TRIES:=3000}" "${TA_PRESS_TRIES:=1500}"
	export TA_TUI_TRIES TA_PRESS_TRIES
	vg="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99"
	ex="$src/examples/attention"
	# vg_wait ERE: ta_wait that stops early once the pane shows EXIT=.
	vg_wait() {
		ta_wait "$1|^EXIT=[0-9]" && grep -Eq -- "$1" "$TA_TMP/last-screen"
	}
	# vg_clean NAME: the advisor quit with status 0 and valgrind logged nothing.
	vg_clean() {
		ta_wait "^EXIT=[0-9]" || return 1
		grep -qx "EXIT=0" "$TA_TMP/last-screen" && [ ! -s "$TA_TMP/$1.log" ] && return 0
		sed 's/^/# /' "$TA_TMP/$1.log" | head -n 60
		grep -v '^$' "$TA_TMP/last-screen" >"$TA_TMP/s" && mv "$TA_TMP/s" "$TA_TMP/last-screen"
		return 1
	}
	# vg_tour: the keys both sessions share, from the walk back to the walk.
	# Under valgrind a frame is drawn slowly: ta_press returns on the first
	# change, so a key sent then can land before the page shows the step the
	# last one chose. Here each key waits for the screen to stay the same.
	vg_settle() {
		vg_a=$(ta_screen)
		for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 \
			26 27 28 29 30 31 32 33 34 35 36 37 38 39 40; do
			sleep 0.5
			vg_b=$(ta_screen)
			[ "$vg_a" = "$vg_b" ] && return 0
			vg_a=$vg_b
		done
		return 1
	}
	vg_step_to() {
		for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 \
			26 27 28 29 30 31 32 33 34 35 36 37 38 39 40; do
			vg_settle
			ta_screen >"$TA_TMP/last-screen"
			grep -Eq "(│|\|) $1 (·|-) " "$TA_TMP/last-screen" && return 0
			ta_keys j
		done
		return 1
	}
	vg_tour() {
		check "$1: j moves to S3" vg_step_to S3
		ta_keys k
		vg_settle
		ta_keys j
		vg_settle
		check "$1: k and j come back to S3" vg_wait "(│|\|) S3 (·|-) "
		ta_press d
		check "$1: d shows the diff" vg_wait "Diff of S3"
		ta_press Escape
		ta_press "?"
		check "$1: ? shows the help" vg_wait "Help: tileadvise keys"
		ta_press Escape
		ta_press l
		check "$1: l shows the log" vg_wait "Output of the last run"
		ta_press Escape
		ta_resize 60 20
		check "$1: 60x20 shows the too-small screen" vg_wait "Terminal too small"
		ta_resize 80 24
		check "$1: back at 80x24 the walk returns" vg_wait "Walk of gemma_attn_fwd"
	}

	ta_start 80 24 "$vg --log-file='$TA_TMP/replay.log' '$TILEADVISE' --replay '$ex/session.h200.json'"
	check "valgrind, tui --replay: the recorded walk" \
		vg_wait "recorded on NVIDIA H200 — replay, read-only"
	vg_tour "valgrind, tui --replay"
	ta_press a
	check "valgrind, tui --replay: a is refused (read-only)" vg_wait "recorded session, shown read-only"
	ta_keys q
	check "valgrind, tui --replay: q, no errors, nothing definitely lost" vg_clean replay

	mkdir -p "$TA_TMP/w"
	cp "$ex/attention.py" "$TA_TMP/w/attention.py"
	# S3 turns lines 76-77 into one.
	awk 'NR == 76 { next } NR == 77 { print "        qk = tl.dot(q, k.T)"; next } { print }' \
		"$ex/attention.py" >"$TA_TMP/expected.py"
	ta_start 80 24 "cd '$TA_TMP/w' && $vg --log-file='$TA_TMP/edit.log' '$TILEADVISE' --no-profile attention.py"
	check "valgrind, tui --no-profile: the walk, profiling off" \
		vg_wait "profiling off \(--no-profile\)"
	vg_tour "valgrind, tui --no-profile"
	ta_press a
	applied() { vg_wait "applied S3 at line 77" && cmp -s "$TA_TMP/w/attention.py" "$TA_TMP/expected.py"; }
	check "valgrind, tui --no-profile: a applies S3 to the copy (no run)" applied
	ta_press u
	undone() { vg_wait "undid S3" && cmp -s "$TA_TMP/w/attention.py" "$ex/attention.py"; }
	check "valgrind, tui --no-profile: u restores the copy" undone
	ta_keys q
	check "valgrind, tui --no-profile: q, no errors, nothing definitely lost" vg_clean edit
	finish
)
