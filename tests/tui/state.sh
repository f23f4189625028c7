#!/bin/sh
# What the advisor writes under .tileadvise/ and shows of hostile names and
# text (issue 31): `w` refuses a report file planted as a link or a FIFO
# (it truncated the link's target, and hung on the FIFO), a symlinked
# .tileadvise/ is neither written nor read through (the kernel's text went
# where it pointed), what it makes keeps the kernel's mode, a file name
# that is not UTF-8 resumes its session, and bidirectional characters in
# the source are shown as '?'. Each check failed with the build before.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 11

kernel=$(ta_cases "$TA_TMP/cases")/edits/d12.before.py || exit 99
work="$TA_TMP/w"
mkdir -p "$work"
# open DIR NAME: the advisor on DIR/NAME, without profiling
open_in() {
	ta_start 120 40 "cd '$1' && XDG_DATA_HOME='$TA_TMP/xdg' '$TILEADVISE' --no-profile '$2'"
}
quit() { ta_keys q && ta_wait "^EXIT=0" >/dev/null; }

# ---- w through a planted link, into a FIFO, and as it should --------------------------
cp "$kernel" "$work/k.py"
chmod 600 "$work/k.py"
mkdir "$work/.tileadvise"
echo precious >"$TA_TMP/target"
ln -s "$TA_TMP/target" "$work/.tileadvise/report-k.py.md"
open_in "$work" k.py
ta_wait "Walk of copy_kernel" >/dev/null
ta_keys w
check "w refuses a report file planted as a link" ta_wait "cannot write .*symlink"
[ "$(cat "$TA_TMP/target")" = precious ] && [ -L "$work/.tileadvise/report-k.py.md" ]
result $? "the link's target is untouched"
quit
rm "$work/.tileadvise/report-k.py.md"
mkfifo "$work/.tileadvise/report-k.py.md"
open_in "$work" k.py
ta_wait "Walk of copy_kernel" >/dev/null
ta_keys w
check "w refuses a FIFO there without waiting on it" ta_wait "cannot write .*FIFO"
ta_keys q
check "q still quits" ta_wait "^EXIT=0"
rm "$work/.tileadvise/report-k.py.md"
open_in "$work" k.py
ta_wait "Walk of copy_kernel" >/dev/null
ta_keys w
ta_wait "report written to" >/dev/null
quit
modes=$(find "$work/.tileadvise" -type f -exec stat -c %a {} + | sort -u | tr '\n' ' ')
[ -s "$work/.tileadvise/report-k.py.md" ] && [ "$modes" = "600 " ]
result $? "w writes the report; the session and the report keep the kernel's 0600" "modes: $modes"

# ---- a symlinked .tileadvise/ --------------------------------------------------------------
mkdir -p "$TA_TMP/a" "$TA_TMP/b"
cp "$kernel" "$TA_TMP/a/k.py"
cp "$kernel" "$TA_TMP/b/k.py"
mkdir "$TA_TMP/b/.tileadvise"
ln -s ../b/.tileadvise "$TA_TMP/a/.tileadvise"
open_in "$TA_TMP/a" k.py
ta_wait "Walk of copy_kernel" >/dev/null
ta_keys w
check "a symlinked .tileadvise/: neither the session nor the report is written through it" ta_wait "symlink"
quit
[ -z "$(ls -A "$TA_TMP/b/.tileadvise")" ]
result $? "nothing lands where the link points" "$(ls -A "$TA_TMP/b/.tileadvise")"
open_in "$TA_TMP/b" k.py
ta_wait "Walk of copy_kernel" >/dev/null
quit
cp "$TA_TMP/b/.tileadvise/session-k.py.json" "$TA_TMP/b-session"
open_in "$TA_TMP/a" k.py
check "another folder's session is not read through the link" ta_wait "symlink"
cmp -s "$TA_TMP/b/.tileadvise/session-k.py.json" "$TA_TMP/b-session"
result $? "and it is left as it was"

# ---- names and text --------------------------------------------------------------------------
mkdir "$TA_TMP/latin1"
name=$(printf 'k\351.py')
cp "$kernel" "$TA_TMP/latin1/$name"
open_in "$TA_TMP/latin1" "$name"
ta_wait "Walk of copy_kernel" >/dev/null
quit
open_in "$TA_TMP/latin1" "$name"
check "a name that is not UTF-8: the next launch resumes its session" ta_wait "resumed the session"
quit
mkdir "$TA_TMP/bidi"
python3 - "$kernel" "$TA_TMP/bidi/k.py" <<'EOS'
import sys
src = open(sys.argv[1]).read()
src = src.replace('n = x.numel()', 'n = x.numel()  # \u202e }eslaf{ \u2066 ZW\u200bSP')
open(sys.argv[2], 'w').write(src)
EOS
open_in "$TA_TMP/bidi" k.py
ta_wait_fixed "ZW?SP" >/dev/null
ta_screen >"$TA_TMP/screen"
grep -qF '# ? }eslaf{ ? ZW?SP' "$TA_TMP/screen" && ! LC_ALL=C grep -q "$(printf '\342\200[\213-\217\252-\256]')" "$TA_TMP/screen"
result $? "bidirectional and zero-width characters in the source show as '?'"
quit
finish
