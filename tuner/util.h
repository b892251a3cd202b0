/* util: errors, allocation, growable buffers, files. */
#ifndef TUNER_UTIL_H
#define TUNER_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdnoreturn.h>


#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* exit codes */
enum { EXIT_NOVARIANT = 1, EXIT_USAGE = 2, EXIT_INTERRUPT = 130 };

extern const char *argv0; /* program name used as message prefix */
extern int verbosity;     /* 0 quiet, 1 normal, 2 verbose */

/* print "tuner: msg" and exit 2; a trailing ':' in fmt appends strerror(errno) */
noreturn void fatal(const char *fmt, ...);
/* internal bug: print and abort */
noreturn void die(const char *fmt, ...);
/* print "tuner: warning: msg" to stderr (trailing ':' as for fatal), wrapped (wrap_put) */
void warn(const char *fmt, ...);
/* print to stderr when verbosity >= level, wrapped (wrap_put) */
void note(int level, const char *fmt, ...);

/* a one-line status on a terminal, in the manner of ninja: "[done/total] what, rate, time
   left", redrawn at most ten times a second and cleared by any message; nothing when stderr
   is not a terminal or with -q */
void progress_begin(const char *what, size_t total);
void progress_step(size_t done);
void progress_end(void);

/* allocation that never returns NULL */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* malloc'd printf */
char *xasprintf(const char *fmt, ...);

/* growable byte buffer, always NUL-terminated when s != NULL */
struct buf {
	char *s;
	size_t len, cap;
};
/* append n bytes */
void buf_add(struct buf *b, const void *p, size_t n);
/* append a string */
void buf_puts(struct buf *b, const char *s);
/* append formatted text */
void buf_printf(struct buf *b, const char *fmt, ...);
/* append formatted text, from a va_list */
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* the length of the valid UTF-8 sequence at s (1 to 4; 1 for an ASCII byte), 0 where s
   starts none (a stray continuation byte, a truncated sequence, an overlong form, a
   surrogate, a code point above U+10FFFF); reads no further than a NUL */
int utf8_len(const char *s);
/* append the character at s (not NUL): its valid UTF-8 sequence, or U+FFFD for a byte that
   starts none; returns how many bytes of s it took */
size_t buf_utf8_char(struct buf *b, const char *s);
/* append s (NULL: nothing), text from a file the tuner did not write or a path, so that it is
   safe on a terminal, in a log line and inside a C comment of generated source: printable
   ASCII and valid UTF-8 pass, but for control characters, DEL, C1 controls, bidirectional and
   invisible formatting characters and bytes of no valid sequence, each byte written as \xNN,
   and a comment's start or end broken apart by a blank; at most max bytes of s (0: all), then
   "..." where more is left. The one escaping of such text for the terminal and comments. */
void buf_safe(struct buf *b, const char *s, size_t max);
/* s through buf_safe, at most UTIL_SHOW_MAX bytes of it, for a message's %s (NULL: ""); valid
   until eight more calls */
const char *util_show(const char *s);
#define UTIL_SHOW_MAX 200
/* append a string as a JSON string literal (with quotes): valid UTF-8 always, each byte that
   starts no valid sequence written as \ufffd (U+FFFD, the replacement character) */
void buf_json_str(struct buf *b, const char *s);
/* as buf_json_str, with < > & and DEL escaped too: safe inside an HTML <script> element */
void buf_json_str_html(struct buf *b, const char *s);
/* write what b holds to f once it holds at least `at` bytes (nothing when f is NULL), emptying
   b; on an error fatal("cannot write 'PATH':") where f is a fileset's, else fatal("cannot
   write WHAT:") */
void buf_spill(struct buf *b, FILE *f, size_t at, const char *what);
/* release the buffer's memory and reset it */
void buf_free(struct buf *b);

/* errno of a file that is there but is neither a regular file nor a directory (a FIFO, a
   device, a socket) where a regular file is wanted; fatal, warn and util_strerror say "not a
   regular file" */
#define ENOTREG 4100
/* strerror(e), ENOTREG included */
const char *util_strerror(int e);

/* Reading a file, the one way: it is opened with O_NONBLOCK (a FIFO cannot block the open),
   must be a regular file (EISDIR for a directory, ENOTREG for a FIFO, a device or a socket)
   and is read up to a bound, so that neither a FIFO nor /dev/zero nor a sparse file of many
   GiB holds the tuner up or fills its memory. NULL with errno set on failure; *len (if not
   NULL) gets the size; the text is NUL-terminated. */
/* the bound of file_read and file_read_nolink(.., 0, ..) */
#define FILE_READ_MAX ((size_t)256 << 20)
/* a file the user names (a config, a template): links are followed; more than FILE_READ_MAX
   bytes fail with EFBIG */
char *file_read(const char *path, size_t *len);
/* as file_read, but bounded by max: a larger file ends after max + 1 bytes, and *len > max
   says that it is larger than max */
char *file_read_max(const char *path, size_t max, size_t *len);
/* a file inside a directory that another user may write (an out, cache or results
   directory): as file_read, but a symbolic link is refused (ELOOP) and the bound is max (0:
   FILE_READ_MAX): more fails with EFBIG */
char *file_read_nolink(const char *path, size_t max, size_t *len);
/* open path, a file inside a directory that another user may write (a lock, a journal), for
   reading and writing, created (0644) if absent: a symbolic link is refused (ELOOP), a FIFO
   cannot block the open, and only a regular file is taken (EISDIR, ENOTREG); with append
   (O_APPEND), a file with other names (hard links) is refused too (EMLINK), as one that is
   appended to; fd, or -1 with errno */
int file_open_own(const char *path, int append);
/* format a reason into why (size whylen; nothing if why is NULL or whylen 0) */
void say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* write all n bytes of p to fd (retrying after signals); 0 or -1 with errno */
int write_all(int fd, const void *p, size_t n);
/* read exactly n bytes from fd into p; 0, or -1 on an error or an early end of file */
int read_all(int fd, void *p, size_t n);
/* Writing a file, the one way: into a temporary beside it, "PATH.tmp.PID.RANDOM", created
   with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 less the umask; another name where one is taken)
   so that nothing planted there (a link, a FIFO, a file) is opened, then renamed over PATH (a
   link at PATH is replaced, not followed). Until then an exit (fatal) removes it. */
/* write data to path (a set of one: fileset); 0 or -1 with errno */
int file_write_atomic(const char *path, const void *data, size_t len);
/* several files replaced together: each written to its temporary (fileset_open, fileset_put),
   then all renamed (fileset_commit); should one fail, none is replaced */
struct fileset {
	struct fsfile *f;
	size_t n;
	char *failed;             /* after a failure: the path it concerns */
	int pause_ms;             /* for the tests: ms between two renames (under 1000) */
};
/* a stream for path's new contents (its temporary); NULL with errno (s->failed: path) */
FILE *fileset_open(struct fileset *s, const char *path);
/* path's new contents: data; 0 or -1 with errno (s->failed: path) */
int fileset_put(struct fileset *s, const char *path, const void *data, size_t len);
/* the path of the set's i-th file */
const char *fileset_path(const struct fileset *s, size_t i);
/* path removed by fileset_commit, with the renames (put back should they fail) */
void fileset_drop(struct fileset *s, const char *path);
/* flush, sync and close every temporary, then rename each over its path; 0, or -1 with
   errno and s->failed set, when a write, a sync or a rename fails: then every temporary is
   removed and the files already replaced are put back (from a hard link to each, made before
   the first rename; where the file system has none, such a file stays replaced) */
int fileset_commit(struct fileset *s);
/* remove the temporaries not committed, and free the set */
void fileset_free(struct fileset *s);
/* mkdir -p; 0 or -1 with errno */
int mkdirs(const char *path);
/* mkdir -p path, where path is root/REST: root as mkdirs makes it (links followed: the user
   names it), each directory of REST one of its own (a symbolic link there is refused:
   ELOOP; another file: ENOTDIR), as another user who may write root could plant one; a path
   that root does not begin is made as mkdirs makes it; 0 or -1 with errno */
int mkdirs_under(const char *root, const char *path);
/* 1 if s is a plain name, as the tuner names the directories it makes (a GPU's, a point's, a
   shard's): 1 to 200 of A-Z a-z 0-9 . _ = + -, the first not '.' */
int util_plain_name(const char *s);
/* directory part of path ("." if none), malloc'd */
char *path_dir(const char *path);
/* join dir and rel unless rel is absolute, malloc'd */
char *path_join(const char *dir, const char *rel);

/* 64-bit FNV-1a, continuing from h (start with HASH_INIT) */
#define HASH_INIT 0xcbf29ce484222325ULL
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);

/* monotonic seconds */
double now_s(void);

#endif
