#!/bin/sh
# The autotune table through the CLI: the H200 attention stream plus the
# report Triton prints for it, saved as "output" records (what
# --save-records writes), in text and json; and the softmax example after
# its P1 edit, whose four configs differ in num_stages and launch in two
# shapes only. Prints TAP (tests/lib/tap.sh).
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
dir="$TA_SRCDIR/tests/recordings"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rec="$tmp/attention.jsonl"
cat "$dir/h200-2026-11-29-example-attention.jsonl" >"$rec"
sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/{"type":"output","line":"&"}/' \
	"$dir/h200-2026-11-29-example-attention.autotune.log" >>"$rec"
file="$TA_SRCDIR/examples/attention/attention.py"
plan 9
text=$("$TILEADVISE" --profile --gpu h200 --records "$rec" "$file" 2>&1)
printf '%s\n' "$text" | grep -q "autotune: 3 configurations tried, key (4096, 'torch.float16'.*tuning took 0.39 s"
result $? "text: the table's heading has Triton's key and time"
printf '%s\n' "$text" | grep -Eq '^  \* +284 +1932\.2  64x128x1 +128 +138 +114744  12\.5% shared memory  BLOCK_M: 64, BLOCK_N: 64, num_warps: 4, num_stages: 3$'
result $? "text: the chosen config, its steady median and shape"
printf '%s\n' "$text" | grep -Eq '^ +46 +2159\.9  32x128x1 +256 +142 +131128  12\.5% registers +BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_stages: 3$'
result $? "text: a config tried, its tuning median"
printf '%s\n' "$text" | grep -q "skipped"
[ $? -ne 0 ]; result $? "the output records are not reported as malformed"
json=$("$TILEADVISE" --profile --gpu h200 --format json --records "$rec" "$file" 2>/dev/null)
printf '%s\n' "$json" | grep -q '"config": "BLOCK_M: 128, BLOCK_N: 128, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: None"'
result $? "json: each config's text"
[ "$(printf '%s\n' "$json" | grep -c '"chosen": true')" -eq 1 ]
result $? "json: one chosen config"

# Softmax after P1 (recorded by tests/gpu/edits.sh): Triton benchmarked
# 4 warps, 8, 4, 8 (num_stages 3 then 4); 8 warps won.
text=$("$TILEADVISE" --profile --gpu h200 --records "$dir/h200-2026-11-29-softmax-p1.jsonl" \
	"$dir/h200-2026-11-29-softmax-p1.py" 2>&1)
printf '%s\n' "$text" | grep -q "^softmax_kernel: 1614 launches (490 autotuning and 1 warm-up set apart)"
result $? "softmax: the 4-warp blocks, apart by the winner's, are set apart as tuning"
printf '%s\n' "$text" | grep -q "autotune: 4 configurations tried, 2 launch shapes, key (32768, 4096"
result $? "softmax: Triton's four configs, in two launch shapes"
printf '%s\n' "$text" | grep -Eq '^  \* +1123 +261\.8  32768x1x1 +256 +34 +32  75\.0% registers +num_warps: 8, num_stages: 4$'
result $? "softmax: the chosen config's steady launches"
finish
