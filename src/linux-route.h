/* Whether the kernel delivers traffic to an address on this machine, as
 * its routing table says (doc/design/network.md, "Pitfalls that shaped
 * the code"). */
#pragma once

#include <sys/socket.h>

/* 1 when the route the kernel would take to sa (in the calling thread's
 * network namespace) is local, anycast, broadcast or multicast: what is
 * sent there reaches this machine's own services, whether or not the
 * address is assigned to an interface (an IPv6 subnet-router anycast
 * address on a forwarding host, a "local" route of a whole prefix).
 * 0 for any other route, or none. -1 when the table could not be asked
 * (errno). An IPv4-mapped IPv6 address is looked up as IPv4. */
int sbx_route_is_local(const struct sockaddr *sa, socklen_t len);
