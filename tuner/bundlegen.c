/* bundlegen: a bundle's header and source text (tuner bundle, a points run's best.h/best.cu)
   from the entries bundle.c chose. */
#include "bundlegen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "emit.h"
#include "expr.h"
#include "params.h"
#include "report.h"
#include "results.h"
#include "source.h"
#include "tuned.h"
#include "version.h"

/* the sizes g was tuned with, bound in v: the config's, where its results name none */
void bundlegen_sizes(const struct bundle *b, const struct tuned *g, struct vars *v)
{
	size_t i;

	memset(v, 0, sizeof *v);
	cfg_size_vars(b->c, 0, v);
	for (i = 0; i < b->c->nsizes; i++) {
		const struct results_val *x = results_find(g->res->sizes, g->res->nsizes,
		                                           b->c->sizes[i].name);
		if (x)
			vars_set(v, b->c->sizes[i].name, x->val);
	}
}

/* "n=4099 m=7" (malloc'd): the sizes g was tuned with */
char *bundlegen_sizes_str(const struct bundle *b, const struct tuned *g)
{
	struct buf o = {0};
	struct vars v;
	size_t i;

	bundlegen_sizes(b, g, &v);
	for (i = 0; i < b->c->nsizes; i++) {
		int64_t x = 0;
		vars_get(&v, b->c->sizes[i].name, &x);
		buf_printf(&o, "%s%s=%lld", i ? " " : "", b->c->sizes[i].name, (long long)x);
	}
	return o.s ? o.s : xstrdup("no sizes");
}

/* the at-size function's table of b->rel and b->relb (the between entries' and the portable
   default's rows, and the portable default's column, 0) */
static void rel_table(struct buf *o, const struct bundle *b, const char *uk)
{
	size_t a, k, n = b->ng + b->nbt + 1;

	buf_printf(o, "\t/* rel[a * %s_BUNDLE_ENTRIES + k]: entry k's kernel's median at entry a's "
	              "sizes over the\n\t   fastest there (0: not timed there) */\n"
	              "\tstatic const double rel[%s_BUNDLE_ENTRIES * %s_BUNDLE_ENTRIES] = {\n",
	           uk, uk, uk);
	for (a = 0; a < n; a++) {
		buf_puts(o, "\t\t");
		for (k = 0; k < n; k++)
			buf_printf(o, "%.6g,%s", a >= b->ng ? 0 : k < b->ng ? b->rel[a * b->ng + k]
			                         : k < b->ng + b->nbt ? b->relb[a * b->nbt + k - b->ng] : 0,
			           k + 1 < n ? " " : "\n");
	}
	buf_puts(o, "\t};\n");
}

/* ---- the template in a namespace ---- */

/* 1 if p starts a word w */
static int word_at(const char *s, const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
	       !(isalnum((unsigned char)p[n]) || p[n] == '_');
}

void bundle_template(const char *tmpl, struct buf *body, struct buf *includes,
                     struct buf *undefs)
{
	const char *p = tmpl, *line = tmpl;

	while (*p) {
		if (p == line) { /* a preprocessor line? */
			const char *q = p, *n;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '#') {
				for (q++; *q == ' ' || *q == '\t'; q++)
					;
				if (word_at(tmpl, q, "include")) {
					size_t len = strcspn(p, "\n");
					buf_add(includes, p, len);
					buf_puts(includes, "\n");
					buf_puts(body, "// (above the namespaces) ");
					buf_add(body, p, len);
					p += len;
					line = NULL;
					continue;
				}
				if (word_at(tmpl, q, "define")) {
					for (q += 6; *q == ' ' || *q == '\t'; q++)
						;
					for (n = q; isalnum((unsigned char)*n) || *n == '_'; n++)
						;
					if (n > q)
						buf_printf(undefs, "#undef %.*s\n", (int)(n - q), q);
				}
			}
		}
		if (word_at(tmpl, p, "__constant__")) {
			/* each namespace's constants where the template's own are when it is built alone,
			   on a boundary: after the entries before it, a coefficient array at 0x54 made
			   nvcc load it in other pairs and order its FMAs otherwise, the likely cause of a
			   filter21 entry 10-18 % slower than the variant the tuner timed
			   (docs/benchmarks.md, "The bundle's constants") */
			buf_puts(body, "__constant__ __align__(" BUNDLE_CONSTANT_ALIGN ")");
			p += strlen("__constant__");
			continue;
		}
		if (word_at(tmpl, p, "extern")) {
			const char *q = p + 6;
			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (!strncmp(q, "\"C\"", 3)) {
				buf_add(body, p, (size_t)(q - p));
				buf_puts(body, "\"C++\"");
				p = q + 3;
				continue;
			}
		}
		if (*p == '\n')
			line = p + 1;
		buf_add(body, p++, 1);
	}
}

/* ---- writing ---- */

/* the architectures the bundle holds, newest first ("sm_90"...), each once */
static void gencode(const struct bundle *b, struct buf *out)
{
	size_t i, j;

	for (i = 0; i < b->ng; i++) {
		int cc = b->g[i].cc_major * 10 + b->g[i].cc_minor;
		for (j = 0; j < i && b->g[j].cc_major * 10 + b->g[j].cc_minor != cc; j++)
			;
		if (j == i)
			buf_printf(out, "-gencode arch=compute_%d,code=sm_%d ", cc, cc);
	}
	buf_printf(out, "-gencode arch=compute_%d%d,code=compute_%d%d", b->g[0].cc_major,
	           b->g[0].cc_minor, b->g[0].cc_major, b->g[0].cc_minor);
}

/* 1 if r's run found the host's launch slower than the GPU's run of it */
static int launch_bound(const struct results_variant *r)
{
	return r->launch_us > 0 && r->median_ms > 0 && r->launch_us > r->median_ms * 1e3;
}

void bundlegen_provenance(struct buf *o, const struct bundle *b, const char *date)
{
	const struct tuned *f = &b->g[0];
	const struct tuned *old = &b->g[b->ng - 1];
	struct buf gc = {0};
	size_t i, ngpu, nbound = 0;

	gencode(b, &gc);
	for (i = ngpu = 0; i < b->ng; i++)
		ngpu += i == 0 || strcmp(b->g[i - 1].name, b->g[i].name);
	buf_printf(o, "/*\n * %s bundle: the winners of %zu tuned GPU%s", b->kernel, ngpu,
	           ngpu == 1 ? "" : "s");
	if (b->sized)
		buf_printf(o, " (%zu GPU and size points)", b->ng);
	buf_printf(o, " and a portable default, side by side, and the\n * selection of the entry for "
	              "the GPU an application runs on. Emitted by tuner %s on %s\n * from ",
	           TUNER_VERSION, date);
	buf_safe(o, b->dir, 0);
	buf_puts(o, " (each GPU's results.json and the config and template tuned with).\n"
	            " * config: ");
	buf_safe(o, f->config, 0);
	buf_printf(o, " (fnv1a64 %016llx), template: ",
	           (unsigned long long)hash_bytes(HASH_INIT, f->cfgtext, f->cfglen));
	buf_safe(o, f->tmplpath ? f->tmplpath : f->tmplfile, 0);
	buf_printf(o, " (fnv1a64 %016llx)\n *\n",
	           (unsigned long long)hash_bytes(HASH_INIT, f->tmpl, strlen(f->tmpl)));
	buf_puts(o, " * entry  GPU, compute capability, multiprocessors: variant (parameters), "
	            "median, GB/s, % of copy\n");
	for (i = 0; i < b->ng; i++) {
		const struct tuned *g = &b->g[i];
		const struct results_variant *r = &g->rows[b->win[i]];
		buf_printf(o, " * %5zu  ", i);
		buf_safe(o, g->name, 0);
		buf_printf(o, ", %d.%d, %d", g->cc_major, g->cc_minor, g->sms);
		if (b->sized) {
			char *at = bundlegen_sizes_str(b, g);
			buf_printf(o, " at %s%s", at, g->res->midpoint ? " (a midpoint: its best of the "
			           "candidates)" : "");
			free(at);
		}
		buf_printf(o, ": %s (%s), %.4f ms, %.1f GB/s, %.1f %%", r->id, b->k[b->kof[i]].params,
		           r->median_ms, r->gbs, r->pct_copy);
		if (launch_bound(r)) /* a results file's number: bounded in print */
			buf_printf(o, ", launch-bound (%.3g us to launch, %.3g us to run)", r->launch_us,
			           r->median_ms * 1e3);
		nbound += launch_bound(r);
		buf_puts(o, "\n");
	}
	for (i = 0; i < b->nbt; i++) {
		const struct between *e = &b->bt[i];
		char *lo = bundlegen_sizes_str(b, &b->g[e->lo_g]), *hi = bundlegen_sizes_str(b, &b->g[e->hi_g]);
		buf_printf(o, " * %5zu  ", b->ng + i);
		buf_safe(o, b->g[e->lo_g].name, 0);
		buf_printf(o, " between %s and %s: %s (%s), at least %.1f %% of the fastest at both\n",
		           lo, hi, e->r->id, b->k[e->k].params, 100 * e->worst);
		free(lo);
		free(hi);
	}
	if (nbound)
		buf_printf(o, " * launch-bound entries: %s\n", report_launch_advice);
	buf_printf(o, " * %5zu  portable default: %s (%s), ", b->ng + b->nbt, b->k[b->kportable].id,
	           b->k[b->kportable].params);
	if (b->worst > 0)
		buf_printf(o, "at least %.1f %% of each tuned GPU's best\n", 100 * b->worst);
	else
		buf_puts(o, "the winner of the oldest GPU (none was timed on every GPU)\n");
	buf_printf(o, " *\n * Compile %s.cu once into the application, for every architecture "
	              "it holds:\n * nvcc flags: %s\n * The last adds PTX that the driver compiles "
	              "for GPUs newer than sm_%d%d; a GPU older than\n * sm_%d%d runs the portable "
	              "default only with its own, e.g. -gencode arch=compute_75,code=sm_75.\n",
	           b->base, gc.s, f->cc_major, f->cc_minor, old->cc_major, old->cc_minor);
	buf_printf(o, " * Use: %s_bundle_select_current(&choice) picks the entry for the current "
	              "device (%s_bundle_select\n * for a description); %s_bundle_setup(entry) once "
	              "per device; allocate the buffers (%s_bundle_BUF_count);\n * then %s_bundle_"
	              "launch(entry, ...).\n", b->kernel, b->kernel, b->kernel, b->kernel,
	           b->kernel);
	if (b->sized)
		buf_printf(o, " * A GPU tuned at several sizes has an entry for each, and one for the "
		              "sizes between two of\n * them: %s_bundle_at_size(entry, ...) picks a "
		              "point's entry at its sizes, between two points\n * (by the bytes moved) "
		              "the entry whose medians there, interpolated, are lowest (their\n * between "
		              "entry unless another is predicted faster), beyond the range the nearest "
		              "end's.\n", b->kernel);
	if (b->flags.len) {
		buf_puts(o, " *\n");
		buf_add(o, b->flags.s, b->flags.len);
	}
	buf_puts(o, " */\n");
	buf_free(&gc);
}

/* the selection, shared by every bundle (guarded) */
/* the selection every bundle's header holds (tuner/bundle_select.inc, embedded) */
extern const char bundle_select_inc[];

/* "float *out, float *in, long long n, ": the buffers the kernel takes, in its argument order,
   then the sizes */
static void launch_params(struct buf *o, const struct config *c)
{
	size_t i;

	for (i = 0; i < c->kernel.nargs; i++)
		if (c->kernel.args[i].buffer >= 0)
			buf_printf(o, "%s *%s, ", elem_name(c->buffers[c->kernel.args[i].buffer].type),
			           c->buffers[c->kernel.args[i].buffer].name);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "long long %s, ", c->sizes[i].name);
}

/* parameter vars of kernel variant k (and the tuned sizes) */
static void kvars(const struct bundle *b, size_t k, struct vars *v)
{
	size_t i;

	*v = b->sizes;
	for (i = 0; i < b->c->nparams; i++)
		vars_set(v, b->c->params[i].name, b->k[k].vals[i]);
}

static void params_only(const struct bundle *b, size_t k, struct vars *v)
{
	size_t i;

	memset(v, 0, sizeof *v);
	for (i = 0; i < b->c->nparams; i++)
		vars_set(v, b->c->params[i].name, b->k[k].vals[i]);
}

/* "switch (...) {" choosing the kernel variant of entry */
static void switch_variant(struct buf *o, const struct bundle *b)
{
	buf_printf(o, "\tswitch (entry >= 0 && entry < %zu ? %s_bundle_entries[entry].variant : "
	              "-1) {\n", b->ng + b->nbt + 1, b->kernel);
}

/* the entries' table and the selection by GPU */
static void header_entries(struct buf *o, const struct bundle *b, const char *uk)
{
	size_t i;

	buf_printf(o, "\n/* the tuned GPUs' entries, newest compute capability first, then the "
	              "portable default */\n#define %s_BUNDLE_ENTRIES %zu\n#define %s_BUNDLE_PORTABLE "
	              "%zu\n/* the distinct kernels they launch */\n#define %s_BUNDLE_VARIANTS %zu\n",
	           uk, b->ng + b->nbt + 1, uk, b->ng + b->nbt, uk, b->nk);
	buf_printf(o, "static const struct tuner_entry %s_bundle_entries[%s_BUNDLE_ENTRIES] = {\n",
	           b->kernel, uk);
	for (i = 0; i < b->ng; i++) {
		const struct tuned *g = &b->g[i];
		const struct results_variant *r = &g->rows[b->win[i]];
		buf_puts(o, "\t{");
		emit_cstr(o, g->name);
		buf_printf(o, ", %d, %d, %d, %zu, \"%s\", \"%s\", %.6g, %.6g, %.6g, 0, %.17g, 0, 0},\n",
		           g->cc_major, g->cc_minor, g->sms, b->kof[i], r->id, b->k[b->kof[i]].params,
		           r->median_ms, r->gbs, r->pct_copy, b->work[i]);
	}
	for (i = 0; i < b->nbt; i++) {
		const struct between *e = &b->bt[i];
		const struct tuned *g = &b->g[e->lo_g];
		buf_puts(o, "\t{");
		emit_cstr(o, g->name);
		buf_printf(o, ", %d, %d, %d, %zu, \"%s\", \"%s\", %.6g, %.6g, %.6g, %.6g, 0, %.17g, "
		              "%.17g},\n", g->cc_major, g->cc_minor, g->sms, e->k, e->r->id,
		           b->k[e->k].params, e->r->median_ms, e->r->gbs, e->r->pct_copy,
		           100 * e->worst, e->lo, e->hi);
	}
	buf_printf(o, "\t{NULL, 0, 0, 0, %zu, \"%s\", \"%s\", 0, 0, 0, %.6g, 0, 0, 0},\n};\n",
	           b->kportable, b->k[b->kportable].id, b->k[b->kportable].params, 100 * b->worst);
	buf_printf(o, "\n/* the entry for GPU g (tuner_select), also in c */\n"
	              "static inline int %s_bundle_select(const struct tuner_gpu *g, "
	              "struct tuner_choice *c)\n{\n\treturn tuner_select(%s_bundle_entries, "
	              "%s_BUNDLE_ENTRIES, g, c);\n}\n", b->kernel, b->kernel, uk);
}

/* the body of a function of entry: a case per kernel returning e under its parameters
   (wrapped in cast "(T)(...)" when cast is not NULL), 0 for an entry out of range */
static void case_returns(struct buf *o, const struct bundle *b, const struct expr *e,
                         const char *cast)
{
	size_t k;

	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		struct vars pv;
		params_only(b, k, &pv);
		buf_printf(o, "\tcase %zu:\n\t\treturn %s%s", k, cast ? cast : "", cast ? "(" : "");
		expr_print_c(e, &pv, o);
		buf_puts(o, cast ? ");\n" : ";\n");
	}
	buf_puts(o, "\t}\n\treturn 0;\n}\n");
}

/* <kernel>_bundle_geometry, _work and _at_size */
static void header_geometry(struct buf *o, const struct bundle *b, const char *uk,
                            const char *pre)
{
	const struct config *c = b->c;
	size_t i, k;

	buf_printf(o, "\n/* launch geometry of entry's kernel for the problem size on a GPU with sms "
	              "multiprocessors\n   (all 0 for an entry out of range) */\n"
	              "static inline void %s_bundle_geometry(int entry, ", b->kernel);
	emit_size_params(o, c);
	buf_puts(o, ", unsigned block[3],\n\t\tunsigned grid[3], unsigned *shared_bytes)\n{\n");
	emit_size_prelude(o, c, "\t");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		struct vars pv;
		params_only(b, k, &pv);
		buf_printf(o, "\tcase %zu: /* %s */\n", k, b->k[k].id);
		emit_geometry(o, c, &pv, "\t\t");
		buf_puts(o, "\t\treturn;\n");
	}
	buf_puts(o, "\t}\n\tblock[0] = block[1] = block[2] = grid[0] = grid[1] = grid[2] = 0;\n"
	            "\t*shared_bytes = 0;\n}\n");
	buf_printf(o, "\n/* the bytes entry's kernel moves at the problem size (the config's bytes; 0 "
	              "for an entry\n   out of range) */\nstatic inline double %s_work(int entry, ",
	           pre);
	emit_size_params(o, c);
	buf_puts(o, ")\n{\n");
	emit_size_prelude(o, c, "\t");
	case_returns(o, b, c->bytes, "(double)");
	buf_printf(o, "\n/* the entry to launch at the problem size: of the entries of the GPU entry "
	              "(a selection)\n   was tuned on, by the bytes moved, a point's at its sizes, a "
	              "between entry between two\n   points, the nearest end's beyond them "
	              "(tuner_at_size) */\nstatic inline int %s_at_size(int entry, ", pre);
	emit_size_params(o, c);
	buf_printf(o, ")\n{\n");
	if (b->sized)
		rel_table(o, b, uk);
	buf_printf(o, "\tdouble w[%s_BUNDLE_ENTRIES];\n\tint j;\n\n", uk);
	buf_printf(o, "\tfor (j = 0; j < %s_BUNDLE_ENTRIES; j++)\n\t\tw[j] = %s_work(j, ", uk, pre);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "%s, ", c->sizes[i].name);
	buf_printf(o, "sms);\n\treturn tuner_at_size(%s_bundle_entries, %s_BUNDLE_ENTRIES, entry, "
	              "w, %s);\n}\n", b->kernel, uk, b->sized ? "rel" : "NULL");
}

/* each buffer's count function, and the __constant__ values alike for every kernel */
static void header_buffers(struct buf *o, const struct bundle *b, const char *uk,
                           const char *pre)
{
	const struct config *c = b->c;
	size_t i;

	buf_printf(o, "\n/* the buffers, in the config's order: for each buffer BUF, %s_BUF_count() "
	              "is its element count\n   for an entry, the problem size and the "
	              "multiprocessor count, %s_BUNDLE_BUF_ROLE its role (enum\n   tuner_role) and "
	              "%s_BUNDLE_BUF_ZERO 1 when it must be all zero before the first launch */\n",
	           pre, uk, uk);
	for (i = 0; i < c->nbuffers; i++) {
		emit_buffer_doc(o, c, i, pre);
		buf_printf(o, "static inline long long %s_%s_count(int entry, ", pre,
		           c->buffers[i].name);
		emit_size_params(o, c);
		buf_puts(o, ")\n{\n");
		emit_size_prelude(o, c, "\t");
		if (!emit_uses_params(c, c->buffers[i].count)) {
			buf_puts(o, "\t(void)entry;\n\treturn ");
			expr_print_c(c->buffers[i].count, NULL, o);
			buf_puts(o, ";\n}\n");
			continue;
		}
		case_returns(o, b, c->buffers[i].count, NULL);
	}
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *kc = &c->constants[i];
		struct vars kv;
		char *name;

		if (emit_uses_params(c, kc->count))
			continue; /* per kernel, in the source */
		name = xasprintf("%s_%s_values", pre, kc->name);
		buf_printf(o, "\n/* the values of __constant__ %s (%s_setup sets them) */\n", kc->name,
		           pre);
		kvars(b, 0, &kv);
		if (emit_constant_values(o, c, i, &kv, name) < 0)
			fatal("%s: the count of constant '%s', %s, has no value for the sizes tuned with",
			      b->g[0].cfgfile, kc->name, expr_src(kc->count));
		free(name);
	}
}

void bundlegen_header(struct buf *o, const struct bundle *b)
{
	char *uk = emit_upper(b->kernel), *pre = xasprintf("%s_bundle", b->kernel);

	buf_printf(o, "#ifndef TUNER_%s_BUNDLE_H\n#define TUNER_%s_BUNDLE_H\n\n", uk, uk);
	buf_puts(o, "#include <stdio.h>\n#include <string.h>\n\n");
	emit_helpers(o);
	buf_puts(o, "\n");
	buf_puts(o, bundle_select_inc);
	header_entries(o, b, uk);
	header_geometry(o, b, uk, pre);
	header_buffers(o, b, uk, pre);
	buf_printf(o, "\n#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_API_H__)\n"
	              "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
	              "/* the entry for the current device (its name, compute capability and "
	              "multiprocessor count);\n   -1, with the runtime's error in c->reason, when "
	              "there is none */\n"
	              "int %s_select_current(struct tuner_choice *c);\n"
	              "/* set entry's __constant__ values on the current device: once per device, "
	              "before its first launch */\n"
	              "cudaError_t %s_setup(int entry);\n"
	              "/* launch entry's kernel on stream, with %s_geometry for the current "
	              "device */\n"
	              "cudaError_t %s_launch(int entry, ", pre, pre, pre, pre);
	launch_params(o, b->c);
	buf_puts(o, "cudaStream_t stream);\n#ifdef __cplusplus\n}\n#endif\n#endif\n\n#endif\n");
	free(uk);
	free(pre);
}

/* the kernel call's arguments, in namespace ns */
static void call_args(struct buf *o, const struct bundle *b, size_t k)
{
	const struct config *c = b->c;
	struct vars pv;
	size_t i;

	params_only(b, k, &pv);
	for (i = 0; i < c->kernel.nargs; i++) {
		const struct arg *a = &c->kernel.args[i];
		buf_puts(o, i ? ", " : "");
		if (a->buffer >= 0) {
			buf_puts(o, c->buffers[a->buffer].name);
			continue;
		}
		buf_printf(o, "(%s)(", elem_name(a->type));
		expr_print_c(a->value, &pv, o);
		buf_puts(o, ")");
	}
}

void bundlegen_source(struct buf *o, const struct bundle *b)
{
	const struct config *c = b->c;
	struct buf inc = {0}, body = {0}, undefs = {0};
	char *pre = xasprintf("%s_bundle", b->kernel), *uk = emit_upper(b->kernel);
	size_t i, k, j;

	bundle_template(b->g[0].tmpl, &body, &inc, &undefs);
	buf_printf(o, "#include \"%s.h\"\n", b->base);
	if (inc.len)
		buf_printf(o, "\n/* the template's includes, once for every namespace */\n%s", inc.s);
	for (k = 0; k < b->nk; k++) {
		struct variant v = {0};
		struct vars kv;
		buf_printf(o, "\n/* %s (%s): ", b->k[k].id, b->k[k].params);
		for (i = j = 0; i < b->ng; i++)
			if (b->kof[i] == k) {
				buf_puts(o, j++ ? ", " : "the winner on ");
				buf_safe(o, b->g[i].name, 0);
			}
		for (i = 0; i < b->nbt; i++)
			if (b->bt[i].k == k) {
				char *lo = bundlegen_sizes_str(b, &b->g[b->bt[i].lo_g]);
				char *hi = bundlegen_sizes_str(b, &b->g[b->bt[i].hi_g]);
				buf_puts(o, j++ ? "; " : "");
				buf_printf(o, "between %s and %s on ", lo, hi);
				buf_safe(o, b->g[b->bt[i].lo_g].name, 0);
				free(lo);
				free(hi);
			}
		if (k == b->kportable)
			buf_puts(o, j ? "; the portable default" : "the portable default");
		buf_printf(o, " */\nnamespace tuner_%s_%s {\n", b->kernel, b->k[k].id);
		v.vals = b->k[k].vals;
		source_defines(o, c, &v);
		buf_add(o, body.s, body.len);
		if (body.len && body.s[body.len - 1] != '\n')
			buf_puts(o, "\n");
		for (i = 0; i < c->nparams; i++)
			buf_printf(o, "#undef %s\n", c->params[i].name);
		buf_add(o, undefs.s, undefs.len);
		kvars(b, k, &kv);
		for (i = 0; i < c->nconstants; i++) {
			char *name;
			if (!emit_uses_params(c, c->constants[i].count))
				continue; /* the same for every kernel, in the header */
			name = xasprintf("tuner_%s_values", c->constants[i].name);
			if (emit_constant_values(o, c, i, &kv, name) < 0)
				fatal("%s: the count of constant '%s', %s, has no value for %s", b->g[0].cfgfile,
				      c->constants[i].name, expr_src(c->constants[i].count), b->k[k].id);
			free(name);
		}
		buf_printf(o, "} /* namespace tuner_%s_%s */\n", b->kernel, b->k[k].id);
	}

	buf_printf(o, "\nextern \"C\" int %s_select_current(struct tuner_choice *c)\n{\n"
	              "\tstruct cudaDeviceProp p;\n\tstruct tuner_gpu g;\n\tint dev;\n"
	              "\tcudaError_t e;\n\n"
	              "\tif ((e = cudaGetDevice(&dev)) != cudaSuccess ||\n"
	              "\t    (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {\n"
	              "\t\tc->entry = -1;\n\t\tc->rule = TUNER_PORTABLE;\n"
	              "\t\tsnprintf(c->reason, sizeof c->reason, \"no device: %%s\", "
	              "cudaGetErrorString(e));\n\t\treturn -1;\n\t}\n"
	              "\tg.name = p.name;\n\tg.cc_major = p.major;\n\tg.cc_minor = p.minor;\n"
	              "\tg.sms = p.multiProcessorCount;\n\treturn %s_select(&g, c);\n}\n", pre, pre);

	buf_printf(o, "\nextern \"C\" cudaError_t %s_setup(int entry)\n{\n", pre);
	if (c->nconstants)
		buf_puts(o, "\tcudaError_t e;\n\n");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		buf_printf(o, "\tcase %zu:\n", k);
		for (i = 0; i < c->nconstants; i++) {
			const char *cn = c->constants[i].name;
			char *vals = emit_uses_params(c, c->constants[i].count)
			             ? xasprintf("tuner_%s_%s::tuner_%s_values", b->kernel, b->k[k].id, cn)
			             : xasprintf("%s_%s_values", pre, cn);
			buf_printf(o, "\t\tif ((e = cudaMemcpyToSymbol(tuner_%s_%s::%s, %s,\n"
			              "\t\t                            sizeof %s)) != cudaSuccess)\n"
			              "\t\t\treturn e;\n", b->kernel, b->k[k].id, cn, vals, vals);
			free(vals);
		}
		buf_puts(o, "\t\treturn cudaSuccess;\n");
	}
	buf_puts(o, "\t}\n\treturn cudaErrorInvalidValue;\n}\n");

	buf_printf(o, "\nextern \"C\" cudaError_t %s_launch(int entry, ", pre);
	launch_params(o, c);
	buf_puts(o, "cudaStream_t stream)\n{\n"
	            "\tconst long long sms = tuner_device_sms(), SMS = sms;\n"
	            "\tunsigned block[3], grid[3], smem;\n\tcudaError_t e;\n\n\t(void)SMS;\n");
	buf_puts(o, "\tif (sms < 1)\n\t\treturn (e = cudaGetLastError()) != cudaSuccess ? e : "
	            "cudaErrorNoDevice;\n");
	buf_printf(o, "\t%s_geometry(entry, ", pre);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "%s, ", c->sizes[i].name);
	buf_puts(o, "sms, block, grid, &smem);\n");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		char *fn = xasprintf("tuner_%s_%s::%s", b->kernel, b->k[k].id, c->kernel.entry);
		buf_printf(o, "\tcase %zu:\n\t\tif (smem > 48 * 1024 &&\n\t\t    (e = cudaFuncSetAttribute(%s, "
		              "cudaFuncAttributeMaxDynamicSharedMemorySize,\n\t\t                   "
		              "               (int)smem)) != cudaSuccess)\n\t\t\treturn e;\n"
		              "\t\t%s<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], "
		              "block[2]), smem,\n\t\t\tstream>>>(", k, fn, fn);
		call_args(o, b, k);
		buf_puts(o, ");\n\t\treturn cudaGetLastError();\n");
		free(fn);
	}
	buf_puts(o, "\t}\n\treturn cudaErrorInvalidValue;\n}\n");
	buf_free(&inc);
	buf_free(&body);
	buf_free(&undefs);
	free(pre);
	free(uk);
}
