/* Finding and killing a process tree through /proc, for jails without a
 * pid namespace (the tree is kept together by child subreapers). */
#ifndef SBX_PROC_H
#define SBX_PROC_H

#include <sys/types.h>

/* A process as one reading of its stat file showed it: its start time
 * (in clock ticks after boot) tells it from a later process that got the
 * same number. */
struct sbx_proc {
	pid_t pid, ppid;
	unsigned long long start;
};

/* The descendants of root (not root itself) but spare, a child of root,
 * and all below it (0: none), from one reading of /proc, breadth first,
 * into *out (free it). Returns how many. */
size_t sbx_proc_tree(pid_t root, pid_t spare, struct sbx_proc **out);

/* Sends sig to each process of tree that is still the one read: by a
 * pidfd, and only while the process behind the number started when the
 * reading said (a number freed since may be another's). With SIGKILL,
 * first stops them all so none can fork in between. */
void sbx_proc_signal_tree(const struct sbx_proc *tree, size_t n, int sig);

/* Both: sends sig to every descendant of root but spare. Returns how many
 * were found. */
int sbx_proc_signal_descendants(pid_t root, pid_t spare, int sig);

#endif
