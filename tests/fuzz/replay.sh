#!/bin/sh
# The fuzz targets over their seed corpora and regression inputs, built
# into the normal test suite (tests/fuzz/replay.c): one TAP line per
# target for its corpus, and one per regression input (each a crash or a
# failed check a fuzzer once found; see tests/ROBUSTNESS.md).
# TAP (tests/lib/tap.sh). Env: TA_SRCDIR, TA_BUILDDIR (set by the harness).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TA_BUILDDIR:=.}"
fz="$TA_SRCDIR/tests/fuzz"
. "$fz/seeds.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-replay-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
ta_seed_cases "$TA_SRCDIR" "$tmp/cases" || exit 99

targets="analyze edit journal records"
total=0
for t in $targets; do
	total=$((total + 1))
	for f in "$fz/regress/$t"/*; do [ -f "$f" ] && total=$((total + 1)); done
done
plan "$total"
# A failure shows the end of what the target printed.
TAP_ON_FAIL='tail -n 25 "$tmp/err"'

for t in $targets; do
	bin="$TA_BUILDDIR/tests/fuzz/replay_$t"
	# shellcheck disable=SC2046
	set -- $(ta_seed_files "$TA_SRCDIR" "$t")
	if "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; then
		ok "$t: the seed corpus ($(sed -n 's/^ran \([0-9]*\) inputs$/\1/p' "$tmp/out") inputs) passes the target's checks"
	else
		not_ok "$t: the seed corpus passes the target's checks (last input: $(grep '^replay: ' "$tmp/err" | tail -n 1))"
	fi
	for f in "$fz/regress/$t"/*; do
		[ -f "$f" ] || continue
		if "$bin" "$f" >"$tmp/out" 2>"$tmp/err"; then
			ok "$t: regression $(basename "$f")"
		else
			not_ok "$t: regression $(basename "$f")"
		fi
	done
done
finish
