/* resultsread: results.json read back (struct results) for merge, bundle and re-tuning, from
   its file or from its text in memory: the only file that reads JSON. */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec.h"
#include "util.h"

/* what results_load returns: the results, and the names of parameters and sizes they point to */
struct loaded {
	struct results r;
	char **names;
	size_t nnames;
};

/* whether a key must be there: never, in complete results, or always */
enum need { OPTIONAL, COMPLETE, ALWAYS };

struct rd {
	struct loaded *l;
	struct results_error *why;
	int complete;
	int bad;                  /* why holds the first error: nothing more is read */
};

static void bad(struct rd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bad(struct rd *d, const char *fmt, ...)
{
	char msg[sizeof d->why->text];
	va_list ap;

	if (d->bad)
		return;
	d->bad = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(d->why->text, sizeof d->why->text, "%s", util_show(msg)); /* it quotes the file */
}

static const char *type_name(json_type t)
{
	static const char *const name[] = {"an object", "a list", "a string", "an integer",
	                                   "a number", "true or false", "true or false", "null"};

	return (size_t)t < LEN(name) ? name[t] : "?";
}

/* member key of object o as type t (JSON_REAL: a number or null, JSON_TRUE: true or false);
   NULL when it is absent and not needed, or after an error. where names o in the message
   ("variants[3]"; "": the top). */
static json_t *get(struct rd *d, const char *where, json_t *o, const char *key, json_type t,
                   enum need need)
{
	json_t *v;
	int ok;

	if (d->bad)
		return NULL;
	if (!(v = json_object_get(o, key))) {
		if (need == ALWAYS || (need == COMPLETE && d->complete))
			bad(d, "%s%sno '%s'", where, *where ? ": " : "", key);
		return NULL;
	}
	ok = t == JSON_REAL ? json_is_number(v) || json_is_null(v)
	     : t == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == t;
	if (!ok) {
		bad(d, "%s%s'%s' is not %s", where, *where ? ": " : "", key, type_name(t));
		return NULL;
	}
	return v;
}

/* the string key of o (malloc'd), NULL when absent */
static char *str(struct rd *d, const char *where, json_t *o, const char *key, enum need need)
{
	json_t *v = get(d, where, o, key, JSON_STRING, need);

	return v ? xstrdup(json_string_value(v)) : NULL;
}

/* the number key of o: NaN for null, 0 when absent */
static double num(struct rd *d, const char *where, json_t *o, const char *key)
{
	json_t *v = get(d, where, o, key, JSON_REAL, OPTIONAL);

	return !v ? 0 : json_is_null(v) ? NAN : json_number_value(v);
}

/* the integer key of o, absent when it is not there */
static int64_t integer(struct rd *d, const char *where, json_t *o, const char *key,
                       int64_t absent)
{
	json_t *v = get(d, where, o, key, JSON_INTEGER, OPTIONAL);

	return v ? (int64_t)json_integer_value(v) : absent;
}

/* integer() for a count or an index kept as an int: between -1 and 2^30, else refused (a
   hostile number must not wrap when it is narrowed or multiplied) */
static int small(struct rd *d, const char *where, json_t *o, const char *key, int absent)
{
	int64_t v = integer(d, where, o, key, absent);

	if (v < -1 || v > (int64_t)1 << 30) {
		bad(d, "%s%s'%s' is out of range: %lld", where, *where ? ": " : "", key, (long long)v);
		return absent;
	}
	return (int)v;
}

static int flag(struct rd *d, const char *where, json_t *o, const char *key, enum need need)
{
	return json_is_true(get(d, where, o, key, JSON_TRUE, need));
}

/* name as the results keep it: prev (a name already kept, or NULL) if equal, else a copy */
static const char *keep_name(struct loaded *l, const char *prev, const char *name)
{
	if (prev && !strcmp(prev, name))
		return prev;
	l->names = xreallocarray(l->names, l->nnames + 1, sizeof *l->names);
	return l->names[l->nnames++] = xstrdup(name);
}

/* the members of object o, integers all, into *vals and *n; prev (np of them) are the names
   of the entry before, which the members' names most likely repeat */
static void read_vals(struct rd *d, const char *where, json_t *o, struct results_val **vals,
                      size_t *n, const struct results_val *prev, size_t np)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	*n = 0;
	*vals = NULL;
	if (!o || d->bad)
		return;
	*vals = xcalloc(json_object_size(o) + 1, sizeof **vals);
	json_object_foreach(o, key, v) {
		if (!json_is_integer(v)) {
			bad(d, "%s: '%s' is not an integer", where, key);
			return;
		}
		(*vals)[i].name = keep_name(d->l, i < np ? prev[i].name : NULL, key);
		(*vals)[i++].val = (int64_t)json_integer_value(v);
		*n = i;
	}
}

/* the status a word names, or -1 */
static int status_of(const char *word)
{
	int k;

	for (k = 0; k <= ST_SKIPPED; k++)
		if (!strcmp(result_status((enum status)k), word))
			return k;
	return -1;
}

/* o's key, an array of three integers, into x; 1 if it is given */
static int triple(struct rd *d, const char *where, json_t *o, const char *key, int64_t x[3])
{
	json_t *a = get(d, where, o, key, JSON_ARRAY, OPTIONAL);
	size_t i;

	if (!a)
		return 0;
	if (json_array_size(a) != 3) {
		bad(d, "%s: '%s' is not an array of 3 integers", where, key);
		return 0;
	}
	for (i = 0; i < 3; i++) {
		if (!json_is_integer(json_array_get(a, i))) {
			bad(d, "%s: '%s' is not an array of 3 integers", where, key);
			return 0;
		}
		x[i] = (int64_t)json_integer_value(json_array_get(a, i));
	}
	return 1;
}

/* variant i of the list, o; prev the one before (NULL: none) */
static void read_variant(struct rd *d, struct results_variant *x, size_t i, json_t *o,
                         const struct results_variant *prev)
{
	char where[48], pw[64];
	json_t *st;
	int k = -1;

	snprintf(where, sizeof where, "variants[%zu]", i);
	x->device = -1;
	if (!json_is_object(o)) {
		bad(d, "%s is not an object", where);
		return;
	}
	x->id = str(d, where, o, "id", ALWAYS);
	if (x->id && !space_id_valid(x->id))
		bad(d, "%s: 'id' is not a variant id (v, hex digits, and -N)", where);
	if ((st = get(d, where, o, "status", JSON_STRING, ALWAYS)) &&
	    (k = status_of(json_string_value(st))) < 0)
		x->unknown = xstrdup(json_string_value(st));
	x->status = st && k >= 0 ? (enum status)k : ST_NOTRUN;
	snprintf(pw, sizeof pw, "%s: params", where);
	read_vals(d, pw, get(d, where, o, "params", JSON_OBJECT, COMPLETE), &x->params,
	          &x->nparams, prev ? prev->params : NULL, prev ? prev->nparams : 0);
	x->twin_of = str(d, where, o, "twin_of", OPTIONAL);
	if (x->twin_of && !space_id_valid(x->twin_of))
		bad(d, "%s: 'twin_of' is not a variant id (v, hex digits, and -N)", where);
	x->timed = get(d, where, o, "median_ms", JSON_REAL, x->status == ST_OK ? COMPLETE
	                                                                         : OPTIONAL) != NULL;
	x->median_ms = num(d, where, o, "median_ms");
	x->gbs = num(d, where, o, "gbs");
	x->pct_copy = num(d, where, o, "pct_copy");
	x->pct_read = num(d, where, o, "pct_read");
	x->launch_us = num(d, where, o, "launch_us");
	x->min_ms = num(d, where, o, "min_ms");
	x->max_ms = num(d, where, o, "max_ms");
	x->mean_ms = num(d, where, o, "mean_ms");
	x->spread = num(d, where, o, "spread");
	x->samples = small(d, where, o, "samples", 0);
	x->resident = integer(d, where, o, "resident_blocks", 0);
	x->reason = str(d, where, o, "reason", OPTIONAL);
	x->log = str(d, where, o, "log", OPTIONAL);
	x->resumed = flag(d, where, o, "resumed", OPTIONAL);
	x->tie = flag(d, where, o, "tie", OPTIONAL);
	x->cache_hit = flag(d, where, o, "cache_hit", OPTIONAL);
	x->compiled = get(d, where, o, "registers", JSON_INTEGER, OPTIONAL) != NULL;
	x->regs = small(d, where, o, "registers", -1);
	x->spill_stores = small(d, where, o, "spill_stores", 0);
	x->spill_loads = small(d, where, o, "spill_loads", 0);
	x->stack = small(d, where, o, "stack", 0);
	x->smem_static = small(d, where, o, "shared_static", 0);
	x->checked = get(d, where, o, "max_abs_err", JSON_REAL, OPTIONAL) != NULL;
	x->max_abs_err = num(d, where, o, "max_abs_err");
	x->max_rel_err = num(d, where, o, "max_rel_err");
	x->device = small(d, where, o, "device", -1);
	x->geometry = triple(d, where, o, "block", x->block) & triple(d, where, o, "grid", x->grid) &
	              (get(d, where, o, "shared_dynamic", JSON_INTEGER, OPTIONAL) != NULL) &
	              (get(d, where, o, "bytes", JSON_INTEGER, OPTIONAL) != NULL);
	x->shared = integer(d, where, o, "shared_dynamic", 0);
	x->bytes = integer(d, where, o, "bytes", 0);
}

/* sources.<what>: the copy of the config or the template */
static void read_copy(struct rd *d, json_t *sources, const char *what, struct results_copy *c)
{
	char where[64];
	json_t *o;

	snprintf(where, sizeof where, "sources.%s", what);
	if (!(o = get(d, "sources", sources, what, JSON_OBJECT, COMPLETE)))
		return;
	c->copy = str(d, where, o, "copy", COMPLETE);
	c->fnv1a64 = str(d, where, o, "fnv1a64", COMPLETE);
}

/* search.phases (a list, NULL: absent) into r->phases */
static void read_phases(struct rd *d, json_t *list, struct results *r)
{
	size_t i, k;

	if (!list)
		return;
	r->phases = xcalloc(json_array_size(list) + 1, sizeof *r->phases);
	for (i = 0; i < json_array_size(list) && !d->bad; i++) {
		struct results_phase *p = &r->phases[r->nphases];
		json_t *o = json_array_get(list, i);
		char where[64];
		snprintf(where, sizeof where, "search.phases[%zu]", i);
		if (!json_is_object(o)) {
			bad(d, "%s is not an object", where);
			return;
		}
		r->nphases++;
		p->name = str(d, where, o, "name", ALWAYS);
		p->kind = str(d, where, o, "kind", ALWAYS);
		p->start_s = num(d, where, o, "start_s");
		p->s = num(d, where, o, "s");
		for (k = 0; p->kind && k < PHASE_KINDS; k++)
			if (!strcmp(p->kind, results_phase_kinds[k]))
				break;
		if (p->kind && k == PHASE_KINDS)
			bad(d, "%s: kind '%s' is not serial, span or total", where, p->kind);
		if (!get(d, where, o, "s", JSON_REAL, ALWAYS) || !(p->s >= 0))
			bad(d, "%s: 's' is not a number of seconds", where);
	}
}

/* the run's facts beside the variants: the GPU, the sources, the limits, the search */
static void read_run(struct rd *d, json_t *doc, struct results *r)
{
	json_t *v, *src, *o;
	const char *cc;
	char extra;

	r->why_untimed = str(d, "", doc, "why_untimed", OPTIONAL);
	r->gpu = str(d, "", doc, "gpu", r->timed ? COMPLETE : OPTIONAL);
	if ((v = get(d, "", doc, "compute_capability", JSON_STRING, r->timed ? COMPLETE
	                                                                       : OPTIONAL))) {
		cc = json_string_value(v);
		if (strlen(cc) > 5 || sscanf(cc, "%d.%d%c", &r->cc_major, &r->cc_minor, &extra) != 2 ||
		    r->cc_major < 1 || r->cc_major > 99 || r->cc_minor < 0 || r->cc_minor > 9)
			bad(d, "compute_capability '%s' is not MAJOR.MINOR", cc);
	}
	r->sms = small(d, "", doc, "sms", 0);
	r->driver = small(d, "", doc, "driver", 0);
	r->copy_gbs = num(d, "", doc, "copy_gbs");
	r->read_gbs = num(d, "", doc, "read_gbs");
	r->bank_ignored = flag(d, "", doc, "bank_mode_ignored", OPTIONAL);
	if ((o = get(d, "", doc, "l2", JSON_OBJECT, OPTIONAL))) {
		r->l2 = 1;
		r->l2_policy = str(d, "l2", o, "policy", ALWAYS);
		r->l2_flush = flag(d, "l2", o, "flush", ALWAYS);
		r->l2_why = str(d, "l2", o, "why", OPTIONAL);
	}
	r->arch = str(d, "", doc, "arch", OPTIONAL);
	r->nvrtc = str(d, "", doc, "nvrtc", OPTIONAL);
	r->date = str(d, "", doc, "date", OPTIONAL);
	if ((src = get(d, "", doc, "sources", JSON_OBJECT, OPTIONAL))) {
		r->copies = 1;
		read_copy(d, src, "config", &r->cfg);
		read_copy(d, src, "template", &r->tmpl);
		r->tmpl.path = str(d, "sources.template", json_object_get(src, "template"), "path",
		                   COMPLETE);
	}
	if ((o = get(d, "", doc, "limits", JSON_OBJECT, OPTIONAL))) {
		r->limits = 1;
		r->max_threads = small(d, "limits", o, "max_threads", 0);
		r->smem_block = integer(d, "limits", o, "smem_block", 0);
		r->smem_optin = integer(d, "limits", o, "smem_optin", 0);
		r->lim_sms = integer(d, "limits", o, "sms", 0);
	}
	if ((v = get(d, "", doc, "shard", JSON_ARRAY, OPTIONAL))) {
		if (json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
		    !json_is_integer(json_array_get(v, 1)))
			bad(d, "'shard' is not [K, N]");
		r->shard_k = (int)json_integer_value(json_array_get(v, 0));
		r->shard_n = (int)json_integer_value(json_array_get(v, 1));
	}
	r->midpoint = get(d, "", doc, "midpoint", JSON_OBJECT, OPTIONAL) != NULL;
	if ((o = get(d, "", doc, "search", JSON_OBJECT, OPTIONAL))) {
		r->strategy = str(d, "search", o, "strategy", OPTIONAL);
		r->budget = integer(d, "search", o, "budget", 0);
		r->seed = integer(d, "search", o, "seed", 0);
		r->ntimed = integer(d, "search", o, "timed", 0);
		r->first_timed_s = num(d, "search", o, "first_timed_s");
		r->wall_s = num(d, "search", o, "wall_s");
		r->run_s = num(d, "search", o, "run_s");
		read_phases(d, get(d, "search", o, "phases", JSON_ARRAY, OPTIONAL), r);
	}
	if ((v = json_object_get(doc, "winner")) && !json_is_null(v)) /* null: none */
		r->winner = str(d, "", doc, "winner", OPTIONAL);
	if ((o = get(d, "", doc, "dropped", JSON_OBJECT, OPTIONAL))) {
		r->ndropped = (size_t)integer(d, "dropped", o, "count", 0);
		r->dropped_listed = flag(d, "dropped", o, "listed", OPTIONAL);
	}
}

/* the document into d->l->r */
static void read_doc(struct rd *d, json_t *doc)
{
	struct results *r = &d->l->r;
	json_t *list;
	size_t i;

	if (!json_is_object(doc)) {
		bad(d, "not a results.json: the top is not an object");
		return;
	}
	r->kernel = str(d, "", doc, "kernel", COMPLETE);
	r->timed = flag(d, "", doc, "timed", COMPLETE);
	r->config = str(d, "", doc, "config", COMPLETE);
	read_vals(d, "sizes", get(d, "", doc, "sizes", JSON_OBJECT, COMPLETE), &r->sizes,
	          &r->nsizes, NULL, 0);
	for (i = 0; i < r->nsizes && !d->bad; i++)
		if (r->sizes[i].val < 0)
			bad(d, "sizes: '%s' is %lld: a size is 0 or more", r->sizes[i].name,
			    (long long)r->sizes[i].val);
	if ((list = get(d, "", doc, "variants", JSON_ARRAY, COMPLETE))) {
		r->v = xcalloc(json_array_size(list) + 1, sizeof *r->v);
		for (i = 0; i < json_array_size(list) && !d->bad; i++, r->n++)
			read_variant(d, &r->v[i], i, json_array_get(list, i), i ? &r->v[i - 1] : NULL);
	}
	read_run(d, doc, r);
}

/* the file being read: at most RESULTS_MAX bytes of it */
struct src {
	int fd;
	int err;                  /* errno of a read that failed, EFBIG past RESULTS_MAX */
	size_t total;
};

static size_t src_read(void *buf, size_t len, void *data)
{
	struct src *s = data;
	ssize_t n;

	do
		n = read(s->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		s->err = errno;
	else if ((s->total += (size_t)n) > RESULTS_MAX)
		s->err = EFBIG;
	return s->err ? 0 : (size_t)n; /* 0: the end, as far as jansson reads */
}

/* the JSON document at path (a regular file of at most RESULTS_MAX bytes, no link followed),
   or NULL with why */
static json_t *parsed(json_t *doc, const json_error_t *e, struct results_error *why);

static json_t *load_doc(const char *path, struct results_error *why)
{
	struct src s = {-1, 0, 0};
	const char *no = NULL;
	char big[128];
	struct stat st = {0};
	json_error_t e;
	json_t *doc;

	memset(why, 0, sizeof *why);
	if ((s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)) < 0) {
		snprintf(why->text, sizeof why->text, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(s.fd, &st) < 0)
		no = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		no = S_ISDIR(st.st_mode) ? "a directory, not a file" : "not a regular file";
	else if ((uint64_t)st.st_size > RESULTS_MAX)
		no = big;
	if (no == big)
		snprintf(big, sizeof big, "%lld bytes, more than the %zu MiB results may hold "
		         "(RESULTS_MAX): not read", (long long)st.st_size, RESULTS_MAX >> 20);
	if (no) {
		snprintf(why->text, sizeof why->text, "%s", no);
		close(s.fd);
		return NULL;
	}
	doc = json_load_callback(src_read, &s, JSON_REJECT_DUPLICATES, &e);
	close(s.fd);
	if (s.err) {
		json_decref(doc);
		if (s.err == EFBIG)
			snprintf(why->text, sizeof why->text, "more than the %zu MiB results may hold "
			         "(RESULTS_MAX): not read", RESULTS_MAX >> 20);
		else
			snprintf(why->text, sizeof why->text, "cannot read: %s", strerror(s.err));
		return NULL;
	}
	return parsed(doc, &e, why);
}

/* doc as parsed, or NULL with where and why it is not JSON in why */
static json_t *parsed(json_t *doc, const json_error_t *e, struct results_error *why)
{
	if (!doc) {
		why->line = e->line > 0 ? e->line : 0;
		why->column = e->line > 0 ? e->column : 0;
		snprintf(why->text, sizeof why->text, "%s",
		         util_show(*e->text ? e->text : "not valid JSON"));
	}
	return doc;
}

char **results_points(const char *path, size_t *n, struct results_error *why)
{
	static const char *const keys[] = {"points", "midpoints"};
	json_t *doc = load_doc(path, why), *pts, *p;
	char **dirs;
	size_t i, k, all = 0;

	*n = 0;
	if (!doc || !json_is_object(doc) || json_object_get(doc, "variants") ||
	    !json_is_array(json_object_get(doc, "points"))) {
		json_decref(doc);
		memset(why, 0, sizeof *why); /* results_load says what is wrong with it */
		return NULL;
	}
	for (k = 0; k < 2; k++)
		all += json_array_size(json_object_get(doc, keys[k])); /* 0: not an array */
	dirs = xcalloc(all + 1, sizeof *dirs);
	for (k = 0; k < 2; k++) {
		if (!(pts = json_object_get(doc, keys[k])))
			continue;
		if (!json_is_array(pts)) {
			snprintf(why->text, sizeof why->text, "'%s' is not an array", keys[k]);
			goto bad;
		}
		json_array_foreach(pts, i, p) {
			json_t *d = json_object_get(p, "dir");
			if (i >= CFG_POINTS_MAX - k || !json_is_string(d) ||
			    !util_plain_name(json_string_value(d))) {
				snprintf(why->text, sizeof why->text, "%s[%zu]: no 'dir' naming a point's "
				         "directory (at most %d)", keys[k], i, CFG_POINTS_MAX - (int)k);
				goto bad;
			}
			dirs[(*n)++] = xstrdup(json_string_value(d));
		}
	}
	json_decref(doc);
	return dirs;
bad:
	while (*n)
		free(dirs[--*n]);
	free(dirs);
	json_decref(doc);
	return NULL;
}

/* the results doc holds (NULL with why when it is not what results_load reads) */
static struct results *from_doc(json_t *doc, int complete, struct results_error *why)
{
	struct loaded *l;
	struct rd d;

	if (!doc)
		return NULL;
	l = xcalloc(1, sizeof *l);
	d = (struct rd){l, why, complete, 0};
	read_doc(&d, doc);
	json_decref(doc);
	if (d.bad) {
		results_free(&l->r);
		return NULL;
	}
	return &l->r;
}

struct results *results_load(const char *path, int complete, struct results_error *why)
{
	return from_doc(load_doc(path, why), complete, why);
}

struct results *results_parse(const char *text, size_t len, int complete,
                              struct results_error *why)
{
	json_error_t e;

	memset(why, 0, sizeof *why);
	if (len > RESULTS_MAX) {
		snprintf(why->text, sizeof why->text, "more than the %zu MiB results may hold "
		         "(RESULTS_MAX): not read", RESULTS_MAX >> 20);
		return NULL;
	}
	return from_doc(parsed(json_loadb(text, len, JSON_REJECT_DUPLICATES, &e), &e, why),
	                complete, why);
}

void results_say(char *out, size_t len, const char *path, const struct results_error *e)
{
	if (e->line > 0)
		snprintf(out, len, "%s:%d:%d: %s", path, e->line, e->column, e->text);
	else
		snprintf(out, len, "%s: %s", path, e->text);
}

static void copy_free(struct results_copy *c)
{
	free(c->copy);
	free(c->fnv1a64);
	free(c->path);
}

void results_free(struct results *r)
{
	struct loaded *l = (struct loaded *)r;
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		struct results_variant *x = &r->v[i];
		free(x->id);
		free(x->unknown);
		free(x->params);
		free(x->reason);
		free(x->twin_of);
		free(x->log);
	}
	{
		void *own[] = {r->v, r->sizes, r->kernel, r->config, r->why_untimed, r->gpu, r->arch,
		               r->nvrtc, r->date, r->l2_policy, r->l2_why, r->strategy};
		for (i = 0; i < LEN(own); i++)
			free(own[i]);
	}
	for (i = 0; i < r->nphases; i++) {
		free(r->phases[i].name);
		free(r->phases[i].kind);
	}
	free(r->phases);
	free(r->winner);
	copy_free(&r->cfg);
	copy_free(&r->tmpl);
	for (i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	free(l);
}

const struct results_val *results_find(const struct results_val *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

int results_same_sizes(const struct results *a, const struct results *b)
{
	const struct results_val *x;
	size_t i;

	if (a->nsizes != b->nsizes)
		return 0;
	for (i = 0; i < a->nsizes; i++)
		if (!(x = results_find(b->sizes, b->nsizes, a->sizes[i].name)) ||
		    x->val != a->sizes[i].val)
			return 0;
	return 1;
}
