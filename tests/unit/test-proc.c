/* sbx_proc_signal_tree (src/proc.c): a process of the tree read from
 * /proc that ends before the signal, and whose number the kernel gives to
 * a process outside the tree, is not signalled. Made deterministic in a
 * pid namespace of the test's own (in a user namespace of its own: no
 * privilege), where ns_last_pid chooses the next number. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "tap.h"

static int
put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* In the namespace, as its pid 1: 0 when the process that got the freed
 * number was spared, 1 when it was killed, 2 when the setup failed. */
static int
in_namespace(void)
{
	struct sbx_proc *tree = NULL;
	char buf[32];
	pid_t root, x, y;
	size_t n;
	int st, rc;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return 2;
	/* root, and x below it: the tree. */
	if ((root = fork()) == 0) {
		signal(SIGCHLD, SIG_IGN); /* x is reaped when it ends */
		if (fork() == 0)
			for (;;)
				pause();
		for (;;)
			pause();
	}
	/* Bounded waits, long enough for a loaded machine (a sanitized
	 * build forks slowly). */
	for (int i = 0; i < 500 && (n = sbx_proc_tree(root, 0, &tree)) != 1; i++) {
		free(tree);
		tree = NULL;
		nap_ms(10);
	}
	if (n != 1)
		return 2;
	x = tree[0].pid;
	/* Far from the start times of what follows. */
	nap_ms(50);
	kill(x, SIGKILL);
	snprintf(buf, sizeof(buf), "/proc/%d", (int)x);
	for (int i = 0; i < 2500 && access(buf, F_OK) == 0; i++)
		nap_ms(2);
	/* x's number, given to y: a child of pid 1's, outside the tree. The
	 * number is free a moment after /proc stops showing x: tried again
	 * until y gets it (bounded). */
	snprintf(buf, sizeof(buf), "%d", (int)x - 1);
	for (int i = 0;; i++) {
		if (put("/proc/sys/kernel/ns_last_pid", buf) < 0)
			return 2;
		if ((y = fork()) == 0)
			for (;;)
				pause();
		if (y == x)
			break;
		if (y > 0) {
			kill(y, SIGKILL);
			waitpid(y, &st, 0);
		}
		if (i == 200)
			return 2;
		nap_ms(10);
	}
	sbx_proc_signal_tree(tree, n, SIGKILL);
	nap_ms(20);
	rc = waitpid(y, &st, WNOHANG) == 0 ? 0 : 1;
	kill(y, SIGKILL);
	kill(root, SIGKILL);
	free(tree);
	return rc;
}

/* In a child of the test's, so that the test's own process never joins
 * the namespaces (a sanitizer's leak check forks at exit, which a pid
 * namespace whose init is gone refuses): 3 when no user namespace can be
 * made here, else what in_namespace() said. */
static int
in_child(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) < 0)
		return 3;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	put("/proc/self/setgroups", "deny");
	if (put("/proc/self/uid_map", map) < 0)
		return 2;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (put("/proc/self/gid_map", map) < 0)
		return 2;
	if ((pid = fork()) == 0)
		_exit(in_namespace());
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

int
main(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(in_child());
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return fprintf(stderr, "the test's child failed\n"), 1;
	if (WEXITSTATUS(st) == 3) {
		skip(1, "no user namespace here");
		return done_testing();
	}
	is_int(WEXITSTATUS(st), 0,
	    "a process that got a freed number of the tree is not signalled (0: spared, 1: "
	    "killed, 2: no setup)");
	return done_testing();
}
