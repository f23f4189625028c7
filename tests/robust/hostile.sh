#!/bin/sh
# Hostile inputs not covered by the other suites (see tests/ROBUSTNESS.md):
# every byte value, a file rewritten while it is analysed, kernel files
# that are symlinks (inside and outside their folder, loops, dangling) for
# --report/--check/--apply/--undo, and a damaged or foreign `.tileadvise/`
# for --apply/--undo/--redo. Each must end in a result or in one clear line
# on stderr (exit 2), never a crash or a sanitizer report, and a refused
# edit leaves the kernel's bytes as they were.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR; ROBUST_CHANGING_RUNS (default 200).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-hostile-XXXXXX") || exit 99
bg=
trap '[ -n "$bg" ] && kill "$bg" 2>/dev/null; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
# D12's golden pair (tests/entries/D12.md)
fx=$(ta_cases "$tmp/cases")/edits || exit 99
kernel="$fx/d12.before.py"

# sane: the last run ($rc, $tmp/err) did not crash and printed no sanitizer report.
sane() {
	[ "$rc" -lt 128 ] && ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error|Segmentation' "$tmp/err"
}
# refused NEEDLE: exit 2, exactly one line on stderr holding NEEDLE.
refused() {
	sane && [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$1" "$tmp/err"
}
ta() { "$TILEADVISE" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
why() { echo "rc=$rc $(head -c 400 "$tmp/err")"; }

plan 35

# ---- every byte value ------------------------------------------------------
printf '' >"$tmp/all.py"
i=0
while [ $i -lt 256 ]; do
	printf "\\$(printf %03o $i)" >>"$tmp/all.py"
	i=$((i + 1))
done
for mode in --report --check; do
	ta $mode "$tmp/all.py"
	refused "$tmp/all.py"; result $? "all 256 byte values, $mode: exit 2 in one line naming the file" "$(why)"
done
tail -c 255 "$tmp/all.py" >"$tmp/nonul.py"
ta --check "$tmp/nonul.py"
refused "invalid UTF-8"; result $? "bytes 1-255 (no NUL): invalid UTF-8 in one line" "$(why)"

# ---- a parse that runs past its time budget ---------------------------------
# Bytes that are not Python can make tree-sitter's error recovery superlinear
# (a fuzzed 233 KB file: 2.6 s); the parse stops at a budget some 25 times
# what code of that size takes. A 1 ms budget stands in for such a file here.
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "f(x[%d, (y if z else {w: \n", i }' >"$tmp/slowparse.py"
for mode in --report --check; do
	TILEADVISE_PARSE_BUDGET_MS=1 ta $mode "$tmp/slowparse.py"
	refused "parsing stopped after"; result $? "a parse past its budget, $mode: exit 2 in one line" "$(why)"
done

# Each byte value alone, raw inside a kernel's body (most make syntax
# errors): ASCII gives a result (0 or 1), the rest one line (exit 2).
bad=""
head -n 6 "$kernel" >"$tmp/head.part"
tail -n +7 "$kernel" >"$tmp/tail.part"
i=1
while [ $i -lt 256 ]; do
	f="$tmp/b$i.py"
	{ cat "$tmp/head.part"; printf "    x = 1\\$(printf %03o $i) + 2\n"; cat "$tmp/tail.part"; } >"$f"
	ta --check "$f"
	if [ $i -lt 128 ]; then
		# stderr: --check's summary line alone
		{ sane && { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && [ "$(grep -cv '^Found [0-9]\|^All checks passed\.$' "$tmp/err")" = 0 ]; } ||
			bad="$bad $i(rc=$rc)"
	else
		refused "invalid UTF-8" || bad="$bad $i(rc=$rc)"
	fi
	rm -f "$f"
	i=$((i + 1))
done
[ -z "$bad" ]; result $? "each byte value 1-255 inside a kernel: --check gives a result or one line" "bad:$bad"

# ---- a file rewritten while it is analysed ---------------------------------
runs=${ROBUST_CHANGING_RUNS:-200}
f="$tmp/changing.py"
cp "$kernel" "$f"
cp "$TA_SRCDIR/tests/fixtures/model/syntax_errors.py" "$tmp/other.py"
(
	# In place (not atomic): readers see empty, partial and whole files.
	while :; do
		cat "$kernel" >"$f"
		cat "$tmp/other.py" >"$f"
		printf 'import triton\n\000\377' >"$f"
		head -c 300 "$kernel" >"$f"
		: >"$f"
	done
) &
bg=$!
bad=""
clean=0
msgs=0
k=0
while [ $k -lt "$runs" ]; do
	if [ $((k % 2)) = 0 ]; then ta --report "$f"; else ta --check "$f"; fi
	if ! sane; then
		bad="$bad run$k(rc=$rc)"
	elif [ "$rc" = 2 ]; then
		if [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "$f" "$tmp/err"; then msgs=$((msgs + 1))
		else bad="$bad run$k(msg: $(head -c 200 "$tmp/err"))"; fi
	elif [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
		clean=$((clean + 1))
	else
		bad="$bad run$k(rc=$rc)"
	fi
	k=$((k + 1))
done
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=
[ -z "$bad" ]; result $? "a file rewritten during $runs --report/--check runs: $clean results, $msgs one-line messages, no crash" "bad:$bad"

# --apply while the file changes: refused or applied, never a mix.
cp "$kernel" "$f"
(
	# Stops after a whole write when told (a kill could leave half a file).
	while [ ! -e "$tmp/stop" ]; do cat "$kernel" >"$f"; cat "$tmp/other.py" >"$f"; done
) &
bg=$!
bad=""
k=0
while [ $k -lt 20 ]; do
	rm -rf "$tmp/.tileadvise"
	ta --apply D12 "$f"
	sane || bad="$bad apply$k(rc=$rc)"
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" != 1 ] && bad="$bad apply$k(lines)"
	k=$((k + 1))
done
touch "$tmp/stop"
wait "$bg" 2>/dev/null
bg=
# What is on disk is one of the versions the writer or the tool wrote.
cmp -s "$f" "$kernel" || cmp -s "$f" "$tmp/other.py" || cmp -s "$f" "$fx/d12.after.py" || bad="$bad final-bytes"
[ -z "$bad" ]; result $? "--apply 20 times on a file being rewritten: each ends in a result or one line" "bad:$bad"
rm -rf "$tmp/.tileadvise"

# ---- symlinks ----------------------------------------------------------------
d="$tmp/links"
mkdir -p "$d/k" "$d/outside"
cp "$kernel" "$d/k/real.py"
cp "$kernel" "$d/outside/far.py"
ln -s real.py "$d/k/in.py"
ln -s ../outside/far.py "$d/k/out.py"
ln -s "$d/outside" "$d/k/outdir"
ln -s loop2.py "$d/k/loop1.py"
ln -s loop1.py "$d/k/loop2.py"
ln -s nowhere.py "$d/k/dangling.py"

ta --report "$d/k/in.py"
sane && [ "$rc" = 0 ] && grep -q "1 kernel" "$tmp/out"
result $? "--report through a symlink inside the folder" "$(why)"
ta --report "$d/k/out.py"
sane && [ "$rc" = 0 ] && grep -q "1 kernel" "$tmp/out"
result $? "--report through a symlink out of the folder reads the target (reading is harmless)" "$(why)"
ta --check "$d/k/in.py"
sane && [ "$rc" = 1 ] && grep -q "in.py:17:.*\[D12\]" "$tmp/out"
result $? "--check through a symlink inside the folder names the link" "$(why)"
ta --check "$d/k/loop1.py"
refused "loop1.py"; result $? "--check of a symlink loop: one line" "$(why)"
ta --report "$d/k/dangling.py"
refused "dangling.py"; result $? "--report of a dangling symlink: one line" "$(why)"
# A folder: links out of the tree are not followed, links inside are not
# checked twice (the real file is there).
rm -f "$d/k/loop1.py" "$d/k/loop2.py" "$d/k/dangling.py"
ta --check "$d/k"
sane && [ "$rc" = 1 ] && ! grep -q "far.py\|outdir\|out.py" "$tmp/out"
result $? "--check of a folder does not follow links out of it" "$(why) $(head -c 300 "$tmp/out")"
ln -s loop2.py "$d/k/loop1.py"
ln -s loop1.py "$d/k/loop2.py"
ln -s nowhere.py "$d/k/dangling.py"

for l in loop1 dangling; do
	ta --apply D12 "$d/k/$l.py"
	refused "$l.py" && [ ! -e "$d/k/.tileadvise" ] && [ -L "$d/k/$l.py" ]
	result $? "--apply on a ${l} symlink: one line, nothing written" "$(why)"
done
ta --apply D12 "$d/k/outdir/far.py"
sane && { { [ "$rc" = 2 ] && cmp -s "$d/outside/far.py" "$kernel"; } ||
	{ [ "$rc" = 0 ] && cmp -s "$d/outside/far.py" "$fx/d12.after.py"; }; }
result $? "--apply through a symlinked folder: refused or applied in its real folder, no crash" "$(why)"
cp "$kernel" "$d/outside/far.py"
rm -rf "$d/outside/.tileadvise"
for act in undo redo; do
	ta --$act "$d/k/out.py"
	refused "outside its folder" && cmp -s "$d/outside/far.py" "$kernel" && [ ! -e "$d/outside/.tileadvise" ]
	result $? "--$act through a symlink out of the folder is refused" "$(why)"
done

# ---- a damaged or foreign .tileadvise/ ---------------------------------------
# fresh NAME: a folder with k.py as the fixture and a journal after one apply.
fresh() {
	w="$tmp/j-$1"
	rm -rf "$w"
	mkdir -p "$w"
	cp "$kernel" "$w/k.py"
	"$TILEADVISE" --apply D12 "$w/k.py" >/dev/null 2>&1
	cp "$w/k.py" "$w/k.expected"
	J="$w/.tileadvise/journal-k.py.json"
}
# untouched ACT NEEDLE DESC: ACT on k.py is refused in one line with NEEDLE, k.py unchanged.
untouched() {
	ta --$1 $([ "$1" = apply ] && echo D12) "$w/k.py"
	refused "$2" && cmp -s "$w/k.py" "$w/k.expected"
	result $? "$3: --$1 refuses in one line, the kernel untouched" "$(why)"
}

fresh corrupt
printf '{"version": 1, "file": "k.py", "entries": [' >"$J"
untouched undo corrupted "a truncated journal"
untouched redo corrupted "a truncated journal"
fresh future
printf '{"version": 7, "file": "k.py", "entries": [], "position": 0}\n' >"$J"
cp "$kernel" "$w/k.py"
cp "$kernel" "$w/k.expected"
untouched apply "newer tileadvise" "a journal from a future version"
untouched redo "newer tileadvise" "a journal from a future version"
fresh empty
: >"$J"
untouched undo corrupted "an empty journal file"
fresh garbage
cp "$tmp/all.py" "$J"
untouched undo corrupted "a journal of binary garbage"
fresh other
sed 's/"file": *"k.py"/"file": "other.py"/' "$J" >"$J.new" && mv "$J.new" "$J"
untouched undo corrupted "a journal that belongs to another file"
fresh escape
sed 's|"before": *"[^"]*"|"before": "../../../etc/passwd"|' "$J" >"$J.new" && mv "$J.new" "$J"
untouched undo corrupted "a journal entry pointing out of .tileadvise/"
fresh missing
rm -f "$w/.tileadvise/versions/k.py/"*
untouched undo "missing or unreadable" "the saved version deleted"
fresh tampered
for v in "$w/.tileadvise/versions/k.py/"*; do printf '# tampered\n' >>"$v"; done
untouched undo "does not match" "the saved version tampered with"
fresh huge
{ printf '{"version": 1, "file": "k.py", "entries": [], "position": 0, "pad": "'; head -c 5000000 /dev/zero | tr '\0' a; printf '"}\n'; } >"$J"
untouched undo "MiB" "a 5 MB journal"
fresh dirjournal
rm -f "$J"
mkdir "$J"
untouched undo "$J" "the journal is a folder"

# .tileadvise/ itself is a file, or its versions/ a link out of the folder.
w="$tmp/j-file"
mkdir -p "$w"
cp "$kernel" "$w/k.py"
cp "$kernel" "$w/k.expected"
printf 'not a folder\n' >"$w/.tileadvise"
untouched apply ".tileadvise" ".tileadvise is a file"
w="$tmp/j-vlink"
mkdir -p "$w/.tileadvise" "$tmp/elsewhere"
cp "$kernel" "$w/k.py"
cp "$kernel" "$w/k.expected"
ln -s "$tmp/elsewhere" "$w/.tileadvise/versions"
untouched apply "versions" ".tileadvise/versions is a link out of the folder"
[ -z "$(ls -A "$tmp/elsewhere")" ]
result $? ".tileadvise/versions as a link: nothing written through it" "$(ls -A "$tmp/elsewhere")"

# The journal a link to a file elsewhere: the apply is refused before the
# edit (issue 31: nothing under .tileadvise/ is read or written through a
# link; it used to go on and replace the link), the file it pointed at is
# not written.
w="$tmp/j-jlink"
mkdir -p "$w/.tileadvise"
cp "$kernel" "$w/k.py"
printf '{"version": 1, "file": "k.py", "entries": [], "position": 0}\n' >"$tmp/elsewhere/j.json"
cp "$tmp/elsewhere/j.json" "$tmp/j.expected"
ln -s "$tmp/elsewhere/j.json" "$w/.tileadvise/journal-k.py.json"
ta --apply D12 "$w/k.py"
sane && { [ "$rc" = 0 ] || [ "$rc" = 2 ]; } && cmp -s "$tmp/elsewhere/j.json" "$tmp/j.expected"
result $? "the journal a link to a file elsewhere: that file is never written" "$(why)"

finish
