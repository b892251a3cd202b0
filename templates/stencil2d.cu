/*
 * stencil2d: 5x5 box stencil on an ny x nx float grid (row-major), zero outside the grid:
 *   out[y][x] = sum_{a=0..4} sum_{b=0..4} coef[a * 5 + b] * in[y + a - 2][x + b - 2]
 * summed by fmaf in that order (a outer, b inner, from 0.0f), as the reference does, so the
 * results match it exactly. The coefficients live in constant memory.
 *
 * Each block computes a tile of TH = TY * CY rows by TW = TX * VEC columns. It stages the tile
 * with its halo in shared memory, TH + 4 rows of TW + 2 * HL floats (HL: the halo of 2 columns
 * widened to a whole vector, so that every staged vector is aligned), then each thread computes
 * VEC adjacent cells in each of CY rows from the shared tile.
 *
 * Parameters (prepended by the tuner as #define lines; there are no defaults):
 *   TX     threads along x; the block is (TX, TY).
 *   TY     threads along y.
 *   CY     rows per thread.
 *   VEC    adjacent cells per thread along x (1, 2, 4): also the width in floats of the global
 *          loads and stores, and of the staging stores where the row stride allows it.
 *   PAD    floats appended to each shared row. The row stride TW + 2 * HL + PAD decides the
 *          banks of the rows a warp reads at once (TX < 32) and the alignment of the rows: the
 *          staging stores are as wide as it allows (VEC wide for PAD % VEC == 0), and so are
 *          the loads of a thread's VEC + 4 floats of a row (window_row).
 *   REG    0: the thread's rows are ty, ty + TY, ...: every output row reads its 5 tile rows
 *             (5 shared rows per output row).
 *          1: the thread's rows are ty * CY .. ty * CY + CY - 1: a register window slides down
 *             the CY + 4 tile rows, reading each once and adding it to the outputs it touches
 *             ((CY + 4) / CY shared rows per output row). Needs CY > 1.
 *   LOAD   staging order: 0 the block's threads take consecutive vectors of the whole tile
 *          (a warp may wrap onto the next row); 1 each warp takes whole rows, rows warp,
 *          warp + warps, ..., its lanes along the row.
 *   GROUP  block order: 1 launch order (x fastest); G > 1 runs the grid in bands of G tile
 *          rows, down each column of tiles in the band first, so that vertically adjacent tiles
 *          (which share halo rows) run close together.
 *
 * Global vectors are used where a whole vector lies inside the grid and rows are aligned
 * (nx % VEC == 0); elsewhere each cell is moved alone with bounds checks.
 *
 * Launch: block (TX, TY), grid (ceil_div(nx, TX * VEC), ceil_div(ny, TY * CY)), dynamic shared
 * memory (TY * CY + 4) * (TX * VEC + 2 * HL + PAD) * 4 bytes, HL = 4 for VEC 4, else 2. Any
 * nx, ny >= 1 are handled.
 */

#if !defined(TX) || !defined(TY) || !defined(CY) || !defined(VEC) || !defined(PAD) || \
    !defined(REG) || !defined(LOAD) || !defined(GROUP)
#error "stencil2d.cu: TX, TY, CY, VEC, PAD, REG, LOAD and GROUP must be defined"
#endif
#if TX < 1 || TY < 1 || (TX * TY) % 32 != 0
#error "stencil2d.cu: TX * TY must be a positive multiple of 32"
#endif
#if CY < 1
#error "stencil2d.cu: CY must be >= 1"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "stencil2d.cu: VEC must be 1, 2 or 4"
#endif
#if PAD < 0
#error "stencil2d.cu: PAD must be >= 0"
#endif
#if REG != 0 && (REG != 1 || CY < 2)
#error "stencil2d.cu: REG must be 0, or 1 with CY > 1"
#endif
#if LOAD != 0 && LOAD != 1
#error "stencil2d.cu: LOAD must be 0 or 1"
#endif
#if GROUP < 1
#error "stencil2d.cu: GROUP must be >= 1"
#endif

#define RAD 2                        /* stencil radius */
#define TAPS (2 * RAD + 1)
#define TW (TX * VEC)                /* tile columns computed */
#define TH (TY * CY)                 /* tile rows computed */
#define HL (VEC == 4 ? 4 : 2)        /* halo columns staged on each side */
#define SROWS (TH + 2 * RAD)         /* staged rows */
#define SCOLS (TW + 2 * HL)          /* staged columns */
#define STRIDE (SCOLS + PAD)         /* shared row stride */
#define VPR (SCOLS / VEC)            /* staged vectors per row */
#define NT (TX * TY)
#define NW (NT / 32)

__constant__ float coef[TAPS * TAPS];

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
typedef float vec_t;
#endif

static __device__ __forceinline__ void vec_split(float *v, vec_t t)
{
#if VEC == 4
	v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
#elif VEC == 2
	v[0] = t.x; v[1] = t.y;
#else
	v[0] = t;
#endif
}

static __device__ __forceinline__ vec_t vec_make(const float *v)
{
#if VEC == 4
	return make_float4(v[0], v[1], v[2], v[3]);
#elif VEC == 2
	return make_float2(v[0], v[1]);
#else
	return v[0];
#endif
}

/* v[0..VEC) = in[gy][gx..gx + VEC), zero outside the grid; gx is a multiple of VEC */
static __device__ __forceinline__ void load_cells(float *v, const float *__restrict__ in,
                                                  int gy, int gx, int nx, int ny)
{
	const bool row_in = gy >= 0 && gy < ny;
	if (row_in && gx >= 0 && gx + VEC <= nx && (VEC == 1 || nx % VEC == 0)) {
		vec_split(v, __ldg(reinterpret_cast<const vec_t *>(in + (long long)gy * nx + gx)));
	} else {
#pragma unroll
		for (int e = 0; e < VEC; e++)
			v[e] = row_in && gx + e >= 0 && gx + e < nx ? __ldg(in + (long long)gy * nx + gx + e)
			                                             : 0.0f;
	}
}

/* the largest of 4, 2, 1 dividing x: a row offset r * x is known to be a multiple of it */
#define ALIGN4(x) ((x) % 4 == 0 ? 4 : (x) % 2 == 0 ? 2 : 1)
/* staging stores: the row offset r * STRIDE is a multiple of ALIGN4(STRIDE), the column of VEC */
#define SA (VEC < ALIGN4(STRIDE) ? VEC : ALIGN4(STRIDE))

/* staged row r, vector c = v, in stores of SA floats */
static __device__ __forceinline__ void stage_put(float *s, int r, int c, const float *v)
{
	float *p = s + r * STRIDE + c * VEC;
#pragma unroll
	for (int e = 0; e < VEC; e += SA) {
#if SA == 4
		*reinterpret_cast<float4 *>(p + e) = make_float4(v[e], v[e + 1], v[e + 2], v[e + 3]);
#elif SA == 2
		*reinterpret_cast<float2 *>(p + e) = make_float2(v[e], v[e + 1]);
#else
		p[e] = v[e];
#endif
	}
}

#define WIN (VEC + 2 * RAD) /* floats of a row a thread reads */

/* v[0..WIN) = p[0..WIN), p = s + row offset + c0 with the row offset known to be qr modulo mr
   (4, 2 or 1; constants once unrolled) and c0 = tx * VEC + HL - 2, so p is known modulo m: one
   load per aligned group of m floats the window touches, as the compiler would fuse them itself:
   16 bytes where it needs 3 or 4 of the group's floats (the extra one is still in the row),
   8 where it needs an aligned pair, else 4 */
static __device__ __forceinline__ void window_row(float *v, const float *p, int mr, int qr)
{
#if VEC == 4
	const int m = mr, q = (qr + 2) % mr;       /* c0 % 4 == 2 */
#elif VEC == 2
	const int m = mr < 2 ? mr : 2, q = qr % m; /* c0 % 2 == 0 */
#else
	const int m = 1, q = 0;                    /* c0 = tx */
#endif
#pragma unroll
	for (int g = 0; g <= WIN; g++) {
		const int j0 = m * g - q; /* window index of the group's first float */
		if (j0 >= WIN)
			break;
		const int lo = j0 < 0 ? 0 : j0, hi = j0 + m < WIN ? j0 + m : WIN;
		if (hi - lo >= 3) {
			const float4 t4 = *reinterpret_cast<const float4 *>(p + j0);
			const float t[4] = {t4.x, t4.y, t4.z, t4.w};
#pragma unroll
			for (int j = lo; j < hi; j++)
				v[j] = t[j - j0];
		} else if (hi - lo == 2) {
			const float2 t2 = *reinterpret_cast<const float2 *>(p + lo);
			v[lo] = t2.x;
			v[lo + 1] = t2.y;
		} else {
			v[lo] = p[lo];
		}
	}
}

/* out[y][x..x + VEC) = a, the cells inside the grid */
static __device__ __forceinline__ void store_cells(float *__restrict__ out, int y, int x,
                                                   const float *a, int nx, int ny)
{
	if (y >= ny)
		return;
	float *p = out + (long long)y * nx + x;
	if (x + VEC <= nx && (VEC == 1 || nx % VEC == 0)) {
		*reinterpret_cast<vec_t *>(p) = vec_make(a);
	} else {
#pragma unroll
		for (int e = 0; e < VEC; e++)
			if (x + e < nx)
				p[e] = a[e];
	}
}

/* acc[0..VEC) += coef row a times the window row v (b ascending) */
static __device__ __forceinline__ void apply_row(float *acc, const float *v, int a)
{
#pragma unroll
	for (int b = 0; b < TAPS; b++) {
#pragma unroll
		for (int x = 0; x < VEC; x++)
			acc[x] = fmaf(coef[a * TAPS + b], v[x + b], acc[x]);
	}
}

extern "C" __global__ void __launch_bounds__(NT)
stencil2d(float *__restrict__ out, const float *__restrict__ in, int nx, int ny)
{
	extern __shared__ __align__(16) float s[];

#if GROUP == 1
	const int bx = blockIdx.x, by = blockIdx.y;
#else
	/* bands of GROUP tile rows; within a band, column by column */
	const int b = blockIdx.y * gridDim.x + blockIdx.x;
	const int band = b / (GROUP * gridDim.x);
	const int rows = min(GROUP, (int)gridDim.y - band * GROUP);
	const int l = b - band * GROUP * gridDim.x;
	const int by = band * GROUP + l % rows;
	const int bx = l / rows;
#endif
	const int x0 = bx * TW, y0 = by * TH; /* first cell of the tile */
	const int tid = threadIdx.y * TX + threadIdx.x;

	/* stage: shared row r, column c holds in[y0 - 2 + r][x0 - HL + c] (0 outside); tiles whose
	   halo lies inside the grid take unchecked vector loads, fully unrolled, the others (the
	   grid's border) a checked loop */
	const bool inner = x0 >= HL && x0 + TW + HL <= nx && y0 >= RAD && y0 + TH + RAD <= ny &&
	                   (VEC == 1 || nx % VEC == 0);
	const float *src = in + (long long)(y0 - RAD) * nx + (x0 - HL);
#if LOAD == 0
	if (inner) {
#pragma unroll
		for (int k = 0; k < (SROWS * VPR + NT - 1) / NT; k++) {
			const int q = k * NT + tid;
			if ((SROWS * VPR) % NT != 0 && q >= SROWS * VPR)
				break; /* only in the last round */
			const int r = q / VPR, c = q % VPR;
			float v[VEC];
			vec_split(v, __ldg(reinterpret_cast<const vec_t *>(src + (long long)r * nx + c * VEC)));
			stage_put(s, r, c, v);
		}
	} else {
#pragma unroll 1
		for (int q = tid; q < SROWS * VPR; q += NT) {
			const int r = q / VPR, c = q % VPR;
			float v[VEC];
			load_cells(v, in, y0 - RAD + r, x0 - HL + c * VEC, nx, ny);
			stage_put(s, r, c, v);
		}
	}
#else
	const int warp = tid / 32, lane = tid % 32;
	if (inner) {
#pragma unroll
		for (int k = 0; k < (SROWS + NW - 1) / NW; k++) {
			const int r = k * NW + warp;
			if (SROWS % NW != 0 && r >= SROWS)
				break; /* only in the last round */
#pragma unroll
			for (int m = 0; m < (VPR + 31) / 32; m++) {
				const int c = m * 32 + lane;
				if (VPR % 32 == 0 || c < VPR) {
					float v[VEC];
					vec_split(v, __ldg(reinterpret_cast<const vec_t *>(src + (long long)r * nx +
					                                                   c * VEC)));
					stage_put(s, r, c, v);
				}
			}
		}
	} else {
#pragma unroll 1
		for (int r = warp; r < SROWS; r += NW) {
#pragma unroll 1
			for (int c = lane; c < VPR; c += 32) {
				float v[VEC];
				load_cells(v, in, y0 - RAD + r, x0 - HL + c * VEC, nx, ny);
				stage_put(s, r, c, v);
			}
		}
	}
#endif
	__syncthreads();

	const int c0 = threadIdx.x * VEC + HL - RAD; /* shared column of the leftmost tap */
	const int x = x0 + threadIdx.x * VEC;
	/* past the grid's edge: done (no barrier follows). Also keeps the compiler from moving an
	   output's loads into its store's bounds check, where they would repeat */
	if (x >= nx)
		return;
#if REG == 0
#pragma unroll
	for (int i = 0; i < CY; i++) {
		const int r = threadIdx.y + i * TY; /* output row in the tile; taps in rows r .. r + 4 */
		if (y0 + r >= ny)
			break; /* and so are the rows below */
		float acc[VEC];
#pragma unroll
		for (int e = 0; e < VEC; e++)
			acc[e] = 0.0f;
#pragma unroll
		for (int a = 0; a < TAPS; a++) {
			float v[WIN];
			window_row(v, s + (r + a) * STRIDE + c0, ALIGN4(STRIDE), 0);
			apply_row(acc, v, a);
		}
		store_cells(out, y0 + r, x, acc, nx, ny);
	}
#else
	const int r0 = threadIdx.y * CY; /* first output row in the tile */
	float acc[CY][VEC];
#pragma unroll
	for (int i = 0; i < CY; i++)
#pragma unroll
		for (int e = 0; e < VEC; e++)
			acc[i][e] = 0.0f;
	/* staged row r0 + k is tap row a = k - i of output row i */
#pragma unroll
	for (int k = 0; k < CY + 2 * RAD; k++) {
		float v[WIN];
		window_row(v, s + (r0 + k) * STRIDE + c0, ALIGN4(CY * STRIDE),
		           k * STRIDE % ALIGN4(CY * STRIDE));
#pragma unroll
		for (int i = 0; i < CY; i++)
			if (k - i >= 0 && k - i < TAPS)
				apply_row(acc[i], v, k - i);
	}
#pragma unroll
	for (int i = 0; i < CY; i++)
		store_cells(out, y0 + r0 + i, x, acc[i], nx, ny);
#endif
}
