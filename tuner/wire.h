/* wire: a checked byte codec for what crosses a pipe or goes to disk (little-endian, fixed
   widths, length-prefixed bytes). */
#ifndef TUNER_WIRE_H
#define TUNER_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct compile_out;

/* append v as 4 or 8 little-endian bytes */
void wire_u32(struct buf *b, uint32_t v);
void wire_u64(struct buf *b, uint64_t v);
/* append a double by its bit pattern */
void wire_f64(struct buf *b, double v);
/* append n as u64, then the n bytes */
void wire_bytes(struct buf *b, const void *p, size_t n);
/* wire_bytes of a string without its NUL (NULL: empty) */
void wire_str(struct buf *b, const char *s);

/* wire_bytes of a string with its NUL, so that a reader can point at it in place */
void wire_cstr(struct buf *b, const char *s);

/* a bounds-checked reader: any overrun or malformed field sets bad, and every later read
   returns zeros */
struct rd {
	const unsigned char *p, *end;
	int bad;
};
/* a reader over n bytes at p */
struct rd rd_of(const void *p, size_t n);
uint32_t rd_u32(struct rd *r);
int32_t rd_i32(struct rd *r);
uint64_t rd_u64(struct rd *r);
int64_t rd_i64(struct rd *r);
double rd_f64(struct rd *r);
/* the next length-prefixed field: a pointer into the data (NULL when bad), its length in *n */
const void *rd_bytes(struct rd *r, size_t *n);
/* the next string field copied into s (size cap, NUL-terminated); bad if it does not fit */
void rd_str(struct rd *r, char *s, size_t cap);
/* the next wire_cstr field, pointing into the data; NULL (and bad) if malformed */
const char *rd_cstr(struct rd *r);
/* 1 if everything was read and nothing is left */
int rd_done(const struct rd *r);

/* a compile result: ok, registers, spills, stack, static shared memory, then the lowered
   name, the log and the cubin (the cache's entry format after its key) */
void wire_co(struct buf *b, const struct compile_out *co);
/* read wire_co's fields into co, every pointer malloc'd (nv_out_free); 0, or -1 if malformed */
int rd_co(struct rd *r, struct compile_out *co);

#endif
