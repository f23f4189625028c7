# Sourced by run.sh and replay.sh: where each fuzz target's seed inputs are.
# The analyze target starts from the project's own kernel fixtures and
# examples where they live (a copy would go stale as they change); the other
# targets from small inputs made for them in tests/fuzz/corpus/TARGET.
# ta_seed_dirs SRCDIR TARGET: the folders, one per word.
ta_seed_dirs() {
	case $2 in
	analyze) echo "$1/tests/fixtures/model $1/tests/fixtures/rules $1/tests/fixtures/edits $1/examples" ;;
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
