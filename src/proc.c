#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

static int
read_stat(int dirfd, const char *name, pid_t *ppid, unsigned long long *start)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;
	long pp;

	snprintf(path, sizeof(path), "%s/stat", name);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: skip to the
	 * last ')'. Then state, ppid, and the start time, field 22. */
	p = strrchr(buf, ')');
	if (p == NULL ||
	    sscanf(p + 1,
		" %*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
		"%*d %*d %*d %llu",
		&pp, start) != 2)
		return -1;
	*ppid = (pid_t)pp;
	return 0;
}

static size_t
snapshot(struct sbx_proc **out)
{
	struct sbx_proc *v = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);
		pid_t ppid;
		unsigned long long start;

		if (pid <= 0 || read_stat(dirfd(d), de->d_name, &ppid, &start) < 0)
			continue;
		v = sbx_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = (struct sbx_proc){ pid, ppid, start };
	}
	closedir(d);
	*out = v;
	return n;
}

/* Collects the descendants of root from a snapshot, breadth first, but
 * spare and what lies below it. */
static size_t
descendants(const struct sbx_proc *all, size_t n, pid_t root, pid_t spare, struct sbx_proc **out)
{
	struct sbx_proc *v = sbx_xreallocarray(NULL, n + 1, sizeof(*v));
	size_t count = 0;

	v[count++] = (struct sbx_proc){ .pid = root };
	for (size_t head = 0; head < count; head++)
		for (size_t i = 0; i < n; i++)
			if (all[i].ppid == v[head].pid && all[i].pid != root &&
			    (spare <= 0 || all[i].pid != spare))
				v[count++] = all[i];
	/* Drop root itself. */
	memmove(v, v + 1, (count - 1) * sizeof(*v));
	*out = v;
	return count - 1;
}

/* Sends sig to the process p of the snapshot, by a pidfd and only when
 * the process behind the number is still that one: between the snapshot
 * and the signal the sandbox can end a process and have its number given
 * to another (a thread of sbxrun's, another user's job) by making the
 * kernel's next number that one. A pidfd is a process, never a thread's
 * number; its start time, read once the pidfd is held, names which. The
 * start time counts clock ticks: a number comes back only after the
 * kernel has handed out every other one (pid_max), far more forks than
 * fit in a tick. */
static void
signal_one(const struct sbx_proc *p, int sig)
{
#ifdef SYS_pidfd_open
	char name[32];
	pid_t ppid;
	unsigned long long start;
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);

	if (fd < 0)
		return;
	snprintf(name, sizeof(name), "/proc/%d", (int)p->pid);
	if (read_stat(AT_FDCWD, name, &ppid, &start) == 0 && start == p->start)
		syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	close(fd);
#else
	kill(p->pid, sig);
#endif
}

size_t
sbx_proc_tree(pid_t root, pid_t spare, struct sbx_proc **out)
{
	struct sbx_proc *all = NULL;
	size_t n = snapshot(&all), m = descendants(all, n, root, spare, out);

	free(all);
	return m;
}

void
sbx_proc_signal_tree(const struct sbx_proc *tree, size_t n, int sig)
{
	if (sig == SIGKILL)
		for (size_t i = 0; i < n; i++)
			signal_one(&tree[i], SIGSTOP);
	for (size_t i = 0; i < n; i++)
		signal_one(&tree[i], sig);
}

int
sbx_proc_signal_descendants(pid_t root, pid_t spare, int sig)
{
	struct sbx_proc *tree = NULL;
	size_t m = sbx_proc_tree(root, spare, &tree);

	sbx_proc_signal_tree(tree, m, sig);
	free(tree);
	return (int)m;
}
