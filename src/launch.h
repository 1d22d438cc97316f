/* The processes every Linux backend starts: an init that reaps the tree and
 * reports the payload's status, and the payload itself. Runs in children
 * only; failures there are written to a close-on-exec pipe and end the
 * process, and the parent reports them. */
#ifndef SBX_LAUNCH_H
#define SBX_LAUNCH_H

#ifdef __linux__
#include <sched.h>
#endif
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "backend.h"
#include "err.h"

enum sbx_child_fail_kind {
	SBX_FAIL_SETUP = 1, /* the jail could not be built: status 125 */
	SBX_FAIL_EXEC, /* the command could not be run: 126 or 127 */
	SBX_MSG_READY, /* init is set up; fd is for sbxrun to take */
	SBX_MSG_READY_HELD, /* the payload is set up; fd is in init's table */
};

struct sbx_child_msg {
	int kind;
	int errnum;
	int fd; /* "ready": a descriptor for the parent to take */
	int fd2; /* and a second one, or -1 */
	int fd3; /* and a third one (the UDP relay's tun device), or -1 */
	int pid; /* the process that holds them */
	char msg[SBX_ERR_MSG];
};

/* Payload-side setup run just before exec (Landlock, seccomp, dropping
 * capabilities); returns -1 with err on failure. It runs with the error
 * pipe on fd 3 and every other descriptor above 2 closed, or, in a
 * payload that shares init's descriptor table (launch.c), with the
 * table as init has it. */
/* Where the descriptor a prepare hook keeps is found when setup runs:
 * sbx_payload_kept_fd(), SBX_PAYLOAD_KEPT_FD unless the payload still
 * shares init's descriptor table then (launch.c). */
#define SBX_PAYLOAD_KEPT_FD 5

/* How many descriptors init keeps for a backend's orphaned hook. */
#define SBX_ORPHANED_FDS 4

int sbx_payload_kept_fd(void);

struct sbx_payload_hooks {
	/* Run by the payload after it entered the workdir by name and
	 * before it closes sbxrun's descriptors, so the pinned ones
	 * (resolve.h) are still open: may enter the pinned workdir with
	 * fchdir(), and may set *keep to one descriptor that setup then
	 * finds at sbx_payload_kept_fd() (close-on-exec); may be NULL. */
	int (*prepare)(void *ctx, int *keep, struct sbx_err *err);
	int (*setup)(void *ctx, struct sbx_err *err);
	/* Run by the payload after setup: may return a descriptor in *fd
	 * (a seccomp listener) for sbxrun to take with pidfd_getfd(). A
	 * payload started in init's memory shares init's descriptor table
	 * up to its exec: the listener is in init's table (init keeps it
	 * until sbxrun has taken it) and taken from init, and the payload
	 * goes on to its exec; a forked one waits until sbxrun has taken it
	 * from the payload. Launchers using it wait for that "ready" before
	 * returning. Init stays unfiltered this way, free to undo the
	 * backend's changes if sbxrun dies. */
	int (*listener)(void *ctx, int *fd, struct sbx_err *err);
	/* The payload sends that descriptor over the acknowledgement socket
	 * (SCM_RIGHTS) instead: for filters that leave sendmsg untrapped, and
	 * where pidfd_getfd() is refused (container seccomp profiles). The
	 * message holds it until sbxrun receives it, so the payload then
	 * goes on to its exec without waiting. */
	bool send_listener;
	/* The hooks allocate nothing and write no memory outside their own
	 * stack (no stdio, no libseccomp, no glibc set*id, whose broadcast to
	 * threads takes a lock in memory it shares): init may then start the
	 * payload in its own memory, on a stack of its own, suspended until
	 * the payload's exec or exit (clone with CLONE_VM | CLONE_VFORK),
	 * instead of copying its page tables with fork (launch.c). */
	bool vfork_safe;
	/* Run by init (not the payload) once the tree is gone (every
	 * process of it killed and reaped), when sbxrun died first and so
	 * cannot undo what the backend changed on the host; may be NULL.
	 * It runs before init closes the keeper's hold pipe, so before the
	 * keeper's own undo (keeper.h). Never when sbxrun lives: sbxrun
	 * closes init's life pipe only once init has sent its end message,
	 * or killed it. */
	void (*orphaned)(void *ctx);
	/* The descriptors orphaned uses (close-on-exec): init keeps them
	 * open, under their numbers, where it closes every other one of
	 * sbxrun's. */
	int orphaned_fds[SBX_ORPHANED_FDS];
	size_t norphaned_fds;
	void *ctx;
};

struct sbx_init_args {
	const struct sbx_exec *exec;
	const struct sbx_payload_hooks *hooks;
	int err_fd; /* close-on-exec, to the parent */
	int status_fd; /* the payload's wait status goes here */
	int life_fd; /* EOF when the parent is gone */
	/* The listener is sent here (send_listener), or the payload waits
	 * here until sbxrun took it (pidfd_getfd); -1: no listener. */
	int ack_fd;
	bool pid1; /* init of its own pid namespace */
	/* Set when the signals whose disposition is not the default were
	 * noted off the payload's path (bit sig - 1 of sigs_nondefault; the
	 * namespaces backend's helper, on the other CPU): the payload then
	 * resets only those. Otherwise it resets every one. */
	bool sigs_noted;
	uint64_t sigs_nondefault;
	/* exec->uid_tasks_late: the uid's task count, 8 bytes, comes on
	 * tasks_fd (a socket pair's end), read by the payload first
	 * (sbx_launch_plain()); init closes its copy of the sending end,
	 * tasks_wfd, before the payload starts, so that sbxrun's death is
	 * the payload's end of file, not a wait for ever. */
	bool tasks_late;
	int tasks_fd;
	int tasks_wfd;
};

/* Sends fd over the unix socket sock (SCM_RIGHTS, one byte of data);
 * 0, or -1 with errno. */
int sbx_send_fd(int sock, int fd);

/* Receives one descriptor sent by sbx_send_fd() (close-on-exec), or -1
 * with errno. */
int sbx_recv_fd(int sock);

/* Writes all of p to fd, retrying after EINTR; gives up on an error. */
void sbx_write_all(int fd, const void *p, size_t n);

/* Reports a failure to the parent through fd and exits the child. */
noreturn void sbx_child_fail(int fd, int kind, const struct sbx_err *err);

/* The init process: starts the payload, reaps everything, kills what is
 * left once the payload is gone (or the parent dies), writes the payload's
 * wait status to status_fd and exits. */
noreturn void sbx_init_main(const struct sbx_init_args *a);

/* Resets signal state inherited from sbxrun (blocked mask, ignored
 * dispositions) before an exec. */
void sbx_signals_reset(void);

/* sbx_signals_reset() for a process whose dispositions other than the
 * default are known: only signals set in nondefault (bit sig - 1) are
 * reset; NULL resets every one. */
void sbx_signals_reset_mask(const uint64_t *nondefault);

/* Keeps the calling thread, and every thread and process it starts, on
 * the CPU it runs on, remembering its CPU mask: the start of a jail is a
 * chain of hand-overs (sbxrun, its launcher thread, init, the payload)
 * where each one waits for the next, and a task born or woken on another,
 * idle CPU first waits for that CPU to wake up (doc/design/startup.md,
 * section 9). Does nothing where the mask holds one CPU or cannot be read.
 * Linux only; a no-op elsewhere. */
void sbx_cpu_hold(void);

/* Gives the calling thread back the mask sbx_cpu_hold() remembered (in a
 * child: the mask of the sbxrun it was started from). Init calls it just
 * before it starts the payload, which inherits the mask (doc/design/
 * startup.md, section 23). Writes no memory (the raw system call). */
void sbx_cpu_release(void);

#ifdef __linux__
/* The CPUs of the caller's own mask (the one sbx_cpu_hold() remembered,
 * or the calling thread's when it held nothing) but the one the caller
 * runs on: where work can run beside the chain of hand-overs. False when
 * there is none. */
bool sbx_cpu_others(cpu_set_t *others);
#endif

/* In the parent: waits until the payload has exec'd (EOF on err_fd) or a
 * failure message arrives. Returns 0 on exec, 1 on a command that could not
 * be run (status set to 126/127 and the message in err), -1 when the jail
 * could not be built (err filled). */
int sbx_launch_wait_exec(int err_fd, int *status, struct sbx_err *err);

/* A pipe whose ends close on exec: atomically where pipe2(2) exists, else
 * in two steps (sbxrun starts no threads before its children, so no exec
 * can slip in between). */
int sbx_pipe_cloexec(int fds[2]);

/* Makes such a pipe and forks: returns the child's pid (0 in the child),
 * or -1 with err and no pipe left open. */
pid_t sbx_fork_piped(int fds[2], struct sbx_err *err);

/* The pipes between sbxrun and a jail's init. */
struct sbx_launch_pipes {
	int err[2];
	int status[2];
	int life[2];
	int ack[2]; /* sbxrun -> payload: "listener taken" */
};

int sbx_launch_pipes_open(struct sbx_launch_pipes *lp, struct sbx_err *err);
/* In the child: closes sbxrun's ends and fills the fds of a. */
void sbx_launch_pipes_child(struct sbx_launch_pipes *lp, struct sbx_init_args *a);
/* In sbxrun: closes the child's ends and keeps ours in c. */
void sbx_launch_pipes_parent(struct sbx_launch_pipes *lp, struct sbx_child *c);
void sbx_launch_pipes_close(struct sbx_launch_pipes *lp);

/* Opens lp and forks init in a new session of its own, with a's pipe ends;
 * the child runs sbx_init_main and never returns. In sbxrun: fills c's
 * pipes and pid and returns init's pid (lp->ack[1] stays open for the
 * caller to close), or -1 with err. */
pid_t sbx_fork_session_init(
    struct sbx_launch_pipes *lp, struct sbx_init_args *a, struct sbx_child *c, struct sbx_err *err);

/* Starts init and the payload without new namespaces: init is a child
 * subreaper in a new session. Fills c. */
int sbx_launch_plain(const struct sbx_exec *x, const struct sbx_payload_hooks *hooks,
    struct sbx_child *c, struct sbx_err *err);

/* Closes sbxrun's ends of the pipes in c and runs the backend's cleanup,
 * which adds what it learnt after the run (warnings, the engine's view of
 * it) to r: the one way a backend writes into the report after its spawn
 * returned (doc/design/lifecycle.md, "The run's facts"). r is NULL when
 * the spawn itself failed: then there is no report to add to. Safe on a
 * child already closed. */
void sbx_child_close(struct sbx_child *c, struct sbx_report *r);

/* Points fds 0-2 at /dev/null (or closes them if it cannot be opened). */
void sbx_stdio_to_null(void);

/* Closes every descriptor from 3 up except those listed. */
void sbx_close_fds_except(const int *keep, size_t n);

/* Whether the launcher keeps the tree together as a child subreaper (Linux)
 * rather than as a process group (macOS). */
extern const bool sbx_launch_subreaper;

/* The signals sbxrun handles itself; blocked before any child is made. */
void sbx_signals_supervised(sigset_t *set);

#endif
