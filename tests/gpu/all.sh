#!/bin/sh
# Everything tileadvise checks and measures on a real GPU, in one call:
# each stage script in turn, each writing into its own folder of OUTDIR.
# Usage: tests/gpu/all.sh OUTDIR [STAGE...]
# Stages: run (profiler: CUPTI vs do_bench, occupancy, overhead), examples,
# autotune, edits (every mechanical edit measured), deep (PC sampling and
# counters vs ncu), overhead, tui (a scripted tmux session). Needs the
# carried build in $TA_DEVBUILD (default .devbuild: made on the development
# machine with `configure --enable-static-deps`, then
# `make src/tileadvise src/profile/inject/libtileadvise-cupti.la tests/profiler/ta-profile-run`).
# A stage that fails does not stop the others; the last line says which did.
set -u
OUTDIR=${1:?usage: all.sh OUTDIR [STAGE...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- run examples autotune edits deep overhead tui
failed=
for stage in "$@"; do
	case $stage in
	tui) script=tui_session.sh ;;
	*) script=$stage.sh ;;
	esac
	mkdir -p "$OUTDIR/$stage"
	start=$(date +%s)
	sh "$HERE/$script" "$OUTDIR/$stage" > "$OUTDIR/$stage/stage.log" 2>&1
	rc=$?
	echo "stage $stage: exit $rc, $(( $(date +%s) - start )) s"
	[ "$rc" -eq 0 ] || failed="$failed $stage"
done
echo "failed stages:${failed:- none}"
