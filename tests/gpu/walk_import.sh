#!/bin/sh
# Takes what tests/gpu/walk_all.sh brought back from the GPU into the tree:
# each example's session becomes examples/NAME/session-walk.h200.json (its
# recorded walk, now made by `tileadvise --walk`), and the rest goes to
# results/gpu/walk-h200-DATE/: walks.md (one row per target, the
# rows of every call), env.txt and walk_all.log (each call's), and per
# target TARGET.jsonl (the walk's events), TARGET.table.txt (its session's
# --report --replay), TARGET.bare.txt (the file's own output before and
# after the walk), TARGET.stderr, TARGET.py.txt (the walked file) and, for a
# naive kernel, TARGET.session.json.
#
# Usage, from the top of the tree: tests/gpu/walk_import.sh DIR...
#   DIR: a folder with walk_all.sh's files (walks.tar.gz, walks.md, env.txt,
#   walk_all.log), one per call, in the order they ran (a target walked in
#   two calls keeps the later walk).
# Only walks that ran to their summary are taken. Then it says what to run.
set -u
[ $# -ge 1 ] || { echo "usage: walk_import.sh DIR..." >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ta-walk-import.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
date=
n=0
for d in "$@"; do
	n=$((n + 1))
	[ -f "$d/walks.tar.gz" ] || { echo "walk_import: $d has no walks.tar.gz" >&2; exit 1; }
	mkdir -p "$W/$n"
	tar -C "$W/$n" -xzf "$d/walks.tar.gz" || exit 1
	day=$(grep -o '^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]' "$d/env.txt" 2>/dev/null | tail -n 1)
	[ -n "$day" ] && date=$day
done
[ -n "$date" ] || date=$(date -u +%Y-%m-%d)
out="results/gpu/walk-h200-$date"
mkdir -p "$ROOT/$out" || exit 1
: >"$ROOT/$out/env.txt"
: >"$ROOT/$out/walk_all.log"
n=0
for d in "$@"; do
	n=$((n + 1))
	{ echo "=== call $n"; cat "$d/env.txt"; } >>"$ROOT/$out/env.txt"
	{ echo "=== call $n"; cat "$d/walk_all.log"; } >>"$ROOT/$out/walk_all.log"
done
# Each target's last walk that reached its summary.
taken=
examples=
n=0
for d in "$@"; do
	n=$((n + 1))
	for j in "$W/$n"/*.jsonl; do
		[ -f "$j" ] || continue
		t=$(basename "$j" .jsonl)
		grep -q '"event":"summary"' "$j" || { echo "walk_import: $t (call $n): no summary, left out"; continue; }
		src="$W/$n"
		cp "$src/$t.jsonl" "$ROOT/$out/$t.jsonl"
		for x in table.txt bare.txt stderr; do
			[ -f "$src/$t.$x" ] && cp "$src/$t.$x" "$ROOT/$out/$t.$x"
		done
		[ -f "$src/$t.py" ] && cp "$src/$t.py" "$ROOT/$out/$t.py.txt"
		if [ -f "$ROOT/examples/$t/$t.py" ] && [ -f "$src/$t.session.json" ]; then
			if ! grep -q "\"path\": \"examples/$t/$t.py\"" "$src/$t.session.json"; then
				echo "walk_import: $t (call $n): the session does not name examples/$t/$t.py, left out" >&2
				continue
			fi
			cp "$src/$t.session.json" "$ROOT/examples/$t/session-walk.h200.json"
			case " $examples " in *" $t "*) ;; *) examples="$examples $t" ;; esac
		elif [ -f "$src/$t.session.json" ]; then
			cp "$src/$t.session.json" "$ROOT/$out/$t.session.json"
		fi
		case " $taken " in *" $t "*) ;; *) taken="$taken $t" ;; esac
		# the later call's row for it
		grep "^| $t |" "$d/walks.md" >"$W/row-$t"
	done
done
{
	echo "| target | tried | kept | reverted | no edit | kept steps | whole walk (GPU time per call) |"
	echo "|---|---|---|---|---|---|---|"
	for t in $taken; do cat "$W/row-$t"; done
} >"$ROOT/$out/walks.md"
cat "$ROOT/$out/walks.md"
echo
echo "walk_import: walks of$taken in $out; re-recorded:$examples"
cat <<EOF

Next, in the tree (_build configured):
  cd _build && make check TESTS=tests/cli/walk_chain.sh       # the replays' figures chain
  TA_UPDATE_SCREENS=1 make check TESTS=tests/tui/screens.sh     # walked, measured, ascii screens
  make check TESTS='tests/tui/replay_walk.sh tests/cli/record_walk.sh'
tests/tui/replay_walk.sh names attention's steps and figures: write them from
  ./src/tileadvise --report --replay ../examples/attention/session-walk.h200.json
and the texts that quote the old walks (README.md "## Examples", examples/README.md,
examples/RESULTS.md) from $out/walks.md and the TARGET.bare.txt timings. Then
  git add examples/*/session-walk.h200.json $out tests/tui/screens
EOF
