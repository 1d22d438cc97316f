/* A racing attacker for tests/integration/attack-paths.sh:
 *
 *	flipper PATH OTHER STOPFILE [MAX]
 *
 * Swaps the names PATH and OTHER (renameat2 RENAME_EXCHANGE) over and over,
 * so that PATH is by turns what it was and what OTHER was (a real
 * directory and a symlink to somewhere else). Stops when STOPFILE exists,
 * after MAX swaps (default 50,000,000), or at the first failure, leaving
 * PATH as it was at the start whenever it can. Static and dependency-free
 * so that a sandbox can run it from its workdir too. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int
exchange(const char *a, const char *b)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int
main(int argc, char **argv)
{
	unsigned long max = 50000000UL, done = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: flipper PATH OTHER STOPFILE [MAX]\n");
		return 2;
	}
	if (argc > 4)
		max = strtoul(argv[4], NULL, 10);
	while (done < max) {
		if (exchange(argv[1], argv[2]) < 0) {
			perror("flipper: renameat2");
			break;
		}
		done++;
		/* Checking every swap would slow the race for nothing. */
		if ((done & 1023) == 0 && access(argv[3], F_OK) == 0)
			break;
	}
	if (done & 1)
		exchange(argv[1], argv[2]);
	return 0;
}
