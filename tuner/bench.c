/* bench: load, verify and time variants on the GPU (driver API via gpu.c). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "devbuf.h"
#include "expr.h"
#include "launch.h"
#include "nvrtc.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "stats.h"
#include "timing.h"
#include "util.h"
#include "vars.h"

#define MIB ((size_t)1 << 20)
#define DEAD_WHY "not run: GPU context lost after an earlier fault"

/*
 * The helper kernels (tuner/helpers.cu, embedded by tuner/embed.py), compiled once by the
 * tuner's pool (entry "tuner_copy": the others are extern "C" and found by their plain names).
 * The fill replays bench_fill_host's arithmetic with explicitly rounded operations, so that no
 * contraction into FMA changes a value; the comparison keeps fill_host's rules: a float passes
 * if it equals the reference or lies within atol + rtol * |ref| of it, NaN never passes,
 * integers must be equal.
 */
extern const char helpers_cu[];

/* the comparison kernels by element type, in enum elem order */
static const char *const cmp_names[EL_U64 + 1] = {"tuner_cmp_f32", "tuner_cmp_f64",
                                                  "tuner_cmp_i32", "tuner_cmp_u32",
                                                  "tuner_cmp_i64", "tuner_cmp_u64"};

/* host values of one __constant__ symbol */
struct hconst {
	void *data;
	size_t count;
	int valid;
};

/* the helper module and the rooflines' kernels (the others are in struct devbufs and struct
   timer) */
struct helpers {
	CUmodule m;
	CUfunction copy, read;
};

/* time spent per variant, for TUNER_BENCH_PROFILE */
struct prof {
	int on;
	int n;
	double setup, verify, timing, unload;
	double samples, compare; /* of timing: timing_run's, the compare after it */
	double idle, last;       /* between variants: from the end of one to the next's start */
};

/* the config's buffers at one set of sizes: the tuning sizes, or an extra verification size */
struct sizeset {
	struct vars sizes;        /* bound, SMS too */
	struct devbufs bufs;
	char at[200];             /* "" for the tuning sizes, else "at n=1: " (for reasons) */
};

struct bench {
	const struct config *c;
	struct gpu_info gpu;
	struct sizeset *set;      /* set[0]: the tuning sizes; then c's extra verification sizes */
	size_t nset;              /* opened */
	struct hconst *con;       /* one per config constant */
	struct timer tm;          /* events, the L2 flush, bench_set_cut's limit */
	struct helpers h;
	int have_helpers;
	int have_ref;
	int dead;                 /* the context hit a sticky error */
	struct prof prof;
	struct bench_probe probe; /* around an extra launch of each verified variant */
	CUmodule *kept;           /* variants' modules kept loaded while probing */
	size_t nkept;
};

/* errors after which the context is unusable */
static int sticky(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_CONTAINED:
		return 1;
	default:
		return 0;
	}
}

/* after a failed call: 1 (and the bench marked dead) if the context no longer works */
static int lost(struct bench *b, CUresult r)
{
	if (r != CUDA_SUCCESS && (sticky(r) || cu.CtxSynchronize() != CUDA_SUCCESS))
		b->dead = 1;
	return b->dead;
}

/* ---- modules and constants ---- */

/* load co and find its entry; on failure *rc is the failing CUresult (or success) */
static int load(const struct compile_out *co, const char *entry, CUmodule *m, CUfunction *f,
                CUresult *rc, char *why, size_t whylen)
{
	const char *name = co->lowered && *co->lowered ? co->lowered : entry;
	CUresult r;
	char call[300];

	*m = NULL;
	*rc = CUDA_SUCCESS;
	if (!co->ok || !co->cubin || !co->cubin_len) {
		say(why, whylen, "not compiled");
		return -1;
	}
	if ((r = cu.ModuleLoadData(m, co->cubin)) != CUDA_SUCCESS) {
		*m = NULL;
		*rc = r;
		gpu_err(why, whylen, "cuModuleLoadData", r);
		return -1;
	}
	if ((r = cu.ModuleGetFunction(f, *m, name)) != CUDA_SUCCESS) {
		*rc = r;
		snprintf(call, sizeof call, "cuModuleGetFunction(\"%s\")", name);
		gpu_err(why, whylen, call, r);
		cu.ModuleUnload(*m);
		*m = NULL;
		return -1;
	}
	return 0;
}

static void unload(CUmodule *m)
{
	if (*m && gpu_ready())
		cu.ModuleUnload(*m);
	*m = NULL;
}

/* upload every __constant__ of the config into module m */
static int set_constants(struct bench *b, CUmodule m, const struct vars *v, int is_ref,
                         CUresult *rc, char *why, size_t whylen)
{
	const struct config *c = b->c;
	size_t i;

	*rc = CUDA_SUCCESS;
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *k = &c->constants[i];
		struct hconst *h = &b->con[i];
		size_t count, need, have = 0;
		CUdeviceptr d = 0;
		CUresult r;
		char call[200];

		if (devbuf_count("constant", k->name, k->count, k->type, v, &count, &need,
		                 why, whylen) < 0)
			return -1;
		r = cu.ModuleGetGlobal(&d, &have, m, k->name);
		if (r == CUDA_ERROR_NOT_FOUND) {
			if (is_ref)
				continue; /* the reference need not use every constant */
			say(why, whylen, "__constant__ '%s' not found in the module "
			    "(declared with that name and used by the kernel?)", k->name);
			return -1;
		}
		if (r != CUDA_SUCCESS) {
			*rc = r;
			snprintf(call, sizeof call, "cuModuleGetGlobal(\"%s\")", k->name);
			gpu_err(why, whylen, call, r);
			return -1;
		}
		if (have < need) {
			say(why, whylen, "__constant__ '%s' has %zu bytes; the config sets %zu x %zu "
			    "= %zu bytes", k->name, have, count, elem_size(k->type), need);
			return -1;
		}
		if (!h->valid || h->count != count) {
			free(h->data);
			h->data = xmalloc(need ? need : 1);
			bench_fill_host(h->data, 0, count, k->type, &k->fill);
			h->count = count;
			h->valid = 1;
		}
		if (need && (r = cu.MemcpyHtoD(d, h->data, need)) != CUDA_SUCCESS) {
			*rc = r;
			snprintf(call, sizeof call, "cuMemcpyHtoD(__constant__ %s)", k->name);
			gpu_err(why, whylen, call, r);
			return -1;
		}
	}
	return 0;
}

/* ---- open / close ---- */

struct bench *bench_open(const struct config *c, const struct vars *sizes,
                         const struct gpu_info *gpu, char *why, size_t whylen)
{
	struct bench *b;
	const char *p = getenv("TUNER_BENCH_PROFILE");
	size_t k;

	if (why && whylen)
		why[0] = 0;
	if (!gpu_ready()) {
		say(why, whylen, "no GPU open");
		return NULL;
	}
	b = xcalloc(1, sizeof *b);
	b->c = c;
	b->gpu = *gpu;
	b->prof.on = p && *p && strcmp(p, "0");
	b->con = xcalloc(c->nconstants, sizeof *b->con);
	b->set = xcalloc(c->nverify + 1, sizeof *b->set);
	for (k = 0; k <= c->nverify; k++) {
		struct sizeset *z = &b->set[k];
		char msg[240];
		z->sizes = *sizes;
		if (k) {
			space_sizes_at(c, sizes, k - 1, &z->sizes);
			snprintf(z->at, sizeof z->at, "at %s: ", c->verify[k - 1].label);
		}
		if (devbuf_open(&z->bufs, c, &z->sizes, gpu->sms, msg, sizeof msg) < 0) {
			say(why, whylen, "%s%s", z->at, msg);
			goto fail;
		}
		b->nset++;
	}
	return b;
fail:
	bench_close(b);
	return NULL;
}

int bench_timing(struct bench *b, int flush, char *why, size_t whylen)
{
	timing_close(&b->tm);
	return timing_open(&b->tm, b->c, &b->gpu, flush, why, whylen);
}

void bench_close(struct bench *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nkept; i++)
		if (gpu_ready())
			cu.ModuleUnload(b->kept[i]);
	free(b->kept);
	if (b->prof.on && b->prof.n)
		fprintf(stderr, "bench: %d variants, mean per variant: setup %.3f ms, verify %.3f ms, "
		        "timing %.3f ms (samples %.3f ms, then %.3f ms), unload %.3f ms, total %.3f "
		        "ms; between variants %.3f ms\n", b->prof.n, 1e3 * b->prof.setup / b->prof.n,
		        1e3 * b->prof.verify / b->prof.n, 1e3 * b->prof.timing / b->prof.n,
		        1e3 * b->prof.samples / b->prof.n, 1e3 * b->prof.compare / b->prof.n,
		        1e3 * b->prof.unload / b->prof.n,
		        1e3 * (b->prof.setup + b->prof.verify + b->prof.timing + b->prof.unload) /
		        b->prof.n, b->prof.n > 1 ? 1e3 * b->prof.idle / (b->prof.n - 1) : 0.0);
	for (i = 0; i < b->c->nconstants; i++)
		free(b->con[i].data);
	timing_close(&b->tm);
	unload(&b->h.m);
	for (i = 0; i < b->nset; i++)
		devbuf_close(&b->set[i].bufs);
	free(b->set);
	free(b->con);
	free(b);
}

/* ---- helpers ---- */

const char *bench_helpers_source(void)
{
	return helpers_cu;
}

int bench_helpers(struct bench *b, const struct compile_out *helpers, char *why, size_t whylen)
{
	struct helpers *h = &b->h;
	CUresult r = CUDA_SUCCESS;
	char msg[256];
	size_t i;
	double t0 = now_s();

	if (why && whylen)
		why[0] = 0;
	if (b->have_helpers)
		return 0;
	if (b->dead) {
		say(why, whylen, "helpers %s", DEAD_WHY);
		return -1;
	}
	if (load(helpers, "tuner_copy", &h->m, &h->copy, &r, msg, sizeof msg) < 0)
		goto fail;
	{
		struct { CUfunction *f; const char *name; } fns[4 + LEN(cmp_names)] = {
			{&h->read, "tuner_read"}, {&b->tm.flush_fn, "tuner_flush"},
			{&b->tm.hold_fn, "tuner_hold"}, {&b->set[0].bufs.fill, "tuner_fill"}};
		for (i = 0; i < LEN(cmp_names); i++) {
			fns[4 + i].f = &b->set[0].bufs.cmp[i];
			fns[4 + i].name = cmp_names[i];
		}
		for (i = 0; i < LEN(fns); i++)
			if ((r = cu.ModuleGetFunction(fns[i].f, h->m, fns[i].name)) != CUDA_SUCCESS) {
				char call[96];
				snprintf(call, sizeof call, "cuModuleGetFunction(\"%s\")", fns[i].name);
				gpu_err(msg, sizeof msg, call, r);
				goto fail;
			}
	}
	/* the inputs at every set of sizes: filled on the device, then a few elements checked
	   against the host */
	for (i = 0; i < b->nset; i++) {
		struct devbufs *d = &b->set[i].bufs;
		char m1[sizeof msg];
		if (i) {
			d->fill = b->set[0].bufs.fill;
			memcpy(d->cmp, b->set[0].bufs.cmp, sizeof d->cmp);
		}
		if (devbuf_fill(d, &r, m1, sizeof m1) < 0) {
			say(msg, sizeof msg, "%s%s", b->set[i].at, m1);
			goto fail;
		}
	}
	b->have_helpers = 1;
	if (b->prof.on)
		fprintf(stderr, "bench: helpers loaded and inputs filled in %.3f ms\n",
		        1e3 * (now_s() - t0));
	return 0;
fail:
	lost(b, r);
	unload(&h->m);
	say(why, whylen, "helper kernels: %s%s", msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

/* ---- reference ---- */

static void kernel_args(const struct config *c, const struct kernel *k, const struct arg **args,
                        size_t *nargs)
{
	if (k->args || k->nargs) {
		*args = k->args;
		*nargs = k->nargs;
	} else { /* the reference defaults to the kernel's arguments */
		*args = c->kernel.args;
		*nargs = c->kernel.nargs;
	}
}

/* launch L's geometry under v into block, grid and *shared (who: "reference launch" or
   "launch", for messages); 0, or -1 with msg */
static int geometry(const struct launch *L, const struct vars *v, const char *who,
                    int64_t block[3], int64_t grid[3], int64_t *shared, char *msg,
                    size_t msglen)
{
	char what[64];
	int d;

	for (d = 0; d < 3; d++) {
		snprintf(what, sizeof what, "%s block[%d]", who, d);
		if (expr_value(L->block[d], v, 1, &block[d], what, msg, msglen) < 0)
			return -1;
		snprintf(what, sizeof what, "%s grid[%d]", who, d);
		if (expr_value(L->grid[d], v, 1, &grid[d], what, msg, msglen) < 0)
			return -1;
	}
	snprintf(what, sizeof what, "%s shared", who);
	return expr_value(L->shared, v, 0, shared, what, msg, msglen);
}

/* one launch of lp over bufs as verification runs it: the outputs poisoned, lp's buffers
   refilled, the launch and a synchronization. 0, or -1 with *rc and msg (*faulted: 1 if the
   kernel failed, 0 if a call before it did) */
static int run_verified(const struct devbufs *bufs, const struct launchp *lp, CUresult *rc,
                        int *faulted, char *msg, size_t msglen)
{
	*faulted = 0;
	if ((*rc = devbuf_poison(bufs)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuMemsetD8Async(poison)", *rc);
		return -1;
	}
	if ((*rc = launch_refill(lp)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuLaunchKernel(refill)", *rc);
		return -1;
	}
	if ((*rc = launch_run(lp)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuLaunchKernel", *rc);
		return -1;
	}
	if ((*rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		*faulted = 1;
		gpu_err(msg, msglen, "kernel failed", *rc);
		return -1;
	}
	return 0;
}

/* the reference (f, of module m) run once at the sizes of set z, its outputs kept there; 0,
   or -1 with *rc and msg */
static int reference_at(struct bench *b, CUmodule m, CUfunction f, struct sizeset *z,
                        CUresult *rc, char *msg, size_t msglen)
{
	const struct config *c = b->c;
	const struct arg *args;
	size_t nargs;
	struct launchp lp;
	int64_t block[3], grid[3], shared;
	int faulted, ret;

	*rc = CUDA_SUCCESS;
	kernel_args(c, &c->reference, &args, &nargs);
	if (set_constants(b, m, &z->sizes, 1, rc, msg, msglen) < 0 ||
	    geometry(&c->reference.launch, &z->sizes, "reference launch", block, grid, &shared,
	             msg, msglen) < 0 ||
	    devbuf_scratch(&z->bufs, args, nargs, &z->sizes, rc, msg, msglen) < 0 ||
	    launch_make(&lp, &z->bufs, &b->gpu, f, args, nargs, &z->sizes, block, grid, shared,
	                rc, msg, msglen) < 0)
		return -1;
	ret = run_verified(&z->bufs, &lp, rc, &faulted, msg, msglen);
	launch_free(&lp);
	if (ret < 0)
		return -1;
	/* keep the reference's outputs on the device */
	if ((*rc = devbuf_keep(&z->bufs)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuMemcpyDtoD(reference outputs)", *rc);
		return -1;
	}
	return 0;
}

int bench_reference(struct bench *b, const struct compile_out *ref, char *why, size_t whylen)
{
	const struct config *c = b->c;
	CUmodule m = NULL;
	CUfunction f;
	CUresult r = CUDA_SUCCESS;
	char msg[256];
	size_t i;
	double t0 = now_s();

	if (why && whylen)
		why[0] = 0;
	b->have_ref = 0;
	if (b->dead) {
		say(why, whylen, "reference %s", DEAD_WHY);
		return -1;
	}
	if (!b->have_helpers) {
		say(why, whylen, "reference: the helper kernels are not loaded (call bench_helpers "
		    "after bench_open)");
		return -1;
	}
	if (load(ref, c->reference.entry, &m, &f, &r, msg, sizeof msg) < 0)
		goto fail;
	for (i = 0; i < b->nset; i++) { /* the tuning sizes, then each extra one */
		char m1[sizeof msg];
		if (reference_at(b, m, f, &b->set[i], &r, m1, sizeof m1) < 0) {
			say(msg, sizeof msg, "%s%s", b->set[i].at, m1);
			goto fail;
		}
	}
	unload(&m);
	b->have_ref = 1;
	if (b->prof.on)
		fprintf(stderr, "bench: reference in %.3f ms\n", 1e3 * (now_s() - t0));
	return 0;
fail:
	lost(b, r);
	unload(&m);
	say(why, whylen, "reference: %s%s", msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

/* ---- variants ---- */

static int bank_of(CUsharedconfig s)
{
	switch (s) {
	case CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE: return 8;
	case CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE: return 4;
	case CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE: return 4; /* every CUDA 13 GPU: 4 bytes */
	}
	return 0;
}

void bench_set_cut(struct bench *b, double ms)
{
	b->tm.cut_ms = ms;
}

void bench_set_probe(struct bench *b, const struct bench_probe *p)
{
	memset(&b->probe, 0, sizeof b->probe);
	if (p)
		b->probe = *p;
}

/* the probe around one more launch of lp; -1 (with *rc and msg) only if the kernel failed:
   a failing probe is noted in r and the variant keeps its result */
static int probe(struct bench *b, const struct launchp *lp, struct run_result *r, CUresult *rc,
                 char *msg, size_t msglen)
{
	char why[sizeof r->probe_why] = "";
	int n;

	if ((*rc = launch_refill(lp)) != CUDA_SUCCESS) { /* before the profiled range */
		gpu_err(msg, msglen, "cuLaunchKernel(refill)", *rc);
		return -1;
	}
	if (b->probe.before && b->probe.before(b->probe.arg, why, sizeof why) < 0) {
		r->nprobe = -1;
		snprintf(r->probe_why, sizeof r->probe_why, "%s", why);
		return 0;
	}
	if ((*rc = launch_run(lp)) != CUDA_SUCCESS || (*rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "kernel failed while probed", *rc);
		b->probe.after(b->probe.arg, r->probe, why, sizeof why);
		return -1;
	}
	n = b->probe.after(b->probe.arg, r->probe, why, sizeof why);
	if (n < 0 || n > BENCH_PROBE_MAX) {
		r->nprobe = -1;
		snprintf(r->probe_why, sizeof r->probe_why, "%s", n < 0 ? why : "too many values");
		return 0;
	}
	r->nprobe = n;
	return 0;
}

/* r's verdict from what a comparison at the sizes of set z found: the largest errors so far,
   and a mismatch (its reason begins with z->at) */
static void judge(struct run_result *r, const struct cmp_sum *cs, const struct sizeset *z)
{
	if (cs->maxabs > r->max_abs_err)
		r->max_abs_err = cs->maxabs;
	if (cs->maxrel > r->max_rel_err)
		r->max_rel_err = cs->maxrel;
	r->bad = cs->bad;
	if (!cs->bad)
		return;
	r->status = RUN_MISMATCH;
	if (cs->unwritten)
		say(r->reason, sizeof r->reason, "%s'%s' was never written: all its elements still "
		    "hold the poison the tuner fills outputs with (bytes 0xff)", z->at,
		    cs->unwritten);
	else
		say(r->reason, sizeof r->reason, "%s%zu of %zu elements differ; first at %s", z->at,
		    cs->bad, cs->total, cs->first);
}

/* a verified launch of lp at the sizes of set z, compared with the reference's outputs there
   into r; 0, or -1 with *st (what the failure makes of the variant), *rc and msg */
static int check_launch(const struct sizeset *z, const struct launchp *lp,
                        struct run_result *r, enum run_status *st, CUresult *rc, char *msg,
                        size_t msglen)
{
	struct cmp_sum cs;
	int faulted;

	if (run_verified(&z->bufs, lp, rc, &faulted, msg, msglen) < 0) {
		if (faulted)
			*st = RUN_FAULT;
		return -1;
	}
	if ((*rc = devbuf_compare(&z->bufs, &cs, msg, msglen)) != CUDA_SUCCESS) {
		*st = RUN_FAULT;
		return -1;
	}
	judge(r, &cs, z);
	return 0;
}

/* the variant (f, of module m, bound in vars) verified at extra set k (k >= 1): its
   constants, launch, scratch and arguments at those sizes, then check_launch; 0, or -1 with
   *st, *rc and msg (beginning with the set's "at ...: ") */
static int verify_at(struct bench *b, CUmodule m, CUfunction f, const struct vars *vars,
                     size_t k, struct run_result *r, enum run_status *st, CUresult *rc,
                     char *msg, size_t msglen)
{
	const struct config *c = b->c;
	struct sizeset *z = &b->set[k];
	struct launchp lp;
	struct vars vk;
	int64_t block[3], grid[3], shared;
	char m1[240];
	int ret = -1;

	space_sizes_at(c, vars, k - 1, &vk);
	if (set_constants(b, m, &vk, 0, rc, m1, sizeof m1) < 0 ||
	    geometry(&c->kernel.launch, &vk, "launch", block, grid, &shared, m1, sizeof m1) < 0 ||
	    devbuf_scratch(&z->bufs, c->kernel.args, c->kernel.nargs, &vk, rc, m1, sizeof m1) < 0 ||
	    launch_make(&lp, &z->bufs, &b->gpu, f, c->kernel.args, c->kernel.nargs, &vk, block,
	                grid, shared, rc, m1, sizeof m1) < 0)
		goto out;
	ret = check_launch(z, &lp, r, st, rc, m1, sizeof m1);
	launch_free(&lp);
out:
	if (ret < 0)
		say(msg, msglen, "%s%s", z->at, m1);
	return ret;
}

/* the outputs of the last timed launch compared with the reference's once more: a kernel that
   changes what it reads (accumulates into a buffer, overwrites its input) without refill:
   launch ran other work when timed than when verified. A mismatch goes into r (its timing
   dropped); 0, or -1 with *rc and msg */
static int check_timed(struct bench *b, struct run_result *r, CUresult *rc, char *msg,
                       size_t msglen)
{
	struct cmp_sum cs;

	if ((*rc = devbuf_compare(&b->set[0].bufs, &cs, msg, msglen)) != CUDA_SUCCESS)
		return -1;
	if (!cs.bad)
		return 0;
	r->status = RUN_MISMATCH;
	r->bad = cs.bad;
	memset(&r->t, 0, sizeof r->t);
	say(r->reason, sizeof r->reason, "after the timed launches: %zu of %zu elements differ; "
	    "first at %s (does a buffer the kernel accumulates into or overwrites need 'refill: "
	    "launch'?)", cs.bad, cs.total, cs.first);
	return 0;
}

/* the blocks of lp a multiprocessor runs at once: as many as fit (the driver's occupancy
   calculator), or fewer where the grid has fewer a multiprocessor; 0 if not known */
static int resident(const struct bench *b, const struct launchp *lp)
{
	uint64_t blocks = (uint64_t)lp->grid[0] * lp->grid[1] * lp->grid[2], share;
	int fit = 0;

	if (!cu.OccupancyMaxActiveBlocksPerMultiprocessor || b->gpu.sms < 1 ||
	    cu.OccupancyMaxActiveBlocksPerMultiprocessor(
		    &fit, lp->f, (int)(lp->block[0] * lp->block[1] * lp->block[2]), lp->shared) !=
		    CUDA_SUCCESS || fit < 1)
		return 0;
	share = (blocks + (uint64_t)b->gpu.sms - 1) / (uint64_t)b->gpu.sms;
	return share < (uint64_t)fit ? (int)share : fit;
}

/* --profile's account of one variant: at[] = its start, set up, verified, timed, and the
   samples' start and end (0: not timed); a line on stderr */
static void profile_variant(struct bench *b, const struct variant *v,
                            const struct run_result *r, const double at[6])
{
	double t0 = at[0], t1 = at[1], t2 = at[2], t3 = at[3], ts = at[4], tc = at[5];
	double t4 = now_s(), gap = b->prof.last > 0 ? t0 - b->prof.last : 0;

	if (t1 < t0)
		t1 = t0;
	if (t2 < t1)
		t2 = t1;
	b->prof.n++;
	b->prof.idle += gap;
	b->prof.last = t4;
	b->prof.setup += t1 - t0;
	b->prof.verify += t2 - t1;
	b->prof.timing += t3 - t2;
	b->prof.unload += t4 - t3;
	if (tc) {
		b->prof.samples += tc - ts;
		b->prof.compare += t3 - tc;
	}
	fprintf(stderr, "bench: %s setup %.3f verify %.3f timing %.3f (samples %.3f, then "
	        "%.3f) unload %.3f ms, %.3f ms after the variant before%s%s\n", v->id,
	        1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), tc ? 1e3 * (tc - ts) : 0,
	        tc ? 1e3 * (t3 - tc) : 0, 1e3 * (t4 - t3), 1e3 * gap,
	        r->status == RUN_OK ? "" : " -- ", r->status == RUN_OK ? "" : r->reason);
}

/* the bank-size mode of bank_bytes on f and the context, r->bank_applied what the context
   then reports; returns 1 with the context's mode before in *orig when it could be read */
static int bank_mode(int bank_bytes, CUfunction f, CUsharedconfig *orig, struct run_result *r)
{
	CUsharedconfig want = bank_bytes == 8 ? CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
	                                      : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	CUsharedconfig now;
	int have = 0;

	if (cu.CtxGetSharedMemConfig && cu.CtxGetSharedMemConfig(orig) == CUDA_SUCCESS)
		have = 1;
	if (cu.FuncSetSharedMemConfig)
		cu.FuncSetSharedMemConfig(f, want);
	if (cu.CtxSetSharedMemConfig && have && cu.CtxSetSharedMemConfig(want) == CUDA_SUCCESS &&
	    cu.CtxGetSharedMemConfig(&now) == CUDA_SUCCESS)
		r->bank_applied = bank_of(now);
	return have;
}

void bench_variant(struct bench *b, const struct variant *v, const struct vars *vars,
                   const struct compile_out *co, struct run_result *r)
{
	const struct config *c = b->c;
	struct sizeset *z0 = &b->set[0];
	struct launchp lp;
	CUmodule m = NULL;
	CUfunction f;
	CUresult rc = CUDA_SUCCESS;
	CUsharedconfig orig = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
	int have_orig = 0, in_launch = 0;
	enum run_status st = RUN_LAUNCH_ERROR;
	char msg[240];
	double t0 = now_s(), t1 = t0, t2 = t0, t3 = t0;
	double tv = 0, te = 0;    /* verified at the tuning sizes, at the extra ones */
	double ts = 0, tc = 0;    /* timing_run's start and end */
	size_t k;

	memset(r, 0, sizeof *r);
	memset(&lp, 0, sizeof lp);
	r->status = RUN_OK;
	if (b->dead) {
		r->status = RUN_FAULT;
		snprintf(r->reason, sizeof r->reason, "%s", DEAD_WHY);
		return;
	}
	if (!b->have_ref) {
		r->status = RUN_MISMATCH;
		snprintf(r->reason, sizeof r->reason, "not verified: no reference outputs");
		return;
	}
	if (load(co, c->kernel.entry, &m, &f, &rc, msg, sizeof msg) < 0)
		goto fail;
	if (set_constants(b, m, vars, 0, &rc, msg, sizeof msg) < 0)
		goto fail;
	if (v->bank_bytes)
		have_orig = bank_mode(v->bank_bytes, f, &orig, r);
	if (devbuf_scratch(&z0->bufs, c->kernel.args, c->kernel.nargs, vars, &rc, msg,
	                   sizeof msg) < 0)
		goto fail;
	if (launch_make(&lp, &z0->bufs, &b->gpu, f, c->kernel.args, c->kernel.nargs, vars,
	                v->block, v->grid, v->shared, &rc, msg, sizeof msg) < 0)
		goto fail;
	t1 = now_s();
	if (check_launch(z0, &lp, r, &st, &rc, msg, sizeof msg) < 0)
		goto fail;
	tv = now_s();
	for (k = 1; k < b->nset && r->status == RUN_OK; k++)
		if (verify_at(b, m, f, vars, k, r, &st, &rc, msg, sizeof msg) < 0)
			goto fail;
	if (b->nset > 1 && r->status == RUN_OK) {
		/* back to the tuning sizes: their constants, their shared-memory opt-in */
		launch_free(&lp);
		if (set_constants(b, m, vars, 0, &rc, msg, sizeof msg) < 0 ||
		    launch_make(&lp, &z0->bufs, &b->gpu, f, c->kernel.args, c->kernel.nargs, vars,
		                v->block, v->grid, v->shared, &rc, msg, sizeof msg) < 0)
			goto fail;
	}
	t2 = te = now_s();
	if (r->status == RUN_OK)
		r->resident = resident(b, &lp);
	ts = now_s();
	if (r->status == RUN_OK &&
	    timing_run(&b->tm, &lp, &r->t, &rc, &in_launch, msg, sizeof msg) < 0) {
		st = in_launch ? RUN_LAUNCH_ERROR : RUN_FAULT;
		goto fail;
	}
	tc = now_s();
	if (r->status == RUN_OK && check_timed(b, r, &rc, msg, sizeof msg) < 0) {
		st = RUN_FAULT;
		goto fail;
	}
	if (r->status == RUN_OK && b->probe.after && probe(b, &lp, r, &rc, msg, sizeof msg) < 0) {
		st = RUN_FAULT;
		goto fail;
	}
	goto done;
fail:
	if (lost(b, rc)) {
		st = RUN_FAULT;
		say(r->reason, sizeof r->reason, "%s; GPU context lost", msg);
	} else {
		snprintf(r->reason, sizeof r->reason, "%s", msg);
	}
	r->status = st;
	memset(&r->t, 0, sizeof r->t);
done:
	t3 = now_s();
	r->verify_s = (tv ? tv : t3) - t0;
	r->extra_s = tv ? (te ? te : t3) - tv : 0;
	r->timing_s = te ? t3 - te : 0;
	launch_free(&lp);
	if (have_orig && !b->dead)
		cu.CtxSetSharedMemConfig(orig);
	if (b->probe.after && m) {
		/* kept loaded while probing: a module loaded where an unloaded one was gets no
		   SASS-level counts from CUPTI (measured: 168 of 1032 accesses read 0 without this,
		   none with it; docs/bank-model.md) */
		b->kept = xreallocarray(b->kept, b->nkept + 1, sizeof *b->kept);
		b->kept[b->nkept++] = m;
		m = NULL;
	}
	unload(&m);
	if (b->prof.on) {
		const double at[6] = {t0, t1, t2, t3, ts, tc};
		profile_variant(b, v, r, at);
	}
}

/* ---- copy and read rooflines ---- */

/* time f over each grid of per_sm (blocks per SM; 0: one block of 256 per `unit` items; -1:
   one block of 256 per 256 items, one item a thread), keeping the fastest median in *t. On the
   H100 the last two won, by 1-4 %; 2 and 4 blocks per SM were never close, so they are not
   tried. For the read kernel (unit 4) bench/compare/compare.cu found one item a thread fastest on the
   H100 and the H200, so both are tried. */
static int time_grids(struct bench *b, struct launchp *lp, size_t items, size_t unit,
                      struct stats *t, CUresult *r, char *msg, size_t msglen)
{
	static const int per_sm[] = {8, 32, 0, -1};
	double best = -1;
	size_t k;
	int in_launch;

	lp->block[0] = 256;
	lp->block[1] = lp->block[2] = lp->grid[1] = lp->grid[2] = 1;
	for (k = 0; k < LEN(per_sm); k++) {
		struct stats s;
		size_t per = per_sm[k] < 0 ? 1 : unit;
		size_t g = per_sm[k] > 0 ? (size_t)(b->gpu.sms > 0 ? b->gpu.sms : 1) * per_sm[k]
		                         : (items + 256 * per - 1) / (256 * per);
		if (per_sm[k] < 0 && unit == 1)
			break; /* the same grid as 0 */
		lp->grid[0] = (unsigned)(g < INT32_MAX ? g : INT32_MAX);
		if (timing_run(&b->tm, lp, &s, r, &in_launch, msg, msglen) < 0)
			return -1;
		if (b->prof.on)
			fprintf(stderr, "bench:   grid %u: median %.4f ms\n", lp->grid[0], s.median_ms);
		if (best < 0 || s.median_ms < t->median_ms) {
			*t = s;
			best = s.median_ms;
		}
	}
	return 0;
}

/* the copy (read = 0: `bytes` of traffic, half read, half written) or read-only roofline over
   fresh buffers of 1.0f: GB/s of the fastest grid's median, or -1 with why */
static double roofline(struct bench *b, int read, int64_t bytes, struct stats *t, char *why,
                       size_t whylen)
{
	const char *what = read ? "read" : "copy";
	size_t each, n, blocks, k;
	CUdeviceptr src = 0, dst = 0;
	CUresult r = CUDA_SUCCESS;
	struct launchp lp;
	void *params[4];
	float probe[8];
	int check = 0; /* the read kernel writes its sums */
	char msg[240];
	double t0 = now_s(), gbs;

	if (why && whylen)
		why[0] = 0;
	memset(t, 0, sizeof *t);
	if (b->dead) {
		say(why, whylen, "%s %s", what, DEAD_WHY);
		return -1;
	}
	if (!b->have_helpers) {
		say(why, whylen, "%s: the helper kernels are not loaded (bench_helpers)", what);
		return -1;
	}
	each = bytes > 0 ? (size_t)(read ? bytes : bytes / 2) : 0;
	each = (each + 15) & ~(size_t)15;
	if (b->tm.flushes && each < 64 * MIB) /* from memory; else from the L2, as the variants */
		each = 64 * MIB;
	if (each < 4096)
		each = 4096;
	n = each / 16;
	blocks = (n + 255) / 256; /* the read kernel's sums: the largest grid time_grids uses */
	if (blocks < 4) /* the probe reads 16 bytes of them */
		blocks = 4;
	if (devbuf_alloc(&src, each, read ? "the read source" : "the copy source", msg,
	                 sizeof msg) < 0 ||
	    devbuf_alloc(&dst, read ? blocks * sizeof(float) : each,
	                 read ? "the read kernel's sums" : "the copy destination", msg,
	                 sizeof msg) < 0)
		goto fail;
	if ((r = cu.MemsetD32(src, 0x3f800000u, each / 4)) != CUDA_SUCCESS || /* 1.0f */
	    (r = cu.MemsetD32(dst, 0, read ? blocks : each / 4)) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuMemsetD32", r);
		goto fail;
	}
	memset(&lp, 0, sizeof lp);
	lp.f = read ? b->h.read : b->h.copy;
	lp.params = params;
	params[0] = &src;
	params[1] = read ? (void *)&n : (void *)&dst;
	params[2] = read ? (void *)&dst : (void *)&n;
	params[3] = &check;
	if (time_grids(b, &lp, n, read ? 4 : 1, t, &r, msg, sizeof msg) < 0)
		goto fail;
	/* the kernel must have done its work: both ends of the copy are 1.0; the read's first
	   block, in one more launch that writes its sums, summed its share of 1.0s */
	check = 1;
	if (read && ((r = gpu_launch_1d(lp.f, lp.grid[0], 256, params)) != CUDA_SUCCESS ||
	             (r = cu.CtxSynchronize()) != CUDA_SUCCESS)) {
		gpu_err(msg, sizeof msg, "the read kernel's checked launch", r);
		goto fail;
	}
	if ((r = cu.MemcpyDtoH(probe, dst, 16)) != CUDA_SUCCESS ||
	    (!read && (r = cu.MemcpyDtoH(probe + 4, dst + each - 16, 16)) != CUDA_SUCCESS)) {
		gpu_err(msg, sizeof msg, "cuMemcpyDtoH", r);
		goto fail;
	}
	for (k = 0; k < (read ? 1u : 8u); k++)
		if (read ? !(probe[0] > 0) : probe[k] != 1.0f) {
			say(msg, sizeof msg, "the %s kernel did not %s (element %zu is %g)", what, what, k,
			    (double)probe[k]);
			goto fail;
		}
	devbuf_free(&src);
	devbuf_free(&dst);
	if (!(t->median_ms > 0)) {
		say(why, whylen, "%s: median time is zero", what);
		return -1;
	}
	gbs = (read ? 1.0 : 2.0) * (double)each / (t->median_ms * 1e6);
	if (b->prof.on)
		fprintf(stderr, "bench: %s of %s%zu bytes: %.1f GB/s, in %.3f ms\n", what,
		        read ? "" : "2 x ", each, gbs, 1e3 * (now_s() - t0));
	return gbs;
fail:
	memset(t, 0, sizeof *t);
	lost(b, r);
	devbuf_free(&src); /* harmless in a lost context: the calls just fail */
	devbuf_free(&dst);
	say(why, whylen, "%s: %s%s", what, msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

double bench_copy(struct bench *b, const struct compile_out *copy, int64_t bytes, struct stats *t,
                  char *why, size_t whylen)
{
	(void)copy; /* the helpers' tuner_copy: the same kernel, already loaded */
	return roofline(b, 0, bytes, t, why, whylen);
}

double bench_read(struct bench *b, int64_t bytes, struct stats *t, char *why, size_t whylen)
{
	return roofline(b, 1, bytes, t, why, whylen);
}

int bench_bank_probe(struct bench *b, int bytes)
{
	CUsharedconfig orig, now;
	CUsharedconfig want = bytes == 8 ? CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
	                                 : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	int got = 0;

	if ((b && b->dead) || !cu.CtxGetSharedMemConfig || !cu.CtxSetSharedMemConfig)
		return 0;
	if (cu.CtxGetSharedMemConfig(&orig) != CUDA_SUCCESS)
		return 0;
	if (cu.CtxSetSharedMemConfig(want) == CUDA_SUCCESS &&
	    cu.CtxGetSharedMemConfig(&now) == CUDA_SUCCESS)
		got = bank_of(now);
	cu.CtxSetSharedMemConfig(orig);
	return got;
}
