/* emit: a variant as standalone CUDA source plus a launch header. */
#include "emit.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "devbuf.h"
#include "expr.h"
#include "report.h"
#include "result.h"
#include "source.h"
#include "space.h"
#include "util.h"
#include "vars.h"
#include "version.h"

void emit_cstr(struct buf *b, const char *s)
{
	buf_puts(b, "\"");
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_printf(b, "\\%c", *s);
		else if ((unsigned char)*s < 32 || *s == 127 || *s == '?')
			buf_printf(b, "\\%03o", (unsigned char)*s);
		else
			buf_add(b, s, 1);
	}
	buf_puts(b, "\"");
}

static void provenance(struct buf *b, const struct config *c, const struct variant *v,
                       const struct result *r, const struct runinfo *ri)
{
	char *p = space_params_str(c, v);
	size_t i;

	buf_printf(b, "/*\n * %s variant %s, emitted by tuner %s on ", c->name, v->id, TUNER_VERSION);
	buf_safe(b, ri->date, 0);
	buf_puts(b, ".\n * config: ");
	buf_safe(b, c->path, 0);
	buf_puts(b, "\n * parameters: ");
	buf_safe(b, p, 0);
	buf_puts(b, "\n * sizes:");
	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, " %s=%lld", c->sizes[i].name, (long long)c->sizes[i].val);
	buf_puts(b, "\n * NVRTC ");
	buf_safe(b, ri->nvrtc, 0);
	buf_puts(b, ", compiled for ");
	buf_safe(b, ri->arch, 0);
	if (r->co.ok && r->co.regs >= 0)
		buf_printf(b, ": %d registers, %d bytes spilled, %d bytes static + %lld bytes dynamic "
		           "shared memory", r->co.regs, r->co.spill_stores + r->co.spill_loads,
		           r->co.smem_static, (long long)v->shared);
	buf_puts(b, "\n");
	if (ri->timed && r->status == ST_OK) {
		buf_puts(b, " * GPU: ");
		buf_safe(b, ri->gpu.name, 0);
		buf_printf(b, ", compute capability %d.%d, driver %d.%d\n",
		           ri->gpu.cc_major, ri->gpu.cc_minor, ri->gpu.driver_version / 1000,
		           ri->gpu.driver_version % 1000 / 10);
		buf_printf(b, " * time: median %.4f ms, min %.4f ms, spread %.1f %% over %d samples\n",
		           result_run(r)->t.median_ms, result_run(r)->t.min_ms,
		           100 * result_run(r)->t.spread, result_run(r)->t.n);
		buf_printf(b, " * bandwidth: %.1f GB/s = %.1f %% of a copy kernel timed in the same run "
		           "(%.1f GB/s), %.1f %% of a read-only kernel (%.1f GB/s)\n", r->gbs,
		           r->pct_copy, ri->copy_gbs, r->pct_read, ri->read_gbs);
		{
			struct buf e = {0};
			if (report_launch(&e, result_run(r)))
				buf_printf(b, " * launch: %s at these sizes;\n *   %s\n", e.s,
				           report_launch_advice);
			else if (e.len)
				buf_printf(b, " * launch: %s\n", e.s);
			buf_free(&e);
		}
		buf_puts(b, " * verified against the reference");
		if (c->nverify) { /* at the tuning sizes, then each extra one */
			buf_puts(b, " at");
			for (i = 0; i < c->nsizes; i++)
				buf_printf(b, " %s=%lld", c->sizes[i].name,
				           (long long)c->sizes[i].val);
			for (i = 0; i < c->nverify; i++) {
				buf_puts(b, ", ");
				buf_safe(b, c->verify[i].label, 0);
			}
		}
		buf_puts(b, ": ");
		report_errors(b, result_run(r), c);
		buf_puts(b, "\n");
	} else {
		buf_puts(b, " * NOT TIMED and NOT VERIFIED: ");
		buf_safe(b, ri->timed ? result_status(r->status) : ri->why_untimed, 0);
		buf_puts(b, "\n");
	}
	buf_puts(b, " */\n");
	free(p);
}

char *emit_upper(const char *s)
{
	char *u = xstrdup(s), *p;

	for (p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

void emit_helpers(struct buf *b)
{
	buf_puts(b, "#ifndef TUNER_HELPERS\n#define TUNER_HELPERS\n"
	            "static inline long long tuner_ceil_div(long long a, long long b)\n"
	            "{\n\treturn a / b + ((a % b != 0) && ((a < 0) == (b < 0)));\n}\n"
	            "static inline long long tuner_min(long long a, long long b) "
	            "{ return a < b ? a : b; }\n"
	            "static inline long long tuner_max(long long a, long long b) "
	            "{ return a > b ? a : b; }\n"
	            "static inline long long tuner_log2(long long a)\n"
	            "{\n\tlong long r = -1;\n\twhile (a > 0) {\n\t\ta >>= 1;\n\t\tr++;\n\t}\n"
	            "\treturn r;\n}\n"
	            "/* what a buffer is to the kernel */\n"
	            "enum tuner_role {\n"
	            "\tTUNER_ROLE_IN,      /* its input: the application's data */\n"
	            "\tTUNER_ROLE_OUT,     /* written by the kernel */\n"
	            "\tTUNER_ROLE_SCRATCH  /* the kernel's own: it must hold given values before "
	            "the first launch */\n};\n"
	            "#endif\n"
	            "#if defined(__CUDACC__) && !defined(TUNER_HELPERS_CUDA)\n"
	            "#define TUNER_HELPERS_CUDA\n"
	            "/* the multiprocessor count of the current device (0 if the runtime cannot "
	            "tell) */\n"
	            "static inline long long tuner_device_sms(void)\n"
	            "{\n\tint d = 0, n = 0;\n\n"
	            "\tif (cudaGetDevice(&d) != cudaSuccess ||\n"
	            "\t    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d) != "
	            "cudaSuccess)\n\t\treturn 0;\n\treturn n;\n}\n#endif\n");
}

void emit_size_params(struct buf *b, const struct config *c)
{
	size_t i;

	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, "long long %s, ", c->sizes[i].name);
	buf_puts(b, "long long sms");
}

void emit_size_prelude(struct buf *b, const struct config *c, const char *indent)
{
	size_t i;

	buf_printf(b, "%sconst long long %s = sms;\n\n", indent, CFG_SMS);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, "%s(void)%s;\n", indent, c->sizes[i].name);
	buf_printf(b, "%s(void)%s;\n", indent, CFG_SMS);
}

void emit_geometry(struct buf *b, const struct config *c, const struct vars *subst,
                   const char *indent)
{
	int d;

	for (d = 0; d < 3; d++) {
		buf_printf(b, "%sblock[%d] = (unsigned)", indent, d);
		expr_print_c(c->kernel.launch.block[d], subst, b);
		buf_puts(b, ";\n");
	}
	for (d = 0; d < 3; d++) {
		buf_printf(b, "%sgrid[%d] = (unsigned)", indent, d);
		expr_print_c(c->kernel.launch.grid[d], subst, b);
		buf_puts(b, ";\n");
	}
	buf_printf(b, "%s*shared_bytes = (unsigned)", indent);
	if (c->kernel.launch.shared)
		expr_print_c(c->kernel.launch.shared, subst, b);
	else
		buf_puts(b, "0");
	buf_puts(b, ";\n");
}

int emit_uses_params(const struct config *c, const struct expr *e)
{
	size_t p;

	for (p = 0; p < c->nparams; p++)
		if (expr_uses(e, c->params[p].name))
			return 1;
	return 0;
}

/* 1 if every element of fill f is zero */
static int fill_zero(const struct fill *f)
{
	size_t i;

	switch (f->kind) {
	case FILL_RANDOM: return f->lo == 0 && f->hi == 0;
	case FILL_RANGE: return f->start == 0 && f->step == 0;
	case FILL_CONST: return f->value == 0;
	case FILL_LIST:
		for (i = 0; i < f->nlist; i++)
			if (f->list[i] != 0)
				return 0;
		return 1;
	}
	return 0;
}

/* a double as a C literal */
static void put_double(struct buf *b, double x, const char *suffix)
{
	char s[64];
	int prec;

	if (x != x) {
		buf_printf(b, "(0.0%s / 0.0%s)", suffix, suffix);
		return;
	}
	if (x > 1e308 || x < -1e308) {
		buf_printf(b, "(%s1.0%s / 0.0%s)", x < 0 ? "-" : "", suffix, suffix);
		return;
	}
	for (prec = *suffix ? 6 : 15; prec <= 17; prec++) { /* the shortest that reads back */
		snprintf(s, sizeof s, "%.*g", prec, x);
		if (*suffix ? (float)strtod(s, NULL) == (float)x : strtod(s, NULL) == x)
			break;
	}
	buf_puts(b, s);
	if (!strpbrk(s, ".e"))
		buf_puts(b, ".0");
	buf_puts(b, suffix);
}

void emit_buffer_doc(struct buf *b, const struct config *c, size_t i, const char *prefix)
{
	const struct buffer *bf = &c->buffers[i];
	const struct fill *f = &bf->fill;
	char *up = emit_upper(prefix), *ub = emit_upper(bf->name);
	/* what it must hold before the first launch, or before every one (refill: launch) */
	int given = bf->role == ROLE_SCRATCH ||
	            (bf->role == ROLE_OUT && bf->refill == REFILL_LAUNCH);
	int zero = given && fill_zero(f), init;
	const char *when = bf->refill == REFILL_LAUNCH ? "every" : "the first";
	size_t a, j;

	init = given && !zero && f->kind != FILL_RANDOM;
	buf_printf(b, "\n/* %s (%s", bf->name, elem_name(bf->type));
	for (a = 0; a < c->kernel.nargs; a++)
		if (c->kernel.args[a].buffer == (int)i)
			buf_printf(b, ", argument %zu", a + 1);
	switch (bf->role) {
	case ROLE_IN:
		buf_puts(b, "): in, the kernel's input: the application's data");
		break;
	case ROLE_OUT:
		buf_puts(b, given ? "): out, read and written by the kernel: "
		                  : "): out, written by the kernel");
		break;
	case ROLE_SCRATCH:
		buf_puts(b, "): scratch, the kernel's own: ");
		break;
	}
	if (zero)
		buf_printf(b, "it must be all zero before %s launch", when);
	else if (init && elem_comps(bf->type) > 1)
		buf_printf(b, "component c of element i must hold %s_%s_init(i * %zu + c) before %s "
		           "launch", prefix, bf->name, elem_comps(bf->type), when);
	else if (init)
		buf_printf(b, "element i must hold %s_%s_init(i) before %s launch", prefix, bf->name,
		           when);
	else if (given)
		buf_printf(b, "any values before %s launch (the tuner filled it with random ones)",
		           when);
	if (bf->refill == REFILL_LAUNCH)
		buf_puts(b, "\n   (the kernel changes what it reads there: the tuner filled it "
		            "before every launch)");
	else if (bf->role == ROLE_SCRATCH)
		buf_puts(b, "\n   (the tuner filled it once per variant, before that variant's "
		            "first launch)");
	buf_puts(b, " */\n");
	buf_printf(b, "#define %s_%s_ROLE TUNER_ROLE_%s\n", up, ub,
	           bf->role == ROLE_IN ? "IN" : bf->role == ROLE_OUT ? "OUT" : "SCRATCH");
	buf_printf(b, "#define %s_%s_ZERO %d\n", up, ub, zero);
	if (bf->refill == REFILL_LAUNCH) /* only then: headers of other buffers stay as they were */
		buf_printf(b, "#define %s_%s_REFILL 1\n", up, ub);
	if (init) {
		buf_printf(b, "static inline double %s_%s_init(long long i)\n{\n", prefix, bf->name);
		switch (f->kind) {
		case FILL_RANGE:
			buf_puts(b, "\treturn ");
			put_double(b, f->start, "");
			buf_puts(b, " + (double)i * ");
			put_double(b, f->step, "");
			buf_puts(b, ";\n");
			break;
		case FILL_CONST:
			buf_puts(b, "\t(void)i;\n\treturn ");
			put_double(b, f->value, "");
			buf_puts(b, ";\n");
			break;
		default:
			buf_printf(b, "\tstatic const double v[%zu] = {", f->nlist);
			for (j = 0; j < f->nlist; j++) {
				buf_puts(b, j ? ", " : "");
				put_double(b, f->list[j], "");
			}
			buf_printf(b, "};\n\n\treturn v[i %% %zu];\n", f->nlist);
			break;
		}
		buf_puts(b, "}\n");
	}
	free(up);
	free(ub);
}

/* element i of the typed array p as a C literal of type t */
static void put_elem(struct buf *b, const void *p, size_t i, enum elem t)
{
	switch (t) {
	case EL_F32: put_double(b, ((const float *)p)[i], "f"); break;
	case EL_F64: put_double(b, ((const double *)p)[i], ""); break;
	case EL_I32: buf_printf(b, "%" PRId32, ((const int32_t *)p)[i]); break;
	case EL_U32: buf_printf(b, "%" PRIu32 "u", ((const uint32_t *)p)[i]); break;
	case EL_I64:
		if (((const int64_t *)p)[i] == INT64_MIN)
			buf_puts(b, "(-9223372036854775807LL - 1)");
		else
			buf_printf(b, "%" PRId64 "LL", ((const int64_t *)p)[i]);
		break;
	case EL_U64: buf_printf(b, "%" PRIu64 "ULL", ((const uint64_t *)p)[i]); break;
	case EL_F32X2: /* buffers only */
	case EL_F32X4:
	case EL_F64X2: die("a constant of a vector type");
	}
}

int emit_constant_values(struct buf *b, const struct config *c, size_t k, const struct vars *v,
                         const char *name)
{
	const struct constant *kc = &c->constants[k];
	struct expr_err err;
	int64_t n, j;
	void *p;

	if (expr_eval(kc->count, v, &n, &err) < 0 || n < 1 || n > (1 << 20))
		return -1;
	p = xcalloc((size_t)n, elem_size(kc->type));
	bench_fill_host(p, 0, (size_t)n, kc->type, &kc->fill);
	buf_printf(b, "static const %s %s[%lld] = {", elem_name(kc->type), name, (long long)n);
	for (j = 0; j < n; j++) {
		buf_puts(b, j ? "," : "");
		buf_puts(b, j % 6 ? " " : "\n\t");
		put_elem(b, p, (size_t)j, kc->type);
	}
	buf_puts(b, "\n};\n");
	free(p);
	return 0;
}

static void header(struct buf *b, const char *base, const struct config *c,
                   const struct variant *v, const struct vars *vars)
{
	char *uname = emit_upper(c->name), *ubase = emit_upper(base), *cname;
	struct vars pv = {0};
	size_t i;

	for (i = 0; i < c->nparams; i++)
		vars_set(&pv, c->params[i].name, v->vals[i]);
	buf_printf(b, "#ifndef TUNER_%s_%s_H\n#define TUNER_%s_%s_H\n\n", uname, ubase, uname,
	           ubase);
	buf_puts(b, "/* parameters of this variant */\n");
	for (i = 0; i < c->nparams; i++)
		buf_printf(b, "#define %s_%s %lld\n", uname, c->params[i].name, (long long)v->vals[i]);
	buf_puts(b, "\n");
	emit_helpers(b);
	buf_printf(b, "\n/* launch geometry of %s for the given problem size on a GPU with sms "
	              "multiprocessors\n   (cudaDevAttrMultiProcessorCount; tuner_device_sms() "
	              "reads the current device's):\n"
	              "     %s<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), "
	              "shared_bytes>>>(",
	           c->kernel.entry, c->kernel.entry);
	for (i = 0; i < c->kernel.nargs; i++) {
		const struct arg *a = &c->kernel.args[i];
		buf_puts(b, i ? ", " : "");
		if (a->buffer < 0 && (a->type == EL_F32 || a->type == EL_F64)) {
			/* C's arithmetic is the tuner's: the value it passed, of its type */
			buf_printf(b, "(%s)(", elem_name(a->type));
			expr_print_c(a->value, &pv, b);
			buf_puts(b, ")");
			continue;
		}
		buf_puts(b, a->buffer >= 0 ? c->buffers[a->buffer].name : expr_src(a->value));
	}
	buf_puts(b, ");\n   above 48 KiB of dynamic shared memory, first call cudaFuncSetAttribute("
	            "kernel,\n   cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes). */\n");
	buf_printf(b, "static inline void %s_launch(", c->name);
	emit_size_params(b, c);
	buf_puts(b, ", unsigned block[3], unsigned grid[3], unsigned *shared_bytes)\n{\n");
	emit_size_prelude(b, c, "\t");
	emit_geometry(b, c, &pv, "\t");
	buf_puts(b, "}\n");
	if (v->bank_bytes)
		buf_printf(b, "\n/* shared-memory bank size the variant was tuned with "
		              "(cudaDeviceSetSharedMemConfig; a no-op on sm_75 and newer) */\n"
		              "#define %s_BANK_BYTES_MODE %d\n", uname, v->bank_bytes);
	buf_printf(b, "\n/* the buffers, in the config's order: for each buffer BUF, %s_BUF_count() "
	              "is its element count\n   for the problem size and the multiprocessor count, "
	              "%s_BUF_ROLE its role (enum tuner_role)\n   and %s_BUF_ZERO 1 when it must be "
	              "all zero before the first launch */\n", c->name, uname, uname);
	for (i = 0; i < c->nbuffers; i++) {
		emit_buffer_doc(b, c, i, c->name);
		buf_printf(b, "static inline long long %s_%s_count(", c->name, c->buffers[i].name);
		emit_size_params(b, c);
		buf_puts(b, ")\n{\n");
		emit_size_prelude(b, c, "\t");
		buf_puts(b, "\treturn ");
		expr_print_c(c->buffers[i].count, &pv, b);
		buf_puts(b, ";\n}\n");
	}
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *k = &c->constants[i];

		cname = xasprintf("%s_%s_values", c->name, k->name);
		buf_printf(b, "\n/* values of __constant__ %s, to set before the first launch:\n"
		              "   cudaMemcpyToSymbol(%s, %s, sizeof %s) */\n", k->name, k->name, cname,
		           cname);
		if (emit_constant_values(b, c, i, vars, cname) < 0)
			buf_printf(b, "/* (its count, %s, has no value for this variant) */\n",
			           expr_src(k->count));
		free(cname);
	}
	buf_puts(b, "\n#endif\n");
	free(uname);
	free(ubase);
}

int emit_variant(struct fileset *set, const char *dir, const char *base, const struct config *c,
                 const struct variant *v, const struct vars *vars, const struct result *r,
                 const struct runinfo *ri, const char *tmpl)
{
	struct buf src = {0}, hdr = {0};
	char *path;
	int rc;

	provenance(&src, c, v, r, ri);
	source_defines(&src, c, v);
	buf_puts(&src, tmpl);
	provenance(&hdr, c, v, r, ri);
	header(&hdr, base, c, v, vars);
	path = xasprintf("%s/%s.cu", dir, base);
	rc = fileset_put(set, path, src.s, src.len);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/%s.h", dir, base);
		rc = fileset_put(set, path, hdr.s, hdr.len);
		free(path);
	}
	buf_free(&src);
	buf_free(&hdr);
	return rc;
}
