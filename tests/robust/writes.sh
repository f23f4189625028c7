#!/bin/sh
# How --apply, --undo and --redo write (issue 18): two --apply on one file
# at once, a save made by someone else (an editor) while an apply checks its
# edit, a disk that stays full through the rollback, temporary files left by
# killed runs, hard links. Deterministic: a PYTHON3 wrapper (the compile check
# every apply runs) holds each apply inside its read-to-rename window for
# 0.3 s, or saves the file from inside that window, so the race happens on
# every trial instead of by chance.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR; CONCURRENCY_TRIALS (default 8).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
trials=${CONCURRENCY_TRIALS:-8}
kernel="$TA_SRCDIR/tests/fixtures/robust/two_d12.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-conc-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

py=$(command -v python3 || echo python3)
# slow: the compile check of each apply takes 0.3 s more.
cat >"$tmp/slow" <<EOS
#!/bin/sh
sleep 0.3
exec "$py" "\$@"
EOS
# saver: the first compile check appends a line to the kernel, as an
# editor saving would (later checks run as usual).
cat >"$tmp/saver" <<EOS
#!/bin/sh
if [ ! -e "$tmp/saved" ]; then
	: >"$tmp/saved"
	echo '# saved by the editor' >>"\$TA_KERNEL"
fi
exec "$py" "\$@"
EOS
chmod +x "$tmp/slow" "$tmp/saver"

plan 11

# ---- two --apply at once ---------------------------------------------------
bad=0
detail=
t=0
while [ "$t" -lt "$trials" ]; do
	t=$((t + 1))
	d="$tmp/t$t"
	mkdir "$d"
	cp "$kernel" "$d/k.py"
	PYTHON3="$tmp/slow" "$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/e1" &
	p1=$!
	PYTHON3="$tmp/slow" "$TILEADVISE" --apply=D12:24 "$d/k.py" >/dev/null 2>"$d/e2" &
	p2=$!
	wait "$p1"; r1=$?
	wait "$p2"; r2=$?
	# Both wait their turn and both land; undoing twice gives the original.
	have=$(grep -c 'triton.cdiv' "$d/k.py")
	"$TILEADVISE" --undo "$d/k.py" >/dev/null 2>&1 && "$TILEADVISE" --undo "$d/k.py" >/dev/null 2>&1
	ru=$?
	if [ "$r1" != 0 ] || [ "$r2" != 0 ] || [ "$have" != 2 ] || [ "$ru" != 0 ] || ! cmp -s "$d/k.py" "$kernel"; then
		bad=$((bad + 1))
		detail="trial $t: rc $r1 $r2, $have of 2 edits in the file, undo x2 rc=$ru; $(cat "$d/e1" "$d/e2" | tr '\n' ' ')"
	fi
done
result "$bad" "two --apply at once: both edits land, twice undone gives the original ($trials trials)" "$bad bad; $detail"

# Each saved version is its own file: no number used twice.
vers=$(ls "$tmp/t1/.tileadvise/versions/k.py" | wc -l)
[ "$vers" = 3 ]
result $? "two --apply at once keep three distinct saved versions" "$(ls "$tmp/t1/.tileadvise/versions/k.py" | tr '\n' ' ')"

# A third apply while the lock is held by a slow one waits, it does not fail.
d="$tmp/wait"
mkdir "$d"
cp "$kernel" "$d/k.py"
PYTHON3="$tmp/slow" "$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/e1" &
p1=$!
"$TILEADVISE" --undo "$d/k.py" >/dev/null 2>"$d/e2"
r2=$?
wait "$p1"; r1=$?
# The undo ran before or after the apply as a whole: never in between.
if [ "$r2" = 0 ]; then
	cmp -s "$d/k.py" "$kernel"; fine=$?
else
	grep -q "nothing to undo" "$d/e2" && [ "$(grep -c triton.cdiv "$d/k.py")" = 1 ]; fine=$?
fi
[ "$r1" = 0 ] && [ "$fine" = 0 ]
result $? "an undo racing an apply sees it whole" "rc $r1 $r2 $(cat "$d/e1" "$d/e2" | tr '\n' ' ')"

# ---- a save during the apply -----------------------------------------------
d="$tmp/save"
mkdir "$d"
cp "$kernel" "$d/k.py"
rm -f "$tmp/saved"
TA_KERNEL="$d/k.py" PYTHON3="$tmp/saver" "$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "changed on disk" "$d/err" && [ "$(wc -l <"$d/err")" = 1 ] &&
	[ "$(tail -n 1 "$d/k.py")" = "# saved by the editor" ] && ! grep -q triton.cdiv "$d/k.py"
result $? "a save made during --apply is kept; the apply refuses (changed on disk)" "rc=$rc $(cat "$d/err")"

"$TILEADVISE" --redo "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
"$TILEADVISE" --undo "$d/k.py" >/dev/null 2>>"$d/err"
ru=$?
[ "$rc" = 2 ] && [ "$ru" = 2 ] && grep -q "nothing to redo" "$d/err" && grep -q "nothing to undo" "$d/err"
result $? "the refused apply left nothing to undo or redo" "$(cat "$d/err")"

# ---- a disk full from the file's rename on, through the journal's rollback --
d="$tmp/full"
mkdir "$d"
cp "$kernel" "$d/k.py"
# Renames: two version files, the journal, the kernel (4th), the rollback.
TILEADVISE_FAULT="rename:4+" "$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
"$TILEADVISE" --redo "$d/k.py" >/dev/null 2>"$d/err2"
rr=$?
[ "$rc" = 2 ] && [ "$rr" = 2 ] && grep -q "nothing to redo" "$d/err2" && cmp -s "$d/k.py" "$kernel"
result $? "disk full in the write and its rollback: --redo has nothing to bring back" \
	"rc=$rc redo rc=$rr $(cat "$d/err" "$d/err2")"

# ---- temporary files of killed runs ------------------------------------------
d="$tmp/stale"
mkdir -p "$d/.tileadvise"
cp "$kernel" "$d/k.py"
sh -c 'echo $$ >"$1"' sh "$tmp/deadpid"
dead=$(cat "$tmp/deadpid")
for f in "$d/.k.py.tileadvise-$dead-0" "$d/.tileadvise/.journal-k.py.json.tileadvise-$dead-1" \
	 "$d/.k.py.tileadvise-$$-0" "$d/.other.py.tileadvise-$dead-0"; do
	echo partial >"$f"
done
"$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 0 ] && [ ! -e "$d/.k.py.tileadvise-$dead-0" ] && [ ! -e "$d/.tileadvise/.journal-k.py.json.tileadvise-$dead-1" ] &&
	[ -e "$d/.k.py.tileadvise-$$-0" ] && [ -e "$d/.other.py.tileadvise-$dead-0" ]
result $? "an apply removes the temporary files of killed runs (its own file's, dead writers' only)" \
	"rc=$rc $(ls -A "$d" "$d/.tileadvise" | tr '\n' ' ')"

# ---- hard links ---------------------------------------------------------------
d="$tmp/links"
mkdir "$d"
cp "$kernel" "$d/k.py"
ln "$d/k.py" "$d/other.py"
"$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 0 ] && grep -q "hard links" "$d/err" && cmp -s "$d/other.py" "$kernel"
result $? "--apply on a hard-linked file says the other links keep the old text" "rc=$rc $(cat "$d/err")"

# ---- a lock held elsewhere ------------------------------------------------------
d="$tmp/held"
mkdir "$d"
cp "$kernel" "$d/k.py"
PYTHON3="$tmp/slow" "$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>&1 &
p1=$!
# The lock file exists as soon as the first apply holds it.
i=0
while [ ! -e "$d/.tileadvise/lock-k.py" ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i + 1)); done
"$TILEADVISE" --apply=D12:24 "$d/k.py" >/dev/null 2>"$d/err"
rc=$?
wait "$p1"
[ "$rc" = 0 ] && [ "$(grep -c triton.cdiv "$d/k.py")" = 2 ]
result $? "an --apply started while another holds the lock waits and then applies" "rc=$rc $(cat "$d/err")"

# ---- what a run leaves (issue 30, item 7) -----------------------------------------
# A refused --apply (an unsafe edit without --unsafe-fixes, an id with no
# finding) leaves no .tileadvise/ at all; an applied one leaves the journal
# and its versions, no lock, and a .gitignore that keeps the folder out of
# `git status`.
d="$tmp/left"
mkdir "$d"
cp "$kernel" "$d/k.py"
"$TILEADVISE" --apply=S3 "$d/k.py" >/dev/null 2>&1
rc1=$?
"$TILEADVISE" --apply=P1 "$d/k.py" >/dev/null 2>&1
rc2=$?
[ "$rc1" != 0 ] && [ "$rc2" != 0 ] && [ ! -e "$d/.tileadvise" ]
result $? "a refused --apply leaves no .tileadvise/ behind" "rc=$rc1,$rc2 $(ls -A "$d/.tileadvise" 2>&1)"
"$TILEADVISE" --apply=D12:16 "$d/k.py" >/dev/null 2>&1
"$TILEADVISE" --apply=P1 "$d/k.py" >/dev/null 2>&1
ignored=yes
if command -v git >/dev/null 2>&1; then
	(cd "$d" && git init -q . && git status --porcelain) >"$d/status" 2>&1 || ignored=no
	grep -q tileadvise "$d/status" && ignored=no
fi
left=$(cd "$d/.tileadvise" && ls -A | tr '\n' ' ')
[ "$left" = ".gitignore journal-k.py.json versions " ] && [ "$(tail -n 1 "$d/.tileadvise/.gitignore")" = "*" ] &&
	[ $ignored = yes ]
result $? "an --apply leaves its journal and versions, no lock, and a .gitignore git honours" "left: $left; git: $(cat "$d/status" 2>/dev/null)"
finish
