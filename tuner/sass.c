/* sass: a compiled variant's shared-memory instructions against its declared accesses. */
#include "sass.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bank.h"
#include "compile.h"
#include "config.h"
#include "expr.h"
#include "nvrtc.h"
#include "run.h"
#include "source.h"
#include "spec.h"

/* 1 if path names an executable regular file */
static int runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* name in dir into path; 1 if it can be run there */
static int in_dir(const char *dir, const char *name, char *path, size_t pathlen)
{
	size_t n = strlen(dir);

	if (!n || n + strlen(name) + 2 > pathlen)
		return 0;
	snprintf(path, pathlen, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
	return runnable(path);
}

/* where scripts/nvdisasm installs NVIDIA's wheel: $XDG_DATA_HOME/tuner/nvdisasm, else
   ~/.local/share/tuner/nvdisasm, its bin into dir; 0, or -1 where neither is set */
static int wheel_dir(char *dir, size_t len)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (x && *x)
		n = snprintf(dir, len, "%s/tuner/nvdisasm/nvidia/cu13/bin", x);
	else if (home && *home)
		n = snprintf(dir, len, "%s/.local/share/tuner/nvdisasm/nvidia/cu13/bin", home);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int sass_tool(char *path, size_t pathlen, char *why, size_t whylen)
{
	static const char *const names[] = {"nvdisasm", "cuobjdump"};
	const char *env = getenv("TUNER_DISASM"), *home = getenv("CUDA_HOME");
	const char *pathv = getenv("PATH");
	char dir[1024];
	size_t k;

	if (env && *env) {
		if (runnable(env) && strlen(env) < pathlen) {
			snprintf(path, pathlen, "%s", env);
			return 0;
		}
		snprintf(why, whylen, "TUNER_DISASM=%s is not a program", env);
		return -1;
	}
	for (k = 0; k < 2; k++) {
		const char *p = pathv;
		if (home && snprintf(dir, sizeof dir, "%s/bin", home) < (int)sizeof dir &&
		    in_dir(dir, names[k], path, pathlen))
			return 0;
		if (in_dir("/usr/local/cuda/bin", names[k], path, pathlen))
			return 0;
		while (p && *p) {
			size_t n = strcspn(p, ":");
			if (n < sizeof dir) {
				memcpy(dir, p, n);
				dir[n] = 0;
				if (in_dir(dir, names[k], path, pathlen))
					return 0;
			}
			p += n + (p[n] == ':');
		}
		if (!k && wheel_dir(dir, sizeof dir) == 0 && in_dir(dir, names[k], path, pathlen))
			return 0;
	}
	snprintf(why, whylen, "no disassembler: neither nvdisasm nor cuobjdump in $CUDA_HOME/bin, "
	         "/usr/local/cuda/bin, PATH or ~/.local/share/tuner/nvdisasm (scripts/nvdisasm "
	         "installs nvdisasm there; TUNER_DISASM names one)");
	return -1;
}

/* lines of s (len bytes) that begin with text (after blanks), counted */
static size_t lines_with(const char *s, size_t len, const char *text)
{
	size_t n = 0, k = strlen(text);
	const char *p = s, *end = s + len;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		p += strspn(p, " \t");
		n += !strncmp(p, text, k);
		p = e ? e + 1 : end;
	}
	return n;
}

/* each ".size NAME,(LABEL - NAME)" of nvdisasm's is followed by the line "LABEL:"; 0 or -1 */
static int sass_ends_labelled(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, ".size"))) {
		const char *l = strstr(p, ",(");
		char label[128];
		size_t n;
		p += 5;
		if (!l || memchr(p, '\n', (size_t)(l - p)))
			continue;
		n = strcspn(l + 2, " -)\n");
		if (!n || n + 3 > sizeof label)
			continue;
		snprintf(label, sizeof label, "\n%.*s:", (int)n, l + 2);
		if (!strstr(l, label))
			return -1;
	}
	return 0;
}

int sass_whole(const char *s, size_t len, char *why, size_t whylen)
{
	if (!len || strlen(s) != len || s[len - 1] != '\n')
		snprintf(why, whylen, "the disassembler's listing %s", !len ? "is empty"
		         : strlen(s) != len ? "has a NUL byte" : "ends inside a line: cut short");
	else if (!strstr(s, "/*0000*/"))
		snprintf(why, whylen, "the disassembler's listing has no instruction at offset 0000: "
		         "not a listing");
	else if (sass_ends_labelled(s) < 0 ||
	         lines_with(s, len, "Function :") > lines_with(s, len, ".........."))
		snprintf(why, whylen, "the disassembler's listing ends before a kernel does: cut "
		         "short");
	else
		return 0;
	return -1;
}

/* the seconds a disassembler may take on one cubin: $TUNER_DISASM_TIMEOUT, else
   SASS_TIMEOUT_S */
static double sass_limit(void)
{
	const char *e = getenv("TUNER_DISASM_TIMEOUT");
	double s = e && *e ? atof(e) : 0;

	return s > 0 && s <= 86400 ? s : SASS_TIMEOUT_S;
}

/* tool started on the cubin at path in a process group of its own, its standard output the
   read end *fd; its pid, or -1 with why */
static pid_t sass_spawn(const char *tool, const char *path, int *fd, char *why, size_t whylen)
{
	const char *base = strrchr(tool, '/') ? strrchr(tool, '/') + 1 : tool;
	int p[2];
	pid_t pid;

	if (pipe(p) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0); /* killed as a group: what it starts goes with it */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (strstr(base, "cuobjdump"))
			execl(tool, tool, "-sass", path, (char *)NULL);
		else
			execl(tool, tool, "-c", path, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	*fd = p[0];
	return pid;
}

/* the output of tool (pid) read from fd into out until its end; -1 with why at the time limit,
   past SASS_LISTING_MAX bytes or on an interrupt (run_stop), then its process group killed */
static int sass_drain(pid_t pid, int fd, const char *tool, struct buf *out, char *why,
                      size_t whylen)
{
	double limit = sass_limit(), end = now_s() + limit;
	char chunk[65536];

	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		ssize_t n;
		if (run_stop)
			snprintf(why, whylen, "interrupted");
		else if (now_s() > end)
			snprintf(why, whylen, "%s did not finish within %g s on the cubin "
			         "(TUNER_DISASM_TIMEOUT)", tool, limit);
		else if (out->len > SASS_LISTING_MAX)
			snprintf(why, whylen, "%s listed more than %zu bytes for the cubin: not a "
			         "listing", tool, SASS_LISTING_MAX);
		else if (poll(&pf, 1, 200) <= 0 || (n = read(fd, chunk, sizeof chunk)) < 0) {
			if (errno == EINTR || errno == EAGAIN || !pf.revents)
				continue;
			snprintf(why, whylen, "reading %s's listing: %s", tool, strerror(errno));
		} else if (n == 0)
			return 0;
		else {
			buf_add(out, chunk, (size_t)n);
			continue;
		}
		kill(-pid, SIGKILL);
		return -1;
	}
}

int sass_listing(const char *tool, const void *cubin, size_t len, struct buf *out, char *why,
                 size_t whylen)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmp = xasprintf("%s/tuner-sass-XXXXXX", dir);
	int fd = mkstemp(tmp), made = fd >= 0, st = 0, rc = -1;
	pid_t pid;

	if (!made)
		snprintf(why, whylen, "cannot make a temporary file in %s: %s", dir, strerror(errno));
	else if (write_all(fd, cubin, len) < 0 || close(fd) < 0)
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
	else if ((pid = sass_spawn(tool, tmp, &fd, why, whylen)) > 0) {
		rc = sass_drain(pid, fd, tool, out, why, whylen);
		close(fd);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			snprintf(why, whylen, "%s failed on the cubin (status %d)", tool,
			         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
			rc = -1;
		}
		if (!rc && sass_whole(out->s ? out->s : "", out->len, why, whylen) < 0)
			rc = -1;
	}
	if (made)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* add one of kind (store, bytes) to ops (n kinds so far); the new count */
static size_t add(struct sass_op *ops, size_t n, int store, int bytes, size_t k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ops[i].store == store && ops[i].bytes == bytes) {
			ops[i].n += k;
			return n;
		}
	if (n == SASS_OPS)
		return n;
	ops[n] = (struct sass_op){store, bytes, k};
	return n + 1;
}

/* a lane's width in bytes from an opcode's modifiers ("LDS.U.64" -> 8); 4 without one */
static int width_of(const char *mods, size_t len)
{
	static const struct { const char *m; int b; } w[] = {
		{".128", 16}, {".64", 8}, {".U16", 2}, {".S16", 2}, {".U8", 1}, {".S8", 1}};
	size_t i;

	for (i = 0; i < sizeof w / sizeof *w; i++) {
		const char *p = mods;
		size_t n = strlen(w[i].m);
		while ((p = strstr(p, w[i].m)) && p + n <= mods + len) {
			if (p + n == mods + len || p[n] == '.')
				return w[i].b;
			p += n;
		}
	}
	return 4;
}

size_t sass_shared(const char *listing, struct sass_op *ops)
{
	const char *p = listing;
	size_t n = 0;

	while (p && *p) {
		const char *e = strchr(p, '\n'), *q = p, *end = e ? e : p + strlen(p);
		/* an instruction: after its predicate ("@P0 ", "@!PT ") the opcode, a word of capitals,
		   digits and dots */
		while (q < end) {
			while (q < end && !isupper((unsigned char)*q) && *q != '@')
				q++;
			if (q < end && *q == '@') {
				while (q < end && !isspace((unsigned char)*q))
					q++;
				continue;
			}
			break;
		}
		if (q < end && (q == p || !isalnum((unsigned char)q[-1]))) {
			size_t len = 0;
			while (q + len < end && (isupper((unsigned char)q[len]) ||
			                         isdigit((unsigned char)q[len]) || q[len] == '.' ||
			                         q[len] == '_'))
				len++;
			if (len >= 3 && (!strncmp(q, "LDS", 3) || !strncmp(q, "STS", 3)) &&
			    (len == 3 || q[3] == '.' || (q[3] == 'M' && q[2] == 'S' && q[0] == 'L')))
				n = add(ops, n, q[0] == 'S', q[3] == 'M' ? 16 : width_of(q + 3, len - 3), 1);
		}
		p = e ? e + 1 : NULL;
	}
	return n;
}

int sass_declared(const struct config *c, const struct vars *vars, struct sass_op *ops,
                  char *why, size_t whylen)
{
	size_t k, n = 0;

	for (k = 0; k < c->naccesses; k++) {
		const struct bank_access *a = &c->accesses[k];
		int64_t on = 1, bytes = 0;
		if (expr_value(a->cond, vars, 1, &on, "if", why, whylen) < 0 ||
		    expr_value(a->width ? a->width : a->elem, vars, 4, &bytes, "width", why, whylen) <
		        0)
			return -1;
		if (on)
			n = add(ops, n, a->store, (int)bytes, 1);
	}
	return (int)n;
}

/* the instruction's name for a kind: "LDS.64", "STS" */
static void kind(struct buf *out, const struct sass_op *o)
{
	buf_printf(out, "%s", o->store ? "STS" : "LDS");
	if (o->bytes != 4)
		buf_printf(out, ".%d", o->bytes * 8);
}

size_t sass_compare(const struct sass_op *declared, size_t nd, const struct sass_op *found,
                    size_t nf, struct buf *out)
{
	size_t i, j, n = 0;

	for (i = 0; i < nd; i++) {
		for (j = 0; j < nf && (found[j].store != declared[i].store ||
		                       found[j].bytes != declared[i].bytes); j++)
			;
		if (j < nf)
			continue;
		buf_printf(out, "  declared: %d-byte %s (%zu access%s), but the code has no ",
		           declared[i].bytes, declared[i].store ? "stores" : "loads", declared[i].n,
		           declared[i].n == 1 ? "" : "es");
		kind(out, &declared[i]);
		buf_puts(out, "\n");
		n++;
	}
	for (j = 0; j < nf; j++) {
		for (i = 0; i < nd && (found[j].store != declared[i].store ||
		                       found[j].bytes != declared[i].bytes); i++)
			;
		if (i < nd)
			continue;
		buf_puts(out, "  in the code: ");
		kind(out, &found[j]);
		buf_printf(out, " x%zu (%d-byte %s), which no declared access has\n", found[j].n,
		           found[j].bytes, found[j].store ? "stores" : "loads");
		n++;
	}
	return n;
}

/* the listing of one compiled variant checked: its lines into out; 1 if they differ (0 on an
   interrupt: run_stop) */
static int check_one(const struct config *c, const struct space *s, const struct variant *v,
                     const struct compile_out *co, const char *tool, struct buf *out)
{
	struct sass_op d[SASS_OPS], f[SASS_OPS];
	struct buf listing = {0}, diff = {0};
	struct vars vars;
	char why[512];
	int nd, differ = 0;
	size_t nf, i;

	if (!co->ok) {
		buf_printf(out, "%s: does not compile; not checked\n", v->id);
		return 0;
	}
	space_bind(c, s, v, &vars);
	if ((nd = sass_declared(c, &vars, d, why, sizeof why)) < 0)
		fatal("%s: variant %s: %s", c->path, v->id, why);
	if (sass_listing(tool, co->cubin, co->cubin_len, &listing, why, sizeof why) < 0) {
		buf_free(&listing);
		if (run_stop)
			return 0;
		fatal("%s: variant %s: %s", c->path, v->id, why);
	}
	nf = sass_shared(listing.s ? listing.s : "", f);
	if (sass_compare(d, (size_t)nd, f, nf, &diff)) {
		char *p = space_params_str(c, v);
		buf_printf(out, "%s (%s): the declared accesses and the code differ:\n", v->id, p);
		buf_add(out, diff.s, diff.len);
		free(p);
		differ = 1;
	} else if (verbosity >= 2) {
		buf_printf(out, "%s: as declared:", v->id);
		for (i = 0; i < nf; i++) {
			buf_puts(out, " ");
			kind(out, &f[i]);
			buf_printf(out, " x%zu", f[i].n);
		}
		buf_puts(out, "\n");
	}
	buf_free(&listing);
	buf_free(&diff);
	return differ;
}

/* the source of variant v, for a compile job */
struct sjob {
	const struct config *c;
	const struct variant *v;
	const char *tmpl;
};

static void sjob_text(const void *arg, struct buf *b)
{
	const struct sjob *j = arg;
	char *src = source_variant(j->c, j->v, j->tmpl);

	buf_puts(b, src);
	free(src);
}

int sass_explain(const struct config *c, const struct space *s, const char *only, size_t budget,
                 const char *arch, const char *cachedir, int workers)
{
	char tool[1024], why[512];
	char *tmpl;
	size_t i, k, n = 0, nv = 0, chunk = 256;
	size_t *pick;
	struct buf out = {0};

	if (sass_tool(tool, sizeof tool, why, sizeof why) < 0) {
		printf("tuner explain --sass: skipped: %s\n", why);
		return 0;
	}
	tmpl = cfg_read_source(c, c->kernel.source);
	pick = xcalloc(s->n + 1, sizeof *pick);
	for (i = 0; i < s->n; i++)
		if (!s->v[i].drop && (!only || !strcmp(s->v[i].id, only)))
			pick[nv++] = i;
	if (only && !nv)
		fatal("--emit: no kept variant '%s' in %s; see --dry-run", only, c->path);
	if (budget && nv > budget) { /* spread over the space: every (nv / budget)-th */
		for (i = 0; i < budget; i++)
			pick[i] = pick[i * nv / budget];
		nv = budget;
	}
	for (k = 0; k < nv && !run_stop; k += chunk) { /* a chunk's sources and cubins at a time */
		size_t m = nv - k < chunk ? nv - k : chunk;
		struct job *jobs = xcalloc(m, sizeof *jobs);
		struct sjob *sj = xcalloc(m, sizeof *sj);
		struct compile_out *outs = xcalloc(m, sizeof *outs);
		for (i = 0; i < m; i++) {
			sj[i] = (struct sjob){c, &s->v[pick[k + i]], tmpl};
			jobs[i] = (struct job){NULL, sjob_text, &sj[i], c->kernel.source, c->kernel.entry,
			                       {0, 0}};
		}
		compile_many(jobs, m, arch, c->options, c->noptions, cachedir, workers, outs, NULL,
		             NULL);
		for (i = 0; i < m; i++) {
			if (!run_stop)
				n += check_one(c, s, &s->v[pick[k + i]], &outs[i], tool, &out);
			nv_out_free(&outs[i]);
		}
		fputs(out.s ? out.s : "", stdout);
		out.len = 0;
		if (out.s)
			out.s[0] = 0;
		free(jobs);
		free(sj);
		free(outs);
	}
	if (run_stop)
		note(0, "tuner explain --sass: interrupted\n");
	else
		printf("tuner explain --sass: %zu of %zu variants compiled for %s differ from their "
		       "declared accesses\n  (each kind of shared-memory load and store, by its "
		       "width, as %s lists them)\n", n, nv, arch,
		       strrchr(tool, '/') ? strrchr(tool, '/') + 1 : tool);
	buf_free(&out);
	free(pick);
	free(tmpl);
	return run_stop ? EXIT_INTERRUPT : n ? 1 : 0;
}
