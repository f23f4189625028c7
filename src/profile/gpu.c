#include "config.h"
#include "profile/gpu.h"
#include "util/buf.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The few driver API entry points we call, declared by hand so that no CUDA
 * header or library is needed to build. Values from cuda.h (stable ABI). */
typedef int CUresult_;
typedef int CUdevice_;
enum {
	A_MAX_THREADS_PER_BLOCK = 1,
	A_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	A_WARP_SIZE = 10,
	A_MAX_REGISTERS_PER_BLOCK = 12,
	A_CLOCK_RATE = 13,
	A_MULTIPROCESSOR_COUNT = 16,
	A_MEMORY_CLOCK_RATE = 36,
	A_GLOBAL_MEMORY_BUS_WIDTH = 37,
	A_L2_CACHE_SIZE = 38,
	A_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	A_COMPUTE_CAPABILITY_MAJOR = 75,
	A_COMPUTE_CAPABILITY_MINOR = 76,
	A_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	A_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	A_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	A_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
	A_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};

typedef struct cuda_api {
	CUresult_ (*init)(unsigned);
	CUresult_ (*driver_version)(int *);
	CUresult_ (*device_count)(int *);
	CUresult_ (*device_get)(CUdevice_ *, int);
	CUresult_ (*device_name)(char *, int, CUdevice_);
	CUresult_ (*device_attr)(int *, int, CUdevice_);
	CUresult_ (*error_name)(CUresult_, const char **);
} cuda_api;

static const char *cu_error_name(const cuda_api *api, CUresult_ rc)
{
	const char *s = NULL;
	if (api->error_name && api->error_name(rc, &s) == 0 && s)
		return s;
	return "an unknown CUDA error";
}

static char *cu_failure(const cuda_api *api, const char *call, CUresult_ rc)
{
	const char *name = cu_error_name(api, rc);
	if (rc == 100)  /* CUDA_ERROR_NO_DEVICE */
		return ta_xasprintf("no CUDA device on this machine (%s failed with %s)", call, name);
	if (rc == 35)   /* CUDA_ERROR_INSUFFICIENT_DRIVER */
		return ta_xasprintf("the NVIDIA driver is too old for this program (%s failed with %s)",
				    call, name);
	return ta_xasprintf("%s failed with %s", call, name);
}

void ta_gpu_fill_arch_rules(ta_gpu_info *g)
{
	/* From the CUDA occupancy calculator (cuda_occupancy.h) for sm_50+. */
	g->reg_alloc_unit = 256;
	g->subpartitions = 4;
	g->smem_alloc_unit = g->cc_major >= 8 ? 128 : 256;
	if (g->warp_size <= 0)
		g->warp_size = 32;
	if (g->max_blocks_per_sm <= 0) {
		int b = 32;
		if (g->cc_major == 7 && g->cc_minor == 5)
			b = 16;
		else if (g->cc_major == 8 && g->cc_minor == 9)
			b = 24;
		else if (g->cc_major == 8 && g->cc_minor != 0)
			b = 16;
		else if (g->cc_major == 12)
			b = 24;
		g->max_blocks_per_sm = b;
	}
	if (g->smem_reserved_per_block < 0)
		g->smem_reserved_per_block = g->cc_major >= 8 ? 1024 : 0;
}

/* Known parts, from their public specifications (NVIDIA's datasheets and
 * the CUDA programming guide's table of limits per compute capability).
 * The SM clock is the boost clock; the memory clock is the one the driver
 * reports, which with the bus width gives the datasheet's bandwidth (2 x
 * clock x bus / 8): the H200's as its driver reported on the lent machine
 * (2026-11-29), the others solved from their datasheet bandwidth. The
 * B200's SM count is the one measured on a machine (148: 74 per die);
 * public figures for its L2 differ (65 to 126 MB): it is only shown. */
typedef struct preset {
	const char *key, *name;
	int cc_major, cc_minor, sms, clock_mhz, mem_clock_mhz, bus_bits, l2_mib;
	int smem_per_sm_kib, smem_optin_kib, max_threads_per_sm;
} preset;

static const preset presets[] = {
	/* key      name                          cc     SMs  clock  memclk  bus  L2   smem optin thr */
	{ "h200",   "NVIDIA H200",                9, 0,  132, 1980,  3761, 5120,  60, 228, 227, 2048 },
	{ "h100",   "NVIDIA H100 80GB HBM3",      9, 0,  132, 1980,  2619, 5120,  50, 228, 227, 2048 },
	{ "b200",   "NVIDIA B200",               10, 0,  148, 1965,  3906, 8192, 126, 228, 227, 2048 },
	{ "a100",   "NVIDIA A100-SXM4-80GB",      8, 0,  108, 1410,  1593, 5120,  40, 164, 163, 2048 },
	{ "l40s",   "NVIDIA L40S",                8, 9,  142, 2520,  9001,  384,  96, 100,  99, 1536 },
	{ "rtx4090", "NVIDIA GeForce RTX 4090",   8, 9,  128, 2520, 10501,  384,  72, 100,  99, 1536 },
};

const char *ta_gpu_preset_names(void)
{
	static char names[128];
	if (!names[0])
		for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
				 presets[i].key);
	return names;
}

bool ta_gpu_preset(const char *name, ta_gpu_info *g)
{
	memset(g, 0, sizeof *g);
	const preset *p = NULL;
	for (size_t i = 0; i < sizeof presets / sizeof *presets && !p; i++)
		if (!strcasecmp(name, presets[i].key))
			p = &presets[i];
	if (!p)
		return false;
	snprintf(g->name, sizeof g->name, "%s", p->name);
	g->cc_major = p->cc_major;
	g->cc_minor = p->cc_minor;
	g->sm_count = p->sms;
	g->clock_khz = p->clock_mhz * 1000;
	g->mem_clock_khz = p->mem_clock_mhz * 1000;
	g->mem_bus_bits = p->bus_bits;
	g->peak_dram_gbs = 2.0 * g->mem_clock_khz * 1e3 * (g->mem_bus_bits / 8) / 1e9;
	g->l2_bytes = p->l2_mib * 1024 * 1024;
	g->regs_per_sm = 65536;
	g->regs_per_block = 65536;
	g->smem_per_sm = p->smem_per_sm_kib * 1024;
	g->smem_per_block = 48 * 1024;
	g->smem_per_block_optin = p->smem_optin_kib * 1024;
	g->smem_reserved_per_block = 1024;
	g->max_threads_per_sm = p->max_threads_per_sm;
	g->max_threads_per_block = 1024;
	g->max_blocks_per_sm = 0;   /* by the architecture's rule */
	g->warp_size = 32;
	ta_gpu_fill_arch_rules(g);
	return true;
}

int ta_gpu_query(int ordinal, ta_gpu_info *g, char **err)
{
	memset(g, 0, sizeof *g);
	*err = NULL;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*err = ta_xstrdup("libcuda.so.1 not found: no NVIDIA driver on this machine");
		return -1;
	}
	cuda_api api;
	memset(&api, 0, sizeof api);
	/* POSIX allows converting dlsym's object pointer to a function pointer. */
	*(void **)&api.init = dlsym(lib, "cuInit");
	*(void **)&api.driver_version = dlsym(lib, "cuDriverGetVersion");
	*(void **)&api.device_count = dlsym(lib, "cuDeviceGetCount");
	*(void **)&api.device_get = dlsym(lib, "cuDeviceGet");
	*(void **)&api.device_name = dlsym(lib, "cuDeviceGetName");
	*(void **)&api.device_attr = dlsym(lib, "cuDeviceGetAttribute");
	*(void **)&api.error_name = dlsym(lib, "cuGetErrorName");
	if (!api.init || !api.device_get || !api.device_name || !api.device_attr || !api.device_count) {
		*err = ta_xstrdup("libcuda.so.1 lacks the driver API entry points (a broken NVIDIA driver install?)");
		dlclose(lib);
		return -1;
	}
	CUresult_ rc = api.init(0);
	if (rc != 0) {
		*err = cu_failure(&api, "cuInit", rc);
		dlclose(lib);   /* nothing initialised: safe to unload */
		return -1;
	}
	int count = 0;
	if ((rc = api.device_count(&count)) != 0 || count <= ordinal) {
		*err = rc ? cu_failure(&api, "cuDeviceGetCount", rc)
			  : ta_xasprintf("no CUDA device %d on this machine (%d found)", ordinal, count);
		return -1;
	}
	CUdevice_ dev;
	if ((rc = api.device_get(&dev, ordinal)) != 0) {
		*err = cu_failure(&api, "cuDeviceGet", rc);
		return -1;
	}
	if (api.driver_version)
		api.driver_version(&g->driver_version);
	if (api.device_name(g->name, (int)sizeof g->name, dev) != 0)
		snprintf(g->name, sizeof g->name, "CUDA device %d", ordinal);
	static const struct { int attr; size_t off; } attrs[] = {
		{ A_COMPUTE_CAPABILITY_MAJOR, offsetof(ta_gpu_info, cc_major) },
		{ A_COMPUTE_CAPABILITY_MINOR, offsetof(ta_gpu_info, cc_minor) },
		{ A_MULTIPROCESSOR_COUNT, offsetof(ta_gpu_info, sm_count) },
		{ A_CLOCK_RATE, offsetof(ta_gpu_info, clock_khz) },
		{ A_MEMORY_CLOCK_RATE, offsetof(ta_gpu_info, mem_clock_khz) },
		{ A_GLOBAL_MEMORY_BUS_WIDTH, offsetof(ta_gpu_info, mem_bus_bits) },
		{ A_L2_CACHE_SIZE, offsetof(ta_gpu_info, l2_bytes) },
		{ A_MAX_REGISTERS_PER_MULTIPROCESSOR, offsetof(ta_gpu_info, regs_per_sm) },
		{ A_MAX_REGISTERS_PER_BLOCK, offsetof(ta_gpu_info, regs_per_block) },
		{ A_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, offsetof(ta_gpu_info, smem_per_sm) },
		{ A_MAX_SHARED_MEMORY_PER_BLOCK, offsetof(ta_gpu_info, smem_per_block) },
		{ A_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, offsetof(ta_gpu_info, smem_per_block_optin) },
		{ A_RESERVED_SHARED_MEMORY_PER_BLOCK, offsetof(ta_gpu_info, smem_reserved_per_block) },
		{ A_MAX_THREADS_PER_MULTIPROCESSOR, offsetof(ta_gpu_info, max_threads_per_sm) },
		{ A_MAX_THREADS_PER_BLOCK, offsetof(ta_gpu_info, max_threads_per_block) },
		{ A_MAX_BLOCKS_PER_MULTIPROCESSOR, offsetof(ta_gpu_info, max_blocks_per_sm) },
		{ A_WARP_SIZE, offsetof(ta_gpu_info, warp_size) },
	};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		int v = 0;
		int *slot = (int *)((char *)g + attrs[i].off);
		/* Older drivers lack some attributes: a rule fills them below. */
		*slot = api.device_attr(&v, attrs[i].attr, dev) == 0 ? v : -1;
	}
	if (g->cc_major < 5) {
		*err = ta_xasprintf("%s (compute capability %d.%d) is older than this tool supports",
				    g->name, g->cc_major, g->cc_minor);
		return -1;
	}
	ta_gpu_fill_arch_rules(g);
	if (g->smem_per_block_optin <= 0)
		g->smem_per_block_optin = g->smem_per_block;
	if (g->mem_clock_khz > 0 && g->mem_bus_bits > 0)
		g->peak_dram_gbs = 2.0 * g->mem_clock_khz * 1e3 * (g->mem_bus_bits / 8) / 1e9;
	/* libcuda stays loaded: unloading an initialised driver is not safe. */
	return 0;
}

const char *ta_limiter_name(ta_limiter l)
{
	switch (l) {
	case TA_LIMIT_THREADS: return "threads";
	case TA_LIMIT_BLOCKS: return "blocks";
	case TA_LIMIT_REGISTERS: return "registers";
	case TA_LIMIT_SHARED: return "shared memory";
	case TA_LIMIT_NONE: break;
	}
	return "does not fit";
}

static int div_up(int a, int b)
{
	return (a + b - 1) / b;
}

static long long round_up(long long a, long long b)
{
	return (a + b - 1) / b * b;
}

ta_occupancy ta_gpu_occupancy(const ta_gpu_info *g, const ta_launch_shape *s)
{
	ta_occupancy o;
	memset(&o, 0, sizeof o);
	int warp = g->warp_size > 0 ? g->warp_size : 32;
	int threads = s->block_threads;
	if (threads <= 0 || threads > g->max_threads_per_block)
		return o;
	int warps_per_block = div_up(threads, warp);
	int max_warps_sm = g->max_threads_per_sm / warp;

	o.limit_threads = max_warps_sm / warps_per_block;
	o.limit_blocks = g->max_blocks_per_sm;

	/* Registers: per warp, rounded to the allocation unit; the register file
	 * is split among the subpartitions, each holding whole warps. */
	int regs = s->regs_per_thread;
	if (regs <= 0) {
		o.limit_regs = INT_MAX;
	} else {
		int per_warp = (int)round_up((long long)regs * warp, g->reg_alloc_unit);
		int sub = g->subpartitions > 0 ? g->subpartitions : 1;
		long long per_block_hw = (long long)per_warp * round_up(warps_per_block, sub);
		long long per_block = (long long)per_warp * warps_per_block;
		o.regs_per_block_alloc = (int)per_block;
		if (regs > 256 || per_block_hw > g->regs_per_block || per_block > g->regs_per_block) {
			o.limit_regs = 0;
		} else {
			int warps_sub = (g->regs_per_sm / sub) / per_warp;
			o.limit_regs = warps_sub * sub / warps_per_block;
		}
	}

	/* Shared memory: the driver reserves some per block (sm_80+). */
	long long need = (long long)s->smem_static + s->smem_dynamic + g->smem_reserved_per_block;
	long long alloc = round_up(need, g->smem_alloc_unit > 0 ? g->smem_alloc_unit : 1);
	long long user = (long long)s->smem_static + s->smem_dynamic;
	int per_block_limit = user > g->smem_per_block ? g->smem_per_block_optin : g->smem_per_block;
	o.smem_per_block_alloc = (int)alloc;
	if (alloc > (long long)per_block_limit + g->smem_reserved_per_block)
		o.limit_smem = 0;
	else if (alloc == 0)
		o.limit_smem = INT_MAX;
	else
		o.limit_smem = (int)(g->smem_per_sm / alloc);   /* default carveout: all of it */

	/* The smallest limit wins; ties go to the fixed hardware limits first,
	 * since those are not something the kernel can change. */
	const struct { int v; ta_limiter l; } lim[] = {
		{ o.limit_threads, TA_LIMIT_THREADS },
		{ o.limit_blocks, TA_LIMIT_BLOCKS },
		{ o.limit_regs, TA_LIMIT_REGISTERS },
		{ o.limit_smem, TA_LIMIT_SHARED },
	};
	o.blocks_per_sm = INT_MAX;
	for (size_t i = 0; i < 4; i++) {
		if (lim[i].v < o.blocks_per_sm) {
			o.blocks_per_sm = lim[i].v;
			o.limiter = lim[i].l;
		}
	}
	if (o.blocks_per_sm <= 0) {
		o.blocks_per_sm = 0;
		o.limiter = TA_LIMIT_NONE;
		return o;
	}
	o.warps_per_sm = o.blocks_per_sm * warps_per_block;
	o.occupancy = (double)o.warps_per_sm / max_warps_sm;
	if (s->grid_blocks > 0 && g->sm_count > 0)
		o.waves = (double)s->grid_blocks / ((double)g->sm_count * o.blocks_per_sm);
	return o;
}
