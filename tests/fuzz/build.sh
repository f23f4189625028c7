#!/bin/sh
# Builds the libFuzzer targets with clang into OUT (default BUILDDIR/fuzz),
# apart from the main build (which may use gcc). Direct clang command lines
# over the needed sources (every .c of src/ but main.c, the TUI and the
# injector), the grammar, and the targets in tests/fuzz/fuzz_*.c.
#
#   tests/fuzz/build.sh SRCDIR BUILDDIR [OUT]
#
# BUILDDIR must hold a configured config.h. Env: FUZZ_CC (default clang),
# FUZZ_JOBS (parallel compiles, default nproc), FUZZ_CFLAGS (added),
# FUZZ_MODE=libfuzzer (default) or afl (afl-clang-fast, -fsanitize=fuzzer
# as AFL++'s libFuzzer driver).
set -eu
src=$(cd "$1" && pwd)
bld=$(cd "$2" && pwd)
out=${3:-"$bld/fuzz"}
mode=${FUZZ_MODE:-libfuzzer}
if [ "$mode" = afl ]; then
	cc=${FUZZ_CC:-afl-clang-fast}
	out=${3:-"$bld/fuzz-afl"}
else
	cc=${FUZZ_CC:-clang}
fi
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

say() { printf 'fuzz-build: %s\n' "$*" >&2; }

command -v "$cc" >/dev/null 2>&1 || { say "$cc not found (apt-get install clang libclang-rt-14-dev)"; exit 77; }
[ -f "$bld/config.h" ] || { say "$bld/config.h missing: configure first"; exit 1; }

mkdir -p "$out/obj"
pc_cflags=$(pkg-config --cflags tree-sitter jansson)
pc_libs=$(pkg-config --libs tree-sitter jansson)
# --check's folder walk asks libgit2 about .gitignore when the build has it.
if grep -q '^#define HAVE_LIBGIT2 1' "$bld/config.h"; then
	pc_cflags="$pc_cflags $(pkg-config --cflags libgit2)"
	pc_libs="$pc_libs $(pkg-config --libs libgit2)"
fi

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
base="-std=gnu11 -g -O1 $san -I$src/src -I$bld $pc_cflags \
-DTA_PKGDATADIR='\"$src/data\"' -DTA_PKGLIBDIR='\"$bld/src/profile/inject/.libs\"' \
-DTA_BUILD_SRCDIR='\"$src\"' -DTA_BUILD_BUILDDIR='\"$bld\"' -DTA_FUZZ_SRCDIR='\"$src\"' ${FUZZ_CFLAGS:-}"
if [ "$mode" = afl ]; then
	inst="" ; link="-fsanitize=fuzzer"
else
	inst="-fsanitize=fuzzer-no-link" ; link="-fsanitize=fuzzer"
fi

# The project's sources: all of them but the program, the TUI and the
# injector. pyproject.c is in (--check's per-file work looks the project up);
# its TOML half is C++, compiled with clang++ when the build reads TOML.
list="$out/sources"
( cd "$src" && find src -name '*.c' ! -path 'src/main.c' ! -path 'src/ui/tui/*' \
	! -path 'src/profile/inject/*' | LC_ALL=C sort ) >"$list"
cxx=
if grep -q '^#define HAVE_TOMLPP 1' "$bld/config.h"; then
	cxx=${FUZZ_CXX:-$(printf '%s' "$cc" | sed 's/clang$/clang++/; s/clang-fast$/clang-fast++/')}
	command -v "$cxx" >/dev/null 2>&1 || { say "$cxx not found (the build reads pyproject.toml with toml++)"; exit 1; }
	echo src/checklist/toml_read.cc >>"$list"
fi

# An object is rebuilt when its source or any header of src/ is newer.
newest_h=$(find "$src/src" "$bld/config.h" -name '*.h' -newer "$out/obj/.stamp" 2>/dev/null | head -n 1 || true)
[ -f "$out/obj/.stamp" ] || newest_h=all
todo="$out/todo"
: >"$todo"
while read -r f; do
	o="$out/obj/$(printf '%s' "$f" | tr / _ | sed 's/\.c$/.o/; s/\.cc$/.o/')"
	if [ -n "$newest_h" ] || [ ! -f "$o" ] || [ "$src/$f" -nt "$o" ]; then
		case $f in
		*.cc) printf '%s %s c++\n' "$src/$f" "$o" >>"$todo" ;;
		*) printf '%s %s\n' "$src/$f" "$o" >>"$todo" ;;
		esac
	fi
done <"$list"
# The grammar: generated code, no warnings; the scanner instrumented, the
# parse tables too (cheap enough at -O1, and coverage there helps).
for g in parser scanner; do
	o="$out/obj/grammar_$g.o"
	[ -f "$o" ] && [ ! "$src/third_party/tree-sitter-python/src/$g.c" -nt "$o" ] ||
		printf '%s %s grammar\n' "$src/third_party/tree-sitter-python/src/$g.c" "$o" >>"$todo"
done

n=$(wc -l <"$todo")
if [ "$n" -gt 0 ]; then
	say "compiling $n sources with $cc ($jobs at a time)"
	export cc cxx base inst src
	# shellcheck disable=SC2016
	xargs -P "$jobs" -L 1 sh -c '
		f=$1 o=$2
		if [ "${3:-}" = c++ ]; then
			cxxbase="$(printf "%s" "$base" | sed "s/-std=gnu11/-std=gnu++17/") -fno-sanitize=vptr"
			eval "$cxx $cxxbase $inst -Wall -Wextra -Wno-unused-parameter -c \"$f\" -o \"$o\"" ||
				{ echo "fuzz-build: failed: $f" >&2; exit 255; }
		elif [ "${3:-}" = grammar ]; then
			eval "$cc $base $inst -w -I$src/third_party/tree-sitter-python/src -c \"$f\" -o \"$o\"" ||
				{ echo "fuzz-build: failed: $f" >&2; exit 255; }
		else
			eval "$cc $base $inst -Wall -Wextra -Wno-unused-parameter -c \"$f\" -o \"$o\"" ||
				{ echo "fuzz-build: failed: $f" >&2; exit 255; }
		fi' sh <"$todo"
	touch "$out/obj/.stamp"
fi

objs=$(ls "$out"/obj/*.o | tr "\n" " ")
for t in "$src"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	bin="$out/$name"
	if [ ! -x "$bin" ] || [ "$t" -nt "$bin" ] || [ -n "$(find "$out/obj" -name '*.o' -newer "$bin" | head -n 1)" ] ||
	   [ "$src/tests/fuzz/fuzz.h" -nt "$bin" ]; then
		say "linking $name"
		eval "$cc $base $link -Wall -Wextra -Wno-unused-parameter -I$src/tests/fuzz \"$t\" $objs $pc_libs ${cxx:+-fsanitize-link-c++-runtime -lstdc++} -ldl -lm -lpthread -o \"$bin\""
	fi
done
say "fuzzers in $out"
