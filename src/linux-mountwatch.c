#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-mountwatch.h"
#include "secrets.h"

bool
sbx_mountwatch_changed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	/* The kernel marks the file at each poll after a change of the
	 * namespace's table since it was opened (or last polled). */
	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR));
}

/* A mount as the table shows it. Mount ids and anonymous device numbers
 * are reused once freed (another user can unmount one of its own and
 * mount again): a mount is the same only with the same id, device and
 * mount point. */
struct mnt {
	unsigned id, major, minor;
	char mp[4096];
};

/* One line of /proc/self/mountinfo into m, its mount point unescaped
 * (the kernel writes space, tab, newline and backslash as \ooo). Returns
 * false for a line it cannot read. */
static bool
parse_line(const char *line, struct mnt *m)
{
	const char *f = line;
	size_t n = 0;
	char *end;

	m->id = (unsigned)strtoul(line, &end, 10);
	if (end == line || *end != ' ')
		return false;
	/* Fields: id, parent, major:minor, root, mount point. */
	for (int i = 0; i < 4; i++) {
		f = strchr(f, ' ');
		if (f == NULL)
			return false;
		f++;
		if (i == 1 && sscanf(f, "%u:%u", &m->major, &m->minor) != 2)
			return false;
	}
	for (; *f && *f != ' ' && *f != '\n'; f++) {
		char c = *f;

		if (c == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] >= '0' && f[2] <= '7' &&
		    f[3] >= '0' && f[3] <= '7') {
			c = (char)((f[1] - '0') << 6 | (f[2] - '0') << 3 | (f[3] - '0'));
			f += 3;
		}
		if (n + 1 >= sizeof(m->mp))
			return false;
		m->mp[n++] = c;
	}
	m->mp[n] = '\0';
	return n > 0;
}

bool
sbx_mountwatch_had(const char *text, unsigned id, unsigned major, unsigned minor, const char *mp)
{
	struct mnt m;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (parse_line(l, &m) && m.id == id && m.major == major && m.minor == minor &&
		    strcmp(m.mp, mp) == 0)
			return true;
	return false;
}

/* Whether mp is path or lies below it. */
static bool
at_or_below(const char *mp, const char *path)
{
	size_t n = strlen(path);

	return strncmp(mp, path, n) == 0 && (mp[n] == '\0' || mp[n] == '/');
}

/* The mount id of the descriptor fd, from /proc/self/fdinfo: the
 * kernel's own record, with no call into the filesystem (a FUSE server
 * refuses every other user but with allow_other, root included). */
static long
fd_mnt_id(int fd)
{
	char path[64], buf[512];
	const char *at;
	ssize_t n;
	int info;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	if (info < 0)
		return -1;
	n = read(info, buf, sizeof(buf) - 1);
	close(info);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	at = strstr(buf, "\nmnt_id:");
	return at ? strtol(at + 8, NULL, 10) : -1;
}

/* Detaches the mount id whose mount point is mp: its root opened by name
 * without following a symlink on the way, and unmounted through that
 * descriptor only when it is on that very mount (a name changed
 * meanwhile leads elsewhere, and nothing else is touched; a descriptor
 * below the mount's root is refused by umount2 itself). */
static bool
detach(unsigned id, int dir, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	char proc[64];
	bool done = false;
	int fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));

	if (fd < 0)
		return false;
	if (fd_mnt_id(fd) == (long)id) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		done = umount2(proc, MNT_DETACH) == 0;
	}
	close(fd);
	return done;
}

bool
sbx_mountwatch_detach_at(int dir, const char *name, unsigned id)
{
	return geteuid() == 0 && strchr(name, '/') == NULL && detach(id, dir, name);
}

size_t
sbx_mountwatch_strangers(
    const char *before, const char *now, const char *path, bool late, struct sbx_strv *out)
{
	struct sbx_strv detached = { 0 };
	struct mnt m;
	const char *mp = m.mp;
	size_t found = 0;

	if (now == NULL || before == NULL)
		return 0;
	/* The table in its order: a mount comes after the one it is on, so
	 * one below another stranger's is met after it, and went with it. */
	for (const char *l = now; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		bool gone, with = false;

		if (!parse_line(l, &m) || !at_or_below(mp, path) ||
		    sbx_mountwatch_had(before, m.id, m.major, m.minor, mp))
			continue;
		found++;
		for (size_t i = 0; i < detached.n && !with; i++)
			with = at_or_below(mp, detached.v[i]);
		if (with)
			continue;
		gone = geteuid() == 0 && detach(m.id, AT_FDCWD, mp);
		if (gone)
			sbx_strv_push(&detached, mp);
		sbx_strv_push_take(out,
		    sbx_xasprintf("a mount made on %s during the run (not the sandbox's: another "
				  "process's) %s",
			mp,
			late && gone ? "was detached, after the checks, which did not see below it"
			    : gone   ? "was detached before the checks"
				     : "covers what the run left there: the checks after the run "
				       "did not see it, and it stays"));
	}
	sbx_strv_free(&detached);
	return found;
}

void
sbx_mountwatch_check(int fd, char **before, const char *path, bool late, struct sbx_strv *out)
{
	char *now;

	if (*before == NULL || !sbx_mountwatch_changed(fd) || (now = sbx_mountinfo_read()) == NULL)
		return;
	sbx_mountwatch_strangers(*before, now, path, late, out);
	free(*before);
	*before = now;
}
