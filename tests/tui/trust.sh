#!/bin/sh
# What the advisor runs and how it ends (issue 18): commands stored in a
# session file run only once the user allows them (remembered per file and
# commands), --no-profile runs none of them; a SIGTERM or SIGHUP ends it as
# q does (the session saved); TERM=dumb is refused with a message.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
plan 15

src="$TA_SRCDIR/examples/attention/attention.py"
work="$TA_TMP/w"
mkdir -p "$work"
cp "$src" "$work/attention.py"
sess="$work/.tileadvise/session-attention.py.json"
env="XDG_DATA_HOME='$TA_TMP/xdg'"

# plant: the session stores a command and a test that leave traces.
plant() {
	python3 - "$sess" "$work" <<'EOS'
import json, sys
s = json.load(open(sys.argv[1]))
s['command'] = ['sh', '-c', 'touch %s/RAN_COMMAND' % sys.argv[2]]
s['test'] = 'touch %s/RAN_TEST' % sys.argv[2]
json.dump(s, open(sys.argv[1], 'w'))
EOS
}

# reset: the original file, a fresh .tileadvise/ with the first session,
# and the commands planted in it.
reset() {
	cp "$src" "$work/attention.py"
	rm -rf "$work/.tileadvise" "$work/RAN_TEST" "$work/RAN_COMMAND"
	mkdir "$work/.tileadvise"
	cp "$TA_TMP/first-session.json" "$sess"
	plant
}

ta_start 120 40 "cd '$work' && $env '$TILEADVISE' --no-profile attention.py"
ta_wait "Walk of gemma_attn_fwd" && ta_keys q && ta_wait "^EXIT=0" && cp "$sess" "$TA_TMP/first-session.json"
result $? "a first session is made and saved"
reset

# Opened again: asked, answered no; the apply runs no test.
ta_start 120 40 "cd '$work' && $env '$TILEADVISE' attention.py"
check "the stored command and test are shown and asked about" \
	ta_wait "This session file stores the command 'sh -c touch"
ta_press n
check "no: says what runs instead" ta_wait "not run: python3 attention.py"
ta_step_to S3 && ta_press a
check "the edit applies" ta_wait "applied S3 at line 77"
ta_keys q
ta_wait "^EXIT=0"
[ ! -e "$work/RAN_TEST" ] && [ ! -e "$work/RAN_COMMAND" ]
result $? "after no, neither the stored test nor the stored command ran"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s.get('test') is not None)" "$sess"
result $? "after no, the session no longer stores them"

# --no-profile: a stored test is not asked about and does not run.
reset
ta_start 120 40 "cd '$work' && $env '$TILEADVISE' --no-profile attention.py"
ta_wait "Walk of gemma_attn_fwd" && ta_step_to S3 && ta_press a && ta_wait "applied S3 at line 77"
result $? "--no-profile: the edit applies without a question"
ta_keys q
ta_wait "^EXIT=0"
[ ! -e "$work/RAN_TEST" ]
result $? "--no-profile: the stored test did not run"

# Yes: the test runs after the apply, and the yes is remembered.
reset
ta_start 120 40 "cd '$work' && $env '$TILEADVISE' attention.py"
ta_wait "This session file stores" && ta_press y
check "yes: remembered" ta_wait "allowed; remembered"
ta_step_to S3 && ta_press a
ta_until test -e "$work/RAN_TEST"
result $? "yes: the stored test runs after the apply"
ta_keys q
ta_wait "^EXIT=0"
ta_start 120 40 "cd '$work' && $env '$TILEADVISE' attention.py"
ta_wait "Walk of gemma_attn_fwd" && ! grep -q "This session file stores" "$TA_TMP/last-screen"
result $? "reopened: the allowed commands are not asked about again"
ta_keys q
ta_wait "^EXIT=0"

# A signal ends the advisor as q does: the session is saved.
mkdir "$TA_TMP/sig"
cp "$src" "$TA_TMP/sig/attention.py"
ta_start 120 40 "cd '$TA_TMP/sig' && sh -c 'echo \$\$ >pid; exec env $env \"$TILEADVISE\" --no-profile attention.py'"
ta_wait "Walk of gemma_attn_fwd"
kill -TERM "$(cat "$TA_TMP/sig/pid")"
check "SIGTERM: the advisor exits (status 0, as after q)" ta_wait "^EXIT=0"
[ -f "$TA_TMP/sig/.tileadvise/session-attention.py.json" ]
result $? "SIGTERM: the session is saved"
rm -rf "$TA_TMP/sig/.tileadvise"
ta_start 120 40 "cd '$TA_TMP/sig' && sh -c 'echo \$\$ >pid; exec env $env \"$TILEADVISE\" --no-profile attention.py'"
ta_wait "Walk of gemma_attn_fwd"
kill -HUP "$(cat "$TA_TMP/sig/pid")"
ta_wait "^EXIT=" && [ -f "$TA_TMP/sig/.tileadvise/session-attention.py.json" ]
result $? "SIGHUP (terminal gone): the session is saved"

# TERM=dumb: one line saying why, exit 2.
ta_start 120 40 "cd '$TA_TMP/sig' && TERM=dumb '$TILEADVISE' --no-profile attention.py"
ta_wait "^EXIT=2" && grep -q "cannot move the cursor" "$TA_TMP/last-screen"
result $? "TERM=dumb is refused with a message"
finish
