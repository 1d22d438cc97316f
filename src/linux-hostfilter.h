/* A second seccomp filter, for jails that share the host's namespaces
 * (the landlock backend): what a network, IPC or user namespace would
 * keep apart, and what Landlock does not cover, is refused here instead.
 * It is stacked on top of the common filter of linux-seccomp.c. */
#ifndef SBX_LINUX_HOSTFILTER_H
#define SBX_LINUX_HOSTFILTER_H

#include "err.h"
#include "util.h"

/* No socket at all (the network is fully off): socket() for every
 * family, and socketpair() of datagram sockets. */
#define SBX_HOSTF_NOSOCKET 0x1u
/* No System V IPC and no POSIX message queues: without an IPC namespace
 * they are the host's objects. */
#define SBX_HOSTF_NOIPC 0x2u
/* No set-user-ID or set-group-ID bit on any file the sandbox creates or
 * changes: such a file, left on the host, runs as its owner for anyone. */
#define SBX_HOSTF_NOSETID 0x4u
/* The network fully off, but the sandbox's own loopback served (landlock
 * backend, with the network calls trapped): IPv4 and IPv6 sockets only,
 * no unix socket, no datagram socketpair. */
#define SBX_HOSTF_INETONLY 0x8u

/* Loads the filter for the rules in what into the calling thread; needs
 * no_new_privs. */
int sbx_hostfilter_load(unsigned what, struct sbx_err *err);

/* The host filter for what, built and not loaded (a scmp_filter_ctx the
 * caller releases), or NULL with err. */
void *sbx_hostfilter_filter(unsigned what, struct sbx_err *err);

/* The filter in words, one rule per line, for --print-backend. */
void sbx_hostfilter_describe(unsigned what, struct sbx_buf *out);

#endif
