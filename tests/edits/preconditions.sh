#!/bin/sh
# Rewrite preconditions, both ways (tests/fixtures/edits/preconditions/cases,
# which also indexes where each of issue 14's classes is tested): on a trap
# --diff and --apply refuse with the one sentence that names the failed
# precondition (exit 2, nothing on stdout, file unchanged); on the true case
# beside it the edit still applies (--unsafe-fixes: the precondition is under
# test, not the safety gate) and its diff holds, or lacks, the expected line.
# ID may be SPEC,SPEC...: the edits are applied in turn and the pattern
# counted over all their diffs. A file may sit in a folder (ascend/k.py: the
# folder is part of the precondition). TAP. Env: TILEADVISE, TA_SRCDIR.
#
# Where each class of issue 14 is tested, trap / true case (pre: this
# script's cases; safety: tests/edits/safety.sh; golden: tests/edits/golden.sh;
# rules and golden: the cases of tests/entries/ID.md, without and with an
# edit):
#  1 D13 bit tests     pre d13_bits / d13_flag; rules d13_bit_tests; golden d13, d13_right
#  2 P1 in-place       pre p1_accum, p1_counter (restore_value) / p1_accum_ok; p1_optional_out, p1_optional_none / p1_counter, p1_optional_filled; golden p1_rmw, p1_inplace / p1_noalias
#                      pre p1_inplace_cond, p1_tuple_alias / p1_inplace_cond_ok; p1_desc_inplace / p1_desc_ok
#    P1 back-end       pre ascend/p1_sum, p1_hip, p1_xpu, p1_amd_flag, p1_xpu_flag / p1_accum_ok,
#                      p1_amd_unused
#    P1 own tuning     pre p1_run_config / p1_run_config_ok (a per-shape table the wrapper looks up)
#    P1 pinned 1/1     pre p1_pinned, p1_pinned_stages (kept in every config) / p1_unpinned; p1_one_warp
#    P1 no-specialize  pre p1_dns / p1_unpinned; golden p1_rmw
#  3 S7 stride guard   safety s7_batch_offset, s7_stride_assert / s7_strided_ok
#  4 D15 one branch    safety d15_one_branch, d15_branch_param / d15_straight
#  5 S1 back-end       pre ascend/s1_shift, s1_hip / s1_strided
#    S1 alignment      pre s1_rowstride_local / s1_rowstride (its contract); golden s1, s1_branches, s1_kloop
#    S1 16-byte block  pre s1_block16_heur / s1_block16 (its assert), s1_block16_ok
#    P1 aten package   pre p1_aten / p1_aten_ok (the tuner's cache flush runs the package's kernels)
#  6 S1 allocator      pre s1_two_paths (both orders), s1_alloc_branch / s1_strided, s1_alloc_top; golden s1_branches
#    S1 triton_op      pre s1_triton_op / s1_custom_op (no data_ptr() where torch.compile runs fake tensors)
#  7 S8 rounded key    rules s8_rounded_key, s8_chunked; golden s8
#    S8 no-specialize  pre s8_dns / s8_lengths (lengths in do_not_specialize stay out of the key)
#  8 broken edit ★     tests/tui/broken.sh / tests/tui/walk.sh
#  9 advisor sites     tests/tui/sites.sh (a refused first site, several sites)
# 10 P2 comment        pre p2_param_comment, p2_def_comment / p2_def_plain; golden p2_comment
#    P1 comment        pre p1_kw_comment / p1_unpinned (a dropped keyword's comment goes with it)
#    P2 flag name      pre p2_seq_loop / p2_def_plain, p2_v_loop (EVEN_V); rules seq_len_key, p2_classes
#    D12 literal       pre d12_not_ceil / d12_ceil, d12_named; golden d12_literal
# 11 P2 look-ahead     pre p2_prefetch; rules p2_lookahead
# 12 P1 tensor key     pre p1_mask_key, p1_lens_only / p1_unpinned, p1_two_depths (HEAD_DIM)
#    P1 constexpr size pre p1_head_dim (K beside T: configs that fit one head dim, not another)
#    P1 two depths     pre p1_two_depths (computed from HEAD_DIM: tuned) / p1_one_depth; golden p1_rmw
#    P1 tile ratio     pre p1_tile_ratio / p1_tile_ratio_ok (a kernel computing BLOCK_M // BLOCK_N)
#    P1 test fixture   pre p1_in_test / p1_in_test_ok (a kernel declared inside def test_...)
#    P1 author's key   pre p1_cache_key (a rounded stand-in), p1_sibling_key / p1_sibling_key_ok
#    P1 named list     pre p1_named_extended (widened under an if) / p1_named_list
# 13 newer Triton      safety old_triton / new_triton (G7); s1_old_triton, s1_triton33, s1_setup_py /
#                      s1_new_triton, s1_undeclared (S1)
# 14 comment as use    safety s3_commented / s3_used
#    grid reads META   pre p1_grid_meta / p1_grid_fixed
#    values (issue 27) pre p1_grid_count_used, p1_grid_rebound / p1_grid_local, p1_grid_positional,
#                      p1_grid_renamed, p1_grid_hand_cdiv
#    S1 named bound    pre s1_adv_named_other / s1_adv_named_bound, s1_adv_named_steps
#    S1 table bases    pre s1_table_twin (the loop as written is not rewritten), s1_spin_lock (a
#                      read-modify-write under a lock) / s1_table_base, s1_table_two (the loop written
#                      twice, one if for both loads, the store as a statement), s1_table_hinted
#    S1 stride values  pre s1_stride_rebound, s1_rows_overlap / s1_stride_named, s1_stride_starred,
#                      s1_stride_guessed (ranks asserted), s1_store_broadcast
#    S1 mask values    pre s1_store_atomic / s1_mask_parts, s1_mask_flag_named
#    S1 advanced, P2   pre s1_adv_named_other / s1_adv_even (both branches), s1_adv_moved
#    P3 named masks    pre p3_shared_moved / p3_cond_mask, p3_branch_shared (a transposed copy),
#                      p3_mask_parts
#    named masks       safety p2_named_mask, p2_named_rebound
#    --diff refusals   pre p1_two_kernels, p1_launcher:30; tests/rules/agree.sh (every refused finding)
#    S6 float32 data   golden s6_fp32 (the flag tests the dtype); pre s6_no_load, s6_view_arg, s6_optional,
#                      s6_helper / s6_two_launches; golden s6_crlf
# 27 (issue 27's item 2, edits that keep working code working)
#    D1 constant index pre d1_arange_bound, d1_arange_inline, d1_constexpr_arg, d1_constexpr_kw,
#                      d1_tuple_helper / d1_index_arith (test_edit's test_profile_edit makes it)
#    --apply offered   pre d1_index_arith (no profile: --check offers nothing, --apply says so);
#                      golden d1 (kind profile)
#    L1 flag by name   pre l1_pre_hook, l1_hook_lambda, l1_prune, l1_heuristic_helper / l1_hook_ok
#    P2 defaults       pre p2_default_tile, p2_default_renamed (read with their default), p2_default_positional
#                      (EVEN_K after them); golden p2_tab_crlf
#    P1 launch options pre p1_num_ctas, p1_maxnreg_bound (into every config), p1_opts_splat,
#                      p1_maxnreg_computed / p1_unpinned
#    P1 computed opts  pre p1_computed_rows, p1_computed_helper, p1_computed_warps,
#                      p1_computed_stages / p1_computed_bound, p1_computed_dtype, p1_two_depths; golden p1_untuned
#    P1 round-trips    pre p1_scratch, p1_scratch_named, p1_scratch_helper, p1_one_warp,
#                      p1_race_comment / p1_scratch_ok
#    P1 widening RMW   pre p1_widen_rmw, p1_widen_rmw_named, p1_widen_rmw_helper / p1_widen_reset
#    P6 host values    pre p6_device_param, p6_device_computed, p6_device_helper / p6_host_list,
#                      p6_host_inline; golden p6, p6_tile, p6_tab_crlf
#    P4 order of tiles pre p4_spin, p4_poll, p4_helper_ids, p4_batch_first / p4_inline_ids, p4_while_k; rules P4.md
# A call choosing its kernel (`k = A if c else B`): golden s1_choice, s1_choice_call (S1's contract
#                      holds when the call runs its kernel); pre p1_choice, s6_choice, s1_choice_unknown
. "${TA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
fx="$TA_SRCDIR/tests/fixtures/edits/preconditions"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-pre-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cases=$(grep -v '^\(#\|$\)' "$fx/cases")
plan $(printf '%s\n' "$cases" | wc -l)
printf '%s\n' "$cases" | {
n=0
while read -r id file want pattern; do
	n=$((n + 1))
	d="$tmp/$n"
	mkdir -p "$d/$(dirname "$file")"
	case $file in
	*/*) cp -R "$fx/${file%%/*}" "$d/" ;;  # a package: its __init__.py files come too
	*) cp "$fx/$file" "$d/$file" ;;
	esac
	case $want in
	refuses)
		(cd "$d" && "$TILEADVISE" --diff "$id" "$file" >dout 2>derr)
		drc=$?
		(cd "$d" && "$TILEADVISE" --apply "$id" --unsafe-fixes "$file" >out 2>err)
		rc=$?
		[ "$rc" = 2 ] && [ "$drc" = 2 ] && [ ! -s "$d/out" ] && [ ! -s "$d/dout" ] &&
			[ "$(wc -l <"$d/err")" = 1 ] && [ "$(wc -l <"$d/derr")" = 1 ] &&
			grep -qE -- "$pattern" "$d/err" && grep -qE -- "$pattern" "$d/derr" &&
			cmp -s "$d/$file" "$fx/$file"
		result $? "$id $file: refused, one line ($pattern)" "diff rc=$drc apply rc=$rc $(cat "$d/derr" "$d/err")" ;;
	applies*)
		: >"$d/out"
		rc=0
		for spec in $(printf '%s\n' "$id" | tr ',' ' '); do
			(cd "$d" && "$TILEADVISE" --apply "$spec" --unsafe-fixes "$file" >>out 2>err) || rc=$?
		done
		count=$(grep -cE -- "$pattern" "$d/out")
		case $want in
		applies) [ "$count" -gt 0 ] ;;
		applies-without) [ "$count" = 0 ] && grep -q '^+++ ' "$d/out" ;;
		*) [ "$count" = "${want#applies}" ] ;;
		esac
		ok=$?
		[ "$rc" = 0 ] && [ $ok = 0 ]
		result $? "$id $file: $want ($pattern)" "rc=$rc, $count matching lines: $(cat "$d/err")" ;;
	*)
		result 1 "$id $file: unknown outcome $want" ;;
	esac
done
finish
}
