#include "config.h"
#include "analyze/names.h"

#include <stddef.h>
#include <strings.h>

bool ta_name_among(const char *name, const char *const *names)
{
	/* Called about 100,000 times over the 64 files of tests/bench/
	 * astgrep.sh: the first letters, folded to lower case (bit 0x20 of an
	 * ASCII letter), rule out most names without a call. */
	for (; name && *names; names++)
		if ((name[0] | 0x20) == ((*names)[0] | 0x20) && !strcasecmp(name, *names))
			return true;
	return false;
}

const char *const ta_gqa_group_sizes[] = {
	"QUERY_GROUP_SIZE", "NUM_QUERIES_PER_KV", "KV_GROUP_SIZE", "GQA_GROUP_SIZE", "GROUP_SIZE_KV",
	"NUM_KV_GROUPS", NULL,
};

const char *const ta_gqa_kv_head_counts[] = {
	"NUM_KV_HEADS", "H_KV", "NUM_HEAD_KV", "N_KV_HEADS", NULL,
};

const char *const ta_gqa_head_counts[] = {
	"H", "NUM_HEADS", "N_HEADS", "H_Q", "NUM_Q_HEADS", "HQ", "NHEADS", "NUM_HEAD", "NH", NULL,
};

bool ta_gqa_kv_name(const char *s)
{
	if (!s)
		return false;
	if (!strncasecmp(s, "desc_", 5))
		s += 5;
	if ((s[0] == 'k' || s[0] == 'K' || s[0] == 'v' || s[0] == 'V') &&
	    (s[1] == '\0' || s[1] == '_' || (s[1] >= '0' && s[1] <= '9')))
		return true;
	return !strncasecmp(s, "kv_", 3) || !strcasecmp(s, "kv");
}
