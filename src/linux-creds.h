/* The credentials of one thread: how a supervisor's worker thread takes
 * the sandbox's own rights before it makes any call on the sandbox's
 * behalf (see doc/design/supervisor.md).
 *
 * Everything here acts on the CALLING THREAD ONLY. Linux keeps ids,
 * capabilities, no_new_privs and seccomp filters per thread; glibc's
 * setuid/setresuid/setgroups wrappers hide that by signalling every thread
 * of the process to change too (POSIX says ids are per process). So this
 * module uses the raw system calls, and, once supervisor threads exist,
 * nothing in sbxrun may call glibc's set*id family (setuid, setgid,
 * seteuid, setegid, setreuid, setregid, setresuid, setresgid, setgroups,
 * initgroups): glibc would take the dropped threads back to whatever the
 * calling thread holds. Forked children (single-threaded) are not
 * affected. */
#ifndef SBX_LINUX_CREDS_H
#define SBX_LINUX_CREDS_H

#include <stdbool.h>

#include "err.h"

/* What every dropped thread of the supervisor (a worker, the resolver
 * relay, the UDP relay) needs for its own life, whatever it does for the
 * sandbox: its locks, its memory given back, its end. The sanitizers'
 * runtime takes down the thread's alternate signal stack at exit, and
 * aborts if it cannot. For the end of an allow list. */
#define SBX_THREAD_RUNTIME_CALLS \
	"futex", "madvise", "munmap", "exit", "sigaltstack", "rt_sigprocmask", "rt_sigreturn", \
	    "restart_syscall", "sched_yield", "clock_gettime", "getpid", "gettid"

/* Drops the calling thread, for good, to the sandbox's credentials:
 *
 *  - uid >= 0 (a root caller, whose sandbox runs as uid outside): the
 *    bounding set emptied, no supplementary groups, real, effective, saved
 *    and filesystem gid = gid and uid = uid (nothing to do, and no right
 *    to do it, in a thread made by one already dropped);
 *  - uid < 0 (an unprivileged caller, whose sandbox runs as the caller):
 *    the ids are kept, they already are the sandbox's;
 *
 * and then, in both cases, the effective, permitted, inheritable and
 * ambient capability sets emptied, no_new_privs set, and (allow not NULL)
 * a seccomp filter loaded that allows the system calls named in allow (libseccomp names,
 * NULL-terminated; names unknown here are skipped), write(2) on write_fd
 * alone (when >= 0), and fails every other with EPERM. Each step is checked; on any failure the thread is left
 * part-way and must not be used for the sandbox (fail closed). */
int sbx_creds_drop_thread(
    int uid, int gid, const char *const *allow, int write_fd, struct sbx_err *err);

/* The same, with write(2) allowed on a second descriptor as well (when
 * >= 0). */
int sbx_creds_drop_thread2(
    int uid, int gid, const char *const *allow, int write_fd, int write_fd2, struct sbx_err *err);

/* Drops the calling thread, for good, to uid and gid (>= 0: real,
 * effective, saved and filesystem; no supplementary groups; the bounding
 * set emptied; no_new_privs) keeping one capability only, CAP_SYS_PTRACE,
 * effective and permitted. For a reader of the sandbox's memory and
 * descriptors whose sandbox lives in a user namespace owned by root: a
 * thread with no capability in the initial namespace has no ptrace access
 * into it (the kernel asks for the same namespace or CAP_SYS_PTRACE over
 * it), and a thread cannot change its user namespace. The Landlock domain
 * the thread holds limits that capability to the processes of its own
 * and nested domains, the sandbox's (doc/design/supervisor.md). Checked
 * like sbx_creds_drop_thread(); on failure the thread must not be used. */
int sbx_creds_drop_thread_reader(int uid, int gid, struct sbx_err *err);

/* Whether the calling thread holds what sbx_creds_drop_thread_reader
 * left it: uid and gid alone, no groups, CAP_SYS_PTRACE alone, effective
 * and permitted. */
bool sbx_creds_thread_is_reader(int uid, int gid);

/* For such a reader: quiet empties its effective set, keeping
 * CAP_SYS_PTRACE permitted; !quiet raises it again. Every permission
 * check of the kernel reads the effective set, so a call made while quiet
 * is judged as the sandbox's own (same ids, no capability): how the
 * reader makes a send or a connect for the sandbox itself
 * (doc/design/supervisor.md). Checked with capget; -1 when the thread
 * holds anything else afterwards. */
int sbx_creds_reader_quiet(bool quiet);

/* Like sbx_creds_drop_thread, and the filter also allows the two ioctls
 * that answer a seccomp notification (SECCOMP_IOCTL_NOTIF_SEND and
 * SECCOMP_IOCTL_NOTIF_ADDFD) on notify_fd alone (when >= 0): a thread
 * that made a call for the sandbox gives it the result itself. */
int sbx_creds_drop_answering(
    int uid, int gid, const char *const *allow, int write_fd, int notify_fd, struct sbx_err *err);

/* Whether the calling thread holds no capability in any set and, for uid
 * >= 0, only uid and gid as its ids, no groups: the rights a thread
 * dropped by sbx_creds_drop_thread holds, whatever made it so. */
bool sbx_creds_thread_holds_only(int uid, int gid);

#endif
