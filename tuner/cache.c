/* cache: compiled results on disk, keyed by (source, options, NVRTC version, arch).

   An entry is <dir>/<16 hex digits of hash(key)>.bin:
     "TUNRCAC1"  magic
     u64 + bytes key (compared exactly: a hash collision is a miss)
     u32 ok, i32 regs, spill_stores, spill_loads, stack, smem_static
     u64 + bytes lowered name, log, cubin
   all integers little-endian; anything short, long or malformed is a miss. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* bump when the key text, the entry format or nv_compile's fixed options change */
#define CACHE_FORMAT "tuner-cache 1"

static const char magic[8] = {'T', 'U', 'N', 'R', 'C', 'A', 'C', '1'};

/* one key field: "<tag> <length>\n<bytes>\n" */
static void key_field(struct buf *key, const char *tag, const char *s)
{
	if (!s)
		s = "";
	buf_printf(key, "%s %zu\n", tag, strlen(s));
	buf_puts(key, s);
	buf_puts(key, "\n");
}

void cache_key(struct buf *key, const char *src, const char *entry, const char *arch,
               char *const *opts, size_t nopts)
{
	size_t i;

	key->len = 0;
	buf_add(key, "", 0);
	key_field(key, "format", CACHE_FORMAT);
	key_field(key, "nvrtc", nv_version());
	key_field(key, "arch", arch);
	key_field(key, "entry", entry);
	buf_printf(key, "options %zu\n", nopts);
	for (i = 0; i < nopts; i++)
		key_field(key, "option", opts[i]);
	key_field(key, "source", src);
}

/* <dir>/<hash>.bin, malloc'd */
static char *entry_path(const char *dir, const struct buf *key)
{
	uint64_t h = hash_bytes(HASH_INIT, key->s ? key->s : "", key->len);

	return xasprintf("%s/%016llx.bin", dir, (unsigned long long)h);
}

static void put_u32(struct buf *b, uint32_t v)
{
	unsigned char c[4];
	int i;

	for (i = 0; i < 4; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, c, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	unsigned char c[8];
	int i;

	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, c, 8);
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	put_u64(b, n);
	buf_add(b, p, n);
}

/* a bounds-checked reader; any overrun sets bad */
struct rd {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t get_n(struct rd *r, int n)
{
	uint64_t v = 0;
	int i;

	if (r->bad || r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* the next length-prefixed field: pointer into the data, length in *n */
static const unsigned char *get_bytes(struct rd *r, size_t *n)
{
	uint64_t len = get_n(r, 8);
	const unsigned char *p = r->p;

	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		*n = 0;
		return NULL;
	}
	r->p += len;
	*n = (size_t)len;
	return p;
}

static int32_t get_i32(struct rd *r)
{
	uint32_t u = (uint32_t)get_n(r, 4);

	return u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

int cache_get(const char *dir, const struct buf *key, struct compile_out *out)
{
	char *path, *data;
	size_t len, n, nlow, nlog, ncubin;
	const unsigned char *k, *low, *log, *cubin;
	struct rd r;
	uint32_t ok;
	int32_t regs, sst, sld, stack, smem;

	if (!dir || !*dir)
		return 0;
	path = entry_path(dir, key);
	data = file_read(path, &len);
	free(path);
	if (!data)
		return 0;
	r.p = (const unsigned char *)data;
	r.end = r.p + len;
	r.bad = 0;
	if (len < sizeof magic || memcmp(data, magic, sizeof magic) != 0)
		goto miss;
	r.p += sizeof magic;
	k = get_bytes(&r, &n);
	if (r.bad || n != key->len || (n && memcmp(k, key->s, n) != 0))
		goto miss;
	ok = (uint32_t)get_n(&r, 4);
	regs = get_i32(&r);
	sst = get_i32(&r);
	sld = get_i32(&r);
	stack = get_i32(&r);
	smem = get_i32(&r);
	low = get_bytes(&r, &nlow);
	log = get_bytes(&r, &nlog);
	cubin = get_bytes(&r, &ncubin);
	if (r.bad || r.p != r.end || ok > 1 || (ok && ncubin == 0))
		goto miss;

	memset(out, 0, sizeof *out);
	out->ok = (int)ok;
	out->regs = regs;
	out->spill_stores = sst;
	out->spill_loads = sld;
	out->stack = stack;
	out->smem_static = smem;
	out->lowered = xstrndup((const char *)low, nlow);
	out->log = xstrndup((const char *)log, nlog);
	if (ncubin) {
		out->cubin = xmalloc(ncubin);
		memcpy(out->cubin, cubin, ncubin);
		out->cubin_len = ncubin;
	}
	free(data);
	return 1;
miss:
	free(data);
	return 0;
}

int cache_put(const char *dir, const struct buf *key, const struct compile_out *out)
{
	struct buf b = {0};
	char *path;
	int r, e;

	if (!dir || !*dir) {
		errno = ENOENT;
		return -1;
	}
	if (mkdirs(dir) < 0)
		return -1;
	buf_add(&b, magic, sizeof magic);
	put_bytes(&b, key->s ? key->s : "", key->len);
	put_u32(&b, out->ok ? 1 : 0);
	put_u32(&b, (uint32_t)out->regs);
	put_u32(&b, (uint32_t)out->spill_stores);
	put_u32(&b, (uint32_t)out->spill_loads);
	put_u32(&b, (uint32_t)out->stack);
	put_u32(&b, (uint32_t)out->smem_static);
	put_bytes(&b, out->lowered ? out->lowered : "", out->lowered ? strlen(out->lowered) : 0);
	put_bytes(&b, out->log ? out->log : "", out->log ? strlen(out->log) : 0);
	put_bytes(&b, out->cubin ? out->cubin : "", out->cubin ? out->cubin_len : 0);
	path = entry_path(dir, key);
	r = file_write_atomic(path, b.s, b.len);
	e = errno;
	free(path);
	buf_free(&b);
	errno = e;
	return r;
}

char *cache_default_dir(void)
{
	const char *s = getenv("TUNER_CACHE");
	struct passwd *pw;

	if (s && *s)
		return xstrdup(s);
	s = getenv("XDG_CACHE_HOME");
	if (s && *s == '/') /* the XDG spec says to ignore relative paths */
		return xasprintf("%s/tuner", s);
	s = getenv("HOME");
	if ((!s || !*s) && (pw = getpwuid(getuid())) && pw->pw_dir)
		s = pw->pw_dir;
	if (s && *s)
		return xasprintf("%s/.cache/tuner", s);
	return xasprintf("/tmp/tuner-cache-%ld", (long)getuid());
}

int cache_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *t = strstr(e->d_name, ".bin.tmp.");
		char *end, *path;
		struct stat st;
		long pid;

		if (!t)
			continue;
		errno = 0;
		pid = strtol(t + 9, &end, 10);
		if (errno || *end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue; /* not ours to judge, or its writer is alive */
		path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && time(NULL) - st.st_mtime > 60 &&
		    unlink(path) == 0)
			n++;
		free(path);
	}
	closedir(d);
	return n;
}
