#!/bin/sh
# Which files --check DIR reads, as linters choose them: hidden folders,
# virtual environments, installed packages and build output are passed over;
# .gitignore is honoured (libgit2); --exclude and pyproject.toml's
# [tool.tileadvise] (select, ignore, exclude, output-format,
# respect-gitignore) as ruff reads [tool.ruff]; named paths are always read.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree).
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-disc-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 34
k="$TA_SRCDIR/examples/softmax/softmax.py"
p="$tmp/p"
for f in src/kern/a.py src/kern/scratch_tmp.py src/vendor/v.py gen/g.py myenv/lib/e.py \
	conda/lib/c.py node_modules/x/n.py build/b.py lib/site-packages/s.py .venv/h.py \
	pkg.egg-info/i.py; do
	mkdir -p "$(dirname "$p/$f")"
	cp "$k" "$p/$f"
done
touch "$p/myenv/pyvenv.cfg"
mkdir -p "$p/conda/conda-meta"
printf 'gen/\n*_tmp.py\n' >"$p/.gitignore"
cd "$p" || exit 99
git_ok=no
if command -v git >/dev/null 2>&1 && git init -q . 2>/dev/null; then git_ok=yes; fi
libgit2=no
"$TILEADVISE" --version | grep -q '^\.gitignore in --check DIR: read' && libgit2=yes
toml=no
"$TILEADVISE" --version | grep -q 'pyproject.toml \[tool.tileadvise\]: read' && toml=yes

# files: the names --check reported, sorted
files() { "$TILEADVISE" --check "$@" 2>"$tmp/err" | cut -d: -f1 | sort -u | tr '\n' ' '; }

got=$(files .)
if [ $git_ok = yes ] && [ $libgit2 = yes ]; then
	want='./src/kern/a.py ./src/vendor/v.py '
	result $([ "$got" = "$want" ] && echo 0 || echo 1) \
		"a folder walk passes over environments, packages, build output and what .gitignore leaves out" \
		"got:  $got" "want: $want"
else
	skip "a folder walk passes over what .gitignore leaves out" "no git or built without libgit2"
fi
for d in myenv conda node_modules build site-packages .venv egg-info; do
	case $got in *"$d/"*) r=1 ;; *) r=0 ;; esac
	result $r "$d is passed over" "got: $got"
done
if [ $libgit2 = no ]; then
	grep -q '\.gitignore is not read: this tileadvise was built without libgit2' "$tmp/err"
	result $? "without libgit2 a .gitignore met is named as not read" "$(cat "$tmp/err")"
else
	[ "$(grep -cv '^Found [0-9]* findings\.$' "$tmp/err")" -eq 0 ]
	result $? "with libgit2 nothing but the summary is said on stderr" "$(cat "$tmp/err")"
fi
got=$(files gen)
result $([ "$got" = "gen/g.py " ] && echo 0 || echo 1) "a folder named on the command line is read though ignored" "got: $got"
got=$(files myenv/lib/e.py)
result $([ "$got" = "myenv/lib/e.py " ] && echo 0 || echo 1) "a file named on the command line is read" "got: $got"

# --exclude: a name anywhere, or a path from the current folder
got=$(files --exclude vendor .)
case $got in *vendor*) r=1 ;; *) r=0 ;; esac
result $r "--exclude NAME leaves out a folder at any depth" "got: $got"
got=$(files --exclude 'src/kern/*.py' --exclude 'nothing' .)
case $got in *kern/a.py*) r=1 ;; *) r=0 ;; esac
result $r "--exclude with a / matches a path from here (and is repeatable)" "got: $got"
got=$(cd src && "$TILEADVISE" --check --exclude 'src/kern/*.py' . 2>/dev/null | cut -d: -f1 | sort -u | tr '\n' ' ')
case $got in *kern/a.py*) r=0 ;; *) r=1 ;; esac
result $r "--exclude with a / is anchored at the current folder" "got: $got"
got=$(files --exclude '**/kern/' .)
case $got in *kern/*) r=1 ;; *) r=0 ;; esac
result $r "--exclude '**/kern/' leaves out that folder anywhere" "got: $got"

# pyproject.toml
if [ $toml = no ]; then
	printf '[tool.tileadvise]\nselect = ["P"]\n' >pyproject.toml
	files . >/dev/null
	grep -q 'pyproject.toml: \[tool.tileadvise\] is not read: this tileadvise was built without a TOML parser' "$tmp/err"
	result $? "without toml++ the table is named as not read" "$(cat "$tmp/err")"
	skip_rest "built without toml++"
	finish
fi
cat >pyproject.toml <<'TOML'
[project]
name = "p"   # tileadvise reads only its own table

[tool.tileadvise]
select = ["P"]
exclude = ["src/vendor"]
preview = true   # P1, the P finding here, is in preview
colour = "always"
TOML
"$TILEADVISE" --check . >out 2>"$tmp/err"
ids=$(sed -n 's/.*\[\([A-Z][0-9]*\)\]$/\1/p' out | sort -u | tr '\n' ' ')
result $([ "$ids" = "P1 " ] && echo 0 || echo 1) "select = [\"P\"] selects the P section" "ids: $ids"
case $(cut -d: -f1 out | sort -u | tr '\n' ' ') in *vendor*) r=1 ;; *) r=0 ;; esac
result $r "exclude is read, from the file's folder" "$(cat out)"
grep -q "pyproject.toml:8:10: 'colour' left out" "$tmp/err"
result $? "a key it does not read is named, with its line" "$(cat "$tmp/err")"
(cd src && "$TILEADVISE" --check . >"$tmp/out2" 2>/dev/null)
ids=$(sed -n 's/.*\[\([A-Z][0-9]*\)\]$/\1/p' "$tmp/out2" | sort -u | tr '\n' ' ')
result $([ "$ids" = "P1 " ] && echo 0 || echo 1) "the file is found from a folder below" "ids: $ids"
ids=$("$TILEADVISE" --check --select=D12 . 2>/dev/null | sed -n 's/.*\[\([A-Z][0-9]*\)\]$/\1/p' | sort -u | tr '\n' ' ')
result $([ "$ids" = "D12 " ] && echo 0 || echo 1) "--select replaces the file's select" "ids: $ids"
got=$(files --isolated .)
case $got in *vendor*) r=0 ;; *) r=1 ;; esac
result $r "--isolated reads no pyproject.toml" "got: $got"
printf '[tool.tileadvise]\noutput-format = "github"\nrespect-gitignore = false\n' >pyproject.toml
"$TILEADVISE" --check . >out 2>/dev/null
if grep -q '^::warning file=./gen/g.py,' out && ! grep -qv '^::' out; then r=0; else r=1; fi
result $r "output-format and respect-gitignore = false are read" "$(head -3 out)"
# extend-select adds to the default set, per-file-ignores leaves ids out of
# the files its patterns match (a name, or a path from the file's folder).
cat >pyproject.toml <<'TOML'
[tool.tileadvise]
extend-select = ["X1"]
preview = true
[tool.tileadvise.per-file-ignores]
"src/kern/*.py" = ["P1"]
"v.py" = "D12"
TOML
printf '    # tileadvise: ignore-next-line[S8]\n' >>src/kern/a.py
"$TILEADVISE" --check src >out 2>/dev/null
got=$(sed -n 's|^\./||; s|^\([^:]*\):[0-9]*:[0-9]*: .*\[\([A-Z0-9, ]*\)\]$|\1 \2|p' out | sort -u | tr '\n' ';')
want='src/kern/a.py D12;src/kern/a.py X1;src/vendor/v.py P1;'
result $([ "$got" = "$want" ] && echo 0 || echo 1) "extend-select and per-file-ignores are read" "got:  $got" "want: $want"
(cd src/kern && "$TILEADVISE" --check a.py >"$tmp/out3" 2>/dev/null)
result $(! grep -q '\[P1\]' "$tmp/out3" && grep -q '\[D12\]' "$tmp/out3" && echo 0 || echo 1) \
	"... a path pattern matches from the file's folder, wherever the check runs" "$(cat "$tmp/out3")"
git checkout -q -- src/kern/a.py 2>/dev/null || cp "$k" src/kern/a.py
# --stdin-filename: standard input named as that file, with its settings;
# --config: one settings file, read wherever the check runs.
"$TILEADVISE" --check --stdin-filename=src/kern/b.py - <"$k" >out 2>/dev/null
result $(grep -q '^src/kern/b\.py:[0-9]*:[0-9]*: .*\[D12\]$' out && ! grep -q '\[P1\]' out && echo 0 || echo 1) \
	"--stdin-filename names the input and takes that name's per-file-ignores" "$(cat out)"
mkdir -p "$tmp/elsewhere" && printf '[tool.tileadvise]\nselect = ["P"]\npreview = true\n' >"$tmp/elsewhere/settings.toml"
(cd "$tmp" && "$TILEADVISE" --check --config=elsewhere/settings.toml "$p/src/kern/a.py" >"$tmp/out4" 2>/dev/null)
result $(grep -q '\[P1\]$' "$tmp/out4" && ! grep -q '\[D12\]' "$tmp/out4" && echo 0 || echo 1) \
	"--config reads the file named and not the pyproject.toml beside the kernel" "$(cat "$tmp/out4")"
"$TILEADVISE" --check --config=missing.toml . >out 2>"$tmp/err"
rc=$?
result $([ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^tileadvise: missing.toml: No such file' "$tmp/err" && echo 0 || echo 1) \
	"--config of a missing file: one line, exit 2" "rc=$rc" "$(cat "$tmp/err")"
"$TILEADVISE" --check --config=pyproject.toml --isolated . >out 2>"$tmp/err"
result $([ $? -eq 2 ] && grep -q 'give one of them' "$tmp/err" && echo 0 || echo 1) "--config with --isolated is refused" "$(cat "$tmp/err")"
printf '[tool.tileadvise]\nselect = 3\n' >pyproject.toml
"$TILEADVISE" --check . >out 2>"$tmp/err"
rc=$?
result $([ $rc -eq 2 ] && grep -q 'pyproject.toml:2:10: select takes a string or a list of strings' "$tmp/err" && echo 0 || echo 1) \
	"a setting of the wrong type is an error with its line" "rc=$rc" "$(cat "$tmp/err")"
rm -f pyproject.toml
# A file reached twice is read once; an empty .py file named on the
# command line is clean, as in a folder (a pre-commit hook names every
# staged file, __init__.py among them).
"$TILEADVISE" --check src/kern/a.py src >out 2>/dev/null
n1=$(grep -c 'a.py:' out)
"$TILEADVISE" --check src/kern/a.py >out 2>/dev/null
n2=$(grep -c 'a.py:' out)
result $([ "$n1" -eq "$n2" ] && [ "$n2" -gt 0 ] && echo 0 || echo 1) "a file named and inside a folder named is reported once" "$n1 and $n2 findings"
: >src/kern/__init__.py
"$TILEADVISE" --check src/kern/__init__.py >out 2>"$tmp/err"
rc=$?
result $([ $rc -eq 0 ] && [ ! -s out ] && [ "$(cat "$tmp/err")" = "All checks passed." ] && echo 0 || echo 1) \
	"an empty .py file named is clean: exit 0, nothing said but that" "rc=$rc" "$(cat out "$tmp/err")"
"$TILEADVISE" --check src/kern/__init__.py src/kern/a.py >out 2>/dev/null
rc=$?
result $([ $rc -eq 1 ] && grep -q 'a.py:' out && echo 0 || echo 1) "... and beside a file with findings they are reported (exit 1)" "rc=$rc"
# The pre-commit hook's entry, as .pre-commit-hooks.yaml writes it, run as
# pre-commit does: the entry's words then the staged files.
entry=$(sed -n 's/^  entry: tileadvise //p' "$TA_SRCDIR/.pre-commit-hooks.yaml")
# shellcheck disable=SC2086
"$TILEADVISE" $entry src/kern/__init__.py src/kern/a.py >out 2>/dev/null
rc=$?
result $([ "$entry" = --check ] && [ $rc -eq 1 ] && grep -q 'a.py:' out && echo 0 || echo 1) \
	"the pre-commit hook's entry reports the staged files' findings (exit 1)" "entry='$entry' rc=$rc"
# shellcheck disable=SC2086
"$TILEADVISE" $entry src/kern/__init__.py >out 2>/dev/null
rc=$?
result $([ $rc -eq 0 ] && echo 0 || echo 1) "... and passes a commit of files without findings" "rc=$rc"
finish
