/* Speed-of-light counters for --deep: the CUPTI range profiler measures
 * chosen launches of the user's kernels (kernel replay: CUPTI runs the
 * launch once per counter pass, saving and restoring memory in between)
 * and the host half of the profiler turns the counters into metrics:
 * DRAM and SM throughput against their peaks, achieved occupancy, tensor
 * pipe use, bytes moved and the device's peak rates. The metric names are
 * those of Hopper's list (TILEADVISE_SOL_LIST writes the chip's own).
 *
 * C++ only because CUPTI's profiler host header is; the code is C-style.
 *
 * Which launches: the 2nd, 4th, 8th... launch of each kernel (the first
 * runs on cold caches and right after compilation), at most
 * TILEADVISE_SOL_LAUNCHES (default 12) per kernel, so that long benchmark
 * loops are sampled late as well as early. */
#include "config.h"
#include "profile/inject/deep.h"
extern "C" {
#include "profile/protocol.h"
}

#include <cupti.h>            /* also the launch parameter structs */
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

const size_t kLineMax = 4096;
const size_t kMaxRanges = 4;
const size_t kMaxKernels = 256;
const size_t kMaxMetrics = 24;

/* Always asked for. */
const char *const kBaseMetrics[] = {
	"gpu__time_duration.sum",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"dram__bytes.sum",
	"dram__bytes.sum.peak_sustained",
	"dram__cycles_elapsed.avg.per_second",
	"sm__cycles_elapsed.avg.per_second",
	"lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
};

/* Asked for where the chip has them: tensor pipes (wgmma on Hopper, mma
 * before) and tensor operations with their peak, for the FLOP rate. */
const char *const kOptionalMetrics[] = {
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__ops_path_tensor_src_fp16.sum",
	"sm__ops_path_tensor_src_fp16.sum.peak_sustained",
	"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
	"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
	"sm__ops_path_tensor_src_fp8.sum",
	"sm__ops_path_tensor_src_fp8.sum.peak_sustained",
	"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
	"sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained",
};

struct KernelCount {
	char name[256];
	unsigned seen, profiled;
};

struct State {
	const ta_inject_hooks *hooks;
	bool initialized, ready, broken;
	CUcontext ctx;
	CUpti_RangeProfiler_Object *profiler;
	CUpti_Profiler_Host_Object *host;
	const char *metrics[kMaxMetrics];
	size_t n_metrics;
	uint8_t *config;
	size_t config_size;
	uint8_t *counters;
	size_t counters_size;
	size_t passes;
	KernelCount kernels[kMaxKernels];
	size_t n_kernels;
	unsigned cap_per_kernel;
	bool active;                 /* a launch is being profiled */
	uint32_t active_corr;
	int32_t active_grid[3], active_block[3];
	bool active_has_shape;
};

State st = {};
pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;

void fail(const char *where, CUptiResult rc)
{
	st.hooks->error(where, rc);
	st.broken = true;
}

/* Whether this launch of name is one to profile; counts it. */
bool choose_launch(const char *name)
{
	KernelCount *k = NULL;
	for (size_t i = 0; i < st.n_kernels; i++)
		if (strcmp(st.kernels[i].name, name) == 0)
			k = &st.kernels[i];
	if (!k) {
		if (st.n_kernels == kMaxKernels)
			return false;
		k = &st.kernels[st.n_kernels++];
		snprintf(k->name, sizeof k->name, "%s", name);
	}
	k->seen++;
	bool power_of_two = k->seen >= 2 && (k->seen & (k->seen - 1)) == 0;
	if (!power_of_two || k->profiled >= st.cap_per_kernel)
		return false;
	k->profiled++;
	return true;
}

bool metric_known(const char *name)
{
	CUpti_Profiler_Host_GetMetricProperties_Params p = {};
	p.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
	p.pHostObject = st.host;
	p.pMetricName = name;
	return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

bool counter_image_reset()
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params p = {};
	p.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
	p.pRangeProfilerObject = st.profiler;
	p.counterDataSize = st.counters_size;
	p.pCounterData = st.counters;
	CUptiResult rc = cuptiRangeProfilerCounterDataImageInitialize(&p);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerCounterDataImageInitialize", rc);
		return false;
	}
	return true;
}

bool counter_availability(uint8_t **image)
{
	CUpti_Profiler_GetCounterAvailability_Params p = {};
	p.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
	p.ctx = st.ctx;
	CUptiResult rc = cuptiProfilerGetCounterAvailability(&p);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerGetCounterAvailability(size)", rc);
		return false;
	}
	*image = (uint8_t *)calloc(1, p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1);
	if (!*image)
		return false;
	p.pCounterAvailabilityImage = *image;
	rc = cuptiProfilerGetCounterAvailability(&p);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerGetCounterAvailability", rc);
		return false;
	}
	return true;
}

bool host_setup(const char *chip, const uint8_t *availability)
{
	CUpti_Profiler_Host_Initialize_Params hp = {};
	hp.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
	hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	hp.pChipName = chip;
	hp.pCounterAvailabilityImage = availability;
	CUptiResult rc = cuptiProfilerHostInitialize(&hp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerHostInitialize", rc);
		return false;
	}
	st.host = hp.pHostObject;
	/* One unknown name would fail the whole configuration: check each.
	 * A missing base metric is worth an error record; a missing optional
	 * one is expected on some chips. */
	for (const char *m : kBaseMetrics) {
		if (metric_known(m)) {
			st.metrics[st.n_metrics++] = m;
			continue;
		}
		char where[160];
		snprintf(where, sizeof where, "cuptiProfilerHostGetMetricProperties(%s)", m);
		st.hooks->error(where, CUPTI_ERROR_INVALID_METRIC_NAME);
	}
	for (const char *m : kOptionalMetrics)
		if (st.n_metrics < kMaxMetrics && metric_known(m))
			st.metrics[st.n_metrics++] = m;

	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {};
	ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
	ap.pHostObject = st.host;
	ap.ppMetricNames = st.metrics;
	ap.numMetrics = st.n_metrics;
	rc = cuptiProfilerHostConfigAddMetrics(&ap);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerHostConfigAddMetrics", rc);
		return false;
	}
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {};
	sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
	sp.pHostObject = st.host;
	rc = cuptiProfilerHostGetConfigImageSize(&sp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerHostGetConfigImageSize", rc);
		return false;
	}
	st.config_size = sp.configImageSize;
	st.config = (uint8_t *)calloc(1, st.config_size ? st.config_size : 1);
	if (!st.config)
		return false;
	CUpti_Profiler_Host_GetConfigImage_Params ip = {};
	ip.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
	ip.pHostObject = st.host;
	ip.configImageSize = st.config_size;
	ip.pConfigImage = st.config;
	rc = cuptiProfilerHostGetConfigImage(&ip);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiProfilerHostGetConfigImage", rc);
		return false;
	}
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {};
	np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
	np.configImageSize = st.config_size;
	np.pConfigImage = st.config;
	if (cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
		st.passes = np.numOfPasses;
	return true;
}

/* Everything the first profiled launch needs, on its context. */
bool prepare(CUcontext ctx)
{
	st.ready = false;
	st.ctx = ctx;
	/* Not at injection time: inside cuInit the profiler is not ready yet
	 * (seen on an H200: CUPTI_ERROR_UNKNOWN); at the first chosen launch a
	 * context exists and is current. */
	CUpti_Profiler_Initialize_Params pi = {};
	pi.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
	CUptiResult rc0 = cuptiProfilerInitialize(&pi);
	if (rc0 != CUPTI_SUCCESS) {
		fail("cuptiProfilerInitialize", rc0);
		return false;
	}
	st.initialized = true;
	uint32_t device = 0;
	CUptiResult rc = cuptiGetDeviceId(ctx, &device);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiGetDeviceId", rc);
		return false;
	}
	CUpti_Device_GetChipName_Params cp = {};
	cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
	cp.deviceIndex = device;
	rc = cuptiDeviceGetChipName(&cp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiDeviceGetChipName", rc);
		return false;
	}
	uint8_t *availability = NULL;
	bool ok = counter_availability(&availability) && host_setup(cp.pChipName, availability);
	free(availability);
	if (!ok)
		return false;

	CUpti_RangeProfiler_Enable_Params ep = {};
	ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
	ep.ctx = ctx;
	rc = cuptiRangeProfilerEnable(&ep);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerEnable", rc);
		return false;
	}
	st.profiler = ep.pRangeProfilerObject;

	CUpti_RangeProfiler_GetCounterDataSize_Params dp = {};
	dp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
	dp.pRangeProfilerObject = st.profiler;
	dp.pMetricNames = st.metrics;
	dp.numMetrics = st.n_metrics;
	dp.maxNumOfRanges = kMaxRanges;
	dp.maxNumRangeTreeNodes = kMaxRanges;
	rc = cuptiRangeProfilerGetCounterDataSize(&dp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerGetCounterDataSize", rc);
		return false;
	}
	st.counters_size = dp.counterDataSize;
	st.counters = (uint8_t *)calloc(1, st.counters_size ? st.counters_size : 1);
	if (!st.counters || !counter_image_reset())
		return false;
	st.ready = true;
	return true;
}

void begin_range(const CUpti_CallbackData *cd, CUpti_CallbackId cbid)
{
	CUpti_RangeProfiler_SetConfig_Params sp = {};
	sp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
	sp.pRangeProfilerObject = st.profiler;
	sp.configSize = st.config_size;
	sp.pConfig = st.config;
	sp.counterDataImageSize = st.counters_size;
	sp.pCounterDataImage = st.counters;
	sp.range = CUPTI_AutoRange;
	sp.replayMode = CUPTI_KernelReplay;
	sp.maxRangesPerPass = kMaxRanges;
	sp.numNestingLevels = 1;
	sp.minNestingLevel = 1;
	sp.passIndex = 0;
	sp.targetNestingLevel = 1;
	CUptiResult rc = cuptiRangeProfilerSetConfig(&sp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerSetConfig", rc);
		return;
	}
	CUpti_RangeProfiler_Start_Params bp = {};
	bp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
	bp.pRangeProfilerObject = st.profiler;
	rc = cuptiRangeProfilerStart(&bp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerStart", rc);
		return;
	}
	st.active = true;
	st.active_corr = cd->correlationId;
	const void *func;
	int32_t smem;
	st.active_has_shape =
		ta_inject_launch_params(cbid, cd->functionParams, &func, st.active_grid, st.active_block, &smem);
}

/* In auto-range mode CUPTI names ranges by their index ("0", "1"...): the
 * record carries the launch's kernel name instead. */
void emit_range(size_t index, const char *kernel)
{
	double values[kMaxMetrics];
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {};
	ep.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
	ep.pHostObject = st.host;
	ep.pCounterDataImage = st.counters;
	ep.counterDataImageSize = st.counters_size;
	ep.rangeIndex = index;
	ep.ppMetricNames = st.metrics;
	ep.numMetrics = st.n_metrics;
	ep.pMetricValues = values;
	CUptiResult rc = cuptiProfilerHostEvaluateToGpuValues(&ep);
	if (rc != CUPTI_SUCCESS) {
		st.hooks->error("cuptiProfilerHostEvaluateToGpuValues", rc);
	} else {
		char line[kLineMax];
		size_t n = ta_proto_encode_sol(line, sizeof line, st.hooks->pid, kernel, st.active_corr,
					       st.passes, st.metrics, values, st.n_metrics,
					       st.active_has_shape ? st.active_grid : NULL,
					       st.active_has_shape ? st.active_block : NULL);
		if (n)
			st.hooks->emit(line, n);
	}
}

void end_range(const char *kernel)
{
	st.active = false;
	CUpti_RangeProfiler_Stop_Params sp = {};
	sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
	sp.pRangeProfilerObject = st.profiler;
	CUptiResult rc = cuptiRangeProfilerStop(&sp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerStop", rc);
		return;
	}
	CUpti_RangeProfiler_DecodeData_Params dp = {};
	dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
	dp.pRangeProfilerObject = st.profiler;
	rc = cuptiRangeProfilerDecodeData(&dp);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerDecodeData", rc);
		return;
	}
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {};
	ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
	ip.pCounterDataImage = st.counters;
	ip.counterDataImageSize = st.counters_size;
	rc = cuptiRangeProfilerGetCounterDataInfo(&ip);
	if (rc != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerGetCounterDataInfo", rc);
		return;
	}
	if (ip.numTotalRanges == 0) {
		char msg[320];
		snprintf(msg, sizeof msg, "no range was recorded for a launch of %s", kernel);
		st.hooks->note("cuptiRangeProfilerGetCounterDataInfo", msg);
	}
	for (size_t i = 0; i < ip.numTotalRanges && i < kMaxRanges; i++)
		emit_range(i, kernel);
	counter_image_reset();
}

void list_metrics()
{
	/* TILEADVISE_SOL_LIST=FILE: the chip's base metrics, for whoever
	 * extends the metric list above. */
	const char *path = getenv("TILEADVISE_SOL_LIST");
	if (!path || !*path || !st.host)
		return;
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	const CUpti_MetricType types[] = { CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
					   CUPTI_METRIC_TYPE_THROUGHPUT };
	for (CUpti_MetricType t : types) {
		CUpti_Profiler_Host_GetBaseMetrics_Params p = {};
		p.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
		p.pHostObject = st.host;
		p.metricType = t;
		if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS)
			continue;
		for (size_t i = 0; i < p.numMetrics; i++)
			fprintf(f, "%d %s\n", (int)t, p.ppMetricNames[i]);
	}
	for (size_t i = 0; i < st.n_metrics; i++)
		fprintf(f, "used %s\n", st.metrics[i]);
	fclose(f);
}

} // namespace

extern "C" bool ta_sol_setup(CUpti_SubscriberHandle sub, const ta_inject_hooks *hooks)
{
	st.hooks = hooks;
	st.cap_per_kernel = 12;
	const char *cap = getenv("TILEADVISE_SOL_LAUNCHES");
	if (cap && *cap)
		st.cap_per_kernel = (unsigned)strtoul(cap, NULL, 10);
	return ta_inject_launch_callbacks(sub, 1, hooks->error);
}

extern "C" void ta_sol_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	const CUpti_CallbackData *cd = (const CUpti_CallbackData *)data;
	const char *name = cd->symbolName;
	if (!name)
		return;
	pthread_mutex_lock(&st_lock);
	if (cd->callbackSite == CUPTI_API_ENTER) {
		if (!st.broken && !st.active && st.hooks->wanted(name) && choose_launch(name) &&
		    (st.ready || prepare(cd->context)) && st.ctx == cd->context)
			begin_range(cd, cbid);
	} else if (st.active && cd->correlationId == st.active_corr) {
		end_range(name);
	}
	pthread_mutex_unlock(&st_lock);
}

extern "C" void ta_sol_finish(void)
{
	pthread_mutex_lock(&st_lock);
	list_metrics();
	if (st.profiler) {
		CUpti_RangeProfiler_Disable_Params dp = {};
		dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
		dp.pRangeProfilerObject = st.profiler;
		cuptiRangeProfilerDisable(&dp);
		st.profiler = NULL;
	}
	if (st.host) {
		CUpti_Profiler_Host_Deinitialize_Params hp = {};
		hp.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
		hp.pHostObject = st.host;
		cuptiProfilerHostDeinitialize(&hp);
		st.host = NULL;
	}
	if (st.initialized) {
		CUpti_Profiler_DeInitialize_Params dp = {};
		dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
		cuptiProfilerDeInitialize(&dp);
		st.initialized = false;
	}
	pthread_mutex_unlock(&st_lock);
}
