/* nvrtc: compile one CUDA source to a CUBIN for one architecture. */
#ifndef TUNER_NVRTC_H
#define TUNER_NVRTC_H

#include <stddef.h>

/* what one compilation produced; every pointer malloc'd, freed by nv_out_free */
struct compile_out {
	int ok;               /* 1 if a cubin was produced */
	char *log;            /* NVRTC + ptxas log ("" if none) */
	void *cubin;
	size_t cubin_len;
	char *lowered;        /* the entry's symbol name in the cubin */
	int regs;             /* registers per thread (-1 unknown) */
	int spill_stores;     /* bytes */
	int spill_loads;      /* bytes */
	int stack;            /* stack frame bytes */
	int smem_static;      /* static shared memory bytes */
};

/* compile src (named name in messages) for arch ("sm_90"), with extra options;
   ptxas -v output is parsed for entry's resource usage. Always fills out; returns out->ok. */
int nv_compile(const char *src, const char *name, const char *entry, const char *arch,
               char *const *opts, size_t nopts, struct compile_out *out);
/* whether nv_compile passes -minimal (below: 1 until a program of this process needed what it
   leaves out, or TUNER_NVRTC_MINIMAL=0), and the tests' way to set it (-1: as the environment
   says, 0: off, 1: on) */
int nv_minimal_on(void);
void nv_minimal(int on);
/* what a failed compilation's log means in the config's terms, into buf (size n), or NULL
   when there is nothing plainer to say (e.g. the entry is not a kernel of the source) */
const char *nv_hint(const char *log, const char *entry, const char *name, char *buf, size_t n);
/* NVRTC's version as "13.0" (static string) */
const char *nv_version(void);
/* newest architecture NVRTC supports, e.g. "sm_121" (static string) */
const char *nv_newest_arch(void);
/* 1 if NVRTC supports arch ("sm_90") */
int nv_arch_supported(const char *arch);
/* the compute capability of an architecture name: "sm_90a" -> 90; 0 if not one */
int nv_arch_cc(const char *arch);
/* free the contents of out */
void nv_out_free(struct compile_out *out);

#endif
