/* Tests for results: results.json written by results_write and read back by results_load, every
   field the readers use as it was written; and what results_load refuses. */
#include "test.h"
#include "results.h"
#include "winner.h"
#include "config.h"
#include "report.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NV (ST_SKIPPED + 1) /* a variant of each status */

/* a synthetic run of a config of two parameters and two sizes: variant i has status i */
struct fixture {
	struct config c;
	struct param p[2];
	struct size sz[2];
	int64_t block_vals[NV], pad_vals[3], vals[NV][2];
	struct space s;
	struct variant v[NV];
	struct result r[NV];
	struct run_result run[NV];
	struct runinfo ri;
};

static void fixture(struct fixture *f)
{
	size_t i;

	memset(f, 0, sizeof *f);
	f->p[0].name = "BLOCK";
	f->p[1].name = "PAD";
	for (i = 0; i < NV; i++)
		f->block_vals[i] = 32 * (int64_t)(i + 1);
	for (i = 0; i < 3; i++)
		f->pad_vals[i] = (int64_t)i;
	f->p[0].vals = f->block_vals;
	f->p[0].nvals = NV;
	f->p[1].vals = f->pad_vals;
	f->p[1].nvals = 3;
	f->sz[0] = (struct size){.name = "n", .val = 1 << 24};
	f->sz[1] = (struct size){.name = "m", .val = 7};
	f->c.name = "k";
	f->c.path = "configs/k.yaml";
	f->c.kernel.source = "templates/k.cu";
	f->c.params = f->p;
	f->c.nparams = 2;
	f->c.sizes = f->sz;
	f->c.nsizes = 2;
	f->c.rtol = 1e-5;
	f->c.atol = 1e-6;
	f->c.tie = 0.005;
	f->s.v = f->v;
	f->s.n = NV;
	for (i = 0; i < NV; i++) {
		struct variant *v = &f->v[i];
		struct result *x = &f->r[i];
		snprintf(v->id, sizeof v->id, "v%08zx", 0xa0 + i);
		f->vals[i][0] = f->block_vals[i];
		f->vals[i][1] = f->pad_vals[i % 3];
		v->vals = f->vals[i];
		v->block[0] = f->block_vals[i];
		v->block[1] = v->block[2] = v->grid[1] = v->grid[2] = 1;
		v->grid[0] = 1000 + (int64_t)i;
		v->bytes = 1 << 26;
		x->status = (enum status)i;
		x->twin = -1;
		x->co.regs = -1;
		if (x->status != ST_COMPILE_ERROR && x->status != ST_DROPPED &&
		    x->status != ST_SKIPPED) {
			x->co.ok = 1;
			x->co.regs = 24 + (int)i;
			x->co.spill_stores = (int)i;
			x->co.spill_loads = 2 * (int)i;
			x->co.stack = 8;
			x->co.smem_static = 512 * (int)i;
			x->cache_hit = i % 2;
		}
		f->run[i].device = -1;
		if (x->status != ST_UNTIMED && x->status != ST_NOTRUN)
			x->reason = xasprintf("why %zu: \"quoted\"\n\tand more", i);
	}
	f->s.nkept = NV - 1;
	f->v[ST_DROPPED].drop = "BLOCK * PAD > 64";
	/* the verified one */
	f->run[ST_OK] = (struct run_result){.max_abs_err = 1.5e-7, .max_rel_err = 3e-7,
	                                    .device = 1, .resident = 6};
	f->run[ST_OK].t = (struct stats){20, 0.25, 0.2, 0.5, 0.3, 0.04, 1, 1, 3.5};
	f->r[ST_OK].run = &f->run[ST_OK];
	f->r[ST_OK].gbs = 2684.35;
	f->r[ST_OK].pct_copy = 91.5;
	f->r[ST_OK].pct_read = 88.25;
	f->r[ST_OK].tie = 1;
	free(f->r[ST_OK].reason);
	f->r[ST_OK].reason = NULL;
	/* a mismatch whose error was not finite (null in the file) */
	f->run[ST_MISMATCH] = (struct run_result){.max_abs_err = NAN, .max_rel_err = 0.5,
	                                          .device = 0};
	f->r[ST_MISMATCH].run = &f->run[ST_MISMATCH];
	f->r[ST_COMPILE_ERROR].co.log = "k.cu(3): error: identifier \"x\" is undefined\n";
	f->r[ST_TWIN].twin = ST_OK;
	f->r[ST_TWIN].resumed = 1;
	f->r[ST_COLLAPSED].twin = ST_OK;
	f->ri = (struct runinfo){.arch = "sm_90", .nvrtc = "13.0", .timed = 1,
	                         .date = "2026-01-01T00:00:00Z", .copy_gbs = 2933.7,
	                         .read_gbs = 3046.1, .bank_ignored = 1, .sms = 132,
	                         .compile_s = 12.5, .first_timed_s = 0.75, .ntimed = 3,
	                         .nskipped = 1, .strategy = "random", .budget = 12, .seed = 7,
	                         .shard_k = 2, .shard_n = 3, .sources_copied = 1,
	                         .config_hash = 0x0123456789abcdefULL,
	                         .template_hash = 0xfedcba9876543210ULL};
	snprintf(f->ri.gpu.name, sizeof f->ri.gpu.name, "Test GPU \"8\" \\ 80GB");
	f->ri.l2_flush = 1;
	snprintf(f->ri.l2_why, sizeof f->ri.l2_why, "auto: the buffers pass the L2");
	f->ri.gpu.cc_major = 9;
	f->ri.gpu.cc_minor = 0;
	f->ri.gpu.sms = 132;
	f->ri.gpu.driver_version = 13000;
	f->ri.lim = (struct limits){1024, 49152, 232448};
	f->ri.phases[0] = (struct runphase){"load", PHASE_SERIAL, 0, 0.25, 0};
	f->ri.phases[1] = (struct runphase){"stream", PHASE_SERIAL, 0.25, 2.5, 0};
	f->ri.phases[2] = (struct runphase){"compiling", PHASE_SPAN, 0.25, 2, 0};
	f->ri.phases[3] = (struct runphase){"extra-size verification", PHASE_TOTAL, 0, 0.125, 0};
	f->ri.nphases = 4;
	f->ri.run_s = 2.75;
}

static void fixture_free(struct fixture *f)
{
	size_t i;

	for (i = 0; i < NV; i++)
		free(f->r[i].reason);
}

/* write f's results.json into dir and read it back */
static struct results *round_trip(const struct fixture *f, const char *dir, int complete)
{
	struct buf b = {0};
	char *path = xasprintf("%s/results.json", dir);
	size_t *order = winner_rank(f->r, NV);
	struct results_error e;
	struct results *r;

	results_write(&b, NULL, &f->c, &f->s, f->r, order, &f->ri);
	CHECK_EQ(file_write_atomic(path, b.s, b.len), 0);
	r = results_load(path, complete, &e);
	if (!r)
		fprintf(stderr, "  %s:%d:%d: %s\n", path, e.line, e.column, e.text);
	buf_free(&b);
	free(order);
	free(path);
	return r;
}

/* the variant called id in r, or NULL */
static const struct results_variant *find(const struct results *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].id, id))
			return &r->v[i];
	return NULL;
}

static int same_num(double a, double b)
{
	return isnan(a) ? isnan(b) : fabs(a - b) <= 1e-5 * fabs(a);
}

/* every field of the variants as f wrote them */
static void check_variants(const struct fixture *f, const struct results *r)
{
	size_t i;

	/* the skipped one is only counted; the dropped one too unless it is listed */
	CHECK_EQ(r->n, NV - 1 - !f->ri.list_dropped);
	CHECK(find(r, f->v[ST_SKIPPED].id) == NULL);
	CHECK_EQ(r->ndropped, 1);
	CHECK_EQ(r->dropped_listed, f->ri.list_dropped);
	for (i = 0; i < NV - 1; i++) {
		const struct variant *v = &f->v[i];
		const struct result *x = &f->r[i];
		const struct results_variant *y = find(r, v->id);
		const struct run_result *run = result_run(x);
		int tried = x->status != ST_DROPPED;

		if (x->status == ST_DROPPED && !f->ri.list_dropped) {
			CHECK(y == NULL);
			continue;
		}
		CHECK(y != NULL);
		if (!y)
			continue;
		CHECK_EQ(y->status, x->status);
		CHECK_STR(result_status(y->status), result_status(x->status));
		CHECK(y->unknown == NULL);
		CHECK_EQ(y->nparams, 2);
		CHECK(results_find(y->params, y->nparams, "BLOCK") &&
		      results_find(y->params, y->nparams, "BLOCK")->val == v->vals[0]);
		CHECK(results_find(y->params, y->nparams, "PAD") &&
		      results_find(y->params, y->nparams, "PAD")->val == v->vals[1]);
		if (x->status == ST_DROPPED)
			CHECK_STR(y->reason, v->drop);
		else if (x->reason)
			CHECK_STR(y->reason, x->reason);
		else
			CHECK(y->reason == NULL);
		if (x->twin >= 0)
			CHECK_STR(y->twin_of, f->v[x->twin].id);
		else
			CHECK(y->twin_of == NULL);
		CHECK_EQ(y->resumed, x->resumed);
		CHECK_EQ(y->tie, x->tie);
		CHECK_EQ(y->compiled, tried && x->co.ok);
		if (y->compiled) {
			CHECK_EQ(y->regs, x->co.regs);
			CHECK_EQ(y->spill_stores, x->co.spill_stores);
			CHECK_EQ(y->spill_loads, x->co.spill_loads);
			CHECK_EQ(y->stack, x->co.stack);
			CHECK_EQ(y->smem_static, x->co.smem_static);
			CHECK_EQ(y->cache_hit, x->cache_hit);
		}
		if (x->status == ST_COMPILE_ERROR)
			CHECK_STR(y->log, x->co.log);
		else
			CHECK(y->log == NULL);
		CHECK_EQ(y->checked, x->status == ST_OK || x->status == ST_MISMATCH ||
		                     x->status == ST_TWIN || x->status == ST_COLLAPSED);
		if (y->checked) {
			CHECK(same_num(y->max_abs_err, run->max_abs_err));
			CHECK(same_num(y->max_rel_err, run->max_rel_err));
		}
		CHECK_EQ(y->device, x->run && !x->resumed ? x->run->device : -1);
		CHECK_EQ(y->timed, x->status == ST_OK);
		if (!y->timed)
			continue;
		CHECK_EQ(y->samples, run->t.n);
		CHECK(same_num(y->median_ms, run->t.median_ms));
		CHECK(same_num(y->min_ms, run->t.min_ms));
		CHECK(same_num(y->max_ms, run->t.max_ms));
		CHECK(same_num(y->mean_ms, run->t.mean_ms));
		CHECK(same_num(y->spread, run->t.spread));
		CHECK(same_num(y->gbs, x->gbs));
		CHECK(same_num(y->pct_copy, x->pct_copy));
		CHECK(same_num(y->pct_read, x->pct_read));
		CHECK_EQ(y->resident, run->resident);
	}
	/* ranked: the winner first */
	CHECK(!strcmp(r->v[0].id, f->v[ST_OK].id));
	CHECK(isnan(find(r, f->v[ST_MISMATCH].id)->max_abs_err)); /* null: not finite */
}

TEST(results_round_trip)
{
	char tmpl[] = "/tmp/tuner-results.XXXXXX", *dir = mkdtemp(tmpl), *cmd;
	struct fixture *f = xcalloc(1, sizeof *f);
	struct results *r;
	int complete;

	CHECK(dir != NULL);
	if (!dir)
		return;
	fixture(f);
	for (complete = 0; complete < 2; complete++) {
		f->ri.list_dropped = complete; /* --list-dropped, or not */
		r = round_trip(f, dir, complete);
		CHECK(r != NULL);
		if (!r)
			break;
		CHECK_STR(r->kernel, "k");
		CHECK_STR(r->config, "configs/k.yaml");
		CHECK_EQ(r->timed, 1);
		CHECK(r->why_untimed == NULL);
		CHECK_STR(r->gpu, f->ri.gpu.name);
		CHECK(r->l2 && r->l2_flush == 1 && r->l2_policy && r->l2_why);
		CHECK_STR(r->l2_why, f->ri.l2_why);
		CHECK_EQ(r->cc_major, 9);
		CHECK_EQ(r->cc_minor, 0);
		CHECK_EQ(r->sms, 132);
		CHECK_EQ(r->driver, 13000);
		CHECK(same_num(r->copy_gbs, f->ri.copy_gbs) && same_num(r->read_gbs, f->ri.read_gbs));
		CHECK_EQ(r->bank_ignored, 1);
		CHECK_STR(r->arch, "sm_90");
		CHECK_STR(r->nvrtc, "13.0");
		CHECK_STR(r->date, "2026-01-01T00:00:00Z");
		CHECK_EQ(r->copies, 1);
		CHECK_STR(r->cfg.copy, RESULTS_CONFIG_COPY);
		CHECK_STR(r->cfg.fnv1a64, "0123456789abcdef");
		CHECK(r->cfg.path == NULL);
		CHECK_STR(r->tmpl.copy, RESULTS_TEMPLATE_COPY);
		CHECK_STR(r->tmpl.fnv1a64, "fedcba9876543210");
		CHECK_STR(r->tmpl.path, "templates/k.cu");
		CHECK_EQ(r->nsizes, 2);
		CHECK(results_find(r->sizes, r->nsizes, "n") &&
		      results_find(r->sizes, r->nsizes, "n")->val == 1 << 24);
		CHECK(results_find(r->sizes, r->nsizes, "m") &&
		      results_find(r->sizes, r->nsizes, "m")->val == 7);
		CHECK(results_find(r->sizes, r->nsizes, "k") == NULL);
		CHECK(results_same_sizes(r, r));
		CHECK_EQ(r->limits, 1);
		CHECK_EQ(r->max_threads, 1024);
		CHECK_EQ(r->smem_block, 49152);
		CHECK_EQ(r->smem_optin, 232448);
		CHECK_EQ(r->lim_sms, 132);
		CHECK_EQ(r->shard_k, 2);
		CHECK_EQ(r->shard_n, 3);
		CHECK_STR(r->strategy, "random");
		CHECK_EQ(r->budget, 12);
		CHECK_EQ(r->seed, 7);
		CHECK_EQ(r->ntimed, 3);
		CHECK(same_num(r->wall_s, 12.5) && same_num(r->first_timed_s, 0.75));
		CHECK(same_num(r->run_s, 2.75));
		CHECK_EQ(r->nphases, 4);
		if (r->nphases == 4) {
			CHECK_STR(r->phases[1].name, "stream");
			CHECK_STR(r->phases[1].kind, "serial");
			CHECK(same_num(r->phases[1].start_s, 0.25) && same_num(r->phases[1].s, 2.5));
			CHECK_STR(r->phases[2].kind, "span");
			CHECK_STR(r->phases[3].name, "extra-size verification");
			CHECK_STR(r->phases[3].kind, "total");
			CHECK(r->phases[3].start_s == 0 && same_num(r->phases[3].s, 0.125));
		}
		CHECK(r->winner && !strcmp(r->winner, f->v[ST_OK].id));
		check_variants(f, r);
		results_free(r);
	}

	/* compile-only, unsharded, without copies: what is not written reads as absent */
	f->ri.timed = 0;
	f->ri.why_untimed = "no GPU: libcuda.so.1 not found";
	f->ri.sources_copied = 0;
	f->ri.shard_n = f->ri.shard_k = 0;
	f->ri.strategy = NULL;
	f->ri.first_timed_s = 0;
	f->sz[0].val = 5;
	r = round_trip(f, dir, 1);
	CHECK(r != NULL);
	if (r) {
		struct results *t = round_trip(f, dir, 1);
		CHECK_EQ(r->timed, 0);
		CHECK(r->winner == NULL); /* nothing is called best untimed */
		CHECK_STR(r->why_untimed, "no GPU: libcuda.so.1 not found");
		CHECK(r->gpu == NULL && r->cc_major == 0);
		CHECK_EQ(r->copies, 0);
		CHECK(r->cfg.copy == NULL && r->tmpl.path == NULL);
		CHECK(r->shard_k == 0 && r->shard_n == 0);
		CHECK_STR(r->strategy, "exhaustive");
		CHECK(r->first_timed_s == 0);
		CHECK(results_find(r->sizes, r->nsizes, "n")->val == 5);
		CHECK(t && results_same_sizes(r, t));
		if (t) {
			t->sizes[0].val++;
			CHECK(!results_same_sizes(r, t));
		}
		results_free(t);
	}
	results_free(r);
	fixture_free(f);
	free(f);
	cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(cmd);
}

/* results_load of text (NULL: path names no file) in dir; the results or NULL, the error in e */
static struct results *load_text(const char *dir, const char *text, int complete,
                                 struct results_error *e)
{
	char *path = xasprintf("%s/results.json", dir);
	struct results *r;

	unlink(path);
	if (text)
		CHECK_EQ(file_write_atomic(path, text, strlen(text)), 0);
	r = results_load(path, complete, e);
	unlink(path);
	free(path);
	return r;
}

/* results_parse reads a text as results_load reads the file that holds it, errors too */
TEST(results_parse_as_load)
{
	const char *good = "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"G\", \"sizes\": "
	                   "{\"n\": 4096}, \"variants\": [{\"id\": \"v1\", \"status\": \"ok\"}]}";
	const char *bad[] = {"{\"kernel\": \"k\", \"timed\": tr", "{\"sizes\": {\"n\": -1}}",
	                     "{\"kernel\": \"k\", \"kernel\": \"k\"}"};
	char tmpl[] = "/tmp/tuner-results.XXXXXX", *dir = mkdtemp(tmpl);
	struct results_error e, f;
	struct results *a, *b;
	size_t i;

	CHECK(dir != NULL);
	if (!dir)
		return;
	a = load_text(dir, good, 0, &e);
	b = results_parse(good, strlen(good), 0, &f);
	CHECK(a && b);
	if (a && b) {
		CHECK_STR(a->kernel, b->kernel);
		CHECK_STR(a->gpu, b->gpu);
		CHECK(a->n == 1 && b->n == 1 && !strcmp(a->v[0].id, b->v[0].id));
		CHECK(a->nsizes == 1 && b->nsizes == 1 && b->sizes[0].val == 4096);
		CHECK(results_same_sizes(a, b));
	}
	results_free(a);
	results_free(b);
	for (i = 0; i < LEN(bad); i++) {
		CHECK(load_text(dir, bad[i], 0, &e) == NULL);
		CHECK(results_parse(bad[i], strlen(bad[i]), 0, &f) == NULL);
		CHECK(e.line == f.line && e.column == f.column);
		CHECK(!strcmp(e.text, f.text));
	}
	rmdir(dir);
}

TEST(results_load_refuses)
{
	char tmpl[] = "/tmp/tuner-results.XXXXXX", *dir = mkdtemp(tmpl), *p, *cmd;
	const char *minimal = "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"G\", \"variants\": "
	                      "[{\"id\": \"v1\", \"status\": \"ok\"}, "
	                      "{\"id\": \"v2\", \"status\": \"newer\"}]}";
	struct results_error e;
	struct results *r;

	CHECK(dir != NULL);
	if (!dir)
		return;
	/* not JSON: where */
	CHECK(load_text(dir, "{\"kernel\": \"k\", \"timed\": tr", 1, &e) == NULL);
	CHECK(e.line == 1 && e.column == 27 && strstr(e.text, "invalid token") != NULL);
	CHECK(load_text(dir, "{\"kernel\": \"k\", \"kernel\": \"k\"}", 0, &e) == NULL);
	CHECK(e.line == 1 && strstr(e.text, "duplicate object key") != NULL);
	CHECK(load_text(dir, NULL, 0, &e) == NULL);
	CHECK(e.line == 0 && strstr(e.text, "cannot open: No such file") != NULL);
	/* a size below 0; a reason that quotes the file through buf_safe */
	CHECK(load_text(dir, "{\"sizes\": {\"n\": -1}}", 0, &e) == NULL);
	CHECK_STR(e.text, "sizes: 'n' is -1: a size is 0 or more");
	CHECK(load_text(dir, "{\"sizes\": {\"n\\u001b[2J\": \"x\"}}", 0, &e) == NULL);
	CHECK_STR(e.text, "sizes: 'n\\x1b[2J' is not an integer");
	/* more than RESULTS_MAX bytes: refused before it is parsed */
	p = xasprintf("%s/results.json", dir);
	{
		int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		CHECK(fd >= 0 && ftruncate(fd, (off_t)RESULTS_MAX + 1) == 0);
		close(fd);
	}
	CHECK(results_load(p, 0, &e) == NULL);
	CHECK(e.line == 0 && strstr(e.text, "more than the 64 MiB results may hold") != NULL);
	unlink(p);
	free(p);
	/* what it holds */
	CHECK(load_text(dir, "[]", 0, &e) == NULL);
	CHECK(e.line == 0);
	CHECK_STR(e.text, "not a results.json: the top is not an object");
	CHECK(load_text(dir, "{\"kernel\": 3}", 0, &e) == NULL);
	CHECK_STR(e.text, "'kernel' is not a string");
	CHECK(load_text(dir, "{\"variants\": [{\"id\": \"v1\", \"status\": \"ok\", \"gbs\": \"1\"}]}",
	                0, &e) == NULL);
	CHECK_STR(e.text, "variants[0]: 'gbs' is not a number");
	CHECK(load_text(dir, "{\"variants\": [{\"id\": \"v1\"}]}", 0, &e) == NULL);
	CHECK_STR(e.text, "variants[0]: no 'status'");
	/* an id that would leave a comment, a label or a name in generated code */
	CHECK(load_text(dir, "{\"variants\": [{\"id\": \"v1*/ int x; /*\", \"status\": \"ok\"}]}",
	                0, &e) == NULL);
	CHECK_STR(e.text, "variants[0]: 'id' is not a variant id (v, hex digits, and -N)");
	CHECK(load_text(dir, "{\"variants\": [{\"id\": \"v1\", \"status\": \"twin\", "
	                "\"twin_of\": \"v2\\n#include\"}]}", 0, &e) == NULL);
	CHECK_STR(e.text, "variants[0]: 'twin_of' is not a variant id (v, hex digits, and -N)");
	CHECK(load_text(dir, "{\"search\": {\"phases\": [3]}}", 0, &e) == NULL);
	CHECK_STR(e.text, "search.phases[0] is not an object");
	CHECK(load_text(dir, "{\"search\": {\"phases\": [{\"name\": \"load\", \"kind\": "
	                "\"serial\"}]}}", 0, &e) == NULL);
	CHECK_STR(e.text, "search.phases[0]: no 's'");
	CHECK(load_text(dir, "{\"search\": {\"phases\": [{\"name\": \"load\", \"kind\": "
	                "\"serial\", \"s\": -1}]}}", 0, &e) == NULL);
	CHECK_STR(e.text, "search.phases[0]: 's' is not a number of seconds");
	CHECK(load_text(dir, "{\"search\": {\"phases\": [{\"name\": \"load\", \"kind\": "
	                "\"parallel\", \"s\": 1}]}}", 0, &e) == NULL);
	CHECK_STR(e.text, "search.phases[0]: kind 'parallel' is not serial, span or total");
	CHECK(load_text(dir, "{\"sizes\": {\"n\": 1.5}}", 0, &e) == NULL);
	CHECK_STR(e.text, "sizes: 'n' is not an integer");
	CHECK(load_text(dir, "{\"gpu\": \"G\", \"compute_capability\": \"9\"}", 0, &e) == NULL);
	CHECK_STR(e.text, "compute_capability '9' is not MAJOR.MINOR");
	/* hostile numbers: refused, not wrapped when narrowed or multiplied */
	CHECK(load_text(dir, "{\"gpu\": \"G\", \"compute_capability\": \"2147483647.9\"}", 0,
	                &e) == NULL);
	CHECK_STR(e.text, "compute_capability '2147483647.9' is not MAJOR.MINOR");
	CHECK(load_text(dir, "{\"limits\": {\"max_threads\": 9223372036854775807}}", 0, &e) == NULL);
	CHECK_STR(e.text, "limits: 'max_threads' is out of range: 9223372036854775807");
	CHECK(load_text(dir, "{\"variants\": [{\"id\": \"v1\", \"status\": \"ok\", "
	                "\"registers\": -5}]}", 0, &e) == NULL);
	CHECK_STR(e.text, "variants[0]: 'registers' is out of range: -5");
	CHECK(load_text(dir, "{\"shard\": [1]}", 0, &e) == NULL);
	CHECK_STR(e.text, "'shard' is not [K, N]");
	/* a minimal file: enough where a missing key reads as absent, not for complete results */
	r = load_text(dir, minimal, 0, &e);
	CHECK(r != NULL);
	if (r) {
		CHECK(r->config == NULL && r->nsizes == 0 && r->n == 2);
		CHECK(r->v[0].status == ST_OK && !r->v[0].timed && r->v[0].median_ms == 0);
		CHECK(r->v[1].status == ST_NOTRUN && r->v[1].unknown &&
		      !strcmp(r->v[1].unknown, "newer"));
	}
	results_free(r);
	CHECK(load_text(dir, minimal, 1, &e) == NULL);
	CHECK_STR(e.text, "no 'config'");
	/* only a regular file is read */
	p = xasprintf("%s/results.json", dir);
	CHECK_EQ(mkdir(p, 0755), 0);
	CHECK(results_load(p, 0, &e) == NULL);
	CHECK_STR(e.text, "a directory, not a file");
	CHECK_EQ(rmdir(p), 0);
	CHECK_EQ(mkfifo(p, 0644), 0); /* no writer: reading it would wait for one */
	CHECK(results_load(p, 0, &e) == NULL);
	CHECK_STR(e.text, "not a regular file");
	free(p);
	cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(cmd);
}
