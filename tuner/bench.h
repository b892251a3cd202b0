/* bench: load, verify and time variants on the GPU (driver API via gpu.c). */
#ifndef TUNER_BENCH_H
#define TUNER_BENCH_H

#include "config.h"
#include "gpu.h"
#include "nvrtc.h"
#include "space.h"

enum run_status { RUN_OK, RUN_MISMATCH, RUN_FAULT, RUN_LAUNCH_ERROR };

struct stats {
	int n;                    /* samples */
	double median_ms, min_ms, max_ms, mean_ms;
	double spread;            /* (p90 - p10) / median */
};

struct run_result {
	enum run_status status;
	char reason[256];         /* why not ok */
	double max_abs_err, max_rel_err;
	size_t bad;               /* elements outside tolerance */
	struct stats t;
	int bank_applied;         /* bank mode read back after setting it (0 if not set) */
};

struct bench;

/* allocate and fill buffers for c at sizes, compile nothing; NULL with why if it fails */
struct bench *bench_open(const struct config *c, const struct vars *sizes,
                         const struct gpu_info *gpu, char *why, size_t whylen);
/* run the reference kernel (compiled) once and keep its outputs; 0 or -1 with why */
int bench_reference(struct bench *b, const struct compile_out *ref, char *why, size_t whylen);
/* time a device-to-device copy of `bytes` total traffic (read + write) compiled from
   copy_cubin (bench_copy_source()); returns GB/s (bytes / median time), or -1 with why */
double bench_copy(struct bench *b, const struct compile_out *copy, int64_t bytes, struct stats *t,
                  char *why, size_t whylen);
/* CUDA source of the copy kernel, entry "tuner_copy" */
const char *bench_copy_source(void);
/* verify then time one variant (a mismatching one is not timed); after a fault that loses the
   context every later call reports RUN_FAULT without running */
void bench_variant(struct bench *b, const struct variant *v, const struct compile_out *co,
                   struct run_result *r);
/* the bank mode the device reports after asking for `bytes` (4 or 8); 0 if unsupported */
int bench_bank_probe(struct bench *b, int bytes);
/* free everything */
void bench_close(struct bench *b);

#endif
