/* retune: what re-tuning on this GPU found, against other GPUs' results of the same kernel. */
#include "retune.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

/* another GPU's winner: its GPU, id and % of copy there; 0, or -1 if path has none */
static int winner_of(const char *path, const char *kernel, char *gpu, size_t gpulen, char *id,
                     size_t idlen, double *pct)
{
	json_error_t err;
	json_t *d = json_load_file(path, 0, &err), *vs, *v;
	const char *k, *g;
	size_t i;
	int rc = -1;

	if (!d) {
		warn("%s:%d:%d: not readable as results (%s); not compared", path, err.line,
		     err.column, err.text);
		return -1;
	}
	k = json_string_value(json_object_get(d, "kernel"));
	g = json_string_value(json_object_get(d, "gpu"));
	vs = json_object_get(d, "variants");
	if (!k || strcmp(k, kernel) || !json_is_true(json_object_get(d, "timed")) || !g ||
	    !json_is_array(vs))
		goto out;
	json_array_foreach(vs, i, v) {
		const char *st = json_string_value(json_object_get(v, "status"));
		const char *vid = json_string_value(json_object_get(v, "id"));
		if (!st || !vid || strcmp(st, "ok"))
			continue;
		snprintf(gpu, gpulen, "%s", g);
		snprintf(id, idlen, "%s", vid);
		*pct = json_number_value(json_object_get(v, "pct_copy"));
		rc = 0;
		break;
	}
out:
	json_decref(d);
	return rc;
}

int retune_earlier_winner(const char *path, const char *kernel, char *id, size_t idlen)
{
	char gpu[256];
	double pct;

	if (access(path, F_OK) < 0)
		return -1;
	return winner_of(path, kernel, gpu, sizeof gpu, id, idlen, &pct);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t retune_compare(const char *kdir, const char *slug, const char *kernel,
                      const struct space *s, const struct result *r, const size_t *order,
                      struct buf *text, struct buf *json)
{
	DIR *d = opendir(kdir);
	struct dirent *e;
	char **names = NULL;
	size_t nn = 0, i, k, n = 0, ntimed = 0;
	double best;

	buf_puts(json, "[");
	if (!d || !s->n || r[order[0]].status != ST_OK) {
		if (d)
			closedir(d);
		buf_puts(json, "]");
		return 0;
	}
	while ((e = readdir(d))) /* in name order, for output that does not depend on the disk */
		if (e->d_name[0] != '.' && strcmp(e->d_name, slug) && strcmp(e->d_name, "bundle")) {
			names = xreallocarray(names, nn + 1, sizeof *names);
			names[nn++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (nn) /* qsort's array may not be NULL, even of 0 elements */
		qsort(names, nn, sizeof *names, by_name);
	/* the fastest, which a tie rule may not have chosen */
	best = result_run(&r[order[0]])->t.median_ms;
	for (k = 0; k < s->n && r[order[k]].status == ST_OK; k++) {
		ntimed++;
		if (result_run(&r[order[k]])->t.median_ms < best)
			best = result_run(&r[order[k]])->t.median_ms;
	}
	for (i = 0; i < nn; i++) {
		char *path = xasprintf("%s/%s/results.json", kdir, names[i]), gpu[256], id[64];
		double pct = 0;
		if (access(path, F_OK) < 0 ||
		    winner_of(path, kernel, gpu, sizeof gpu, id, sizeof id, &pct) < 0) {
			free(path);
			continue;
		}
		free(path);
		buf_puts(json, n++ ? ", {\"gpu\": " : "{\"gpu\": ");
		buf_json_str(json, gpu);
		buf_puts(json, ", \"dir\": ");
		buf_json_str(json, names[i]);
		buf_puts(json, ", \"winner\": ");
		buf_json_str(json, id);
		buf_printf(json, ", \"pct_copy_there\": %.6g", pct);
		for (k = 0; k < s->n && strcmp(s->v[order[k]].id, id); k++)
			;
		if (k == s->n) {
			buf_printf(text, "re-tuning: %s's winner %s is not in this space\n", gpu, id);
			buf_puts(json, ", \"here\": \"not in this space\"}");
			continue;
		}
		if (r[order[k]].status != ST_OK) {
			buf_printf(text, "re-tuning: %s's winner %s is %s here\n", gpu, id,
			           report_status(r[order[k]].status));
			buf_printf(json, ", \"here\": \"%s\"}", report_status(r[order[k]].status));
			continue;
		}
		double ratio = best / result_run(&r[order[k]])->t.median_ms;
		buf_printf(text, "re-tuning: %s's winner %s ranks %zu of %zu here, at %.1f %% of this "
		           "GPU's fastest: re-tuning gained %.1f %%\n", gpu, id, k + 1, ntimed,
		           100 * ratio, 100 * (1 / ratio - 1));
		buf_printf(json, ", \"rank\": %zu, \"of\": %zu, \"ratio\": %.6g, \"gain_pct\": %.6g}",
		           k + 1, ntimed, ratio, 100 * (1 / ratio - 1));
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	buf_puts(json, "]");
	return n;
}
