/* Reaching the process a seccomp notification names (linux-notify.c):
 * shared by the network, metadata and name supervisors and the trace, so
 * that none of them includes another. Every call runs with the calling
 * thread's rights: the caller checks the notification is still live
 * (SECCOMP_IOCTL_NOTIF_ID_VALID) after using what they return. */
#ifndef SBX_LINUX_NOTIFY_H
#define SBX_LINUX_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

/* Helpers shared by the handlers of trapped calls: a copy of the caller's
 * descriptor fd (through a pidfd of the calling thread), and a copy of len
 * bytes of its memory at addr. */
int sbx_notify_take_fd(int pid, int fd);

/* Closes the pidfd sbx_notify_take_fd() keeps for the calling thread's
 * next call; a thread that took descriptors calls it before it ends. */
void sbx_notify_forget(void);

int sbx_notify_peek(int pid, uint64_t addr, void *buf, size_t len);

/* Where pidfd_getfd() is refused: an O_PATH descriptor of the file behind
 * the caller's fd (through /proc/PID/fd, not the caller's open file), or
 * -1. Enough to judge and change metadata, not to act on a socket. */
int sbx_notify_reopen_fd(int pid, int fd);

/* The thread group id of thread pid (what /proc/self names for it), or
 * -1. */
int sbx_notify_tgid(int pid);

struct seccomp_notif;
struct seccomp_notif_resp;

/* A notification and a response buffer as large as the running kernel's
 * (one SECCOMP_GET_NOTIF_SIZES), zeroed; 0, or -1
 * with errno. What seccomp_notify_alloc() gives, without libseccomp's
 * probing of the kernel's API level (about ten seccomp(2) calls), which
 * sbxrun's precomputed filters otherwise never trigger. Freed with
 * free(). */
int sbx_notify_alloc(struct seccomp_notif **req, struct seccomp_notif_resp **resp);

/* The caller's memory, opened for writing (/proc/PID/mem; close-on-exec),
 * or -1. Opened while the notification is checked to be pending, the
 * descriptor reaches that caller's memory and no other: a pid used again
 * later is another process, and a write after the caller is gone fails. */
int sbx_notify_mem_open(int pid);

/* Writes len bytes at addr through mem (sbx_notify_mem_open()): a result
 * the caller expects there, such as sendmmsg's msg_len. */
int sbx_notify_poke(int mem, uint64_t addr, const void *buf, size_t len);

#endif
