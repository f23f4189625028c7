# Helpers for the tmux-driven screen tests: a private tmux server, keys in,
# the screen captured as text, bounded waits (no fixed sleeps), TAP out
# (tests/lib/tap.sh: a failed check prints the last screen captured).
# Needs TILEADVISE (the built binary) and TA_SRCDIR (the source tree).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"

: "${TILEADVISE:?set TILEADVISE to the built tileadvise}"
: "${TA_SRCDIR:?set TA_SRCDIR to the source tree}"
TA_SOCK="ta-test-$$"
TA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ta-tui.XXXXXX")

ta_tmux() { tmux -L "$TA_SOCK" -f /dev/null "$@"; }

# The commands panes run (their shells' children; /proc, since procps may
# be absent): ta_pane_kids [SESSION] lists them, for one session or all.
ta_pane_kids() {
	if [ $# -gt 0 ]; then
		shells=$(ta_tmux list-panes -t "$1" -F '#{pane_pid}' 2>/dev/null)
	else
		shells=$(ta_tmux list-panes -a -F '#{pane_pid}' 2>/dev/null)
	fi
	for d in /proc/[0-9]*; do
		# field 4 of /proc/PID/stat is the parent
		pp=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "$d/stat" 2>/dev/null) || continue
		for s in $shells; do
			[ "$pp" = "$s" ] && printf '%s\n' "${d#/proc/}"
		done
	done
}

# ta_reap PID...: after the hangup that ends their session, waits 3 s for
# each and kills what is left, so that no advisor outlives its test (an
# ASan build's exit-time leak check, tracing the advisor while it spins,
# was seen hung for half an hour after a CI run).
ta_reap() {
	for k in "$@"; do
		tries=150
		while [ "$tries" -gt 0 ] && kill -0 "$k" 2>/dev/null; do
			tries=$((tries - 1))
			sleep 0.02
		done
		kill -9 "$k" 2>/dev/null
	done
}

ta_cleanup() {
	kids=$(ta_pane_kids)
	ta_tmux kill-server 2>/dev/null
	# shellcheck disable=SC2086
	ta_reap $kids
	rm -rf "$TA_TMP"
}
trap ta_cleanup EXIT
TAP_ON_FAIL='[ ! -f "$TA_TMP/last-screen" ] || cat "$TA_TMP/last-screen"'

# Skips the whole script (TAP) when tmux is missing.
ta_need_tmux() {
	command -v tmux >/dev/null 2>&1 || skip_all "tmux not installed"
}

# ta_start W H COMMAND...: runs COMMAND in a fresh window of W x H; when
# it ends the pane shows "EXIT=<status>".
TA_WIN=0
ta_start() {
	w=$1 h=$2
	shift 2
	# The new session comes up before the old one goes: killing the last
	# session makes the tmux server exit, and a new-session racing that
	# exit fails under load.
	old=$TA_WIN
	TA_WIN=$((TA_WIN + 1))
	ta_tmux new-session -d -x "$w" -y "$h" -s "t$TA_WIN" \
		"$* ; echo EXIT=\$?; exec sleep 600"
	if [ "$old" -gt 0 ]; then
		kids=$(ta_pane_kids "t$old")
		ta_tmux kill-session -t "t$old" 2>/dev/null
		# shellcheck disable=SC2086
		ta_reap $kids
	fi
	ta_tmux set-option -t "t$TA_WIN" status off >/dev/null
	ta_tmux resize-window -t "t$TA_WIN" -x "$w" -y "$h" 2>/dev/null
}

ta_screen() { ta_tmux capture-pane -p -t "t$TA_WIN" 2>/dev/null; }
ta_screen_attr() { ta_tmux capture-pane -p -e -t "t$TA_WIN" 2>/dev/null; }
ta_keys() { ta_tmux send-keys -t "t$TA_WIN" "$@"; }
ta_resize() { ta_tmux resize-window -t "t$TA_WIN" -x "$1" -y "$2"; }

# ta_wait PATTERN [TRIES]: polls the screen until a line matches the
# extended regular expression (20 ms apart, 60 s by default: sanitizer
# builds under a parallel make are slow). Returns 1
# on timeout and keeps the last screen in $TA_TMP/last-screen.
ta_wait() {
	tries=${2:-${TA_TUI_TRIES:-3000}}
	while [ "$tries" -gt 0 ]; do
		ta_screen >"$TA_TMP/last-screen"
		grep -Eq -- "$1" "$TA_TMP/last-screen" && return 0
		tries=$((tries - 1))
		sleep 0.02
	done
	return 1
}

# ta_wait_fixed STRING: ta_wait for a fixed string.
ta_wait_fixed() {
	tries=${TA_TUI_TRIES:-3000}
	while [ "$tries" -gt 0 ]; do
		ta_screen >"$TA_TMP/last-screen"
		grep -qF -- "$1" "$TA_TMP/last-screen" && return 0
		tries=$((tries - 1))
		sleep 0.02
	done
	return 1
}

# ta_until COMMAND...: retries a check on the screen (a frame may be caught
# half drawn) until it holds, bounded like ta_wait.
ta_until() {
	tries=${TA_TUI_TRIES:-3000}
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		tries=$((tries - 1))
		sleep 0.02
	done
	return 1
}

# ta_wait_gone PATTERN: the opposite.
ta_wait_gone() {
	tries=${2:-${TA_TUI_TRIES:-3000}}
	while [ "$tries" -gt 0 ]; do
		ta_screen >"$TA_TMP/last-screen"
		grep -Eq -- "$1" "$TA_TMP/last-screen" || return 0
		tries=$((tries - 1))
		sleep 0.02
	done
	return 1
}

# ta_press KEY...: sends the keys and waits (bounded) until the screen
# changes; returns 1 when it did not.
ta_press() {
	before=$(ta_screen)
	ta_keys "$@"
	tries=${TA_PRESS_TRIES:-250}
	while [ "$tries" -gt 0 ]; do
		[ "$(ta_screen)" != "$before" ] && return 0
		tries=$((tries - 1))
		sleep 0.02
	done
	return 1
}

# ta_step_to ID: presses j until the step page shows step ID (at most 60).
ta_step_to() {
	i=0
	# from the top: the advisor opens on the first step to act on, which
	# may lie below the one asked for
	ta_screen >"$TA_TMP/last-screen"
	grep -Eq "(│|\|) $1 (·|-) " "$TA_TMP/last-screen" && return 0
	ta_keys g
	sleep 0.2
	while [ $i -lt 60 ]; do
		ta_screen >"$TA_TMP/last-screen"
		grep -Eq "(│|\|) $1 (·|-) " "$TA_TMP/last-screen" && return 0
		ta_press j || return 1
		i=$((i + 1))
	done
	return 1
}

# ta_screen_is NAME DESC: a check that the whole screen equals the expected
# screen tests/tui/screens/NAME.txt (text, no attributes). A frame caught
# half drawn is captured again, for up to 5 s; then the check fails with the
# difference as TAP comments. With TA_UPDATE_SCREENS=1 the screen on show
# (once it has stayed the same for 0.5 s) is written as the expected one
# instead: read it before committing it.
ta_screen_is() {
	want="$TA_SRCDIR/tests/tui/screens/$1.txt"
	got="$TA_TMP/screen-$1.txt"
	if [ -n "${TA_UPDATE_SCREENS:-}" ]; then
		ta_screen >"$got"
		tries=25
		while [ "$tries" -gt 0 ]; do
			sleep 0.02
			ta_screen >"$got.again"
			if cmp -s "$got" "$got.again"; then tries=$((tries - 1)); else mv "$got.again" "$got"; tries=25; fi
		done
		cp "$got" "$want"
	fi
	tries=${TA_SCREEN_TRIES:-250}
	while [ "$tries" -gt 0 ]; do
		ta_screen >"$got"
		cmp -s "$want" "$got" && break
		tries=$((tries - 1))
		sleep 0.02
	done
	ta_on_fail=$TAP_ON_FAIL
	TAP_ON_FAIL=
	check_diff "$2" "$want" "$got"
	TAP_ON_FAIL=$ta_on_fail
}

# ---- key scripts (TILEADVISE_SCRIPT): no terminal, no tmux, no polling ----

# ta_script DIR KEYS ARGS...: runs the advisor in DIR on a virtual screen,
# its keys from the key script KEYS (a file; each key taken when the
# advisor is idle; `:screen PATH` saves the screen, `:size W H` resizes),
# with ARGS; its output in $TA_TMP/script-out, its status returned.
ta_script() {
	sdir=$1 skeys=$2
	shift 2
	(cd "$sdir" && TILEADVISE_SCRIPT="$skeys" "$TILEADVISE" "$@") >"$TA_TMP/script-out" 2>&1
}

# ta_saved_is NAME DESC: a check that the screen a key script saved as
# $TA_TMP/screens/NAME.txt equals tests/tui/screens/NAME.txt; with
# TA_UPDATE_SCREENS=1 the saved screen becomes the expected one (read it
# before committing it).
ta_saved_is() {
	want="$TA_SRCDIR/tests/tui/screens/$1.txt"
	got="$TA_TMP/screens/$1.txt"
	[ -z "${TA_UPDATE_SCREENS:-}" ] || [ ! -f "$got" ] || cp "$got" "$want"
	[ -f "$got" ] || echo "(the key script saved no screen $1)" >"$got"
	check_diff "$2" "$want" "$got"
}
