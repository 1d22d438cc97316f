#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "proc.h"
#include "util.h"

struct pidpair {
	pid_t pid, ppid;
};

static pid_t
read_ppid(int dirfd, const char *name)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;
	long ppid;

	snprintf(path, sizeof(path), "%s/stat", name);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: skip to the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

static size_t
snapshot(struct pidpair **out)
{
	struct pidpair *v = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);
		pid_t ppid;

		if (pid <= 0)
			continue;
		ppid = read_ppid(dirfd(d), de->d_name);
		if (ppid < 0)
			continue;
		v = sbx_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = (struct pidpair){ pid, ppid };
	}
	closedir(d);
	*out = v;
	return n;
}

/* Collects the descendants of root from a snapshot, breadth first, but
 * spare and what lies below it. */
static size_t
descendants(const struct pidpair *all, size_t n, pid_t root, pid_t spare, pid_t **out)
{
	pid_t *v = sbx_xreallocarray(NULL, n + 1, sizeof(*v));
	size_t count = 0;

	v[count++] = root;
	for (size_t head = 0; head < count; head++)
		for (size_t i = 0; i < n; i++)
			if (all[i].ppid == v[head] && all[i].pid != root &&
			    (spare <= 0 || all[i].pid != spare))
				v[count++] = all[i].pid;
	/* Drop root itself. */
	memmove(v, v + 1, (count - 1) * sizeof(*v));
	*out = v;
	return count - 1;
}

int
sbx_proc_signal_descendants(pid_t root, pid_t spare, int sig)
{
	struct pidpair *all = NULL;
	pid_t *tree = NULL;
	size_t n = snapshot(&all), m = descendants(all, n, root, spare, &tree);

	if (sig == SIGKILL)
		for (size_t i = 0; i < m; i++)
			kill(tree[i], SIGSTOP);
	for (size_t i = 0; i < m; i++)
		kill(tree[i], sig);
	free(all);
	free(tree);
	return (int)m;
}
