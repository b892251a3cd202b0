/* Tests for util: the JSON escaper's UTF-8, the one way to read a file and the one way to
   write one (exclusive temporaries, sets replaced together), directories below a root. */
#include "test.h"
#include "util.h"
#include "wrap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/tuner-util-XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(d))
		die("mkdtemp");
	return d;
}

/* remove dir and what it holds, then free it and the other strings given, up to a NULL */
static void cleanup(char *dir, ...)
{
	char *cmd = xasprintf("rm -rf '%s'", dir), *p;
	va_list ap;

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	free(dir);
	va_start(ap, dir);
	while ((p = va_arg(ap, char *)))
		free(p);
	va_end(ap);
}

/* how many names in dir hold ".tmp." */
static int ntemps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void put_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(s, f) < 0 || fclose(f) != 0)
		die("cannot write %s", path);
}

/* path holds the text want */
#define CHECK_TEXT(path, want) do {                                             \
		char *t_ = file_read(path, NULL);                               \
		CHECK_STR(t_, want);                                            \
		free(t_);                                                       \
	} while (0)

static char *json(const char *s, int html)
{
	struct buf b = {0};

	if (html)
		buf_json_str_html(&b, s);
	else
		buf_json_str(&b, s);
	return b.s;
}

#define JSON_IS(in, want) do {                                                  \
		char *got_ = json(in, 0);                                       \
		CHECK_STR(got_, want);                                          \
		free(got_);                                                     \
	} while (0)

TEST(json_str_utf8)
{
	char *h;

	JSON_IS("plain \"q\" \\ \n\t\x01", "\"plain \\\"q\\\" \\\\ \\n\\t\\u0001\"");
	JSON_IS("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	JSON_IS("\xef\xbf\xbd", "\"\xef\xbf\xbd\"");       /* U+FFFD itself stays raw */
	JSON_IS("a\xff" "b", "\"a\\ufffdb\"");               /* a byte no sequence starts with */
	JSON_IS("\x80", "\"\\ufffd\"");                      /* a stray continuation byte */
	JSON_IS("\xc0\xaf", "\"\\ufffd\\ufffd\"");           /* overlong '/' */
	JSON_IS("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""); /* overlong, 3 bytes */
	JSON_IS("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	JSON_IS("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate, U+D800 */
	JSON_IS("\xed\x9f\xbf", "\"\xed\x9f\xbf\"");          /* U+D7FF, just below */
	JSON_IS("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");  /* U+10FFFF */
	JSON_IS("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above it */
	JSON_IS("\xe2\x82" "A", "\"\\ufffd\\ufffdA\"");      /* truncated, then ASCII */
	JSON_IS("end\xe2\x82", "\"end\\ufffd\\ufffd\"");     /* truncated at the end */
	JSON_IS("", "\"\"");
	h = json("<\xc3\xa9>&\x7f\xfe", 1);
	CHECK_STR(h, "\"\\u003c\xc3\xa9\\u003e\\u0026\\u007f\\ufffd\"");
	free(h);
}

/* the length of the UTF-8 sequence at u by the definition (RFC 3629), 0 if invalid */
static int ref_len(const unsigned char *u)
{
	int n, i;
	unsigned long cp;

	if (u[0] < 0x80)
		return 1;
	n = u[0] >= 0xf8 ? 0 : u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 0;
	if (!n)
		return 0;
	cp = u[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < (n == 2 ? 0x80ul : n == 3 ? 0x800ul : 0x10000ul) || cp > 0x10fffful ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

TEST(utf8_len_by_definition)
{
	static const unsigned char tail[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
	                                     0xc0, 0xff};
	unsigned char s[5] = {0};
	int a, b, c, d, bad = 0;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++)
			for (c = 0; c < (int)sizeof tail; c++)
				for (d = 0; d < (int)sizeof tail; d++) {
					s[0] = (unsigned char)a;
					s[1] = (unsigned char)b;
					s[2] = tail[c];
					s[3] = tail[d];
					if (utf8_len((const char *)s) != ref_len(s) && !bad++)
						CHECK_EQ(utf8_len((const char *)s), ref_len(s));
				}
	CHECK_EQ(bad, 0);
}

TEST(file_read_regular_only_bounded)
{
	char *dir = tmpdir(), *fifo = xasprintf("%s/fifo", dir), *big = xasprintf("%s/big", dir);
	char *link = xasprintf("%s/link", dir), *small = xasprintf("%s/small", dir), *s;
	size_t len = 0;
	int fd;

	put_text(small, "hello\n");
	CHECK_EQ(symlink(small, link), 0);
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	/* a FIFO: refused at once, not waited for */
	errno = 0;
	CHECK(file_read(fifo, &len) == NULL);
	CHECK_EQ(errno, ENOTREG);
	CHECK(file_read_nolink(fifo, 0, &len) == NULL);
	CHECK(file_read_max(fifo, 100, &len) == NULL);
	/* a device */
	errno = 0;
	CHECK(file_read_max("/dev/zero", 100, &len) == NULL);
	CHECK_EQ(errno, ENOTREG);
	CHECK(file_read("/dev/null", &len) == NULL);
	/* a sparse file of 8 GiB: file_read and file_read_nolink stop at their bound (EFBIG);
	   file_read_max reads max + 1 bytes, saying that it is larger */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)8 << 30) == 0);
	if (fd >= 0)
		close(fd);
	errno = 0;
	CHECK(file_read(big, &len) == NULL);
	CHECK_EQ(errno, EFBIG);
	errno = 0;
	CHECK(file_read_nolink(big, 1000, &len) == NULL);
	CHECK_EQ(errno, EFBIG);
	s = file_read_max(big, 1000, &len);
	CHECK(s != NULL);
	CHECK_EQ(len, 1001);
	free(s);
	/* links: followed by file_read and file_read_max, refused by file_read_nolink */
	s = file_read(link, &len);
	CHECK_STR(s, "hello\n");
	CHECK_EQ(len, 6);
	free(s);
	errno = 0;
	CHECK(file_read_nolink(link, 0, &len) == NULL);
	CHECK_EQ(errno, ELOOP);
	s = file_read_nolink(small, 6, &len);
	CHECK_STR(s, "hello\n");
	free(s);
	errno = 0;
	CHECK(file_read_nolink(small, 5, &len) == NULL);
	CHECK_EQ(errno, EFBIG);
	/* the message of fatal and warn */
	CHECK_STR(util_strerror(ENOTREG), "not a regular file");
	cleanup(dir, fifo, big, link, small, NULL);
}

TEST(file_open_own_no_links)
{
	char *dir = tmpdir(), *out = xasprintf("%s/outside", dir), *sub = xasprintf("%s/d", dir);
	char *j = xasprintf("%s/d/journal", dir), *l = xasprintf("%s/d/.lock", dir);
	char *created = xasprintf("%s/created", dir);
	int fd;

	CHECK_EQ(mkdir(sub, 0777), 0);
	put_text(out, "precious\n");
	/* a link planted as the journal: refused, the file it names untouched */
	CHECK_EQ(symlink(out, j), 0);
	errno = 0;
	CHECK_EQ(file_open_own(j, 1), -1);
	CHECK_EQ(errno, ELOOP);
	unlink(j);
	/* a dangling link: nothing created where it points */
	CHECK_EQ(symlink(created, l), 0);
	CHECK_EQ(file_open_own(l, 0), -1);
	CHECK(access(created, F_OK) < 0);
	unlink(l);
	/* a hard link to a file outside, as a journal to append to */
	if (link(out, j) == 0) {
		errno = 0;
		CHECK_EQ(file_open_own(j, 1), -1);
		CHECK_EQ(errno, EMLINK);
		unlink(j);
	}
	/* a FIFO: refused without waiting for a writer */
	CHECK_EQ(mkfifo(j, 0600), 0);
	errno = 0;
	CHECK_EQ(file_open_own(j, 1), -1);
	CHECK_EQ(errno, ENOTREG);
	unlink(j);
	/* nothing there: created */
	fd = file_open_own(j, 1);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_TEXT(out, "precious\n");
	cleanup(dir, out, sub, j, l, created, NULL);
}

TEST(file_write_atomic_replaces_links)
{
	char *dir = tmpdir(), *out = xasprintf("%s/outside", dir), *p = xasprintf("%s/f", dir);
	struct stat st;

	put_text(out, "precious\n");
	CHECK_EQ(symlink(out, p), 0);
	CHECK_EQ(file_write_atomic(p, "new\n", 4), 0);
	CHECK_TEXT(out, "precious\n"); /* the link is replaced, not written through */
	CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_TEXT(p, "new\n");
	CHECK_EQ(ntemps(dir), 0);
	/* a directory where the file should be: an error, no temporary left */
	unlink(p);
	CHECK_EQ(mkdir(p, 0777), 0);
	CHECK_EQ(file_write_atomic(p, "x", 1), -1);
	CHECK_EQ(ntemps(dir), 0);
	cleanup(dir, out, p, NULL);
}

TEST(fileset_all_or_none)
{
	char *dir = tmpdir(), *a = xasprintf("%s/a", dir), *b = xasprintf("%s/b", dir);
	char *c = xasprintf("%s/c", dir);
	struct fileset set = {0};
	FILE *f;

	/* the run before: a and b */
	put_text(a, "old a\n");
	put_text(b, "old b\n");
	/* all of them */
	f = fileset_open(&set, a);
	CHECK(f != NULL);
	if (f)
		fputs("new a\n", f);
	CHECK_EQ(fileset_put(&set, c, "new c\n", 6), 0);
	CHECK_EQ(ntemps(dir), 2);
	CHECK_EQ(fileset_commit(&set), 0);
	fileset_free(&set);
	CHECK_TEXT(a, "new a\n");
	CHECK_TEXT(c, "new c\n");
	CHECK_EQ(ntemps(dir), 0);
	/* a, then c where a directory is: c's rename fails, a is put back and c stays a
	   directory, no temporary is left */
	unlink(c);
	CHECK_EQ(mkdir(c, 0777), 0);
	CHECK_EQ(fileset_put(&set, a, "newer a\n", 8), 0);
	CHECK_EQ(fileset_put(&set, b, "newer b\n", 8), 0);
	CHECK_EQ(fileset_put(&set, c, "newer c\n", 8), 0);
	errno = 0;
	CHECK_EQ(fileset_commit(&set), -1);
	CHECK_EQ(errno, EISDIR);
	CHECK_STR(set.failed, c);
	fileset_free(&set);
	CHECK_TEXT(a, "new a\n");
	CHECK_TEXT(b, "old b\n");
	CHECK_EQ(ntemps(dir), 0);
	/* a set never committed leaves nothing */
	CHECK_EQ(fileset_put(&set, a, "x", 1), 0);
	fileset_free(&set);
	CHECK_TEXT(a, "new a\n");
	CHECK_EQ(ntemps(dir), 0);
	cleanup(dir, a, b, c, NULL);
}

/* a set of two, then fatal while writing: the exit removes the temporaries */
static void die_mid_set(const void *arg)
{
	const char *dir = arg;
	struct fileset set = {0};
	char *a = xasprintf("%s/a", dir), *b = xasprintf("%s/b", dir);

	fileset_put(&set, a, "a", 1);
	fileset_open(&set, b);
	fatal("stop");
}

TEST(fileset_exit_removes_temporaries)
{
	char *dir = tmpdir(), *a = xasprintf("%s/a", dir), err[256];

	CHECK_EQ(test_in_child(die_mid_set, dir, err, sizeof err), 2);
	CHECK_STR(err, "tuner: stop\n");
	CHECK_EQ(ntemps(dir), 0);
	CHECK(access(a, F_OK) < 0);
	cleanup(dir, a, NULL);
}

TEST(mkdirs_under_no_links)
{
	char *dir = tmpdir(), *root = xasprintf("%s/out", dir), *else_ = xasprintf("%s/else", dir);
	char *k = xasprintf("%s/out/k", dir), *deep = xasprintf("%s/out/k/gpu", dir);
	char *gpu = xasprintf("%s/gpu", else_), *kx = xasprintf("%s/x", k);
	char *yz = xasprintf("%s/y/z", dir);
	struct stat st;

	CHECK_EQ(mkdirs_under(root, deep), 0);
	CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
	/* k replaced by a link to a directory elsewhere: refused, nothing made there */
	CHECK(rmdir(deep) == 0 && rmdir(k) == 0);
	CHECK_EQ(mkdir(else_, 0777), 0);
	CHECK_EQ(symlink(else_, k), 0);
	errno = 0;
	CHECK_EQ(mkdirs_under(root, deep), -1);
	CHECK_EQ(errno, ELOOP);
	CHECK(access(gpu, F_OK) < 0);
	/* the root itself may be a link (the user names it), and a path outside it is made */
	CHECK_EQ(mkdirs_under(k, kx), 0);
	CHECK_EQ(mkdirs_under("/nonexistent-root", yz), 0);
	cleanup(dir, root, else_, k, deep, gpu, kx, yz, NULL);
}

/* wrap_put(text, width) into a string */
static char *wrapped(const char *text, size_t width)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	wrap_put(f, text, width);
	fclose(f);
	return s;
}

TEST(wrap_put_breaks_prose_at_spaces)
{
	char *s;

	/* a line that fits is left as it is, its spaces too */
	CHECK_STR((s = wrapped("a  b c\n  d\n", 20)), "a  b c\n  d\n");
	free(s);
	/* a longer one breaks at its last space within the width, the rest indented two more */
	CHECK_STR((s = wrapped("one two three four\n", 10)), "one two\n  three\n  four\n");
	free(s);
	CHECK_STR((s = wrapped("  ab cd ef gh\n", 9)), "  ab cd\n    ef gh\n");
	free(s);
	/* a word longer than the width stays whole, on a line of its own */
	CHECK_STR((s = wrapped("x abcdefghijkl y", 6)), "x\n  abcdefghijkl\n  y");
	free(s);
	/* the indent itself is never a place to break */
	CHECK_STR((s = wrapped("      abcdefgh", 4)), "      abcdefgh");
	free(s);
}
