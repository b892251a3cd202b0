/* run: the interrupt flag and the phase clock of a run. */
#include "run.h"

#include <string.h>

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

void run_phase(const struct run *t, const char *what)
{
	note(2, "tuner: %.3f s: %s\n", now_s() - t->t0, what);
}

