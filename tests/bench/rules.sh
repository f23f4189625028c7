#!/bin/sh
# Rules benchmark: parse-only vs parse+model+rules over a generated
# 5,000-line file (target: total <= 3x parse-only), and `--check` over a
# folder of 200 generated kernel files against the same run of a parse-only
# pass (`--report` prints the model, so it stands in for "read and parse").
# Usage: tests/bench/rules.sh [BUILDDIR] [ROUNDS]
set -e
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-.}
rounds=${2:-20}
py=${PYTHON3:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$src/tests/bench/gen_kernels.py" "$src" big "$tmp/big.py" 5000
"$py" "$src/tests/bench/gen_kernels.py" "$src" dir "$tmp/many" 200
echo "== one file of $(wc -l <"$tmp/big.py") lines"
"$build/tests/bench/bench_rules" "$tmp/big.py" "$rounds"

now() { date +%s.%N; }
ta="$build/src/tileadvise"
best() {   # best of 5 wall times of a command
	b=""
	for i in 1 2 3 4 5; do
		t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
report_all() { for f in "$tmp"/many/*.py; do "$ta" --report "$f"; done; }
check_each() { for f in "$tmp"/many/*.py; do "$ta" --check "$f"; done; }
echo "== 200 files"
c1=$(best "$ta" --check "$tmp/many")
r=$(best report_all)
c=$(best check_each)
printf 'check, one process, 200 files   %8.3f s\n' "$c1"
printf 'report (parse+model), 200 procs %8.3f s\n' "$r"
printf 'check (+rules), 200 procs       %8.3f s\n' "$c"
printf 'check/report per process        %8.2f\n' "$(echo "$c / $r" | bc -l)"
