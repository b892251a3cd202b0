/* nvrtc: compile one CUDA source to a CUBIN for one architecture. */
#ifndef TUNER_NVRTC_H
#define TUNER_NVRTC_H

#include <stddef.h>
#include <stdint.h>

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
/* Programs of several variants: each variant's text in a namespace of its own (tuner_g<i>),
   its entry renamed <entry>NV_GROUP_MARK<i> by a macro, the macros it defines undefined after
   it. One program compiles faster than one per variant (the start-up of NVRTC and ptxas is
   paid once) to the same code for each (docs/benchmarks.md, "Compiling"). */
#define NV_GROUP_MARK "__tuner_g"
/* 1 if variants of template tmpl with entry can be compiled that way under opts: the entry is
   an identifier, and the text has no #include, #import or #pragma once (a header cannot open
   inside a namespace, and once only once), no __LINE__, __FILE__ or __COUNTER__ (values that
   depend on where the text is), no __constant__ (each member's would lie at another offset of
   the one constant bank, and its code differ: measured) and opts no -G */
int nv_group_ok(const char *tmpl, const char *entry, char *const *opts, size_t nopts);
/* compile srcs[0 .. n) as one program: 1 with outs[i] as nv_compile would give it, but for the
   cubin (all of them, the same in each) and the lowered name (its own); 0 with nothing in outs
   (the program did not compile: compile them apart) */
int nv_compile_group(char *const *srcs, size_t n, const char *name, const char *entry,
                     const char *arch, char *const *opts, size_t nopts, struct compile_out *outs);
/* the hash of what co's entry compiled to: its code, its constant bank and the size of its
   shared memory (the sections named for co->lowered), and its resource figures; alike for a
   kernel compiled alone and in a program of several. A cubin that is no 64-bit ELF, or has no
   code for the entry, is hashed whole. */
uint64_t nv_code_hash(const struct compile_out *co);
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
