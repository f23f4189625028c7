#!/bin/sh
# The advisor's whole loop on a real GPU, driven through tmux as a person
# would: open the attention example (profiled live), apply two steps (S3,
# then S5), wait for each re-run's measured before/after, quit. Every
# screen is appended to OUTDIR/tui-panes.txt.
# Usage: tests/gpu/tui_session.sh OUTDIR. Needs a carried build in
# $TA_DEVBUILD (default .devbuild) and tmux.
set -u
OUTDIR=${1:?usage: tui_session.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${TA_DEVBUILD:-$ROOT/.devbuild}
export TILEADVISE_DATADIR="$ROOT/data" TILEADVISE_LIBDIR="$B/src/profile/inject/.libs"
W=$(mktemp -d /tmp/ta-tui.XXXXXX)
mkdir -p "$OUTDIR" "$W/attention"
cp "$ROOT/examples/attention/attention.py" "$W/attention/"
panes="$OUTDIR/tui-panes.txt"
: > "$panes"
T="tmux -L ta-gpu -f /dev/null"
$T new-session -d -x 120 -y 40 -s s "cd $W/attention && $B/src/tileadvise attention.py; echo EXIT=\$?; sleep 600"
$T set-option -t s status off > /dev/null
shot() { echo "===== $1 ($(date -u +%H:%M:%S))" >> "$panes"; $T capture-pane -p -t s >> "$panes"; }
wait_for() {  # wait_for REGEX SECONDS
	i=0
	while [ $i -lt $(($2 * 5)) ]; do
		$T capture-pane -p -t s | grep -Eq -- "$1" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
goto_step() {  # goto_step ID: j until the step page's title is ID
	$T send-keys -t s g
	n=0
	while [ $n -lt 60 ]; do
		$T capture-pane -p -t s | grep -Eq "│ $1 · " && return 0
		$T send-keys -t s j
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
apply_step() {  # apply_step ID
	goto_step "$1" || { shot "step $1 not found"; return 1; }
	shot "before applying $1"
	$T send-keys -t s a
	wait_for 'running' 20 && shot "re-run under way after $1"
	if wait_for 'within noise|faster|slower' 300; then
		sleep 1
		shot "measured after applying $1"
		# An offer to revert (slower or failed test): keep the edit, note it.
		$T capture-pane -p -t s | grep -qi 'revert' && { $T send-keys -t s n; shot "declined the revert offer"; }
	else
		shot "no measurement after $1 (timed out)"
	fi
}
wait_for 'running' 30 && shot "first screen: static analysis while the first run goes on"
if wait_for 'measured: ' 300; then shot "profile arrived"; else shot "profile did not arrive"; fi
apply_step S3
apply_step S5
$T send-keys -t s q
wait_for 'EXIT=' 20
shot "after q"
$T kill-server
cd "$W/attention" && ls -la .tileadvise >> "$panes" 2>&1
grep -c '=====' "$panes"
