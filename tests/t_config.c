/* Tests for config: tests/data/good.yaml field by field, defaults, and the error goldens in
 * tests/bad (NAME.yaml must fail with exit status 2 and exactly the stderr in NAME.err). */
#include "test.h"
#include "bank.h"
#include "config.h"
#include "expr.h"
#include "params.h"
#include "util.h"
#include "vars.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* evaluate e with the config's sizes and the given parameter values bound */
static int64_t eval(const struct config *c, const struct expr *e, const int64_t *pv)
{
	struct vars v = {0};
	struct expr_err err;
	int64_t r = -12345;
	size_t i;

	cfg_size_vars(c, 1, &v);
	for (i = 0; pv && i < c->nparams; i++)
		vars_set(&v, c->params[i].name, pv[i]);
	if (!e || expr_eval(e, &v, &r, &err))
		return -12345;
	return r;
}

static void load_free(const void *path)
{
	cfg_free(cfg_load(path));
}

/* a config in a temporary directory whose template is tests/data/good.cu (absolute) */
struct tmpcfg {
	char dir[64], path[128];
};

static int tmpcfg_write(struct tmpcfg *t, const char *body)
{
	const char *rel = test_path("tests/data/good.cu");
	char cwd[PATH_MAX];
	FILE *f;

	if (!getcwd(cwd, sizeof cwd))
		return -1;
	snprintf(t->dir, sizeof t->dir, "/tmp/t_config.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->path, sizeof t->path, "%s/c.yaml", t->dir);
	f = fopen(t->path, "w");
	if (!f)
		return -1;
	if (rel[0] == '/')
		fprintf(f, "template: %s\n%s", rel, body);
	else
		fprintf(f, "template: %s/%s\n%s", cwd, rel, body);
	return fclose(f);
}

static void tmpcfg_remove(struct tmpcfg *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

static const char minimal[] =
	"name: k\n"
	"entry: k\n"
	"sizes: {n: 5}\n"
	"params: {B: [1]}\n"
	"buffers: [{name: o, type: float, count: n, role: out}]\n"
	"args: [o, n]\n"
	"launch: {block: [B], grid: [n]}\n"
	"bytes: 4 * n\n"
	"reference: {entry: k_ref, launch: {block: [1], grid: [n]}}\n";

TEST(config_good)
{
	struct config *c = cfg_load(test_path("tests/data/good.yaml"));
	int64_t pv[2] = {256, -1};
	const struct buffer *b;
	char *want = xstrdup(test_path("tests/data/good.cu"));

	CHECK(c != NULL);
	if (!c) {
		free(want);
		return;
	}
	CHECK_STR(c->path, test_path("tests/data/good.yaml"));
	CHECK_STR(c->name, "good_1");
	CHECK_STR(c->kernel.source, want);
	CHECK_STR(c->kernel.entry, "good");
	CHECK_EQ(c->noptions, 2);
	if (c->noptions == 2) {
		CHECK_STR(c->options[0], "-use_fast_math");
		CHECK_STR(c->options[1], "-lineinfo");
	}

	CHECK_EQ(c->nsizes, 2);
	if (c->nsizes == 2) {
		CHECK_STR(c->sizes[0].name, "n");
		CHECK_EQ(c->sizes[0].val, 1000);
		CHECK_EQ(c->sizes[0].loc.line, 8);
		CHECK_EQ(c->sizes[0].loc.col, 3);
		CHECK_STR(c->sizes[1].name, "m");
		CHECK_EQ(c->sizes[1].val, 16);
	}
	CHECK_EQ(c->nparams, 2);
	if (c->nparams == 2) {
		CHECK_STR(c->params[0].name, "BLOCK");
		CHECK_EQ(c->params[0].nvals, 3);
		CHECK_EQ(c->params[0].vals[0], 128);
		CHECK_EQ(c->params[0].vals[2], 512);
		CHECK_EQ(c->params[0].loc.line, 12);
		CHECK_STR(c->params[1].name, "PAD");
		CHECK_EQ(c->params[1].nvals, 2);
		CHECK_EQ(c->params[1].vals[1], -1);
	}
	CHECK_EQ(c->nconstraints, 2);
	if (c->nconstraints == 2) {
		CHECK_STR(expr_src(c->constraints[0].e), "BLOCK % 32 == 0");
		CHECK_EQ(c->constraints[0].loc.line, 16);
		CHECK_EQ(c->constraints[0].loc.col, 5);
		CHECK_STR(expr_src(c->constraints[1].e), "!PAD || BLOCK >= m");
		CHECK_EQ(eval(c, c->constraints[1].e, pv), 1);
	}

	CHECK_EQ(c->nbuffers, 5);
	if (c->nbuffers == 5) {
		b = &c->buffers[0];
		CHECK_STR(b->name, "in");
		CHECK_EQ(b->type, EL_F32);
		CHECK_EQ(b->role, ROLE_IN);
		CHECK_EQ(eval(c, b->count, NULL), 1020);
		CHECK_EQ(b->fill.kind, FILL_RANDOM);
		CHECK_EQ(b->fill.seed, 7);
		CHECK(b->fill.lo == -2 && b->fill.hi == 0.5);
		CHECK_EQ(b->loc.line, 20);
		CHECK_EQ(b->loc.col, 5);
		b = &c->buffers[1];
		CHECK_STR(b->name, "out");
		CHECK_EQ(b->type, EL_F64);
		CHECK_EQ(b->role, ROLE_OUT);
		CHECK_EQ(eval(c, b->count, NULL), 1000);
		b = &c->buffers[2];
		CHECK_STR(b->name, "tmp");
		CHECK_EQ(b->type, EL_U64);
		CHECK_EQ(b->role, ROLE_SCRATCH);
		CHECK_EQ(eval(c, b->count, pv), 512);
		CHECK_EQ(b->fill.kind, FILL_RANGE);
		CHECK(b->fill.start == 1.5 && b->fill.step == -0.25);
		b = &c->buffers[3];
		CHECK_EQ(b->type, EL_I32);
		CHECK_EQ(b->fill.kind, FILL_RANDOM); /* the default */
		CHECK_EQ(b->fill.seed, 1);
		CHECK(b->fill.lo == -1 && b->fill.hi == 1);
		b = &c->buffers[4];
		CHECK_EQ(b->type, EL_U32);
		CHECK_EQ(b->fill.kind, FILL_CONST);
		CHECK(b->fill.value == 3);
	}
	CHECK_EQ(c->nconstants, 1);
	if (c->nconstants == 1) {
		CHECK_STR(c->constants[0].name, "coef");
		CHECK_EQ(c->constants[0].type, EL_I64);
		CHECK_EQ(eval(c, c->constants[0].count, NULL), 5);
		CHECK_EQ(c->constants[0].fill.kind, FILL_LIST);
		CHECK_EQ(c->constants[0].fill.nlist, 3);
		if (c->constants[0].fill.nlist == 3)
			CHECK(c->constants[0].fill.list[0] == 0.1 &&
			      c->constants[0].fill.list[1] == 2 &&
			      c->constants[0].fill.list[2] == -3e-2);
	}

	CHECK_EQ(c->kernel.nargs, 4);
	if (c->kernel.nargs == 4) {
		CHECK_EQ(c->kernel.args[0].buffer, 1);
		CHECK(c->kernel.args[0].value == NULL);
		CHECK_EQ(c->kernel.args[1].buffer, 0);
		CHECK_EQ(c->kernel.args[2].buffer, -1);
		CHECK_EQ(c->kernel.args[2].type, EL_I32);
		CHECK_EQ(eval(c, c->kernel.args[2].value, NULL), 1000);
		CHECK_EQ(c->kernel.args[3].buffer, -1);
		CHECK_EQ(c->kernel.args[3].type, EL_I64);
		CHECK_EQ(eval(c, c->kernel.args[3].value, NULL), 2000);
		CHECK_EQ(c->kernel.args[3].loc.line, 50);
	}
	CHECK_EQ(eval(c, c->kernel.launch.block[0], pv), 256);
	CHECK_EQ(eval(c, c->kernel.launch.block[1], pv), 2);
	CHECK_EQ(eval(c, c->kernel.launch.block[2], pv), 1);
	CHECK_EQ(eval(c, c->kernel.launch.grid[0], pv), 4);
	CHECK_EQ(eval(c, c->kernel.launch.grid[1], pv), 1);
	CHECK_EQ(eval(c, c->kernel.launch.grid[2], pv), 1);
	CHECK_EQ(eval(c, c->kernel.launch.shared, pv), (256 + 20 - 1) * 4);
	CHECK_EQ(eval(c, c->kernel.launch.bank_bytes, pv), 8);
	CHECK_EQ(eval(c, c->bytes, pv), 7999);

	CHECK(c->has_reference);
	CHECK_STR(c->reference.source, want);
	CHECK_STR(c->reference.entry, "good_ref");
	CHECK_EQ(c->reference.nargs, 4); /* the kernel's, by default */
	if (c->reference.nargs == 4) {
		CHECK_EQ(c->reference.args[0].buffer, 1);
		CHECK_EQ(c->reference.args[3].type, EL_I64);
		CHECK(c->reference.args[3].value != c->kernel.args[3].value);
		CHECK_EQ(eval(c, c->reference.args[3].value, NULL), 2000);
	}
	CHECK_EQ(eval(c, c->reference.launch.block[0], NULL), 256);
	CHECK_EQ(eval(c, c->reference.launch.block[1], NULL), 1);
	CHECK_EQ(eval(c, c->reference.launch.grid[0], NULL), 4);
	CHECK_EQ(eval(c, c->reference.launch.grid[1], NULL), 16);
	CHECK_EQ(eval(c, c->reference.launch.grid[2], NULL), 3);
	CHECK_EQ(eval(c, c->reference.launch.shared, NULL), 0);
	CHECK(c->reference.launch.bank_bytes == NULL);

	CHECK(c->rtol == 1e-3);
	CHECK(c->atol == 0);
	CHECK_EQ(c->warmup, 0);
	CHECK_EQ(c->samples, 7);
	CHECK_EQ(c->l2, CFG_L2_RESIDENT);
	cfg_free(c);
	free(want);
}

TEST(config_defaults)
{
	struct tmpcfg t;
	struct config *c;

	CHECK(tmpcfg_write(&t, minimal) == 0);
	c = cfg_load(t.path);
	CHECK(c->options == NULL && c->noptions == 0);
	CHECK_EQ(c->nconstraints, 0);
	CHECK_EQ(c->nconstants, 0);
	CHECK_EQ(c->buffers[0].role, ROLE_OUT);
	CHECK_EQ(c->kernel.args[0].buffer, 0);
	CHECK_EQ(c->kernel.args[1].buffer, -1);
	CHECK_EQ(eval(c, c->kernel.launch.shared, NULL), 0);
	CHECK(c->kernel.launch.bank_bytes == NULL);
	CHECK_STR(c->reference.source, c->kernel.source);
	CHECK_EQ(c->reference.nargs, 2);
	CHECK(c->rtol == 1e-5);
	CHECK(c->atol == 1e-6);
	CHECK_EQ(c->warmup, 1);
	CHECK_EQ(c->samples, 10);
	CHECK_EQ(c->l2, CFG_L2_AUTO);
	cfg_free(c);
	tmpcfg_remove(&t);
}

TEST(config_reference)
{
	struct tmpcfg t;
	struct config *c;
	static const char body[] =
		"name: k\n"
		"entry: k\n"
		"sizes: {n: 5, m: 2}\n"
		"params: {B: [1, 2]}\n"
		"buffers: [{name: o, type: float, count: n, role: out},"
		" {name: s, type: float, count: n * B, role: scratch, fill: {const: 0}}]\n"
		"args: [o, s, B]\n"
		"launch: {block: [B], grid: [n]}\n"
		"bytes: 4 * n\n"
		"reference:\n"
		"  source: c.yaml\n"
		"  entry: k_ref\n"
		"  args: [m, o, {value: n, type: unsigned_long}]\n"
		"  launch: {block: [1], grid: [n], shared: m * 4, bank_bytes: 4}\n";

	CHECK(tmpcfg_write(&t, body) == 0);
	c = cfg_load(t.path);
	CHECK_STR(c->reference.source, t.path);
	CHECK_EQ(c->reference.nargs, 3);
	CHECK_EQ(c->reference.args[0].buffer, -1);
	CHECK_EQ(eval(c, c->reference.args[0].value, NULL), 2);
	CHECK_EQ(c->reference.args[1].buffer, 0);
	CHECK_EQ(c->reference.args[2].type, EL_U64);
	CHECK_EQ(eval(c, c->reference.launch.shared, NULL), 8);
	CHECK_EQ(eval(c, c->reference.launch.bank_bytes, NULL), 4);
	cfg_free(c);
	tmpcfg_remove(&t);
}

static void set_size(const void *arg)
{
	struct config *c = cfg_load(test_path("tests/data/good.yaml"));

	cfg_set_size(c, arg);
	cfg_free(c);
}

TEST(config_set_size)
{
	struct config *c = cfg_load(test_path("tests/data/good.yaml"));
	struct vars v = {0};
	int64_t n = 0;
	char err[512];

	cfg_set_size(c, "n=123");
	cfg_set_size(c, "m=0x20");
	cfg_size_vars(c, 7, &v);
	CHECK(vars_get(&v, "n", &n) && n == 123);
	CHECK(vars_get(&v, "m", &n) && n == 32);
	CHECK(vars_get(&v, CFG_SMS, &n) && n == 7);
	CHECK_EQ(v.n, 3);
	CHECK_EQ(eval(c, c->buffers[0].count, NULL), 143);
	cfg_free(c);

	CHECK_EQ(test_in_child(set_size, "q=5", err, sizeof err), 2);
	CHECK_STR(err, "tuner: unknown size 'q'\n");
	CHECK_EQ(test_in_child(set_size, "n=12x", err, sizeof err), 2);
	CHECK_STR(err, "tuner: size 'n': '12x' is not an integer (decimal, or hexadecimal with 0x)\n");
	CHECK_EQ(test_in_child(set_size, "n=-1", err, sizeof err), 2);
	CHECK_STR(err, "tuner: size 'n': '-1' is negative\n");
	CHECK_EQ(test_in_child(set_size, "n=99999999999999999999", err, sizeof err), 2);
	CHECK_STR(err, "tuner: size 'n': '99999999999999999999' is out of range (at most "
	          "9223372036854775807)\n");
	CHECK_EQ(test_in_child(set_size, "n", err, sizeof err), 2);
	CHECK_STR(err, "tuner: size 'n' must be name=value\n");
}

static void set_size_val(const void *arg)
{
	struct config *c = cfg_load(test_path("tests/data/good.yaml"));

	cfg_set_size_val(c, arg, strcmp(arg, "n") ? 5 : -1);
	cfg_free(c);
}

/* a size set by name and value, as bundle and merge set the sizes results record */
TEST(config_set_size_val)
{
	struct config *c = cfg_load(test_path("tests/data/good.yaml"));
	struct vars v = {0};
	int64_t n = 0;
	char err[512];

	cfg_set_size_val(c, "n", 123);
	cfg_set_size_val(c, "m", 32);
	cfg_size_vars(c, 7, &v);
	CHECK(vars_get(&v, "n", &n) && n == 123);
	CHECK(vars_get(&v, "m", &n) && n == 32);
	CHECK_EQ(eval(c, c->buffers[0].count, NULL), 143);
	cfg_free(c);
	CHECK_EQ(test_in_child(set_size_val, "q", err, sizeof err), 2);
	CHECK_STR(err, "tuner: unknown size 'q'\n");
	CHECK_EQ(test_in_child(set_size_val, "n=1", err, sizeof err), 2); /* a name, not "n=..." */
	CHECK_STR(err, "tuner: unknown size 'n=1'\n");
	CHECK_EQ(test_in_child(set_size_val, "n", err, sizeof err), 2);
	CHECK_STR(err, "tuner: size 'n': '-1' is negative\n");
}

TEST(config_elem)
{
	CHECK_EQ(elem_size(EL_F32), 4);
	CHECK_EQ(elem_size(EL_F64), 8);
	CHECK_EQ(elem_size(EL_I32), 4);
	CHECK_EQ(elem_size(EL_U32), 4);
	CHECK_EQ(elem_size(EL_I64), 8);
	CHECK_EQ(elem_size(EL_U64), 8);
	CHECK_STR(elem_name(EL_F32), "float");
	CHECK_STR(elem_name(EL_F64), "double");
	CHECK_STR(elem_name(EL_I32), "int");
	CHECK_STR(elem_name(EL_U32), "unsigned int");
	CHECK_STR(elem_name(EL_I64), "long long");
	CHECK_STR(elem_name(EL_U64), "unsigned long long");
}

TEST(config_unreadable)
{
	char err[512];
	char *dir = xstrdup(test_path("tests/data"));
	char *want = xasprintf("tuner: %s: cannot read config: Is a directory\n", dir);
	static const char *const nofile = "/nonexistent/t_config.yaml";

	CHECK_EQ(test_in_child(load_free, nofile, err, sizeof err), 2);
	CHECK_STR(err, "tuner: /nonexistent/t_config.yaml: cannot read config: "
	               "No such file or directory\n");
	CHECK_EQ(test_in_child(load_free, dir, err, sizeof err), 2);
	CHECK_STR(err, want);
	free(want);
	free(dir);
}

TEST(config_too_large)
{
	char err[512];
	size_t len = 0;
	char *s;

	char *big = xasprintf("%s/tuner-big-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(big);

	s = file_read_max(test_path("tests/data/good.yaml"), 1 << 20, &len);
	CHECK(s != NULL && strlen(s) == len && len > 0);
	free(s);
	errno = 0;
	CHECK(file_read_max(test_path("tests/data"), 100, &len) == NULL);
	CHECK_EQ(errno, EISDIR);
	/* a sparse file of 8 GiB: read no further than the limit */
	CHECK(fd >= 0 && ftruncate(fd, (off_t)8 << 30) == 0);
	if (fd >= 0)
		close(fd);
	CHECK_EQ(test_in_child(load_free, big, err, sizeof err), 2);
	CHECK(strstr(err, ": more than 1048576 bytes: too large for a config\n") != NULL);
	unlink(big);
	free(big);
	/* a device is no config (the reader takes regular files only) */
	CHECK_EQ(test_in_child(load_free, "/dev/zero", err, sizeof err), 2);
	CHECK_STR(err, "tuner: /dev/zero: cannot read config: not a regular file\n");
}

/* child: load tests/bad/NAME.yaml from the source root, as the user would */
static void load_bad(const void *rel)
{
	const char *root = getenv("TUNER_SRCDIR");

	if (root && chdir(root) < 0) {
		perror("chdir");
		exit(99);
	}
	cfg_free(cfg_load(rel));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* print s line by line, each line prefixed with "  " and mark */
static void show_lines(char mark, const char *s)
{
	size_t n;

	while (*s) {
		n = strcspn(s, "\n");
		fprintf(stderr, "  %c%.*s\n", mark, (int)n, s);
		s += n;
		if (*s)
			s++;
	}
}

/* a unified-diff-like view: '-' expected lines, '+' actual lines */
static void show_diff(const char *want, const char *got)
{
	fprintf(stderr, "  --- expected\n  +++ got\n");
	show_lines('-', want);
	show_lines('+', got);
}

TEST(config_errors)
{
	DIR *d = opendir(test_path("tests/bad"));
	struct dirent *e;
	char **names = NULL, err[4096], rel[512];
	size_t n = 0, i;
	int nerr = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) {
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = xstrndup(e->d_name, l - 5);
		}
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	CHECK(n >= 20);
	for (i = 0; i < n; i++) {
		char *want;
		int st;

		snprintf(rel, sizeof rel, "tests/bad/%s.err", names[i]);
		want = file_read(test_path(rel), NULL);
		snprintf(rel, sizeof rel, "tests/bad/%s.yaml", names[i]);
		st = test_in_child(load_bad, rel, err, sizeof err);
		if (!want || st != 2 || strcmp(want, err)) {
			if (!want)
				fprintf(stderr, "  %s: no .err file\n", rel);
			else if (st != 2)
				fprintf(stderr, "  %s: exit %d, want 2\n", rel, st);
			else
				fprintf(stderr, "  %s: stderr differs\n", rel);
			if (want)
				show_diff(want, err);
			nerr++;
		}
		free(want);
		free(names[i]);
	}
	free(names);
	CHECK_EQ(nerr, 0);
}

/* cfg_parse on "template: <tests/data/good.cu>\n" followed by body, as "mem.yaml" */
static struct config *parse_body(const char *body, char *err, size_t errlen)
{
	char cwd[PATH_MAX], *text;
	const char *t = test_path("tests/data/good.cu");
	struct config *c;

	if (t[0] != '/' && getcwd(cwd, sizeof cwd))
		text = xasprintf("template: %s/%s\n%s", cwd, t, body);
	else
		text = xasprintf("template: %s\n%s", t, body);
	err[0] = '\0';
	c = cfg_parse("mem.yaml", text, strlen(text), err, errlen);
	free(text);
	return c;
}

/* body is minimal with line 'line' (1-based, counting the template line) replaced by repl */
static char *minimal_with(int line, const char *repl)
{
	struct buf b = {0};
	const char *s = minimal, *e;
	int l = 2;

	for (; *s; s = e, l++) {
		e = strchr(s, '\n') + 1;
		if (l == line)
			buf_puts(&b, repl);
		else
			buf_add(&b, s, (size_t)(e - s));
	}
	return b.s;
}

TEST(config_parse)
{
	char err[256];
	struct config *c = parse_body(minimal, err, sizeof err);
	char small[12];

	CHECK(c != NULL);
	CHECK_STR(err, "");
	if (c)
		CHECK_STR(c->name, "k");
	cfg_free(c);
	/* errors come back, the process goes on */
	CHECK(cfg_parse("m.yaml", "", 0, err, sizeof err) == NULL);
	CHECK_STR(err, "m.yaml:1:1: empty config");
	CHECK(cfg_parse("m.yaml", "[1", 2, err, sizeof err) == NULL);
	CHECK_STR(err, "m.yaml:1:3: did not find expected ',' or ']' (while parsing a flow sequence "
	               "at 1:1)"); /* at the end of the text, not on a line after it */
	CHECK(cfg_parse("m.yaml", "a: [1\n", 6, err, sizeof err) == NULL);
	CHECK_STR(err, "m.yaml:2:1: did not find expected ',' or ']' (while parsing a flow sequence "
	               "at 1:4)");
	CHECK(parse_body("name: k\n", err, sizeof err) == NULL);
	CHECK_STR(err, "mem.yaml:1:1: missing required key 'entry'");
	/* the text need not end in a nul; err is truncated to errlen */
	CHECK(cfg_parse("m.yaml", "a: 1\nb: [", 5, small, sizeof small) == NULL);
	CHECK_STR(small, "m.yaml:1:1:");
	CHECK(cfg_parse("m.yaml", "a: 1", 4, NULL, 0) == NULL);
}

/* cfg_parse gives what cfg_load prints, less "tuner: " and the newline, for every tests/bad */
TEST(config_parse_matches_load)
{
	DIR *d = opendir(test_path("tests/bad"));
	struct dirent *e;
	char rel[512], err[4096], *want, *text;
	size_t len, n = 0;
	int bad = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		snprintf(rel, sizeof rel, "tests/bad/%.*s.err", (int)(l - 5), e->d_name);
		want = file_read(test_path(rel), NULL);
		snprintf(rel, sizeof rel, "tests/bad/%s", e->d_name);
		text = file_read(test_path(rel), &len);
		if (!want || !text) {
			free(want);
			free(text);
			continue;
		}
		n++;
		/* the goldens name the file as tests/bad/NAME.yaml; parse it under that name */
		if (getenv("TUNER_SRCDIR") && chdir(getenv("TUNER_SRCDIR")) < 0)
			bad++;
		if (cfg_parse(rel, text, len, err, sizeof err) || strncmp(want, "tuner: ", 7) ||
		    strlen(want) != strlen(err) + 8 || strncmp(want + 7, err, strlen(err))) {
			fprintf(stderr, "  %s: cfg_parse said '%s'\n", rel, err);
			bad++;
		}
		free(want);
		free(text);
	}
	closedir(d);
	CHECK(n >= 30);
	CHECK_EQ(bad, 0);
}

/* result_digest of minimal with line 'line' replaced by repl (0: minimal); 0 on an error */
static uint64_t digest_with(int line, const char *repl)
{
	char *body = line ? minimal_with(line, repl) : xstrdup(minimal), err[256];
	struct config *c = parse_body(body, err, sizeof err);
	uint64_t d = c ? c->result_digest : 0;

	if (!c)
		fprintf(stderr, "  %s\n", err);
	cfg_free(c);
	free(body);
	return d;
}

/* the digest follows the values that can change a result, not how the file writes them */
TEST(config_result_digest)
{
	static const char ref[] = "reference: {entry: k_ref, launch: {block: [1], grid: [n]}}\n";
	char *acc = xasprintf("%saccesses: [{name: a, array: s, elem: 4, index: tid}]\n", ref);
	uint64_t d = digest_with(0, NULL);

	CHECK(d != 0);
	CHECK(digest_with(0, NULL) == d);
	/* other quotes, block style, other key orders */
	CHECK(digest_with(7, "args: [\"o\", 'n']\n") == d);
	CHECK(digest_with(6, "buffers:\n  - role: out\n    name: o\n    count: n\n"
	                     "    type: float\n") == d);
	CHECK(digest_with(10, "reference:\n  launch: {grid: [n], block: [1]}\n  entry: k_ref\n")
	      == d);
	/* not results, or per variant */
	CHECK(digest_with(2, "name: k2\n") == d);
	CHECK(digest_with(5, "params: {B: [1, 2, 4]}\n") == d);
	CHECK(digest_with(8, "launch: {block: [B, 2], grid: [n], shared: 64}\n") == d);
	CHECK(digest_with(9, "bytes: 8 * n\n") == d);
	CHECK(digest_with(10, acc) == d);
	/* results */
	CHECK(digest_with(3, "entry: k2\n") != d);
	CHECK(digest_with(6, "buffers: [{name: o, type: double, count: n, role: out}]\n") != d);
	CHECK(digest_with(7, "args: [o, n + 1]\n") != d);
	CHECK(digest_with(10, "reference: {entry: k_ref, launch: {block: [1], grid: [n], "
	                      "shared: 4}}\n") != d);
	free(acc);
	acc = xasprintf("%stolerance: {}\ntiming: {}\n", ref); /* empty mappings */
	CHECK(digest_with(10, acc) != 0);
	free(acc);
}

TEST(config_expr_loc)
{
	char err[256], *body = minimal_with(8, "launch: {block: [B], grid: ['n / B', n]}\n");
	struct config *c;
	struct loc l = {0, 0};

	c = parse_body(body, err, sizeof err);
	free(body);
	CHECK(c != NULL);
	if (!c)
		return;
	/* launch: {block: [B], grid: ['n / B', n]}: 'n / B' starts in column 30, '/' is byte 2 */
	CHECK(cfg_expr_loc(c, c->kernel.launch.grid[0], 2, &l));
	CHECK_EQ(l.line, 8);
	CHECK_EQ(l.col, 32);
	CHECK(cfg_expr_loc(c, c->bytes, 0, &l));
	CHECK_EQ(l.line, 9);
	CHECK_EQ(l.col, 8);
	/* a missing dimension is no expression of the file */
	CHECK(!cfg_expr_loc(c, c->kernel.launch.grid[2], 0, &l));
	cfg_free(c);
}

TEST(config_long_values_are_shown_short)
{
	char err[512], *body, *name = xmalloc(1000);
	struct config *c;

	/* 59 'a' and then a two-byte character across the 60-byte limit: cut before it */
	memset(name, 'a', 999);
	name[999] = '\0';
	memcpy(name + 59, "\xc3\xa9", 2);
	body = xasprintf("%s: 1\n%s", name, minimal);
	c = parse_body(body, err, sizeof err);
	CHECK(c == NULL);
	CHECK_STR(err, "mem.yaml:2:1: unknown key "
	               "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");
	free(body);
	body = minimal_with(2, "name: \"a\\tb\\x7f\"\n");
	cfg_free(parse_body(body, err, sizeof err));
	CHECK_STR(err, "mem.yaml:2:7: invalid name 'a\\x09b\\x7f': use letters, digits and '_'");
	free(body);
	free(name);
}

TEST(config_param_duplicates)
{
	static const struct {
		const char *line, *err;
	} t[] = {
		{"params: {B: [1, 2, 3, 2, 1]}\n", "mem.yaml:5:23: duplicate value 2 in 'B'"},
		{"params: {B: [1, x, 1]}\n", "mem.yaml:5:17: unknown name 'x'"},
		{"params: {B: [1, 2.5, 1]}\n", "mem.yaml:5:17: 'B' must be an integer, not '2.5'"},
		{"params: {B: [1, 1, x]}\n", "mem.yaml:5:17: duplicate value 1 in 'B'"},
		{"params: {B: [-9223372036854775808, 0x7fffffffffffffff, 0, -0]}\n",
		 "mem.yaml:5:59: duplicate value 0 in 'B'"},
		{"params: {B: [1, []]}\n", "mem.yaml:5:17: 'B' must be a string"},
	};
	char err[256];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		char *body = minimal_with(5, t[i].line);
		struct config *c = parse_body(body, err, sizeof err);
		CHECK(c == NULL);
		CHECK_STR(err, t[i].err);
		cfg_free(c);
		free(body);
	}
}

/* accesses: every field, the defaults, where each expression is, and what bank_eval makes of
   the result (the 32 x 32 tile's column read, unpadded and padded) */
TEST(config_accesses)
{
	static const char body[] =
		"name: k\n"
		"entry: k\n"
		"sizes: {n: 5}\n"
		"params: {PAD: [0, 1], W: [4]}\n"
		"buffers: [{name: o, type: float, count: n, role: out}]\n"
		"args: [o, n]\n"
		"launch: {block: [32, 8], grid: [n]}\n"
		"bytes: 4 * n\n"
		"reference: {entry: k_ref, launch: {block: [1], grid: [n]}}\n"
		"accesses:\n"
		"  - name: col\n"
		"    array: tile\n"
		"    elem: 4\n"
		"    loops: [{k: 4}]\n"
		"    let: [{r: ty + k * 8}]\n"
		"    index: tx * (32 + PAD) + r\n"
		"  - name: tree\n"
		"    array: s\n"
		"    op: store\n"
		"    elem: 2 * 2\n"
		"    width: W * 2\n"
		"    base: 128 * n\n"
		"    if: PAD == 0\n"
		"    loops:\n"
		"      - d: {from: 1, while: d < nthreads, next: d * 2}\n"
		"    when: 2 * d * tid < nthreads\n"
		"    index: xor(2 * d * tid, 0) + n - n\n";
	static const int64_t block[3] = {32, 8, 1};
	struct tmpcfg t;
	struct config *c;
	const struct bank_access *a;
	struct bank_stats st;
	struct bank_err e;
	struct vars v = {0};
	struct loc l = {0, 0};

	CHECK(tmpcfg_write(&t, body) == 0);
	c = cfg_load(t.path);
	CHECK_EQ(c->naccesses, 2);
	if (c->naccesses != 2)
		goto out;
	a = &c->accesses[0];
	CHECK_STR(a->name, "col");
	CHECK_STR(a->array, "tile");
	CHECK_EQ(a->store, 0);
	CHECK(a->width == NULL && a->base == NULL && a->cond == NULL && a->when == NULL);
	CHECK_EQ(a->nloops, 1);
	CHECK_STR(a->loops[0].var, "k");
	CHECK(a->loops[0].count && !a->loops[0].from && !a->loops[0].cond && !a->loops[0].next);
	CHECK_EQ(a->nlets, 1);
	CHECK_STR(a->lets[0].name, "r");
	CHECK_STR(expr_src(a->index), "tx * (32 + PAD) + r");
	CHECK_EQ(c->access_loc[0].line, 12);
	CHECK_EQ(c->access_loc[0].col, 5);
	CHECK(cfg_expr_loc(c, a->index, 5, &l));
	CHECK_EQ(l.line, 17);
	CHECK_EQ(l.col, 17);

	cfg_size_vars(c, 1, &v);
	vars_set(&v, "W", 4);
	vars_set(&v, "PAD", 0);
	CHECK_EQ(bank_eval(a, block, BANK_SHARED_ANY, &v, &bank_volta, &st, &e, NULL), 0);
	CHECK_EQ(st.requests, 32);
	CHECK_EQ(st.wavefronts, 32 * 32);
	CHECK_EQ(st.degree, 32);
	vars_set(&v, "PAD", 1);
	CHECK_EQ(bank_eval(a, block, BANK_SHARED_ANY, &v, &bank_volta, &st, &e, NULL), 0);
	CHECK_EQ(st.wavefronts, 32);
	CHECK_EQ(st.degree, 1);

	a = &c->accesses[1];
	CHECK_STR(a->name, "tree");
	CHECK_EQ(a->store, 1);
	CHECK_STR(expr_src(a->elem), "2 * 2");
	CHECK_STR(expr_src(a->width), "W * 2");
	CHECK_STR(expr_src(a->base), "128 * n");
	CHECK_STR(expr_src(a->cond), "PAD == 0");
	CHECK_STR(expr_src(a->when), "2 * d * tid < nthreads");
	CHECK_EQ(a->nlets, 0);
	CHECK_EQ(a->nloops, 1);
	CHECK_STR(a->loops[0].var, "d");
	CHECK(!a->loops[0].count && a->loops[0].from && a->loops[0].cond && a->loops[0].next);
	CHECK_STR(expr_src(a->loops[0].cond), "d < nthreads");
	/* PAD 1: not in this variant */
	CHECK_EQ(bank_eval(a, block, BANK_SHARED_ANY, &v, &bank_volta, &st, &e, NULL), 0);
	CHECK_EQ(st.present, 0);
	vars_set(&v, "PAD", 0);
	CHECK_EQ(bank_eval(a, block, BANK_SHARED_ANY, &v, &bank_volta, &st, &e, NULL), 0);
	CHECK_EQ(st.present, 1);
	CHECK(st.requests > 0 && st.degree >= 2);
out:
	cfg_free(c);
	tmpcfg_remove(&t);
}

/* no accesses: none, and thread names are free for sizes and parameters */
TEST(config_accesses_absent)
{
	struct tmpcfg t;
	struct config *c;
	static const char body[] =
		"name: k\n"
		"entry: k\n"
		"sizes: {n: 5, lane: 2}\n"
		"params: {tid: [1]}\n"
		"buffers: [{name: o, type: float, count: n, role: out}]\n"
		"args: [o, n]\n"
		"launch: {block: [tid], grid: [n]}\n"
		"bytes: 4 * n\n"
		"reference: {entry: k_ref, launch: {block: [1], grid: [n]}}\n";

	CHECK(tmpcfg_write(&t, body) == 0);
	c = cfg_load(t.path);
	CHECK_EQ(c->naccesses, 0);
	CHECK(c->accesses == NULL && c->access_loc == NULL);
	cfg_free(c);
	tmpcfg_remove(&t);
}

/* minimal with extra appended: its error ("" when it loads) in err */
static void parse_extra(const char *extra, char *err, size_t errlen)
{
	char *body = xasprintf("%s%s", minimal, extra);

	cfg_free(parse_body(body, err, errlen));
	free(body);
}

/* the bounds checked at load: at the limit loads, one past it is an error at the value */
TEST(config_limits)
{
	static const struct {
		const char *extra, *err;
	} t[] = {
		{"timing: {samples: 10000, warmup: 10000}\n", ""},
		{"timing: {samples: 10001}\n", "mem.yaml:11:19: 'samples' must be at most 10000"},
		{"timing: {warmup: 10001}\n", "mem.yaml:11:18: 'warmup' must be at most 10000"},
		{"timing: {samples: 2147483647}\n", "mem.yaml:11:19: 'samples' must be at most 10000"},
		{"timing: {warmup: -1}\n", "mem.yaml:11:18: 'warmup' must be at least 0"},
	};
	char err[512], name[CFG_NAME_MAX + 2], *line;
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		parse_extra(t[i].extra, err, sizeof err);
		CHECK_STR(err, t[i].err);
	}
	memset(name, 'n', sizeof name - 1);
	for (i = CFG_NAME_MAX; i <= CFG_NAME_MAX + 1; i++) { /* the longest name, one more */
		char *body;
		name[i] = '\0';
		line = xasprintf("name: %s\n", name);
		body = minimal_with(2, line);
		cfg_free(parse_body(body, err, sizeof err));
		if (i == CFG_NAME_MAX)
			CHECK_STR(err, "");
		else
			CHECK(strstr(err, "mem.yaml:2:7: name 'nnn") &&
			      strstr(err, "' has 65 characters: at most 64"));
		name[i] = 'n';
		free(body);
		free(line);
	}
}

/* NVRTC options: those that read and write no file load, in both spellings; the others are
   refused at the option */
TEST(config_options)
{
	static const char *const good[] = {
		"-G", "--device-debug", "-lineinfo", "--generate-line-info", "-dopt=on", "--dopt=on",
		"-Ofc=max", "--Ofast-compile=0", "-maxrregcount=32", "--maxrregcount=64",
		"-ftz=true", "--ftz=false", "-prec-sqrt=true", "--prec-sqrt=false",
		"-prec-div=true", "--prec-div=false", "-fmad=false", "--fmad=true",
		"-use_fast_math", "--use_fast_math", "-extra-device-vectorization",
		"--extra-device-vectorization", "-modify-stack-limit=false",
		"--modify-stack-limit=true", "-jtd=50", "--jump-table-density=0", "-DX", "-DX=1",
		"-D_x=a/b \"c\"", "--define-macro=Y", "--define-macro=Y=2", "-UX",
		"--undefine-macro=X", "-std=c++17", "--std=c++20", "-builtin-move-forward=true",
		"--builtin-move-forward=false", "-builtin-initializer-list=false",
		"--builtin-initializer-list=true", "-restrict", "--restrict", "-default-device",
		"--device-as-default-execution-space", "-device-int128", "--device-int128",
		"-opt-info=inline", "--optimization-info=inline", "-w", "--disable-warnings",
		"-err-no", "--display-error-number", "-no-err-no", "--no-display-error-number",
		"-diag-error=20012", "--diag-error=1,2", "-diag-suppress=177",
		"--diag-suppress=177,550", "-diag-warn=3", "--diag-warn=3", "-brief-diag=true",
		"--brief-diagnostics=false", "-no-source-include", "--no-source-include",
		"-Xptxas=-v", "--ptxas-options=--verbose", "-Xptxas=-O0", "-Xptxas=-O3",
		"-Xptxas=--opt-level=2", "-Xptxas=-maxrregcount=32", "-Xptxas=--maxrregcount=32",
		"-Xptxas=-warn-spills", "-Xptxas=--warn-on-spills", "-Xptxas=-warn-lmem-usage",
		"-Xptxas=--warn-on-local-memory-usage", "-Xptxas=-warn-double-usage",
		"-Xptxas=--warn-on-double-precision-use",
		"-Xptxas=-allow-expensive-optimizations=true",
		"-Xptxas=--allow-expensive-optimizations=false", "-Xptxas=-dlcm=ca",
		"-Xptxas=--def-load-cache=cg", "-Xptxas=-dscm=wt", "-Xptxas=--def-store-cache=cs",
		"-Xptxas=-fmad=true", "-Xptxas=--fmad=false", "-Xptxas=-disable-optimizer-consts",
		"-Xptxas=--disable-optimizer-constants", "-Xptxas=-suppress-stack-size-warning",
		"-Xptxas=--suppress-stack-size-warning",
	};
	static const struct {
		const char *opt, *err; /* err: what the message says after the option */
	} bad[] = {
		{"--pre-include=/etc/passwd", "is not allowed: a config may pass only the options that "
		                              "read and write no file (docs/config.md lists them)"},
		{"-include", "is not allowed"},
		{"/etc/passwd", "is not allowed"},
		{"-I/etc", "is not allowed"},
		{"-I", "is not allowed"},
		{"--include-path=/etc", "is not allowed"},
		{"--time=t.csv", "is not allowed"},
		{"--fdevice-time-trace=t.json", "is not allowed"},
		{"--create-pch=x.pch", "is not allowed"},
		{"--use-pch=x.pch", "is not allowed"},
		{"--pch-dir=/tmp", "is not allowed"},
		{"-pch", "is not allowed"},
		{"-dlto", "is not allowed"},
		{"--device-c", "is not allowed"},
		{"-use_fast_mathx", "is not allowed"},
		{"-lineinfo=1", "takes no value"},
		{"-std=c++99", ": the value must be one of: c++03 c++11 c++14 c++17 c++20"},
		{"-maxrregcount", ": the value must be a number"},
		{"-maxrregcount=1e3", ": the value must be a number"},
		{"--diag-suppress=1,", ": the value must be numbers separated by ','"},
		{"-D", ": give a macro name: '-DNAME' or '-DNAME=VALUE'"},
		{"-D=1", ": give a macro name"},
		{"-D1X", ": give a macro name"},
		{"--define-macro", ": give a macro name"},
		{"-UX=1", ": give a macro name: '-UNAME'"},
		{"-Xptxas", "needs its value in the same string: '-Xptxas=OPTION'"},
		{"-Xptxas=-o=x.cubin", "is not allowed"},
		{"-Xptxas=-v,-O3", "is not allowed"},
		{"-arch=sm_80", "is not allowed: the tuner sets the architecture"},
		{"--gpu-architecture=sm_90", "is not allowed: the tuner sets the architecture"},
	};
	char err[512], *extra, *want;
	size_t i;

	for (i = 0; i < LEN(good); i++) {
		extra = xasprintf("options: ['%s']\n", good[i]);
		parse_extra(extra, err, sizeof err);
		if (err[0])
			fprintf(stderr, "  %s: %s\n", good[i], err);
		CHECK(err[0] == '\0');
		free(extra);
	}
	for (i = 0; i < LEN(bad); i++) {
		extra = xasprintf("options: [-lineinfo, '%s']\n", bad[i].opt);
		parse_extra(extra, err, sizeof err);
		want = xasprintf("mem.yaml:11:22: %s option '%s'%s%s",
		                 !strncmp(bad[i].opt, "-Xptxas=", 8) ? "ptxas" : "NVRTC",
		                 !strncmp(bad[i].opt, "-Xptxas=", 8) ? bad[i].opt + 8 : bad[i].opt,
		                 bad[i].err[0] == ':' ? "" : " ", bad[i].err);
		if (strncmp(err, want, strlen(want))) {
			fprintf(stderr, "  %s:\n    want %s...\n    got  %s\n", bad[i].opt, want, err);
			CHECK(!"the option is refused at its place");
		}
		free(want);
		free(extra);
	}
}

/* child: cfg_read_source of path for a config named c.yaml */
static void read_source(const void *path)
{
	struct config c = {0};

	c.path = "c.yaml";
	free(cfg_read_source(&c, path));
}

/* a template or reference the loader checked may have changed since: reading it checks again */
TEST(config_read_source)
{
	char dir[] = "/tmp/t_config_src.XXXXXX", *p, err[512], *want, *big;
	struct config c = {0};
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	p = xasprintf("%s/k.cu", dir);
	c.path = "c.yaml";
	f = fopen(p, "w");
	fputs("__global__ void k() {}\n", f);
	fclose(f);
	big = cfg_read_source(&c, p);
	CHECK_STR(big, "__global__ void k() {}\n");
	free(big);
	f = fopen(p, "w");
	fputs("a\nb", f);
	fputc('\0', f);
	fclose(f);
	CHECK_EQ(test_in_child(read_source, p, err, sizeof err), 2);
	want = xasprintf("tuner: c.yaml: '%s' has a NUL byte on line 2: not a source file\n", p);
	CHECK_STR(err, want);
	free(want);
	big = xmalloc(CFG_SOURCE_MAX + 1);
	memset(big, 'a', CFG_SOURCE_MAX + 1);
	f = fopen(p, "w");
	CHECK(fwrite(big, 1, CFG_SOURCE_MAX, f) == CFG_SOURCE_MAX); /* the largest source */
	fclose(f);
	CHECK_EQ(test_in_child(read_source, p, err, sizeof err), 0);
	f = fopen(p, "a");
	fputc('a', f);
	fclose(f);
	CHECK_EQ(test_in_child(read_source, p, err, sizeof err), 2);
	want = xasprintf("tuner: c.yaml: '%s' has more than 4194304 bytes: too large for a source "
	                 "file\n", p);
	CHECK_STR(err, want);
	free(want);
	free(big);
	unlink(p);
	CHECK_EQ(test_in_child(read_source, p, err, sizeof err), 2);
	want = xasprintf("tuner: c.yaml: cannot read '%s': No such file or directory\n", p);
	CHECK_STR(err, want);
	free(want);
	free(p);
	rmdir(dir);
}

TEST(config_param_ranges)
{
	static const struct {
		const char *params;
		size_t n;
		int64_t first, last;
		const char *err;        /* NULL: loads */
	} cases[] = {
		{"params: {B: {from: 32, to: 1024, times: 2}}\n", 6, 32, 1024, NULL},
		{"params: {B: {from: 64, to: 512, step: 64}}\n", 8, 64, 512, NULL},
		{"params: {B: {from: -2, to: 2}}\n", 5, -2, 2, NULL},
		{"params: {B: {from: 3, to: 3}}\n", 1, 3, 3, NULL},
		{"params: {B: {from: 1, to: 1000, times: 10}}\n", 4, 1, 1000, NULL},
		{"params: {B: {from: 1, to: 4611686018427387903, times: 1048576}}\n", 4, 1,
		 (int64_t)1 << 60, NULL},
		{"params: {B: {from: 4, to: 1}}\n", 0, 0, 0, "'to' (1) is below 'from' (4)"},
		{"params: {B: {from: 1, to: 8, step: 0}}\n", 0, 0, 0, "'step' must be at least 1"},
		{"params: {B: {from: 1, to: 8, step: 1, times: 2}}\n", 0, 0, 0, "not both"},
		{"params: {B: {from: 0, to: 8, times: 2}}\n", 0, 0, 0, "starts at 1 or more"},
		{"params: {B: {from: 1, to: 200000}}\n", 0, 0, 0, "more than 100000 values"},
		{"params: {B: {to: 8}}\n", 0, 0, 0, "missing required key 'from'"},
		{"params: {B: {from: 1, to: 8, by: 2}}\n", 0, 0, 0, "not 'by'"},
	};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		char err[256], *body = minimal_with(5, cases[i].params);
		struct config *c = parse_body(body, err, sizeof err);
		free(body);
		if (!cases[i].err) {
			CHECK(c != NULL);
			if (!c) {
				fprintf(stderr, "  case %zu: %s\n", i, err);
				continue;
			}
			CHECK_EQ(c->params[0].nvals, cases[i].n);
			CHECK_EQ(c->params[0].vals[0], cases[i].first);
			CHECK_EQ(c->params[0].vals[c->params[0].nvals - 1], cases[i].last);
			cfg_free(c);
		} else {
			CHECK(c == NULL && strstr(err, cases[i].err) && strstr(err, "mem.yaml:5:"));
			if (c)
				cfg_free(c);
		}
	}
}

/* a parameter's values as expressions of the sizes: unset after loading, evaluated by
   cfg_eval_params under the sizes as set, again after cfg_set_size; literals as before */
TEST(config_param_exprs)
{
	static const char body[] =
		"name: k\n"
		"entry: k\n"
		"sizes: {n: 4096, m: 3}\n"
		"params:\n"
		"  B: [32, \"n / 64\", \"ceil_div(n, 1000) * 8\"]\n"
		"  L: [1, 2]\n"
		"  G: {from: m, to: \"n / 512\", times: 2}\n"
		"buffers: [{name: o, type: float, count: n, role: out}]\n"
		"args: [o, n]\n"
		"launch: {block: [B], grid: [G]}\n"
		"bytes: 4 * n\n"
		"reference: {entry: k_ref, launch: {block: [1], grid: [n]}}\n";
	char err[256];
	struct config *c = parse_body(body, err, sizeof err);
	struct vars v = {0};
	int64_t *vals;
	size_t n;

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_EQ(c->nparams, 3);
	CHECK(c->params[0].vals == NULL && c->params[0].nitems == 3);
	CHECK(c->params[1].vals != NULL && c->params[1].items == NULL); /* literals: as before */
	CHECK_EQ(c->params[1].nvals, 2);
	CHECK(c->params[2].vals == NULL && c->params[2].range && c->params[2].nitems == PR_N);
	cfg_eval_params(c);
	CHECK_EQ(c->params[0].nvals, 3);
	CHECK_EQ(c->params[0].vals[0], 32);
	CHECK_EQ(c->params[0].vals[1], 64);
	CHECK_EQ(c->params[0].vals[2], 40);
	CHECK_EQ(c->params[2].nvals, 2); /* 3, 6 (<= 8) */
	CHECK_EQ(c->params[2].vals[1], 6);
	/* a size override unsets them until the next evaluation */
	cfg_set_size(c, "n=8192");
	CHECK(c->params[0].vals == NULL && c->params[2].vals == NULL && c->params[1].vals);
	cfg_set_size(c, "m=1");
	cfg_eval_params(c);
	/* B: 32, 128, 72; G: 1, 2, 4, 8, 16 */
	CHECK_EQ(c->params[0].nvals, 3);
	CHECK_EQ(c->params[0].vals[1], 128);
	CHECK_EQ(c->params[0].vals[2], 72);
	CHECK_EQ(c->params[2].nvals, 5);
	CHECK_EQ(c->params[2].vals[4], 16);
	/* under other sizes, the config unchanged; literals are copied */
	vars_set(&v, "n", 65536);
	vars_set(&v, "m", 16);
	vals = cfg_param_vals(c, 2, &v, 0, &n);
	CHECK_EQ(n, 4); /* 16 32 64 128 */
	CHECK_EQ(vals[3], 128);
	free(vals);
	vals = cfg_param_vals(c, 1, &v, 0, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(vals[1], 2);
	free(vals);
	CHECK_EQ(c->params[2].nvals, 5);
	cfg_free(c);
}

/* what evaluating a parameter's values says (on stderr, with the exit status): params, the
   params line of `minimal`; size, an override or NULL */
struct pcase {
	const char *params, *size;
};

static void eval_case(const void *arg)
{
	const struct pcase *t = arg;
	char err[256], *body = minimal_with(5, t->params);
	struct config *c = parse_body(body, err, sizeof err);

	free(body);
	if (!c) {
		fprintf(stderr, "parse: %s\n", err);
		exit(3);
	}
	if (t->size)
		cfg_set_size(c, t->size);
	cfg_eval_params(c);
	fprintf(stderr, "values:"); /* the last parameter's */
	for (size_t i = 0; i < c->params[c->nparams - 1].nvals; i++)
		fprintf(stderr, " %lld", (long long)c->params[c->nparams - 1].vals[i]);
	fprintf(stderr, "\n");
	cfg_free(c);
}

/* evaluation errors name the place (the operator, or the bound), the sizes used, and exit 2;
   values equal to an earlier one are dropped with a warning; parse errors of the values */
TEST(config_param_expr_errors)
{
	static const struct {
		struct pcase in;
		int st;
		const char *out;
	} t[] = {
		{{"params: {B: [1, \"8 / (n - 5)\"]}\n", NULL}, 2,
		 "tuner: mem.yaml:5:20: 'B' value '8 / (n - 5)': division by zero with n=5\n"},
		{{"params: {B: [1, \"n * 0x7fffffffffffffff\"]}\n", NULL}, 2,
		 "tuner: mem.yaml:5:20: 'B' value 'n * 0x7fffffffffffffff': overflow in '*' with "
		 "n=5\n"},
		{{"params: {B: {from: 8, to: \"n * 4\", times: 2}}\n", "n=1"}, 2,
		 "tuner: mem.yaml:5:28: 'B': 'to' (4) is below 'from' (8) with n=1\n"},
		{{"params: {B: {from: 1, to: \"n * 40000\"}}\n", NULL}, 2,
		 "tuner: mem.yaml:5:13: 'B': more than 100000 values with n=5\n"},
		{{"params: {B: {from: 1, to: 8, step: \"n - 5\"}}\n", NULL}, 2,
		 "tuner: mem.yaml:5:37: 'step' must be at least 1 with n=5\n"},
		{{"params: {B: {from: \"n - 6\", to: 8, times: 2}}\n", NULL}, 2,
		 "tuner: mem.yaml:5:21: 'B': a range with 'times' starts at 1 or more with n=5\n"},
		{{"params: {B: {from: 1, to: 8, times: \"n * 0x100000\"}}\n", NULL}, 2,
		 "tuner: mem.yaml:5:38: 'times' must be at most 1048576 with n=5\n"},
		{{"params: {B: [4, \"n - 1\", \"2 * 2\", 8]}\n", "n=9"}, 0,
		 "tuner: warning: mem.yaml:5:27: 'B': value 4 ('2 * 2') repeats an earlier one with "
		 "n=9: tried once\n"
		 "tuner: warning: mem.yaml:5:35: 'B': value 8 repeats an earlier one with n=9: "
		 "tried once\n"
		 "values: 4 8\n"},
		{{"params: {B: [1, \"n / 5\"]}\n", NULL}, 0,
		 "tuner: warning: mem.yaml:5:18: 'B': value 1 ('n / 5') repeats an earlier one with "
		 "n=5: tried once\nvalues: 1\n"},
		{{"params: {B: {from: 2, to: \"n\"}}\n", "n=3"}, 0, "values: 2 3\n"},
		/* a parameter's values that depend on earlier ones: the union over their values */
		{{"params: {A: [1, 2, 4], B: [0, \"A - 1\", A]}\n", NULL}, 0, "values: 0 1 2 3 4\n"},
		{{"params: {A: [2, 1], B: {from: 1, to: \"A * n\", times: 2}}\n", "n=2"}, 0,
		 "values: 1 2 4\n"},
		{{"params: {A: [0, 1], B: [\"n / A\"]}\n", NULL}, 2,
		 "tuner: mem.yaml:5:28: 'B' value 'n / A': division by zero with n=5, A=0\n"},
		{{"params: {A: [3, 1], B: {from: 2, to: A}}\n", NULL}, 2,
		 "tuner: mem.yaml:5:38: 'B': 'to' (1) is below 'from' (2) with A=1\n"},
		/* found when loading */
		{{"params: {B: [1, \"n * L\"], L: [1]}\n", NULL}, 3,
		 "parse: mem.yaml:5:22: 'B' uses 'L', a parameter after it: a parameter's values may "
		 "use only the sizes and the parameters before it (move 'L' up)\n"},
		{{"params: {B: [1, \"B + 1\"]}\n", NULL}, 3,
		 "parse: mem.yaml:5:18: 'B' uses its own value: a parameter's values may use only the "
		 "sizes and the parameters before it\n"},
		{{"params: {B: [1, \"k + 1\"]}\n", NULL}, 3, "parse: mem.yaml:5:18: unknown name 'k'\n"},
		{{"params: {B: [1, \"2 * SMS\"]}\n", NULL}, 3,
		 "parse: mem.yaml:5:22: 'SMS' is not allowed in parameter values: they may use sizes "
		 "and earlier parameters only (a variant is the same on every GPU)\n"},
		{{"params: {B: [1, \"n / 2\", 1]}\n", NULL}, 3,
		 "parse: mem.yaml:5:26: duplicate value 1 in 'B'\n"},
		{{"params: {B: [1, \"n * 1.5\"]}\n", NULL}, 3,
		 "parse: mem.yaml:5:17: 'B' must be an integer, not 'n * 1.5'\n"},
		{{"params: {B: {from: 1, to: ceil_div(n, 2)}}\n", NULL}, 3,
		 "parse: mem.yaml:5:37: expected ',' or ')' (in [...] or {...}, quote an expression "
		 "that contains ',')\n"},
		{{"params: {B: {from: 1, to: \"n +\"}}\n", NULL}, 3,
		 "parse: mem.yaml:5:31: unexpected end of expression\n"},
	};
	char out[1024];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		int st = test_in_child(eval_case, &t[i].in, out, sizeof out);
		CHECK_EQ(st, t[i].st);
		if (strcmp(out, t[i].out)) {
			fprintf(stderr, "  case %zu: got\n%s  want\n%s", i, out, t[i].out);
			CHECK(!"the expected stderr");
		}
	}
}
