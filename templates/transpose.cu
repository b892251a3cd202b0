/*
 * transpose: out[j * rows + i] = in[i * cols + j] for a rows x cols float matrix (row-major).
 *
 * Each block moves one TILE x TILE tile through shared memory: it reads tile rows of `in`
 * (coalesced along j), and writes tile rows of `out` (coalesced along i), reading the shared
 * tile by column. Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   TILE        tile edge (a multiple of 32).
 *   ROWS        block is TILE x ROWS threads; each thread moves TILE / ROWS elements each way.
 *   PAD         words appended to each shared row: the row stride TILE + PAD makes the column
 *               reads of a warp fall into distinct banks when it is odd.
 *   SWIZZLE     1: no padding; element (r, c) lives at r * TILE + (c ^ (r % 32)), which spreads
 *               a column over all 32 banks as well. Requires PAD == 0.
 *   BANK_BYTES  shared-memory bank mode, applied by the tuner at launch; unused here.
 *
 * Launch: block (TILE, ROWS), grid (ceil_div(cols, TILE), ceil_div(rows, TILE)), dynamic shared
 * memory TILE * (TILE + PAD) * 4 bytes. Any rows, cols >= 1 are handled.
 */

#if !defined(TILE) || !defined(ROWS) || !defined(PAD) || !defined(SWIZZLE) || !defined(BANK_BYTES)
#error "transpose.cu: TILE, ROWS, PAD, SWIZZLE and BANK_BYTES must be defined"
#endif
#if TILE % 32 != 0 || TILE <= 0
#error "transpose.cu: TILE must be a positive multiple of 32"
#endif
#if ROWS <= 0 || TILE % ROWS != 0
#error "transpose.cu: ROWS must divide TILE"
#endif
#if SWIZZLE != 0 && PAD != 0
#error "transpose.cu: SWIZZLE requires PAD == 0"
#endif
#if PAD < 0
#error "transpose.cu: PAD must be >= 0"
#endif

/* shared index of tile element (row r, column c) */
#if SWIZZLE
#define SIDX(r, c) ((r) * TILE + ((c) ^ ((r) & 31)))
#else
#define SIDX(r, c) ((r) * (TILE + PAD) + (c))
#endif

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
	extern __shared__ float tile[];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int i0 = blockIdx.y * TILE; /* first input row of the tile */
	const int j0 = blockIdx.x * TILE; /* first input column */

	/* tile(r, tx) = in(i0 + r, j0 + tx) */
	const int j = j0 + tx;
#pragma unroll
	for (int k = 0; k < TILE / ROWS; k++) {
		const int r = ty + k * ROWS;
		const int i = i0 + r;
		if (i < rows && j < cols)
			tile[SIDX(r, tx)] = __ldg(&in[(size_t)i * cols + j]);
	}
	__syncthreads();

	/* out(j0 + r, i0 + tx) = in(i0 + tx, j0 + r) = tile(tx, r) */
	const int oi = i0 + tx;
#pragma unroll
	for (int k = 0; k < TILE / ROWS; k++) {
		const int r = ty + k * ROWS;
		const int oj = j0 + r;
		if (oj < cols && oi < rows)
			out[(size_t)oj * rows + oi] = tile[SIDX(tx, r)];
	}
}
