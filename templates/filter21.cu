/*
 * filter21: 21-tap FIR filter, out[i] = sum_{k=0..20} coef[k] * in[i + k], 0 <= i < n.
 * `in` holds n + 20 elements, `out` n. The coefficients live in constant memory.
 *
 * Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   BLOCK       threads per block.
 *   OUT         consecutive outputs per thread, computed from a register sliding window of
 *               OUT + 20 inputs (shared-memory reads per output: (OUT + 20) / OUT): 1, 2, 4, 8,
 *               or 16 with SMEM 0.
 *   PACK        1: the tile is a float array.
 *               2: float2 packing: the block's outputs are two halves of HALF = BLOCK * OUT;
 *                  shared word i holds (in[b0 + i], in[b0 + HALF + i]), so every thread reads
 *                  one 8-byte word per tap and computes two outputs HALF apart.
 *   PAD         padding: PAD shared elements (a float when PACK == 1, a float2 when PACK == 2)
 *               after every 128 bytes, so that the stride-OUT window reads of a warp fall into
 *               distinct banks (OUT > 1 conflicts otherwise).
 *   VEC         width of the global loads (1, 2, 4 floats) that stage the tile.
 *   ASYNC       0: one block per tile: the block stages its tile with loads and stores, syncs,
 *                  computes and exits (STAGES 1, GRID 0).
 *               1: a persistent block strides over the tiles (tile t, t + gridDim.x, ...) through
 *                  a ring of STAGES tile buffers filled by 16-byte cp.async copies (sm_80+; older
 *                  GPUs copy with loads and stores), STAGES - 1 tiles in flight while it computes.
 *               2: the same ring filled by one bulk copy per tile (cp.async.bulk, completing on
 *                  an mbarrier per buffer; sm_90+, older GPUs take the ASYNC 1 path), issued by
 *                  thread 0.
 *               ASYNC > 0 needs PACK 1, PAD 0 and VEC 4 (the buffers are copies of the input,
 *               16 bytes at a time). With OUT 8 a warp's 16-byte window reads are 32 bytes apart
 *               (2-way bank conflicts in a plain copy): the cp.async path swizzles the 16-byte
 *               pieces (piece c of the tile at c ^ (c / 8 % 2)) and is conflict-free; a bulk copy
 *               cannot, and keeps the conflicts.
 *   STAGES      tile buffers of the ring (ASYNC > 0; 1 when ASYNC == 0).
 *   GRID        blocks per multiprocessor of the persistent grid (ASYNC > 0; 0 when ASYNC == 0),
 *               also the kernel's minimum-blocks launch bound, so that the whole grid is resident.
 *   SMEM        1: the input reaches the window through shared memory (ASYNC says how).
 *               0: no shared memory: every thread loads its window of OUT + 20 inputs from
 *                  global memory with VEC-wide loads, and the L1 cache serves the overlap of
 *                  neighbouring windows (PACK 1, PAD 0, ASYNC 0, STAGES 1; OUT % VEC == 0); one
 *                  block per tile with GRID 0, else a persistent grid of GRID blocks per
 *                  multiprocessor striding over the tiles.
 *   BANK_BYTES  shared-memory bank mode, applied by the tuner at launch; unused here.
 *
 * Launch (GRID 0): block BLOCK, grid ceil_div(n, BLOCK * OUT * PACK), dynamic shared memory
 * SMEM_ELEMS * 4 * PACK bytes (none with SMEM 0). Launch (GRID > 0): block BLOCK, grid
 * min(GRID * SMS, ceil_div(n, BLOCK * OUT)), dynamic shared memory STAGES * STAGE_ELEMS * 4
 * bytes, plus 8 * STAGES for the mbarriers when ASYNC == 2 (none with SMEM 0; see
 * configs/filter21.yaml).
 * Any n >= 1 is handled.
 */

#if !defined(BLOCK) || !defined(OUT) || !defined(PACK) || !defined(PAD) || !defined(VEC) || \
    !defined(BANK_BYTES) || !defined(ASYNC) || !defined(STAGES) || !defined(GRID) || !defined(SMEM)
#error "filter21.cu: BLOCK, OUT, PACK, PAD, VEC, BANK_BYTES, ASYNC, STAGES, GRID and SMEM must be defined"
#endif
#if BLOCK % 32 != 0
#error "filter21.cu: BLOCK must be a multiple of 32"
#endif
#if OUT != 1 && OUT != 2 && OUT != 4 && OUT != 8 && (OUT != 16 || SMEM != 0)
#error "filter21.cu: OUT must be 1, 2, 4 or 8 (or 16 with SMEM 0)"
#endif
#if SMEM != 0 && SMEM != 1
#error "filter21.cu: SMEM must be 0 or 1"
#endif
#if SMEM == 0 && (PACK != 1 || PAD != 0 || ASYNC != 0 || STAGES != 1 || GRID < 0 || OUT % VEC != 0)
#error "filter21.cu: SMEM 0 needs PACK 1, PAD 0, ASYNC 0, STAGES 1, GRID >= 0 and OUT % VEC == 0"
#endif
#if PACK != 1 && PACK != 2
#error "filter21.cu: PACK must be 1 or 2"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "filter21.cu: VEC must be 1, 2 or 4"
#endif
#if PAD < 0
#error "filter21.cu: PAD must be >= 0"
#endif
#if ASYNC != 0 && ASYNC != 1 && ASYNC != 2
#error "filter21.cu: ASYNC must be 0, 1 or 2"
#endif
#if ASYNC == 0 && SMEM == 1 && (STAGES != 1 || GRID != 0)
#error "filter21.cu: ASYNC 0 needs STAGES 1 and GRID 0"
#endif
#if ASYNC != 0 && (STAGES < 2 || GRID < 1 || PACK != 1 || PAD != 0 || VEC != 4)
#error "filter21.cu: ASYNC > 0 needs STAGES >= 2, GRID >= 1, PACK 1, PAD 0 and VEC 4"
#endif

#define TAPS 21
#define HALO (TAPS - 1)

__constant__ float coef[TAPS];

#if PACK == 1
typedef float elem_t;
#else
typedef float2 elem_t;
#endif

#define HALF (BLOCK * OUT)              /* outputs per half tile (the whole tile when PACK == 1) */
#define SPAN (HALF + HALO)              /* shared elements holding input */
#define SEG (32 / PACK)                 /* shared elements per 128 bytes */
#define PADDED(i) ((i) + ((i) / SEG) * PAD)
#define SMEM_ELEMS (SPAN + (SPAN / SEG) * PAD) /* >= PADDED(SPAN - 1) + 1; the config's shared */
#define NVEC (SPAN / VEC)               /* global vector loads per half tile (HALF, HALO: % 4 == 0) */

/* v[0..VEC) = p[0..VEC); p is aligned to VEC * 4 bytes */
static __device__ __forceinline__ void load_vec(float *v, const float *__restrict__ p)
{
#if VEC == 4
	const float4 t = __ldg(reinterpret_cast<const float4 *>(p));
	v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
#elif VEC == 2
	const float2 t = __ldg(reinterpret_cast<const float2 *>(p));
	v[0] = t.x; v[1] = t.y;
#else
	v[0] = __ldg(p);
#endif
}

/* v[0..VEC) = p[i..i+VEC), elements at or past avail read as 0 */
static __device__ __forceinline__ void load_vec_checked(float *v, const float *__restrict__ p,
                                                        int i, long long avail)
{
	if (i + VEC <= avail) {
		load_vec(v, p + i);
	} else {
#pragma unroll
		for (int e = 0; e < VEC; e++)
			v[e] = i + e < avail ? __ldg(p + i + e) : 0.0f;
	}
}

/* p[j] = a[j] for j < min(OUT, room); p is aligned to min(OUT, 4) * 4 bytes */
static __device__ __forceinline__ void store_out(float *p, const float *a, long long room)
{
	if (room >= OUT) {
#if OUT >= 4
#pragma unroll
		for (int j = 0; j < OUT; j += 4)
			*reinterpret_cast<float4 *>(p + j) = make_float4(a[j], a[j + 1], a[j + 2], a[j + 3]);
#elif OUT == 2
		*reinterpret_cast<float2 *>(p) = make_float2(a[0], a[1]);
#else
		p[0] = a[0];
#endif
	} else {
#pragma unroll
		for (int j = 0; j < OUT; j++)
			if (j < room)
				p[j] = a[j];
	}
}

/* acc[j] = sum_k coef[k] * w[j + k], j < OUT (not every variant calls it: marked unused, so
   that nvcc does not warn in a bundle holding such a variant) */
static __device__ __forceinline__ __attribute__((unused)) void fir(float *acc, const float *w)
{
#pragma unroll
	for (int j = 0; j < OUT; j++)
		acc[j] = 0.0f;
#pragma unroll
	for (int k = 0; k < TAPS; k++) {
#pragma unroll
		for (int j = 0; j < OUT; j++)
			acc[j] = fmaf(coef[k], w[j + k], acc[j]);
	}
}

#if SMEM == 0
/* outputs t * HALF + i0 .. + OUT - 1 from a window loaded straight from global memory: the
   windows of neighbouring threads overlap by 20 inputs, which the L1 cache serves */
static __device__ __forceinline__ void direct_tile(float *__restrict__ out,
                                                   const float *__restrict__ in, long long t, int n)
{
	const long long o = t * HALF + threadIdx.x * OUT; /* first output of this thread */
	if (o >= n)
		return;
	const long long avail = (long long)n + HALO - o;  /* inputs present at in + o */
	float w[OUT + HALO];
	if (avail >= OUT + HALO) {
#pragma unroll
		for (int c = 0; c < OUT + HALO; c += VEC)
			load_vec(w + c, in + o + c);
	} else {
#pragma unroll
		for (int c = 0; c < OUT + HALO; c += VEC)
			load_vec_checked(w + c, in + o, c, avail);
	}
	float acc[OUT];
	fir(acc, w);
	store_out(out + o, acc, n - o);
}

#if GRID == 0
extern "C" __global__ void __launch_bounds__(BLOCK)
filter21(float *__restrict__ out, const float *__restrict__ in, int n)
{
	direct_tile(out, in, blockIdx.x, n);
}
#else
extern "C" __global__ void __launch_bounds__(BLOCK, GRID)
filter21(float *__restrict__ out, const float *__restrict__ in, int n)
{
	const long long tiles = ((long long)n - 1) / HALF + 1; /* n >= 1 */
	for (long long t = blockIdx.x; t < tiles; t += gridDim.x)
		direct_tile(out, in, t, n);
}
#endif

#elif ASYNC == 0
extern "C" __global__ void __launch_bounds__(BLOCK)
filter21(float *__restrict__ out, const float *__restrict__ in, int n)
{
	extern __shared__ __align__(16) unsigned char smem_raw[];
	elem_t *s = reinterpret_cast<elem_t *>(smem_raw);

	const long long b0 = (long long)blockIdx.x * (HALF * PACK); /* first output of the block */
	const float *src = in + b0;
	const long long avail = (long long)n + HALO - b0;           /* inputs present at src */

	/* stage: s[PADDED(i)] = src[i] (PACK 1) or (src[i], src[HALF + i]) (PACK 2), i < SPAN */
#pragma unroll
	for (int r = 0; r < (NVEC + BLOCK - 1) / BLOCK; r++) {
		const int q = r * BLOCK + threadIdx.x;
		if (NVEC % BLOCK != 0 && q >= NVEC)
			break; /* only in the last round */
		const int i = q * VEC;
		float a[VEC];
		load_vec_checked(a, src, i, avail);
#if PACK == 1
#if PAD % VEC == 0 && VEC > 1
		/* PADDED(i) is a multiple of VEC: one vector store */
#if VEC == 4
		*reinterpret_cast<float4 *>(&s[PADDED(i)]) = make_float4(a[0], a[1], a[2], a[3]);
#else
		*reinterpret_cast<float2 *>(&s[PADDED(i)]) = make_float2(a[0], a[1]);
#endif
#else
#pragma unroll
		for (int e = 0; e < VEC; e++)
			s[PADDED(i + e)] = a[e];
#endif
#else /* PACK == 2 */
		float b[VEC];
		load_vec_checked(b, src + HALF, i, avail - HALF);
#if PAD % 2 == 0 && VEC > 1
		/* PADDED(i + 2m) is even: two float2 words per 16-byte store */
#pragma unroll
		for (int e = 0; e < VEC; e += 2)
			*reinterpret_cast<float4 *>(&s[PADDED(i + e)]) =
				make_float4(a[e], b[e], a[e + 1], b[e + 1]);
#else
#pragma unroll
		for (int e = 0; e < VEC; e++)
			s[PADDED(i + e)] = make_float2(a[e], b[e]);
#endif
#endif
	}
	__syncthreads();

	/* compute outputs i0 .. i0 + OUT - 1 of the (half) tile from a register window */
	const int i0 = threadIdx.x * OUT;
	elem_t w[OUT + HALO];
#pragma unroll
	for (int c = 0; c < OUT + HALO; c++)
		w[c] = s[PADDED(i0 + c)];

	float acc[OUT];
#if PACK == 2
	float accb[OUT];
#endif
#pragma unroll
	for (int j = 0; j < OUT; j++) {
		acc[j] = 0.0f;
#if PACK == 2
		accb[j] = 0.0f;
#endif
	}
#pragma unroll
	for (int k = 0; k < TAPS; k++) {
#pragma unroll
		for (int j = 0; j < OUT; j++) {
#if PACK == 1
			acc[j] = fmaf(coef[k], w[j + k], acc[j]);
#else
			acc[j] = fmaf(coef[k], w[j + k].x, acc[j]);
			accb[j] = fmaf(coef[k], w[j + k].y, accb[j]);
#endif
		}
	}

	const long long o = b0 + i0; /* first output of this thread */
	if (o < n)
		store_out(out + o, acc, n - o);
#if PACK == 2
	if (o + HALF < n)
		store_out(out + o + HALF, accb, n - o - HALF);
#endif
}

#else /* ASYNC != 0: a persistent grid, STAGES tile buffers, STAGES - 1 tiles in flight */

/* one tile: HALF outputs (PACK 1) from SPAN inputs; the buffers are 128-byte aligned */
#define STAGE_ELEMS ((SPAN + 31) / 32 * 32)
#define NCHUNK (SPAN / 4)              /* 16-byte pieces per tile (HALF, HALO: % 4 == 0) */

#if ASYNC == 2 && __CUDA_ARCH__ >= 900
#define BULK 1
#else
#define BULK 0
#endif
/* where 16-byte piece c of a tile lies in its buffer: swizzled for OUT 8 where the copies
   allow it (the buffers are whole multiples of 8 pieces) */
#if OUT == 8 && !BULK
#define PIECE(c) ((c) ^ (((c) >> 3) & 1))
#else
#define PIECE(c) (c)
#endif

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

#if !BULK
/* this thread's share of buffer b[i] = src[i], i < min(SPAN, avail); a 16-byte piece that
   straddles avail is zero-filled past it, the pieces past it are left alone */
static __device__ __forceinline__ void stage_tile(float *b, const float *src, long long avail)
{
#pragma unroll
	for (int r = 0; r < (NCHUNK + BLOCK - 1) / BLOCK; r++) {
		const int q = r * BLOCK + threadIdx.x;
		if (NCHUNK % BLOCK != 0 && q >= NCHUNK)
			break; /* only in the last round */
		const int i = q * 4;
		if (i >= avail)
			break;
		const int bytes = i + 4 <= avail ? 16 : (int)(avail - i) * 4;
#if __CUDA_ARCH__ >= 800
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
		             :: "r"(smem_addr(b + 4 * PIECE(q))), "l"(src + i), "r"(bytes) : "memory");
#else
		float a[4];
		load_vec_checked(a, src, i, avail);
		*reinterpret_cast<float4 *>(b + 4 * PIECE(q)) = make_float4(a[0], a[1], a[2], a[3]);
		(void)bytes;
#endif
	}
}

static __device__ __forceinline__ void stage_commit(void)
{
#if __CUDA_ARCH__ >= 800
	asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* this thread's copies of all but the newest STAGES - 2 groups have landed */
static __device__ __forceinline__ void stage_wait(void)
{
#if __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group %0;\n" :: "n"(STAGES - 2) : "memory");
#endif
}
#else /* BULK */
/* thread 0: buffer b[i] = src[i], i < min(SPAN, avail), the 16-byte multiple by one bulk copy
   completing on bar, the rest (fewer than 4 floats, only in the last tile) by plain loads and
   stores that the arrival releases */
static __device__ __forceinline__ void stage_tile_bulk(float *b, const float *src, long long avail,
                                                       unsigned long long *bar)
{
	const int e = avail < SPAN ? (int)avail : SPAN;
	const unsigned bytes = (unsigned)(e * 4) & ~15u; /* >= 16: avail > HALO */
#pragma unroll 1
	for (int i = bytes / 4; i < e; i++)
		b[i] = __ldg(src + i);
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
	             :: "r"(smem_addr(bar)), "r"(bytes) : "memory");
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
	             :: "r"(smem_addr(b)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}

/* wait for the completion of bar's phase of this parity */
static __device__ __forceinline__ void bar_wait(unsigned long long *bar, unsigned parity)
{
	asm volatile("{\n"
	             ".reg .pred p;\n"
	             "WAIT:\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
	             "@!p bra WAIT;\n"
	             "}\n"
	             :: "r"(smem_addr(bar)), "r"(parity) : "memory");
}
#endif

/* outputs t * HALF + i0 .. + OUT - 1 from buffer b (its tile's inputs from t * HALF on) */
static __device__ __forceinline__ void compute_tile(float *__restrict__ out, const float *b,
                                                    long long t, int n)
{
	const int i0 = threadIdx.x * OUT;
	float w[OUT + HALO];
#if OUT == 8
	/* 7 pieces of 16 bytes */
#pragma unroll
	for (int j = 0; j < (OUT + HALO) / 4; j++) {
		const int c = i0 / 4 + j;
		const float4 v = reinterpret_cast<const float4 *>(b)[PIECE(c)];
		w[4 * j] = v.x; w[4 * j + 1] = v.y; w[4 * j + 2] = v.z; w[4 * j + 3] = v.w;
	}
#else
#pragma unroll
	for (int c = 0; c < OUT + HALO; c++)
		w[c] = b[i0 + c];
#endif

	float acc[OUT];
	fir(acc, w);

	const long long o = t * HALF + i0; /* first output of this thread */
	if (o < n)
		store_out(out + o, acc, n - o);
}

extern "C" __global__ void __launch_bounds__(BLOCK, GRID)
filter21(float *__restrict__ out, const float *__restrict__ in, int n)
{
	extern __shared__ __align__(128) unsigned char smem_raw[];
	float *s = reinterpret_cast<float *>(smem_raw);
	const int tiles = (n - 1) / HALF + 1; /* n >= 1 */
	const int step = gridDim.x;
	int rd = 0;                           /* the buffer of the tile computed next */
	int wr = STAGES - 1;                  /* the buffer the next copy fills */

#if BULK
	unsigned long long *bar = reinterpret_cast<unsigned long long *>(s + STAGES * STAGE_ELEMS);
	unsigned parity = 0;
	if (threadIdx.x == 0) {
#pragma unroll
		for (int p = 0; p < STAGES; p++)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(smem_addr(bar + p)) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	}
	__syncthreads();
	if (threadIdx.x == 0) {
#pragma unroll
		for (int p = 0; p < STAGES - 1; p++) {
			const long long t = blockIdx.x + (long long)p * step;
			if (t < tiles)
				stage_tile_bulk(s + p * STAGE_ELEMS, in + t * HALF,
				                (long long)n + HALO - t * HALF, bar + p);
		}
	}
	for (long long t = blockIdx.x; t < tiles; t += step) {
		__syncthreads(); /* every thread is done with buffer wr (the tile before t) */
		const long long tn = t + (long long)(STAGES - 1) * step;
		if (threadIdx.x == 0 && tn < tiles)
			stage_tile_bulk(s + wr * STAGE_ELEMS, in + tn * HALF, (long long)n + HALO - tn * HALF,
			                bar + wr);
		bar_wait(bar + rd, parity);
		compute_tile(out, s + rd * STAGE_ELEMS, t, n);
		wr = rd;
		if (++rd == STAGES) {
			rd = 0;
			parity ^= 1;
		}
	}
#else
	/* one commit group per tile slot, empty ones too, so that the wait counts stay aligned */
#pragma unroll
	for (int p = 0; p < STAGES - 1; p++) {
		const long long t = blockIdx.x + (long long)p * step;
		if (t < tiles)
			stage_tile(s + p * STAGE_ELEMS, in + t * HALF, (long long)n + HALO - t * HALF);
		stage_commit();
	}
	for (long long t = blockIdx.x; t < tiles; t += step) {
		stage_wait();    /* this thread's copies of tile t have landed */
		__syncthreads(); /* everyone's have; every thread is done with buffer wr */
		const long long tn = t + (long long)(STAGES - 1) * step;
		if (tn < tiles)
			stage_tile(s + wr * STAGE_ELEMS, in + tn * HALF, (long long)n + HALO - tn * HALF);
		stage_commit();
		compute_tile(out, s + rd * STAGE_ELEMS, t, n);
		wr = rd;
		if (++rd == STAGES)
			rd = 0;
	}
#endif
}
#endif /* ASYNC */
