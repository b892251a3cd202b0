/* journal: finished GPU results on disk, so a killed run resumes without re-running them;
   the codec of struct run_result, which the GPU worker's messages use too. */
#ifndef TUNER_JOURNAL_H
#define TUNER_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include "result.h" /* struct run_result */

struct compile_out;
struct config;
struct space;
struct variant;
struct vars;

struct buf;
struct rd;

struct jrec {
	uint64_t key;             /* journal_key() of the variant */
	int status;               /* the report's enum status */
	struct run_result run;
	double gbs, pct_copy, pct_read; /* as measured in the run that produced the record */
};

/* hash of everything outside a variant that its result depends on: the GPU, the sizes as
   bound, the extra verification sizes, the timing method, the reference's cubin and the
   config's result_digest (buffers and their refills, constants, arguments, the reference's
   launch, tolerance, timing settings, ...) */
uint64_t journal_context(const struct config *c, const struct vars *sizes, const char *gpu,
                         const char *method, const struct compile_out *ref);
/* the key of variant v of c's space s with cubin co under context ctx: its launch (also at
   the extra verification sizes), its binding of sizes and parameters, its cubin */
uint64_t journal_key(uint64_t ctx, const struct config *c, const struct space *s,
                     const struct variant *v, const struct compile_out *co);
/* the largest journal read: some 400 000 records */
#define JOURNAL_MAX ((size_t)256 << 20)
/* read every intact record of path: a torn or corrupt line is skipped, and so is a record
   whose checksum matches but whose fields are out of range (a status no GPU run records,
   counts, times, errors); a record after a torn one on its line is read. 0 with the count in
   *n and *out malloc'd (none where there is no journal), or -1 with errno where it cannot be
   read: a symbolic link (ELOOP: the journal is in a directory that others may write), not a
   regular file (ENOTREG, EISDIR), larger than JOURNAL_MAX (EFBIG) */
int journal_load(const char *path, struct jrec **out, size_t *n);
/* append one record with a single write to an O_APPEND file, on a line of its own (after a
   newline when the file ends in a torn line), created if absent: a symbolic link, a file
   that is not a regular one or has other names (hard links) is refused (file_open_own); 0 or
   -1 with errno */
int journal_append(const char *path, const struct jrec *r);
/* replace path's contents with recs[0..n) atomically; 0 or -1 with errno */
int journal_rewrite(const char *path, const struct jrec *recs, size_t n);
/* x as a GPU worker's message (wire.h): the fields of a journal record and those a record
   does not keep (the probe's error, the device, the worker's seconds), from the table that
   journal lines are written and read by */
void journal_wire_run(struct buf *b, const struct run_result *x);
/* journal_wire_run's message into x; 0, or -1 if malformed or out of range (r bad) */
int journal_rd_run(struct rd *r, struct run_result *x);

#endif
