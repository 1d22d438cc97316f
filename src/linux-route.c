#include "config.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "linux-route.h"

/* One RTM_GETROUTE request for a host route to the address (family,
 * bytes), answered with the route the kernel would take: its type. */
static int
route_type(int family, const void *addr, size_t alen)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(16)];
	} req = { 0 };
	union {
		struct nlmsghdr nh;
		char buf[4096];
	} ans;
	struct sockaddr_nl from = { 0 };
	socklen_t fromlen = sizeof(from);
	struct rtattr *ra;
	ssize_t n;
	int s, type = -1;

	req.nh.nlmsg_len = (__u32)(NLMSG_LENGTH(sizeof(req.rt)) + RTA_LENGTH(alen));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(NLMSG_LENGTH(sizeof(req.rt))));
	ra->rta_type = RTA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), addr, alen);
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -1;
	if (send(s, &req, req.nh.nlmsg_len, 0) < 0) {
		close(s);
		return -1;
	}
	do
		n = recvfrom(s, &ans, sizeof(ans), 0, (struct sockaddr *)&from, &fromlen);
	while (n < 0 && errno == EINTR);
	close(s);
	if (n < 0)
		return -1;
	/* The kernel's answer to this request, nobody else's. */
	if (fromlen < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0 ||
	    (size_t)n < sizeof(struct nlmsghdr) || !NLMSG_OK(&ans.nh, (size_t)n) ||
	    ans.nh.nlmsg_seq != 1) {
		errno = EIO;
		return -1;
	}
	if (ans.nh.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(&ans.nh);

		if (ans.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
			errno = EIO;
			return -1;
		}
		/* No route at all: nothing can be sent there. */
		if (e->error == -ENETUNREACH || e->error == -EHOSTUNREACH)
			return RTN_UNREACHABLE;
		errno = e->error < 0 ? -e->error : EIO;
		return -1;
	}
	if (ans.nh.nlmsg_type == RTM_NEWROUTE &&
	    ans.nh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtmsg)))
		type = ((const struct rtmsg *)NLMSG_DATA(&ans.nh))->rtm_type;
	if (type < 0)
		errno = EIO;
	return type;
}

int
sbx_route_is_local(const struct sockaddr *sa, socklen_t len)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int type;

	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		type = route_type(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		type = memcmp(b, mapped, sizeof(mapped)) == 0 ? route_type(AF_INET, b + 12, 4)
							      : route_type(AF_INET6, b, 16);
	} else {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (type < 0)
		return -1;
	return type == RTN_LOCAL || type == RTN_ANYCAST || type == RTN_BROADCAST ||
	    type == RTN_MULTICAST;
}
