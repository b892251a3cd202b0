/* merge: the results of --shard K/N runs joined into those of one unsharded run. */
#ifndef TUNER_MERGE_H
#define TUNER_MERGE_H

/* join the shard-K-of-N directories of dir (OUT/<kernel>/<gpu>) and write the results one run
   over every variant would have written into dir; exit 2 when the shards are incomplete or
   not of one run (config, template, architecture, GPU model, sizes, search); returns the exit
   status */
int merge_run(const char *dir);

#endif
