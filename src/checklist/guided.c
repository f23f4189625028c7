/* Guided edits: templates shown where the change goes, with the user's own
 * names filled in ({0}, {1}...), for entries the tool cannot rewrite alone. */
#include "config.h"
#include "checklist/rewrite_internal.h"

#include <string.h>

typedef struct template {
	const char *id;
	const char *text;
} template;

static const template templates[] = {
	{ "L4", "batch the launches of {0} over the list: one launch for up to 4 tensors,\n"
		"program_id(1) picks the tensor; pass the pointers and sizes as tuples or a table" },
	{ "P4", "{0} takes its tiles in launch order: decode pid_m, pid_n from the program's place\n"
		"(program_id(1) * num_programs(0) + program_id(0)) with GROUP_SIZE_M grouping" },
	{ "P7", "make {0} persistent: for tile in tl.range(pid, n_tiles, NUM_PROGRAMS, flatten=True),\n"
		"grid = (min(NUM_SMS, n_tiles) * occupancy,), occupancy in the autotune configs" },
	{ "S2", "{0} feeds a broadcast/3D operand to tl.dot: give each program one batch (or head)\n"
		"and keep the dot 2D" },
	{ "D2", "tl.dot on 16-wide tiles in {0}: use tiles of at least 32 (64 rows per warpgroup on Hopper)" },
	{ "D3", "{0} allocates several tensors per call: allocate one slab and take views into it" },
	{ "D5", "{0} searches every group per tile: advance through the groups with last_problem_end" },
	{ "D9", "{0} reshapes to (..., 2, d // 2) to reach the halves: transpose + contiguous once,\n"
		"then address the halves with an offset" },
	{ NULL, "{0}: see `tileadvise --explain={id}` for the change to make here" },
};

const char *ta_edits_guided_template(const char *id)
{
	for (const template *t = templates; t->id; t++)
		if (!strcmp(t->id, id))
			return t->text;
	return templates[sizeof templates / sizeof *templates - 1].text;
}
