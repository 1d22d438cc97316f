#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "phase.h"

bool sbx_phase_on;
static uint64_t phase_t0, phase_last;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
sbx_phase_init(void)
{
	const char *v = getenv("SBXRUN_PHASES");
	char *end;
	unsigned long long t;

	if (v == NULL || v[0] == '\0')
		return;
	sbx_phase_on = true;
	phase_last = now_ns();
	t = strtoull(v, &end, 10);
	phase_t0 = *end == '\0' && t > 0 && t <= phase_last ? t : phase_last;
	if (phase_t0 != phase_last)
		sbx_phase_mark("exec and dynamic loading");
}

/* One write per line, so lines from the processes of a run (each a fork
 * that inherited phase_t0) do not interleave mid-line. */
void
sbx_phase_mark(const char *name)
{
	uint64_t t = now_ns();
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "sbxrun-phase %d %9.3f %7.3f %s\n", (int)getpid(),
	    (double)(t - phase_t0) / 1e6, (double)(t - phase_last) / 1e6, name);
	phase_last = t;
	if (n > 0 && (size_t)n < sizeof(line) && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
