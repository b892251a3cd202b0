/* result: the accessors of struct result and the status words. */
#include "result.h"


const char *result_status(enum status s)
{
	static const char *const names[] = {
		[ST_OK] = "ok", [ST_UNTIMED] = "untimed", [ST_COMPILE_ERROR] = "compile-error",
		[ST_RESOURCES] = "resources", [ST_MISMATCH] = "mismatch", [ST_FAULT] = "fault",
		[ST_TIMEOUT] = "timeout", [ST_NOTRUN] = "not-run", [ST_LAUNCH_ERROR] = "launch-error", [ST_TWIN] = "twin", [ST_COLLAPSED] = "collapsed",
		[ST_DROPPED] = "dropped", [ST_SKIPPED] = "skipped",
	};
	return names[s];
}

const struct run_result *result_run(const struct result *x)
{
	static const struct run_result none;

	return x->run ? x->run : &none;
}

void result_set_run(struct result *x, const struct run_result *run)
{
	if (!x->run)
		x->run = xmalloc(sizeof *x->run);
	*x->run = *run;
}
