/* cache: compiled results on disk, keyed by (source, options, NVRTC version, arch).

   An entry is <dir>/<16 hex digits of hash(key)>.bin:
     "TUNRCAC1"  magic
     u64 + bytes key (compared exactly: a hash collision is a miss)
     u32 ok, i32 regs, spill_stores, spill_loads, stack, smem_static
     u64 + bytes lowered name, log, cubin
   all integers little-endian; anything short, long or malformed is a miss. */
#include "cache.h"
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

int cache_get(const char *dir, const struct buf *key, struct compile_out *out)
{
	char *path, *data;
	size_t len, n;
	const void *k;
	struct rd r;

	if (!dir || !*dir)
		return 0;
	path = entry_path(dir, key);
	data = file_read(path, &len);
	free(path);
	if (!data)
		return 0;
	if (len < sizeof magic || memcmp(data, magic, sizeof magic) != 0)
		goto miss;
	r = rd_of(data + sizeof magic, len - sizeof magic);
	k = rd_bytes(&r, &n);
	if (r.bad || n != key->len || (n && memcmp(k, key->s, n) != 0))
		goto miss;
	if (rd_co(&r, out) < 0)
		goto miss;
	if (!rd_done(&r)) {
		nv_out_free(out);
		goto miss;
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
	wire_bytes(&b, key->s, key->len);
	wire_co(&b, out);
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
