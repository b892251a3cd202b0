/* A tiny test harness: TEST(name) { CHECK(...); } registers itself at load time. */
#ifndef TUNER_TEST_H
#define TUNER_TEST_H

#include <stdio.h>
#include <string.h>

struct test {
	const char *name;
	void (*fn)(void);
	struct test *next;
};

void test_register(struct test *t);
/* record a failed check; used by the macros */
void test_fail(const char *file, int line, const char *what);
/* run fn(arg) in a child with stderr captured into out (size cap); its exit status, or -1 */
int test_in_child(void (*fn)(const void *), const void *arg, char *out, size_t cap);
/* "tests/data" etc. resolved against the source root (TUNER_SRCDIR, default ".") */
const char *test_path(const char *rel);
struct config;
struct space;
/* config cfg (a path from the source root) loaded, its template read into *tmpl (free) and
   its space expanded into *s (space_free) at its sizes for 132 SMs, with an H100's limits */
struct config *test_expand(const char *cfg, struct space *s, char **tmpl);

#define TEST(name)                                                              \
	static void test_##name(void);                                          \
	static struct test test_rec_##name = {#name, test_##name, 0};           \
	__attribute__((constructor)) static void test_reg_##name(void)          \
	{                                                                       \
		test_register(&test_rec_##name);                                \
	}                                                                       \
	static void test_##name(void)

#define CHECK(c) do { if (!(c)) test_fail(__FILE__, __LINE__, #c); } while (0)
#define CHECK_EQ(a, b) do {                                                     \
		long long a_ = (long long)(a), b_ = (long long)(b);             \
		if (a_ != b_) {                                                 \
			char m_[256];                                           \
			snprintf(m_, sizeof m_, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
			test_fail(__FILE__, __LINE__, m_);                      \
		}                                                               \
	} while (0)
#define CHECK_STR(a, b) do {                                                    \
		const char *a_ = (a), *b_ = (b);                                \
		if (!a_ || !b_ || strcmp(a_, b_)) {                             \
			char m_[1024];                                          \
			snprintf(m_, sizeof m_, "%s == %s (\"%s\" != \"%s\")", #a, #b, \
			         a_ ? a_ : "(null)", b_ ? b_ : "(null)");      \
			test_fail(__FILE__, __LINE__, m_);                      \
		}                                                               \
	} while (0)

#endif
