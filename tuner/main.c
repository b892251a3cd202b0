/* tuner: find the fastest shared-memory layout of a CUDA kernel on the GPU in front of it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "config.h"
#include "emit.h"
#include "gpu.h"
#include "nvrtc.h"
#include "pool.h"
#include "report.h"
#include "source.h"
#include "space.h"
#include "util.h"

#define VERSION "0.1"

struct opts {
	const char *config;
	const char *arch;
	const char *outdir;
	const char *cachedir;
	const char *emit;
	int jobs;
	int dry_run;
	int no_cache;
	char **sizes;
	size_t nsizes;
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: tuner [options] CONFIG\n"
	        "Compile, verify and time every variant of the kernel CONFIG describes, and emit the\n"
	        "fastest as standalone CUDA source under OUT/<kernel>/<gpu>/.\n\n"
	        "  -j N            compile with N worker processes (default: number of cores)\n"
	        "  --dry-run       list the variants with their launch geometry; compile nothing\n"
	        "  --arch sm_XX    compile for this architecture (default: the GPU's, or without one\n"
	        "                  the newest NVRTC supports); timing needs the GPU's own\n"
	        "  --size NAME=N   override a problem size (repeatable)\n"
	        "  --out DIR       output directory (default: out)\n"
	        "  --cache DIR     compile cache (default: $TUNER_CACHE or ~/.cache/tuner)\n"
	        "  --no-cache      compile everything, store nothing\n"
	        "  --emit ID       also write variant ID as OUT/<kernel>/<gpu>/ID.cu and ID.h\n"
	        "  -q, --quiet     print only errors and the winner\n"
	        "  -v, --verbose   print dropped variants and compile logs\n"
	        "  -h, --help      this text\n"
	        "  -V, --version   print the version\n\n"
	        "exit status: 0 success, 1 no variant compiled (or verified, on a GPU),\n"
	        "2 usage or config error\n");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_DRY = 256, O_ARCH, O_SIZE, O_OUT, O_CACHE, O_NOCACHE, O_EMIT };
	static const struct option lo[] = {
		{"dry-run", no_argument, 0, O_DRY},   {"arch", required_argument, 0, O_ARCH},
		{"size", required_argument, 0, O_SIZE}, {"out", required_argument, 0, O_OUT},
		{"cache", required_argument, 0, O_CACHE}, {"no-cache", no_argument, 0, O_NOCACHE},
		{"emit", required_argument, 0, O_EMIT}, {"quiet", no_argument, 0, 'q'},
		{"verbose", no_argument, 0, 'v'},     {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},     {0, 0, 0, 0},
	};
	int ch;
	long n;
	char *end;

	o->outdir = "out";
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":j:qvhV", lo, NULL)) != -1) {
		switch (ch) {
		case 'j':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1024)
				fatal("-j: '%s' is not a number from 1 to 1024", optarg);
			o->jobs = (int)n;
			break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("tuner %s (NVRTC %s)\n", VERSION, nv_version()); exit(0);
		case O_DRY: o->dry_run = 1; break;
		case O_ARCH: o->arch = optarg; break;
		case O_SIZE:
			o->sizes = xreallocarray(o->sizes, o->nsizes + 1, sizeof *o->sizes);
			o->sizes[o->nsizes++] = optarg;
			break;
		case O_OUT: o->outdir = optarg; break;
		case O_CACHE: o->cachedir = optarg; break;
		case O_NOCACHE: o->no_cache = 1; break;
		case O_EMIT: o->emit = optarg; break;
		case ':':
			fprintf(stderr, "tuner: option '%s' needs a value\n", argv[optind - 1]);
			usage(stderr);
			exit(EXIT_USAGE);
		default:
			fprintf(stderr, "tuner: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind < argc ? "tuner: one CONFIG at a time\n" : "tuner: no CONFIG given\n");
		usage(stderr);
		exit(EXIT_USAGE);
	}
	o->config = argv[optind];
	if (o->arch && !nv_arch_supported(o->arch))
		fatal("--arch: '%s' is not an architecture NVRTC %s supports (newest: %s)", o->arch,
		      nv_version(), nv_newest_arch());
}

static void dry_run(const struct config *c, const struct space *s)
{
	size_t k;

	printf("%-9s  %-40s  %-16s  %-16s  %8s  %s\n", "id", "params", "block", "grid", "shared",
	       "status");
	for (k = 0; k < s->n; k++) {
		const struct variant *v = &s->v[k];
		char *p = space_params_str(c, v), bl[48], gr[48];

		snprintf(bl, sizeof bl, "%lldx%lldx%lld", (long long)v->block[0],
		         (long long)v->block[1], (long long)v->block[2]);
		snprintf(gr, sizeof gr, "%lldx%lldx%lld", (long long)v->grid[0],
		         (long long)v->grid[1], (long long)v->grid[2]);
		printf("%-9s  %-40s  %-16s  %-16s  %8lld  %s%s\n", v->id, p, v->drop ? "-" : bl,
		       v->drop ? "-" : gr, (long long)v->shared, v->drop ? "dropped: " : "kept",
		       v->drop ? v->drop : "");
		free(p);
	}
	printf("%zu variants: %zu kept, %zu dropped\n", s->n, s->nkept, s->n - s->nkept);
}

static char *read_source(const struct config *c, const char *path)
{
	char *t = file_read(path, NULL);

	if (!t)
		fatal("%s: cannot read '%s':", c->path, path);
	return t;
}

/* mark variants whose cubin and launch equal an earlier one's as its twins; with the bank
   mode ignored by the GPU, a variant differing only in bank_bytes collapses likewise */
static void find_twins(const struct space *s, struct result *r, int bank_ignored)
{
	size_t i, j;
	uint64_t *h = xcalloc(s->n, sizeof *h);

	for (i = 0; i < s->n; i++)
		if (r[i].co.ok)
			h[i] = hash_bytes(HASH_INIT, r[i].co.cubin, r[i].co.cubin_len);
	for (i = 0; i < s->n; i++) {
		const struct variant *a = &s->v[i];
		if (r[i].status != ST_UNTIMED)
			continue;
		for (j = 0; j < i; j++) {
			const struct variant *b = &s->v[j];
			int ba = a->bank_bytes, bb = b->bank_bytes;
			if (r[j].status != ST_UNTIMED || h[i] != h[j] ||
			    r[i].co.cubin_len != r[j].co.cubin_len ||
			    memcmp(r[i].co.cubin, r[j].co.cubin, r[i].co.cubin_len) ||
			    memcmp(a->block, b->block, sizeof a->block) ||
			    memcmp(a->grid, b->grid, sizeof a->grid) || a->shared != b->shared)
				continue;
			if (bank_ignored) {
				ba = ba == 8 ? 4 : ba;
				bb = bb == 8 ? 4 : bb;
			}
			if (ba != bb)
				continue;
			r[i].status = a->bank_bytes != b->bank_bytes ? ST_COLLAPSED : ST_TWIN;
			r[i].twin = (long)j;
			break;
		}
	}
	/* NVRTC prints no ptxas report for code it has already compiled in the same worker:
	   take the resources from a byte-identical cubin that has them */
	for (i = 0; i < s->n; i++) {
		if (!r[i].co.ok || r[i].co.regs >= 0)
			continue;
		for (j = 0; j < s->n; j++) {
			if (j == i || !r[j].co.ok || r[j].co.regs < 0 || h[i] != h[j] ||
			    r[i].co.cubin_len != r[j].co.cubin_len ||
			    memcmp(r[i].co.cubin, r[j].co.cubin, r[i].co.cubin_len))
				continue;
			r[i].co.regs = r[j].co.regs;
			r[i].co.spill_stores = r[j].co.spill_stores;
			r[i].co.spill_loads = r[j].co.spill_loads;
			r[i].co.stack = r[j].co.stack;
			r[i].co.smem_static = r[j].co.smem_static;
			break;
		}
	}
	free(h);
}

static void write_out(const char *dir, const char *file, const struct buf *b)
{
	char *p = xasprintf("%s/%s", dir, file);

	if (file_write_atomic(p, b->s, b->len) < 0)
		fatal("cannot write '%s':", p);
	free(p);
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct config *c;
	struct vars sizes = {0};
	struct limits lim;
	struct space s;
	struct runinfo ri = {0};
	struct result *r;
	struct job *jobs;
	struct compile_out *outs;
	int *hits, have_gpu;
	char why[512] = "", *tmpl, *refsrc, *cachedir = NULL, *dir;
	size_t i, njobs, nok = 0, *order;
	struct bench *bench = NULL;
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;
	double t0;

	parse_args(argc, argv, &o);
	c = cfg_load(o.config);
	for (i = 0; i < o.nsizes; i++)
		cfg_set_size(c, o.sizes[i]);
	cfg_size_vars(c, &sizes);
	gmtime_r(&now, &tm);
	strftime(ri.date, sizeof ri.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	ri.nvrtc = nv_version();

	/* the GPU decides the architecture and the limits; without one, --arch or the newest */
	have_gpu = gpu_open(0, &ri.gpu, why, sizeof why) == 0;
	static char gpuarch[16];
	if (have_gpu)
		snprintf(gpuarch, sizeof gpuarch, "sm_%d%d", ri.gpu.cc_major, ri.gpu.cc_minor);
	if (have_gpu && o.arch && strcmp(o.arch, gpuarch)) {
		snprintf(why, sizeof why, "--arch %s differs from the GPU's %s", o.arch, gpuarch);
		have_gpu = 0;
	}
	ri.arch = have_gpu ? gpuarch : o.arch ? o.arch : nv_newest_arch();
	ri.timed = have_gpu && !o.dry_run;
	ri.why_untimed = why;
	if (have_gpu) {
		lim.max_threads = ri.gpu.max_threads;
		lim.smem_default = ri.gpu.smem_block;
		lim.smem_optin = ri.gpu.smem_optin > ri.gpu.smem_block ? ri.gpu.smem_optin
		                                                        : ri.gpu.smem_block;
		gpu_slug(&ri.gpu, ri.slug, sizeof ri.slug);
	} else {
		space_arch_limits(ri.arch, &lim);
		snprintf(ri.slug, sizeof ri.slug, "untimed-%s", ri.arch);
	}

	space_expand(c, &sizes, &lim, &s);
	if (o.dry_run) {
		dry_run(c, &s);
		return 0;
	}
	if (s.nkept == 0) {
		const char *first = s.n ? s.v[0].drop : "empty space";
		fatal("%s: every variant was dropped (the first: %s); see --dry-run", c->path, first);
	}
	if (o.emit) {
		for (i = 0; i < s.n && strcmp(s.v[i].id, o.emit); i++)
			;
		if (i == s.n)
			fatal("--emit: no variant '%s' in %s; see --dry-run", o.emit, c->path);
		if (s.v[i].drop)
			fatal("--emit: variant '%s' was dropped: %s", o.emit, s.v[i].drop);
	}

	/* compile every kept variant, the reference and the copy kernel */
	tmpl = read_source(c, c->kernel.source);
	refsrc = read_source(c, c->reference.source);
	r = xcalloc(s.n, sizeof *r);
	jobs = xcalloc(s.nkept + 2, sizeof *jobs);
	outs = xcalloc(s.nkept + 2, sizeof *outs);
	hits = xcalloc(s.nkept + 2, sizeof *hits);
	size_t *jobof = xcalloc(s.n, sizeof *jobof);
	njobs = 0;
	for (i = 0; i < s.n; i++) {
		r[i].twin = -1;
		if (s.v[i].drop) {
			r[i].status = ST_DROPPED;
			continue;
		}
		jobof[i] = njobs;
		jobs[njobs++] = (struct job){source_variant(c, &s.v[i], tmpl), c->kernel.source,
		                             c->kernel.entry};
	}
	jobs[njobs++] = (struct job){refsrc, c->reference.source, c->reference.entry};
	jobs[njobs++] = (struct job){bench_copy_source(), "tuner_copy.cu", "tuner_copy"};
	if (!o.no_cache)
		cachedir = o.cachedir ? xstrdup(o.cachedir) : cache_default_dir();
	note(1, "tuner: %s: %zu variants (%zu dropped), compiling for %s with %d workers\n",
	     c->path, s.nkept, s.n - s.nkept, ri.arch, o.jobs);
	t0 = now_s();
	ri.compiled = pool_compile(jobs, njobs, ri.arch, c->options, c->noptions, cachedir, o.jobs,
	                           outs, hits);
	ri.compile_s = now_s() - t0;
	ri.cache_hits = njobs - ri.compiled;
	note(1, "tuner: compiled %zu, %zu from the cache, in %.2f s\n", ri.compiled, ri.cache_hits,
	     ri.compile_s);
	for (i = 0; i < s.n; i++) {
		struct result *x = &r[i];
		if (s.v[i].drop)
			continue;
		x->co = outs[jobof[i]];
		x->cache_hit = hits[jobof[i]];
		if (!x->co.ok) {
			x->status = ST_COMPILE_ERROR;
			x->reason = xstrdup(x->co.log && *x->co.log ? x->co.log : "no log");
			note(2, "%s: compile error:\n%s\n", s.v[i].id, x->co.log);
		} else if (x->co.smem_static + s.v[i].shared > lim.smem_optin) {
			x->status = ST_RESOURCES;
			x->reason = xasprintf("%d static + %lld dynamic bytes of shared memory exceed %lld",
			                      x->co.smem_static, (long long)s.v[i].shared,
			                      (long long)lim.smem_optin);
		} else {
			x->status = ST_UNTIMED;
			nok++;
		}
		free((char *)jobs[jobof[i]].src);
	}
	struct compile_out *ref = &outs[njobs - 2], *copy = &outs[njobs - 1];
	if (!ref->ok)
		fatal("%s: the reference kernel '%s' does not compile:\n%s", c->path,
		      c->reference.entry, ref->log);
	if (!copy->ok)
		die("the copy kernel does not compile:\n%s", copy->log);

	/* verify and time on the GPU */
	if (ri.timed) {
		bench = bench_open(c, &sizes, &ri.gpu, why, sizeof why);
		if (!bench)
			fatal("%s: %s", c->path, why);
		if (bench_reference(bench, ref, why, sizeof why) < 0)
			fatal("%s: the reference kernel failed: %s", c->path, why);
		int64_t cbytes = 0;
		for (i = 0; i < s.n; i++)
			if (!s.v[i].drop && s.v[i].bytes > cbytes)
				cbytes = s.v[i].bytes;
		ri.copy_gbs = bench_copy(bench, copy, cbytes, &ri.copy, why, sizeof why);
		if (ri.copy_gbs <= 0)
			fatal("%s: the copy kernel failed: %s", c->path, why);
		ri.bank_ignored = bench_bank_probe(bench, 8) == 4;
	}
	find_twins(&s, r, ri.bank_ignored);
	if (ri.timed) {
		nok = 0;
		for (i = 0; i < s.n; i++) {
			struct result *x = &r[i];
			if (x->status != ST_UNTIMED)
				continue;
			note(2, "tuner: running %s\n", s.v[i].id);
			bench_variant(bench, &s.v[i], &x->co, &x->run);
			switch (x->run.status) {
			case RUN_OK: x->status = ST_OK; nok++; break;
			case RUN_MISMATCH: x->status = ST_MISMATCH; break;
			case RUN_FAULT: x->status = ST_FAULT; break;
			case RUN_LAUNCH_ERROR: x->status = ST_LAUNCH_ERROR; break;
			}
			if (x->status != ST_OK)
				x->reason = xstrdup(x->run.reason);
			if (x->run.t.median_ms > 0) {
				x->gbs = (double)s.v[i].bytes / (x->run.t.median_ms * 1e-3) / 1e9;
				x->pct_copy = 100 * x->gbs / ri.copy_gbs;
			}
		}
		for (i = 0; i < s.n; i++) /* twins share the result they stand for */
			if ((r[i].status == ST_TWIN || r[i].status == ST_COLLAPSED) && r[i].twin >= 0) {
				r[i].run = r[r[i].twin].run;
				r[i].gbs = r[r[i].twin].gbs;
				r[i].pct_copy = r[r[i].twin].pct_copy;
			}
		bench_close(bench);
	}

	/* report and emit */
	order = report_rank(r, s.n);
	if (verbosity >= 1)
		report_table(stdout, c, &s, r, order, &ri);
	dir = xasprintf("%s/%s/%s", o.outdir, c->name, ri.slug);
	if (mkdirs(dir) < 0)
		fatal("cannot create '%s':", dir);
	struct buf b = {0};
	report_json(&b, c, &s, r, order, &ri);
	write_out(dir, "results.json", &b);
	b.len = 0;
	report_csv(&b, c, &s, r, order);
	write_out(dir, "results.csv", &b);
	buf_free(&b);
	if (ri.timed && r[order[0]].status == ST_OK) {
		size_t w = order[0];
		if (emit_variant(dir, "best", c, &s.v[w], &r[w], &ri, tmpl) < 0)
			fatal("cannot write '%s/best.cu':", dir);
		char *p = space_params_str(c, &s.v[w]);
		printf("best: %s (%s) %.1f GB/s, %.1f %% of copy -> %s/best.cu\n", s.v[w].id, p,
		       r[w].gbs, r[w].pct_copy, dir);
		free(p);
	}
	if (o.emit) {
		for (i = 0; strcmp(s.v[i].id, o.emit); i++)
			;
		if (r[i].status == ST_COMPILE_ERROR)
			fatal("--emit: variant '%s' does not compile", o.emit);
		if (emit_variant(dir, o.emit, c, &s.v[i], &r[i], &ri, tmpl) < 0)
			fatal("cannot write '%s/%s.cu':", dir, o.emit);
		note(1, "tuner: wrote %s/%s.cu and %s.h\n", dir, o.emit, o.emit);
	}
	note(1, "tuner: results in %s/results.json\n", dir);

	for (i = 0; i < s.n; i++) {
		nv_out_free(&r[i].co);
		free(r[i].reason);
	}
	nv_out_free(ref);
	nv_out_free(copy);
	free(outs);
	free(hits);
	free(jobs);
	free(jobof);
	free(order);
	free(r);
	free(tmpl);
	free(refsrc);
	free(cachedir);
	free(dir);
	free(o.sizes);
	space_free(&s);
	cfg_free(c);
	if (have_gpu)
		gpu_close();
	return nok ? 0 : EXIT_NOVARIANT;
}
