/* Stub for make check-darwin: macOS has no signalfd, no sigtimedwait. */
#ifndef STUB_SIGNAL_H
#define STUB_SIGNAL_H
#include <sys/types.h>
typedef int sig_atomic_t;
typedef uint32_t sigset_t;
union sigval {
	int sival_int;
	void *sival_ptr;
};
typedef struct __siginfo {
	int si_signo;
	int si_errno;
	int si_code;
	pid_t si_pid;
	uid_t si_uid;
	int si_status;
	void *si_addr;
	union sigval si_value;
	long si_band;
	unsigned long __pad[7];
} siginfo_t;
struct sigaction {
	union {
		void (*__sa_handler)(int);
		void (*__sa_sigaction)(int, siginfo_t *, void *);
	} __sigaction_u;
	sigset_t sa_mask;
	int sa_flags;
};
#define sa_handler __sigaction_u.__sa_handler
#define sa_sigaction __sigaction_u.__sa_sigaction
#define SIG_DFL ((void (*)(int))0)
#define SIG_IGN ((void (*)(int))1)
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGKILL 9
#define SIGPIPE 13
#define SIGXFSZ 25
#define SIGALRM 14
#define SIGTERM 15
#define SIGSTOP 17
#define SIGCONT 19
#define SIGCHLD 20
#define SIGTTOU 22
#define SIGUSR1 30
#define SIGUSR2 31
#define SA_RESTART 0x0002
#define SA_NOCLDSTOP 0x0008
#define SA_SIGINFO 0x0040
#define SIG_BLOCK 1
#define SIG_UNBLOCK 2
#define SIG_SETMASK 3
int kill(pid_t, int);
int sigaction(int, const struct sigaction *restrict, struct sigaction *restrict);
int sigemptyset(sigset_t *);
int sigfillset(sigset_t *);
int sigaddset(sigset_t *, int);
int sigprocmask(int, const sigset_t *restrict, sigset_t *restrict);
#define NSIG 32
extern const char *const sys_signame[NSIG];
void (*signal(int, void (*)(int)))(int);
int sigdelset(sigset_t *, int);
int sigismember(const sigset_t *, int);
int sigpending(sigset_t *);
int sigwait(const sigset_t *restrict, int *restrict);
int pthread_sigmask(int, const sigset_t *restrict, sigset_t *restrict);
#endif
