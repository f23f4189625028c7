# Sourced by the script tests. In `make distcheck` the source tree is
# read-only, and cp keeps a source file's mode: copies of fixtures must be
# made writable so that the tests can edit them.
cp() {
	command cp "$@" || return
	eval "ta_last=\${$#}"
	if [ -d "$ta_last" ]; then chmod -R u+w "$ta_last"; else chmod u+w "$ta_last"; fi
}

# The cases of tests/entries/*.md as files (tests/entries/README.md): the
# folder make check wrote (TA_CASES), else written now into the folder $1
# (a script run by hand). Prints the folder.
ta_cases() {
	if [ -n "${TA_CASES:-}" ] && [ -f "$TA_CASES/edits/cases" ]; then
		printf '%s\n' "$TA_CASES"
		return 0
	fi
	"${PYTHON3:-python3}" "${TA_SRCDIR:?set TA_SRCDIR to the source tree}/tests/entries/extract.py" "$1" &&
		printf '%s\n' "$1"
}
