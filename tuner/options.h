/* options: the NVRTC and ptxas options a config may pass: those that read and write no file. */
#ifndef TUNER_OPTIONS_H
#define TUNER_OPTIONS_H

struct node;
struct yamltree;

/* refuse option o, written at node at of doc (yamltree_err), unless a config may pass it to
   NVRTC (ptxas options: one for each -Xptxas); the architecture is the tuner's */
void options_check(struct yamltree *doc, const struct node *at, const char *o);

#endif
