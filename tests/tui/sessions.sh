#!/bin/sh
# Every committed session recorded on an H200 (examples/*/session.h200.json)
# opens read-only with --replay, shows its GPU and its kernel, and quits.
. "$TA_SRCDIR/tests/tui/lib.sh"
ta_need_tmux
set -- "$TA_SRCDIR"/examples/*/session.h200.json
plan $(( $# * 3 ))
for s in "$@"; do
	name=$(basename "$(dirname "$s")")
	kernel=$(sed -n 's/.*"name": *"\([A-Za-z_0-9]*_kernel\|[A-Za-z_0-9]*fwd\)".*/\1/p' "$s" | head -n 1)
	ta_start 120 40 "'$TILEADVISE' --replay '$s'"
	ta_wait "recorded on NVIDIA H200" && ta_wait "read-only"
	result $? "$name: the session opens, labelled as recorded on an H200, read-only"
	ta_wait "${kernel:-Walk of}"
	result $? "$name: the walk of ${kernel:-its kernel} is on screen"
	ta_keys q
	ta_wait "^EXIT=0"
	result $? "$name: q quits with status 0"
done
finish
