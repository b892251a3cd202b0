/* html: report.html, one self-contained page of a run's results: every timed variant's GB/s
   against the copy and read-only rooflines, coloured by a parameter the reader picks, the
   winner and the ties marked, and a table with the bank model's prediction beside the
   counters --counters read. Untimed runs say so and show what was compiled (registers,
   spills, shared memory, the bank prediction) instead: no timings are made up. The page
   loads nothing: its CSS, script and data (a JSON object in a <script type="application/json">
   block) are inline, and its chart is SVG the script draws. */
#ifndef TUNER_HTML_H
#define TUNER_HTML_H

#include <stddef.h>
#include <stdio.h>

struct buf;
struct config;
struct result;
struct runinfo;
struct space;

/* the most variants the page holds (drawn and tabulated): the first in rank order, so the
   best timed; the page says when there were more (results.json and results.csv list all) */
#define HTML_MAX_POINTS 20000

/* write the page to f: the variants of s tried in the order `order` (winner_rank, after
   winner_ties); skipped and dropped variants are only counted. Exits on a write error. */
void html_report(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                 const size_t *order, const struct runinfo *ri);
/* what a run at several problem sizes says together (points.h), for the GPU directory's
   report.html */
struct html_points {
	const char *kernel, *gpu;
	size_t np;
	const char **label, **dir, **winner; /* per point (winner NULL: none) */
	const double *pct;        /* pct[i * np + j]: point j's winner at point i, % (NAN: -);
	                             NULL: nothing was timed, the page links the points only */
	const char *single;       /* the best single variant (NULL: none) */
	const double *single_pct; /* its % at each point */
	double gain;              /* what choosing by size gains over it, % */
	int single_ties;          /* it ties every point's winner: emitted alone */
	size_t nmid;              /* the midpoints (points.c) */
	const char **mid_label, **mid_dir, **mid_winner; /* per midpoint */
	const char **mid_lo, **mid_hi; /* the labels of the points it lies between */
};
/* the page of p: the table of winners at points, linking each point's report.html */
void html_points(FILE *f, const struct html_points *p);
/* append s with &, <, >, " and ' as character references */
void html_text(struct buf *b, const char *s);

#endif
