/* util: errors, allocation, growable buffers, files. */
#include "util.h"
#include "wrap.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *argv0 = "tuner";
int verbosity = 1;

/* the status line (progress_*): shown when stderr is a terminal and not -q */
static struct {
	int on, shown;            /* a phase is under way; a line is on the screen */
	const char *what;
	size_t total;
	double t0, last;
} prog;

/* take the status line off the screen, so that a message starts on a clean line */
static void progress_clear(void)
{
	if (prog.shown) {
		fputs("\r\033[K", stderr);
		prog.shown = 0;
	}
}

void progress_begin(const char *what, size_t total)
{
	prog.on = total > 0 && verbosity >= 1 && isatty(STDERR_FILENO);
	prog.shown = 0;
	prog.what = what;
	prog.total = total;
	prog.t0 = prog.last = now_s();
}

void progress_step(size_t done)
{
	double t = now_s(), rate;

	if (!prog.on || (t - prog.last < 0.1 && done < prog.total))
		return;
	prog.last = t;
	rate = t > prog.t0 ? (double)done / (t - prog.t0) : 0;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s, %.1f/s", done, prog.total, prog.what, rate);
	if (rate > 0 && done < prog.total)
		fprintf(stderr, ", %.0f s left", (double)(prog.total - done) / rate);
	prog.shown = 1;
}

void progress_end(void)
{
	progress_clear();
	prog.on = 0;
}

static void vmsg(const char *prefix, int wrap, const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);

	struct buf b = {0};

	progress_clear();
	fflush(stdout); /* what was printed before comes first, also in one file */
	buf_printf(&b, "%s: %s", argv0, prefix);
	buf_vprintf(&b, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		buf_printf(&b, " %s", util_strerror(err));
	buf_puts(&b, "\n");
	if (wrap) /* a warning is prose; an error is left whole, for scripts that match it */
		wrap_put(stderr, b.s, WRAP_WIDTH);
	else
		fputs(b.s, stderr);
	buf_free(&b);
}

const char *util_strerror(int e)
{
	return e == ENOTREG ? "not a regular file" : strerror(e);
}

noreturn void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", 0, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("internal error: ", 0, fmt, ap);
	va_end(ap);
	abort();
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", 1, fmt, ap);
	va_end(ap);
}

void note(int level, const char *fmt, ...)
{
	va_list ap;
	struct buf b = {0};

	if (verbosity < level)
		return;
	progress_clear();
	fflush(stdout);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	wrap_put(stderr, b.s, WRAP_WIDTH);
	buf_free(&b);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("allocation overflow: %zu x %zu", n, size);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	b.s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b.s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return b.s;
}

static void buf_grow(struct buf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	if (b->len + n + 1 < b->len)
		die("buffer overflow");
	b->cap = b->cap ? b->cap : 64;
	while (b->cap < b->len + n + 1)
		b->cap *= 2;
	b->s = xrealloc(b->s, b->cap);
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		die("vsnprintf failed");
	buf_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* 1 if c is a UTF-8 continuation byte (10xxxxxx) */
static int cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xbf;
}

int utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char c = u[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) /* C0 and C1: overlong forms of ASCII */
		return cont(u[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) /* E0 80..9F: overlong; ED A0..BF: surrogates */
		return u[1] >= (c == 0xe0 ? 0xa0 : 0x80) && u[1] <= (c == 0xed ? 0x9f : 0xbf) &&
		       cont(u[2]) ? 3 : 0;
	if (c >= 0xf0 && c <= 0xf4) /* F0 80..8F: overlong; F4 90..BF: above U+10FFFF */
		return u[1] >= (c == 0xf0 ? 0x90 : 0x80) && u[1] <= (c == 0xf4 ? 0x8f : 0xbf) &&
		       cont(u[2]) && cont(u[3]) ? 4 : 0;
	return 0;
}

size_t buf_utf8_char(struct buf *b, const char *s)
{
	int n = utf8_len(s);

	if (n > 0) {
		buf_add(b, s, (size_t)n);
		return (size_t)n;
	}
	buf_puts(b, "\xef\xbf\xbd");
	return 1;
}

/* 1 if the n-byte UTF-8 sequence at s is a character buf_safe shows as it is: not a C1
   control (U+0080..U+009F), nor one that reorders or hides text (U+061C, U+200B..U+200F,
   U+2028..U+202E, U+2060..U+206F, U+FEFF) */
static int shown(const unsigned char *s, int n)
{
	unsigned cp = n == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu)
	              : n == 3 ? (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu)
	              : 0x10000;

	return cp >= 0xa0 && cp != 0x61c && !(cp >= 0x200b && cp <= 0x200f) &&
	       !(cp >= 0x2028 && cp <= 0x202e) && !(cp >= 0x2060 && cp <= 0x206f) && cp != 0xfeff;
}

void buf_safe(struct buf *b, const char *s, size_t max)
{
	const char *p = s;
	int n;

	for (; p && *p; p += n) {
		const unsigned char *u = (const unsigned char *)p;
		n = utf8_len(p);
		if (max && (size_t)(p - s) + (size_t)(n > 0 ? n : 1) > max) {
			buf_puts(b, "...");
			return;
		}
		if (n > 1 && shown(u, n))
			buf_add(b, p, (size_t)n);
		else if (n != 1 || *u < 0x20 || *u == 0x7f) {
			buf_printf(b, "\\x%02x", *u);
			n = 1;
		} else if ((*u == '/' && p[1] == '*') || (*u == '*' && p[1] == '/'))
			buf_printf(b, "%c ", *u);
		else
			buf_add(b, p, 1);
	}
}

const char *util_show(const char *s)
{
	static struct buf ring[8];
	static unsigned next;
	struct buf *b = &ring[next++ % LEN(ring)];

	b->len = 0;
	buf_puts(b, "");
	buf_safe(b, s, UTIL_SHOW_MAX);
	return b->s;
}

/* s as a JSON string literal in valid UTF-8 (a byte that starts no valid sequence: \ufffd);
   with html, < > & and DEL escaped too */
static void json_str(struct buf *b, const char *s, int html)
{
	int n;

	buf_puts(b, "\"");
	for (; s && *s; s += n) {
		unsigned char c = (unsigned char)*s;
		n = 1;
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 0x20 || (html && (c == 0x7f || c == '<' || c == '>' || c == '&')))
			buf_printf(b, "\\u%04x", c);
		else if (c < 0x80)
			buf_add(b, &c, 1);
		else if ((n = utf8_len(s)) > 0)
			buf_add(b, s, (size_t)n);
		else {
			buf_puts(b, "\\ufffd");
			n = 1;
		}
	}
	buf_puts(b, "\"");
}

void buf_json_str(struct buf *b, const char *s)
{
	json_str(b, s, 0);
}

void buf_json_str_html(struct buf *b, const char *s)
{
	json_str(b, s, 1);
}

/* the temporaries of this process not yet renamed or removed (file_write_atomic, fileset):
   an exit removes them (tmp_cleanup, at exit) */
static struct tmpfile {
	char *name;               /* the temporary */
	const char *path;         /* what it becomes: for messages */
	FILE *f;                  /* its stream, where it has one */
	pid_t pid;                /* the process that made it (a child's exit leaves it) */
} *tmps;
static size_t ntmps, captmps;

static void tmp_cleanup(void)
{
	pid_t me = getpid();
	size_t i;

	for (i = 0; i < ntmps; i++)
		if (tmps[i].pid == me)
			unlink(tmps[i].name);
}

static void tmp_remember(char *name, const char *path)
{
	static int registered;

	if (!registered++)
		atexit(tmp_cleanup);
	if (ntmps == captmps) {
		captmps = captmps ? 2 * captmps : 8;
		tmps = xreallocarray(tmps, captmps, sizeof *tmps);
	}
	tmps[ntmps++] = (struct tmpfile){name, path, NULL, getpid()};
}

/* name is no longer to be removed at exit (renamed, or removed) */
static void tmp_forget(const char *name)
{
	size_t i;

	for (i = 0; i < ntmps; i++)
		if (tmps[i].name == name) {
			tmps[i] = tmps[--ntmps];
			return;
		}
}

void buf_spill(struct buf *b, FILE *f, size_t at, const char *what)
{
	size_t i;

	if (!f || b->len < at)
		return;
	if (b->len && fwrite(b->s, 1, b->len, f) != b->len) {
		for (i = 0; i < ntmps; i++)
			if (tmps[i].f == f)
				fatal("cannot write '%s':", tmps[i].path);
		fatal("cannot write %s:", what);
	}
	b->len = 0;
}

void buf_free(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* read path, the one way (util.h): links followed unless nofollow; at most max + 1 bytes
   (max below SIZE_MAX) */
static char *read_file(const char *path, size_t max, int nofollow, size_t *len)
{
	struct buf b = {0};
	struct stat st;
	char tmp[65536];
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return NULL;
	e = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : !S_ISREG(st.st_mode) ? ENOTREG : 0;
	if (e) {
		close(fd);
		errno = e;
		return NULL;
	}
	/* room for what it holds now, within the bound (it may still grow or shrink) */
	buf_grow(&b, st.st_size > 0 && (uintmax_t)st.st_size < max ? (size_t)st.st_size + 1 : 0);
	b.s[0] = '\0';
	while (b.len <= max) {
		size_t want = max - b.len + 1 < sizeof tmp ? max - b.len + 1 : sizeof tmp;
		n = read(fd, tmp, want);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			buf_free(&b);
			errno = e;
			return NULL;
		}
		buf_add(&b, tmp, (size_t)n);
	}
	close(fd);
	if (len)
		*len = b.len;
	return b.s;
}

/* read_file, where more than max bytes fail with EFBIG */
static char *read_bounded(const char *path, size_t max, int nofollow, size_t *len)
{
	size_t n;
	char *s = read_file(path, max, nofollow, &n);

	if (s && n > max) {
		free(s);
		errno = EFBIG;
		return NULL;
	}
	if (s && len)
		*len = n;
	return s;
}

char *file_read(const char *path, size_t *len)
{
	return read_bounded(path, FILE_READ_MAX, 0, len);
}

char *file_read_max(const char *path, size_t max, size_t *len)
{
	return read_file(path, max < SIZE_MAX - 1 ? max : SIZE_MAX - 2, 0, len);
}

char *file_read_nolink(const char *path, size_t max, size_t *len)
{
	return read_bounded(path, max ? max : FILE_READ_MAX, 1, len);
}

int file_open_own(const char *path, int append)
{
	struct stat st;
	int fd, e;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
	                (append ? O_APPEND : 0), 0644);
	if (fd < 0)
		return -1;
	e = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR
	    : !S_ISREG(st.st_mode) ? ENOTREG : append && st.st_nlink > 1 ? EMLINK : 0;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* 32 bits nobody can guess: from the kernel, else from the time and a counter */
static uint32_t random32(void)
{
	static uint64_t count;
	uint32_t r;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
		return r;
	count++;
	return (uint32_t)hash_bytes(hash_bytes(HASH_INIT, &count, sizeof count), &(double){now_s()},
	                            sizeof(double));
}

/* a fresh name beside path ("PATH.tmp.PID.RANDOM"), malloc'd */
static char *tmp_name(const char *path)
{
	return xasprintf("%s.tmp.%ld.%08x", path, (long)getpid(), (unsigned)random32());
}

/* create path's temporary, exclusively (another name where one is taken): fd, *name
   (malloc'd, removed at exit until tmp_forget), or -1 with errno */
static int tmp_create(const char *path, char **name)
{
	int fd, tries, e = EEXIST;

	for (tries = 0; tries < 64 && e == EEXIST; tries++) {
		*name = tmp_name(path);
		fd = open(*name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
		if (fd >= 0) {
			tmp_remember(*name, path);
			return fd;
		}
		e = errno;
		free(*name);
	}
	*name = NULL;
	errno = e;
	return -1;
}

/* one file of a set: its temporary and, while the set is renamed, a second name (a hard
   link) of the file it replaces */
struct fsfile {
	char *path, *tmp, *old;
	FILE *f;
	int fd;
	int had;                  /* a file was at path (old: its second name, if one was made) */
};

/* s failed at path: remember which (errno kept) */
static void fs_fail(struct fileset *s, const char *path)
{
	int e = errno;

	free(s->failed);
	s->failed = xstrdup(path);
	errno = e;
}

/* the entry of a new temporary for path in s, its descriptor in ->fd; NULL with errno */
static struct fsfile *fs_add(struct fileset *s, const char *path)
{
	struct fsfile *x;
	char *tmp;
	int fd = tmp_create(path, &tmp);

	if (fd < 0) {
		fs_fail(s, path);
		return NULL;
	}
	s->f = xreallocarray(s->f, s->n + 1, sizeof *s->f);
	x = &s->f[s->n++];
	*x = (struct fsfile){xstrdup(path), tmp, NULL, NULL, fd, 0};
	tmps[ntmps - 1].path = x->path;
	return x;
}

FILE *fileset_open(struct fileset *s, const char *path)
{
	struct fsfile *x = fs_add(s, path);
	size_t i;

	if (!x)
		return NULL;
	if (!(x->f = fdopen(x->fd, "w"))) {
		fs_fail(s, x->path);
		return NULL;
	}
	for (i = 0; i < ntmps; i++)
		if (tmps[i].name == x->tmp)
			tmps[i].f = x->f;
	return x->f;
}

int fileset_put(struct fileset *s, const char *path, const void *data, size_t len)
{
	struct fsfile *x = fs_add(s, path);

	if (!x)
		return -1;
	if (write_all(x->fd, data, len) < 0) {
		fs_fail(s, x->path);
		return -1;
	}
	return 0;
}

const char *fileset_path(const struct fileset *s, size_t i)
{
	return s->f[i].path;
}

void fileset_drop(struct fileset *s, const char *path)
{
	s->f = xreallocarray(s->f, s->n + 1, sizeof *s->f);
	s->f[s->n++] = (struct fsfile){xstrdup(path), NULL, NULL, NULL, -1, 0};
}

/* remove x's temporary (and its second name of the file replaced) */
static void fs_discard(struct fsfile *x)
{
	if (x->tmp) {
		unlink(x->tmp);
		tmp_forget(x->tmp);
		free(x->tmp);
		x->tmp = NULL;
	}
	if (x->old) {
		unlink(x->old);
		tmp_forget(x->old);
		free(x->old);
		x->old = NULL;
	}
}

/* close x's temporary, its contents on the disk; 0 or -1 with errno */
static int fs_close(struct fsfile *x)
{
	int rc = 0, e = 0;

	errno = 0;
	if (x->f) {
		if (fflush(x->f) != 0 || ferror(x->f))
			rc = -1, e = errno ? errno : EIO;
		x->fd = fileno(x->f);
	}
	if (x->fd >= 0) {
		if (!rc && fsync(x->fd) < 0 && errno != EINVAL)
			rc = -1, e = errno;
		if ((x->f ? fclose(x->f) : close(x->fd)) != 0 && !rc)
			rc = -1, e = errno;
	}
	x->f = NULL;
	x->fd = -1;
	errno = e;
	return rc;
}

/* a second name for the file at x->path (in x->old) while it is being replaced, or none
   where there is no such file (x->had 0) or the file system has no hard links; 0 or -1 with
   errno */
static int fs_keep_old(struct fsfile *x)
{
	int tries;

	for (tries = 0; tries < 64; tries++) {
		char *old = tmp_name(x->path);
		if (linkat(AT_FDCWD, x->path, AT_FDCWD, old, 0) == 0) { /* a link itself, not followed */
			x->old = old;
			x->had = 1;
			tmp_remember(old, x->path);
			return 0;
		}
		free(old);
		if (errno == ENOENT)
			return 0;
		x->had = 1;
		if (errno != EEXIST) /* a directory (its rename fails), or no hard links here */
			return errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK ||
			       errno == ENOSYS ? 0 : -1;
	}
	return -1;
}

int fileset_commit(struct fileset *s)
{
	size_t i, k;
	int e = 0;

	for (i = 0; i < s->n; i++)
		if (fs_close(&s->f[i]) < 0 && !e) {
			e = errno;
			fs_fail(s, s->f[i].path);
		}
	for (i = 0; i < s->n && !e; i++)
		if (fs_keep_old(&s->f[i]) < 0) {
			e = errno;
			fs_fail(s, s->f[i].path);
		}
	for (k = 0; k < s->n && !e; k++) {
		if (!s->f[k].tmp) { /* fileset_drop's */
			if (unlink(s->f[k].path) < 0 && errno != ENOENT) {
				e = errno;
				fs_fail(s, s->f[k].path);
				break;
			}
			continue;
		}
		if (k && s->pause_ms > 0) /* for the tests */
			nanosleep(&(struct timespec){0, s->pause_ms % 1000 * 1000000L}, NULL);
		if (rename(s->f[k].tmp, s->f[k].path) < 0) {
			e = errno;
			fs_fail(s, s->f[k].path);
			break;
		}
		tmp_forget(s->f[k].tmp);
		free(s->f[k].tmp);
		s->f[k].tmp = NULL;
	}
	if (e) {
		/* put back what the files renamed so far replaced; then no temporary is left */
		for (i = 0; i < k && i < s->n; i++) {
			struct fsfile *x = &s->f[i];
			if (x->old && rename(x->old, x->path) == 0) {
				tmp_forget(x->old);
				free(x->old);
				x->old = NULL;
			} else if (!x->had) {
				unlink(x->path);
			}
		}
		for (i = 0; i < s->n; i++)
			fs_discard(&s->f[i]);
		errno = e;
		return -1;
	}
	for (i = 0; i < s->n; i++)
		fs_discard(&s->f[i]);
	return 0;
}

void fileset_free(struct fileset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		fs_close(&s->f[i]);
		fs_discard(&s->f[i]);
		free(s->f[i].path);
	}
	free(s->f);
	free(s->failed);
	s->f = NULL;
	s->n = 0;
	s->failed = NULL;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
	struct fileset s = {0};
	int rc = fileset_put(&s, path, data, len) < 0 ? -1 : fileset_commit(&s), e = errno;

	fileset_free(&s);
	errno = e;
	return rc;
}

int mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				r = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (r == 0) {
		struct stat st;
		if (stat(path, &st) < 0)
			r = -1;
		else if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			r = -1;
		}
	}
	int e = errno;
	free(p);
	errno = e;
	return r;
}

int mkdirs_under(const char *root, const char *path)
{
	size_t n = strlen(root);
	char *p, *s;
	struct stat st;
	int r = 0, e;

	if (strncmp(path, root, n) || path[n] != '/')
		return mkdirs(path);
	if (mkdirs(root) < 0)
		return -1;
	p = xstrdup(path);
	for (s = p + n + 1; r == 0; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (s[-1] != '/') { /* a directory below root: made here, or one of its own */
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				r = -1;
			else if (lstat(p, &st) < 0)
				r = -1;
			else if (!S_ISDIR(st.st_mode)) {
				errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
				r = -1;
			}
		}
		*s = c;
		if (!c)
			break;
	}
	e = errno;
	free(p);
	errno = e;
	return r;
}

int util_plain_name(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._=+-");

	return n >= 1 && n <= 200 && !s[n] && s[0] != '.';
}

char *path_dir(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

char *path_join(const char *dir, const char *rel)
{
	if (rel[0] == '/' || !dir || !strcmp(dir, "."))
		return xstrdup(rel);
	return xasprintf("%s/%s", dir, rel);
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int read_all(int fd, void *p, size_t n)
{
	char *s = p;

	while (n > 0) {
		ssize_t r = read(fd, s, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}
