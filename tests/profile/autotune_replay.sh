#!/bin/sh
# The autotune table through the CLI: the H200 attention stream plus the
# report Triton prints for it, saved as "output" records (what
# --save-records writes), in text and json. Prints TAP.
set -u
dir="$TA_SRCDIR/tests/profiles"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rec="$tmp/attention.jsonl"
cat "$dir/h200-2026-11-29-example-attention.jsonl" >"$rec"
sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/{"type":"output","line":"&"}/' \
	"$dir/h200-2026-11-29-example-attention.autotune.log" >>"$rec"
file="$TA_SRCDIR/examples/attention/attention.py"
echo "1..6"
n=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
text=$("$TILEADVISE" --profile --gpu h200 --records "$rec" "$file" 2>&1)
printf '%s\n' "$text" | grep -q "autotune: 3 configurations tried, key (4096, 'torch.float16'.*tuning took 0.39 s"
ok $? "text: the table's heading has Triton's key and time"
printf '%s\n' "$text" | grep -Eq '^  \* +284 +1932\.2  64x128x1 +128 +138 +114744  12\.5% shared memory  BLOCK_M: 64, BLOCK_N: 64, num_warps: 4, num_stages: 3$'
ok $? "text: the chosen config, its steady median and shape"
printf '%s\n' "$text" | grep -Eq '^ +46 +2159\.9  32x128x1 +256 +142 +131128  12\.5% registers +BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_stages: 3$'
ok $? "text: a config tried, its tuning median"
printf '%s\n' "$text" | grep -q "skipped"
[ $? -ne 0 ]; ok $? "the output records are not reported as malformed"
json=$("$TILEADVISE" --profile --gpu h200 --format json --records "$rec" "$file" 2>/dev/null)
printf '%s\n' "$json" | grep -q '"config": "BLOCK_M: 128, BLOCK_N: 128, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: None"'
ok $? "json: each config's text"
[ "$(printf '%s\n' "$json" | grep -c '"chosen": true')" -eq 1 ]
ok $? "json: one chosen config"
