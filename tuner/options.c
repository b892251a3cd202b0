/* options: the NVRTC and ptxas options a config may pass: those that read and write no file. */
#include "options.h"

#include <ctype.h>
#include <string.h>

#include "util.h"
#include "yamltree.h"

/* what an option takes after its name */
enum optval {
	OV_NONE,  /* nothing */
	OV_WORD,  /* "=VALUE", VALUE one of the words of vals */
	OV_NUM,   /* "=N", a decimal number */
	OV_NUMS,  /* "=N,N,...", decimal numbers */
	OV_MACRO, /* a macro: -DNAME[=VALUE], --define-macro=NAME[=VALUE]; -U and its long
	             spelling take NAME alone */
	OV_PTXAS, /* "=OPTION", one of ptxas_opts */
};

/* an option a config may pass; none of them reads or writes a file */
struct nvopt {
	const char *s, *l;    /* the short and long spellings (either may be NULL) */
	enum optval val;
	const char *vals;     /* OV_WORD: the values, separated by spaces */
};

/* NVRTC's options that read or write no file: the include paths and pre-includes, the
   precompiled headers and --time are left out (a config names the files the tuner reads in
   template and reference, where the journal and the cache see them), and so are the options
   that make no cubin or that the tuner sets itself (the architecture) */
static const struct nvopt nvrtc_opts[] = {
	{"-G", "--device-debug", OV_NONE, NULL},
	{"-lineinfo", "--generate-line-info", OV_NONE, NULL},
	{"-dopt", "--dopt", OV_WORD, "on"},
	{"-Ofc", "--Ofast-compile", OV_WORD, "0 min mid max"},
	{"-maxrregcount", "--maxrregcount", OV_NUM, NULL},
	{"-ftz", "--ftz", OV_WORD, "true false"},
	{"-prec-sqrt", "--prec-sqrt", OV_WORD, "true false"},
	{"-prec-div", "--prec-div", OV_WORD, "true false"},
	{"-fmad", "--fmad", OV_WORD, "true false"},
	{"-use_fast_math", "--use_fast_math", OV_NONE, NULL},
	{"-extra-device-vectorization", "--extra-device-vectorization", OV_NONE, NULL},
	{"-modify-stack-limit", "--modify-stack-limit", OV_WORD, "true false"},
	{"-jtd", "--jump-table-density", OV_NUM, NULL},
	{"-D", "--define-macro", OV_MACRO, NULL},
	{"-U", "--undefine-macro", OV_MACRO, NULL},
	{"-std", "--std", OV_WORD, "c++03 c++11 c++14 c++17 c++20"},
	{"-builtin-move-forward", "--builtin-move-forward", OV_WORD, "true false"},
	{"-builtin-initializer-list", "--builtin-initializer-list", OV_WORD, "true false"},
	{"-restrict", "--restrict", OV_NONE, NULL},
	{"-default-device", "--device-as-default-execution-space", OV_NONE, NULL},
	{"-device-int128", "--device-int128", OV_NONE, NULL},
	{"-opt-info", "--optimization-info", OV_WORD, "inline"},
	{"-w", "--disable-warnings", OV_NONE, NULL},
	{"-err-no", "--display-error-number", OV_NONE, NULL},
	{"-no-err-no", "--no-display-error-number", OV_NONE, NULL},
	{"-diag-error", "--diag-error", OV_NUMS, NULL},
	{"-diag-suppress", "--diag-suppress", OV_NUMS, NULL},
	{"-diag-warn", "--diag-warn", OV_NUMS, NULL},
	{"-brief-diag", "--brief-diagnostics", OV_WORD, "true false"},
	{"-no-source-include", "--no-source-include", OV_NONE, NULL},
	{"-Xptxas", "--ptxas-options", OV_PTXAS, NULL},
};

/* the ptxas options -Xptxas may pass, one per -Xptxas */
static const struct nvopt ptxas_opts[] = {
	{"-v", "--verbose", OV_NONE, NULL},
	{"-O0", NULL, OV_NONE, NULL},
	{"-O1", NULL, OV_NONE, NULL},
	{"-O2", NULL, OV_NONE, NULL},
	{"-O3", NULL, OV_NONE, NULL},
	{NULL, "--opt-level", OV_WORD, "0 1 2 3"},
	{"-maxrregcount", "--maxrregcount", OV_NUM, NULL},
	{"-warn-spills", "--warn-on-spills", OV_NONE, NULL},
	{"-warn-lmem-usage", "--warn-on-local-memory-usage", OV_NONE, NULL},
	{"-warn-double-usage", "--warn-on-double-precision-use", OV_NONE, NULL},
	{"-allow-expensive-optimizations", "--allow-expensive-optimizations", OV_WORD,
	 "true false"},
	{"-dlcm", "--def-load-cache", OV_WORD, "ca cg cs lu cv"},
	{"-dscm", "--def-store-cache", OV_WORD, "wb cg cs wt"},
	{"-fmad", "--fmad", OV_WORD, "true false"},
	{"-disable-optimizer-consts", "--disable-optimizer-constants", OV_NONE, NULL},
	{"-suppress-stack-size-warning", "--suppress-stack-size-warning", OV_NONE, NULL},
};

/* 1 if s is one or more decimal digits (at most 9), and with list, more such separated by ',' */
static int is_nums(const char *s, int list)
{
	size_t n;

	for (;;) {
		n = strspn(s, "0123456789");
		if (n == 0 || n > 9)
			return 0;
		s += n;
		if (!*s)
			return 1;
		if (!list || *s++ != ',')
			return 0;
	}
}

/* 1 if w is one of the space-separated words of list */
static int is_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	while (*list) {
		size_t k = strcspn(list, " ");
		if (k == n && !strncmp(list, w, n))
			return 1;
		list += k + (list[k] == ' ');
	}
	return 0;
}

/* the entry of t (n entries) that option o spells, or NULL; *val: its value (what follows
   the spelling and its '=', or a short macro option's spelling), NULL for none */
static const struct nvopt *opt_find(const struct nvopt *t, size_t n, const char *o,
                                    const char **val)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const char *sp[2] = {t[i].s, t[i].l};
		for (k = 0; k < 2; k++) {
			size_t len = sp[k] ? strlen(sp[k]) : 0;
			if (!len || strncmp(o, sp[k], len))
				continue;
			if (t[i].val == OV_MACRO && k == 0) { /* -DNAME */
				*val = o[len] ? o + len : NULL;
				return &t[i];
			}
			if (!o[len] || o[len] == '=') {
				*val = o[len] ? o + len + 1 : NULL;
				return &t[i];
			}
		}
	}
	return NULL;
}

/* refuse option o at node at (yamltree_err) unless t (n entries) allows it; kind names the tool */
static void opt_check(struct yamltree *doc, const struct node *at, const struct nvopt *t, size_t n,
                      const char *o, const char *kind)
{
	const struct nvopt *e;
	const char *v = NULL, *p;

	e = opt_find(t, n, o, &v);
	if (!e)
		yamltree_err(doc, at, "%s option '%s' is not allowed: a config may pass only the "
		             "options that read and write no file (docs/config.md lists them)", kind,
		             yamltree_show(doc, o));
	switch (e->val) {
	case OV_NONE:
		if (v)
			yamltree_err(doc, at, "%s option '%s' takes no value", kind,
			             yamltree_show(doc, o));
		return;
	case OV_MACRO:
		p = v;
		if (p && (isalpha((unsigned char)*p) || *p == '_'))
			for (p++; isalnum((unsigned char)*p) || *p == '_'; p++)
				;
		if (!v || p == v || (*p && (*p != '=' || e->s[1] == 'U')))
			yamltree_err(doc, at, "%s option '%s': give a macro name: '%sNAME'%s", kind,
			             yamltree_show(doc, o), e->s, e->s[1] == 'U' ? "" : " or '-DNAME=VALUE'");
		return;
	case OV_PTXAS:
		if (!v || !*v)
			yamltree_err(doc, at, "%s option '%s' needs its value in the same string: "
			             "'%s=OPTION'", kind, yamltree_show(doc, o), e->s);
		opt_check(doc, at, ptxas_opts, LEN(ptxas_opts), v, "ptxas");
		return;
	case OV_WORD:
		if (!v || !is_word(e->vals, v))
			yamltree_err(doc, at, "%s option '%s': the value must be one of: %s", kind,
			             yamltree_show(doc, o), e->vals);
		return;
	case OV_NUM:
	case OV_NUMS:
		if (!v || !is_nums(v, e->val == OV_NUMS))
			yamltree_err(doc, at, "%s option '%s': the value must be %s", kind,
			             yamltree_show(doc, o),
			             e->val == OV_NUMS ? "numbers separated by ','" : "a number");
		return;
	}
}

void options_check(struct yamltree *doc, const struct node *at, const char *o)
{
	if (!strncmp(o, "-arch", 5) || !strncmp(o, "--gpu-architecture", 18))
		yamltree_err(doc, at, "NVRTC option '%s' is not allowed: the tuner sets the "
		             "architecture (--arch, or the GPU's)", yamltree_show(doc, o));
	opt_check(doc, at, nvrtc_opts, LEN(nvrtc_opts), o, "NVRTC");
}
