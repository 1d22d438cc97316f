/* The UDP relay of the namespaces backend's --network on mode
 * (doc/design/udp-relay.md): the jail's default routes lead to a tun
 * device whose other end this relay reads. Each UDP datagram found there
 * is sent from a host socket connected to its destination, made by the
 * relay with the sandbox's rights once the rules allowed that
 * destination; what comes back is written to the tun device as a
 * datagram from the remote. Everything else the jail routes there (TCP,
 * ICMP, fragments, IPv6 extension headers) is dropped. */
#ifndef SBX_UDPRELAY_H
#define SBX_UDPRELAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>

/* Whether a datagram to sa may leave: the same judgement as a datagram
 * the sandbox sends with an address (netsup.c). Called on the relay's
 * thread, once per flow. */
typedef bool (*sbx_udprelay_judge_fn)(void *ctx, const struct sockaddr *sa, socklen_t len);

struct sbx_udprelay_args {
	int tun_fd; /* the jail's tun device, non-blocking */
	int wake_fd; /* readable: the supervisor is stopping */
	const atomic_bool *stopping;
	int as_uid, as_gid; /* the sandbox's ids (-1: keep this thread's) */
	sbx_udprelay_judge_fn judge;
	void *ctx;
	int say_fd; /* judge writes its refusals here (-v), or -1 */
};

/* Runs the relay on the calling thread until wake_fd is readable or
 * *stopping is set. It first drops the thread for good to the sandbox's
 * credentials (linux-creds.h) with a filter of its own; -1 if it could
 * not (then it relayed nothing). Every call it makes is non-blocking,
 * but for judge's refusal lines on say_fd. */
int sbx_udprelay_run(const struct sbx_udprelay_args *a);

#endif
