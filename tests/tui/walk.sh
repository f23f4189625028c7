#!/bin/sh
# The advisor on a copy of the attention example, static analysis only:
# the walk, the step page with its highlighted lines and diff, applying an
# edit (file bytes checked), undo, redo, help, resize, resume, quit.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 30

src="$TA_SRCDIR/examples/attention/attention.py"
work="$TA_TMP/w"
mkdir -p "$work"
cp "$src" "$work/attention.py"
# The file as the S3 edit must leave it: lines 76-77 become one.
awk 'NR == 76 { next } NR == 77 { print "        qk = tl.dot(q, k.T)"; next } { print }' "$src" >"$TA_TMP/expected.py"

# An "editor" that notes its arguments and changes line 77 of the file.
cat >"$TA_TMP/editor" <<'EOS'
#!/bin/sh
echo "$@" >"$(dirname "$0")/editor-args"
echo "# looked at by hand" >>"$2"
EOS
chmod +x "$TA_TMP/editor"

ta_start 120 40 "cd '$work' && EDITOR='$TA_TMP/editor' '$TILEADVISE' --no-profile attention.py"
check "first screen shows the file and why nothing is measured" \
	ta_wait "attention.py .*profiling off \(--no-profile\)"
check "the walk of the kernel is listed with its first step" \
	ta_wait "Walk of gemma_attn_fwd"
check "trigger T1 marked as applying" ta_wait_fixed "● T1  Attention"
check "steps that do not apply are folded" ta_wait "▸ [0-9]+ satisfied or not applicable"
check "footer lists the keys" ta_wait "^ j/k step  Tab kernel .* \? help  q quit"

check "j moves to S3" ta_step_to S3
check "the reason names the user's variable and lines" ta_wait_fixed "line 77: \`qk\` is zeroed at line 76"
check "the diff is on screen" ta_wait "^.*│ +-        qk = tl.zeros\(\[BLOCK_M, BLOCK_N\], dtype=tl.float32\)"
check "the added line of the diff" ta_wait "│   \+        qk = tl\.dot\(q, k\.T\)$"
# Lines 76 and 77 are highlighted (an attribute change on their row), 78 is not.
# A highlighted row switches to the highlight background (43: yellow; the
# selected step in the walk uses 47).
hilite() { ta_screen_attr >"$TA_TMP/attr"; grep -a "$1 │" "$TA_TMP/attr" | grep -Eq "$(printf '\033')\[([0-9]+;)*43m"; }
check "line 76 is highlighted" ta_until hilite "▶   76"
check "line 77 is highlighted" ta_until hilite "▶   77"
! hilite "    78" && ! grep -q "▶   78 │" "$TA_TMP/attr"; result $? "line 78 is neither highlighted nor marked"

ta_press a
check "applying says so" ta_wait "applied S3 at line 77"
cmp -s "$work/attention.py" "$TA_TMP/expected.py"; result $? "the file bytes are the edited ones"
check "the step is marked applied, no verdict (not measured)" ta_wait_fixed "◌ S3 "

ta_press u
check "undo says so" ta_wait "undid S3"
cmp -s "$work/attention.py" "$src"; result $? "undo restores the original bytes"
ta_press U
check "redo says so" ta_wait "redid S3"
cmp -s "$work/attention.py" "$TA_TMP/expected.py"; result $? "redo writes the edit again"

ta_press e
check "e runs the editor and the file is analysed again" ta_wait "analysed again after your edit"
grep -qx "+77 attention.py" "$TA_TMP/editor-args"; result $? "the editor got the step's line and the file"
ta_press u
check "undo after a hand edit is refused, saying why" \
	ta_wait_fixed "attention.py changed since tileadvise applied S3 (line 77); undo would lose those changes"
grep -q "# looked at by hand" "$work/attention.py"; result $? "the hand edit is kept"
cp "$TA_TMP/expected.py" "$work/attention.py"
check "a change on disk is noticed and analysed" ta_wait "changed on disk: analysed again"
ta_press w
check "w writes the session report" ta_wait "report written to .*report-attention.py.md"

ta_press "?"
check "? shows the help from the key table" ta_wait "Help: tileadvise keys"
ta_press Escape
ta_resize 60 20
check "60x20 shows the too-small screen" ta_wait "Terminal too small"
ta_resize 120 40
check "back at 120x40 the walk returns" ta_wait "Walk of gemma_attn_fwd"
ta_press q
check "q quits with status 0" ta_wait "^EXIT=0"

# Reopening resumes: S3 is still applied.
ta_start 80 24 "cd '$work' && '$TILEADVISE' --no-profile attention.py"
check "reopened at 80x24, the session resumes with S3 applied" ta_wait "S3 · .*\[applied\]|◌ S3"
ta_keys q
finish
