/* accesses: the accesses section: the kernel's shared-memory instructions, for the bank model. */
#ifndef TUNER_ACCESSES_H
#define TUNER_ACCESSES_H

struct node;
struct reader;

/* read the accesses section seq into x->c (accesses, access_loc), refusing a size or parameter
   named as one of the thread names the bank model binds */
void accesses_read(struct reader *x, const struct node *seq);

#endif
