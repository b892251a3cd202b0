/* emit: a variant as standalone CUDA source plus a launch header. */
#include "emit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "version.h"

static void provenance(struct buf *b, const struct config *c, const struct variant *v,
                       const struct result *r, const struct runinfo *ri)
{
	char *p = space_params_str(c, v);
	size_t i;

	buf_printf(b, "/*\n * %s variant %s, emitted by tuner %s on %s.\n", c->name, v->id,
	           TUNER_VERSION, ri->date);
	buf_printf(b, " * config: %s\n * parameters: %s\n * sizes:", c->path, p);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, " %s=%lld", c->sizes[i].name, (long long)c->sizes[i].val);
	buf_printf(b, "\n * NVRTC %s, compiled for %s", ri->nvrtc, ri->arch);
	if (r->co.ok && r->co.regs >= 0)
		buf_printf(b, ": %d registers, %d bytes spilled, %d bytes static + %lld bytes dynamic "
		           "shared memory", r->co.regs, r->co.spill_stores + r->co.spill_loads,
		           r->co.smem_static, (long long)v->shared);
	buf_puts(b, "\n");
	if (ri->timed && r->status == ST_OK) {
		buf_printf(b, " * GPU: %s, compute capability %d.%d, driver %d.%d\n", ri->gpu.name,
		           ri->gpu.cc_major, ri->gpu.cc_minor, ri->gpu.driver_version / 1000,
		           ri->gpu.driver_version % 1000 / 10);
		buf_printf(b, " * time: median %.4f ms, min %.4f ms, spread %.1f %% over %d samples\n",
		           r->run.t.median_ms, r->run.t.min_ms, 100 * r->run.t.spread, r->run.t.n);
		buf_printf(b, " * bandwidth: %.1f GB/s = %.1f %% of a copy kernel timed in the same run "
		           "(%.1f GB/s), %.1f %% of a read-only kernel (%.1f GB/s)\n", r->gbs,
		           r->pct_copy, ri->copy_gbs, r->pct_read, ri->read_gbs);
		buf_printf(b, " * verified against the reference: max abs error %.3g, max rel error %.3g\n",
		           r->run.max_abs_err, r->run.max_rel_err);
	} else {
		buf_printf(b, " * NOT TIMED and NOT VERIFIED: %s\n",
		           ri->timed ? report_status(r->status) : ri->why_untimed);
	}
	buf_puts(b, " */\n");
	free(p);
}

static char *upper(const char *s)
{
	char *u = xstrdup(s), *p;

	for (p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

static void header(struct buf *b, const char *base, const struct config *c,
                   const struct variant *v)
{
	char *uname = upper(c->name), *ubase = upper(base);
	struct vars pv = {0};
	size_t i;
	int64_t sms;
	int d;

	for (i = 0; i < c->nparams; i++)
		vars_set(&pv, c->params[i].name, v->vals[i]);
	if (vars_get(&v->vars, CFG_SMS, &sms)) /* the GPU it was tuned on */
		vars_set(&pv, CFG_SMS, sms);
	buf_printf(b, "#ifndef TUNER_%s_%s_H\n#define TUNER_%s_%s_H\n\n", uname, ubase, uname,
	           ubase);
	buf_puts(b, "/* parameters of this variant */\n");
	for (i = 0; i < c->nparams; i++)
		buf_printf(b, "#define %s_%s %lld\n", uname, c->params[i].name, (long long)v->vals[i]);
	buf_puts(b, "\n#ifndef TUNER_HELPERS\n#define TUNER_HELPERS\n"
	            "static inline long long tuner_ceil_div(long long a, long long b)\n"
	            "{\n\treturn a / b + ((a % b != 0) && ((a < 0) == (b < 0)));\n}\n"
	            "static inline long long tuner_min(long long a, long long b) "
	            "{ return a < b ? a : b; }\n"
	            "static inline long long tuner_max(long long a, long long b) "
	            "{ return a > b ? a : b; }\n"
	            "static inline long long tuner_log2(long long a)\n"
	            "{\n\tlong long r = -1;\n\twhile (a > 0) {\n\t\ta >>= 1;\n\t\tr++;\n\t}\n"
	            "\treturn r;\n}\n#endif\n\n");
	buf_printf(b, "/* launch geometry of %s for the given problem size:\n"
	              "     %s<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), "
	              "shared_bytes>>>(",
	           c->kernel.entry, c->kernel.entry);
	for (i = 0; i < c->kernel.nargs; i++) {
		const struct arg *a = &c->kernel.args[i];
		buf_printf(b, "%s%s", i ? ", " : "",
		           a->buffer >= 0 ? c->buffers[a->buffer].name : expr_src(a->value));
	}
	buf_puts(b, ");\n   above 48 KiB of dynamic shared memory, first call cudaFuncSetAttribute("
	            "kernel,\n   cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes). */\n");
	buf_printf(b, "static inline void %s_launch(", c->name);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, "long long %s, ", c->sizes[i].name);
	buf_puts(b, "unsigned block[3], unsigned grid[3], unsigned *shared_bytes)\n{\n");
	for (i = 0; i < c->nsizes; i++)
		buf_printf(b, "\t(void)%s;\n", c->sizes[i].name);
	for (d = 0; d < 3; d++) {
		buf_printf(b, "\tblock[%d] = (unsigned)", d);
		expr_print_c(c->kernel.launch.block[d], &pv, b);
		buf_puts(b, ";\n");
	}
	for (d = 0; d < 3; d++) {
		buf_printf(b, "\tgrid[%d] = (unsigned)", d);
		expr_print_c(c->kernel.launch.grid[d], &pv, b);
		buf_puts(b, ";\n");
	}
	buf_puts(b, "\t*shared_bytes = (unsigned)");
	if (c->kernel.launch.shared)
		expr_print_c(c->kernel.launch.shared, &pv, b);
	else
		buf_puts(b, "0");
	buf_puts(b, ";\n}\n");
	if (v->bank_bytes)
		buf_printf(b, "\n/* shared-memory bank size the variant was tuned with "
		              "(cudaDeviceSetSharedMemConfig; a no-op on sm_75 and newer) */\n"
		              "#define %s_BANK_BYTES_MODE %d\n", uname, v->bank_bytes);
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *k = &c->constants[i];
		int64_t n;
		struct expr_err err;

		if (k->fill.kind != FILL_LIST || expr_eval(k->count, &v->vars, &n, &err) < 0)
			continue;
		buf_printf(b, "\n/* values of __constant__ %s (cudaMemcpyToSymbol) */\n", k->name);
		buf_printf(b, "static const %s %s_%s_values[%lld] = {", elem_name(k->type), c->name,
		           k->name, (long long)n);
		for (int64_t j = 0; j < n; j++)
			buf_printf(b, "%s%s%.9g%s", j ? "," : "", j % 6 ? " " : "\n\t",
			           k->fill.list[j % (int64_t)k->fill.nlist],
			           k->type == EL_F32 ? "f" : "");
		buf_puts(b, "\n};\n");
	}
	buf_puts(b, "\n#endif\n");
	free(uname);
	free(ubase);
}

int emit_variant(const char *dir, const char *base, const struct config *c,
                 const struct variant *v, const struct result *r, const struct runinfo *ri,
                 const char *tmpl)
{
	struct buf src = {0}, hdr = {0};
	char *path;
	int rc;

	provenance(&src, c, v, r, ri);
	source_defines(&src, c, v);
	buf_puts(&src, tmpl);
	provenance(&hdr, c, v, r, ri);
	header(&hdr, base, c, v);
	path = xasprintf("%s/%s.cu", dir, base);
	rc = file_write_atomic(path, src.s, src.len);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/%s.h", dir, base);
		rc = file_write_atomic(path, hdr.s, hdr.len);
		free(path);
	}
	buf_free(&src);
	buf_free(&hdr);
	return rc;
}
