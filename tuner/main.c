/* tuner: find the fastest shared-memory layout of a CUDA kernel on the GPU in front of it. */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "config.h"
#include "counters.h"
#include "emit.h"
#include "gpu.h"
#include "nvrtc.h"
#include "journal.h"
#include "pool.h"
#include "report.h"
#include "runner.h"
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
	int fresh;
	int explain;              /* tuner explain: the bank model's prediction, nothing compiled */
	int counters;             /* --counters: read shared-memory counters of each variant */
	int no_race;              /* --no-race: every verified variant gets all its samples */
	int64_t sms;              /* --sms: SMS in expressions without a GPU (0: not given) */
	double timeout;
	char **sizes;
	size_t nsizes;
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: tuner [options] CONFIG\n"
	        "       tuner explain [options] CONFIG\n"
	        "Compile, verify and time every variant of the kernel CONFIG describes, and emit the\n"
	        "fastest as standalone CUDA source under OUT/<kernel>/<gpu>/.\n"
	        "explain: print the bank model's prediction for each variant's declared shared-memory\n"
	        "accesses (docs/bank-model.md); compiles nothing, needs no GPU.\n\n"
	        "  -j N            compile with N worker processes (default: number of cores)\n"
	        "  --dry-run       list the variants with their launch geometry; compile nothing\n"
	        "  --arch sm_XX    compile for this architecture (default: the GPU's, or without one\n"
	        "                  the newest NVRTC supports); timing needs the GPU's own\n"
	        "  --size NAME=N   override a problem size (repeatable)\n"
	        "  --sms N         the multiprocessor count expressions see as SMS when there is\n"
	        "                  no GPU (default 1; with a GPU, the GPU's)\n"
	        "  --out DIR       output directory (default: out)\n"
	        "  --cache DIR     compile cache (default: $TUNER_CACHE or ~/.cache/tuner)\n"
	        "  --no-cache      compile everything, store nothing\n"
	        "  --emit ID       also write variant ID as OUT/<kernel>/<gpu>/ID.cu and ID.h\n"
	        "  --timeout S     per-variant time limit on the GPU in seconds (default 10)\n"
	        "  --fresh         re-run every variant, ignoring results kept from an earlier run\n"
	        "  --no-race       time every variant with all its samples (by default one whose\n"
	        "                  first 5 have a median above 1.3x the best so far stops there)\n"
	        "  --counters      also read each variant's shared-memory wavefronts and bank\n"
	        "                  conflicts through CUPTI, beside the bank model's prediction\n"
	        "  -q, --quiet     print only errors and the winner\n"
	        "  -v, --verbose   print dropped variants and compile logs\n"
	        "  -h, --help      this text\n"
	        "  -V, --version   print the version\n\n"
	        "exit status: 0 success, 1 no variant compiled (or verified, on a GPU),\n"
	        "2 usage or config error\n");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_DRY = 256, O_ARCH, O_SIZE, O_OUT, O_CACHE, O_NOCACHE, O_EMIT, O_TIMEOUT, O_FRESH,
	       O_COUNTERS, O_NORACE, O_SMS };
	static const struct option lo[] = {
		{"dry-run", no_argument, 0, O_DRY},   {"arch", required_argument, 0, O_ARCH},
		{"size", required_argument, 0, O_SIZE}, {"out", required_argument, 0, O_OUT},
		{"cache", required_argument, 0, O_CACHE}, {"no-cache", no_argument, 0, O_NOCACHE},
		{"emit", required_argument, 0, O_EMIT}, {"quiet", no_argument, 0, 'q'},
		{"timeout", required_argument, 0, O_TIMEOUT}, {"fresh", no_argument, 0, O_FRESH},
		{"counters", no_argument, 0, O_COUNTERS}, {"no-race", no_argument, 0, O_NORACE},
		{"sms", required_argument, 0, O_SMS},
		{"verbose", no_argument, 0, 'v'},     {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},     {0, 0, 0, 0},
	};
	int ch;
	long n;
	char *end;

	o->outdir = "out";
	o->timeout = 10;
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
		case O_FRESH: o->fresh = 1; break;
		case O_COUNTERS: o->counters = 1; break;
		case O_NORACE: o->no_race = 1; break;
		case O_SMS:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 100000)
				fatal("--sms: '%s' is not a number from 1 to 100000", optarg);
			o->sms = n;
			break;
		case O_TIMEOUT:
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (errno || *end || !(o->timeout > 0 && o->timeout <= 86400))
				fatal("--timeout: '%s' is not a number of seconds from 0 to 86400", optarg);
			break;
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

/* the expression of access a that a bank_err's field names ("index", "loops[1].while", ...),
   or NULL */
static const struct expr *bank_field(const struct bank_access *a, const char *what)
{
	char rest[32] = "";
	size_t i;

	if (!strcmp(what, "index"))
		return a->index;
	if (!strcmp(what, "when"))
		return a->when;
	if (!strcmp(what, "if"))
		return a->cond;
	if (!strcmp(what, "elem"))
		return a->elem;
	if (!strcmp(what, "width"))
		return a->width;
	if (!strcmp(what, "base"))
		return a->base;
	if (sscanf(what, "let[%zu]", &i) == 1 && i < a->nlets)
		return a->lets[i].value;
	if (sscanf(what, "loops[%zu]%31s", &i, rest) >= 1 && i < a->nloops) {
		if (!*rest)
			return a->loops[i].count;
		if (!strcmp(rest, ".from"))
			return a->loops[i].from;
		if (!strcmp(rest, ".while"))
			return a->loops[i].cond;
		if (!strcmp(rest, ".next"))
			return a->loops[i].next;
	}
	return NULL;
}

static int uses(const struct expr *e, const char *name)
{
	return e && expr_uses(e, name);
}

/* 1 if an expression of the declared accesses uses name */
static int accesses_use(const struct config *c, const char *name)
{
	size_t k, i;

	for (k = 0; k < c->naccesses; k++) {
		const struct bank_access *a = &c->accesses[k];
		if (uses(a->cond, name) || uses(a->elem, name) || uses(a->width, name) ||
		    uses(a->base, name) || uses(a->index, name) || uses(a->when, name))
			return 1;
		for (i = 0; i < a->nloops; i++)
			if (uses(a->loops[i].count, name) || uses(a->loops[i].from, name) ||
			    uses(a->loops[i].cond, name) || uses(a->loops[i].next, name))
				return 1;
		for (i = 0; i < a->nlets; i++)
			if (uses(a->lets[i].value, name))
				return 1;
	}
	return 0;
}

/* the variants the bank model cannot tell apart: same block, same rules, same values of the
   parameters the accesses use (the sizes are the same for all) */
struct bank_memo {
	const struct config *c;
	const struct space *s;
	const struct result *r;
	const int *used;          /* per parameter */
	size_t *slot, cap;        /* indices + 1 of evaluated variants; 0 = empty */
};

static uint64_t memo_hash(const struct bank_memo *m, size_t i)
{
	const struct variant *v = &m->s->v[i];
	uint64_t h = hash_bytes(HASH_INIT, v->block, sizeof v->block);
	size_t p;

	h = hash_bytes(h, &m->r[i].bank_rules, sizeof m->r[i].bank_rules);
	for (p = 0; p < m->c->nparams; p++)
		if (m->used[p])
			h = hash_bytes(h, &v->vals[p], sizeof v->vals[p]);
	return h;
}

static int memo_same(const struct bank_memo *m, size_t i, size_t j)
{
	const struct variant *a = &m->s->v[i], *b = &m->s->v[j];
	size_t p;

	if (memcmp(a->block, b->block, sizeof a->block) || m->r[i].bank_rules != m->r[j].bank_rules)
		return 0;
	for (p = 0; p < m->c->nparams; p++)
		if (m->used[p] && a->vals[p] != b->vals[p])
			return 0;
	return 1;
}

/* the slot of variant i's class: holding an equal variant, or empty */
static size_t *memo_find(struct bank_memo *m, size_t i)
{
	size_t h = (size_t)memo_hash(m, i) & (m->cap - 1);

	while (m->slot[h] && !memo_same(m, i, m->slot[h] - 1))
		h = (h + 1) & (m->cap - 1);
	return &m->slot[h];
}

/* evaluate variant i's accesses into r[i].bank and r[i].bank8 (allocated); 0, or -1 with the
   config error in msg */
static int bank_one(const struct config *c, const struct space *s, struct result *r, size_t i,
                    char *msg, size_t msglen)
{
	const struct variant *v = &s->v[i];
	size_t k;

	for (k = 0; k < c->naccesses; k++) {
		const struct bank_access *a = &c->accesses[k];
		struct bank_err e;
		if (bank_eval(a, v->block, &v->vars, r[i].bank_rules, &r[i].bank[k], &e) == 0 &&
		    bank_eval(a, v->block, &v->vars, &bank_kepler8, &r[i].bank8[k], &e) == 0)
			continue;
		const struct expr *x = bank_field(a, e.what);
		struct loc l = c->access_loc[k];
		char *p = space_params_str(c, v);
		if (x)
			cfg_expr_loc(c, x, e.col >= 0 ? e.col : 0, &l);
		snprintf(msg, msglen, "%s:%d:%d: access '%s'%s%s%s for %s: %s", c->path, l.line, l.col,
		         a->name, *e.what ? ", " : "", e.what, *e.what ? "," : "", p, e.msg);
		free(p);
		return -1;
	}
	return 0;
}

/* child w of nw: evaluate reps w, w + nw, ... and write each as a status (0, or the length
   of the error that follows) and, when 0, its bank and bank8 arrays */
static noreturn void bank_child(const struct config *c, const struct space *s, struct result *r,
                                const size_t *rep, size_t nrep, size_t w, size_t nw, int fd)
{
	struct buf b = {0};
	char msg[1024];
	size_t k;

	for (k = w; k < nrep; k += nw) {
		uint32_t len = 0;
		if (bank_one(c, s, r, rep[k], msg, sizeof msg) < 0)
			len = (uint32_t)strlen(msg) + 1;
		buf_add(&b, &len, sizeof len);
		if (len)
			buf_add(&b, msg, len);
		else {
			buf_add(&b, r[rep[k]].bank, c->naccesses * sizeof *r[rep[k]].bank);
			buf_add(&b, r[rep[k]].bank8, c->naccesses * sizeof *r[rep[k]].bank8);
		}
	}
	_exit(write_all(fd, b.s, b.len) < 0 ? 1 : 0);
}

/* read child w's results (see bank_child); 0, or -1 if they are incomplete. *err (the lowest
   failing rep so far, (size_t)-1 for none) and msg are updated by an error */
static int bank_collect(const struct config *c, struct result *r, const size_t *rep,
                        size_t nrep, size_t w, size_t nw, int fd, size_t *err, char *msg,
                        size_t msglen)
{
	size_t k, arr = c->naccesses * sizeof(struct bank_stats);

	for (k = w; k < nrep; k += nw) {
		uint32_t len;
		char m[1024];
		if (read_all(fd, &len, sizeof len) < 0 || len > sizeof m)
			return -1;
		if (len) {
			if (read_all(fd, m, len) < 0)
				return -1;
			m[len - 1] = '\0';
			if (rep[k] < *err) {
				*err = rep[k];
				snprintf(msg, msglen, "%s", m);
			}
		} else if (read_all(fd, r[rep[k]].bank, arr) < 0 ||
		           read_all(fd, r[rep[k]].bank8, arr) < 0) {
			return -1;
		}
	}
	return 0;
}

/* the bank model's prediction for every kept variant: under the rules of compute capability
   cc in the variant's bank mode, and under Kepler's 8-byte mode. Variants the model cannot
   tell apart are evaluated once, spread over up to `workers` forked processes (it is CPU work
   that would otherwise delay the compile and the GPU). An evaluation error is a config error,
   reported (the first, in variant order) where the failing expression is. */
static void bank_predict(const struct config *c, const struct space *s, int cc, struct result *r,
                         int workers)
{
	struct bank_memo m = {c, s, r, NULL, NULL, 1};
	int *used;
	size_t i, w, nw, nrep = 0, *rep, *cls, err = (size_t)-1, *slot;
	pid_t *pid;
	int *fd;
	char msg[1024];

	if (!c->naccesses)
		return;
	used = xcalloc(c->nparams + 1, sizeof *used);
	for (i = 0; i < c->nparams; i++)
		used[i] = accesses_use(c, c->params[i].name);
	while (m.cap < 2 * s->n)
		m.cap *= 2;
	m.used = used;
	m.slot = xcalloc(m.cap, sizeof *m.slot);
	rep = xcalloc(s->n + 1, sizeof *rep);
	cls = xcalloc(s->n + 1, sizeof *cls);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop)
			continue;
		r[i].bank_rules = bank_rules_for(cc, s->v[i].bank_bytes);
		r[i].bank = xcalloc(c->naccesses, sizeof *r[i].bank);
		r[i].bank8 = xcalloc(c->naccesses, sizeof *r[i].bank8);
		slot = memo_find(&m, i);
		if (!*slot) {
			*slot = i + 1;
			rep[nrep++] = i;
		}
		cls[i] = *slot - 1;
	}
	nw = workers > 1 ? (size_t)workers : 1;
	if (nw > nrep / 4)
		nw = nrep / 4 ? nrep / 4 : 1;
	pid = xcalloc(nw, sizeof *pid);
	fd = xcalloc(nw, sizeof *fd);
	fflush(stdout);
	fflush(stderr);
	for (w = 0; nw > 1 && w < nw; w++) {
		int p[2];
		pid[w] = -1;
		if (pipe(p) < 0)
			continue;
		if ((pid[w] = fork()) == 0) {
			close(p[0]);
			bank_child(c, s, r, rep, nrep, w, nw, p[1]);
		}
		close(p[1]);
		fd[w] = p[0];
		if (pid[w] < 0)
			close(p[0]);
	}
	for (w = 0; w < nw; w++) {
		int ok = nw > 1 && pid[w] > 0 &&
		         bank_collect(c, r, rep, nrep, w, nw, fd[w], &err, msg, sizeof msg) == 0;
		if (nw > 1 && pid[w] > 0) {
			int st;
			close(fd[w]);
			while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
				;
			ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		}
		if (!ok) { /* no child (one worker, or fork failed), or it failed: here */
			size_t k;
			char e[1024];
			for (k = w; k < nrep; k += nw)
				if (bank_one(c, s, r, rep[k], e, sizeof e) < 0 && rep[k] < err) {
					err = rep[k];
					snprintf(msg, sizeof msg, "%s", e);
				}
		}
	}
	if (err != (size_t)-1)
		fatal("%s", msg);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop)
			continue;
		if (cls[i] != i) {
			memcpy(r[i].bank, r[cls[i]].bank, c->naccesses * sizeof *r[i].bank);
			memcpy(r[i].bank8, r[cls[i]].bank8, c->naccesses * sizeof *r[i].bank8);
		}
		r[i].bank_ratio = report_bank_ratio(r[i].bank, c->naccesses);
	}
	free(pid);
	free(fd);
	free(rep);
	free(cls);
	free(m.slot);
	free(used);
}

/* compute capability of an architecture name: "sm_90a" -> 90; 0 if not one */
static int arch_cc(const char *arch)
{
	return arch && !strncmp(arch, "sm_", 3) ? atoi(arch + 3) : 0;
}

/* tuner explain: each kept variant's accesses as the bank model predicts them */
static void explain(const struct config *c, const struct space *s, const struct result *r,
                    const char *arch)
{
	size_t i, k, w = 6;

	for (k = 0; k < c->naccesses; k++)
		if (strlen(c->accesses[k].name) > w)
			w = strlen(c->accesses[k].name);
	printf("%s: %zu variants kept of %zu; the bank model's prediction for %s "
	       "(docs/bank-model.md), not a measurement\n", c->path, s->nkept, s->n, arch);
	printf("per block: requests (warp instructions), wf/req (wavefronts per request: mean, "
	       "max), ideal (conflict-free wavefronts per request), degree (worst conflict)\n");
	for (i = 0; i < s->n; i++) {
		const struct variant *v = &s->v[i];
		char *p;
		if (v->drop)
			continue;
		p = space_params_str(c, v);
		printf("\n%s  %s  block %lldx%lldx%lld  bank %.2f (%s), %.2f (%s)\n", v->id, p,
		       (long long)v->block[0], (long long)v->block[1], (long long)v->block[2],
		       report_bank_ratio(r[i].bank, c->naccesses), r[i].bank_rules->name,
		       report_bank_ratio(r[i].bank8, c->naccesses), bank_kepler8.name);
		free(p);
		printf("  %*s  %-30s|  %s\n", (int)w + 17, "", r[i].bank_rules->name,
		       bank_kepler8.name);
		printf("  %-*s  %-5s  %8s  %7s  %4s  %5s  %6s  |  %7s  %4s  %5s  %6s\n", (int)w,
		       "access", "op", "requests", "wf/req", "max", "ideal", "degree", "wf/req", "max",
		       "ideal", "degree");
		for (k = 0; k < c->naccesses; k++) {
			const struct bank_stats *a = &r[i].bank[k], *b = &r[i].bank8[k];
			if (!a->present)
				continue;
			printf("  %-*s  %-5s  %8lld  %7.2f  %4d  %5.2f  %6d  |  %7.2f  %4d  %5.2f  %6d\n",
			       (int)w, c->accesses[k].name, c->accesses[k].store ? "store" : "load",
			       (long long)a->requests, bank_mean(a), a->max, bank_mean_ideal(a), a->degree,
			       bank_mean(b), b->max, bank_mean_ideal(b), b->degree);
		}
	}
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

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* what a GPU worker reports first */
struct devinfo {
	struct gpu_info gpu;
	int bank8;                /* bank size the device reports after a request for 8 bytes */
};

/* everything one tuning run holds */
struct tune {
	struct opts o;
	struct config *c;
	struct vars sizes;
	struct limits lim;
	struct space s;
	struct runinfo ri;
	struct result *r;
	char *tmpl, *refsrc, *dir;
	struct compile_out ref, copy;  /* copy: the helper kernels (copy, read, flush, fill, compare) */
	int64_t copy_bytes;
	double best_ms;           /* the fastest verified median so far */
	struct bench *bench;      /* in a GPU worker only */
	struct runner *runner;    /* the GPU worker, when there is a GPU */
	struct runner_ops ops;
	struct runner_limits rlim;
	uint64_t *keys;           /* journal keys, per variant */
	char *journal;
	size_t resumed;
	char why[512];
};

static double t_start; /* when main began */

/* a variant whose first samples' median is above RACE x the best median so far is not timed
   further (bench_set_cut) */
#define RACE 1.3

/* with -v: how long the run has taken so far, at the end of a phase */
static void phase(const char *what)
{
	note(2, "tuner: %.3f s: %s\n", now_s() - t_start, what);
}

/* find the GPU: a worker process opens it (the tuner itself never holds a CUDA context) and
   stays to run the variants; then choose the architecture, the limits and the output name */
static void pick_target(struct tune *t)
{
	static char gpuarch[16];
	struct runinfo *ri = &t->ri;
	struct devinfo info;
	int have = 0;

	memset(&info, 0, sizeof info);
	t->runner = runner_start(&t->ops, &t->rlim, &info, t->why, sizeof t->why);
	if (t->runner) {
		have = 1;
		ri->gpu = info.gpu;
		ri->bank_ignored = info.bank8 == 4;
		if (t->o.sms && t->o.sms != ri->gpu.sms)
			warn("--sms %lld ignored: the GPU has %d multiprocessors", (long long)t->o.sms,
			     ri->gpu.sms);
		vars_set(&t->sizes, CFG_SMS, ri->gpu.sms);
		snprintf(gpuarch, sizeof gpuarch, "sm_%d%d", ri->gpu.cc_major, ri->gpu.cc_minor);
		if (t->o.arch && strcmp(t->o.arch, gpuarch)) {
			snprintf(t->why, sizeof t->why, "--arch %s differs from the GPU's %s", t->o.arch,
			         gpuarch);
			runner_end(t->runner);
			t->runner = NULL;
			have = 0;
		}
	}
	ri->arch = have ? gpuarch : t->o.arch ? t->o.arch : nv_newest_arch();
	ri->timed = have;
	ri->why_untimed = t->why;
	if (have) {
		t->lim.max_threads = ri->gpu.max_threads;
		t->lim.smem_default = ri->gpu.smem_block;
		t->lim.smem_optin = ri->gpu.smem_optin > ri->gpu.smem_block ? ri->gpu.smem_optin
		                                                           : ri->gpu.smem_block;
		gpu_slug(&ri->gpu, ri->slug, sizeof ri->slug);
	} else {
		space_arch_limits(ri->arch, &t->lim);
		snprintf(ri->slug, sizeof ri->slug, "untimed-%s", ri->arch);
	}
}

/* compile every kept variant, the reference and the helper kernels through the pool */
static void compile_all(struct tune *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	size_t i, n = 0, nok = 0, first_bad = SIZE_MAX;
	struct job *jobs = xcalloc(s->nkept + 2, sizeof *jobs);
	struct compile_out *outs = xcalloc(s->nkept + 2, sizeof *outs);
	int *hits = xcalloc(s->nkept + 2, sizeof *hits);
	size_t *jobof = xcalloc(s->n, sizeof *jobof);
	char *cachedir = NULL;
	double t0;

	for (i = 0; i < s->n; i++) {
		t->r[i].twin = -1;
		if (s->v[i].drop) {
			t->r[i].status = ST_DROPPED;
			continue;
		}
		jobof[i] = n;
		jobs[n++] = (struct job){source_variant(c, &s->v[i], t->tmpl), c->kernel.source,
		                         c->kernel.entry};
	}
	jobs[n++] = (struct job){t->refsrc, c->reference.source, c->reference.entry};
	jobs[n++] = (struct job){bench_helpers_source(), "tuner_helpers.cu", "tuner_copy"};
	if (!t->o.no_cache)
		cachedir = t->o.cachedir ? xstrdup(t->o.cachedir) : cache_default_dir();
	note(1, "tuner: %s: %zu variants (%zu dropped), compiling for %s with %d workers\n",
	     c->path, s->nkept, s->n - s->nkept, t->ri.arch, t->o.jobs);
	t0 = now_s();
	t->ri.compiled = pool_compile(jobs, n, t->ri.arch, c->options, c->noptions, cachedir,
	                              t->o.jobs, outs, hits);
	t->ri.compile_s = now_s() - t0;
	t->ri.cache_hits = n - t->ri.compiled;
	note(1, "tuner: compiled %zu, %zu from the cache, in %.2f s\n", t->ri.compiled,
	     t->ri.cache_hits, t->ri.compile_s);
	for (i = 0; i < s->n; i++) {
		struct result *x = &t->r[i];
		if (s->v[i].drop)
			continue;
		x->co = outs[jobof[i]];
		x->cache_hit = hits[jobof[i]];
		free((char *)jobs[jobof[i]].src);
		if (!x->co.ok && stop && x->co.log && strstr(x->co.log, "process died")) {
			x->status = ST_NOTRUN;
			x->reason = xstrdup("interrupted while compiling");
		} else if (!x->co.ok) {
			x->status = ST_COMPILE_ERROR;
			x->reason = xstrdup(x->co.log && *x->co.log ? x->co.log : "no log");
			note(2, "%s: compile error:\n%s\n", s->v[i].id, x->co.log);
			if (first_bad == SIZE_MAX)
				first_bad = i;
		} else if (x->co.smem_static + s->v[i].shared > t->lim.smem_optin) {
			x->status = ST_RESOURCES;
			x->reason = xasprintf("%d static + %lld dynamic bytes of shared memory exceed %lld",
			                      x->co.smem_static, (long long)s->v[i].shared,
			                      (long long)t->lim.smem_optin);
		} else {
			x->status = ST_UNTIMED;
			nok++;
		}
	}
	t->ref = outs[n - 2];
	t->copy = outs[n - 1];
	free(outs); /* before any fatal(): what is left is reachable from t */
	free(hits);
	free(jobs);
	free(jobof);
	free(cachedir);
	if (!stop && !t->ref.ok)
		fatal("%s: the reference kernel '%s' (%s) does not compile:\n%s", c->path,
		      c->reference.entry, c->reference.source, t->ref.log);
	if (!stop && !t->copy.ok)
		die("the helper kernels do not compile:\n%s", t->copy.log);
	if (!stop && nok == 0 && first_bad != SIZE_MAX)
		fatal("%s: no variant of '%s' compiles; the first, %s, says:\n%s", c->path,
		      c->kernel.source, s->v[first_bad].id, t->r[first_bad].reason);
}

/* ---- the GPU worker's side ---- */

struct donectx {
	struct tune *t;
	struct run_result *res;
	enum outcome *outc;
	struct hello *hello;
};


struct hello {
	double copy_gbs, read_gbs;
	struct stats copy, read;
	int counters;             /* --counters: 1 + the set of counters_smem read, or -1 */
	int passes;               /* the profiler's passes per kernel */
	char counters_why[240];   /* why there are none */
};

/* a compile result as bytes: the lowered name, then the cubin */
static void put_co(struct buf *b, const struct compile_out *co)
{
	const char *name = co->lowered ? co->lowered : "";
	uint64_t n = (strlen(name) + 8) / 8 * 8; /* NUL-padded: the cubin stays 8-byte aligned */
	char pad[8] = {0};

	buf_add(b, &n, sizeof n);
	buf_puts(b, name);
	buf_add(b, pad, n - strlen(name));
	n = co->cubin_len;
	buf_add(b, &n, sizeof n);
	buf_add(b, co->cubin, co->cubin_len);
}

/* read put_co's bytes at *p (advanced) into co, pointing into the blob; 0 or -1 */
static int get_co(const char **p, const char *end, struct compile_out *co, char *name, size_t cap)
{
	uint64_t n;

	memset(co, 0, sizeof *co);
	if ((size_t)(end - *p) < sizeof n)
		return -1;
	memcpy(&n, *p, sizeof n);
	*p += sizeof n;
	if (n >= cap || (uint64_t)(end - *p) < n)
		return -1;
	memcpy(name, *p, n);
	name[n] = '\0';
	*p += n;
	if ((size_t)(end - *p) < sizeof n)
		return -1;
	memcpy(&n, *p, sizeof n);
	*p += sizeof n;
	if ((uint64_t)(end - *p) < n)
		return -1;
	co->ok = 1;
	co->lowered = name;
	co->cubin = (void *)*p;
	co->cubin_len = n;
	*p += n;
	return 0;
}

static int gpu_open_fn(void *arg, void *out, char *why, size_t whylen)
{
	struct tune *t = arg;
	struct devinfo *info = out;

	if (gpu_open(0, &info->gpu, why, whylen) < 0)
		return -1;
	vars_set(&t->sizes, CFG_SMS, info->gpu.sms); /* as the parent will, for bench_open */
	info->bank8 = bench_bank_probe(NULL, 8);
	t->ri.gpu = info->gpu; /* the worker's copy, for bench_open */
	return 0;
}

/* allocate and fill the buffers while the parent compiles */
static void gpu_prepare(void *arg)
{
	struct tune *t = arg;

	t->bench = bench_open(t->c, &t->sizes, &t->ri.gpu, t->why, sizeof t->why);
}

static int probe_before(void *arg, char *why, size_t whylen)
{
	return counters_start(arg, why, whylen);
}

static int probe_after(void *arg, double *vals, char *why, size_t whylen)
{
	struct counters *k = arg;
	int n = counters_stop(k, vals, why, whylen);

	if (n == 0) {
		snprintf(why, whylen, "the profiler counted no kernel");
		return -1;
	}
	return n < 0 ? -1 : counters_count(k);
}

/* in the worker, after the rooflines (they are never profiled): the range profiler with the
   first set of counters this GPU offers, around an extra launch of each variant */
static void counters_setup(struct tune *t, struct hello *h)
{
	static struct counters *k;
	struct bench_probe p;
	int set;

	_Static_assert(COUNTERS_SMEM <= BENCH_PROBE_MAX, "a probe holds the counters");
	h->counters = -1;
	for (set = 0; set < COUNTERS_SETS && !k; set++) {
		char why[sizeof h->counters_why];
		k = counters_open(gpu_context(), 0, counters_smem[set], (size_t)counters_set_len(set),
		                  why, sizeof why);
		if (k)
			h->counters = set + 1;
		else if (set == 0) /* the first reason is the telling one */
			snprintf(h->counters_why, sizeof h->counters_why, "%s", why);
	}
	if (!k)
		return;
	h->passes = counters_passes(k);
	p = (struct bench_probe){probe_before, probe_after, k};
	bench_set_probe(t->bench, &p);
}

static int gpu_setup(void *arg, const void *blob, size_t len, void *out, char *why,
                     size_t whylen)
{
	static char refname[1024], helpname[1024];
	struct tune *t = arg;
	struct hello *h = out;
	const char *p = blob, *end = p + len;
	int64_t bytes;

	if (!t->bench) {
		snprintf(why, whylen, "%s", t->why);
		return -1;
	}
	if (get_co(&p, end, &t->ref, refname, sizeof refname) < 0 ||
	    get_co(&p, end, &t->copy, helpname, sizeof helpname) < 0 ||
	    (size_t)(end - p) != sizeof bytes)
		die("bad setup message");
	memcpy(&bytes, p, sizeof bytes);
	if (bench_helpers(t->bench, &t->copy, why, whylen) < 0 ||
	    bench_reference(t->bench, &t->ref, why, whylen) < 0)
		return -1;
	h->copy_gbs = bench_copy(t->bench, &t->copy, bytes, &h->copy, why, whylen);
	if (h->copy_gbs <= 0)
		return -1;
	h->read_gbs = bench_read(t->bench, bytes, &h->read, why, whylen);
	if (h->read_gbs <= 0)
		return -1;
	if (t->o.counters)
		counters_setup(t, h);
	return 0;
}

static void gpu_run(void *arg, size_t i, const void *blob, size_t len, struct run_result *res)
{
	static char name[1024];
	struct tune *t = arg;
	const char *p = blob, *end = p + len;
	struct variant v;
	struct compile_out co;

	(void)i;
	double cut;

	if (len < sizeof v + sizeof cut)
		die("bad job message");
	memcpy(&v, p, sizeof v);
	p += sizeof v;
	memcpy(&cut, p, sizeof cut);
	p += sizeof cut;
	bench_set_cut(t->bench, cut);
	if (get_co(&p, end, &co, name, sizeof name) < 0)
		die("bad job message");
	bench_variant(t->bench, &v, &co, res);
}

static int gpu_lost(void *arg, const struct run_result *res)
{
	(void)arg;
	return res->status == RUN_FAULT;
}

_Static_assert(sizeof(struct variant) % 8 == 0, "a job blob's cubin must stay 8-byte aligned");

/* the parent's half of the messages */
static void job_blob(void *arg, size_t i, struct buf *b)
{
	struct donectx *d = arg;
	struct variant v = d->t->s.v[i];

	double cut = d->t->o.no_race || d->t->best_ms <= 0 ? 0 : RACE * d->t->best_ms;

	v.vals = NULL; /* pointers into the parent's heap mean nothing to the worker */
	v.drop = NULL;
	buf_add(b, &v, sizeof v);
	buf_add(b, &cut, sizeof cut);
	put_co(b, &d->t->r[i].co);
}

/* ---- the parent's side ---- */

static void settle(struct tune *t, size_t i, enum outcome oc, const struct run_result *run)
{
	struct result *x = &t->r[i];

	x->run = *run;
	free(x->reason);
	x->reason = NULL;
	switch (oc) {
	case OUT_NONE:
		x->status = ST_NOTRUN;
		x->reason = xstrdup("interrupted");
		return;
	case OUT_TIMEOUT: x->status = ST_TIMEOUT; break;
	case OUT_DIED: x->status = ST_FAULT; break;
	case OUT_DONE:
		switch (run->status) {
		case RUN_OK: x->status = ST_OK; break;
		case RUN_MISMATCH: x->status = ST_MISMATCH; break;
		case RUN_FAULT: x->status = ST_FAULT; break;
		case RUN_LAUNCH_ERROR: x->status = ST_LAUNCH_ERROR; break;
		}
		break;
	}
	if (x->status != ST_OK)
		x->reason = xstrdup(run->reason);
	if (x->status == ST_OK && run->t.median_ms > 0 && t->ri.copy_gbs > 0) {
		x->gbs = (double)t->s.v[i].bytes / (run->t.median_ms * 1e-3) / 1e9;
		x->pct_copy = 100 * x->gbs / t->ri.copy_gbs;
		x->pct_read = t->ri.read_gbs > 0 ? 100 * x->gbs / t->ri.read_gbs : 0;
	}
}


static void on_done(void *arg, size_t i)
{
	struct donectx *d = arg;
	struct tune *t = d->t;
	struct jrec rec;

	if (t->ri.copy_gbs <= 0) { /* the first worker's hello has arrived by now */
		t->ri.copy_gbs = d->hello->copy_gbs;
		t->ri.copy = d->hello->copy;
		t->ri.read_gbs = d->hello->read_gbs;
		t->ri.read = d->hello->read;
		phase("first result (the worker's setup and rooflines are done)");
		t->ri.counters = d->hello->counters;
		t->ri.counter_passes = d->hello->passes;
		snprintf(t->ri.counters_why, sizeof t->ri.counters_why, "%s", d->hello->counters_why);
	}
	settle(t, i, d->outc[i], &d->res[i]);
	if (t->r[i].status == ST_OK && (t->best_ms <= 0 || t->r[i].run.t.median_ms < t->best_ms))
		t->best_ms = t->r[i].run.t.median_ms;
	note(2, "tuner: %s %s %s\n", t->s.v[i].id, report_status(t->r[i].status),
	     t->r[i].reason ? t->r[i].reason : "");
	memset(&rec, 0, sizeof rec);
	rec.key = t->keys[i];
	rec.status = (int)t->r[i].status;
	rec.run = t->r[i].run;
	rec.gbs = t->r[i].gbs;
	rec.pct_copy = t->r[i].pct_copy;
	rec.pct_read = t->r[i].pct_read;
	if (t->o.counters && t->r[i].status == ST_OK && rec.run.nprobe < 6)
		return; /* counted next time, when the counters can be read */
	if (journal_append(t->journal, &rec) < 0)
		warn("cannot append to '%s':", t->journal);
}

/* verify and time every variant that needs it, in worker processes; results already in the
   journal (same key) are taken from there unless --fresh */
static void run_gpu(struct tune *t)
{
	struct space *s = &t->s;
	struct run_result *res = xcalloc(s->n, sizeof *res);
	enum outcome *outc = xcalloc(s->n, sizeof *outc);
	size_t *todo = xcalloc(s->n, sizeof *todo), ntodo = 0, i, k, nrec = 0;
	struct jrec *recs = NULL;
	struct hello hello;
	struct donectx d = {t, res, outc, &hello};
	struct buf setup = {0};
	uint64_t ctx;
	char *method;

	memset(&hello, 0, sizeof hello);
	for (i = 0; i < s->n; i++)
		if (!s->v[i].drop && s->v[i].bytes > t->copy_bytes)
			t->copy_bytes = s->v[i].bytes;
	t->journal = xasprintf("%s/journal", t->dir);
	if (!t->o.fresh)
		nrec = journal_load(t->journal, &recs);
	method = xasprintf("%s%s", bench_method(t->c), t->o.counters ? ", counters" : "");
	ctx = journal_context(t->c, &t->sizes, t->ri.slug, method, &t->ref);
	free(method);
	t->keys = xcalloc(s->n, sizeof *t->keys);
	for (i = 0; i < s->n; i++) {
		struct result *x = &t->r[i];
		if (x->status != ST_UNTIMED)
			continue;
		t->keys[i] = journal_key(ctx, &s->v[i], &x->co);
		for (k = nrec; k-- > 0;) /* the newest record of a key wins */
			if (recs[k].key == t->keys[i])
				break;
		if (k == (size_t)-1) {
			todo[ntodo++] = i;
			continue;
		}
		x->status = (enum status)recs[k].status;
		x->run = recs[k].run;
		x->gbs = recs[k].gbs;
		x->pct_copy = recs[k].pct_copy;
		x->pct_read = recs[k].pct_read;
		x->reason = x->status == ST_OK ? NULL : xstrdup(recs[k].run.reason);
		x->resumed = 1;
		t->resumed++;
		if (x->status == ST_OK && t->ri.copy_gbs <= 0 && x->pct_copy > 0)
			t->ri.copy_gbs = 100 * x->gbs / x->pct_copy; /* until a worker measures it */
	}
	free(recs);
	if (t->resumed)
		note(1, "tuner: %zu results kept from an earlier run (--fresh re-runs them)\n",
		     t->resumed);
	if (ntodo > 0) {
		t->ri.copy_gbs = 0;
		note(1, "tuner: verifying and timing %zu variants on %s\n", ntodo, t->ri.gpu.name);
		put_co(&setup, &t->ref);
		put_co(&setup, &t->copy);
		buf_add(&setup, &t->copy_bytes, sizeof t->copy_bytes);
		if (runner_run(t->runner, setup.s, setup.len, job_blob, todo, ntodo, res, outc, &hello,
		               on_done, &d, &stop, t->why, sizeof t->why) < 0)
			fatal("%s: %s", t->c->path, t->why);
		buf_free(&setup);
		for (k = 0; k < ntodo; k++)
			if (outc[todo[k]] == OUT_NONE)
				settle(t, todo[k], OUT_NONE, &res[todo[k]]);
	}
	for (i = 0; i < s->n; i++) /* twins share the result they stand for */
		if ((t->r[i].status == ST_TWIN || t->r[i].status == ST_COLLAPSED) && t->r[i].twin >= 0) {
			t->r[i].run = t->r[t->r[i].twin].run;
			t->r[i].gbs = t->r[t->r[i].twin].gbs;
			t->r[i].pct_copy = t->r[t->r[i].twin].pct_copy;
			t->r[i].pct_read = t->r[t->r[i].twin].pct_read;
		}
	free(res);
	free(outc);
	free(todo);
}

/* write the table, results.json/.csv and the winner; the exit status */
static int finish(struct tune *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct result *r = t->r;
	struct buf b = {0};
	size_t *order = report_rank(r, s->n), i, nok = 0;

	for (i = 0; i < s->n; i++)
		nok += r[i].status == ST_OK || (!t->ri.timed && r[i].status == ST_UNTIMED);
	if (verbosity >= 1)
		report_table(stdout, c, s, r, order, &t->ri);
	if (mkdirs(t->dir) < 0)
		fatal("cannot create '%s':", t->dir);
	report_json(&b, c, s, r, order, &t->ri);
	write_out(t->dir, "results.json", &b);
	b.len = 0;
	report_csv(&b, c, s, r, order);
	write_out(t->dir, "results.csv", &b);
	buf_free(&b);
	if (t->ri.timed && !stop && r[order[0]].status == ST_OK) {
		size_t w = order[0];
		char *p = space_params_str(c, &s->v[w]);
		if (emit_variant(t->dir, "best", c, &s->v[w], &r[w], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/best.cu':", t->dir);
		printf("best: %s (%s) %.1f GB/s, %.1f %% of copy -> %s/best.cu\n", s->v[w].id, p,
		       r[w].gbs, r[w].pct_copy, t->dir);
		free(p);
	}
	if (t->o.emit && !stop) {
		for (i = 0; strcmp(s->v[i].id, t->o.emit); i++)
			;
		if (r[i].status == ST_COMPILE_ERROR)
			fatal("--emit: variant '%s' does not compile", t->o.emit);
		if (emit_variant(t->dir, t->o.emit, c, &s->v[i], &r[i], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/%s.cu':", t->dir, t->o.emit);
		note(1, "tuner: wrote %s/%s.cu and %s.h\n", t->dir, t->o.emit, t->o.emit);
	}
	note(1, "tuner: results in %s/results.json\n", t->dir);
	free(order);
	if (stop) {
		note(0, "tuner: interrupted; the results so far are in %s\n", t->dir);
		return EXIT_INTERRUPT;
	}
	return nok ? 0 : EXIT_NOVARIANT;
}

int main(int argc, char **argv)
{
	static struct tune t;
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;
	size_t i;
	int rc;

	t_start = now_s();
	if (argc > 1 && !strcmp(argv[1], "explain")) {
		t.o.explain = 1;
		argc--;
		argv++;
	}
	parse_args(argc, argv, &t.o);
	t.c = cfg_load(t.o.config);
	for (i = 0; i < t.o.nsizes; i++)
		cfg_set_size(t.c, t.o.sizes[i]);
	cfg_size_vars(t.c, t.o.sms ? t.o.sms : 1, &t.sizes);
	if (t.o.explain) {
		const char *arch = t.o.arch ? t.o.arch : nv_newest_arch();
		if (!t.c->naccesses)
			fatal("%s: no 'accesses' declared: nothing to explain (configs/README.md)",
			      t.c->path);
		space_arch_limits(arch, &t.lim);
		space_expand(t.c, &t.sizes, &t.lim, &t.s);
		t.r = xcalloc(t.s.n, sizeof *t.r);
		bank_predict(t.c, &t.s, arch_cc(arch), t.r, t.o.jobs);
		explain(t.c, &t.s, t.r, arch);
		for (i = 0; i < t.s.n; i++) {
			free(t.r[i].bank);
			free(t.r[i].bank8);
		}
		free(t.r);
		free(t.o.sizes);
		space_free(&t.s);
		cfg_free(t.c);
		return 0;
	}
	gmtime_r(&now, &tm);
	strftime(t.ri.date, sizeof t.ri.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	t.ri.nvrtc = nv_version();
	t.ops = (struct runner_ops){gpu_open_fn, gpu_prepare, gpu_setup, gpu_run, gpu_lost, &t,
	                            sizeof(struct devinfo), sizeof(struct hello)};
	t.rlim = (struct runner_limits){300, t.o.timeout};
	phase("config loaded");
	pick_target(&t);
	phase(t.runner ? "GPU opened (by the worker)" : "no GPU");

	space_expand(t.c, &t.sizes, &t.lim, &t.s);
	if (t.o.dry_run) {
		runner_end(t.runner);
		dry_run(t.c, &t.s);
		return 0;
	}
	if (t.s.nkept == 0)
		fatal("%s: every variant was dropped (the first: %s); see --dry-run", t.c->path,
		      t.s.n ? t.s.v[0].drop : "empty space");
	if (t.o.emit) {
		for (i = 0; i < t.s.n && strcmp(t.s.v[i].id, t.o.emit); i++)
			;
		if (i == t.s.n)
			fatal("--emit: no variant '%s' in %s; see --dry-run", t.o.emit, t.c->path);
		if (t.s.v[i].drop)
			fatal("--emit: variant '%s' was dropped: %s", t.o.emit, t.s.v[i].drop);
	}
	t.tmpl = read_source(t.c, t.c->kernel.source);
	t.refsrc = read_source(t.c, t.c->reference.source);
	t.r = xcalloc(t.s.n, sizeof *t.r);
	bank_predict(t.c, &t.s, t.ri.timed ? t.ri.gpu.cc_major * 10 + t.ri.gpu.cc_minor
	                                   : arch_cc(t.ri.arch), t.r, t.o.jobs);
	phase("bank model evaluated");
	t.dir = xasprintf("%s/%s/%s", t.o.outdir, t.c->name, t.ri.slug);

	catch_signals();
	compile_all(&t);
	phase("compiled");
	find_twins(&t.s, t.r, t.ri.bank_ignored);
	if (t.ri.timed && !stop) {
		if (mkdirs(t.dir) < 0)
			fatal("cannot create '%s':", t.dir);
		run_gpu(&t);
		phase("variants run");
	}
	runner_end(t.runner);
	rc = finish(&t);
	phase("reported");

	for (i = 0; i < t.s.n; i++) {
		nv_out_free(&t.r[i].co);
		free(t.r[i].reason);
		free(t.r[i].bank);
		free(t.r[i].bank8);
	}
	nv_out_free(&t.ref);
	nv_out_free(&t.copy);
	free(t.r);
	free(t.keys);
	free(t.journal);
	free(t.tmpl);
	free(t.refsrc);
	free(t.dir);
	free(t.o.sizes);
	space_free(&t.s);
	cfg_free(t.c);
	return rc;
}
