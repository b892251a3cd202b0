/* t4: results.t4.json (--t4): a run's results in the T4 format, the auto-tuning community's
   "Open Autotuning Results Schema" 1.0.0 that Kernel Tuner writes (store_output_file):
     {"schema_version": "1.0.0", "results": [{"timestamp", "configuration": {PARAM: value},
      "times": {"runtimes": [ms]}, "invalidity", "correctness", "measurements":
      [{"name", "value", "unit"}], "objectives": ["time"]}]}
   One result per variant tried or dropped, in rank order. runtimes holds the median of a
   timed variant's samples (the tuner keeps their statistics, not the samples), which is also
   the measurement "time", the objective; min, max and mean times, the sample count, GB/s,
   % of copy, registers, spills, shared memory and the bank model's prediction are further
   measurements. Variants that were compiled but not timed (no GPU), not run or skipped have
   nothing measured and nothing invalid to say: they are left out. */
#ifndef TUNER_T4_H
#define TUNER_T4_H

#include <stddef.h>
#include <stdio.h>

struct config;
struct result;
struct runinfo;
struct space;

#define T4_SCHEMA_VERSION "1.0.0"

/* the T4 invalidity of variant i of r: "correct" (verified and timed), "correctness"
   (mismatch), "compile" (compile error), "runtime" (fault, launch error, shared memory beyond
   the device's limit), "timeout", "constraints" (dropped by a constraint or a device limit);
   a twin's is that of the variant it shares its build with; NULL: left out */
const char *t4_invalidity(const struct result *r, size_t i);
/* write results.t4.json to f; exits on a write error */
void t4_results(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                const size_t *order, const struct runinfo *ri);

#endif
