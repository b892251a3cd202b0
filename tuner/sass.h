/* sass: a compiled variant's shared-memory loads and stores, read from the CUDA Toolkit's own
   disassembler (nvdisasm, else cuobjdump), against the accesses its config declares: what the
   bank model assumes is checked without a GPU (tuner explain --sass). */
#ifndef TUNER_SASS_H
#define TUNER_SASS_H

#include <stddef.h>

struct buf;
struct config;
struct space;
struct vars;

/* the shared-memory instructions of one kind in a listing: loads or stores of `bytes` a lane,
   n of them in the code (a count of instructions, not of executions) */
struct sass_op {
	int store;                /* 0 load (LDS, LDSM), 1 store (STS) */
	int bytes;                /* a lane's width: 1, 2, 4, 8 or 16 */
	size_t n;
};
#define SASS_OPS 10           /* load and store, five widths */

/* the disassembler to use: $TUNER_DISASM, else nvdisasm, else cuobjdump, each looked for in
   $CUDA_HOME/bin, /usr/local/cuda/bin and PATH (nvdisasm then where scripts/nvdisasm puts
   it: $XDG_DATA_HOME or ~/.local/share, tuner/nvdisasm/nvidia/cu13/bin); its path into path and 0, or -1 with the
   places looked at in why */
int sass_tool(char *path, size_t pathlen, char *why, size_t whylen);
#define SASS_TIMEOUT_S 60     /* a disassembler's time on one cubin ($TUNER_DISASM_TIMEOUT) */
#define SASS_LISTING_MAX ((size_t)64 << 20) /* bytes of one cubin's listing */

/* the SASS listing of cubin (len bytes) by tool (in a process group of its own, killed at
   the time limit, past SASS_LISTING_MAX bytes or on an interrupt), appended to out, whole
   (sass_whole); 0, or -1 with why; the temporary cubin removed either way */
int sass_listing(const char *tool, const void *cubin, size_t len, struct buf *out, char *why,
                 size_t whylen);
/* 0 if listing s (len bytes) is whole: instructions, a newline at its end, each kernel's end
   (nvdisasm's label that ".size" names, cuobjdump's line of dots); else -1 with why */
int sass_whole(const char *s, size_t len, char *why, size_t whylen);
/* the shared-memory loads and stores of a listing, counted by kind into ops (SASS_OPS at
   most, the kinds found, those with n > 0); their number */
size_t sass_shared(const char *listing, struct sass_op *ops);
/* the accesses c declares that variant v (bound in vars) has, as kinds (n: how many accesses
   of that kind); their number, or -1 with why where an expression cannot be evaluated */
int sass_declared(const struct config *c, const struct vars *vars, struct sass_op *ops,
                  char *why, size_t whylen);
/* lines saying where declared and found differ: a kind declared that the code has no
   instruction of, and one the code has that no access declares; appended to out; how many */
size_t sass_compare(const struct sass_op *declared, size_t nd, const struct sass_op *found,
                    size_t nf, struct buf *out);

/* tuner explain --sass: compile c's kept variants (or the one named only; with budget, that
   many spread evenly over them) for arch and check
   each listing against its declared accesses, printing the variants that differ; 0 when
   none does (or no disassembler is there: said, and skipped), 1 when one does */
int sass_explain(const struct config *c, const struct space *s, const char *only, size_t budget,
                 const char *arch, const char *cachedir, int workers);

#endif
