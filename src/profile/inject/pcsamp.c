/* PC sampling for --deep: CUPTI samples the program counter of warps at a
 * fixed cycle interval, with the reason each warp was stalled. Samples are
 * summed per (module, function, PC) while the program runs; at exit each PC
 * is mapped to its source line through the line table the compiler left in
 * the cubin (Triton builds with -lineinfo), and one record per line goes to
 * the tool.
 *
 * Continuous mode: kernels are not serialised. Data is drained from CUPTI
 * at launch exits (at most every DRAIN_MS), before a module or context goes
 * away, and at exit. */
#include "config.h"
#include "profile/inject/deep.h"
#include "profile/protocol.h"

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CONTEXTS 8
#define PCS_PER_BUFFER 4096
#define DRAIN_MS 100
/* Cubins are kept (copied) to map PCs to lines at exit; the caps keep a
 * program that loads many large modules from growing without bound. */
#define CUBIN_MAX_BYTES ((size_t)64 << 20)
#define CUBINS_MAX_BYTES ((size_t)512 << 20)
#define LINE_MAX_BYTES 4096
#define REASONS_PER_LINE 12

typedef struct cubin {
	uint64_t crc;
	char *bytes;
	size_t size;
} cubin;

/* Samples of one PC, by stall reason slot. */
typedef struct pc_entry {
	uint64_t crc, offset;
	char *function;              /* owned; NULL marks an empty slot */
	uint64_t *counts;            /* n_reasons slots */
	uint64_t samples;
} pc_entry;

typedef struct sampled_context {
	CUcontext ctx;
	bool live;
	CUpti_PCSamplingData final_data;   /* CUPTI fills it at disable */
} sampled_context;

static struct {
	const ta_inject_hooks *hooks;
	pthread_mutex_t lock;
	bool broken;                 /* a fatal CUPTI failure: stay idle */
	size_t n_reasons;
	uint32_t *reason_index;      /* CUPTI's index of each slot */
	char **reason_names;         /* short names ("long_scoreboard") */
	bool *reason_subset;         /* a "..._not_issued" reason (not summed) */
	sampled_context ctxs[MAX_CONTEXTS];
	size_t n_ctxs;
	CUpti_PCSamplingData drain_data;
	pc_entry *pcs;               /* open addressing, cap_pcs a power of two */
	size_t n_pcs, cap_pcs;
	cubin *cubins;
	size_t n_cubins, cap_cubins, cubin_bytes;
	uint64_t total, dropped, other;
	bool hw_full;
	uint32_t period;
	struct timespec last_drain;
} ps = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void fail(const char *where, CUptiResult rc)
{
	ps.hooks->error(where, rc);
}

/* ---- buffers -------------------------------------------------------------- */

static bool buffer_alloc(CUpti_PCSamplingData *d)
{
	memset(d, 0, sizeof *d);
	d->size = sizeof *d;
	d->collectNumPcs = PCS_PER_BUFFER;
	d->pPcData = calloc(PCS_PER_BUFFER, sizeof *d->pPcData);
	if (!d->pPcData)
		return false;
	for (size_t i = 0; i < PCS_PER_BUFFER; i++) {
		d->pPcData[i].size = sizeof d->pPcData[i];
		d->pPcData[i].stallReason = calloc(ps.n_reasons, sizeof *d->pPcData[i].stallReason);
		if (!d->pPcData[i].stallReason)
			return false;
	}
	return true;
}

/* ---- the PC table --------------------------------------------------------- */

static uint64_t pc_hash(uint64_t crc, uint64_t offset, const char *function)
{
	uint64_t h = crc * 0x9E3779B97F4A7C15ULL ^ offset * 0xC2B2AE3D27D4EB4FULL;
	for (const unsigned char *p = (const unsigned char *)function; *p; p++)
		h = (h ^ *p) * 0x100000001B3ULL;
	return h;
}

static bool pc_table_grow(void)
{
	size_t cap = ps.cap_pcs ? ps.cap_pcs * 2 : 4096;
	pc_entry *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < ps.cap_pcs; i++) {
		pc_entry *e = &ps.pcs[i];
		if (!e->function)
			continue;
		size_t j = pc_hash(e->crc, e->offset, e->function) & (cap - 1);
		while (t[j].function)
			j = (j + 1) & (cap - 1);
		t[j] = *e;
	}
	free(ps.pcs);
	ps.pcs = t;
	ps.cap_pcs = cap;
	return true;
}

static pc_entry *pc_lookup(uint64_t crc, uint64_t offset, const char *function)
{
	if ((ps.n_pcs + 1) * 2 > ps.cap_pcs && !pc_table_grow())
		return NULL;
	size_t j = pc_hash(crc, offset, function) & (ps.cap_pcs - 1);
	for (;;) {
		pc_entry *e = &ps.pcs[j];
		if (!e->function)
			break;
		if (e->crc == crc && e->offset == offset && strcmp(e->function, function) == 0)
			return e;
		j = (j + 1) & (ps.cap_pcs - 1);
	}
	pc_entry *e = &ps.pcs[j];
	e->counts = calloc(ps.n_reasons ? ps.n_reasons : 1, sizeof *e->counts);
	e->function = strdup(function);
	if (!e->counts || !e->function) {
		free(e->counts);
		free(e->function);
		memset(e, 0, sizeof *e);
		return NULL;
	}
	e->crc = crc;
	e->offset = offset;
	ps.n_pcs++;
	return e;
}

static size_t reason_slot(uint32_t index)
{
	for (size_t i = 0; i < ps.n_reasons; i++)
		if (ps.reason_index[i] == index)
			return i;
	return SIZE_MAX;
}

/* Adds what d holds to the table. Caller holds the lock. */
static void absorb(const CUpti_PCSamplingData *d)
{
	ps.total += d->totalSamples;
	ps.dropped += d->droppedSamples;
	ps.other += d->nonUsrKernelsTotalSamples;
	if (d->hardwareBufferFull)
		ps.hw_full = true;
	size_t n = d->totalNumPcs < d->collectNumPcs ? d->totalNumPcs : d->collectNumPcs;
	for (size_t i = 0; i < n; i++) {
		const CUpti_PCSamplingPCData *pc = &d->pPcData[i];
		if (!pc->functionName)
			continue;
		if (!ps.hooks->wanted(pc->functionName)) {
			for (size_t k = 0; k < pc->stallReasonCount; k++)
				ps.other += pc->stallReason[k].samples;
			continue;
		}
		pc_entry *e = pc_lookup(pc->cubinCrc, pc->pcOffset, pc->functionName);
		if (!e)
			continue;
		for (size_t k = 0; k < pc->stallReasonCount; k++) {
			size_t slot = reason_slot(pc->stallReason[k].pcSamplingStallReasonIndex);
			if (slot == SIZE_MAX)
				continue;
			e->counts[slot] += pc->stallReason[k].samples;
			/* "..._not_issued" is a subset of its reason, not more samples. */
			if (!ps.reason_subset[slot])
				e->samples += pc->stallReason[k].samples;
		}
	}
}

/* ---- collection ----------------------------------------------------------- */

/* Caller holds the lock. */
static void drain(CUcontext ctx)
{
	/* Bounded: CUPTI says how much is left, but a broken count must not
	 * keep the program's thread here. */
	for (int round = 0; round < 1024; round++) {
		ps.drain_data.totalNumPcs = 0;
		ps.drain_data.remainingNumPcs = 0;
		CUpti_PCSamplingGetDataParams p = {
			.size = CUpti_PCSamplingGetDataParamsSize,
			.ctx = ctx,
			.pcSamplingData = &ps.drain_data,
		};
		CUptiResult rc = cuptiPCSamplingGetData(&p);
		if (rc == CUPTI_ERROR_OUT_OF_MEMORY) {
			ps.hw_full = true;
			return;
		}
		if (rc != CUPTI_SUCCESS) {
			fail("cuptiPCSamplingGetData", rc);
			return;
		}
		absorb(&ps.drain_data);
		if (ps.drain_data.remainingNumPcs == 0)
			return;
	}
}

static bool drain_due(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (now.tv_sec - ps.last_drain.tv_sec) * 1000 +
		  (now.tv_nsec - ps.last_drain.tv_nsec) / 1000000;
	if (ms < DRAIN_MS)
		return false;
	ps.last_drain = now;
	return true;
}

static sampled_context *find_context(CUcontext ctx)
{
	for (size_t i = 0; i < ps.n_ctxs; i++)
		if (ps.ctxs[i].ctx == ctx && ps.ctxs[i].live)
			return &ps.ctxs[i];
	return NULL;
}

/* Short names: "smsp__pcsamp_warps_issue_stalled_long_scoreboard" becomes
 * "long_scoreboard"; the tool words them for people. */
static char *short_reason(const char *name)
{
	static const char *const prefixes[] = {
		"smsp__pcsamp_warps_issue_stalled_",
		"smsp__pcsamp_warps_issue_",
		"smsp__pcsamp_",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], n) == 0 && name[n])
			return strdup(name + n);
	}
	return strdup(name);
}

/* The stall reasons this device reports, once. Caller holds the lock. */
static bool load_reasons(CUcontext ctx)
{
	if (ps.n_reasons)
		return true;
	size_t n = 0;
	CUpti_PCSamplingGetNumStallReasonsParams np = {
		.size = CUpti_PCSamplingGetNumStallReasonsParamsSize,
		.ctx = ctx,
		.numStallReasons = &n,
	};
	CUptiResult rc = cuptiPCSamplingGetNumStallReasons(&np);
	if (rc != CUPTI_SUCCESS || n == 0) {
		fail("cuptiPCSamplingGetNumStallReasons", rc);
		return false;
	}
	uint32_t *index = calloc(n, sizeof *index);
	char **names = calloc(n, sizeof *names);
	bool ok = index && names;
	for (size_t i = 0; ok && i < n; i++)
		ok = (names[i] = calloc(1, CUPTI_STALL_REASON_STRING_SIZE)) != NULL;
	if (ok) {
		CUpti_PCSamplingGetStallReasonsParams sp = {
			.size = CUpti_PCSamplingGetStallReasonsParamsSize,
			.ctx = ctx,
			.numStallReasons = n,
			.stallReasonIndex = index,
			.stallReasons = names,
		};
		rc = cuptiPCSamplingGetStallReasons(&sp);
		if (rc != CUPTI_SUCCESS) {
			fail("cuptiPCSamplingGetStallReasons", rc);
			ok = false;
		}
	}
	ps.reason_names = calloc(n, sizeof *ps.reason_names);
	ps.reason_subset = calloc(n, sizeof *ps.reason_subset);
	for (size_t i = 0; ok && ps.reason_names && ps.reason_subset && i < n; i++) {
		ps.reason_names[i] = short_reason(names[i]);
		size_t len = ps.reason_names[i] ? strlen(ps.reason_names[i]) : 0;
		ps.reason_subset[i] = len > 11 && strcmp(ps.reason_names[i] + len - 11, "_not_issued") == 0;
	}
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	if (!ok || !ps.reason_names || !ps.reason_subset) {
		free(index);
		free(ps.reason_names);
		free(ps.reason_subset);
		ps.reason_names = NULL;
		ps.reason_subset = NULL;
		return false;
	}
	ps.reason_index = index;
	ps.n_reasons = n;
	return true;
}

static CUptiResult set_attributes(CUcontext ctx, CUpti_PCSamplingConfigurationInfo *info, size_t n)
{
	CUpti_PCSamplingConfigurationInfoParams p = {
		.size = CUpti_PCSamplingConfigurationInfoParamsSize,
		.ctx = ctx,
		.numAttributes = n,
		.pPCSamplingConfigurationInfo = info,
	};
	return cuptiPCSamplingSetConfigurationAttribute(&p);
}

static uint32_t read_period(CUcontext ctx)
{
	CUpti_PCSamplingConfigurationInfo info = {
		.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD,
	};
	CUpti_PCSamplingConfigurationInfoParams p = {
		.size = CUpti_PCSamplingConfigurationInfoParamsSize,
		.ctx = ctx,
		.numAttributes = 1,
		.pPCSamplingConfigurationInfo = &info,
	};
	if (cuptiPCSamplingGetConfigurationAttribute(&p) != CUPTI_SUCCESS)
		return 0;
	return info.attributeData.samplingPeriodData.samplingPeriod;
}

/* A new context: enable sampling on it with our buffers. Caller holds the
 * lock. */
static void start_context(CUcontext ctx)
{
	if (ps.n_ctxs == MAX_CONTEXTS)
		return;
	CUpti_PCSamplingEnableParams ep = { .size = CUpti_PCSamplingEnableParamsSize, .ctx = ctx };
	CUptiResult rc = cuptiPCSamplingEnable(&ep);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiPCSamplingEnable", rc);
		return;
	}
	if (!load_reasons(ctx) ||
	    (!ps.drain_data.pPcData && !buffer_alloc(&ps.drain_data))) {
		ps.broken = true;
		return;
	}
	sampled_context *sc = &ps.ctxs[ps.n_ctxs];
	if (!buffer_alloc(&sc->final_data)) {
		fail("out of memory for the PC sampling buffers", CUPTI_ERROR_OUT_OF_MEMORY);
		ps.broken = true;
		return;
	}
	CUpti_PCSamplingConfigurationInfo info[6];
	size_t n = 0;
	memset(info, 0, sizeof info);
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
	info[n].attributeData.stallReasonData.stallReasonCount = ps.n_reasons;
	info[n++].attributeData.stallReasonData.pStallReasonIndex = ps.reason_index;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
	info[n++].attributeData.collectionModeData.collectionMode =
		CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
	info[n++].attributeData.enableStartStopControlData.enableStartStopControl = 0;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
	info[n++].attributeData.outputDataFormatData.outputDataFormat =
		CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
	info[n++].attributeData.samplingDataBufferData.samplingDataBuffer = &sc->final_data;
	/* TILEADVISE_PC_PERIOD: 2^N cycles between samples (5..31). */
	const char *period = getenv("TILEADVISE_PC_PERIOD");
	if (period && *period) {
		unsigned long v = strtoul(period, NULL, 10);
		if (v >= 5 && v <= 31) {
			info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
			info[n++].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)v;
		}
	}
	rc = set_attributes(ctx, info, n);
	if (rc != CUPTI_SUCCESS) {
		/* Say which attribute CUPTI refused. */
		for (size_t i = 0; i < n; i++)
			if (info[i].attributeStatus != CUPTI_SUCCESS) {
				static const char *const what[] = {
					"stall reasons", "collection mode", "start/stop control",
					"output format", "data buffer", "sampling period",
				};
				char where[96];
				snprintf(where, sizeof where, "cuptiPCSamplingSetConfigurationAttribute(%s)",
					 what[i]);
				fail(where, info[i].attributeStatus);
			}
		fail("cuptiPCSamplingSetConfigurationAttribute", rc);
		return;
	}
	ps.period = read_period(ctx);
	sc->ctx = ctx;
	sc->live = true;
	ps.n_ctxs++;
	clock_gettime(CLOCK_MONOTONIC, &ps.last_drain);
}

/* Last data of a context, then sampling off. Caller holds the lock. */
static void stop_context(sampled_context *sc)
{
	drain(sc->ctx);
	CUpti_PCSamplingDisableParams dp = { .size = CUpti_PCSamplingDisableParamsSize, .ctx = sc->ctx };
	CUptiResult rc = cuptiPCSamplingDisable(&dp);
	if (rc != CUPTI_SUCCESS)
		fail("cuptiPCSamplingDisable", rc);
	else
		absorb(&sc->final_data);
	sc->live = false;
}

static void keep_cubin(const CUpti_ModuleResourceData *mod)
{
	if (!mod || !mod->pCubin || mod->cubinSize == 0 || mod->cubinSize > CUBIN_MAX_BYTES ||
	    ps.cubin_bytes + mod->cubinSize > CUBINS_MAX_BYTES)
		return;
	CUpti_GetCubinCrcParams cp = {
		.size = CUpti_GetCubinCrcParamsSize,
		.cubinSize = mod->cubinSize,
		.cubin = mod->pCubin,
	};
	if (cuptiGetCubinCrc(&cp) != CUPTI_SUCCESS)
		return;
	for (size_t i = 0; i < ps.n_cubins; i++)
		if (ps.cubins[i].crc == cp.cubinCrc)
			return;
	if (ps.n_cubins == ps.cap_cubins) {
		size_t cap = ps.cap_cubins ? ps.cap_cubins * 2 : 16;
		cubin *c = realloc(ps.cubins, cap * sizeof *c);
		if (!c)
			return;
		ps.cubins = c;
		ps.cap_cubins = cap;
	}
	char *copy = malloc(mod->cubinSize);
	if (!copy)
		return;
	memcpy(copy, mod->pCubin, mod->cubinSize);
	ps.cubins[ps.n_cubins++] = (cubin){ cp.cubinCrc, copy, mod->cubinSize };
	ps.cubin_bytes += mod->cubinSize;
}

bool ta_pcsamp_setup(CUpti_SubscriberHandle sub, const ta_inject_hooks *hooks)
{
	ps.hooks = hooks;
	static const CUpti_CallbackId resources[] = {
		CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
		CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
		CUPTI_CBID_RESOURCE_MODULE_LOADED,
		CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
	};
	for (size_t i = 0; i < sizeof resources / sizeof *resources; i++) {
		CUptiResult rc = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, resources[i]);
		if (rc != CUPTI_SUCCESS) {
			fail("cuptiEnableCallback(RESOURCE)", rc);
			return false;
		}
	}
	return ta_inject_launch_callbacks(sub, 1, hooks->error);
}

void ta_pcsamp_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	pthread_mutex_lock(&ps.lock);
	if (ps.broken) {
		pthread_mutex_unlock(&ps.lock);
		return;
	}
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		sampled_context *sc;
		switch (cbid) {
		case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
			start_context(rd->context);
			break;
		case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
			if ((sc = find_context(rd->context)))
				stop_context(sc);
			break;
		case CUPTI_CBID_RESOURCE_MODULE_LOADED:
			keep_cubin(rd->resourceDescriptor);
			break;
		case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
			/* PCs of a module are only unique until it goes. */
			if (find_context(rd->context))
				drain(rd->context);
			break;
		default:
			break;
		}
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cd = data;
		if (cd->callbackSite == CUPTI_API_EXIT && find_context(cd->context) && drain_due())
			drain(cd->context);
	}
	pthread_mutex_unlock(&ps.lock);
}

/* ---- source lines ----------------------------------------------------------- */

typedef struct line_entry {
	char *function, *file;       /* owned */
	uint32_t line;
	uint64_t *counts;
	uint64_t samples;
} line_entry;

static const cubin *find_cubin(uint64_t crc)
{
	for (size_t i = 0; i < ps.n_cubins; i++)
		if (ps.cubins[i].crc == crc)
			return &ps.cubins[i];
	return NULL;
}

/* "dir/file" from CUPTI's two halves (either may be missing). */
static char *join_path(const char *dir, const char *file)
{
	if (!file || !*file)
		return strdup("");
	if (!dir || !*dir || file[0] == '/')
		return strdup(file);
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", file);
	return p;
}

static void source_of(const pc_entry *e, char **file, uint32_t *line)
{
	*file = NULL;
	*line = 0;
	const cubin *c = find_cubin(e->crc);
	if (!c)
		return;
	CUpti_GetSassToSourceCorrelationParams p = {
		.size = CUpti_GetSassToSourceCorrelationParamsSize,
		.cubin = c->bytes,
		.functionName = e->function,
		.cubinSize = c->size,
		.pcOffset = e->offset,
	};
	if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS)
		return;
	*file = join_path(p.dirName, p.fileName);
	*line = p.lineNumber;
	free(p.fileName);
	free(p.dirName);
}

static line_entry *line_find(line_entry **lines, size_t *n, size_t *cap, const char *function,
			     const char *file, uint32_t line)
{
	for (size_t i = 0; i < *n; i++) {
		line_entry *l = &(*lines)[i];
		if (l->line == line && strcmp(l->function, function) == 0 && strcmp(l->file, file) == 0)
			return l;
	}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		line_entry *t = realloc(*lines, c * sizeof *t);
		if (!t)
			return NULL;
		*lines = t;
		*cap = c;
	}
	line_entry *l = &(*lines)[*n];
	memset(l, 0, sizeof *l);
	l->function = strdup(function);
	l->file = strdup(file);
	l->counts = calloc(ps.n_reasons ? ps.n_reasons : 1, sizeof *l->counts);
	if (!l->function || !l->file || !l->counts) {
		free(l->function);
		free(l->file);
		free(l->counts);
		return NULL;
	}
	l->line = line;
	(*n)++;
	return l;
}

static void emit_line_record(const line_entry *l)
{
	const char *reasons[REASONS_PER_LINE];
	uint64_t counts[REASONS_PER_LINE];
	size_t k = 0;
	/* The largest counts first: a selection by repeated maximum (few
	 * reasons, few lines). */
	bool *taken = calloc(ps.n_reasons ? ps.n_reasons : 1, sizeof *taken);
	if (!taken)
		return;
	while (k < REASONS_PER_LINE) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < ps.n_reasons; i++)
			if (!taken[i] && l->counts[i] > 0 && (best == SIZE_MAX || l->counts[i] > l->counts[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		taken[best] = true;
		reasons[k] = ps.reason_names[best];
		counts[k++] = l->counts[best];
	}
	free(taken);
	ta_proto_pcline rec = {
		.kernel = l->function, .file = l->file, .line = l->line, .samples = l->samples,
		.reasons = reasons, .counts = counts, .n_reasons = k,
	};
	char buf[LINE_MAX_BYTES];
	size_t n = ta_proto_encode_pcline(buf, sizeof buf, ps.hooks->pid, &rec);
	if (n)
		ps.hooks->emit(buf, n);
}

void ta_pcsamp_finish(void)
{
	pthread_mutex_lock(&ps.lock);
	for (size_t i = 0; i < ps.n_ctxs; i++)
		if (ps.ctxs[i].live)
			stop_context(&ps.ctxs[i]);
	line_entry *lines = NULL;
	size_t n_lines = 0, cap_lines = 0;
	uint64_t unattributed = 0;
	for (size_t i = 0; i < ps.cap_pcs; i++) {
		const pc_entry *e = &ps.pcs[i];
		if (!e->function || e->samples == 0)
			continue;
		char *file;
		uint32_t line;
		source_of(e, &file, &line);
		if (line == 0)
			unattributed += e->samples;
		line_entry *l = line_find(&lines, &n_lines, &cap_lines, e->function, file ? file : "", line);
		free(file);
		if (!l)
			continue;
		for (size_t k = 0; k < ps.n_reasons; k++)
			l->counts[k] += e->counts[k];
		l->samples += e->samples;
	}
	for (size_t i = 0; i < n_lines; i++) {
		emit_line_record(&lines[i]);
		free(lines[i].function);
		free(lines[i].file);
		free(lines[i].counts);
	}
	free(lines);
	if (ps.n_ctxs > 0 && ps.n_pcs == 0)
		ps.hooks->note("cuptiPCSamplingGetData", "sampling was on, but no sample of the "
			       "wanted kernels arrived");
	if (ps.n_ctxs > 0) {
		char buf[LINE_MAX_BYTES];
		size_t n = ta_proto_encode_pctotal(buf, sizeof buf, ps.hooks->pid, ps.total, ps.dropped,
						   unattributed, ps.other, ps.period, ps.hw_full);
		if (n)
			ps.hooks->emit(buf, n);
	}
	pthread_mutex_unlock(&ps.lock);
}
