#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux-tun.h"
#include "udppkt.h"
#include "util.h"

#ifndef IFA_F_NODAD
#define IFA_F_NODAD 0x02
#endif

struct nlreq {
	struct nlmsghdr h;
	union {
		struct ifaddrmsg a;
		struct rtmsg r;
	} u;
	char attrs[64];
};

static void
add_attr(struct nlreq *req, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)req + NLMSG_ALIGN(req->h.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req->h.nlmsg_len = NLMSG_ALIGN(req->h.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Sends one request on nl and reads its acknowledgement: 0 or -errno. */
static int
talk(int nl, struct nlreq *req)
{
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	ssize_t n;

	if (send(nl, req, req->h.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(nl, &ack, sizeof(ack), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(ack.h) + sizeof(ack.e.error) && ack.h.nlmsg_type == NLMSG_ERROR &&
	    ack.e.error != 0 && ack.e.error != -EEXIST)
		return ack.e.error;
	return 0;
}

static int
add_address(int nl, int index, int family, const void *addr)
{
	struct nlreq req;
	size_t alen = family == AF_INET ? 4 : 16;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_NEWADDR;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.a));
	req.u.a.ifa_family = (unsigned char)family;
	req.u.a.ifa_prefixlen = (unsigned char)(alen * 8);
	req.u.a.ifa_scope = RT_SCOPE_UNIVERSE;
	/* No duplicate address detection: the address would stay tentative
	 * (unusable as a source) for a second, and the link has no one else. */
	req.u.a.ifa_flags = IFA_F_NODAD;
	req.u.a.ifa_index = (unsigned)index;
	add_attr(&req, IFA_LOCAL, addr, alen);
	add_attr(&req, IFA_ADDRESS, addr, alen);
	return talk(nl, &req);
}

static int
add_default_route(int nl, int index, int family)
{
	struct nlreq req;
	int oif = index;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_NEWROUTE;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.r));
	req.u.r.rtm_family = (unsigned char)family;
	req.u.r.rtm_table = RT_TABLE_MAIN;
	req.u.r.rtm_protocol = RTPROT_BOOT;
	req.u.r.rtm_scope = family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	req.u.r.rtm_type = RTN_UNICAST;
	add_attr(&req, RTA_OIF, &oif, sizeof(oif));
	return talk(nl, &req);
}

int
sbx_tun_jail_open(struct sbx_err *err)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	struct in_addr a4;
	struct in6_addr a6;
	int fd, s = -1, nl = -1, index, r;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sbx_err_sys(err, "cannot open /dev/net/tun for the UDP relay");
	strlcpy(ifr.ifr_name, SBX_TUN_NAME, sizeof(ifr.ifr_name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		sbx_err_sys(err, "cannot make the UDP relay's tun device");
		goto fail;
	}
	/* Persistent: the last close of a device that is not unregisters it
	 * there and then, and unregistering a network device waits for
	 * grace periods (21-27 ms here, on sbxrun's way out). A persistent
	 * one goes with the jail's network namespace, which a kernel worker
	 * takes down once nothing holds it (doc/design/udp-relay.md). */
	if (ioctl(fd, TUNSETPERSIST, 1L) < 0) {
		sbx_err_sys(err, "cannot keep the UDP relay's tun device");
		goto fail;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0 || nl < 0) {
		sbx_err_sys(err, "cannot set up the UDP relay's tun device");
		goto fail;
	}
	ifr.ifr_mtu = SBX_UDPPKT_MTU;
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0 || ioctl(s, SIOCGIFINDEX, &ifr) < 0) {
		sbx_err_sys(err, "cannot set up the UDP relay's tun device");
		goto fail;
	}
	index = ifr.ifr_ifindex;
	inet_pton(AF_INET, SBX_TUN_ADDR4, &a4);
	inet_pton(AF_INET6, SBX_TUN_ADDR6, &a6);
	if ((r = add_address(nl, index, AF_INET, &a4)) < 0) {
		sbx_err_set(err, -r, "cannot address the UDP relay's tun device");
		goto fail;
	}
	(void)add_address(nl, index, AF_INET6, &a6);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		sbx_err_sys(err, "cannot raise the UDP relay's tun device");
		goto fail;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
		sbx_err_sys(err, "cannot raise the UDP relay's tun device");
		goto fail;
	}
	if ((r = add_default_route(nl, index, AF_INET)) < 0) {
		sbx_err_set(err, -r, "cannot route through the UDP relay's tun device");
		goto fail;
	}
	(void)add_default_route(nl, index, AF_INET6);
	close(s);
	close(nl);
	return fd;
fail:
	if (s >= 0)
		close(s);
	if (nl >= 0)
		close(nl);
	/* A device half set up does not stay in the jail: the close takes
	 * it (and pays for it) now. */
	(void)ioctl(fd, TUNSETPERSIST, 0L);
	close(fd);
	return -1;
}
