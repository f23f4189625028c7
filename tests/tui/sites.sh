#!/bin/sh
# The advisor picks sites as the CLI does (issue 14, item 9): a step whose
# first finding cannot be rewritten still offers the site that can (the
# matmul example's S1 with its loads padded with 1.0: the loads refuse, the store is rewritten, as
# --apply S1 does), and says so; a step whose edit can be made at several
# sites lists them on `a` and applies the one picked (the layernorm
# example's D4: six sites), as --apply ID:LINE does.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 11

work="$TA_TMP/w"
mkdir -p "$work"
# (other=1.0: a descriptor pads with zeros, so S1 refuses those loads)
sed '30s/other=0.0/other=1.0/; 32s/other=0.0/other=1.0/' "$TA_SRCDIR/examples/matmul/matmul.py" >"$work/matmul.py"
cp "$TA_SRCDIR/examples/layernorm/layernorm.py" "$work/"

ta_start 120 50 "cd '$work' && '$TILEADVISE' --no-profile matmul.py"
check "j moves to S1" ta_step_to S1
ta_press Space
check "the page says which site its edit is for, and why not the first" \
	ta_wait "This is the edit at line 37, the only site of the step the rewrite can"
ta_press a
# S1 is unsafe (it assumes 16-byte aligned tensors): a asks, y applies.
ta_wait "Apply S1's unsafe edit at line 37\? \(y/n\) It assumes" && ta_press y
check "a rewrites the store, as --apply S1 does" ta_wait_fixed "applied S1 at line 37 of matmul.py"
sed '30s/other=0.0/other=1.0/; 32s/other=0.0/other=1.0/' "$TA_SRCDIR/examples/matmul/matmul.py" >"$TA_TMP/cli.py"
"$TILEADVISE" --apply S1 --unsafe-fixes "$TA_TMP/cli.py" >/dev/null 2>&1
cmp -s "$work/matmul.py" "$TA_TMP/cli.py"
result $? "the same bytes as tileadvise --apply S1"
ta_keys q
ta_wait "^EXIT=0" >/dev/null

ta_start 120 40 "cd '$work' && '$TILEADVISE' --no-profile layernorm.py"
check "j moves to D4" ta_step_to D4
ta_press Space
ta_press Space
check "the page says how many sites can be rewritten" ta_wait "This is the edit at line 24; 6 of the step's 6 sites"
ta_press a
check "a lists the sites" ta_wait_fixed "D4 can be rewritten at 6 sites: pick one"
check "the first is picked" ta_wait "^ ▶ line 24: .tl\.expand_dims\(row_offs, 1\)."
ta_press j j
check "j moves down the list" ta_wait "^ ▶ line 34: .tl\.expand_dims\(row_offs, 1\)."
ta_press Enter
check "Enter applies D4 there" ta_wait_fixed "applied D4 at line 34 of layernorm.py"
cp "$TA_SRCDIR/examples/layernorm/layernorm.py" "$TA_TMP/ln.py"
"$TILEADVISE" --apply D4:34 "$TA_TMP/ln.py" >/dev/null 2>&1
cmp -s "$work/layernorm.py" "$TA_TMP/ln.py"
result $? "the same bytes as tileadvise --apply D4:34"
ta_keys q
finish
