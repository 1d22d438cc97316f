/* Holds one system call of a command until a test says go, for the race
 * tests (tests/integration/attack-lendrace.sh, attack-tmpdir-swap.sh):
 *
 *	holdcall [-x] -s SYSCALL -m PATTERN [-m PATTERN]... -H HELD -g GO
 *	    [-t SECONDS] -- COMMAND [ARG]...
 *
 * Runs COMMAND traced, with every process and thread it starts. The first
 * call of SYSCALL (fchownat, mkdirat, newfstatat, openat, openat2, read,
 * sendto, statx, unlinkat, write) whose description matches a PATTERN
 * (fnmatch(3), `*`
 * crossing `/`) is stopped at its entry, or with -x once it has returned,
 * and held: HELD is written with the description, and the call goes on
 * only when the file GO exists, or after SECONDS (default 120), which
 * counts as a missed hold.
 * Every other call of every process runs on meanwhile.
 *
 * A description is the call's first argument as a descriptor's path
 * (/proc/PID/fd/N, or the working directory for AT_FDCWD), its second as a
 * string, its third and fourth as numbers, separated by `|`:
 * fchownat(fd of /w/D/x, "", 65534, 65534, ...) is "/w/D/x||65534|65534".
 * read's, sendto's and write's second argument is a buffer: its
 * description leaves it empty (read(fd of /w/in, buf, 65536) is
 * "/w/in||65536|ADDRESS"; a pipe's path is "pipe:[INODE]", a socket's
 * "socket:[INODE]", and sendto's fourth argument its flags).
 *
 * The exit status is COMMAND's (128 + the signal that ended it), or 3 when
 * no call was held or GO never came. A pause that ends when the test says
 * so, not when a clock does, keeps a race test's outcome independent of
 * how busy the machine is: a delay of fixed length (strace's inject) lets
 * a slow attacker miss the window. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATTERNS 8
#define MAX_TRACEES 1024

static const struct {
	const char *name;
	long nr;
	int buffer; /* the second argument is a buffer, not a string */
} calls[] = {
	{ "fchownat", SYS_fchownat, 0 },
	{ "mkdirat", SYS_mkdirat, 0 },
	{ "newfstatat", SYS_newfstatat, 0 },
	{ "openat", SYS_openat, 0 },
	{ "openat2", SYS_openat2, 0 },
	{ "read", SYS_read, 1 },
	{ "sendto", SYS_sendto, 1 },
	{ "statx", SYS_statx, 0 },
	{ "unlinkat", SYS_unlinkat, 0 },
	{ "write", SYS_write, 1 },
};

static const char *patterns[MAX_PATTERNS];
static int n_patterns;

/* Tracees seen, and which one must be held when its call returns. */
static pid_t seen[MAX_TRACEES];
static int n_seen;
static pid_t hold_at_exit = -1;

static int
was_seen(pid_t pid)
{
	for (int i = 0; i < n_seen; i++)
		if (seen[i] == pid)
			return 1;
	if (n_seen < MAX_TRACEES)
		seen[n_seen++] = pid;
	return 0;
}

static void
fd_path(pid_t pid, long long fd, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	if ((int)fd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, (int)fd);
	n = readlink(link, out, len - 1);
	out[n < 0 ? 0 : n] = '\0';
}

/* The string at ADDR in PID's memory, at most LEN - 1 bytes, read a byte
 * at a time once a larger read fails (it may cross into an unmapped page). */
static void
read_string(pid_t pid, unsigned long long addr, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	size_t i;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = pread(fd, out, len - 1, (off_t)addr);
	if (n > 0) {
		out[n] = '\0';
	} else {
		for (i = 0; i < len - 1; i++)
			if (pread(fd, out + i, 1, (off_t)(addr + i)) != 1 || out[i] == '\0')
				break;
		out[i] = '\0';
	}
	close(fd);
}

static int
matches(const char *desc)
{
	for (int i = 0; i < n_patterns; i++)
		if (fnmatch(patterns[i], desc, 0) == 0)
			return 1;
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: holdcall [-x] -s SYSCALL -m PATTERN... -H HELD -g GO"
	    " [-t SECONDS] -- COMMAND [ARG]...\n");
	exit(2);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const char *held = NULL, *go = NULL;
	long nr = -1;
	int at_exit = 0, opt, status, cmd_status = 3, missed = 1, buffer_arg = 0;
	double limit = 120, deadline = 0;
	pid_t child, held_pid = -1;

	while ((opt = getopt(argc, argv, "+xs:m:H:g:t:")) != -1) {
		switch (opt) {
		case 'x': at_exit = 1; break;
		case 's':
			for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
				if (strcmp(optarg, calls[i].name) == 0) {
					nr = calls[i].nr;
					buffer_arg = calls[i].buffer;
				}
			if (nr < 0) {
				fprintf(stderr, "holdcall: unknown system call %s\n", optarg);
				return 2;
			}
			break;
		case 'm':
			if (n_patterns == MAX_PATTERNS)
				usage();
			patterns[n_patterns++] = optarg;
			break;
		case 'H': held = optarg; break;
		case 'g': go = optarg; break;
		case 't': limit = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	if (nr < 0 || n_patterns == 0 || held == NULL || go == NULL || optind >= argc)
		usage();

	child = fork();
	if (child < 0) {
		perror("holdcall: fork");
		return 2;
	}
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(126);
		raise(SIGSTOP);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "holdcall: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) {
		fprintf(stderr, "holdcall: the command did not stop\n");
		return 2;
	}
	was_seen(child);
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	    (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
	ptrace(PTRACE_SYSCALL, child, NULL, NULL);

	for (;;) {
		int sig = 0;
		pid_t pid;

		/* While a call is held, the others are served without blocking
		 * and GO is looked for every 5 ms. */
		pid = waitpid(-1, &status, __WALL | (held_pid > 0 ? WNOHANG : 0));
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: every tracee is gone */
		}
		if (pid == 0) {
			struct timespec ts = { 0, 5000000 };

			if (access(go, F_OK) == 0 || now() > deadline) {
				if (access(go, F_OK) == 0)
					missed = 0;
				ptrace(PTRACE_SYSCALL, held_pid, NULL, NULL);
				held_pid = 0; /* held once; never again */
			} else {
				nanosleep(&ts, NULL);
			}
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (pid == child)
				cmd_status = WIFEXITED(status) ? WEXITSTATUS(status)
							       : 128 + WTERMSIG(status);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;
			int hold = 0;

			memset(&info, 0, sizeof(info));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) > 0 &&
			    held_pid < 0) {
				if (info.op == PTRACE_SYSCALL_INFO_ENTRY &&
				    (long)info.entry.nr == nr) {
					char path[4096], str[4096], desc[8400];

					fd_path(
					    pid, (long long)info.entry.args[0], path, sizeof(path));
					str[0] = '\0';
					if (!buffer_arg)
						read_string(
						    pid, info.entry.args[1], str, sizeof(str));
					snprintf(desc, sizeof(desc), "%s|%s|%lld|%lld", path, str,
					    (long long)info.entry.args[2],
					    (long long)info.entry.args[3]);
					if (matches(desc)) {
						FILE *f;

						f = fopen(held, "w");
						if (f != NULL) {
							fprintf(f, "%s\n", desc);
							fclose(f);
						}
						if (at_exit)
							hold_at_exit = pid;
						else
							hold = 1;
					}
				} else if (info.op == PTRACE_SYSCALL_INFO_EXIT &&
				    pid == hold_at_exit) {
					hold = 1;
				}
			}
			if (hold) {
				held_pid = pid;
				deadline = now() + limit;
				continue; /* stays stopped until GO */
			}
		} else if (status >> 16 == 0) {
			/* A signal: the first SIGSTOP of a new tracee is its attach
			 * stop and is swallowed; any other is delivered. */
			siginfo_t si;

			sig = WSTOPSIG(status);
			if (sig == SIGSTOP && !was_seen(pid))
				sig = 0;
			/* A group stop (no signal info) is not a signal to pass on. */
			if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) != 0)
				sig = 0;
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
	if (held_pid != 0 || missed) {
		fprintf(stderr, "holdcall: %s\n",
		    held_pid < 0 ? "no call matched" : "GO never came; the call went on");
		return 3;
	}
	return cmd_status;
}
