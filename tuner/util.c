/* util: errors, allocation, growable buffers, files. */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);

	progress_clear();
	fflush(stdout); /* what was printed before comes first, also in one file */
	fprintf(stderr, "%s: %s", argv0, prefix);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", util_strerror(err));
	fputc('\n', stderr);
}

const char *util_strerror(int e)
{
	return e == ENOTREG ? "not a regular file" : strerror(e);
}

noreturn void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("internal error: ", fmt, ap);
	va_end(ap);
	abort();
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void note(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	progress_clear();
	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
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

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
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

void buf_spill(struct buf *b, FILE *f, size_t at, const char *what)
{
	if (!f || b->len < at)
		return;
	if (b->len && fwrite(b->s, 1, b->len, f) != b->len)
		fatal("cannot write %s:", what);
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

int file_write_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	const char *p = data;
	int fd, e;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail_close;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0 && errno != EINVAL)
		goto fail_close;
	if (close(fd) < 0) {
		fd = -1;
		goto fail_unlink;
	}
	if (rename(tmp, path) < 0)
		goto fail_unlink;
	free(tmp);
	return 0;
fail_close:
	e = errno;
	close(fd);
	errno = e;
fail_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
fail:
	e = errno;
	free(tmp);
	errno = e;
	return -1;
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
