/* params: the params section; each parameter's values, evaluated under the sizes. */
#ifndef TUNER_PARAMS_H
#define TUNER_PARAMS_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct node;
struct reader;
struct vars;

/* read the params section m into x->c: every name, then each one's values (those that are
   expressions of the sizes are left to cfg_eval_params) */
void params_read(struct reader *x, const struct node *m);
/* override a size: "name=value"; exits 2 on an unknown name or bad value. Parameter values
   that are expressions of the sizes are unset until the next cfg_eval_params */
void cfg_set_size(struct config *c, const char *assign);
/* the same with the name and the value apart (a value already read as a number) */
void cfg_set_size_val(struct config *c, const char *name, int64_t v);
/* set every size (vals: in config order); parameter values that are expressions of the sizes
   are unset until the next cfg_eval_params */
void cfg_set_point(struct config *c, const int64_t *vals);
/* "n=4096 m=2": the sizes at a point (every size's value, in config order), malloc'd */
char *cfg_point_label(const struct config *c, const int64_t *vals);
/* the points to tune at (malloc'd, *n of them; cfg_points_free): c's points (a list of sizes),
   or its one set of sizes, each with the --size assignments applied in turn: "n=1,2" sets n
   to each value in every point (several values, or several names with several, multiply the
   points, the later name's values fastest; a point given twice counts once); exit 2 on an
   unknown name, a bad value, or more than CFG_POINTS_MAX points */
struct vsize *cfg_points(const struct config *c, char *const *assign, size_t nassign,
                         size_t *n);
void cfg_points_free(struct vsize *p, size_t n);
/* the directory name of the point labelled "n=4096 m=2": "n=4096_m=2" (malloc'd) */
char *cfg_point_dir(const char *label);
/* evaluate the parameter values that are expressions of the sizes (cfg_load and cfg_parse
   leave them unset) under the sizes as they are now; exit 2 with the location on an error,
   warn of a value dropped as equal to an earlier one. A dependent parameter (param.dep) gets
   the union of its values over the combinations of the parameters before it */
void cfg_eval_params(struct config *c);
/* call fn(arg, vals, v) for every combination of the values of the first np parameters under
   the sizes bound in sizes, in config order, the last parameter fastest: vals holds them, v
   binds the sizes and them. A dependent parameter's values are worked out under the values
   before it (exit 2 with the location on an error); more than CFG_VARIANTS_MAX combinations
   exit 2. Needs cfg_eval_params for the others. */
void cfg_param_walk(const struct config *c, size_t np, const struct vars *sizes,
                    void (*fn)(void *arg, const int64_t *vals, const struct vars *v), void *arg);
/* parameter i's values under the sizes (and, for a dependent one, the earlier parameters)
   bound in v (malloc'd, *n of them); exit 2 with the
   location on an error; warn of the values dropped as duplicates when loud */
int64_t *cfg_param_vals(const struct config *c, size_t i, const struct vars *v, int loud,
                        size_t *n);
/* bind every size into v, and CFG_SMS to sms */
void cfg_size_vars(const struct config *c, int64_t sms, struct vars *v);

#endif
