/* Phase timestamps for measuring start-up (doc/design/startup.md): off
 * unless SBXRUN_PHASES is set in sbxrun's environment; then each phase
 * writes one line to standard error. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

extern bool sbx_phase_on;

/* Reads SBXRUN_PHASES once, in main(): empty or unset is off; a number is
 * the CLOCK_MONOTONIC time in nanoseconds at which the caller started
 * sbxrun (so exec and dynamic loading show as the first phase); anything
 * else counts from here. */
void sbx_phase_init(void);

void sbx_phase_mark(const char *name);

/* Marks the end of phase name: "sbxrun-phase PID +MS.mmm NAME". Costs one
 * branch when off. */
#define sbx_phase(name) \
	do { \
		if (sbx_phase_on) \
			sbx_phase_mark(name); \
	} while (0)
