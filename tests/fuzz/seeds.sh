# Sourced by run.sh and replay.sh: where each fuzz target's seed inputs are.
# The analyze target starts from the project's own kernel fixtures and
# examples where they live (a copy would go stale as they change): the
# cases of tests/entries/*.md as files, the rewrite preconditions, the
# model's fixtures and the examples; the other targets from small inputs
# made for them in tests/fuzz/corpus/TARGET.
# ta_seed_cases SRCDIR OUT: once, before ta_seed_dirs, in the caller's
# shell: the cases' folder is the one make check wrote (TA_CASES), else OUT,
# written now.
ta_seed_cases() {
	if [ -n "${TA_CASES:-}" ] && [ -f "$TA_CASES/edits/cases" ]; then
		ta_cases_dir=$TA_CASES
	else
		ta_cases_dir=$2
		"${PYTHON3:-python3}" "$1/tests/entries/extract.py" "$2"
	fi
}
# ta_seed_dirs SRCDIR TARGET: the folders, one per word.
ta_seed_dirs() {
	case $2 in
	analyze) echo "$1/tests/fixtures/model ${ta_cases_dir:?ta_seed_cases first} $1/tests/fixtures/edits $1/examples" ;;
	*) echo "$1/tests/fuzz/corpus/$2" ;;
	esac
}
# ta_seed_files SRCDIR TARGET: the seed files (kernel sources only for analyze).
ta_seed_files() {
	pattern='*'
	[ "$2" = analyze ] && pattern='*.py'
	# shellcheck disable=SC2046
	find $(ta_seed_dirs "$1" "$2") -type f -name "$pattern" | sort
}
