/*
 * filter21: 21-tap FIR filter, out[i] = sum_{k=0..20} coef[k] * in[i + k], 0 <= i < n.
 * `in` holds n + 20 elements, `out` n. The coefficients live in constant memory.
 *
 * Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   BLOCK       threads per block.
 *   OUT         consecutive outputs per thread, computed from a register sliding window of
 *               OUT + 20 inputs (shared-memory reads per output: (OUT + 20) / OUT).
 *   PACK        1: the tile is a float array.
 *               2: float2 packing: the block's outputs are two halves of HALF = BLOCK * OUT;
 *                  shared word i holds (in[b0 + i], in[b0 + HALF + i]), so every thread reads
 *                  one 8-byte word per tap and computes two outputs HALF apart.
 *   PAD         padding: PAD shared elements (a float when PACK == 1, a float2 when PACK == 2)
 *               after every 128 bytes, so that the stride-OUT window reads of a warp fall into
 *               distinct banks (OUT > 1 conflicts otherwise).
 *   VEC         width of the global loads (1, 2, 4 floats) that stage the tile.
 *   BANK_BYTES  shared-memory bank mode, applied by the tuner at launch; unused here.
 *
 * Launch: block BLOCK, grid ceil_div(n, BLOCK * OUT * PACK), dynamic shared memory
 * SMEM_ELEMS * 4 * PACK bytes (see configs/filter21.yaml). Any n >= 1 is handled.
 */

#if !defined(BLOCK) || !defined(OUT) || !defined(PACK) || !defined(PAD) || !defined(VEC) || \
    !defined(BANK_BYTES)
#error "filter21.cu: BLOCK, OUT, PACK, PAD, VEC and BANK_BYTES must be defined"
#endif
#if BLOCK % 32 != 0
#error "filter21.cu: BLOCK must be a multiple of 32"
#endif
#if OUT != 1 && OUT != 2 && OUT != 4
#error "filter21.cu: OUT must be 1, 2 or 4"
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

/* p[j] = a[j] for j < min(OUT, room); p is aligned to OUT * 4 bytes */
static __device__ __forceinline__ void store_out(float *p, const float *a, long long room)
{
	if (room >= OUT) {
#if OUT == 4
		*reinterpret_cast<float4 *>(p) = make_float4(a[0], a[1], a[2], a[3]);
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
