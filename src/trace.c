/* The trace file and its events (trace.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "resolve.h"
#include "trace.h"
#include "util.h"

/* macOS has neither: a plain open of the directory does for O_PATH, and
 * AT_EMPTY_PATH names only an O_TMPFILE file (Linux), never made there. */
#ifndef O_PATH
#define O_PATH 0
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0
#endif

/* Buffered events are written out past this many bytes, and at the end. */
#define FLUSH_AT 65536

struct sbx_trace {
	pthread_mutex_t lock;
	int dir; /* the directory the file gets its name in */
	int fd;
	char *base; /* its name there */
	char *path; /* the name the caller gave (--trace FILE) */
	char *temp; /* a hidden name it has meanwhile, or NULL (O_TMPFILE) */
	bool all;
	_Atomic bool begun; /* the payload's first exec was seen */
	_Atomic int command_pid; /* written as the command's exec, not yet seen after it */
	bool finished;
	bool failed; /* a write failed: said at the end */
	int write_errno;
	struct timespec start;
	struct sbx_buf buf;
	uint64_t events;
	uint64_t cap, bytes, dropped; /* the size bound (0: none), what was taken */
	char *const *command;
};

static void
random_name(const char *base, char *out, size_t size)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[8];
	char tail[9];

	arc4random_buf(r, sizeof(r));
	for (size_t i = 0; i < sizeof(r); i++)
		tail[i] = chars[r[i] % (sizeof(chars) - 1)];
	tail[8] = '\0';
	snprintf(out, size, ".%s.sbxrun-%s", base, tail);
}

int
sbx_trace_open(
    const char *path, bool all, const struct stat *wd, struct sbx_trace **out, struct sbx_err *err)
{
	struct sbx_trace *t;
	struct stat st;
	_cleanup_free_ char *dir = NULL, *what = NULL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return sbx_err_set(err, EINVAL, "--trace %s: not a file name", path);
	if (strlen(base) > 200)
		return sbx_err_set(err, ENAMETOOLONG, "--trace %s: name too long", path);
	dir = slash == NULL ? sbx_xstrdup(".")
	    : slash == path ? sbx_xstrdup("/")
			    : sbx_xasprintf("%.*s", (int)(slash - path), path);
	/* The trace takes the name in a rename, replacing what is there: a
	 * caller's /dev/stderr (a link to /proc/self/fd/2) or /dev/null
	 * would be a regular file from then on, for every program. Only a
	 * regular file is replaced; anything else there is refused now. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return sbx_err_set(err, EEXIST,
		    "--trace %s: not a regular file (the trace replaces what is at the name; "
		    "give the name of a file)",
		    path);
	t = sbx_xcalloc(1, sizeof(*t));
	t->fd = -1;
	t->all = all;
	/* Walked as a mount source is: the trace is made and later named
	 * in this very directory. */
	what = sbx_xasprintf("--trace %s: its directory", path);
	t->dir = sbx_open_dir_walked(what, dir, wd, err);
	if (t->dir < 0) {
		free(t);
		return -1;
	}
	t->base = sbx_xstrdup(base);
	t->path = sbx_xstrdup(path);
#ifdef O_TMPFILE
	/* No name while the run lasts: nothing can open it, link it or put
	 * something in its place. */
	t->fd = openat(t->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#endif
	for (int i = 0; t->fd < 0 && i < 64; i++) {
		char name[256];

		random_name(base, name, sizeof(name));
		t->fd = openat(
		    t->dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (t->fd >= 0)
			t->temp = sbx_xstrdup(name);
		else if (errno != EEXIST)
			break;
	}
	if (t->fd < 0) {
		sbx_err_sys(err, "--trace %s: cannot create the file", path);
		close(t->dir);
		free(t->base);
		free(t->path);
		free(t);
		return -1;
	}
	/* 0600 whatever the umask: the trace tells what the run touched. */
	fchmod(t->fd, 0600);
	pthread_mutex_init(&t->lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	*out = t;
	return 0;
}

static bool
has_prefix(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool
sbx_trace_noise(const char *path)
{
	static const char *const trees[] = {
		"/usr",
		"/lib",
		"/lib32",
		"/lib64",
		"/libx32",
		"/bin",
		"/sbin",
		"/sys",
	};
	static const char *const files[] = {
		"/etc/ld.so.cache",
		"/etc/ld.so.preload",
		"/etc/ld.so.conf",
		"/etc/ld.so.conf.d",
		"/etc/localtime",
		"/etc/nsswitch.conf",
		"/etc/host.conf",
		"/etc/gai.conf",
		"/dev/null",
		"/dev/zero",
		"/dev/full",
		"/dev/random",
		"/dev/urandom",
		"/dev/tty",
	};

	if (path == NULL || path[0] != '/')
		return false;
	/* A ".." or "." step may climb out of a system tree: kept. */
	if (strstr(path, "/.") != NULL || strstr(path, "//") != NULL)
		return false;
	for (size_t i = 0; i < SBX_ARRAY_LEN(trees); i++)
		if (has_prefix(path, trees[i]))
			return true;
	for (size_t i = 0; i < SBX_ARRAY_LEN(files); i++)
		if (strcmp(path, files[i]) == 0)
			return true;
	/* /proc, but not its links to anywhere (a process's root, cwd,
	 * descriptors, executable, mapped files). */
	if (has_prefix(path, "/proc"))
		return strstr(path, "/root") == NULL && strstr(path, "/cwd") == NULL &&
		    strstr(path, "/fd") == NULL && strstr(path, "/exe") == NULL &&
		    strstr(path, "/map_files") == NULL;
	return false;
}

bool
sbx_trace_open_writes(int flags)
{
	if (flags & O_PATH)
		return false;
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return true;
#endif
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

const char *
sbx_trace_open_flags(int flags, char *buf, size_t size)
{
	static const struct {
		int bit;
		const char *name;
	} bits[] = {
		{ O_CREAT, "O_CREAT" },
		{ O_EXCL, "O_EXCL" },
		{ O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" },
		{ O_DIRECTORY, "O_DIRECTORY" },
		{ O_NOFOLLOW, "O_NOFOLLOW" },
		{ O_PATH, "O_PATH" },
	};
	int acc = flags & O_ACCMODE;

	if (flags & O_PATH)
		buf[0] = '\0';
	else
		strlcpy(buf,
		    acc == O_RDONLY       ? "O_RDONLY"
			: acc == O_WRONLY ? "O_WRONLY"
			: acc == O_RDWR   ? "O_RDWR"
					  : "O_ACCMODE",
		    size);
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE) {
		strlcat(buf, "|O_TMPFILE", size);
		flags &= ~O_TMPFILE;
	}
#endif
	for (size_t i = 0; i < SBX_ARRAY_LEN(bits); i++)
		if (flags & bits[i].bit) {
			if (buf[0] != '\0')
				strlcat(buf, "|", size);
			strlcat(buf, bits[i].name, size);
		}
	return buf;
}

static const char *
qtype_name(unsigned type, char *buf, size_t size)
{
	static const struct {
		unsigned type;
		const char *name;
	} names[] = {
		{ 1, "A" },
		{ 2, "NS" },
		{ 5, "CNAME" },
		{ 6, "SOA" },
		{ 12, "PTR" },
		{ 15, "MX" },
		{ 16, "TXT" },
		{ 28, "AAAA" },
		{ 33, "SRV" },
		{ 64, "SVCB" },
		{ 65, "HTTPS" },
		{ 255, "ANY" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++)
		if (names[i].type == type)
			return names[i].name;
	snprintf(buf, size, "TYPE%u", type);
	return buf;
}

int
sbx_dns_question(
    const unsigned char *msg, size_t len, char *name, size_t size, char *qtype, size_t qsize)
{
	size_t at = 12, out = 0;
	unsigned flags, type, class;
	char tbuf[16];

	if (len < 12 || size < 2)
		return -1;
	flags = (unsigned)msg[2] << 8 | msg[3];
	/* A query (QR clear), standard (opcode 0), with one question and no
	 * answers. */
	if ((flags & 0x8000) || ((flags >> 11) & 0xf) != 0 || msg[4] != 0 || msg[5] != 1 ||
	    msg[6] != 0 || msg[7] != 0)
		return -1;
	for (;;) {
		unsigned l;

		if (at >= len)
			return -1;
		l = msg[at++];
		if (l == 0)
			break;
		/* A question's name is never compressed; labels are <= 63. */
		if (l > 63 || at + l > len || out + l + 2 > size || out + l > 253)
			return -1;
		if (out > 0)
			name[out++] = '.';
		for (unsigned i = 0; i < l; i++) {
			unsigned char c = msg[at + i];

			/* NUL would end the text early: shown as '?'. */
			name[out++] = c == '\0' ? '?' : (char)c;
		}
		at += l;
	}
	if (at + 4 > len)
		return -1;
	type = (unsigned)msg[at] << 8 | msg[at + 1];
	class = (unsigned)msg[at + 2] << 8 | msg[at + 3];
	if (class != 1 && class != 255)
		return -1;
	if (out == 0)
		name[out++] = '.';
	name[out] = '\0';
	strlcpy(qtype, qtype_name(type, tbuf, sizeof(tbuf)), qsize);
	return 0;
}

static const char *const kinds[] = {
	[SBX_TRACE_READ] = "read",
	[SBX_TRACE_WRITE] = "write",
	[SBX_TRACE_EXEC] = "exec",
	[SBX_TRACE_CONNECT] = "connect",
	[SBX_TRACE_BIND] = "bind",
	[SBX_TRACE_DNS] = "dns",
	[SBX_TRACE_PROXY] = "proxy",
	[SBX_TRACE_DENIED] = "denied",
};

static const char *
errno_name(int e, char *buf, size_t size)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },
		{ ENOENT, "ENOENT" },
		{ EACCES, "EACCES" },
		{ EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" },
		{ EFAULT, "EFAULT" },
		{ EEXIST, "EEXIST" },
		{ ENOTDIR, "ENOTDIR" },
		{ EINVAL, "EINVAL" },
		{ EROFS, "EROFS" },
		{ ENAMETOOLONG, "ENAMETOOLONG" },
		{ ENOTSOCK, "ENOTSOCK" },
		{ EMSGSIZE, "EMSGSIZE" },
		{ EOPNOTSUPP, "EOPNOTSUPP" },
		{ EAFNOSUPPORT, "EAFNOSUPPORT" },
		{ EADDRINUSE, "EADDRINUSE" },
		{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
		{ ENETUNREACH, "ENETUNREACH" },
		{ ECONNABORTED, "ECONNABORTED" },
		{ ECONNRESET, "ECONNRESET" },
		{ ENOBUFS, "ENOBUFS" },
		{ EISCONN, "EISCONN" },
		{ ETIMEDOUT, "ETIMEDOUT" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ EHOSTUNREACH, "EHOSTUNREACH" },
		{ EALREADY, "EALREADY" },
		{ EINPROGRESS, "EINPROGRESS" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, size, "errno %d", e);
	return buf;
}

static void
put_str(struct sbx_json *j, const char *key, const char *value)
{
	if (value == NULL)
		return;
	sbx_json_key(j, key);
	sbx_json_str(j, value);
}

static void
write_out(struct sbx_trace *t)
{
	size_t off = 0;

	while (off < t->buf.len && !t->failed) {
		ssize_t n = write(t->fd, t->buf.data + off, t->buf.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			t->failed = true;
			t->write_errno = n < 0 ? errno : EIO;
			break;
		}
		off += (size_t)n;
	}
	t->buf.len = 0;
}

void
sbx_trace_emit(struct sbx_trace *t, const struct sbx_trace_event *ev)
{
	struct sbx_json j = { 0 };
	struct timespec now;
	_cleanup_free_ char *line = NULL;
	char ebuf[32];
	uint64_t ms;

	if (t == NULL)
		return;
	/* Noise: what sbxrun's own code does in the jail before the command
	 * starts (its first exec), and reads of the system's trees. */
	if (!t->all && (ev->kind == SBX_TRACE_READ || ev->kind == SBX_TRACE_WRITE) && !t->begun)
		return;
	if (ev->kind == SBX_TRACE_EXEC)
		t->begun = true;
	/* Past the command's exec: its unreadable calls are its own now. */
	if (t->command_pid != 0 && ev->pid == t->command_pid && !ev->unread &&
	    (t->command == NULL || ev->path != t->command[0]))
		t->command_pid = 0;
	if (!t->all && ev->kind == SBX_TRACE_READ && ev->path &&
	    (sbx_trace_noise(ev->path) || (ev->flags && strstr(ev->flags, "O_PATH") != NULL)))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (uint64_t)(now.tv_sec - t->start.tv_sec) * 1000 +
	    (uint64_t)((now.tv_nsec - t->start.tv_nsec) / 1000000);
	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "ms");
	sbx_json_uint(&j, ms);
	sbx_json_key(&j, "pid");
	if (ev->pid > 0)
		sbx_json_int(&j, ev->pid);
	else
		sbx_json_null(&j);
	sbx_json_key(&j, "kind");
	sbx_json_str(&j, kinds[ev->kind]);
	put_str(&j, "op", ev->op);
	if (ev->unread && ev->path == NULL) {
		sbx_json_key(&j, "path");
		sbx_json_null(&j);
	}
	put_str(&j, "path", ev->path);
	put_str(&j, "to", ev->to);
	put_str(&j, "flags", ev->flags);
	if (ev->argv) {
		sbx_json_key(&j, "argv");
		sbx_json_arr_begin(&j);
		for (size_t i = 0; i < ev->argc; i++)
			sbx_json_str(&j, ev->argv[i]);
		sbx_json_arr_end(&j);
		if (ev->argv_cut) {
			sbx_json_key(&j, "argv_cut");
			sbx_json_bool(&j, true);
		}
	}
	put_str(&j, "addr", ev->addr);
	if (ev->port >= 0 && (ev->addr || ev->host)) {
		sbx_json_key(&j, "port");
		sbx_json_int(&j, ev->port);
	}
	put_str(&j, "name", ev->name);
	put_str(&j, "qtype", ev->qtype);
	put_str(&j, "via", ev->via);
	put_str(&j, "host", ev->host);
	put_str(&j, "decision", ev->decision);
	put_str(&j, "rule", ev->rule);
	if (ev->has_result) {
		sbx_json_key(&j, "result");
		sbx_json_str(
		    &j, ev->result == 0 ? "ok" : errno_name(-ev->result, ebuf, sizeof(ebuf)));
	}
	if (ev->observed) {
		sbx_json_key(&j, "observed");
		sbx_json_bool(&j, true);
	}
	if (ev->unread) {
		sbx_json_key(&j, "unread");
		sbx_json_bool(&j, true);
	}
	sbx_json_obj_end(&j);
	line = sbx_json_steal(&j);
	pthread_mutex_lock(&t->lock);
	if (!t->finished && t->cap && t->bytes + strlen(line) + 1 > t->cap) {
		t->dropped++;
	} else if (!t->finished) {
		sbx_buf_puts(&t->buf, line);
		sbx_buf_putc(&t->buf, '\n');
		t->bytes += strlen(line) + 1;
		t->events++;
		if (t->buf.len >= FLUSH_AT)
			write_out(t);
	}
	pthread_mutex_unlock(&t->lock);
}

void
sbx_trace_set_cap(struct sbx_trace *t, uint64_t cap)
{
	t->cap = cap;
}

uint64_t
sbx_trace_dropped(const struct sbx_trace *t)
{
	return t ? t->dropped : 0;
}

void
sbx_trace_set_command(struct sbx_trace *t, char *const *argv)
{
	t->command = argv;
}

void
sbx_trace_exec_unread(struct sbx_trace *t, int pid, bool unread)
{
	struct sbx_trace_event ev = { .kind = SBX_TRACE_EXEC, .pid = pid, .port = -1 };
	size_t n = 0;

	if (t == NULL)
		return;
	if (t->begun || t->command == NULL || t->command[0] == NULL) {
		/* Not the command's own PATH search, still unreadable (a root
		 * caller's payload is not dumpable until its exec). */
		if (!unread || !t->begun || pid == t->command_pid)
			return;
		ev.unread = true;
		ev.observed = true;
		sbx_trace_emit(t, &ev);
		return;
	}
	t->command_pid = pid;
	while (t->command[n])
		n++;
	ev.path = t->command[0];
	ev.argv = (const char *const *)t->command;
	ev.argc = n;
	sbx_trace_emit(t, &ev);
}

bool
sbx_trace_all(const struct sbx_trace *t)
{
	return t != NULL && t->all;
}

uint64_t
sbx_trace_events(const struct sbx_trace *t)
{
	return t ? t->events : 0;
}

int
sbx_trace_finish(struct sbx_trace *t, struct sbx_err *err)
{
	char name[256];
	struct stat ours, there;

	pthread_mutex_lock(&t->lock);
	write_out(t);
	t->finished = true;
	pthread_mutex_unlock(&t->lock);
	if (t->failed) {
		errno = t->write_errno;
		return sbx_err_sys(err, "cannot write the trace %s", t->base);
	}
	if (fstat(t->fd, &ours) < 0)
		return sbx_err_sys(err, "the trace %s", t->base);
	if (t->temp == NULL) {
		char self[64];
		int r = -1;

		/* The unnamed file gets a fresh hidden name (linkat cannot
		 * replace), then takes the real one in a rename. */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", t->fd);
		for (int i = 0; r < 0 && i < 64; i++) {
			random_name(t->base, name, sizeof(name));
			r = linkat(t->fd, "", t->dir, name, AT_EMPTY_PATH);
			if (r < 0 && errno != EEXIST)
				r = linkat(AT_FDCWD, self, t->dir, name, AT_SYMLINK_FOLLOW);
			if (r < 0 && errno != EEXIST)
				return sbx_err_sys(err, "cannot give the trace %s a name", t->base);
		}
		if (r < 0)
			return sbx_err_sys(err, "cannot give the trace %s a name", t->base);
		t->temp = sbx_xstrdup(name);
	} else if (fstatat(t->dir, t->temp, &there, AT_SYMLINK_NOFOLLOW) < 0 ||
	    there.st_dev != ours.st_dev || there.st_ino != ours.st_ino) {
		/* Its hidden name was taken from it: that is not our trace. */
		return sbx_err_set(
		    err, EEXIST, "the trace %s was replaced while the run lasted", t->base);
	}
	/* rename replaces a symbolic link at the name, never its target. */
	if (renameat(t->dir, t->temp, t->dir, t->base) < 0) {
		sbx_err_sys(err, "cannot name the trace %s", t->base);
		unlinkat(t->dir, t->temp, 0);
		free(t->temp);
		t->temp = NULL;
		return -1;
	}
	free(t->temp);
	t->temp = NULL;
	/* The directory was held by a descriptor, not by its name: one the
	 * run could write in was perhaps moved aside and another put in its
	 * place, with a file of the sandbox's at FILE. The name must lead to
	 * what was written (sbxrun(1), TRACING). */
	if (stat(t->path, &there) < 0 || there.st_dev != ours.st_dev ||
	    there.st_ino != ours.st_ino) {
		close(t->fd);
		t->fd = -1;
		return sbx_err_set(err, EEXIST,
		    "--trace %s: its directory was moved or replaced while the run lasted: "
		    "the name does not lead to the trace",
		    t->path);
	}
	close(t->fd);
	t->fd = -1;
	return 0;
}

void
sbx_trace_free(struct sbx_trace *t)
{
	if (t == NULL)
		return;
	if (t->temp != NULL)
		unlinkat(t->dir, t->temp, 0);
	if (t->fd >= 0)
		close(t->fd);
	close(t->dir);
	free(t->temp);
	free(t->base);
	free(t->path);
	sbx_buf_free(&t->buf);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
