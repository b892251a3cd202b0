/* bench: load, verify and time variants on the GPU (driver API via gpu.c). */
#ifndef TUNER_BENCH_H
#define TUNER_BENCH_H

#include <stddef.h>
#include <stdint.h>

struct compile_out;
struct config;
struct gpu_info;
struct run_result;
struct stats;
struct variant;
struct vars;

/* one extra launch of each verified variant with a hook around it (e.g. to read hardware
   counters): before(), the launch, a synchronization, after() */
struct bench_probe {
	int (*before)(void *arg, char *why, size_t whylen);
	/* stores up to BENCH_PROBE_MAX values; their count, or -1 with why */
	int (*after)(void *arg, double *vals, char *why, size_t whylen);
	void *arg;
};

struct bench;

/*
 * Call order: bench_open, bench_timing, bench_helpers, bench_reference, then in any order
 * bench_copy,
 * bench_read, bench_bank_probe and bench_variant (once per variant), and bench_close.
 * Inputs are filled and outputs compared on the device by the helper kernels: nothing the
 * size of a buffer crosses to the host.
 */

/* allocate c's buffers at sizes (the reference's outputs twice), and again at each of c's
   extra verification sizes (the sizes' other values, SMS included, as in sizes); NULL with
   why if it fails */
struct bench *bench_open(const struct config *c, const struct vars *sizes,
                         const struct gpu_info *gpu, char *why, size_t whylen);
/* the timing's events and, with flush (the run's L2 decision, tune_target's), the L2 flush's
   buffer; again for another point (before bench_helpers, which loads the flush and hold
   kernels into it); 0, or -1 with why */
int bench_timing(struct bench *b, int flush, char *why, size_t whylen);
/* CUDA source of the helper kernels (copy and read rooflines, L2 flush, fills, comparisons);
   compile it with entry "tuner_copy" and hand the result to bench_helpers */
const char *bench_helpers_source(void);
/* load the compiled helpers, keep them loaded and fill the in buffers on the device, at every
   set of sizes (checked against the host formula at a few elements); 0, or -1 with why */
int bench_helpers(struct bench *b, const struct compile_out *helpers, char *why, size_t whylen);
/* run the reference kernel (compiled) once at the tuning sizes and once at each extra
   verification size, and keep its outputs on the device; 0 or -1 with why (also when
   bench_helpers has not succeeded) */
int bench_reference(struct bench *b, const struct compile_out *ref, char *why, size_t whylen);
/* time a device-to-device float4 copy of `bytes` total traffic (read + write, at least 128 MiB)
   with the helpers' tuner_copy (copy, the same cubin, is not used: it may be NULL); returns
   GB/s (bytes / median time), or -1 with why */
double bench_copy(struct bench *b, const struct compile_out *copy, int64_t bytes, struct stats *t,
                  char *why, size_t whylen);
/* time a read-only float4 sum over `bytes` (at least 64 MiB) with the helpers' tuner_read;
   returns GB/s (bytes read / median time), or -1 with why */
double bench_read(struct bench *b, int64_t bytes, struct stats *t, char *why, size_t whylen);
/* verify one variant at the tuning sizes and at each extra verification size (a reason from
   there begins "at n=1: "), then time it (a mismatching one is not timed) and compare the
   outputs of its last timed launch once more (a mismatch there: "after the timed launches");
   before each launch the buffers with refill: launch get their fill, outside the timed
   interval. After a fault that loses the context every later call reports RUN_FAULT without
   running; vars: v's binding (space_bind) */
void bench_variant(struct bench *b, const struct variant *v, const struct vars *vars,
                   const struct compile_out *co, struct run_result *r);
/* the race's limit for the next variants (winner_race_limit; 0: every sample): their timing
   stops at a look of the race's plan where race_stop says that they cannot win; a
   variant stopped keeps the median of its samples so far */
void bench_set_cut(struct bench *b, double ms);
/* run p (copied; NULL: none) around an extra launch of every verified variant */
void bench_set_probe(struct bench *b, const struct bench_probe *p);
/* the bank mode the device reports after asking for `bytes` (4 or 8); 0 if unsupported.
   b may be NULL (a context must be current) */
int bench_bank_probe(struct bench *b, int bytes);
/* free everything */
void bench_close(struct bench *b);

#endif
