/* Measuring what the Linux backends need, by doing it once in a throwaway
 * child. Container runtimes take away single calls (Docker's default
 * seccomp profile answers EPERM to pidfd_getfd and process_vm_readv) or
 * single steps (their masked /proc paths forbid a fresh proc mount in a
 * user namespace), so "can make a user namespace" or "Landlock is there"
 * says too little: each step a real run takes is tried here, and the
 * first that fails is named. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "linux-probe.h"

/* The probe child is killed when it takes longer than this: a runtime
 * that hangs a call must not hang sbxrun. */
#define PROBE_DEADLINE_MS 2000

/* Read back from the child by address: fork keeps the layout. */
static volatile char probe_marker[16] = "sbxrun-probe";

/* Reads the child's one-line verdict ("" for success) until the deadline,
 * then kills and reaps it. Returns 0 with msg filled, -1 on timeout. */
static int
collect(pid_t pid, int fd, char *msg, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	int r = -1;

	msg[0] = '\0';
	for (;;) {
		ssize_t n;
		int p = poll(&pfd, 1, PROBE_DEADLINE_MS);

		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			break; /* the deadline */
		n = read(fd, msg + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = 0;
			break;
		}
		got += (size_t)n;
		if (got == len - 1) {
			r = 0;
			break;
		}
	}
	msg[got] = '\0';
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(fd);
	return r;
}

static noreturn void
say_fail(int fd, const char *step)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%s: %s", step, strerror(errno));

	if (write(fd, buf, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

static int
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* In the probe child: the namespaces, maps and mounts a jail is built
 * from, in the order the backend makes them; the fresh /proc is mounted
 * by the first process of the new pid namespace, as the jail's init
 * does. */
static noreturn void
ns_child(int fd, bool root, bool net)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	pid_t pid;
	int st;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* A root caller's jail gets clones of the host's trees. */
	if (root) {
		int t =
		    open_tree(AT_FDCWD, "/usr", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

		if (t < 0 && errno != ENOENT)
			say_fail(fd, "cannot clone the mount tree of /usr");
		if (t >= 0)
			close(t);
	}
	if (unshare(CLONE_NEWUSER) < 0)
		say_fail(fd, "cannot create a user namespace");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		say_fail(fd, "cannot write the uid map");
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		say_fail(fd, "cannot deny setgroups");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		say_fail(fd, "cannot write the gid map");
	if (unshare(CLONE_NEWNS) < 0)
		say_fail(fd, "cannot create a mount namespace");
	if (unshare(CLONE_NEWPID) < 0)
		say_fail(fd, "cannot create a pid namespace");
	if (unshare(CLONE_NEWIPC) < 0)
		say_fail(fd, "cannot create an ipc namespace");
	if (unshare(CLONE_NEWUTS) < 0)
		say_fail(fd, "cannot create a uts namespace");
	if (unshare(CLONE_NEWCGROUP) < 0)
		say_fail(fd, "cannot create a cgroup namespace");
	if (net && unshare(CLONE_NEWNET) < 0)
		say_fail(fd, "cannot create a network namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		say_fail(fd, "cannot make the mount namespace private");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		say_fail(fd, "cannot mount a tmpfs");
	if (mkdir("/tmp/usr", 0755) < 0 || mkdir("/tmp/proc", 0755) < 0 ||
	    close(open("/tmp/null", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		say_fail(fd, "cannot make entries in a tmpfs");
	if (mount("/dev/null", "/tmp/null", NULL, MS_BIND, NULL) < 0)
		say_fail(fd, "cannot bind /dev/null");
	{
		struct stat sb;
		const char *sys = stat("/usr", &sb) == 0 ? "/usr" : "/bin";

		if (mount(sys, "/tmp/usr", NULL, MS_BIND | MS_REC, NULL) < 0)
			say_fail(fd, "cannot bind the system directories");
		if (mount(NULL, "/tmp/usr", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID,
			NULL) < 0)
			say_fail(fd, "cannot make a bind mount read-only");
	}
	pid = fork();
	if (pid < 0)
		say_fail(fd, "cannot fork into the pid namespace");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (mount("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			say_fail(fd, "cannot mount a fresh /proc");
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

int
sbx_probe_namespaces(struct sbx_caps *caps, bool net, struct sbx_err *err)
{
	int fds[2];
	pid_t pid;

	pid = sbx_fork_piped(fds, err);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		ns_child(fds[1], caps->caller_uid == 0, net);
	}
	close(fds[1]);
	caps->probed_userns = true;
	if (collect(pid, fds[0], caps->userns_why, sizeof(caps->userns_why)) < 0)
		snprintf(caps->userns_why, sizeof(caps->userns_why),
		    "making the namespaces took longer than %d ms", PROBE_DEADLINE_MS);
	caps->userns = caps->userns_why[0] == '\0';
	if (!caps->userns)
		return sbx_err_set(err, SBX_EUNAVAIL, "%s", caps->userns_why);
	return 0;
}

/* In the parent, with a fresh child of ours waiting on fd ctl: what the
 * supervisor does to a sandbox process. */
static void
try_supervision(struct sbx_caps *caps, pid_t pid, int ctl)
{
	char buf[sizeof(probe_marker)], path[64];
	struct iovec local = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iovec remote = { .iov_base = (void *)probe_marker, .iov_len = sizeof(buf) };
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int fd, mem;

	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, ctl, 0);
	caps->pidfd_getfd = fd >= 0;
	if (fd < 0)
		snprintf(caps->pidfd_getfd_why, sizeof(caps->pidfd_getfd_why),
		    "cannot take a descriptor from a child (pidfd_getfd): %s", strerror(errno));
	else
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	caps->vm_readv = process_vm_readv(pid, &local, 1, &remote, 1, 0) == sizeof(buf) &&
	    memcmp(buf, (const char *)probe_marker, sizeof(buf)) == 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	caps->proc_mem = mem >= 0 &&
	    pread(mem, buf, sizeof(buf), (off_t)(uintptr_t)probe_marker) == sizeof(buf) &&
	    memcmp(buf, (const char *)probe_marker, sizeof(buf)) == 0;
	if (!caps->vm_readv && !caps->proc_mem)
		snprintf(caps->mem_why, sizeof(caps->mem_why),
		    "cannot read a child's memory (process_vm_readv or /proc/PID/mem): %s",
		    strerror(errno));
	if (mem >= 0)
		close(mem);
}

/* A real run's check: the same calls tried on sbxrun itself, which costs
 * no process. A seccomp filter (how container runtimes take these calls
 * away) refuses them whatever the target; the ptrace relation to a real
 * sandbox process is then met when the run takes its listener and reads
 * its memory, and a failure there ends the spawn before the command. */
static void
try_supervision_self(struct sbx_caps *caps)
{
	char buf[sizeof(probe_marker)];
	struct iovec local = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iovec remote = { .iov_base = (void *)probe_marker, .iov_len = sizeof(buf) };
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);

	caps->pidfd_getfd = fd >= 0;
	if (fd < 0)
		snprintf(caps->pidfd_getfd_why, sizeof(caps->pidfd_getfd_why),
		    "cannot take a descriptor of a process (pidfd_getfd): %s", strerror(errno));
	else
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	caps->vm_readv = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof(buf);
	caps->proc_mem = false;
	if (!caps->vm_readv) {
		int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

		caps->proc_mem = mem >= 0 &&
		    pread(mem, buf, sizeof(buf), (off_t)(uintptr_t)probe_marker) == sizeof(buf);
		if (!caps->proc_mem)
			snprintf(caps->mem_why, sizeof(caps->mem_why),
			    "cannot read a process's memory (process_vm_readv or "
			    "/proc/PID/mem): %s",
			    strerror(errno));
		if (mem >= 0)
			close(mem);
	}
}

int
sbx_probe_supervision(struct sbx_caps *caps, struct sbx_err *err)
{
	int fds[2];
	pid_t pid;
	char c;

	if (caps->probed_sup)
		return 0;
	if (!caps->full_probe) {
		try_supervision_self(caps);
		caps->probed_sup = true;
		return 0;
	}
	pid = sbx_fork_piped(fds, err);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Waits for the parent; fds[0] is what it takes. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		close(fds[1]);
		alarm(PROBE_DEADLINE_MS / 1000 + 1);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	try_supervision(caps, pid, fds[0]);
	close(fds[0]);
	close(fds[1]);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	caps->probed_sup = true;
	return 0;
}
