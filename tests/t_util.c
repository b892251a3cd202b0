/* Tests for util: the JSON escaper's UTF-8, the one way to read a file. */
#include "test.h"
#include "util.h"

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

static void put_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(s, f) < 0 || fclose(f) != 0)
		die("cannot write %s", path);
}

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
