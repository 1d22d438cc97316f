/* The cgroup v2 probe's system part: reads the facts that
 * sbx_cgroup_decide() (cgroup.c) judges. It only reads and tests access:
 * it makes, moves and enables nothing, and never looks at a cgroup v1
 * hierarchy (those belong to the machine's own tooling). */
#include "config.h"

#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "util.h"

/* The mount point of the first cgroup2 filesystem in our mount table. */
static char *
v2_mount(void)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *found = NULL;

	if (f == NULL)
		return NULL;
	while (found == NULL && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE ... */
		char *sep = strstr(line, " - "), *fields[5], *save = NULL, *p = line;
		int n = 0;

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
	fclose(f);
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

static char *
slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	char buf[4096];
	size_t n;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	f = fopen(path, "re");
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
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
sbx_cgroup_probe(struct sbx_cg_decision *d)
{
	_cleanup_free_ char *mount = v2_mount(), *self = v2_self(), *dir = NULL;
	_cleanup_free_ char *controllers = NULL, *subtree = NULL, *procs = NULL, *root_st = NULL;
	struct sbx_cg_facts f = { .mount = mount, .self = self, .nprocs = -1 };

	if (mount && self && self[0] == '/') {
		dir = sbx_xasprintf("%s%s", mount, strcmp(self, "/") == 0 ? "" : self);
		controllers = slurp(dir, "cgroup.controllers");
		subtree = slurp(dir, "cgroup.subtree_control");
		f.controllers = controllers;
		f.subtree_control = subtree;
		procs = slurp(dir, "cgroup.procs");
		f.nprocs = count_lines(procs);
		f.dir_writable = access(dir, W_OK | X_OK) == 0;
		f.procs_writable = writable(dir, "cgroup.procs");
		f.subtree_writable = writable(dir, "cgroup.subtree_control");
		root_st = slurp(mount, "cgroup.subtree_control");
		f.root_subtree_control = root_st;
		f.root_writable =
		    access(mount, W_OK | X_OK) == 0 && writable(mount, "cgroup.procs");
	}
	sbx_cgroup_decide(&f, d);
}
