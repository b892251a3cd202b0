/* cache: compiled results on disk, keyed by (source, options, NVRTC version, arch).

   An entry is <dir>/<16 hex digits of hash(key)>.bin:
     "TUNRCAC2"  magic
     u64 checksum: FNV-1a over everything after it
     u64 + bytes key (compared exactly: a hash collision is a miss)
     u32 ok, i32 regs, spill_stores, spill_loads, stack, smem_static
     u64 + bytes lowered name, log, cubin
   all integers little-endian (wire.c). Another magic (an older format) is a miss; a checksum
   that does not match, or anything short, long or malformed after a good magic, is a corrupt
   entry. */
#include "cache.h"
#include "nvrtc.h"
#include "util.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* bump when the key text, the entry format or nv_compile's fixed options change (-minimal
   is none of them: a program compiles to the same cubin with it as without) */
#define CACHE_FORMAT "tuner-cache 2"

static const char magic[8] = {'T', 'U', 'N', 'R', 'C', 'A', 'C', '2'};
#define HEAD (sizeof magic + 8) /* magic and checksum */
#define CACHE_ENTRY_MAX ((size_t)256 << 20) /* a larger file is no entry */

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

int cache_get(const char *dir, const struct buf *key, struct compile_out *out)
{
	char *path, *data;
	size_t len, n;
	const void *k;
	struct rd r;
	int rc = CACHE_CORRUPT;

	if (!dir || !*dir)
		return CACHE_MISS;
	path = entry_path(dir, key);
	data = file_read_nolink(path, CACHE_ENTRY_MAX, &len);
	free(path);
	if (!data) /* a link, a FIFO, a device or a huge file is no entry the tuner wrote */
		return errno == ELOOP || errno == ENOTREG || errno == EFBIG
		       ? CACHE_CORRUPT : CACHE_MISS;
	if (len < sizeof magic || memcmp(data, magic, sizeof magic) != 0) {
		rc = CACHE_MISS;
		goto out;
	}
	r = rd_of(data + sizeof magic, len - sizeof magic);
	if (len < HEAD || rd_u64(&r) != hash_bytes(HASH_INIT, data + HEAD, len - HEAD))
		goto out;
	k = rd_bytes(&r, &n);
	if (r.bad)
		goto out;
	if (n != key->len || (n && memcmp(k, key->s, n) != 0)) {
		rc = CACHE_MISS; /* another key with the same hash */
		goto out;
	}
	if (rd_co(&r, out) < 0)
		goto out;
	if (!rd_done(&r)) {
		nv_out_free(out);
		goto out;
	}
	rc = CACHE_HIT;
out:
	free(data);
	return rc;
}

int cache_put(const char *dir, const struct buf *key, const struct compile_out *out)
{
	struct buf b = {0}, body = {0};
	char *path;
	int r, e;

	if (!dir || !*dir) {
		errno = ENOENT;
		return -1;
	}
	if (mkdirs(dir) < 0)
		return -1;
	wire_bytes(&body, key->s, key->len);
	wire_co(&body, out);
	buf_add(&b, magic, sizeof magic);
	wire_u64(&b, hash_bytes(HASH_INIT, body.s, body.len));
	buf_add(&b, body.s, body.len);
	buf_free(&body);
	path = entry_path(dir, key);
	r = file_write_atomic(path, b.s, b.len);
	e = errno;
	free(path);
	buf_free(&b);
	errno = e;
	return r;
}

/* 1 if path is an existing directory */
static int is_dir(const char *path)
{
	struct stat st;

	return path && *path == '/' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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
	if (is_dir(s)) /* a home that is not there is not created for a cache */
		return xasprintf("%s/.cache/tuner", s);
	return NULL;
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
		if (*end == '.') /* PID.RANDOM (util.c: tmp_name) */
			end += 1 + strspn(end + 1, "0123456789abcdef");
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
