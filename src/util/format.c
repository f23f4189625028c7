/* --format's names (see format.h). */
#include "config.h"
#include "util/format.h"

#include <strings.h>

int ta_format_parse(const char *s)
{
	if (!strcasecmp(s, "text"))
		return TA_FORMAT_TEXT;
	if (!strcasecmp(s, "markdown") || !strcasecmp(s, "md"))
		return TA_FORMAT_MARKDOWN;
	if (!strcasecmp(s, "json"))
		return TA_FORMAT_JSON;
	if (!strcasecmp(s, "sarif"))
		return TA_FORMAT_SARIF;
	if (!strcasecmp(s, "github"))
		return TA_FORMAT_GITHUB;
	if (!strcasecmp(s, "jsonl"))
		return TA_FORMAT_JSONL;
	if (!strcasecmp(s, "csv"))
		return TA_FORMAT_CSV;
	return -1;
}
