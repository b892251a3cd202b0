/* tuned: the GPUs one kernel was tuned on, read from their results directories and checked
   against each other (tuner bundle's input). */
#ifndef TUNER_TUNED_H
#define TUNER_TUNED_H

#include <stddef.h>

struct buf;
struct results;
struct results_variant;

/* one GPU directory's timed results */
struct tuned {
	char *dir, *slug, *json;  /* the directory, its name, its results.json */
	struct results *res;
	const char *name;         /* the GPU */
	int cc_major, cc_minor, sms;
	const char *config;       /* the config's path as the tuning run was given it */
	const char *tmplpath;     /* the template's path then; NULL in older results */
	char *cfgfile, *cfgtext;  /* the config regenerated from: the copy, or (older results)
	                             the recorded path */
	size_t cfglen;
	char *tmplfile, *tmpl;
	int legacy;               /* no copies recorded: regenerated from the files as they are */
	const struct results_variant *rows; /* the variants, as results.json lists them */
	size_t nrows;
	const struct tuned_text *mem; /* its texts, handed over by a run in this process (NULL:
	                             read from its files) */
};

/* a point's results of a run in this process, handed to tuned_read_mem instead of read back:
   the text of its results.json (json_len bytes), and those of the config (cfglen bytes) and
   the template (a string) it was tuned with, which the copies beside it hold */
struct tuned_text {
	char *json, *cfg, *tmpl;
	size_t json_len, cfglen;
};

/* the timed results in every subdirectory of dir that holds a results.json (only those named
   in only[0 .. nonly) where only is not NULL; a GPU tuned at several points: its points'
   directories instead), all of kernel
   *kernel (NULL: the one the first results name, then set), every verified variant's median
   positive, and every GPU tuned with the same config and template texts; *n of them, ordered
   by compute capability (newest first), then name. What a bundle's header must say of them
   (files changed since, other sizes, results of an older tuner) is appended to flags. Bad
   input exits 2 with its file named. */
struct tuned *tuned_read(const char *dir, char *const *only, size_t nonly, char **kernel,
                         struct buf *flags, size_t *n);
/* the same for only[0 .. nonly), mem[i] the texts of only[i]: nothing is read back from their
   files (the recorded config and template are read, as above, to say whether they changed) */
struct tuned *tuned_read_mem(const char *dir, char *const *only, size_t nonly,
                             const struct tuned_text *mem, char **kernel, struct buf *flags,
                             size_t *n);
/* free what tuned_read returned, n GPUs */
void tuned_free(struct tuned *g, size_t n);

#endif
