#!/bin/sh
# Names, links, escapes and hostile records (issue 31): a file name that is
# not UTF-8 or holds a line break, bidirectional and zero-width characters,
# a bare carriage return in a diff on a terminal, links and FIFOs planted
# in .tileadvise/, what tileadvise makes there (owner, mode), and record
# fields out of range. Each check failed with the build before the issue.
# TAP (tests/lib/tap.sh). Env: TILEADVISE, TA_SRCDIR.
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
case $TILEADVISE in /*) ;; *) TILEADVISE=$(pwd)/$TILEADVISE ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-names-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
# D12's golden pair (tests/entries/D12.md)
cases=$(ta_cases "$tmp/cases") || exit 99
kernel="$cases/edits/d12.before.py"
after="$cases/edits/d12.after.py"
py=${PYTHON3:-python3}

ta() { timeout 20 "$TILEADVISE" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?; }
# ta_in DIR ARGS: ta from DIR
ta_in() { dir=$1; shift; (cd "$dir" && exec timeout 20 "$TILEADVISE" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null); rc=$?; }
why() { echo "rc=$rc out: $(head -c 300 "$tmp/out" | tr '\n' '|') err: $(head -c 300 "$tmp/err" | tr '\n' '|')"; }
# raw FILE: FILE holds a control character other than tab and newline, a
# C1 control, or a bidirectional / zero-width format character.
raw() {
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" ||
		LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" ||
		LC_ALL=C grep -q "$(printf '\342\200[\213-\217\250-\256]')" "$1" ||
		LC_ALL=C grep -q "$(printf '\342\201[\246-\251]')" "$1"
}

plan 38

# ---- a file name that is not UTF-8 ---------------------------------------------
d="$tmp/latin1"
mkdir "$d"
name=$(printf 'k\351.py')
cp "$kernel" "$d/$name"
ta_in "$d" --apply=D12 "$name"
[ "$rc" = 0 ] && cmp -s "$d/$name" "$after"
result $? "a name that is not UTF-8: --apply applies" "$(why)"
"$py" - "$d/.tileadvise/journal-$name.json" "$name" <<'EOS'
import base64, json, os, sys
j = json.load(open(os.fsencode(sys.argv[1])))
name = os.fsencode(sys.argv[2])
ok = base64.b64decode(j["file_bytes"]) == name and all(
    base64.b64decode(e["before_bytes"]).startswith(b"versions/" + name + b"/") for e in j["entries"])
sys.exit(0 if ok else 1)
EOS
result $? "the journal keeps the name's exact bytes (file_bytes, before_bytes), no field dropped" "$(cat "$d/.tileadvise/"journal-* | head -c 400)"
ta_in "$d" --undo "$name" && [ "$rc" = 0 ] && cmp -s "$d/$name" "$kernel" &&
	ta_in "$d" --redo "$name" && [ "$rc" = 0 ] && cmp -s "$d/$name" "$after"
result $? "--undo and --redo read that journal back" "$(why)"
cp "$TA_SRCDIR/tests/fixtures/robust/two_d12.py" "$d/$name"
ta_in "$d" --apply=D12:16 "$name"
[ "$rc" = 0 ]
result $? "a later --apply on the same name reads the journal" "$(why)"
ta_in "$d" --check --format=json "$name"
[ "$rc" = 1 ] && "$py" - "$tmp/out" "$name" <<'EOS'
import base64, json, os, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
sys.exit(0 if d and all(base64.b64decode(x["file_bytes"]) == os.fsencode(sys.argv[2]) for x in d) else 1)
EOS
result $? "--check --format=json: every diagnostic, with the name's bytes in file_bytes" "$(why)"
ta_in "$d" --report --format=json "$name"
[ "$rc" = 0 ] && "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["kernels"] and d["file_bytes"] else 1)' "$tmp/out"
result $? "--report --format=json prints the report, the name's bytes beside it" "$(why)"
ta_in "$d" --check --format=sarif "$name"
[ "$rc" = 1 ] && grep -q '"uri": "k%E9.py"' "$tmp/out"
result $? "--check --format=sarif: the name percent-encoded in the URI" "$(why)"
ta_in "$d" --check "$name"
[ "$rc" = 1 ] && grep -q '^k\\xe9.py:' "$tmp/out"
result $? "--check text shows the byte as \\xe9" "$(why)"
ta_in "$d" --record-session "$d/.tileadvise/session-$name.json" --gpu h200 "$name" &&
	ta_in "$d" --report --replay "$d/.tileadvise/session-$name.json"
[ "$rc" = 0 ] && grep -q 'k\\xe9.py' "$tmp/out"
result $? "a session of that file saves and loads again" "$(why)"

# ---- line breaks in a name: no line of tileadvise's own ------------------------
d="$tmp/nl"
mkdir "$d"
name=$(printf 'k\n::error file=x.py,line=1::PWNED\nx.py')
cp "$kernel" "$d/$name"
# only lines: a name's line break shows as '?', never starts a line
lines_ok() { ! grep -q '^::\|^x\.py' "$tmp/out" "$tmp/err"; }
for mode in --check "--check --fixes" --report "--report --format=markdown" "--diff=D12"; do
	ta_in "$d" $mode "$name"
	[ "$rc" != 2 ] && lines_ok && [ -s "$tmp/out" ]
	result $? "a name with line breaks: $mode writes no line of the name's" "$(why)"
done
ta_in "$d" --apply=D12 "$name"
[ "$rc" = 0 ] && lines_ok && grep -q '^tileadvise: applied D12 at line 17 of k?::error' "$tmp/err"
result $? "--apply's message is one line" "$(why)"
ta_in "$d" --undo "$name"
grep -q '^--- "a/k\\n::error file=x.py,line=1::PWNED\\nx.py"$' "$tmp/out"
result $? "--diff's header quotes the name as git does" "$(why)"
(cd "$d" && "$TILEADVISE" --diff=D12 "$name" >"$tmp/patch" 2>/dev/null && cp "$name" "$tmp/orig" &&
	patch -s -p1 <"$tmp/patch" >/dev/null 2>&1) && cmp -s "$d/$name" "$after"
result $? "GNU patch applies that diff to the file it names" "$(cat "$tmp/patch" | head -3)"
mkdir "$d/sub"
cp "$kernel" "$d/sub/$name"
ta_in "$d" --check sub "$(printf 'missing\n::error::X.py')"
[ "$rc" = 2 ] && lines_ok && grep -q '^tileadvise: missing?::error::X.py' "$tmp/err"
result $? "--check DIR and an error naming a missing file: one line each" "$(why)"

# ---- --walk and the walk in a session --------------------------------------------
ex="$TA_SRCDIR/examples/attention/attention.py"
rec="$TA_SRCDIR/tests/recordings/h200-2026-11-29-example-attention.jsonl"
d="$tmp/walk"
mkdir "$d"
name=$(printf 'att\351.py')
cp "$ex" "$d/$name"
ta_in "$d" --walk --gpu h200 --records "$rec" --select=S3 --keep-neutral --format=jsonl "$name"
[ "$rc" = 0 ] && "$py" - "$tmp/out" "$name" <<'EOS'
import base64, json, os, sys
need = {"diff": "diff", "note": "text", "test": "how", "kept": "why", "summary": "session"}
name, seen = os.fsencode(sys.argv[2]), set()
for line in open(sys.argv[1]):
    e = json.loads(line)
    key = need.get(e["event"])
    if key and key not in e:
        sys.exit("%s event without %s" % (e["event"], key))
    seen.add(e["event"])
    if e["event"] == "summary" and not base64.b64decode(e["session_bytes"]).endswith(b"/session-" + name + b".json"):
        sys.exit("session_bytes")
    if e["event"] == "diff" and b"+++ b/" + name not in base64.b64decode(e["diff_bytes"]):
        sys.exit("diff_bytes")
sys.exit(0 if {"diff", "summary"} <= seen else "events missing")
EOS
result $? "--walk --format=jsonl, a name not UTF-8: no field dropped (diff, note, session), its bytes beside them" "$(why)"
mkdir "$d/fresh"
cp "$ex" "$d/fresh/att.py"
cp "$ex" "$d/fresh/$name"
ta_in "$d/fresh" --record-session "$tmp/walk-utf8.json" --gpu h200 --records "$rec" att.py &&
	ta_in "$d/fresh" --record-session "$tmp/walk-latin1.json" --gpu h200 --records "$rec" "$name" &&
	"$py" - "$tmp/walk-utf8.json" "$tmp/walk-latin1.json" <<'EOS'
import json, sys
def diffs(f):
    return [(k["name"], s["id"]) for k in json.load(open(f))["walk"]["kernels"] for s in k["steps"] if "diff" in s]
a, b = diffs(sys.argv[1]), diffs(sys.argv[2])
sys.exit(0 if a and a == b else "%d against %d steps with a diff" % (len(a), len(b)))
EOS
result $? "a session's walk keeps each step's diff for a name not UTF-8" "$(why)"
name=$(printf 'a\n::error file=x.py,line=1::PWNED\nx.py')
cp "$ex" "$d/$name"
for fmt in text markdown; do
	ta_in "$d" --walk --gpu h200 --records "$rec" --select=S3 --format=$fmt "$name"
	[ "$rc" = 1 ] && ! grep -q '^::\|^x\.py' "$tmp/out" "$tmp/err" && grep -q 'session-a?::error' "$tmp/out"
	result $? "--walk --format=$fmt, a name with line breaks: the session's line is one line" "$(why)"
done

# ---- bidirectional and zero-width characters (Trojan source) ----------------------
d="$tmp/bidi"
mkdir "$d"
"$py" - "$kernel" "$d" <<'EOS'
import sys
src = open(sys.argv[1]).read()
src = src.replace('grid = ((n + 256 - 1) // 256,)', 'grid = ((n + 256 - 1) // 256,)  # \u202e }eslaf{ \u2066')
src = src.replace('n = x.numel()', 'n\u200b = x.numel()\n    n = n\u200b')
open(sys.argv[2] + '/k\u202egp.py', 'w').write(src)
EOS
name=$(cd "$d" && ls)
for mode in --check "--check --fixes" --report "--report --format=markdown"; do
	ta_in "$d" $mode "$name"
	[ "$rc" != 2 ] && ! raw "$tmp/out" && ! raw "$tmp/err" && grep -q 'k\\u202egp.py' "$tmp/out"
	result $? "bidi and zero-width characters: $mode shows them as \\u202e" "$(why)"
done
ta_in "$d" --diff=D12 "$name"
[ "$rc" = 0 ] && raw "$tmp/out"
result $? "--diff to a file or pipe keeps the exact bytes" "$(why)"

# ---- a bare carriage return mid-line, on a terminal ------------------------------
d="$tmp/cr"
mkdir "$d"
"$py" - "$kernel" "$d/k.py" <<'EOS'
import sys
src = open(sys.argv[1]).read()
src = src.replace('    n = x.numel()\n', '    n = x.numel()\n    os.system("id")\r        n += 0  # bookkeeping\n')
open(sys.argv[2], 'w').write(src)
EOS
if command -v script >/dev/null 2>&1; then
	(cd "$d" && timeout 20 script -qec "'$TILEADVISE' --diff=D12 k.py" /dev/null >"$tmp/tty" 2>&1)
	# the pty ends each line with CR LF: a CR before anything else was the file's
	grep -q 'os.system("id")?        n += 0' "$tmp/tty" && ! LC_ALL=C grep -q "$(printf '\r')." "$tmp/tty"
	result $? "--diff on a terminal shows a bare CR as '?' (the line's head stays visible)" "$(cat -A "$tmp/tty" | head -8)"
else
	skip "--diff on a terminal shows a bare CR as '?'" "no script(1)"
fi
ta_in "$d" --diff=D12 k.py
LC_ALL=C grep -q "$(printf 'system("id")\r')" "$tmp/out"
result $? "--diff to a pipe keeps the CR (the patch applies)" "$(why)"

# ---- .tileadvise/: links, FIFOs, owner and mode --------------------------------------
d="$tmp/linked"
mkdir -p "$d/a" "$d/b/.tileadvise"
cp "$kernel" "$d/a/k.py"
cp "$kernel" "$d/b/k.py"
ln -s ../b/.tileadvise "$d/a/.tileadvise"
ta --record-session "$d/a/.tileadvise/session-k.py.json" --gpu h200 "$d/a/k.py"
[ "$rc" = 2 ] && grep -q "symlink" "$tmp/err" && [ -z "$(ls -A "$d/b/.tileadvise")" ]
result $? "a symlinked .tileadvise/: the session is not written through it" "$(why) $(ls -A "$d/b/.tileadvise")"
d="$tmp/planted"
mkdir -p "$d/.tileadvise"
cp "$kernel" "$d/k.py"
echo precious >"$tmp/target"
ln -s "$tmp/target" "$d/.tileadvise/session-k.py.json"
ta --record-session "$d/.tileadvise/session-k.py.json" --gpu h200 "$d/k.py"
[ "$rc" = 2 ] && [ "$(cat "$tmp/target")" = precious ] && [ -L "$d/.tileadvise/session-k.py.json" ]
result $? "a session file planted as a link: refused, its target untouched" "$(why)"
rm "$d/.tileadvise/session-k.py.json"
mkfifo "$d/.tileadvise/lock-k.py"
ta --apply=D12 "$d/k.py"
[ "$rc" = 2 ] && grep -q "lock" "$tmp/err" && cmp -s "$d/k.py" "$kernel"
result $? "a FIFO planted as the lock: refused at once, no hang, file untouched" "$(why)"
rm "$d/.tileadvise/lock-k.py"
ln -s "$tmp/target" "$d/.tileadvise/journal-k.py.json"
ta --apply=D12 "$d/k.py"
[ "$rc" = 2 ] && [ "$(cat "$tmp/target")" = precious ] && cmp -s "$d/k.py" "$kernel"
result $? "a journal planted as a link: refused before the edit, nothing written through it" "$(why)"
d="$tmp/mode"
mkdir "$d"
cp "$kernel" "$d/k.py"
chmod 600 "$d/k.py"
ta --apply=D12 "$d/k.py" && ta --record-session "$d/.tileadvise/session-k.py.json" --gpu h200 "$d/k.py"
modes=$(find "$d/.tileadvise" -type f -exec stat -c %a {} + | sort -u | tr '\n' ' ')
[ "$rc" = 0 ] && [ "$modes" = "600 " ]
result $? "a 0600 kernel: what .tileadvise/ holds is 0600 too (journal, versions, lock, session)" "$(why) modes: $modes"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	d="$tmp/owner"
	mkdir "$d"
	chmod 755 "$tmp" "$d"
	cp "$kernel" "$d/k.py"
	chown 65534:65534 "$d" "$d/k.py"
	ta --apply=D12 "$d/k.py"
	owners=$(find "$d/.tileadvise" -exec stat -c %u {} + | sort -u | tr '\n' ' ')
	[ "$rc" = 0 ] && [ "$owners" = "65534 " ]
	result $? "root's --apply on another user's file: .tileadvise/ and all in it are that user's" "$(why) owners: $owners"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TILEADVISE" --undo "$d/k.py" >/dev/null 2>"$tmp/err" &&
		cmp -s "$d/k.py" "$kernel" && setpriv --reuid=65534 --regid=65534 --clear-groups rm -r "$d/.tileadvise"
	result $? "that user undoes it and removes .tileadvise/" "$(cat "$tmp/err")"
	chmod 700 "$tmp"
else
	skip "root's --apply on another user's file: the user owns .tileadvise/" "not root, or no setpriv"
	skip "that user undoes it and removes .tileadvise/" "not root, or no setpriv"
fi

# ---- record fields out of range -------------------------------------------------------
"$py" - "$tmp/smem.jsonl" <<'EOS'
import json, sys
lines = [{"type": "hello", "v": 1, "pid": 7, "cupti": 130001}]
for i, smem in enumerate([2147614775, -5, 1 << 21, 4096]):
    lines.append({"type": "kernel", "pid": 7, "name": "copy_kernel", "start": 1000 + i * 10000,
                  "end": 6000 + i * 10000, "grid": [16, 1, 1], "block": [128, 1, 1], "regs": 32,
                  "smem_static": smem, "smem_dynamic": 0, "local": 0, "device": 0, "stream": 7,
                  "corr": i + 1, "graph": 0, "graph_node": 0})
lines.append({"type": "bye", "pid": 7, "written": 5, "dropped": 0, "lost": 0})
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
EOS
ta --profile --records "$tmp/smem.jsonl" --gpu h200 "$kernel"
grep -q "skipped 3 malformed" "$tmp/err" && grep -q "smem 4096+0 B" "$tmp/out" && ! grep -q "smem -" "$tmp/out"
result $? "shared memory out of [0, 1 MiB] in a record: the line is malformed where it is decoded" "$(why)"
"$py" - "$tmp/nl.jsonl" <<'EOS'
import json, sys
lines = [{"type": "hello", "v": 1, "pid": 7, "cupti": 130001}]
for i in range(4):
    lines.append({"type": "kernel", "pid": 7, "name": "copy_kernel\n::error file=x.py,line=1::PWNED",
                  "start": 1000 + i * 10000, "end": 6000 + i * 10000, "grid": [16, 1, 1], "block": [128, 1, 1],
                  "regs": 32, "smem_static": 0, "smem_dynamic": 0, "local": 0, "device": 0, "stream": 7,
                  "corr": i + 1, "graph": 0, "graph_node": 0})
lines.append({"type": "bye", "pid": 7, "written": 5, "dropped": 0, "lost": 0})
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
EOS
ta --profile --records "$tmp/nl.jsonl" --gpu h200 "$kernel"
[ "$rc" = 0 ] && ! grep -q '^::' "$tmp/out" "$tmp/err" && grep -q 'copy_kernel?::error' "$tmp/out"
result $? "a record's kernel name with a line break: --profile writes no line of its own" "$(why)"
finish
