/* Decoding what a trapped call points at in the sandbox's memory: message
 * headers, their iovecs and control messages, sendmmsg arrays, socket
 * addresses. Every length read from the sandbox is bounded against the
 * buffer it describes, or against the kernel's own limit, before it is
 * used; a value the kernel would refuse is refused with the kernel's
 * errno. Pure: no syscalls. Memory is read through a caller-supplied
 * fetch function (process_vm_readv in the supervisor, a byte buffer in the
 * unit tests and the fuzzer), descriptors are taken through a callback.
 * See doc/design/decoding.md. */
#ifndef SBX_NOTIFYDECODE_H
#define SBX_NOTIFYDECODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bounds on what is copied out of the sandbox for one call. */
#define SBX_DECODE_MAX_PAYLOAD (16u << 20) /* bytes of data, all iovecs */
#define SBX_DECODE_MAX_IOV 1024 /* the kernel's UIO_MAXIOV */
#define SBX_DECODE_MAX_CONTROL 65536 /* bytes of control messages */
#define SBX_DECODE_MAX_MMSG 1024 /* sendmmsg: the kernel caps vlen here */
#define SBX_DECODE_MAX_RIGHTS 253 /* the kernel's SCM_MAX_FD per message */

/* Copies len bytes of the sandbox's memory at addr into buf: 0, or -1
 * when the range is not readable. Never called with len 0. */
typedef int (*sbx_fetch_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct sbx_fetch {
	sbx_fetch_fn fn;
	void *ctx;
};

/* Takes the sandbox's descriptor fd and returns a number of ours for the
 * same file (the caller owns and records it), or -errno (EBADF,
 * ETOOMANYREFS: sbxrun holds too many already). */
typedef int (*sbx_take_fn)(void *ctx, int fd);

/* Copies the struct msghdr at addr and everything it points at (name,
 * iovecs and their data, control buffer) into *out, whose pointers are
 * then ours (free with sbx_decode_msghdr_free, also after a failure).
 * The name length is cut to a sockaddr_storage as the kernel does.
 * Returns 0, or -errno: EFAULT (unreadable), EMSGSIZE (more than
 * SBX_DECODE_MAX_IOV iovecs or SBX_DECODE_MAX_PAYLOAD bytes), EINVAL (a
 * negative name or iovec length), ENOBUFS (a control buffer over
 * SBX_DECODE_MAX_CONTROL). */
int sbx_decode_msghdr(const struct sbx_fetch *f, uint64_t addr, struct msghdr *out);

/* Frees what sbx_decode_msghdr allocated into m and clears it. */
void sbx_decode_msghdr_free(struct msghdr *m);

/* Copies the sendmmsg array of vlen messages at addr (vlen cut to
 * SBX_DECODE_MAX_MMSG as the kernel does) into a new array *out of *n
 * entries (free with sbx_decode_mmsg_free, also after a failure). The
 * messages share one call's SBX_DECODE_MAX_PAYLOAD and
 * SBX_DECODE_MAX_CONTROL: the first that does not fit, or cannot be
 * copied, ends the array there (*n messages are sent and counted, as the
 * kernel counts those before a failing one). Returns 0, or -errno as
 * sbx_decode_msghdr when the first message cannot be copied. */
int sbx_decode_mmsg(
    const struct sbx_fetch *f, uint64_t addr, uint64_t vlen, struct mmsghdr **out, unsigned *n);

void sbx_decode_mmsg_free(struct mmsghdr *v, unsigned n);

/* Checks the control messages of our copy m as the kernel's CMSG_OK does
 * (each header within the buffer, cmsg_len at least a header and not past
 * the buffer's end) and replaces each descriptor of an SCM_RIGHTS message
 * by take's number for it, in place. Returns 0, or -errno: EINVAL (a
 * malformed header, more than SBX_DECODE_MAX_RIGHTS descriptors), EPERM
 * (SCM_CREDENTIALS: credentials are not passed on someone's behalf; an
 * IPv6 routing header: the datagram would go elsewhere first), or take's
 * error. */
int sbx_decode_rights(struct msghdr *m, sbx_take_fn take, void *ctx);

/* Copies the address of len bytes at addr (a register-passed length, as
 * connect, bind and sendto take) into *ss and *sslen. len 0 leaves
 * *sslen 0. Returns 0, -EINVAL (longer than a sockaddr_storage, as the
 * kernel's move_addr_to_kernel says) or -EFAULT. */
int sbx_decode_addr(const struct sbx_fetch *f, uint64_t addr, uint64_t len,
    struct sockaddr_storage *ss, socklen_t *sslen);

/* Whether the address sa of len bytes, given for a socket of the family
 * domain, is one the kernel would use: 0; -EINVAL when it is shorter than
 * its family's address (or longer than a sockaddr_storage); -EAFNOSUPPORT
 * when its family is not the socket's. AF_UNSPEC passes (a disconnect). */
int sbx_decode_sockaddr(int domain, const void *sa, size_t len);

/* The path of the unix address sa (len bytes), NUL-terminated into buf of
 * size bytes: 1; 0 for an abstract name; -1 when malformed (too short,
 * not AF_UNIX, longer than sun_path, or not fitting buf). */
int sbx_decode_unix_path(const void *sa, size_t len, char *buf, size_t size);

#endif
