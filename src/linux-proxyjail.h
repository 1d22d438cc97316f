/* The walls around the allowlist proxy's helper process: what a process
 * that parses the sandbox's HTTP may still do (see doc/design/proxy.md).
 * The helper calls sbx_proxyjail_enter() once, single-threaded, after it
 * has closed every descriptor it does not need. */
#ifndef SBX_LINUX_PROXYJAIL_H
#define SBX_LINUX_PROXYJAIL_H

#include "err.h"
#include "policy.h"

/* Confines the calling process for good, in this order: the resolver is
 * pinned to files and DNS; for a root caller every id becomes 65534 with
 * no supplementary group; every capability is dropped and no_new_privs
 * set; a Landlock domain lets it read only the resolver's files, bind no
 * TCP port and connect only to the ports in connect (NULL: any port),
 * and signal or reach abstract sockets only inside itself; a seccomp
 * filter allows only the calls the proxy makes. The process must be
 * single-threaded: credentials, Landlock and seccomp are per thread. */
int sbx_proxyjail_enter(const struct sbx_ports *connect, struct sbx_err *err);

#endif
