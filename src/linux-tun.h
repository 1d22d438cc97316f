/* The jail's side of the UDP relay (doc/design/udp-relay.md): a tun
 * device in the jail's network namespace, its addresses and the default
 * routes through it. */
#ifndef SBX_LINUX_TUN_H
#define SBX_LINUX_TUN_H

#include "err.h"

/* The addresses the jail's end of the tun device takes, and its name. */
#define SBX_TUN_NAME "sbx0"
#define SBX_TUN_ADDR4 "169.254.77.1"
#define SBX_TUN_ADDR6 "fd5b:b0a7:e91c::1"

/* Makes the tun device (IFF_TUN, no packet information, non-blocking),
 * gives it SBX_TUN_ADDR4/32 and SBX_TUN_ADDR6/128 (no duplicate address
 * detection), an MTU of 65535, raises it and routes every IPv4 and IPv6
 * destination that is not the jail's own through it. Needs CAP_NET_ADMIN
 * over the calling thread's network namespace (the kernel checks it
 * against the namespace's owning user namespace): the jail's init, before
 * it drops. Returns the device's descriptor, or -1 with err. IPv6 is
 * best effort (a kernel without it still gets IPv4). */
int sbx_tun_jail_open(struct sbx_err *err);

#endif
