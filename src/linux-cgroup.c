/* The cgroup v2 leaf's system part: the probe reads the facts that
 * sbx_cgroup_decide() (cgroup.c) judges, and only reads and tests access;
 * the leaf itself is made and removed by the keeper (keeper.c), the jail
 * is cloned into it here, and its event files are read here after the
 * run. Nothing here ever looks at a cgroup v1 hierarchy (those belong to
 * the machine's own tooling). doc/design/limits.md. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#include "cgroup.h"
#include "util.h"

/* The mount point of the first cgroup2 filesystem in the mount table
 * (the text of /proc/self/mountinfo). */
static char *
v2_mount(const char *table)
{
	char *found = NULL;

	for (const char *at = table; at && *at && found == NULL;) {
		const char *end = strchr(at, '\n');
		size_t len = end ? (size_t)(end - at) : strlen(at);
		_cleanup_free_ char *line = sbx_xstrndup(at, len);
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE ... */
		char *sep = strstr(line, " - "), *fields[5], *save = NULL, *p = line;
		int n = 0;

		at = end ? end + 1 : at + len;
		if (sep == NULL || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		while (n < 5 && (fields[n] = strtok_r(p, " ", &save)) != NULL) {
			p = NULL;
			n++;
		}
		/* Paths with spaces are octal-escaped (\040): none is
		 * unescaped here, and such a mount is skipped. */
		if (n == 5 && strchr(fields[4], '\\') == NULL)
			found = sbx_xstrdup(fields[4]);
	}
	return found;
}

/* The path of our "0::" line in /proc/self/cgroup. */
static char *
v2_self(void)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *found = NULL;
	ssize_t n;

	if (f == NULL)
		return NULL;
	while (found == NULL && (n = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		found = sbx_xstrdup(line + 3);
	}
	fclose(f);
	return found;
}

/* The first 4 KiB of dir/name, or NULL: read(2) directly, no stdio
 * buffer (several of these run at every start). */
static char *
slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	char buf[4096];
	size_t n = 0;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	while (n < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return sbx_xstrdup(buf);
}

static bool
writable(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return access(path, W_OK) == 0;
}

/* Whether list names a controller of want (SBX_CG_*). */
static bool
want_in(const char *list, unsigned want)
{
	return ((want & SBX_CG_MEMORY) && sbx_cgroup_has(list, "memory")) ||
	    ((want & SBX_CG_PIDS) && sbx_cgroup_has(list, "pids"));
}

static int
count_lines(const char *s)
{
	int n = 0;

	if (s == NULL)
		return -1;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

void
sbx_cgroup_probe(
    unsigned want, const char *mountinfo, struct sbx_cg_decision *d, struct sbx_cg_place *place)
{
	/* The tests' fake tree: plain directories and files on a tmpfs,
	 * never the machine's hierarchy. */
	const char *test = getenv("SBXRUN_TEST_CGROUP_ROOT");
	const char *test_self = getenv("SBXRUN_TEST_CGROUP_SELF");
	_cleanup_free_ char *mount =
	    test && test[0] == '/' ? sbx_xstrdup(test) : v2_mount(mountinfo);
	_cleanup_free_ char *self = test && test[0] == '/'
	    ? sbx_xstrdup(test_self && test_self[0] == '/' ? test_self : "/")
	    : v2_self();
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ char *controllers = NULL, *subtree = NULL, *procs = NULL, *root_st = NULL;
	struct sbx_cg_facts f = { .mount = mount, .self = self, .nprocs = -1 };
	struct utsname u;

	f.clone_into = uname(&u) == 0 && sbx_cgroup_release_at_least(u.release, 5, 7);

	if (mount && self && self[0] == '/') {
		dir = sbx_xasprintf("%s%s", mount, strcmp(self, "/") == 0 ? "" : self);
		root_st = slurp(mount, "cgroup.subtree_control");
		f.root_subtree_control = root_st;
		/* Only judged when the root hands a wanted controller down
		 * (sbx_cgroup_decide()): 0.1 ms of probing per run went to
		 * facts no decision on this machine looked at. */
		f.root_writable = root_st && want_in(root_st, want) &&
		    access(mount, W_OK | X_OK) == 0 && writable(mount, "cgroup.procs");
		controllers = slurp(dir, "cgroup.controllers");
		f.controllers = controllers;
		if (sbx_cgroup_needs_group_facts(&f, want)) {
			subtree = slurp(dir, "cgroup.subtree_control");
			f.subtree_control = subtree;
			procs = slurp(dir, "cgroup.procs");
			f.nprocs = count_lines(procs);
			f.dir_writable = access(dir, W_OK | X_OK) == 0;
			f.procs_writable = writable(dir, "cgroup.procs");
			f.subtree_writable = writable(dir, "cgroup.subtree_control");
		}
	}
	sbx_cgroup_decide(&f, want, d);
	if (place == NULL || d->way == SBX_CG_NONE)
		return;
	place->parent = d->way == SBX_CG_AT_ROOT ? sbx_xstrdup(mount) : sbx_xstrdup(dir);
	place->move_self = d->way == SBX_CG_MOVE_SELF;
	place->test = test && test[0] == '/';
}

void
sbx_cgroup_place_free(struct sbx_cg_place *place)
{
	free(place->parent);
	place->parent = NULL;
}

/* The contents of the file name in the directory dir, or NULL. */
static char *
slurp_at(int dir, const char *name)
{
	char buf[4096];
	ssize_t n;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return sbx_xstrdup(buf);
}

void
sbx_cgroup_read_stats(int leaf, struct sbx_cg_stats *s)
{
	_cleanup_free_ char *events = slurp_at(leaf, "memory.events");
	_cleanup_free_ char *peak = slurp_at(leaf, "memory.peak");
	_cleanup_free_ char *pids = slurp_at(leaf, "pids.events");

	memset(s, 0, sizeof(*s));
	/* oom_kill: processes the OOM killer ended in this group because
	 * it reached memory.max (not "oom", which counts reclaim failures
	 * that may end without a kill). */
	(void)sbx_cgroup_key(events, "oom_kill", &s->oom_kill);
	if (peak)
		s->memory_peak = strtoull(peak, NULL, 10);
	(void)sbx_cgroup_key(pids, "max", &s->pids_max);
}

pid_t
sbx_cgroup_clone(struct clone_args *args, int leaf)
{
	struct statfs sf;
	bool real = false;
	pid_t pid;

	if (leaf >= 0 && fstatfs(leaf, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
		real = true;
	if (real) {
		/* Born in the leaf: no moment where the child, or anything
		 * it forks, runs outside it (clone3(2), CLONE_INTO_CGROUP,
		 * Linux 5.7). With CLONE_NEWCGROUP the new namespace's root
		 * is the leaf. */
		args->flags |= CLONE_INTO_CGROUP;
		args->cgroup = (__u64)(unsigned)leaf; /* >= 0 here */
	}
	pid = (pid_t)syscall(SYS_clone3, args, sizeof(*args));
	if (pid > 0 && leaf >= 0 && !real) {
		/* A test tree (SBXRUN_TEST_CGROUP_ROOT): the placement is
		 * recorded where the kernel would show it. */
		int fd = openat(leaf, "cgroup.procs", O_WRONLY | O_APPEND | O_CLOEXEC);

		if (fd >= 0) {
			dprintf(fd, "%d\n", (int)pid);
			close(fd);
		}
	}
	return pid;
}
