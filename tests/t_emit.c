/* emit's one escaping path into generated source: comments and string literals. */
#include "test.h"

#include <stdlib.h>

#include "emit.h"
#include "util.h"

/* 1 if s holds a C comment's start or end */
static int has_comment_mark(const char *s)
{
	return strstr(s, "*/") || strstr(s, "/*");
}

TEST(buf_safe_breaks_comment_marks)
{
	struct buf b = {0};

	buf_safe(&b, "/tmp/x*/\nint pwned = 1;\n/*y", 0);
	CHECK(!has_comment_mark(b.s));
	CHECK(!strchr(b.s, '\n'));
	CHECK(strstr(b.s, "int pwned = 1;") != NULL); /* the text stays readable */
	b.len = 0;
	buf_safe(&b, "a**/*//b", 0);
	CHECK(!has_comment_mark(b.s));
	b.len = 0;
	buf_safe(&b, "caf\xc3\xa9\x01\x7f", 0);
	CHECK_STR(b.s, "caf\xc3\xa9\\x01\\x7f");
	b.len = 0; /* C1 controls, bidirectional overrides, bytes of no sequence, escapes */
	buf_safe(&b, "a\xc2\x9b[2J\xe2\x80\xae" "b\xff\x1b]0;x", 0);
	CHECK_STR(b.s, "a\\xc2\\x9b[2J\\xe2\\x80\\xaeb\\xff\\x1b]0;x");
	b.len = 0; /* max bytes of s, never half a character, then "..." */
	buf_safe(&b, "ab\xc3\xa9" "cd", 3);
	CHECK_STR(b.s, "ab...");
	b.len = 0;
	buf_safe(&b, NULL, 0);
	CHECK_EQ(b.len, 0);
	buf_free(&b);
}

TEST(emit_cstr_escapes)
{
	struct buf b = {0};

	emit_cstr(&b, "a\"b\\c\nd?\?/e");
	CHECK_STR(b.s, "\"a\\\"b\\\\c\\012d\\077\\077/e\"");
	b.len = 0;
	emit_cstr(&b, NULL);
	CHECK_STR(b.s, "\"\"");
	buf_free(&b);
}
