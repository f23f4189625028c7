#!/bin/sh
# Input an attacker or an accident controls (issue 18): a FIFO or device as
# FILE, control characters and markup in names and source text that reach
# the terminal or a report, file names that look like options, CR-only line
# endings, folders deeper than --check walks. Each ends in a result or one
# clear line, never a hang, never raw escape sequences on the terminal.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-untrusted-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
# D12's golden pair (tests/entries/D12.md)
d12=$(ta_cases "$tmp/cases")/edits/d12 || exit 99

# ta ARGS: runs with a 10 s limit (a hang is a failure, not a stuck suite).
ta() { timeout 10 "$TILEADVISE" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?; }
why() { echo "rc=$rc $(head -c 400 "$tmp/err")"; }
# esc FILE: FILE holds a control character other than tab and newline.
esc() { LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1"; }

plan 18

# ---- not a regular file ----------------------------------------------------
mkfifo "$tmp/k.py"
for mode in --check --report --apply=D12 --diff=D12 --undo; do
	ta $mode "$tmp/k.py"
	[ "$rc" = 2 ] && grep -q "not a regular file" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]
	result $? "a FIFO as FILE: $mode refuses (not a regular file), no hang" "$(why)"
done
ta --report --replay "$tmp/k.py"
[ "$rc" = 2 ] && grep -q "not a regular file" "$tmp/err"
result $? "a FIFO as --replay SESSION: refused, no hang" "$(why)"
ta --profile --records "$tmp/k.py" "$TA_SRCDIR/tests/fixtures/robust/two_d12.py"
[ "$rc" = 2 ] && grep -q "not a regular file" "$tmp/err"
result $? "a FIFO as --records: refused, no hang" "$(why)"
rm -f "$tmp/k.py"

# ---- control characters and markup --------------------------------------------
# A recorded session whose file name, GPU, software, run label and kernel
# names carry escape sequences (title, clear screen, colour, a C1 CSI) and
# markdown/HTML (a table's | and a line break, a backtick, <img onerror>).
python3 - "$TA_SRCDIR/examples/softmax/session.h200.json" "$tmp/evil.json" <<'EOS'
import json, sys
s = json.load(open(sys.argv[1]))
bad = 'soft|max\nker`nel<img src=x onerror=alert(1)>\x1b]0;PWNED\x07'
s['file']['name'] = 'k\x1b]0;TITLE\x07.py'
s['env']['gpu']['name'] = 'NVIDIA\x1b[2J H200 <b>|'
s['env']['software'] = 'drv\x9b31m | x'
for r in s['runs']:
    r['label'] = 'run\x1b[31m|'
    for k in r['kernels']:
        k['name'] = bad
for k in s['walk']['kernels']:
    k['name'] = bad
json.dump(s, open(sys.argv[2], 'w'))
EOS
ta --report --replay "$tmp/evil.json"
[ "$rc" = 0 ] && ! esc "$tmp/out" && ! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$tmp/out"
result $? "--report --replay: no control character of the session reaches the output" "$(why)"
# Every table row keeps its five cells: no unescaped | or line break inside.
python3 - "$tmp/out" <<'EOS'
import re, sys
rows = [l for l in open(sys.argv[1], encoding='utf-8') if l.startswith('|')]
bad = [l for l in rows if len(re.findall(r'(?<!\\)\|', l)) != 6]
sys.exit(1 if not rows or bad else 0)
EOS
result $? "--report --replay: a | or line break in a kernel name does not break the table" "$(grep '^|' "$tmp/out" | head -5)"
# HTML only inside code spans (shown as text), elsewhere as entities.
python3 - "$tmp/out" <<'EOS'
import re, sys
text = open(sys.argv[1], encoding='utf-8').read()
outside = re.sub(r'`[^`\n]*`', '', text)
sys.exit(1 if '<' in outside or '&lt;b&gt;' not in text else 0)
EOS
result $? "--report --replay: HTML in names is escaped or inside a code span" "$(head -c 600 "$tmp/out")"

# --check quoting source text that holds raw escape sequences.
python3 - "$d12.before.py" "$tmp/esc.py" <<'EOS'
import sys
src = open(sys.argv[1]).read()
src = src.replace('grid = ((n + 256 - 1) // 256,)',
                  'grid = ((n + len("\x1b]0;TITLE\x07") - 1) // len("\x1b]0;TITLE\x07"),)')
open(sys.argv[2], 'w').write(src)
EOS
ta --check "$tmp/esc.py"
[ "$rc" = 1 ] && grep -q "D12" "$tmp/out" && ! esc "$tmp/out"
result $? "--check: escape sequences quoted from the source are replaced" "$(why) $(cat -A "$tmp/out" | head -3)"

# A file name with escape sequences in an error message.
ta --check "$tmp/$(printf 'x\033]0;TITLE\007.py')"
[ "$rc" = 2 ] && ! esc "$tmp/err" && grep -q "TITLE" "$tmp/err"
result $? "an error naming a file with escape sequences prints them replaced" "$(why)"

# --diff to a terminal would replace them too; to a file or pipe the diff
# stays byte-exact (it is meant for patch).
ta --diff=D12 "$tmp/esc.py"
[ "$rc" = 0 ] && esc "$tmp/out"
result $? "--diff to a file keeps the file's bytes (patchable)" "$(why)"

# ---- a file name that looks like an option -----------------------------------------
# python3 would read "-c..." as its -c option and run the rest as code.
mkdir "$tmp/dash"
name='-cimport os;os.system("touch PWNED")#.py'
echo 'open("RAN", "w").write("the file itself ran")' >"$tmp/dash/$name"
ta_abs=$(cd "$(dirname "$TILEADVISE")" && pwd)/$(basename "$TILEADVISE")
(cd "$tmp/dash" && timeout 60 "$ta_abs" --profile --gpu=h200 --timeout=30 -- "$name" >/dev/null 2>"$tmp/err" </dev/null)
rc=$?
[ ! -e "$tmp/dash/PWNED" ] && [ -e "$tmp/dash/RAN" ]
result $? "--profile of a file named '-c...': python3 runs the file, not its name as code" "$(why); $(ls "$tmp/dash")"

# ---- folders deeper than --check walks ---------------------------------------------
d="$tmp/deep"
i=0
while [ $i -lt 66 ]; do d="$d/d"; i=$((i + 1)); done
mkdir -p "$d"
cp "$d12.before.py" "$d/k.py"
cp "$d12.before.py" "$tmp/deep/k.py"
ta --check "$tmp/deep"
[ "$rc" = 2 ] && grep -q "more than 64 folders deep" "$tmp/err" && [ "$(grep -c D12 "$tmp/out")" = 1 ]
result $? "--check DIR says which folders are too deep to walk, and exits 2" "$(why)"

# ---- CR-only line endings (classic Mac OS; Python reads them) ------------------------
tr '\n' '\r' <"$d12.before.py" >"$tmp/cr.py"
tr '\n' '\r' <"$d12.after.py" >"$tmp/cr.expected"
ta --check "$tmp/cr.py"
[ "$rc" = 1 ] && grep -q "cr.py:17:13: .*\[D12\]" "$tmp/out"
result $? "CR-only line endings: --check finds the kernel's findings at their lines" "$(why) $(cat "$tmp/out")"
ta --report "$tmp/cr.py"
[ "$rc" = 0 ] && grep -q "copy_kernel" "$tmp/out"
result $? "CR-only line endings: --report shows the kernel" "$(why)"
ta --apply=D12 "$tmp/cr.py"
[ "$rc" = 0 ] && cmp -s "$tmp/cr.py" "$tmp/cr.expected"
result $? "CR-only line endings: --apply writes the edit with the file's CR endings" "$(why) $(od -c "$tmp/cr.py" | head -3)"
finish
