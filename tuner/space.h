/* space: the variants of a config (cartesian product, constraints, device limits). */
#ifndef TUNER_SPACE_H
#define TUNER_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include "vars.h" /* struct vars */

struct config;

/* what a device (or an architecture, without one) allows per block */
struct limits {
	int max_threads;          /* threads per block */
	int64_t smem_default;     /* shared memory per block without opt-in (48 KiB) */
	int64_t smem_optin;       /* with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) */
};

struct variant {
	char id[40];              /* unique in the space, stable: 'v' + 8 hex digits of a hash of
	                             the parameter values (16 digits, and "-N", where they collide) */
	int64_t *vals;            /* one per config param, in config order */
	char *drop;               /* NULL if kept, else why it was dropped (malloc'd) */
	int64_t block[3], grid[3];
	int64_t shared;           /* dynamic shared memory bytes */
	int bank_bytes;           /* 0 when the config sets no bank mode; -1 when its value does not
	                             fit an int (the variant is dropped, its reason says the value) */
	int64_t bytes;            /* bytes moved per launch */
};

struct space {
	struct variant *v;
	size_t n, nkept;
	struct vars sizes;        /* as the space was expanded under */
	int64_t *vals;            /* every variant's values, nparams each (v[k].vals points in) */
};

/* expand c under sizes (bound in `sizes`) and lim; order is the parameters' lexicographic
   order, last parameter fastest. Expression errors in evaluation exit 2 with the location; so
   does what the GPU path could not allocate or launch, with or without a GPU: a buffer of
   fewer than 1 element or more than CFG_BUFFER_MAX bytes, a constant of more than
   CFG_CONSTANT_MAX bytes, a kept variant's or the reference's scalar argument that does not
   fit its type, a reference launch beyond lim; at the tuning sizes and at each of c's extra
   verification sizes (those exit naming the verify entry). A variant is kept only if its
   constraints and launch hold at every one of them (the drop reason names the size). */
void space_expand(const struct config *c, const struct vars *sizes, const struct limits *lim,
                  struct space *s);
/* the first reason v (its values set; bound with the sizes in vars) cannot run within lim,
   malloc'd, or NULL: its constraints, launch geometry (evaluated into v) and arguments, as
   space_expand checks them; an expression that cannot be evaluated exits 2 naming c */
char *space_check(const struct config *c, struct variant *v, const struct vars *vars,
                  const struct limits *lim);
/* the sizes and v's parameter values bound, into out (not kept per variant: a binding is
   about a kilobyte) */
void space_bind(const struct config *c, const struct space *s, const struct variant *v,
                struct vars *out);
/* vars (c's sizes bound, with or without a variant's parameters) with every size set to its
   value at c's extra verification size k (c->verify[k]), into out */
void space_sizes_at(const struct config *c, const struct vars *vars, size_t k,
                    struct vars *out);
/* the hash of v's launch geometry at each of c's extra verification sizes (HASH_INIT when c
   has none), for what tells variants' GPU results apart: journal keys, twins */
uint64_t space_verify_hash(const struct config *c, const struct space *s,
                           const struct variant *v);
/* "BLOCK=256 PAD=1" (malloc'd) */
char *space_params_str(const struct config *c, const struct variant *v);
/* free s's contents */
void space_free(struct space *s);
/* limits for an architecture without a GPU ("sm_90") */
void space_arch_limits(const char *arch, struct limits *lim);

/* 1 if s has the form of a variant id as space_expand makes them (v and 8 or 16 hex digits,
   the latter with an optional -N): ids read back reach generated code (comments, labels,
   names), so nothing else is taken for one */
int space_id_valid(const char *s);
/* the indices of n ids in the order of the ids (malloc'd), for space_id_find */
size_t *space_id_order(const char (*id)[40], size_t n);
/* the index of `want` among n ids (by: space_id_order's), -1: none */
long space_id_find(const char (*id)[40], const size_t *by, size_t n, const char *want);

#endif
