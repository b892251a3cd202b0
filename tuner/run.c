/* run: the interrupt flag and the phase clock of a run. */
#include "run.h"

#include <string.h>

#include "util.h"

volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

void run_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* the phase called name of kind k, added (zeroed) if there is none */
static struct runphase *phase_of(struct run *t, const char *name, enum phase_kind k)
{
	struct runinfo *ri = &t->ri;
	int i;

	for (i = 0; k != PHASE_SERIAL && i < ri->nphases; i++)
		if (ri->phases[i].kind == k &&
		    (ri->phases[i].name == name || !strcmp(ri->phases[i].name, name)))
			return &ri->phases[i];
	if (ri->nphases == RUN_PHASES_MAX)
		die("more than %d phases", RUN_PHASES_MAX);
	ri->phases[ri->nphases] = (struct runphase){name, k, -1, 0, 0};
	return &ri->phases[ri->nphases++];
}

void run_phase(struct run *t, const char *name)
{
	struct runinfo *ri = &t->ri;
	double at = now_s() - t->t0;
	struct runphase *p = phase_of(t, name, PHASE_SERIAL);
	int i;

	p->start_s = ri->run_s;
	p->s = at > ri->run_s ? at - ri->run_s : 0;
	p->said = 1;
	ri->run_s += p->s;
	note(2, "tuner: %7.3f s  %s (%.3f s in all)\n", p->s, name, ri->run_s);
	for (i = 0; i < ri->nphases; i++) {
		p = &ri->phases[i];
		if (p->said)
			continue;
		p->said = 1;
		if (p->kind == PHASE_SPAN)
			note(2, "tuner: %7.3f s    %s, from %.3f s, beside the others\n", p->s, p->name,
			     p->start_s);
		else
			note(2, "tuner: %7.3f s    %s, summed over its every interval\n", p->s, p->name);
	}
}

void run_span(struct run *t, const char *name, double start, double end, int once)
{
	struct runphase *p = phase_of(t, name, PHASE_SPAN);
	double a = start - t->t0, b = end - t->t0;

	if (a < 0)
		a = 0;
	if (b < a)
		b = a;
	if (p->start_s >= 0) {
		if (once)
			return;
		if (p->start_s < a)
			a = p->start_s;
		if (p->start_s + p->s > b)
			b = p->start_s + p->s;
	}
	p->start_s = a;
	p->s = b - a;
}

void run_total(struct run *t, const char *name, double s)
{
	struct runphase *p = phase_of(t, name, PHASE_TOTAL);

	p->start_s = 0;
	if (s > 0)
		p->s += s;
}

