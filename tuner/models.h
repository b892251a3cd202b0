/* models: --devices over GPUs of more than one model, a run per model side by side. */
#ifndef TUNER_MODELS_H
#define TUNER_MODELS_H

#include <stddef.h>

struct run;

/* --devices 0,2: the ordinals into *dev (freed by the caller), their count; -1 (and *dev NULL)
   if s is not such a list or names a device twice */
int devices_parse(const char *s, int **dev);

/* When t->o.devices names GPUs of more than one model: fork a run per model (each with
   t->o.devices set to that model's GPUs, its own OUT/<kernel>/<gpu>/), wait for them and print
   their output per model. Returns the worst exit status in the parent; -1 where the caller
   goes on with the run: in each child, and in the process itself when there is one model (or
   the GPUs cannot be asked: the run then reports that as it would). Unless probe is set, GPUs
   that can be named without the driver (a list, or CUDA_VISIBLE_DEVICES for all) are left to
   the GPU workers, which open them side by side (measure.c calls this again, with probe, when
   they cannot or differ): the driver's start-up in a probe takes time for each GPU. */
int models_split(struct run *t, int probe);

/* the architecture ("sm_90") and name of the first GPU devices names (NULL or "all": GPU 0),
   asked of the driver in a child; 0, or -1 where there is no GPU or driver */
int models_arch(const char *devices, char *arch, size_t archlen, char *name, size_t namelen);

#endif
