/* The trace's events on Linux (linux-trace.h). Runs on the supervisor's
 * dispatcher (netsup.c), with its rights: reading the caller's memory and
 * its /proc links needs the ptrace-like access the dispatcher holds; it
 * opens nothing for the sandbox and performs no call. The proxy's events
 * come from the proxy's reader thread; trace.c serialises the writes. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostmatch.h"
#include "linux-notify.h"
#include "linux-trace.h"
#include "netrules.h"
#include "util.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* How much of an exec's argv the trace keeps. */
#define MAX_ARGS 1024
#define MAX_ARGV_BYTES (128 * 1024)
/* A DNS query over UDP is at most 512 bytes without EDNS; the question
 * comes first, so this is enough of any message to find it. */
#define DNS_PEEK 512

/* Syscall numbers, resolved once. */
static struct {
	int open, openat, openat2, creat, truncate, unlink, unlinkat, rmdir, rename, renameat,
	    renameat2, mkdir, mkdirat, mknod, mknodat, link, linkat, symlink, symlinkat, chmod,
	    fchmodat, fchmodat2, chown, lchown, fchownat, execve, execveat, sendto;
} nr;
static pthread_once_t nr_once = PTHREAD_ONCE_INIT;
static const char *const meta_calls[] = { "chmod", "fchmodat", "fchmodat2", "chown", "lchown",
	"fchownat", NULL };
static int meta_nrs[8];
/* Observed calls by number (x86_64 and arm64 numbers are below 512). */
#define MAX_NR 1024
static bool observed_nr[MAX_NR];

static int
resolve(const char *name)
{
	int n = seccomp_syscall_resolve_name(name);

	return n == __NR_SCMP_ERROR ? -1000 : n;
}

static void
resolve_all(void)
{
	nr.open = resolve("open");
	nr.openat = resolve("openat");
	nr.openat2 = resolve("openat2");
	nr.creat = resolve("creat");
	nr.truncate = resolve("truncate");
	nr.unlink = resolve("unlink");
	nr.unlinkat = resolve("unlinkat");
	nr.rmdir = resolve("rmdir");
	nr.rename = resolve("rename");
	nr.renameat = resolve("renameat");
	nr.renameat2 = resolve("renameat2");
	nr.mkdir = resolve("mkdir");
	nr.mkdirat = resolve("mkdirat");
	nr.mknod = resolve("mknod");
	nr.mknodat = resolve("mknodat");
	nr.link = resolve("link");
	nr.linkat = resolve("linkat");
	nr.symlink = resolve("symlink");
	nr.symlinkat = resolve("symlinkat");
	nr.chmod = resolve("chmod");
	nr.fchmodat = resolve("fchmodat");
	nr.fchmodat2 = resolve("fchmodat2");
	nr.chown = resolve("chown");
	nr.lchown = resolve("lchown");
	nr.fchownat = resolve("fchownat");
	nr.execve = resolve("execve");
	nr.execveat = resolve("execveat");
	nr.sendto = resolve("sendto");
	for (size_t i = 0; meta_calls[i]; i++)
		meta_nrs[i] = resolve(meta_calls[i]);
	for (size_t i = 0; sbx_trace_calls[i]; i++) {
		int n = resolve(sbx_trace_calls[i]);

		if (n >= 0 && n < MAX_NR)
			observed_nr[n] = true;
	}
}

bool
sbx_trace_observes(const struct seccomp_notif *req, bool meta_judged)
{
	int n = req->data.nr;

	pthread_once(&nr_once, resolve_all);
	if (n == nr.sendto)
		return req->data.args[4] == 0; /* with an address: judged */
	if (meta_judged)
		for (size_t i = 0; meta_calls[i]; i++)
			if (n == meta_nrs[i])
				return false;
	return n >= 0 && n < MAX_NR && observed_nr[n];
}

/* A NUL-terminated string of the caller's at addr into buf, read page by
 * page (a string may end just before an unmapped page). 1: cut at size. */
static int
peek_str(int pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (addr == 0)
		return -1;
	while (got + 1 < size) {
		size_t room = 4096 - (size_t)((addr + got) & 4095);

		if (room > size - 1 - got)
			room = size - 1 - got;
		if (sbx_notify_peek(pid, addr + got, buf + got, room) < 0)
			return -1;
		if (memchr(buf + got, '\0', room) != NULL)
			return 0;
		got += room;
	}
	buf[size - 1] = '\0';
	return 1;
}

/* Where the caller's dirfd (or its cwd, for AT_FDCWD) is, in its own
 * view: the link /proc shows, relative to the caller's root. */
static int
dir_of(int pid, int dirfd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", pid, dirfd);
	n = readlink(link, buf, size - 1);
	if (n <= 0)
		return -1;
	if ((size_t)n >= size - 1)
		return -2; /* perhaps cut */
	buf[n] = '\0';
	return 0;
}

/* The path the caller named (at addr, relative to dirfd) made absolute in
 * the caller's view, into out. -1 when it cannot be read, -2 when it
 * would not fit (cut, it would name another file). */
static int
path_arg(int pid, int dirfd, uint64_t addr, bool empty_ok, char *out, size_t size)
{
	char rel[PATH_MAX], dir[PATH_MAX];
	int n;

	if (peek_str(pid, addr, rel, sizeof(rel)) < 0)
		return -1;
	if (rel[0] == '/') {
		strlcpy(out, rel, size);
		return 0;
	}
	n = dir_of(pid, dirfd, dir, sizeof(dir));
	if (n == -2)
		return -2;
	if (n < 0) {
		strlcpy(out, rel, size); /* as given */
		return 0;
	}
	/* A path longer than the buffer, cut, would name another file (and
	 * an exec of it would pass for the shell's PATH search of a missing
	 * one): unread instead. */
	if (rel[0] == '\0' && empty_ok)
		return strlcpy(out, dir, size) < size ? 0 : -2;
	if (strcmp(rel, ".") == 0)
		return strlcpy(out, dir, size) < size ? 0 : -2;
	n = snprintf(out, size, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/",
	    strncmp(rel, "./", 2) == 0 ? rel + 2 : rel);
	return n >= 0 && (size_t)n < size ? 0 : -2;
}

/* path, when it is the caller's own /proc/self/fd/N (or thread-self):
 * what that descriptor leads to, so that a file opened by O_PATH and
 * reopened through /proc, or run by its descriptor, is named. */
static const char *
fd_named(int pid, char *path, size_t size)
{
	static const char *const pre[] = { "/proc/self/fd/", "/proc/thread-self/fd/" };
	char link[64], to[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < SBX_ARRAY_LEN(pre); i++) {
		size_t l = strlen(pre[i]);
		const char *num = path + l;

		if (strncmp(path, pre[i], l) != 0 || *num == '\0' ||
		    strspn(num, "0123456789") != strlen(num) || strlen(num) > 9)
			continue;
		snprintf(link, sizeof(link), "/proc/%d/fd/%s", pid, num);
		n = readlink(link, to, sizeof(to) - 1);
		if (n > 0) {
			to[n] = '\0';
			strlcpy(path, to, size);
		}
		break;
	}
	return path;
}

/* Whether an exec with AT_EMPTY_PATH ran a descriptor (path is then what
 * dir_of() gave for it). */
static bool
path_is_fd(int pid, int dfd, const char *path)
{
	char link[64], to[PATH_MAX];
	ssize_t n;

	if (dfd == AT_FDCWD)
		return false;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", pid, dfd);
	n = readlink(link, to, sizeof(to) - 1);
	if (n <= 0)
		return false;
	to[n] = '\0';
	return strcmp(to, path) == 0;
}

/* Whether path (absolute, in the caller's view) names something there:
 * an exec of a missing file is the shell's PATH search, not a program. */
static bool
exists_for(int pid, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	char root[64];
	int dfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return true; /* cannot tell: kept */
	while (*path == '/')
		path++;
	fd = (int)syscall(SYS_openat2, dfd, *path ? path : ".", &how, sizeof(how));
	close(dfd);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != ENOENT && errno != ENOTDIR;
}

/* An exec's argv, bounded: ev->argv/argc point into store. */
struct argv_store {
	char *v[MAX_ARGS];
	char bytes[MAX_ARGV_BYTES];
};

static void
read_argv(int pid, uint64_t at, struct argv_store *s, struct sbx_trace_event *ev)
{
	size_t used = 0, argc = 0;

	ev->argv = (const char *const *)s->v;
	ev->argc = 0;
	if (at == 0)
		return;
	for (;;) {
		uint64_t p;
		int r;

		if (sbx_notify_peek(pid, at + argc * sizeof(p), &p, sizeof(p)) < 0 || p == 0)
			break;
		if (argc == MAX_ARGS || used + 2 > sizeof(s->bytes)) {
			ev->argv_cut = true;
			break;
		}
		r = peek_str(pid, p, s->bytes + used, sizeof(s->bytes) - used);
		if (r < 0)
			break;
		s->v[argc++] = s->bytes + used;
		used += strlen(s->bytes + used) + 1;
		if (r > 0) {
			ev->argv_cut = true;
			break;
		}
	}
	ev->argc = argc;
}

/* One trapped call's event, from its arguments; false when there is none
 * to write (its path could not be read, an exec of nothing). */
static bool
describe(const struct seccomp_notif *req, char *path, char *to, size_t size, char *flags,
    size_t fsize, struct argv_store *argv, bool all, struct sbx_trace_event *ev)
{
	const __u64 *a = req->data.args;
	int pid = (int)req->pid, n = req->data.nr;
	int dfd = AT_FDCWD, open_flags = -1;
	uint64_t p = 0;
	bool empty_ok = false;

	pthread_once(&nr_once, resolve_all);
	ev->pid = pid;
	ev->port = -1;
	ev->kind = SBX_TRACE_WRITE;
	if (n == nr.open || n == nr.creat) {
		p = a[0];
		open_flags = n == nr.creat ? O_CREAT | O_WRONLY | O_TRUNC : (int)a[1];
		ev->op = "open";
	} else if (n == nr.openat || n == nr.openat2) {
		dfd = (int)a[0];
		p = a[1];
		if (n == nr.openat) {
			open_flags = (int)a[2];
		} else {
			uint64_t f = 0;

			/* Unread: taken as a write, which is never dropped. */
			open_flags =
			    sbx_notify_peek(pid, a[2], &f, sizeof(f)) < 0 ? O_WRONLY : (int)f;
		}
		ev->op = "open";
	} else if (n == nr.truncate) {
		p = a[0], ev->op = "truncate";
	} else if (n == nr.unlink) {
		p = a[0], ev->op = "unlink";
	} else if (n == nr.unlinkat) {
		dfd = (int)a[0], p = a[1];
		ev->op = (a[2] & AT_REMOVEDIR) ? "rmdir" : "unlink";
	} else if (n == nr.rmdir) {
		p = a[0], ev->op = "rmdir";
	} else if (n == nr.mkdir) {
		p = a[0], ev->op = "mkdir";
	} else if (n == nr.mkdirat) {
		dfd = (int)a[0], p = a[1], ev->op = "mkdir";
	} else if (n == nr.mknod) {
		p = a[0], ev->op = "mknod";
	} else if (n == nr.mknodat) {
		dfd = (int)a[0], p = a[1], ev->op = "mknod";
	} else if (n == nr.chmod) {
		p = a[0], ev->op = "chmod";
	} else if (n == nr.fchmodat || n == nr.fchmodat2) {
		dfd = (int)a[0], p = a[1], ev->op = "chmod";
		empty_ok = n == nr.fchmodat2 && (a[3] & AT_EMPTY_PATH);
	} else if (n == nr.chown || n == nr.lchown) {
		p = a[0], ev->op = "chown";
	} else if (n == nr.fchownat) {
		dfd = (int)a[0], p = a[1], ev->op = "chown";
		empty_ok = (a[4] & AT_EMPTY_PATH) != 0;
	} else if (n == nr.rename || n == nr.link) {
		ev->op = n == nr.rename ? "rename" : "link";
		ev->to = path_arg(pid, AT_FDCWD, a[1], false, to, size) < 0
		    ? NULL
		    : fd_named(pid, to, size);
		ev->unread = ev->to == NULL;
		p = a[0];
	} else if (n == nr.renameat || n == nr.renameat2 || n == nr.linkat) {
		ev->op = n == nr.linkat ? "link" : "rename";
		ev->to = path_arg(pid, (int)a[2], a[3], false, to, size) < 0
		    ? NULL
		    : fd_named(pid, to, size);
		ev->unread = ev->to == NULL;
		dfd = (int)a[0], p = a[1];
		empty_ok = n == nr.linkat && (a[4] & AT_EMPTY_PATH);
	} else if (n == nr.symlink || n == nr.symlinkat) {
		/* path: the link made; to: what it says, as written. */
		ev->op = "symlink";
		ev->to = peek_str(pid, a[0], to, size) < 0 ? NULL : to;
		ev->unread = ev->to == NULL;
		if (n == nr.symlinkat)
			dfd = (int)a[1], p = a[2];
		else
			p = a[1];
	} else if (n == nr.execve || n == nr.execveat) {
		ev->kind = SBX_TRACE_EXEC;
		if (n == nr.execveat)
			dfd = (int)a[0], p = a[1], empty_ok = (a[4] & AT_EMPTY_PATH) != 0;
		else
			p = a[0];
		switch (path_arg(pid, dfd, p, empty_ok, path, size)) {
		case 0: break;
		case -2:
			/* Too long to name: its arguments are still said. */
			ev->unread = true;
			read_argv(pid, n == nr.execveat ? a[2] : a[1], argv, ev);
			return true;
		default: ev->unread = true; return false;
		}
		/* A missing file is the shell's PATH search; a descriptor's
		 * file (execveat of "", fexecve, a memfd) is run whatever its
		 * name says. */
		if (!all && !(empty_ok && path_is_fd(pid, dfd, path)) && !exists_for(pid, path))
			return false;
		ev->path = fd_named(pid, path, size);
		read_argv(pid, n == nr.execveat ? a[2] : a[1], argv, ev);
		return true;
	} else {
		return false;
	}
	if (path_arg(pid, dfd, p, empty_ok, path, size) < 0)
		ev->unread = true;
	else
		ev->path = fd_named(pid, path, size);
	if (open_flags != -1) {
		if (!sbx_trace_open_writes(open_flags))
			ev->kind = SBX_TRACE_READ;
		ev->flags = sbx_trace_open_flags(open_flags, flags, fsize);
	}
	return true;
}

/* sendto without an address, on a connected socket: a name lookup when
 * it carries a DNS query and the peer's port is 53. */
static bool
describe_send(const struct seccomp_notif *req, unsigned char *buf, char *name, size_t size,
    char *qtype, size_t qsize, char *addr, struct sbx_trace_event *ev)
{
	const __u64 *a = req->data.args;
	int pid = (int)req->pid, sock;
	size_t len = a[2] < DNS_PEEK ? (size_t)a[2] : DNS_PEEK;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);

	if (len < 12 || sbx_notify_peek(pid, a[1], buf, len) < 0)
		return false;
	/* Over TCP the message follows its two-byte length. */
	if (sbx_dns_question(buf, len, name, size, qtype, qsize) < 0 &&
	    (len <= 14 || sbx_dns_question(buf + 2, len - 2, name, size, qtype, qsize) < 0))
		return false;
	sock = sbx_notify_take_fd(pid, (int)a[0]);
	if (sock < 0)
		return false;
	if (getpeername(sock, (struct sockaddr *)&ss, &sslen) < 0 ||
	    sbx_sockaddr_port((struct sockaddr *)&ss, sslen) != 53) {
		close(sock);
		return false;
	}
	close(sock);
	ev->pid = pid;
	ev->kind = SBX_TRACE_DNS;
	ev->name = name;
	ev->qtype = qtype;
	ev->via = "query";
	ev->addr = sbx_addr_format((struct sockaddr *)&ss, sslen, addr, SBX_ADDR_STRLEN);
	ev->port = 53;
	return true;
}

/* Everything one observed event needs, off the dispatcher's stack. */
struct scratch {
	char path[PATH_MAX];
	char to[PATH_MAX];
	char flags[128];
	char qtype[16];
	char addr[SBX_ADDR_STRLEN];
	unsigned char dns[DNS_PEEK];
	struct argv_store argv;
};

/* One scratch area a thread (the dispatcher's), freed when the thread
 * ends: the key's destructor runs at its exit. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void
make_scratch_key(void)
{
	pthread_key_create(&scratch_key, free);
}

static struct scratch *
get_scratch(void)
{
	struct scratch *s;

	pthread_once(&scratch_once, make_scratch_key);
	s = pthread_getspecific(scratch_key);
	if (s == NULL) {
		s = sbx_xmalloc(sizeof(*s));
		pthread_setspecific(scratch_key, s);
	}
	return s;
}

void
sbx_trace_observe(struct sbx_trace *t, int notify_fd, const struct seccomp_notif *req)
{
	/* Let through as the kernel would: these calls are not the policy's
	 * to judge here (linux-trace.h), so CONTINUE decides nothing. */
	struct seccomp_notif_resp resp = { .id = req->id,
		.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
	struct sbx_trace_event ev = { .port = -1, .observed = true };
	struct scratch *s = get_scratch();
	bool have;

	if (req->data.nr == nr.sendto)
		have = describe_send(req, s->dns, s->path, sizeof(s->path), s->qtype,
		    sizeof(s->qtype), s->addr, &ev);
	else
		have = describe(req, s->path, s->to, sizeof(s->path), s->flags, sizeof(s->flags),
		    &s->argv, sbx_trace_all(t), &ev);
	/* ENOENT: the caller is gone or was interrupted: it made no call. */
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return;
	if (have)
		sbx_trace_emit(t, &ev);
	else if (req->data.nr == nr.execve || req->data.nr == nr.execveat)
		sbx_trace_exec_unread(t, (int)req->pid, ev.unread);
}

void
sbx_trace_note(struct sbx_trace *t, const struct seccomp_notif *req)
{
	struct sbx_trace_event ev = { .port = -1, .observed = true };
	struct scratch *s = get_scratch();

	if (describe(req, s->path, s->to, sizeof(s->path), s->flags, sizeof(s->flags), &s->argv,
		sbx_trace_all(t), &ev))
		sbx_trace_emit(t, &ev);
}

/* The first bytes of a message's payload, gathered from its iovecs. */
static size_t
gather(const struct iovec *iov, size_t n, unsigned char *buf, size_t size)
{
	size_t got = 0;

	for (size_t i = 0; i < n && got < size; i++) {
		size_t take = iov[i].iov_len < size - got ? iov[i].iov_len : size - got;

		if (iov[i].iov_base == NULL)
			break;
		memcpy(buf + got, iov[i].iov_base, take);
		got += take;
	}
	return got;
}

void
sbx_trace_net(void *ctx, const struct sbx_net_event *ne)
{
	struct sbx_trace *t = ctx;
	bool is_unix = ne->addr && (ne->addr[0] == '/' || ne->addr[0] == '@');
	struct sbx_trace_event ev = {
		.pid = ne->pid,
		.op = ne->op,
		.addr = ne->addr,
		.port = ne->addr && !is_unix ? ne->port : -1,
		.has_result = true,
		.result = ne->result,
	};

	/* A refusal of ours is "denied"; an answer the kernel would have given
	 * too (no such socket file, a malformed address) is the call's result. */
	if (!ne->allowed && !ne->denial) {
		if (strcmp(ne->op, "connect") == 0 || strcmp(ne->op, "bind") == 0) {
			ev.kind = strcmp(ne->op, "bind") == 0 ? SBX_TRACE_BIND : SBX_TRACE_CONNECT;
			sbx_trace_emit(t, &ev);
		}
		return;
	}
	if (!ne->allowed) {
		ev.kind = SBX_TRACE_DENIED;
		ev.rule = ne->reason ? ne->reason : "refused";
		sbx_trace_emit(t, &ev);
		return;
	}
	if (strcmp(ne->op, "connect") == 0) {
		ev.kind = SBX_TRACE_CONNECT;
		sbx_trace_emit(t, &ev);
	} else if (strcmp(ne->op, "bind") == 0) {
		ev.kind = SBX_TRACE_BIND;
		sbx_trace_emit(t, &ev);
	} else if (strcmp(ne->op, "send") == 0 && ne->port == 53 && ne->iov != NULL) {
		unsigned char buf[DNS_PEEK];
		char name[256], qtype[16];
		size_t len = gather(ne->iov, ne->iovlen, buf, sizeof(buf));
		size_t off = ne->type == SOCK_STREAM ? 2 : 0;

		if (len <= off ||
		    sbx_dns_question(
			buf + off, len - off, name, sizeof(name), qtype, sizeof(qtype)) < 0)
			return;
		ev.kind = SBX_TRACE_DNS;
		ev.op = NULL;
		ev.name = name;
		ev.qtype = qtype;
		ev.via = "query";
		sbx_trace_emit(t, &ev);
	}
}

void
sbx_trace_proxy(void *ctx, const struct sbx_proxy_event *pe)
{
	struct sbx_trace *t = ctx;
	struct sbx_trace_event ev = {
		.kind = SBX_TRACE_PROXY,
		.op = pe->method,
		.host = pe->host,
		.addr = pe->addr,
		.port = pe->port ? pe->port : -1,
		.decision = pe->allowed ? "allowed" : "refused",
		.rule = pe->reason,
	};
	unsigned char ip[16];

	if (pe->kind != SBX_PROXY_DECISION)
		return;
	/* The proxy looks the name up for the sandbox. */
	if (pe->allowed && pe->host && inet_pton(AF_INET, pe->host, ip) != 1 &&
	    inet_pton(AF_INET6, pe->host, ip) != 1) {
		struct sbx_trace_event dns = {
			.kind = SBX_TRACE_DNS, .port = -1, .name = pe->host, .via = "proxy"
		};

		sbx_trace_emit(t, &dns);
	}
	sbx_trace_emit(t, &ev);
	if (!pe->allowed) {
		ev.kind = SBX_TRACE_DENIED;
		ev.op = "proxy";
		ev.decision = NULL;
		ev.rule = pe->reason ? pe->reason : "refused";
		sbx_trace_emit(t, &ev);
	}
}
