/* spec: what a config says, as every module reads it: struct config and its parts. */
#include "spec.h"

#include <stdlib.h>

#include "bank.h"
#include "expr.h"

const char *const cfg_l2_words[] = {"auto", "flush", "resident"};

int cfg_expr_loc(const struct config *c, const struct expr *e, int col, struct loc *out)
{
	size_t i;

	for (i = 0; i < c->nat; i++) {
		if (c->at[i].e != e)
			continue;
		out->line = c->at[i].line;
		out->col = c->at[i].col + (c->at[i].block ? 0 : col);
		return 1;
	}
	return 0;
}

static void kernel_free(struct kernel *k)
{
	size_t i;
	int d;

	free(k->source);
	free(k->entry);
	for (d = 0; d < 3; d++) {
		expr_free(k->launch.block[d]);
		expr_free(k->launch.grid[d]);
	}
	expr_free(k->launch.shared);
	expr_free(k->launch.bank_bytes);
	for (i = 0; i < k->nargs; i++)
		expr_free(k->args[i].value);
	free(k->args);
}

void cfg_free(struct config *c)
{
	size_t i;

	if (!c)
		return;
	free(c->path);
	free(c->name);
	kernel_free(&c->kernel);
	kernel_free(&c->reference);
	for (i = 0; i < c->nsizes; i++)
		free(c->sizes[i].name);
	free(c->sizes);
	for (i = 0; i < c->nbuffers; i++) {
		free(c->buffers[i].name);
		expr_free(c->buffers[i].count);
		free(c->buffers[i].fill.list);
	}
	free(c->buffers);
	for (i = 0; i < c->nconstants; i++) {
		free(c->constants[i].name);
		expr_free(c->constants[i].count);
		free(c->constants[i].fill.list);
	}
	free(c->constants);
	for (i = 0; i < c->nparams; i++) {
		size_t k;
		free(c->params[i].name);
		free(c->params[i].vals);
		for (k = 0; k < c->params[i].nitems; k++)
			expr_free(c->params[i].items[k].e);
		free(c->params[i].items);
	}
	free(c->params);
	for (i = 0; i < c->nconstraints; i++)
		expr_free(c->constraints[i].e);
	free(c->constraints);
	for (i = 0; i < c->noptions; i++)
		free(c->options[i]);
	free(c->options);
	expr_free(c->bytes);
	for (i = 0; i < c->naccesses; i++)
		bank_access_clear(&c->accesses[i]);
	free(c->accesses);
	free(c->access_loc);
	free(c->at);
	for (i = 0; i < c->nverify; i++) {
		free(c->verify[i].vals);
		free(c->verify[i].label);
	}
	free(c->verify);
	for (i = 0; i < c->npoints; i++) {
		free(c->points[i].vals);
		free(c->points[i].label);
	}
	free(c->points);
	free(c->search_strategy);
	free(c);
}
