#!/bin/sh
# The autotune table from a run on an H200 with Triton 3.6's own report
# (the child's output is saved in the stream as "output" records): replaying
# it gives the recorded --profile output, table included. Prints TAP.
set -u
dir="$TA_SRCDIR/tests/profiles"
echo "1..2"
got=$("$TILEADVISE" --profile --gpu h200 --records "$dir/h200-2026-11-29-attention-autotune.jsonl" \
	"$TA_SRCDIR/examples/attention/attention.py" 2>&1)
if [ "$got" = "$(cat "$dir/h200-2026-11-29-attention-autotune.text")" ]; then
	echo "ok 1 - replay gives the recorded output"
else
	echo "not ok 1 - replay gives the recorded output"
	printf '%s\n' "$got" | diff "$dir/h200-2026-11-29-attention-autotune.text" - | sed 's/^/# /' | head -n 20
fi
if printf '%s\n' "$got" | grep -q '^  \*  *2002 .*BLOCK_M: 64, BLOCK_N: 64, num_warps: 4, num_stages: 3$'; then
	echo "ok 2 - the chosen configuration is Triton's best config, with its launches"
else
	echo "not ok 2 - the chosen configuration is Triton's best config, with its launches"
fi
[ "$got" = "$(cat "$dir/h200-2026-11-29-attention-autotune.text")" ] &&
	printf '%s\n' "$got" | grep -q '^  \*  *2002 '
