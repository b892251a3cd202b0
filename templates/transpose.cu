/*
 * transpose: out[j * rows + i] = in[i * cols + j] for a rows x cols float matrix (row-major).
 *
 * Each block moves one TH x TILE tile (TH input rows, TILE input columns) through shared
 * memory: it reads tile rows of `in` (coalesced along j, segments of TILE floats), and writes
 * tile rows of `out` (coalesced along i, segments of TH floats), reading the shared tile by
 * column. Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   TILE        tile width: input columns, output rows (a multiple of 32).
 *   TH          tile height: input rows, output columns (a multiple of 32). TH == TILE is the
 *               square tile; a taller tile writes longer runs of each output row, a wider one
 *               reads longer runs of each input row.
 *   VEC         width of the global accesses (1, 2, 4 floats): a thread loads VEC consecutive
 *               columns of an input row and stores VEC consecutive elements of an output row
 *               (the VEC tile rows below its column). The block is TILE / VEC threads wide.
 *   ROWS        block is (TILE / VEC) x ROWS threads; each loads TH / ROWS vectors. For the
 *               stores the same threads are TH / VEC wide, each storing TILE * TH / (VEC *
 *               threads) vectors (for a square tile: the same shape as for the loads).
 *   PAD         words appended to each shared row: the row stride TILE + PAD spreads the column
 *               reads of a warp over the banks (odd PAD: all 32 for VEC 1). Stored as scalars.
 *   SWIZZLE     1: no padding; the VEC-wide chunk k of row r lives at chunk
 *               k ^ ((r / VEC) % (32 / VEC)) of that row (VEC 1: column c ^ (r % 32)), which
 *               spreads a column over the banks as well and keeps the chunks aligned, so the
 *               tile is written with VEC-wide shared stores. Requires PAD == 0.
 *   GROUP       block order: 1 launch order (blockIdx.x along the columns of `in`); G > 1
 *               runs the grid in bands of G tile rows, column after column within a band, so
 *               the blocks in flight cover a squarer part of both matrices (DRAM locality of
 *               the writes as well as of the reads); 0 runs it column after column (one band
 *               of every tile row): the blocks in flight read a column of tiles and write
 *               whole runs of output rows.
 *   BANK_BYTES  shared-memory bank mode, applied by the tuner at launch; unused here.
 *
 * Vector accesses are used where the whole tile is inside the matrix and the rows are aligned
 * (cols % VEC == 0 for the loads, rows % VEC == 0 for the stores); elsewhere each element is
 * moved alone with bounds checks.
 *
 * Launch: block (TILE / VEC, ROWS), grid (ceil_div(cols, TILE), ceil_div(rows, TH)), dynamic
 * shared memory TH * (TILE + PAD) * 4 bytes. Any rows, cols >= 1 are handled.
 */

#if !defined(TILE) || !defined(TH) || !defined(ROWS) || !defined(PAD) || !defined(SWIZZLE) || \
    !defined(VEC) || !defined(GROUP) || !defined(BANK_BYTES)
#error "transpose.cu: TILE, TH, ROWS, PAD, SWIZZLE, VEC, GROUP and BANK_BYTES must be defined"
#endif
#if TILE % 32 != 0 || TILE <= 0 || TH % 32 != 0 || TH <= 0
#error "transpose.cu: TILE and TH must be positive multiples of 32"
#endif
#if ROWS <= 0 || TH % ROWS != 0
#error "transpose.cu: ROWS must divide TH"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "transpose.cu: VEC must be 1, 2 or 4"
#endif
#if SWIZZLE != 0 && PAD != 0
#error "transpose.cu: SWIZZLE requires PAD == 0"
#endif
#if PAD < 0
#error "transpose.cu: PAD must be >= 0"
#endif
#if GROUP < 0
#error "transpose.cu: GROUP must be >= 0"
#endif
#if SWIZZLE && (TILE & (TILE - 1)) != 0
#error "transpose.cu: SWIZZLE needs a power-of-two TILE"
#endif

#define TX (TILE / VEC)  /* threads along a tile row (loads) */
#define NT (TX * ROWS)    /* threads in the block */
#define SX (TH / VEC)     /* threads along an output row (stores) */
#define SR (NT / SX)      /* output rows stored at once */
#if NT % SX != 0 || SR <= 0 || TILE % SR != 0
#error "transpose.cu: TH / VEC must divide the thread count, and the quotient TILE"
#endif

/* shared index of tile element (row r, column c) */
#if SWIZZLE
#define SIDX(r, c) ((r) * TILE + ((((c) / VEC) ^ (((r) / VEC) % (32 / VEC))) * VEC) + (c) % VEC)
#else
#define SIDX(r, c) ((r) * (TILE + PAD) + (c))
#endif

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float vec_t;
#endif

static __device__ __forceinline__ void vec_split(float *a, vec_t v)
{
#if VEC == 4
	a[0] = v.x; a[1] = v.y; a[2] = v.z; a[3] = v.w;
#elif VEC == 2
	a[0] = v.x; a[1] = v.y;
#else
	a[0] = v;
#endif
}

static __device__ __forceinline__ vec_t vec_make(const float *a)
{
#if VEC == 4
	return make_float4(a[0], a[1], a[2], a[3]);
#elif VEC == 2
	return make_float2(a[0], a[1]);
#else
	return a[0];
#endif
}

extern "C" __global__ void __launch_bounds__(NT)
transpose(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
	extern __shared__ __align__(16) float tile[];
	const int tx = threadIdx.x, ty = threadIdx.y;
	int bx = blockIdx.x, by = blockIdx.y;
#if GROUP != 1
	{
		/* launch-order block L goes to band L / (g * nx), column-major inside the band */
		const int nx = gridDim.x, ny = gridDim.y, g = GROUP ? GROUP : ny;
		const long long L = (long long)blockIdx.y * nx + blockIdx.x;
		const long long per = (long long)g * nx;
		const int band = (int)(L / per);
		const int first = band * g;
		const int h = min(ny - first, g); /* tile rows in this band */
		const int w = (int)(L - band * per);
		by = first + w % h;
		bx = w / h;
	}
#endif
	const int i0 = by * TH;   /* first input row of the tile */
	const int j0 = bx * TILE; /* first input column */
	const bool full = i0 + TH <= rows && j0 + TILE <= cols;
	const int c0 = tx * VEC;  /* this thread's first tile column (load) */

	/* tile(r, c0 + e) = in(i0 + r, j0 + c0 + e) */
	if (full && cols % VEC == 0) {
		const float *src = in + (size_t)i0 * cols + j0 + c0;
		vec_t v[TH / ROWS];
#pragma unroll
		for (int k = 0; k < TH / ROWS; k++)
			v[k] = __ldg(reinterpret_cast<const vec_t *>(src + (size_t)(ty + k * ROWS) * cols));
#pragma unroll
		for (int k = 0; k < TH / ROWS; k++) {
			const int r = ty + k * ROWS;
#if SWIZZLE || VEC == 1
			*reinterpret_cast<vec_t *>(&tile[SIDX(r, c0)]) = v[k]; /* chunk stays aligned */
#else
			float a[VEC];
			vec_split(a, v[k]);
#pragma unroll
			for (int e = 0; e < VEC; e++)
				tile[SIDX(r, c0 + e)] = a[e];
#endif
		}
	} else {
#pragma unroll
		for (int k = 0; k < TH / ROWS; k++) {
			const int r = ty + k * ROWS;
			const int i = i0 + r;
#pragma unroll
			for (int e = 0; e < VEC; e++) {
				const int j = j0 + c0 + e;
				if (i < rows && j < cols)
					tile[SIDX(r, c0 + e)] = __ldg(&in[(size_t)i * cols + j]);
			}
		}
	}
	__syncthreads();

	/* out(j0 + r, i0 + s0 + e) = in(i0 + s0 + e, j0 + r) = tile(s0 + e, r) */
	const int sx = (ty * TX + tx) % SX, sy = (ty * TX + tx) / SX;
	const int s0 = sx * VEC;  /* this thread's first tile row (store) */
	if (full && rows % VEC == 0) {
		float *dst = out + (size_t)j0 * rows + i0 + s0;
#pragma unroll
		for (int k = 0; k < TILE / SR; k++) {
			const int r = sy + k * SR;
			float a[VEC];
#pragma unroll
			for (int e = 0; e < VEC; e++)
				a[e] = tile[SIDX(s0 + e, r)];
			*reinterpret_cast<vec_t *>(dst + (size_t)r * rows) = vec_make(a);
		}
	} else {
#pragma unroll
		for (int k = 0; k < TILE / SR; k++) {
			const int r = sy + k * SR;
			const int oj = j0 + r;
#pragma unroll
			for (int e = 0; e < VEC; e++) {
				const int oi = i0 + s0 + e;
				if (oj < cols && oi < rows)
					out[(size_t)oj * rows + oi] = tile[SIDX(s0 + e, r)];
			}
		}
	}
}
