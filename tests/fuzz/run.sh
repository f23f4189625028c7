#!/bin/sh
# Runs the libFuzzer targets built by build.sh: first each target over its
# regression inputs, then FUZZ_SECONDS (default 60) of fuzzing from its
# seed corpus (plus what earlier runs found, kept in the work folder),
# FUZZ_PARALLEL targets at a time (default: the number of cores).
#
#   tests/fuzz/run.sh SRCDIR FUZZDIR [TARGET...]
#
# Prints one TAP line per target with its figures (runs, runs/s, coverage
# as libFuzzer's cov/ft, corpus size) and exits 1 when any target crashed
# or failed a check; the crashing input is kept in FUZZDIR/work/T/ and its
# path printed.
set -u
src=$(cd "$1" && pwd)
. "$src/tests/fuzz/seeds.sh"
fzd=$(cd "$2" && pwd)
ta_seed_cases "$src" "$fzd/cases" || exit 1
shift 2
secs=${FUZZ_SECONDS:-60}
par=${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 2)}
targets=${*:-analyze edit journal records}
work="$fzd/work"

dict_of() {
	case $1 in
	analyze) echo "-dict=$src/tests/fuzz/python.dict" ;;
	journal | records) echo "-dict=$src/tests/fuzz/json.dict" ;;
	*) echo "" ;;
	esac
}

# one T: writes $work/T/result (a TAP line without the number) and status.
one() {
	t=$1
	w="$work/$t"
	mkdir -p "$w/corpus" "$w/crashes"
	bin="$fzd/fuzz_$t"
	if [ ! -x "$bin" ]; then
		echo "not ok - $t: $bin is not built (make fuzz-build)" >"$w/result"
		return
	fi
	reg=$(ls "$src/tests/fuzz/regress/$t" 2>/dev/null | wc -l)
	if [ "$reg" -gt 0 ] && ! TMPDIR="$w" "$bin" -runs=1 "$src/tests/fuzz/regress/$t"/* >"$w/regress.log" 2>&1; then
		echo "not ok - $t: a regression input fails again (see $w/regress.log)" >"$w/result"
		return
	fi
	# The targets' scratch files (a crash skips their cleanup) stay in here.
	rm -rf "$w/tmp"
	mkdir -p "$w/tmp"
	# shellcheck disable=SC2046
	TMPDIR="$w/tmp" "$bin" $(dict_of "$t") -max_total_time="$secs" -timeout=30 -rss_limit_mb=3072 \
		-print_final_stats=1 -close_fd_mask=1 -artifact_prefix="$w/crashes/" \
		"$w/corpus" $(ta_seed_dirs "$src" "$t") >"$w/fuzz.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/fuzz.log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$w/fuzz.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[0-9]*[a-zA-Z]*' "$w/fuzz.log" | tail -n 1)
	crash=$(ls "$w/crashes" | head -n 1)
	if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
		echo "ok - $t: ${secs} s, ${runs:-?} runs (${rate:-?}/s), $cov, $reg regression inputs, no crash" >"$w/result"
	else
		echo "not ok - $t: exit $rc after ${runs:-?} runs; input kept: $w/crashes/$crash (log: $w/fuzz.log)" >"$w/result"
		# The sanitizer's or the check's own lines, not libFuzzer's status
		# lines (those start with #N and may quote "ERROR" from the dictionary).
		grep -v '^#' "$w/fuzz.log" | grep -E '==ERROR|runtime error|check failed|^fuzz:|deadly signal|^    #[0-9]+ ' |
			head -n 12 | sed 's/^/# /' >>"$w/result"
		# The input itself, so that a failure seen only on another machine (CI)
		# can be replayed here: base64 -d into a file, then FUZZDIR/fuzz_T FILE.
		if [ -n "$crash" ] && [ "$(wc -c <"$w/crashes/$crash")" -le 4096 ]; then
			echo "# input (base64):" >>"$w/result"
			base64 -w 76 "$w/crashes/$crash" | sed 's/^/#   /' >>"$w/result"
		fi
	fi
}

mkdir -p "$work"
running=0
for t in $targets; do
	one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$par" ]; then
		wait
		running=0
	fi
done
wait

n=0
fail=0
echo "1..$(echo $targets | wc -w)"
for t in $targets; do
	n=$((n + 1))
	line=$(head -n 1 "$work/$t/result")
	case $line in not*) fail=1 ;; esac
	printf '%s\n' "$line" | sed "s/^\(not ok\|ok\) - /\1 $n - fuzz /"
	tail -n +2 "$work/$t/result"
done
exit $fail
