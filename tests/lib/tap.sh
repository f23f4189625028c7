# TAP for the script tests, sourced by every one of them (POSIX sh).
#
#   plan N                   the plan line "1..N"; once, before the checks
#   skip_all REASON          "1..0 # SKIP REASON" and exit 0 (nothing to run here)
#   ok DESC                  a passing check
#   not_ok DESC [LINE...]    a failing check; each LINE follows as a "# " comment
#   skip DESC REASON         a check not made here ("ok N - DESC # SKIP REASON")
#   skip_rest REASON         skips every planned check not yet made (plan first)
#   result STATUS DESC [LINE...]   ok when STATUS is 0, else not_ok with the LINEs
#   check DESC COMMAND [ARG...]    runs COMMAND; ok when it exits 0
#   check_diff DESC EXPECTED ACTUAL
#                            ok when the two files are equal; else not_ok with
#                            their unified diff as comments (at most
#                            TAP_DIFF_LINES lines, 60 by default)
#   finish                   exits: 0 when every check passed and the plan was
#                            kept, 1 otherwise (with a comment saying which)
#
# A script that wants more said on each failure (the TUI tests print the
# last screen) sets TAP_ON_FAIL to a command; it runs after each not ok line
# and its output is printed as comments.
#
# The counters are shell variables: a check made in a subshell (the right
# side of a pipe, $(...)) is not counted in the caller, so a script whose
# checks run inside a pipe calls finish inside it too.

. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/common.sh"

# Sourced again (tests/tui/lib.sh inside a script that made checks), the
# counts go on.
if [ -z "${TAP_LOADED:-}" ]; then
	TAP_LOADED=1
	TAP_N=0
	TAP_FAILED=0
	TAP_PLAN=
	TAP_ON_FAIL=
fi

plan() {
	TAP_PLAN=$1
	echo "1..$1"
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

# Comment lines: each argument, each of its lines, prefixed "# ".
tap_comment() {
	for tap_l in "$@"; do
		printf '%s\n' "$tap_l" | sed 's/^/# /'
	done
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	tap_comment "$@"
	if [ -n "$TAP_ON_FAIL" ]; then
		eval "$TAP_ON_FAIL" 2>&1 | sed 's/^/# /'
	fi
	return 0
}

skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

skip_rest() {
	while [ "$TAP_N" -lt "${TAP_PLAN:-0}" ]; do
		skip "not run" "$1"
	done
}

result() {
	tap_status=$1
	shift
	if [ "$tap_status" -eq 0 ] 2>/dev/null; then
		ok "$1"
		return 0
	fi
	not_ok "$@"
	return 1
}

check() {
	tap_desc=$1
	shift
	"$@"
	result $? "$tap_desc"
}

check_diff() {
	if cmp -s "$2" "$3"; then
		ok "$1"
		return 0
	fi
	not_ok "$1" "--- $2" "+++ $3" \
		"$(diff -u "$2" "$3" | tail -n +3 | head -n "${TAP_DIFF_LINES:-60}")"
	return 1
}

finish() {
	if [ -n "$TAP_PLAN" ] && [ "$TAP_N" -ne "$TAP_PLAN" ]; then
		echo "# planned $TAP_PLAN checks, made $TAP_N"
		exit 1
	fi
	[ "$TAP_FAILED" -eq 0 ] && exit 0
	echo "# $TAP_FAILED of $TAP_N checks failed"
	exit 1
}
