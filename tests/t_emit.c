/* emit's one escaping path into generated source: comments and string literals. */
#include "test.h"

#include <stdlib.h>

#include "emit.h"

/* 1 if s holds a C comment's start or end */
static int has_comment_mark(const char *s)
{
	return strstr(s, "*/") || strstr(s, "/*");
}

TEST(emit_comment_breaks_comment_marks)
{
	struct buf b = {0};

	emit_comment(&b, "/tmp/x*/\nint pwned = 1;\n/*y");
	CHECK(!has_comment_mark(b.s));
	CHECK(!strchr(b.s, '\n'));
	CHECK(strstr(b.s, "int pwned = 1;") != NULL); /* the text stays readable */
	b.len = 0;
	emit_comment(&b, "a**/*//b");
	CHECK(!has_comment_mark(b.s));
	b.len = 0;
	emit_comment(&b, "caf\xc3\xa9\x01\x7f");
	CHECK_STR(b.s, "caf??  ");
	b.len = 0;
	emit_comment(&b, NULL);
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
