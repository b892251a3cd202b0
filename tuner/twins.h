/* twins: which member of a group of identical builds (ST_TWIN, ST_COLLAPSED) stands for it.
   The stream times whichever compiles first; twins_settle then gives the group's result to
   the member the rule prefers, so the choice does not follow the order compiles finish. */
#ifndef TUNER_TWINS_H
#define TUNER_TWINS_H

struct run;

/* for each group of twins in t->r: move its result to the member with the 4-byte (or no)
   bank mode, then the first in the config's order; the others become its twins */
void twins_settle(struct run *t);

#endif
