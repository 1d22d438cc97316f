/* The system part of --selftest (sbxrun(1), doc/design/selftest.md).
 *
 * Process model. The selftest (the sbxrun the caller ran) makes a private
 * directory of its own, plants decoys in it, starts its listeners, opens
 * one host file without O_CLOEXEC, and then runs the jail twice by
 * re-executing itself as an ordinary sbxrun (the caller's own rights, the
 * default policy with the network on, the stand-in home as HOME), with a
 * pty as its controlling terminal and standard error. The script those
 * runs execute makes the attempts; where a raw system call is needed it
 * runs a copy of this binary with SBX_ST_PAYLOAD_ARG, which makes one
 * attempt and prints one line (sbx_selftest_payload). After each run the
 * selftest looks at the host: the listeners' queues, the marker, the
 * tokens in the output, the xattrs, the modes, the process table.
 *
 * Harmless by construction, even when no barrier holds (--backend none):
 * every file touched lives in the selftest's own directory, every socket
 * reached is one it listens on, every secret read is a decoy it made (the
 * host's own secret files only ever come back as a checksum), the
 * daemonised child sleeps at most 20 s and is killed when found, a mount
 * is undone at once, a ptrace is a seize and an exit, and the signal is a
 * SIGTERM to the inner sbxrun, which ends its own run the usual way.
 *
 * The payload mode grants nothing: it runs with the rights of whoever
 * runs it, takes no path for what it changes (the xattrs and the mount go
 * to fixed names in the current directory, the xattr one only onto an
 * empty file), and does nothing a program of the caller's could not do
 * itself. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "policy.h"
#include "resolve.h"
#include "selftest.h"
#include "supervise.h"
#include "util.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef SO_PROTOCOL
#define SO_PROTOCOL 38
#endif

extern char **environ;

/* The fixed names the payload acts on, in its current directory. */
#define ST_PAYLOAD ".sbxrun-selftest-payload"
#define ST_MNT ".sbxrun-selftest-mnt"
#define ST_XATTR ".sbxrun-selftest-xattr"
#define ST_LINGER_S 20

/* ---- the payload ------------------------------------------------------ */

static void say(const char *id, const char *outcome, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(const char *id, const char *outcome, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	printf(SBX_ST_TAG " %s %s %s\n", id, outcome, msg);
	fflush(stdout);
}

/* 0 when the call worked, else the errno it failed with. */
static int
result(long rc)
{
	return rc < 0 ? errno : 0;
}

static void
report(const char *id, int e, const char *what)
{
	if (e == 0)
		say(id, "done", "%s worked", what);
	else
		say(id, "refused", "%s: %s", what, strerror(e));
}

/* Runs fn in a child, so that a call that changes the process (unshare),
 * or a filter that kills it, leaves the payload able to report. Returns
 * what fn returned (0 or an errno), or -N when signal N killed it. */
static int
in_child(int (*fn)(const char *), const char *arg)
{
	pid_t pid = fork();
	int ws;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (waitpid(pid, &ws, 0) < 0)
		return errno;
	return WIFSIGNALED(ws) ? -WTERMSIG(ws) : WEXITSTATUS(ws);
}

static void
report_child(const char *id, int rc, const char *what)
{
	if (rc < 0)
		say(id, "refused", "%s: killed by signal %d", what, -rc);
	else
		report(id, rc, what);
}

static int
do_userns(const char *arg)
{
	(void)arg;
	return result(unshare(CLONE_NEWUSER));
}

static int
do_mount(const char *arg)
{
	(void)arg;
	if (mount("sbxrun-selftest", ST_MNT, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		"size=16k") < 0)
		return errno;
	umount2(ST_MNT, MNT_DETACH);
	return 0;
}

static int
do_ptrace(const char *arg)
{
	/* A seize does not stop the tracee; the exit that follows detaches. */
	return result(ptrace(PTRACE_SEIZE, (pid_t)atol(arg), NULL, NULL));
}

static int
do_int80(const char *arg)
{
	(void)arg;
#if defined(__x86_64__)
	long ret;

	/* getpid through the 32-bit entry (its number there is 20). */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "rcx", "r11");
	return ret > 0 ? 0 : (int)-ret;
#else
	return ENOSYS;
#endif
}

static int
parse_inet(const char *ip, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static void
try_tcp(const char *id, const char *ip, const char *port)
{
	struct sockaddr_in sa;
	struct pollfd pfd;
	int fd, e = 0;
	socklen_t len = sizeof(e);

	if (parse_inet(ip, port, &sa) < 0) {
		say(id, "failed", "bad address %s", ip);
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		report(id, errno, "socket");
		return;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		if (e == EINPROGRESS) {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			e = poll(&pfd, 1, 1000) == 1 &&
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0
			    ? e
			    : ETIMEDOUT;
		}
	}
	report(id, e, "connect");
	close(fd);
}

static void
try_fastopen(const char *id, const char *ip, const char *port)
{
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_in sa;
	int fd;
	long rc;

	if (parse_inet(ip, port, &sa) < 0) {
		say(id, "failed", "bad address %s", ip);
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		report(id, errno, "socket");
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rc = sendto(fd, "SBXST-TFO", 9, MSG_FASTOPEN, (struct sockaddr *)&sa, sizeof(sa));
	report(id, result(rc), "sendto(MSG_FASTOPEN)");
	close(fd);
}

static void
try_abstract(const char *id, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd;

	if (n + 1 >= sizeof(sa.sun_path)) {
		say(id, "failed", "name too long");
		return;
	}
	memcpy(sa.sun_path + 1, name, n);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		report(id, errno, "socket");
		return;
	}
	report(id,
	    result(connect(fd, (struct sockaddr *)&sa,
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n))),
	    "connect");
	close(fd);
}

static void
try_tiocsti(const char *id)
{
	char c = 'Z';
	int fds[4] = { 0, 1, 2, -1 }, e = ENOTTY, rc = -1;

	fds[3] = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fds[3] < 0)
		fds[3] = -1;
	for (int i = 0; i < 4; i++) {
		if (fds[i] < 0)
			continue;
		if (ioctl(fds[i], TIOCSTI, &c) == 0)
			rc = 0;
		else if (errno != ENOTTY || e == ENOTTY)
			e = errno;
	}
	report(id, rc == 0 ? 0 : e, "ioctl(TIOCSTI) on the standard descriptors and /dev/tty");
}

static void
try_mptcp(const char *id, bool high)
{
	/* The kernel reads the protocol as an int: the high bits must not
	 * make a filter comparing 64-bit values let it through. */
	long proto = high ? (long)((1ULL << 32) | IPPROTO_MPTCP) : IPPROTO_MPTCP;
	long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, proto);
	int got = 0;
	socklen_t len = sizeof(got);

	if (fd < 0) {
		report(id, errno, "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)");
		return;
	}
	getsockopt((int)fd, SOL_SOCKET, SO_PROTOCOL, &got, &len);
	say(id, "done", "an MPTCP socket was made (protocol %d)", got);
	close((int)fd);
}

static void
try_io_uring(const char *id)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 1, &p);
	report(id, result(fd), "io_uring_setup");
	if (fd >= 0)
		close((int)fd);
}

static void
try_leaked_fd(const char *id)
{
	struct sbx_buf seen = { 0 };
	bool wrote = false;

	/* Every descriptor above the standard three: read what it holds
	 * and write over it, where it is a file. */
	for (int fd = 3; fd < 1024; fd++) {
		char path[64], target[256] = "", data[65];
		struct stat st;
		ssize_t n;

		if (fcntl(fd, F_GETFD) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		sbx_buf_printf(&seen, "%s%d=%s", seen.len ? ", " : "", fd, target);
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		n = pread(fd, data, sizeof(data) - 1, 0);
		if (n > 0) {
			data[n] = '\0';
			sbx_buf_printf(&seen, " [%s]", data);
		}
		if (pwrite(fd, "SBXST-WROTE", 11, 0) == 11)
			wrote = true;
	}
	if (seen.len == 0)
		say(id, "refused", "no descriptor above 2 is open");
	else
		say(id, wrote ? "done" : "refused", "open: %s", seen.data);
	sbx_buf_free(&seen);
}

static void
try_exe_write(const char *id)
{
	char path[64], target[256] = "";
	ssize_t n;
	int fd;

	/* The shell's executable, a host file: opened for writing, and
	 * closed without a byte written. */
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)getppid());
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		say(id, "refused", "open(%s -> %s, O_WRONLY): %s", path, target, strerror(errno));
		return;
	}
	close(fd);
	say(id, "done", "%s (%s) opened for writing", path, target);
}

static void
try_xattr(const char *id, const char *name)
{
	/* A v2 file capability granting CAP_NET_BIND_SERVICE (permitted
	 * only), on an empty file: a mark, not a tool. */
	struct vfs_cap_data cap;
	const void *value = "1";
	size_t len = 1;
	struct stat st;

	if (lstat(ST_XATTR, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
		say(id, "failed", "%s is not an empty file", ST_XATTR);
		return;
	}
	if (strcmp(name, "security.capability") == 0) {
		memset(&cap, 0, sizeof(cap));
		cap.magic_etc = VFS_CAP_REVISION_2;
		cap.data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
		value = &cap;
		len = XATTR_CAPS_SZ_2;
	}
	report(id, result(setxattr(ST_XATTR, name, value, len, 0)), name);
}

static void
try_linger(const char *id)
{
	pid_t pid = fork();
	int ws;

	if (pid < 0) {
		report(id, errno, "fork");
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		if (fork() != 0)
			_exit(0);
		/* The daemon: no descriptor of the run's, a bounded life. */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		for (int i = 0; i < ST_LINGER_S * 10; i++) {
			struct timespec ts = { .tv_nsec = 100000000 };

			nanosleep(&ts, NULL);
		}
		_exit(0);
	}
	waitpid(pid, &ws, 0);
	say(id, "done", "a daemon was started (setsid, double fork)");
}

int
sbx_selftest_payload(int argc, char **argv)
{
	const char *id, *kind;

	if (argc < 4)
		return 2;
	id = argv[2];
	kind = argv[3];
	if (strcmp(kind, "tcp") == 0 && argc == 6)
		try_tcp(id, argv[4], argv[5]);
	else if (strcmp(kind, "fastopen") == 0 && argc == 6)
		try_fastopen(id, argv[4], argv[5]);
	else if (strcmp(kind, "abstract") == 0 && argc == 5)
		try_abstract(id, argv[4]);
	else if (strcmp(kind, "tiocsti") == 0)
		try_tiocsti(id);
	else if (strcmp(kind, "userns") == 0)
		report_child(id, in_child(do_userns, NULL), "unshare(CLONE_NEWUSER)");
	else if (strcmp(kind, "mount") == 0)
		report_child(id, in_child(do_mount, NULL), "mount(tmpfs)");
	else if (strcmp(kind, "ptrace") == 0 && argc == 5)
		report_child(id, in_child(do_ptrace, argv[4]), "ptrace(PTRACE_SEIZE) of sbxrun");
	else if (strcmp(kind, "io_uring") == 0)
		try_io_uring(id);
	else if (strcmp(kind, "mptcp") == 0)
		try_mptcp(id, false);
	else if (strcmp(kind, "mptcp-high") == 0)
		try_mptcp(id, true);
	else if (strcmp(kind, "int80") == 0) {
#if defined(__x86_64__)
		report_child(id, in_child(do_int80, NULL), "int 0x80 getpid");
#else
		say(id, "na", "no 32-bit entry on this architecture");
#endif
	} else if (strcmp(kind, "leaked-fd") == 0)
		try_leaked_fd(id);
	else if (strcmp(kind, "exe-write") == 0)
		try_exe_write(id);
	else if (strcmp(kind, "xattr-cap") == 0)
		try_xattr(id, "security.capability");
	else if (strcmp(kind, "xattr-trusted") == 0)
		try_xattr(id, "trusted.sbxrun-selftest");
	else if (strcmp(kind, "xattr-security") == 0)
		try_xattr(id, "security.sbxrun-selftest");
	else if (strcmp(kind, "linger") == 0 && argc == 5)
		try_linger(id);
	else if (strcmp(kind, "signal") == 0 && argc == 5) {
		int e = result(kill((pid_t)atol(argv[4]), SIGTERM));

		report(id, e, "kill(sbxrun, SIGTERM)");
		/* Give sbxrun the time to act on it (end the run, 143), so
		 * that the host sees it; a refused signal costs nothing. */
		if (e == 0)
			sleep(3);
	} else
		return 2;
	return 0;
}

/* ---- the host side ---------------------------------------------------- */

struct listener {
	int fd;
	char *where; /* "IP PORT" or the abstract name */
};

struct selftest {
	char *root; /* the selftest's own directory */
	char *home; /* stand-in home = workdir of the first run */
	char *repo; /* workdir of the second run, with a .git */
	char *outside;
	char *rand;
	struct sbx_strv decoys; /* home-relative */
	struct sbx_strv tokens; /* one per decoy */
	struct sbx_strv system; /* host secret files */
	struct listener loopback, iface, fastopen, abstract;
	char *leak_token;
	int leak_fd;
	char *linger;
	int master, slave; /* the pty */
	char *slave_name;
};

static void
st_free(struct selftest *t)
{
	struct sbx_err e = { 0 };
	struct listener *ls[] = { &t->loopback, &t->iface, &t->fastopen, &t->abstract };

	for (size_t i = 0; i < SBX_ARRAY_LEN(ls); i++) {
		if (ls[i]->fd >= 0)
			close(ls[i]->fd);
		free(ls[i]->where);
	}
	if (t->leak_fd >= 0)
		close(t->leak_fd);
	if (t->master >= 0)
		close(t->master);
	if (t->slave >= 0)
		close(t->slave);
	if (t->root) {
		/* A mount the payload could not undo (no barrier, root). */
		_cleanup_free_ char *m1 = sbx_path_join(t->home, ST_MNT);
		_cleanup_free_ char *m2 = sbx_path_join(t->repo, ST_MNT);

		umount2(m1, MNT_DETACH);
		umount2(m2, MNT_DETACH);
		sbx_rm_rf(t->root, &e);
	}
	free(t->root);
	free(t->home);
	free(t->repo);
	free(t->outside);
	free(t->rand);
	free(t->leak_token);
	free(t->linger);
	free(t->slave_name);
	sbx_strv_free(&t->decoys);
	sbx_strv_free(&t->tokens);
	sbx_strv_free(&t->system);
}

static int
write_file(const char *path, const char *text, mode_t mode, struct sbx_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	size_t len = strlen(text);

	if (fd < 0)
		return sbx_err_sys(err, "cannot create %s", path);
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return sbx_err_sys(err, "cannot write %s", path);
	}
	fchmod(fd, mode);
	close(fd);
	return 0;
}

static int
mkdirs(const char *path, mode_t mode, struct sbx_err *err)
{
	_cleanup_free_ char *p = sbx_xstrdup(path);

	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return sbx_err_sys(err, "cannot create %s", p);
		if (!s)
			return 0;
		*s = '/';
	}
}

static char *
random_hex(void)
{
	unsigned char b[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	struct sbx_buf out = { 0 };

	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		/* Uniqueness, not secrecy, is what the names need. */
		uint64_t v = sbx_now_ms() ^ ((uint64_t)getpid() << 32);

		memcpy(b, &v, sizeof(b));
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < sizeof(b); i++)
		sbx_buf_printf(&out, "%02x", b[i]);
	return sbx_buf_steal(&out);
}

static int
copy_self(const char *dst, struct sbx_err *err)
{
	_cleanup_close_ int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int out = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return sbx_err_sys(err, "cannot open /proc/self/exe");
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
	if (out < 0)
		return sbx_err_sys(err, "cannot create %s", dst);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return sbx_err_sys(err, "cannot write %s", dst);
	if (n < 0)
		return sbx_err_sys(err, "cannot read /proc/self/exe");
	fchmod(out, 0755);
	return 0;
}

/* What every workdir gets: the payload, the mount point, the xattr file. */
static int
plant_workdir(const char *wd, struct sbx_err *err)
{
	_cleanup_free_ char *payload = sbx_path_join(wd, ST_PAYLOAD);
	_cleanup_free_ char *mnt = sbx_path_join(wd, ST_MNT);
	_cleanup_free_ char *xattr = sbx_path_join(wd, ST_XATTR);

	if (copy_self(payload, err) < 0)
		return -1;
	if (mkdir(mnt, 0755) < 0)
		return sbx_err_sys(err, "cannot create %s", mnt);
	return write_file(xattr, "", 0644, err);
}

static int
plant_decoys(struct selftest *t, struct sbx_err *err)
{
	struct sbx_strv list = { 0 };
	int rc = 0;

	sbx_secret_list(t->home, &list);
	for (size_t i = 0; i < list.n && rc == 0; i++) {
		const char *rel = list.v[i] + strlen(t->home) + 1;
		_cleanup_free_ char *file = sbx_st_decoy_file(rel);
		_cleanup_free_ char *abs = sbx_path_join(t->home, file);
		_cleanup_free_ char *dir = sbx_xstrdup(abs);
		char *token = sbx_xasprintf("SBXST-DECOY-%s-%zu", t->rand, i);

		*strrchr(dir, '/') = '\0';
		if (mkdirs(dir, 0700, err) < 0 || write_file(abs, token, 0600, err) < 0)
			rc = -1;
		sbx_strv_push(&t->decoys, file);
		sbx_strv_push_take(&t->tokens, token);
	}
	sbx_strv_free(&list);
	return rc;
}

static void
find_system_secrets(struct selftest *t)
{
	struct sbx_strv list = { 0 };

	sbx_secret_list_system(&list);
	for (size_t i = 0; i < list.n; i++) {
		glob_t g;

		if (glob(list.v[i], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {
			struct stat st;

			if (lstat(g.gl_pathv[k], &st) == 0 && S_ISREG(st.st_mode))
				sbx_strv_push(&t->system, g.gl_pathv[k]);
		}
		globfree(&g);
	}
	sbx_strv_free(&list);
}

static int
listen_inet(struct listener *l, struct in_addr addr, bool fastopen, struct sbx_err *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = addr };
	socklen_t len = sizeof(sa);
	char ip[INET_ADDRSTRLEN];
	int qlen = 8;

	l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->fd < 0)
		return sbx_err_sys(err, "cannot make a listener");
	if (fastopen)
		setsockopt(l->fd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen));
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l->fd, 16) < 0 ||
	    getsockname(l->fd, (struct sockaddr *)&sa, &len) < 0)
		return sbx_err_sys(err, "cannot listen on %s",
		    inet_ntop(AF_INET, &addr, ip, sizeof(ip)) ? ip : "?");
	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	l->where = sbx_xasprintf("%s %u", ip, ntohs(sa.sin_port));
	return 0;
}

/* The first address of an interface that is up and not loopback. */
static bool
host_address(struct in_addr *out)
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (getifaddrs(&ifa) < 0)
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
		    !(i->ifa_flags & IFF_LOOPBACK)) {
			*out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			found = true;
		}
	freeifaddrs(ifa);
	return found;
}

static int
listen_abstract(struct listener *l, const char *name, struct sbx_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);

	memcpy(sa.sun_path + 1, name, n);
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->fd < 0 ||
	    bind(l->fd, (struct sockaddr *)&sa,
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(l->fd, 16) < 0)
		return sbx_err_sys(err, "cannot listen on the abstract socket @%s", name);
	l->where = sbx_xstrdup(name);
	return 0;
}

/* Whether anything is waiting in the listener's queue: a connection the
 * kernel completed is there even if nobody ever accepted it. */
static bool
reached(struct listener *l)
{
	int fd;

	if (l->fd < 0)
		return false;
	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int
open_pty(struct selftest *t, struct sbx_err *err)
{
	struct termios tio;
	char *name;

	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0 ||
	    (name = ptsname(t->master)) == NULL)
		return sbx_err_sys(err, "cannot open a pseudo-terminal");
	t->slave_name = sbx_xstrdup(name);
	t->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (t->slave < 0 || tcgetattr(t->slave, &tio) < 0)
		return sbx_err_sys(err, "cannot open %s", name);
	/* Raw: a byte pushed into the input queue is readable at once. */
	cfmakeraw(&tio);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	tcsetattr(t->slave, TCSANOW, &tio);
	fcntl(t->master, F_SETFL, O_NONBLOCK);
	return 0;
}

static int
setup(struct selftest *t, struct sbx_err *err)
{
	const char *tmp = getenv("TMPDIR");
	struct in_addr addr;
	_cleanup_free_ char *git = NULL, *hooks = NULL, *hook = NULL, *name = NULL;
	_cleanup_free_ char *leak = NULL;
	int fd;

	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	t->root = sbx_xasprintf("%s/sbxrun-selftest.XXXXXX", tmp);
	if (mkdtemp(t->root) == NULL) {
		sbx_err_sys(err, "cannot create a directory in %s", tmp);
		free(t->root);
		t->root = NULL;
		return -1;
	}
	/* Searchable: the sandbox may run as another uid (a root caller's
	 * is 65534 under landlock) and must reach its workdir. */
	chmod(t->root, 0755);
	t->rand = random_hex();
	t->home = sbx_path_join(t->root, "home");
	t->repo = sbx_path_join(t->root, "repo");
	t->outside = sbx_path_join(t->root, "outside");
	if (mkdir(t->home, 0755) < 0 || mkdir(t->repo, 0755) < 0 || mkdir(t->outside, 0755) < 0)
		return sbx_err_sys(err, "cannot create the selftest's directories");
	if (plant_decoys(t, err) < 0 || plant_workdir(t->home, err) < 0 ||
	    plant_workdir(t->repo, err) < 0)
		return -1;
	git = sbx_path_join(t->repo, ".git");
	hooks = sbx_path_join(git, "hooks");
	hook = sbx_path_join(hooks, "pre-commit");
	if (mkdirs(hooks, 0755, err) < 0 || write_file(hook, "#!/bin/sh\nexit 0\n", 0644, err) < 0)
		return -1;
	chmod(hooks, 0755);
	find_system_secrets(t);

	if (listen_inet(&t->loopback, (struct in_addr){ htonl(INADDR_LOOPBACK) }, false, err) < 0 ||
	    listen_inet(&t->fastopen, (struct in_addr){ htonl(INADDR_LOOPBACK) }, true, err) < 0)
		return -1;
	if (host_address(&addr) && listen_inet(&t->iface, addr, false, err) < 0)
		return -1;
	name = sbx_xasprintf("sbxrun-selftest-%s", t->rand);
	if (listen_abstract(&t->abstract, name, err) < 0)
		return -1;

	/* The leaked descriptor: open, not close-on-exec, above the
	 * standard three and the diagnostics descriptor. */
	t->leak_token = sbx_xasprintf("SBXST-LEAK-%s", t->rand);
	leak = sbx_path_join(t->outside, "leaked");
	if (write_file(leak, t->leak_token, 0600, err) < 0)
		return -1;
	fd = open(leak, O_RDWR | O_NOFOLLOW);
	if (fd < 0)
		return sbx_err_sys(err, "cannot open %s", leak);
	t->leak_fd = fcntl(fd, F_DUPFD, 10);
	close(fd);
	if (t->leak_fd < 0)
		return sbx_err_sys(err, "cannot move the leaked descriptor");
	t->linger = sbx_xasprintf("SBXST-LINGER-%s", t->rand);
	return open_pty(t, err);
}

/* What one run of the jail gave back. */
struct outcome {
	struct sbx_buf out; /* stdout */
	struct sbx_buf diag; /* the diagnostics line */
	struct sbx_buf tty; /* what sbxrun wrote on the terminal */
	int status; /* exit status, or 128+N */
	pid_t pid;
};

static void
outcome_free(struct outcome *o)
{
	sbx_buf_free(&o->out);
	sbx_buf_free(&o->diag);
	sbx_buf_free(&o->tty);
}

static void
drain(int fd, struct sbx_buf *b, bool *open)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n > 0)
		sbx_buf_add(b, buf, (size_t)n);
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		*open = false;
}

static char **
child_env(const char *home)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = sbx_xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HOME=", 5) != 0)
			env[k++] = environ[i];
	env[k++] = sbx_xasprintf("HOME=%s", home);
	env[k] = NULL;
	return env;
}

/* Runs one jail: this binary, as a plain sbxrun, with the script made by
 * make_script once the child's pid is known. */
static int
run_jail(struct selftest *t, const struct sbx_policy *p, const char *wd, struct sbx_st_script *s,
    struct outcome *o, struct sbx_err *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, dg[2] = { -1, -1 }, ws;
	const char *argv[16];
	char **env;
	size_t a = 0;
	_cleanup_free_ char *script = NULL;
	bool out_open = true, dg_open = true, tty_open = true;
	uint64_t deadline;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(dg, O_CLOEXEC) < 0)
		return sbx_err_sys(err, "cannot make pipes");
	argv[a++] = "sbxrun";
	if (p->backend != SBX_BACKEND_AUTO) {
		argv[a++] = "--backend";
		argv[a++] = sbx_backend_name(p->backend);
	}
	if (p->allow_degraded)
		argv[a++] = "--allow-degraded";
	argv[a++] = "--network";
	argv[a++] = "on";
	argv[a++] = "-w";
	argv[a++] = wd;
	argv[a++] = "--timeout";
	argv[a++] = "20s";
	argv[a++] = "--diag";
	argv[a++] = "fd:3";
#ifdef SBX_SANITIZED
	/* A sanitized build (configure --enable-sanitizers) only: the payload
	 * is this binary, whose ASan runtime reserves some 20 TiB of address
	 * space at start (shadow memory, allocator) and aborts when the
	 * default memory limit, RLIMIT_AS at half the machine's memory where
	 * no cgroup takes it, refuses that. The plain build keeps the
	 * default policy. */
	argv[a++] = "--memory";
	argv[a++] = "64T";
#endif
	argv[a] = NULL;
	env = child_env(t->home);

	o->pid = fork();
	if (o->pid < 0) {
		sbx_err_sys(err, "cannot fork");
		goto fail;
	}
	if (o->pid == 0) {
		int tty;

		/* A session of its own whose controlling terminal is the pty,
		 * as when a person runs sbxrun in a terminal. */
		setsid();
		tty = open(t->slave_name, O_RDWR);
		if (tty < 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(tty, 2) < 0 ||
		    dup2(dg[1], 3) < 0)
			_exit(125);
		execve("/proc/self/exe", (char *const *)argv, env);
		_exit(125);
	}
	close(in[0]);
	close(out[1]);
	close(dg[1]);
	in[0] = out[1] = dg[1] = -1;
	s->parent = o->pid;
	s->workdir = wd;
	script = sbx_st_script_text(s);
	/* A few kilobytes: the pipe holds them all. */
	if (write(in[1], script, strlen(script)) < 0) {
		/* The run failed to start; its status will say why. */
	}
	close(in[1]);
	in[1] = -1;

	deadline = sbx_now_ms() + 30000;
	while ((out_open || dg_open) && sbx_now_ms() < deadline) {
		struct pollfd pf[3] = {
			{ .fd = out_open ? out[0] : -1, .events = POLLIN },
			{ .fd = dg_open ? dg[0] : -1, .events = POLLIN },
			{ .fd = tty_open ? t->master : -1, .events = POLLIN },
		};

		if (poll(pf, 3, 200) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			drain(out[0], &o->out, &out_open);
		if (pf[1].revents)
			drain(dg[0], &o->diag, &dg_open);
		if (pf[2].revents)
			drain(t->master, &o->tty, &tty_open);
	}
	if (out_open || dg_open)
		kill(o->pid, SIGKILL);
	while (waitpid(o->pid, &ws, 0) < 0 && errno == EINTR)
		;
	o->status = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
	while (tty_open) {
		bool before = tty_open;
		size_t len = o->tty.len;

		drain(t->master, &o->tty, &tty_open);
		if (before && o->tty.len == len)
			break;
	}
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], "HOME=", 5) == 0)
			free(env[i]);
	free(env);
	close(out[0]);
	close(dg[0]);
	sbx_buf_putc(&o->out, '\0');
	o->out.len--;
	sbx_buf_putc(&o->diag, '\0');
	o->diag.len--;
	return 0;
fail:
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], "HOME=", 5) == 0)
			free(env[i]);
	free(env);
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (dg[i] >= 0)
			close(dg[i]);
	}
	return -1;
}

/* Pids of live processes whose command line holds token. */
static void
find_token_procs(const char *token, pid_t *pids, size_t max, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	*n = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && *n < max) {
		char path[64], buf[4096];
		ssize_t len;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (ssize_t i = 0; i < len; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (strstr(buf, token))
			pids[(*n)++] = (pid_t)atol(e->d_name);
	}
	closedir(d);
}

/* The whole of a (small) file; -1 when it cannot be read. */
static int
read_all(const char *path, char **data, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct sbx_buf b = { 0 };
	char buf[4096];
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && b.len < (1u << 20))
		sbx_buf_add(&b, buf, (size_t)n);
	if (n < 0) {
		sbx_buf_free(&b);
		return -1;
	}
	*len = b.len;
	sbx_buf_putc(&b, '\0');
	*data = sbx_buf_steal(&b);
	return 0;
}

static bool
has_xattr(const char *path, const char *name)
{
	char v[64];

	return lgetxattr(path, name, v, sizeof(v)) >= 0;
}

static bool
file_has(const char *path, const char *needle)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static bool
is_kind(const char *dir, const char *name, mode_t kind)
{
	_cleanup_free_ char *p = sbx_path_join(dir, name);
	struct stat st;

	return lstat(p, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

static void
judge_home_run(struct selftest *t, struct sbx_st_report *r, struct outcome *o)
{
	const char *out = o->out.data ? o->out.data : "";
	_cleanup_free_ char *marker = sbx_path_join(t->outside, "marker");
	_cleanup_free_ char *xattr = sbx_path_join(t->home, ST_XATTR);
	_cleanup_free_ char *leak = sbx_path_join(t->outside, "leaked");
	char tty[64];
	ssize_t n;
	pid_t pids[16];
	size_t np = 0;

	sbx_st_judge_host(sbx_st_find(r, "write-outside"), out, access(marker, F_OK) == 0,
	    "the marker was created outside the workdir");
	for (size_t i = 0; i < t->decoys.n; i++) {
		_cleanup_free_ char *id = sbx_xasprintf("read:~/%s", t->decoys.v[i]);

		sbx_st_judge_host(sbx_st_find(r, id), out, strstr(out, t->tokens.v[i]) != NULL,
		    "the decoy's content came back");
	}
	for (size_t i = 0; i < t->system.n; i++) {
		_cleanup_free_ char *id = sbx_xasprintf("read:%s", t->system.v[i]);
		_cleanup_free_ char *said = NULL;
		struct sbx_st_row *row = sbx_st_find(r, id);
		_cleanup_free_ char *data = NULL;
		size_t len = 0;
		bool got;

		if (sbx_st_outcome_of(out, id, &said) == SBX_ST_DONE && said) {
			if (read_all(t->system.v[i], &data, &len) == 0) {
				/* The host's own checksum of the real file. */
				_cleanup_free_ char *sum =
				    sbx_xasprintf("%u %zu", sbx_st_cksum(data, len), len);

				got = strcmp(said, sum) == 0 && len > 0;
			} else {
				/* The caller cannot read it: neither can the
				 * sandbox, unless it read something. */
				got = strcmp(said, "4294967295 0") != 0;
			}
		} else {
			got = false;
		}
		sbx_st_judge_host(row, out, got, "the real file's checksum came back");
	}
	sbx_st_judge_host(sbx_st_find(r, "bare-repo"), out,
	    is_kind(t->home, "HEAD", S_IFREG) && is_kind(t->home, "objects", S_IFDIR) &&
		is_kind(t->home, "refs", S_IFDIR) && is_kind(t->home, "config", S_IFREG),
	    "HEAD, objects/, refs/ and config are still at the workdir's top");
	sbx_st_judge_host(sbx_st_find(r, "loopback"), out, reached(&t->loopback),
	    "the host loopback listener got a connection");
	if (t->iface.fd >= 0)
		sbx_st_judge_host(sbx_st_find(r, "interface"), out, reached(&t->iface),
		    "the listener on the host's interface got a connection");
	sbx_st_judge_host(sbx_st_find(r, "fastopen"), out, reached(&t->fastopen),
	    "the Fast Open listener got a connection");
	sbx_st_judge_host(sbx_st_find(r, "abstract"), out, reached(&t->abstract),
	    "the host's abstract socket got a connection");
	n = read(t->slave, tty, sizeof(tty));
	sbx_st_judge_host(
	    sbx_st_find(r, "tiocsti"), out, n > 0, "a byte was pushed into the terminal's input");
	{
		bool changed = !file_has(leak, t->leak_token);

		sbx_st_judge_host(sbx_st_find(r, "leaked-fd"), out,
		    changed || strstr(out, t->leak_token) != NULL,
		    changed ? "the leaked file was written through the descriptor"
			    : "the leaked file's content came back");
	}
	sbx_st_judge_host(sbx_st_find(r, "xattr-cap"), out, has_xattr(xattr, "security.capability"),
	    "the file carries security.capability on the host");
	sbx_st_judge_host(sbx_st_find(r, "xattr-trusted"), out,
	    has_xattr(xattr, "trusted.sbxrun-selftest"),
	    "the file carries trusted.sbxrun-selftest on the host");
	sbx_st_judge_host(sbx_st_find(r, "xattr-security"), out,
	    has_xattr(xattr, "security.sbxrun-selftest"),
	    "the file carries security.sbxrun-selftest on the host");
	for (const char *const *id = (const char *const[]){ "userns", "mount", "io_uring", "mptcp",
		 "mptcp-high", "int80", "exe-write", "ptrace", NULL };
	     *id; id++)
		sbx_st_judge_payload(sbx_st_find(r, *id), out);
	/* The daemon must be gone once sbxrun is: the kernel may still be
	 * tearing the tree down for a moment, so look a few times. */
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { .tv_nsec = 20000000 };

		find_token_procs(t->linger, pids, SBX_ARRAY_LEN(pids), &np);
		if (np == 0)
			break;
		nanosleep(&ts, NULL);
	}
	sbx_st_judge_host(sbx_st_find(r, "linger"), out, np > 0,
	    "a process of the run was still alive after sbxrun exited");
	for (size_t i = 0; i < np; i++)
		kill(pids[i], SIGKILL);
}

static void
add_rows(struct selftest *t, struct sbx_st_report *r)
{
	sbx_st_add(r, "write-outside", "write outside the workdir", SBX_ST_BY_HOST);
	for (size_t i = 0; i < t->decoys.n; i++) {
		_cleanup_free_ char *id = sbx_xasprintf("read:~/%s", t->decoys.v[i]);
		_cleanup_free_ char *title = sbx_xasprintf("read ~/%s (decoy)", t->decoys.v[i]);

		sbx_st_add(r, id, title, SBX_ST_BY_HOST);
	}
	for (size_t i = 0; i < t->system.n; i++) {
		_cleanup_free_ char *id = sbx_xasprintf("read:%s", t->system.v[i]);
		_cleanup_free_ char *title = sbx_xasprintf("read %s", t->system.v[i]);

		sbx_st_add(r, id, title, SBX_ST_BY_HOST);
	}
	sbx_st_add(r, "bare-repo", "bare repository at the workdir top", SBX_ST_BY_HOST);
	sbx_st_add(r, "loopback", "host loopback listener", SBX_ST_BY_HOST);
	if (t->iface.fd >= 0)
		sbx_st_add(r, "interface", "host interface address", SBX_ST_BY_HOST);
	else
		sbx_st_skip(sbx_st_add(r, "interface", "host interface address", SBX_ST_BY_HOST),
		    "no interface with an IPv4 address is up");
	sbx_st_add(r, "fastopen", "TCP Fast Open to a host listener", SBX_ST_BY_HOST);
	sbx_st_add(r, "abstract", "host abstract unix socket", SBX_ST_BY_HOST);
	sbx_st_add(r, "tiocsti", "TIOCSTI into the terminal", SBX_ST_BY_HOST);
	sbx_st_add(r, "userns", "nested user namespace", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "mount", "mount a tmpfs", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "ptrace", "ptrace sbxrun", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "io_uring", "io_uring_setup", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "mptcp", "MPTCP socket", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "mptcp-high", "MPTCP, high bits in protocol", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "int80", "32-bit syscall (int 0x80)", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "leaked-fd", "use a leaked host descriptor", SBX_ST_BY_HOST);
	sbx_st_add(r, "exe-write", "open /proc/PID/exe for writing", SBX_ST_BY_PAYLOAD);
	sbx_st_add(r, "xattr-cap", "file capability (security.capability)", SBX_ST_BY_HOST);
	sbx_st_add(r, "xattr-trusted", "trusted.* xattr", SBX_ST_BY_HOST);
	sbx_st_add(r, "xattr-security", "security.* xattr", SBX_ST_BY_HOST);
	sbx_st_add(r, "linger", "outlive sbxrun (daemon)", SBX_ST_BY_HOST);
	sbx_st_add(r, "git-hooks", "chmod .git/hooks", SBX_ST_BY_HOST);
	sbx_st_add(r, "signal", "signal sbxrun (SIGTERM)", SBX_ST_BY_HOST);
}

/* A run that sbxrun refused before anything ran. */
static int
jail_failed(const struct outcome *o, struct sbx_err *err)
{
	_cleanup_free_ char *msg = sbx_st_json_field(o->diag.data, "error");

	return sbx_err_set(err, EPERM, "the jail could not be built: %s",
	    msg ? msg : "sbxrun exited with status 125 and no diagnostics line");
}

int
sbx_selftest_run(
    const struct sbx_policy *p, int verbose, struct sbx_st_report *r, struct sbx_err *err)
{
	struct selftest t = { .loopback.fd = -1,
		.iface.fd = -1,
		.fastopen.fd = -1,
		.abstract.fd = -1,
		.leak_fd = -1,
		.master = -1,
		.slave = -1 };
	struct outcome a = { 0 }, b = { 0 };
	uint64_t start = sbx_now_ms();
	_cleanup_free_ char *hooks = NULL, *hook = NULL;
	struct stat st;
	int rc = -1;

	(void)verbose;
	if (setup(&t, err) < 0)
		goto out;
	add_rows(&t, r);

	{
		struct sbx_st_script s = {
			.payload = NULL,
			.outside = t.outside,
			.home = t.home,
			.decoys = &t.decoys,
			.system = &t.system,
			.loopback = t.loopback.where,
			.iface = t.iface.where,
			.fastopen = t.fastopen.where,
			.abstract = t.abstract.where,
			.linger = t.linger,
			.bare_repo = true,
			.syscalls = true,
		};
		_cleanup_free_ char *pl = sbx_path_join(t.home, ST_PAYLOAD);

		s.payload = pl;
		if (run_jail(&t, p, t.home, &s, &a, err) < 0)
			goto out;
	}
	if (a.status == 125) {
		jail_failed(&a, err);
		goto out;
	}
	r->backend = sbx_st_json_field(a.diag.data, "backend");
	r->isolation = sbx_st_json_field(a.diag.data, "isolation");
	judge_home_run(&t, r, &a);
	if (a.status != 0)
		sbx_strv_push_take(
		    &r->warnings, sbx_xasprintf("the first run ended with status %d", a.status));

	{
		struct sbx_st_script s = {
			.home = t.home,
			.git_hooks = true,
			.signal_parent = true,
		};
		_cleanup_free_ char *pl = sbx_path_join(t.repo, ST_PAYLOAD);

		s.payload = pl;
		if (run_jail(&t, p, t.repo, &s, &b, err) < 0)
			goto out;
	}
	if (b.status == 125) {
		jail_failed(&b, err);
		goto out;
	}
	hooks = sbx_path_join(t.repo, ".git/hooks");
	hook = sbx_path_join(t.repo, ".git/hooks/pre-commit");
	{
		const char *out = b.out.data ? b.out.data : "";
		bool hooks_changed = stat(hooks, &st) < 0 || (st.st_mode & 07777) != 0755;
		bool hook_changed = stat(hook, &st) < 0 || (st.st_mode & 07777) != 0644;

		sbx_st_judge_host(sbx_st_find(r, "git-hooks"), out, hooks_changed || hook_changed,
		    "the mode of .git/hooks or of a hook changed on the host");
		sbx_st_judge_host(sbx_st_find(r, "signal"), out, b.status == 143,
		    "sbxrun was terminated by the sandbox's signal (status 143)");
	}
	r->elapsed_ms = sbx_now_ms() - start;
	rc = 0;
out:
	outcome_free(&a);
	outcome_free(&b);
	st_free(&t);
	return rc;
}
