/*
 * reduction: out[0] = sum of in[0 .. n), float, in one deterministic launch.
 *
 * The input is cut into tiles of BLOCK * EPT elements. A thread adds its EPT elements of a tile
 * (VEC per load, coalesced, all loads of the tile issued before the first add). With GRID == 0
 * block b sums tile b; with GRID > 0 the launch has at most GRID blocks per SM and block b sums tiles
 * b, b + gridDim.x, ... (each thread accumulating its tile sums in double). The block combines
 * its threads' sums (METHOD) and stores it in slot b of partials.
 *
 * The partials are added in two levels, each by the last block to arrive: blocks form groups of
 * GROUP = 8 * BLOCK consecutive indices; the last block of group g adds the group's partials
 * (fixed order, double) into slot nb + g, nb = gridDim.x; the last group to finish adds those
 * ng = ceil(nb / GROUP) sums and writes out[0] (with ng == 1 the group's sum is out[0]). Each
 * level is one round of loads (8 a thread) for up to GROUP values, so the serial tail after the
 * last tile stays short however small the tiles. A partial travels in an 8-byte slot, its bits
 * and a FULL mark in one strong store; a relaxed atomicInc per block only picks the last, which
 * loads each slot until it is full, then empties it. No fence waits for a store to land (the
 * acquire-release increment this replaced cost one more round trip to the L2 in the tail:
 * bench/explore/reduce_tail.cu, docs/benchmarks.md). atomicInc wraps every counter back to 0
 * and every slot is left empty, as before the first launch. The result depends on the variant
 * and n only, never on block scheduling.
 *
 * Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   BLOCK       threads per block (a power of two, 32 .. 1024).
 *   EPT         elements per thread and tile (a multiple of VEC).
 *   VEC         width of the global loads (1, 2, 4 floats).
 *   GRID        0: one block per tile; G > 0: min(G * SMs, tiles) blocks stride over the
 *               tiles (whole waves over the GPU's multiprocessors).
 *   SPLIT       with GRID > 0: 0 block b sums tiles b, b + gridDim.x, ... (the blocks differ
 *               by up to one tile); 1 the same for the whole rounds of tiles only, then the
 *               rest of the input, cut in rows of BLOCK vectors, in gridDim.x equal contiguous
 *               shares of rows (the blocks differ by at most one row, so none runs on alone at
 *               the end). With SPLIT 1 the grid may exceed the tile count (up to one block a
 *               row), so a size between whole tiles still fills the GPU. Unused with GRID 0.
 *   METHOD      block combine: 0 shared-memory tree, interleaved addressing (thread t adds
 *               s[2*d*t + d] into s[2*d*t]: the stride grows and so do the bank conflicts),
 *               1 shared-memory tree, sequential addressing (s[t] += s[t + d], conflict-free),
 *               2 warp shuffles, then one shuffle round over the BLOCK / 32 warp sums.
 *   PIPE        optional (default 0); 1 with GRID > 0 and SPLIT 0: while a thread adds its
 *               loads of one tile, those of its next tile are in flight (twice the registers;
 *               the same additions in the same order, so the same result as PIPE 0).
 *   FINISH      optional (default 0); 1: where the grid is one group (nb <= GROUP), no block
 *               counts itself: block nb - 1 stores its partial like the others, then loads
 *               every slot until it is full and adds them as the last block would (the same
 *               order, so the same result as FINISH 0). The tail then waits on one round trip
 *               to the L2 (the slots) instead of two (the arrival counter, then the slots).
 *               Only that block ever waits on others, so the launch finishes whenever the GPU
 *               can hold two blocks at once. More groups: as FINISH 0.
 *   BANK_BYTES  shared-memory bank mode, applied by the tuner at launch; unused here.
 *
 * Rounding: on any path from an input to out[0] there are at most
 *   EPT / VEC + log2(VEC) float additions in the tile, 1 rounding of the double tile total,
 *   log2(BLOCK) in the block combine, and per level of partials 1 rounding of their double sum
 *   and log2(BLOCK) in that block's combine,
 * so for inputs of one sign |out - sum| <= d * 2^-24 * |sum| (to first order) with
 * d = EPT / VEC + log2(VEC) + 3 * log2(BLOCK) + 3 <= 97 for EPT / VEC <= 64 and BLOCK <= 1024,
 * whatever n is (the double additions add n * 2^-53, below 2.4e-7 for n < 2^31).
 *
 * Launch: block BLOCK, grid nb = ceil_div(n, BLOCK * EPT) (GRID 0), min(GRID * SMs, that) (SPLIT 0)
 * or min(GRID * SMs, ceil_div(n, BLOCK * VEC)) (SPLIT 1), dynamic
 * shared memory BLOCK * 4 bytes (METHOD 0, 1) or BLOCK / 32 * 4 bytes (METHOD 2). partials
 * holds nb + ceil_div(nb, GROUP) slots (2 floats each, 8-byte aligned), counter
 * ceil_div(nb, GROUP) + 1 unsigned ints, all 0 before the first launch and left as each launch
 * leaves them. Any n >= 1 works.
 */

#if !defined(BLOCK) || !defined(EPT) || !defined(VEC) || !defined(METHOD) || !defined(GRID) || \
    !defined(SPLIT) || !defined(BANK_BYTES)
#error "reduction.cu: BLOCK, EPT, VEC, GRID, SPLIT, METHOD and BANK_BYTES must be defined"
#endif
#if BLOCK < 32 || BLOCK > 1024 || (BLOCK & (BLOCK - 1)) != 0
#error "reduction.cu: BLOCK must be a power of two in 32 .. 1024"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "reduction.cu: VEC must be 1, 2 or 4"
#endif
#if EPT <= 0 || EPT % VEC != 0
#error "reduction.cu: EPT must be a positive multiple of VEC"
#endif
#if METHOD < 0 || METHOD > 2
#error "reduction.cu: METHOD must be 0, 1 or 2"
#endif
#if GRID < 0
#error "reduction.cu: GRID must be >= 0"
#endif
#if SPLIT != 0 && SPLIT != 1
#error "reduction.cu: SPLIT must be 0 or 1"
#endif

#ifndef PIPE
#define PIPE 0
#endif
#if PIPE != 0 && (PIPE != 1 || GRID == 0 || SPLIT != 0)
#error "reduction.cu: PIPE must be 0, or 1 with GRID > 0 and SPLIT 0"
#endif

#ifndef FINISH
#define FINISH 0
#endif
#if FINISH != 0 && FINISH != 1
#error "reduction.cu: FINISH must be 0 or 1"
#endif

#define TILE_ELEMS (BLOCK * EPT) /* elements per tile */

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float vec_t;
#endif

/* the sum of one load's VEC floats */
static __device__ __forceinline__ float vec_sum(const vec_t t)
{
#if VEC == 4
	return (t.x + t.y) + (t.z + t.w);
#elif VEC == 2
	return t.x + t.y;
#else
	return t;
#endif
}

/* sum of VEC floats at p (aligned to VEC * 4 bytes) */
static __device__ __forceinline__ float load_sum(const float *__restrict__ p)
{
	return vec_sum(__ldg(reinterpret_cast<const vec_t *>(p)));
}

/* the VEC floats at p (aligned to VEC * 4 bytes) of which left (< VEC, maybe <= 0) are present,
   the others 0: one load each, each under its own condition, nothing added yet */
static __device__ __forceinline__ vec_t load_part(const float *__restrict__ p, long long left)
{
#if VEC == 4
	float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	if (left > 0)
		q.x = __ldg(p);
	if (left > 1)
		q.y = __ldg(p + 1);
	if (left > 2)
		q.z = __ldg(p + 2);
	return q;
#elif VEC == 2
	return make_float2(left > 0 ? __ldg(p) : 0.0f, 0.0f);
#else
	return left > 0 ? __ldg(p) : 0.0f;
#endif
}

/* this thread's sum of tile elements (k * BLOCK + t) * VEC + e; avail elements are present.
   A partial tile (the last) issues all its loads before the first add, as a whole tile does:
   added as they were loaded, they waited on each other, one round trip to memory after
   another, in the block that ends the launch. The missing elements read as 0, which adds
   nothing: the same sum, bit for bit, as adding the present ones alone. */
static __device__ __forceinline__ float tile_sum(const float *__restrict__ src, long long avail)
{
	const int t = threadIdx.x;
	float v = 0.0f;

	if (avail >= TILE_ELEMS) {
		float acc[EPT / VEC];
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++)
			acc[k] = load_sum(src + (k * BLOCK + t) * VEC);
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++)
			v += acc[k];
	} else {
		vec_t q[EPT / VEC];
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++) {
			const int i = (k * BLOCK + t) * VEC;
			q[k] = i + VEC <= avail ? __ldg(reinterpret_cast<const vec_t *>(src + i))
			                        : load_part(src + i, avail - i);
		}
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++)
			v += vec_sum(q[k]);
	}
	return v;
}

#if METHOD == 2
static __device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, d);
	return v;
}
#endif

/* sum of v over the block, valid in thread 0; s has the size the config gives.
   Ends with every thread past its last access to s. */
static __device__ __forceinline__ float block_sum(float v, float *s)
{
	const int t = threadIdx.x;
#if METHOD == 2
	v = warp_sum(v);
	if (BLOCK == 32)
		return v;
	if ((t & 31) == 0)
		s[t >> 5] = v;
	__syncthreads();
	v = 0.0f;
	if (t < 32) {
		v = t < BLOCK / 32 ? s[t] : 0.0f;
		v = warp_sum(v);
	}
	__syncthreads();
	return v;
#else
	s[t] = v;
	__syncthreads();
#if METHOD == 0
#pragma unroll
	for (int d = 1; d < BLOCK; d *= 2) {
		const int i = 2 * d * t;
		if (i < BLOCK)
			s[i] += s[i + d];
		__syncthreads();
	}
#else
#pragma unroll
	for (int d = BLOCK / 2; d > 0; d >>= 1) {
		if (t < d)
			s[t] += s[t + d];
		__syncthreads();
	}
#endif
	v = s[0];
	__syncthreads();
	return v;
#endif
}

/* the partials' slots: 8 bytes each, the value's bits and FULL in one single-copy-atomic store */
#define FULL 1u
#define GROUP (8 * BLOCK) /* blocks per group: one round of 8 loads a thread adds them */

/* v into slot i, marked full: strong (L2) and relaxed, so no fence waits on it */
static __device__ __forceinline__ void slot_put(float *p, unsigned int i, float v)
{
	const unsigned long long x = ((unsigned long long)FULL << 32) | __float_as_uint(v);
	asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
	             :: "l"(reinterpret_cast<unsigned long long *>(p) + i), "l"(x) : "memory");
}

static __device__ __forceinline__ unsigned long long slot_load(const float *p, unsigned int i)
{
	unsigned long long x;
	asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
	             : "=l"(x) : "l"(reinterpret_cast<const unsigned long long *>(p) + i) : "memory");
	return x;
}

/* a relaxed atomicInc at GPU scope: it picks the last block, it orders nothing (the slots
   carry their own FULL mark) */
static __device__ __forceinline__ unsigned int inc_relaxed(unsigned int *p, unsigned int lim)
{
	unsigned int old;
	asm volatile("atom.relaxed.gpu.global.inc.u32 %0, [%1], %2;"
	             : "=r"(old) : "l"(p), "r"(lim) : "memory");
	return old;
}

/* slots p[0] + ... + p[m - 1] in a fixed order, each emptied after it is read (back to 0, as
   before the first launch): thread t adds t, t + BLOCK, ... in double, 8 loads in flight per
   round; the slots not yet full are loaded again, all at once, until every one is (its block
   stored it before it counted itself, or, FINISH 1, it will: no slot waits on another's round
   trip); then the block combine, valid in thread 0 */
static __device__ __forceinline__ float sum_partials(float *p, unsigned int m, float *s)
{
	double d = 0.0;
	for (unsigned int b = threadIdx.x; b < m; b += 8 * BLOCK) {
		unsigned long long q[8];
		bool empty;
#pragma unroll
		for (int j = 0; j < 8; j++)
			q[j] = b + j * BLOCK < m ? slot_load(p, b + j * BLOCK) : (unsigned long long)FULL << 32;
		do {
			empty = false;
#pragma unroll
			for (int j = 0; j < 8; j++)
				if ((unsigned int)(q[j] >> 32) != FULL) {
					q[j] = slot_load(p, b + j * BLOCK);
					empty = true;
				}
		} while (empty);
#pragma unroll
		for (int j = 0; j < 8; j++)
			d += (double)__uint_as_float((unsigned int)q[j]);
#pragma unroll
		for (int j = 0; j < 8; j++)
			if (b + j * BLOCK < m)
				asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
				             :: "l"(reinterpret_cast<unsigned long long *>(p) + b + j * BLOCK),
				                "l"(0ull) : "memory");
	}
	return block_sum((float)d, s);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduction(float *__restrict__ out, const float *__restrict__ in, float *__restrict__ partials,
          unsigned int *__restrict__ counter, int n)
{
	extern __shared__ float s[];
	__shared__ bool last;
	const int t = threadIdx.x;
	float v;

#if GRID == 0
	{
		const long long base = (long long)blockIdx.x * TILE_ELEMS;
		v = tile_sum(in + base, n - base);
	}
#elif PIPE == 1
	{
		/* whole tiles: the next tile's loads are issued before this one's are added, in the
		   order tile_sum adds them; the last, partial tile (if any) by tile_sum */
		const long long step = (long long)gridDim.x * TILE_ELEMS;
		long long base = (long long)blockIdx.x * TILE_ELEMS;
		double acc = 0.0;
		if (base + TILE_ELEMS <= n) {
			vec_t cur[EPT / VEC];
#pragma unroll
			for (int k = 0; k < EPT / VEC; k++)
				cur[k] = __ldg(reinterpret_cast<const vec_t *>(in + base + (k * BLOCK + t) * VEC));
			for (;;) {
				const long long next = base + step;
				const bool more = next + TILE_ELEMS <= n;
				vec_t nxt[EPT / VEC];
				float w = 0.0f;
				if (more) {
#pragma unroll
					for (int k = 0; k < EPT / VEC; k++)
						nxt[k] = __ldg(reinterpret_cast<const vec_t *>(
							in + next + (k * BLOCK + t) * VEC));
				}
#pragma unroll
				for (int k = 0; k < EPT / VEC; k++)
					w += vec_sum(cur[k]);
				acc += (double)w;
				base = next;
				if (!more)
					break;
#pragma unroll
				for (int k = 0; k < EPT / VEC; k++)
					cur[k] = nxt[k];
			}
		}
		if (base < n)
			acc += (double)tile_sum(in + base, n - base);
		v = (float)acc;
	}
#elif SPLIT == 0
	{
		double acc = 0.0;
		for (long long base = (long long)blockIdx.x * TILE_ELEMS; base < n;
		     base += (long long)gridDim.x * TILE_ELEMS)
			acc += (double)tile_sum(in + base, n - base);
		v = (float)acc;
	}
#else
	{
		const long long grid = gridDim.x, row = BLOCK * VEC;
		const long long start = n / TILE_ELEMS / grid * grid * TILE_ELEMS; /* the whole rounds */
		const long long nrows = (n - start + row - 1) / row;
		const long long end = min((long long)n, start + nrows * (blockIdx.x + 1) / grid * row);
		double acc = 0.0;
		for (long long base = (long long)blockIdx.x * TILE_ELEMS; base < start;
		     base += grid * TILE_ELEMS)
			acc += (double)tile_sum(in + base, TILE_ELEMS);
		for (long long base = start + nrows * blockIdx.x / grid * row; base < end;
		     base += TILE_ELEMS)
			acc += (double)tile_sum(in + base, end - base);
		v = (float)acc;
	}
#endif

	v = block_sum(v, s);

	/* level 1: the last block of this group adds the group's partials */
	const unsigned int nb = gridDim.x, ng = (nb + GROUP - 1) / GROUP;
	const unsigned int g = blockIdx.x / GROUP, first = g * GROUP;
	const unsigned int size = min(nb - first, (unsigned int)GROUP);
	if (FINISH == 1 && ng == 1) {
		/* one group: block nb - 1 waits for the slots, nobody counts */
		if (t == 0)
			slot_put(partials, blockIdx.x, v);
		if (blockIdx.x != nb - 1)
			return;
		v = sum_partials(partials, nb, s);
		if (t == 0)
			out[0] = v;
		return;
	}
	if (t == 0) {
		slot_put(partials, blockIdx.x, v);
		last = inc_relaxed(&counter[g], size - 1) == size - 1; /* wraps to 0 */
	}
	__syncthreads();
	if (!last)
		return;
	v = sum_partials(partials + 2 * first, size, s);
	if (ng == 1) {
		if (t == 0)
			out[0] = v;
		return;
	}

	/* level 2: the last group adds the group sums */
	if (t == 0) {
		slot_put(partials, nb + g, v);
		last = inc_relaxed(&counter[ng], ng - 1) == ng - 1;
	}
	__syncthreads();
	if (!last)
		return;
	v = sum_partials(partials + 2 * nb, ng, s);
	if (t == 0)
		out[0] = v;
}
