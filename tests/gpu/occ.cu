// Compares the occupancy gpu.c computes with CUDA's occupancy API for a
// table of kernels (different register counts, static shared memory),
// block sizes and dynamic shared memory sizes. Prints one line per
// configuration and a summary line "OCC equal N/M".
#include <cstdio>
#include <cuda_runtime.h>

extern "C" {
#include "profile/gpu.h"
}

__global__ void k_light(float *p) { p[threadIdx.x] += 1.0f; }

// Many live values: ptxas needs many registers (read back, not assumed).
template <int N>
__global__ void __launch_bounds__(1024) k_heavy(float *p, int iters)
{
	float acc[N];
#pragma unroll
	for (int i = 0; i < N; i++)
		acc[i] = p[threadIdx.x + i];
	for (int it = 0; it < iters; it++) {
#pragma unroll
		for (int i = 0; i < N; i++)
			acc[i] = acc[i] * acc[(i + 1) % N] + 1.0f;
	}
	float s = 0;
#pragma unroll
	for (int i = 0; i < N; i++)
		s += acc[i];
	p[threadIdx.x] = s;
}

template <int N>
__global__ void __launch_bounds__(256, 1) k_heavy256(float *p, int iters)
{
	float acc[N];
#pragma unroll
	for (int i = 0; i < N; i++)
		acc[i] = p[threadIdx.x + i];
	for (int it = 0; it < iters; it++) {
#pragma unroll
		for (int i = 0; i < N; i++)
			acc[i] = acc[i] * acc[(i + 1) % N] + 1.0f;
	}
	float s = 0;
#pragma unroll
	for (int i = 0; i < N; i++)
		s += acc[i];
	p[threadIdx.x] = s;
}

__global__ void k_static(float *p)
{
	__shared__ float buf[40 * 256];   // 40 KiB static
	buf[threadIdx.x] = p[threadIdx.x];
	__syncthreads();
	p[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

__global__ void k_dyn(float *p)
{
	extern __shared__ float dyn[];
	dyn[threadIdx.x] = p[threadIdx.x];
	__syncthreads();
	p[threadIdx.x] = dyn[(threadIdx.x + 3) % blockDim.x];
}

int main()
{
	ta_gpu_info g;
	char *err = NULL;
	if (ta_gpu_query(0, &g, &err) != 0) {
		printf("OCC gpu query failed: %s\n", err);
		return 1;
	}
	printf("OCC device %s sm_%d%d SMs %d smem/SM %d optin %d reserved %d regs/SM %d driver %d\n",
	       g.name, g.cc_major, g.cc_minor, g.sm_count, g.smem_per_sm, g.smem_per_block_optin,
	       g.smem_reserved_per_block, g.regs_per_sm, g.driver_version);
	struct K { const char *name; const void *fn; };
	K ks[] = {
		{ "light", (const void *)k_light },
		{ "heavy16", (const void *)k_heavy<16> },
		{ "heavy40", (const void *)k_heavy<40> },
		{ "heavy96_256", (const void *)k_heavy256<96> },
		{ "heavy160_256", (const void *)k_heavy256<160> },
		{ "static40k", (const void *)k_static },
		{ "dyn", (const void *)k_dyn },
	};
	const int blocks[] = { 32, 96, 128, 160, 256, 384, 512, 640, 1024 };
	const int dyns[] = { 0, 1024, 16384, 49152, 65536, 100000, 232448 - 40960, 232448 };
	int n = 0, equal = 0;
	for (const K &k : ks) {
		cudaFuncAttributes a;
		if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess)
			continue;
		cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
				     g.smem_per_block_optin - (int)a.sharedSizeBytes);
		for (int bs : blocks) {
			if (bs > a.maxThreadsPerBlock)
				continue;
			for (int dyn : dyns) {
				if (dyn + (int)a.sharedSizeBytes > g.smem_per_block_optin)
					continue;
				int cuda_blocks = -1;
				cudaError_t rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda_blocks, k.fn, bs, dyn);
				ta_launch_shape s = { bs, a.numRegs, (int)a.sharedSizeBytes, dyn, 0 };
				ta_occupancy o = ta_gpu_occupancy(&g, &s);
				n++;
				bool same = rc == cudaSuccess && cuda_blocks == o.blocks_per_sm;
				equal += same;
				printf("OCC %s %-12s regs %3d static %6zu block %4d dyn %6d: cuda %2d (rc %d) ours %2d %s\n",
				       same ? "ok  " : "DIFF", k.name, a.numRegs, a.sharedSizeBytes, bs, dyn,
				       cuda_blocks, (int)rc, o.blocks_per_sm, ta_limiter_name(o.limiter));
			}
		}
	}
	printf("OCC equal %d/%d\n", equal, n);
	return equal == n ? 0 : 1;
}
