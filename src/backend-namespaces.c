/* The namespaces backend: a jail built in-process from user, mount, pid,
 * ipc, uts, cgroup and net namespaces (the net one in every network mode),
 * a new root of read-only binds, Landlock and seccomp layered inside.
 *
 * Launch order, chosen with the network supervisor in mind:
 *
 *   sbxrun (parent)     reads the plan the core built (jail.h: the mount
 *                       table and Landlock rules), then clone3() with every
 *                       CLONE_NEW* flag but CLONE_NEWNET and CLONE_NEWIPC,
 *                       and CLONE_PIDFD (init makes those two itself:
 *                       side_start(), side_join()). Anything the supervisor
 *                       must share with the sandbox (the network Landlock
 *                       domain) is applied to sbxrun's own thread before
 *                       this point, so the sandbox inherits it.
 *   parent              waits for init's word that its helper is started;
 *                       writes uid_map/gid_map; for a root caller makes the
 *                       idmapped trees (open_tree + mount_setattr) with the
 *                       child's user namespace and sends them (SCM_RIGHTS)
 *                       with the "go" message on the sync socket.
 *   init (pid 1)        starts the helper that makes its network
 *                       namespace; takes the sandbox's ids; builds the new
 *                       root and pivots; makes its IPC namespace and joins
 *                       the network one; new session; drops every
 *                       capability; no_new_privs; loads the seccomp
 *                       filter (so a notify fd created there could be
 *                       taken by the parent with pidfd_getfd() on init's
 *                       pidfd: init is not ptrace-protected from its
 *                       creator and never sends it over a socket, which a
 *                       trapping filter would deadlock); reports "ready"
 *                       on the sync socket, then forks.
 *   payload             applies the filesystem Landlock domain and the ABI 6
 *                       scopes (nested in the child only, so init stays
 *                       outside and cannot be signalled by the sandbox),
 *                       rlimits, exec.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "cgroup.h"
#include "fsutil.h"
#include "keeper.h"
#include "launch.h"
#include "linux-caps.h"
#include "linux-hostfilter.h"
#include "linux-gitguard.h"
#include "linux-landlock.h"
#include "linux-mount.h"
#include "linux-owner.h"
#include "linux-probe.h"
#include "linux-seccomp.h"
#include "linux-tun.h"
#include "netrules.h"
#include "netsup.h"
#include "phase.h"
#include "network.h"
#include "plan.h"
#include "resolve.h"
#include "rlimits.h"
#include "supcfg.h"

/* The uid and gid a root caller's sandbox runs as, outside the jail and,
 * since the same id inside, inside it too: the kernel shows every host
 * file whose owner has no mapping (root's own files, among them) as the
 * overflow id 65534, so the caller's files appear to belong to the
 * sandbox, as they do for a caller other than root, and git, ssh and the
 * like accept them (doc/design/everyday.md). */
#define SBX_ROOT_MAPPED_ID SBX_SANDBOX_ROOT_ID

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

/* clone3's. Init's helper makes the network namespace beside init's
 * start, and init makes the IPC one once its root is built (side_start(),
 * side_join()). */
#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWCGROUP)

/* What the run may have left in the workdir (mount targets made, what
 * the sandbox made where nothing may be made) is recorded with the keeper
 * before the jail starts and undone by it, through the workdir's
 * descriptor, when the tree is gone, or when sbxrun died (keeper.h). */
struct ns_state {
	struct sbx_keeper *keeper;
};

struct ns_payload {
	struct ns_state *state;
	bool trap; /* load the trapping filter in init */
	bool send_free; /* ... leaving sendmsg/sendmmsg alone but Fast Open */
	bool relay; /* the jail's side of the resolver relay (instead of guard) */
	bool udp_relay; /* ... and of the UDP relay: a tun device, the routes */
	bool guard; /* and open sock_diag for unix checks */
	bool trace; /* trap what --trace observes (then a listener too) */
	const struct sbx_plan *plan;
	int abi;
	struct sbx_landlock_net net;
	struct sbx_ports bind, connect;
};

static bool
net_fully_off(const struct sbx_policy *p)
{
	return sbx_policy_net_off(p);
}

/* With the network fully off the jail's own net namespace cuts it off,
 * except from unix sockets its filesystem view shows: the workdir is the
 * host's, and so are the system roots, mounts, read paths and, under open,
 * the whole disk (a daemon may keep its socket anywhere). So connects and
 * addressed sends are trapped, and only sockets made inside the jail's
 * namespace pass (SBX_NETSUP_UNIX_OWNED). */
static bool
needs_unix_guard(SBX_UNUSED const struct sbx_policy *p, const struct sbx_exec *x)
{
	return x->net == NULL;
}

/* Whether sendmsg and sendmmsg may go untrapped (but Fast Open): the
 * sandbox's own sockets reach only its lo, or with the network on the UDP
 * relay's tun device, and a host socket handed in is never a datagram one
 * (a connect list's resolvers go through the resolver relay, the network
 * on's datagrams through the UDP relay), nor is a unix socket judged
 * unless the network is fully off (guard). A stream ignores a send's
 * address. Then a connected stream's sends run at native speed. The jail
 * keeps them trapped when it could make no tun device (child_main), and
 * under --trace, which decodes the DNS queries they carry. */
static bool
send_free(const struct sbx_exec *x, bool guard)
{
	return !guard && !x->trace && x->net != NULL &&
	    (!x->net->network || sbx_supcfg_relays_udp(x->net));
}

/* The sandbox's Landlock domain holds no TCP port rule: its sockets live
 * in its own network namespace, where only its private lo exists, so any
 * port there is its own (test servers on port 0 included). What reaches
 * the host is made by the supervisor on host sockets, after the rules. */
static void
payload_net(struct ns_payload *pl, const struct sbx_netrules *r)
{
	(void)r;
	pl->net.enabled = false;
}

/* --probe measures every step in a throwaway child (a runtime's masked
 * /proc paths let a user namespace be made but not a fresh /proc mounted
 * in it). A run does not: it makes the real jail, and a step that fails
 * before the command runs ends the spawn with SBX_EUNAVAIL and nothing
 * left behind (ns_spawn), which sends "auto" on to the next backend. The
 * listener and the unix-socket guard need a descriptor taken from init
 * with pidfd_getfd(), and the sockaddr of a connect read from the
 * sandbox's memory. */
static int
ns_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	caps->landlock_abi = sbx_landlock_abi();
	if (caps->full_probe) {
		caps->seccomp = sbx_seccomp_probe(&caps->seccomp_notify, NULL) == 0;
		if (!caps->probed_userns && sbx_probe_namespaces(caps, true, err) < 0)
			return -1;
	}
	if (caps->probed_userns && !caps->userns)
		return sbx_err_set(err, SBX_EUNAVAIL, "%s", caps->userns_why);
	if (sbx_probe_supervision(caps, err) < 0)
		return -1;
	if (!caps->pidfd_getfd)
		return sbx_err_set(err, SBX_EUNAVAIL, "%s", caps->pidfd_getfd_why);
	/* A root caller's supervisor reads the sandbox with the sandbox's ids
	 * and CAP_SYS_PTRACE alone (netsup.c): without that capability (a
	 * container runtime leaves it out of root's set) it could not, and
	 * every trapped call would fail. */
	if (caps->caller_uid == 0 && geteuid() == 0 && !sbx_caps_has(CAP_SYS_PTRACE))
		return sbx_err_set(err, SBX_EUNAVAIL,
		    "root without CAP_SYS_PTRACE cannot read a uid %d sandbox in its own user "
		    "namespace (the supervisor keeps that capability alone)",
		    SBX_ROOT_MAPPED_ID);
	if (!caps->vm_readv && !caps->proc_mem)
		return sbx_err_set(err, SBX_EUNAVAIL, "%s", caps->mem_why);
	return 0;
}

static uint32_t
ns_enforces(const struct sbx_policy *p, SBX_UNUSED const struct sbx_caps *caps)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_DENY) |
	    SBX_RULE_BIT(SBX_RULE_PROTECT) | SBX_RULE_BIT(SBX_RULE_MOUNTS) |
	    SBX_RULE_BIT(SBX_RULE_PROCESSES) | SBX_RULE_BIT(SBX_RULE_TIMEOUT) |
	    sbx_limits_rlimit_rules(p);

	/* The jail's own net namespace enforces "nothing reachable" and keeps
	 * its loopback private; every other network rule is the network
	 * supervisor's, which alone makes sockets in the host's namespace. */
	r |= SBX_RULE_BIT(SBX_RULE_NETWORK);
	if (!net_fully_off(p))
		r |= SBX_RULE_BIT(SBX_RULE_LISTEN) | SBX_RULE_BIT(SBX_RULE_CONNECT) |
		    SBX_RULE_BIT(SBX_RULE_LOOPBACK) | SBX_RULE_BIT(SBX_RULE_PROXY);
	return r;
}

static void
inside_ids(const struct sbx_exec *x, uid_t *uid, gid_t *gid)
{
	/* A root caller's sandbox is never root, inside or out: 65534 on
	 * both sides of its user namespace. */
	*uid = x->caller_uid == 0 ? SBX_ROOT_MAPPED_ID : x->caller_uid;
	*gid = x->caller_uid == 0 ? SBX_ROOT_MAPPED_ID : x->caller_gid;
}

static int
ns_describe(const struct sbx_jail *j, struct sbx_buf *out, SBX_UNUSED struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_caps *caps = j->caps;
	uid_t uid;
	gid_t gid;

	inside_ids(x, &uid, &gid);
	sbx_buf_puts(out, "# backend namespaces: user mount pid ipc uts cgroup net\n");
	if (x->caller_uid == 0)
		sbx_buf_printf(out,
		    "# ids: uid and gid %d inside and outside; the workdir and rw "
		    "mounts are idmapped so files stay the caller's\n",
		    SBX_ROOT_MAPPED_ID);
	else
		sbx_buf_printf(out, "# ids: uid %u gid %u, the caller's own, inside and outside\n",
		    (unsigned)uid, (unsigned)gid);
	sbx_plan_describe(&j->plan, out);
	sbx_buf_printf(out, "# landlock ABI %d here%s; scopes: abstract unix sockets, signals\n",
	    caps->landlock_abi, caps->landlock_abi ? "" : " (no Landlock: mounts only)");
	sbx_buf_puts(out,
	    "# network: a net namespace of its own (only its private lo, any port); "
	    "no Landlock TCP rule\n");
	if (!net_fully_off(p))
		sbx_buf_puts(out,
		    "# network: every connect, bind, listen and addressed send goes to "
		    "sbxrun's network supervisor, which makes what the rules allow on host "
		    "sockets and hands them in (SECCOMP_IOCTL_NOTIF_ADDFD)\n");
	if (sbx_supcfg_relays_resolvers(x->net))
		sbx_buf_puts(out,
		    "# network: the resolvers' addresses are on the jail's lo, where sbxrun "
		    "relays UDP port 53 to them; no host datagram socket is handed in\n");
	if (sbx_supcfg_relays_udp(x->net))
		sbx_buf_puts(out,
		    "# network: the jail's default routes lead to a tun device (" SBX_TUN_NAME
		    ", " SBX_TUN_ADDR4 ", " SBX_TUN_ADDR6 ") where sbxrun relays UDP to what "
		    "the rules allow; no host datagram socket is handed in\n");
	sbx_seccomp_describe(
	    (net_fully_off(p) ? 0
			      : SBX_SECCOMP_NET_NOTIFY |
			(send_free(x, needs_unix_guard(p, x)) ? SBX_SECCOMP_NET_SEND_FREE : 0)) |
		(x->trace ? SBX_SECCOMP_TRACE_NOTIFY : 0),
	    out);
	sbx_hostfilter_describe(SBX_HOSTF_NOSETID, out);
	sbx_buf_puts(out,
	    "# process: new session, no capabilities (bounding set empty, "
	    "securebits locked), no_new_privs, pid 1 is sbxrun's init\n");
	sbx_limits_describe(x, out);
	return 0;
}

/* The sync socket carries "go" (with idmapped tree fds) to the child and
 * "ready" or an error back. */
#define SBX_MAX_TREES 64

static int
send_go(int sock, const int *fds, size_t nfds, struct sbx_err *err)
{
	char byte = 'g';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int) * SBX_MAX_TREES)];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > SBX_MAX_TREES)
		return sbx_err_set(err, E2BIG, "too many mounts");
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		return sbx_err_sys(err, "cannot start the jail");
	return 0;
}

static int
recv_go(int sock, int *fds, size_t nfds)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int) * SBX_MAX_TREES)];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1 || byte != 'g')
		return -1;
	if (nfds == 0)
		return 0;
	c = CMSG_FIRSTHDR(&msg);
	if (c == NULL || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int) * nfds))
		return -1;
	memcpy(fds, CMSG_DATA(c), sizeof(int) * nfds);
	return 0;
}

static int
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n, len = (ssize_t)strlen(text);

	if (fd < 0)
		return -1;
	n = write(fd, text, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

static int
write_maps(pid_t pid, const struct sbx_exec *x, struct sbx_err *err)
{
	char path[64], map[64];
	uid_t uid;
	gid_t gid;

	inside_ids(x, &uid, &gid);
	if (x->caller_uid != 0) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
		if (write_file(path, "deny") < 0)
			return sbx_err_sys(err, "cannot write %s", path);
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid,
	    x->caller_uid == 0 ? SBX_ROOT_MAPPED_ID : (unsigned)x->caller_uid);
	if (write_file(path, map) < 0)
		return sbx_err_sys(err, "cannot write %s", path);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid,
	    x->caller_uid == 0 ? SBX_ROOT_MAPPED_ID : (unsigned)x->caller_gid);
	if (write_file(path, map) < 0)
		return sbx_err_sys(err, "cannot write %s", path);
	return 0;
}

static int
payload_setup(void *ctx, struct sbx_err *err)
{
	const struct ns_payload *pl = ctx;

	if (pl->abi < 1)
		return 0;
	return sbx_landlock_apply(pl->plan, pl->abi, &pl->net,
	    SBX_LANDLOCK_SCOPE_ABSTRACT | SBX_LANDLOCK_SCOPE_SIGNAL, err);
}

/* A new network namespace has lo down: no 127.0.0.1, no ::1. The task
 * that makes it raises it (the helper below, or init) while it holds
 * CAP_NET_ADMIN over the namespace (it is root in the user namespace that
 * owns it); the kernel then gives lo both loopback addresses. */
static int
lo_up(struct sbx_err *err)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int r = -1;

	if (s < 0)
		return sbx_err_sys(err, "cannot raise the jail's loopback: socket");
	strlcpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name));
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (r < 0)
		sbx_err_sys(err, "cannot raise the jail's loopback");
	close(s);
	return r;
}

/* Puts addr (a resolver's) on the jail's lo, as a host address of its
 * own (/32, /128), so that a datagram to it stays in the jail, where the
 * resolver relay takes it. */
static int
lo_add_address(int nl, const struct sockaddr_storage *ss, struct sbx_err *err)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg a;
		char attrs[64];
	} req;
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	const void *addr = &((const struct sockaddr_in *)ss)->sin_addr;
	size_t alen = 4;
	int family = AF_INET;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(a6)) {
		addr = &a6->s6_addr32[3];
	} else if (ss->ss_family == AF_INET6) {
		family = AF_INET6;
		addr = a6;
		alen = 16;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_NEWADDR;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.a.ifa_family = (unsigned char)family;
	req.a.ifa_prefixlen = (unsigned char)(alen * 8);
	req.a.ifa_scope = RT_SCOPE_HOST;
	req.a.ifa_index = 1; /* lo: the first interface of every namespace */
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.a));
	for (unsigned short type = IFA_LOCAL; type >= IFA_ADDRESS; type--) {
		struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.h.nlmsg_len));

		rta->rta_type = type;
		rta->rta_len = (unsigned short)RTA_LENGTH(alen);
		memcpy(RTA_DATA(rta), addr, alen);
		req.h.nlmsg_len = NLMSG_ALIGN(req.h.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	}
	if (send(nl, &req, req.h.nlmsg_len, 0) < 0 || recv(nl, &ack, sizeof(ack), 0) < 0)
		return sbx_err_sys(err, "cannot put a resolver's address on the jail's lo");
	if (ack.h.nlmsg_type == NLMSG_ERROR && ack.e.error != 0 && ack.e.error != -EEXIST)
		return sbx_err_set(
		    err, -ack.e.error, "cannot put a resolver's address on the jail's lo");
	return 0;
}

/* The jail's side of the resolver relay (SBX_NETSUP_DNS_RELAY): every
 * resolver that is not a loopback address (those are the jail's lo
 * already) goes on the jail's lo, and one UDP socket on port 53, for
 * every address of the jail, receives what the sandbox sends there; the
 * supervisor relays it. Dual-stack where IPv6 exists; the destination of
 * each datagram is read from its packet info. Needs CAP_NET_ADMIN and
 * CAP_NET_BIND_SERVICE over the jail's namespace: run before the drop. */
static int
resolver_relay_socket(const struct sbx_netrules *r, struct sbx_err *err)
{
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), s, on = 1, off = 0;
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_port = htons(53) };
	struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_port = htons(53) };

	if (nl < 0)
		return sbx_err_sys(err, "cannot set up the resolver relay: netlink");
	for (size_t i = 0; i < r->resolvers.n; i++) {
		const struct sockaddr_storage *ss = &r->resolvers.v[i];
		socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							  : sizeof(struct sockaddr_in);

		/* With the network on, the others leave through the UDP relay:
		 * on lo, they would hide the rest of their host's ports. */
		if (r->network || sbx_addr_is_loopback((const struct sockaddr *)ss, len) ||
		    (ss->ss_family == AF_INET6 &&
			IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)ss)->sin6_addr)))
			continue;
		if (lo_add_address(nl, ss, err) < 0) {
			close(nl);
			return -1;
		}
	}
	close(nl);
	s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0 &&
	    (setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0 ||
		setsockopt(s, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) < 0 ||
		bind(s, (struct sockaddr *)&any6, sizeof(any6)) < 0)) {
		close(s);
		s = -1;
	}
	if (s < 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s >= 0 &&
		    (setsockopt(s, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) < 0 ||
			bind(s, (struct sockaddr *)&any4, sizeof(any4)) < 0)) {
			close(s);
			s = -1;
		}
	}
	if (s < 0)
		return sbx_err_sys(err, "cannot set up the resolver relay: port 53");
	return s;
}

/* The jail's network namespace costs ~0.55 ms to make here (its loopback
 * device and every subsystem's per-namespace state), most of what clone3
 * took with it. Init needs it only once its root is built, so a helper
 * makes it on another CPU while init waits for "go" and builds the root,
 * and init joins it then (doc/design/startup.md, section 17). The IPC
 * namespace (~0.06 ms: its message queue file system and sysctl tables)
 * is made by init itself at that point, while the helper is still at
 * work, which it usually is (section 19).
 *
 * The helper is a clone of init that shares its memory and descriptors
 * and has init's credentials: root of the jail's user namespace, which
 * owns the new namespace as before. It makes the namespace and a socket
 * in it, raises the loopback with it (as lo_up() does, ~0.12 ms) and
 * exits; init takes the namespace from the socket (SIOCGSKNS) and joins
 * it (setns). The helper calls no C library code: its system calls are
 * made by hand, so it never writes init's errno (the two share one
 * thread-local block). Init makes the namespace itself where that is not
 * written here, with a single CPU, or when the clone fails. A helper not
 * done when init needs the namespace (its CPU busy, or asleep: waking one
 * can take ~2 ms on a VM, section 9) is moved to init's CPU, free while
 * init waits for it, so the wait is about the work itself, no more.
 * Nothing of the sandbox's runs before the join, and a join that fails,
 * or that would leave init in the namespace it started in, fails the
 * run.
 *
 * The helper also notes which signals have a disposition other than the
 * default: its copy of them is init's, which init does not change after
 * the helper's clone, and the payload (which would otherwise ask for all
 * 62, or set them all, on its way to the exec: ~0.03 ms) resets only
 * those (sbx_init_args.sigs_noted; doc/design/startup.md, section 27). */
struct side_ns {
	pid_t pid; /* the helper, or -1: init makes the namespace itself */
	int sock; /* its socket in the new namespace, -errno, or -EINPROGRESS */
	bool lo; /* an error is the loopback's */
	bool noted; /* nondefault is set (written before sock) */
	uint64_t nondefault; /* bit sig - 1: not SIG_DFL */
};

#if defined(__x86_64__) || defined(__aarch64__)
#define SIDE_HELPER 1
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define SIDE_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#endif
#endif
#ifndef SIDE_NO_SANITIZE
#define SIDE_NO_SANITIZE
#endif

static inline long
raw_syscall4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
#else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory", "cc");
	return x0;
#endif
}

static inline long
raw_syscall3(long nr, long a, long b, long c)
{
	return raw_syscall4(nr, a, b, c, 0);
}

/* The signals whose disposition is not SIG_DFL (bit sig - 1); one the
 * kernel will not tell counts as not the default. */
SIDE_NO_SANITIZE static uint64_t
side_nondefault(void)
{
	uint64_t set = 0;

	for (long sig = 1; sig <= 64; sig++) {
		/* The kernel's struct sigaction: the handler comes first. */
		unsigned long old[8] = { 0 };

		if (raw_syscall4(SYS_rt_sigaction, sig, 0, (long)old, 8) != 0 || old[0] != 0)
			set |= UINT64_C(1) << (sig - 1);
	}
	return set;
}

/* The helper's stack: in init's own copy of sbxrun's memory. */
static char side_stack[16384] __attribute__((aligned(64)));

SIDE_NO_SANITIZE static int
side_helper(void *arg)
{
	struct side_ns *m = arg;
	struct ifreq ifr = { .ifr_name = "lo" };
	long r, s = -1;

	r = raw_syscall3(SYS_unshare, CLONE_NEWNET, 0, 0);
	if (r == 0)
		r = s = raw_syscall3(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r >= 0) {
		m->lo = true;
		r = raw_syscall3(SYS_ioctl, s, SIOCGIFFLAGS, (long)&ifr);
	}
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = raw_syscall3(SYS_ioctl, s, SIOCSIFFLAGS, (long)&ifr);
	}
	if (r < 0 && s >= 0)
		(void)raw_syscall3(SYS_close, s, 0, 0);
	m->nondefault = side_nondefault();
	m->noted = true;
	__atomic_store_n(&m->sock, r == 0 ? (int)s : (int)r, __ATOMIC_RELEASE);
	return 0;
}
#endif

/* Starts the helper on a CPU of the caller's other than init's (the
 * start runs on one CPU: launch.h), or nothing where there is none. */
static void
side_start(struct side_ns *m)
{
	m->pid = -1;
	m->sock = -EINPROGRESS;
	m->lo = false;
	m->noted = false;
	m->nondefault = 0;
#ifdef SIDE_HELPER
	{
		cpu_set_t others;

		if (!sbx_cpu_others(&others))
			return;
		m->pid =
		    clone(side_helper, side_stack + sizeof(side_stack), CLONE_VM | CLONE_FILES, m);
		if (m->pid > 0)
			(void)sched_setaffinity(m->pid, sizeof(others), &others);
	}
#endif
}

/* The network namespace a socket belongs to, as a descriptor (or -1),
 * and its inode. */
static int
sock_netns(int s, ino_t *ino)
{
	struct stat st;
	int ns = ioctl(s, SIOCGSKNS);

	*ino = 0;
	if (ns >= 0 && fstat(ns, &st) == 0)
		*ino = st.st_ino;
	return ns;
}

/* Init's new IPC and network namespaces: the first made here, the second
 * the helper's, joined (or made here). */
static int
side_join(struct side_ns *m, struct sbx_err *err)
{
	_cleanup_close_ int ns = -1;
	struct stat before;
	ino_t made = 0;
	int s;

	if (unshare(CLONE_NEWIPC) < 0)
		return sbx_err_sys(err, "cannot make the jail's IPC namespace");
	if (m->pid > 0) {
		/* Not done: the other CPU was busy or asleep. The helper comes
		 * to init's CPU, which is free while init waits. */
		if (__atomic_load_n(&m->sock, __ATOMIC_ACQUIRE) == -EINPROGRESS) {
			cpu_set_t here;
			int cpu = sched_getcpu();

			CPU_ZERO(&here);
			if (cpu >= 0 && cpu < CPU_SETSIZE) {
				CPU_SET((size_t)cpu, &here);
				(void)sched_setaffinity(m->pid, sizeof(here), &here);
			}
		}
		while (waitpid(m->pid, NULL, __WALL) < 0 && errno == EINTR)
			;
		m->pid = -1;
	}
	s = __atomic_load_n(&m->sock, __ATOMIC_ACQUIRE);
	if (s == -EINPROGRESS) {
		if (unshare(CLONE_NEWNET) < 0)
			return sbx_err_sys(err, "cannot make the jail's network namespace");
		sbx_phase("init: network namespace made");
		return lo_up(err);
	}
	if (s < 0) {
		errno = -s;
		return sbx_err_sys(err,
		    m->lo ? "cannot raise the jail's loopback"
			  : "cannot make the jail's network namespace");
	}
	ns = sock_netns(s, &made);
	close(s);
	if (ns < 0 || made == 0 || stat("/proc/self/ns/net", &before) < 0 || before.st_ino == made)
		return sbx_err_set(err, EIO, "cannot take the jail's network namespace");
	if (setns(ns, CLONE_NEWNET) < 0)
		return sbx_err_sys(err, "cannot join the jail's network namespace");
	sbx_phase("init: network namespace joined");
	return 0;
}

/* Runs in the cloned child: becomes the jail's init. */
static noreturn void
child_main(const struct sbx_plan *plan, const struct sbx_exec *x, struct sbx_launch_pipes *lp,
    int sync, struct ns_payload *pl)
{
	struct sbx_init_args a = { .exec = x, .pid1 = true };
	struct sbx_payload_hooks hooks = {
		.setup = payload_setup,
		/* The rules' paths are opened by name (no anchor), nothing is
		 * allocated: init may start the payload in its own memory. */
		.vfork_safe = true,
		.ctx = pl,
	};
	struct sbx_err e = { 0 };
	int fds[SBX_MAX_TREES], notify_fd = -1, diag_fd = -1, tun_fd = -1;
	bool send_free = pl->send_free;
	struct side_ns side;
	uid_t uid;
	gid_t gid;

	sbx_launch_pipes_child(lp, &a);
	side_start(&side);
	/* sbxrun writes the maps once the helper is off (await_side()). */
	if (write(sync, "h", 1) != 1)
		_exit(125);
	a.hooks = &hooks;
	if (recv_go(sync, fds, plan->ntrees) < 0)
		_exit(125);
	sbx_phase("init: go received");
	inside_ids(x, &uid, &gid);
	/* Take the sandbox's ids first: for a root caller this leaves host
	 * root for good (the parent already cloned every host tree it needs,
	 * and the supplementary groups would still open files). The raw
	 * calls: init is alone in its process, but it was cloned from
	 * sbxrun's launcher thread, so glibc's wrappers would first signal
	 * and mark each thread glibc believes it still has (three calls and
	 * copy-on-write faults on their descriptors for each change). */
	if (x->caller_uid == 0 && syscall(SYS_setgroups, 0, NULL) < 0) {
		sbx_err_sys(&e, "setgroups");
		goto fail;
	}
	if (syscall(SYS_setresgid, gid, gid, gid) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0) {
		sbx_err_sys(&e, "cannot take the sandbox's ids");
		goto fail;
	}
	/* The UDP relay's tun device, made before the new root hides the
	 * host's /dev/net/tun. Without one (no /dev/net/tun in a container,
	 * say) the supervisor hands in host datagram sockets as before, and
	 * sendmsg stays trapped. */
	if (pl->udp_relay) {
		struct sbx_err te = { 0 };

		/* The device belongs to the namespace it is opened in. */
		if (side_join(&side, &e) < 0)
			goto fail;
		tun_fd = sbx_tun_jail_open(&te);
		send_free = send_free && tun_fd >= 0;
	}
	if (sbx_mount_build_root(plan, x->fs, fds, &e) < 0)
		goto fail;
	for (size_t i = 0; i < plan->ntrees; i++)
		close(fds[i]);
	sbx_phase("init: new root built");
	if (!pl->udp_relay && side_join(&side, &e) < 0)
		goto fail;
	sethostname("sbxrun", 6);
	if (setsid() < 0) {
		sbx_err_sys(&e, "setsid");
		goto fail;
	}
	/* No set-id bits: through the idmapped workdir a root caller's
	 * sandbox writes files owned by root on disk, and a setuid one left
	 * there would run as root for anyone on the host. */
	/* Opened in the jail's network namespace before the filter forbids
	 * netlink sockets; the supervisor asks it which unix sockets are the
	 * sandbox's own. */
	if (pl->guard) {
		diag_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		if (diag_fd < 0) {
			sbx_err_sys(&e, "sock_diag");
			goto fail;
		}
	} else if (pl->relay && (diag_fd = resolver_relay_socket(x->net, &e)) < 0) {
		goto fail;
	}
	if (sbx_caps_drop_all(&e) < 0 || sbx_no_new_privs(&e) < 0 ||
	    sbx_seccomp_load_host((pl->trap ? SBX_SECCOMP_NET_NOTIFY : 0) |
		    (pl->trace ? SBX_SECCOMP_TRACE_NOTIFY : 0) |
		    (send_free ? SBX_SECCOMP_NET_SEND_FREE : 0),
		SBX_HOSTF_NOSETID, &notify_fd, &e) < 0)
		goto fail;
	sbx_phase("init: caps dropped, filters loaded");
	{
		/* The listener goes to the parent, which takes it with
		 * pidfd_getfd() (a send over the socket would be trapped by
		 * the filter just loaded); wait until it has. */
		struct sbx_child_msg ok = {
			.kind = 0, .fd = notify_fd, .fd2 = diag_fd, .fd3 = tun_fd
		};
		char ack;

		if (write(sync, &ok, sizeof(ok)) != sizeof(ok))
			_exit(125);
		if (notify_fd >= 0) {
			if (read(sync, &ack, 1) != 1)
				_exit(125);
			close(notify_fd);
			if (diag_fd >= 0)
				close(diag_fd);
			if (tun_fd >= 0)
				close(tun_fd);
		}
	}
	close(sync);
	/* Read after the helper's end (side_join()). */
	a.sigs_noted = side.noted;
	a.sigs_nondefault = side.nondefault;
	sbx_init_main(&a);
fail : {
	struct sbx_child_msg m = { .kind = SBX_FAIL_SETUP, .errnum = e.errnum };

	strlcpy(m.msg, e.msg, sizeof(m.msg));
	if (write(sync, &m, sizeof(m)) < 0)
		_exit(125);
	_exit(125);
}
}

/* Hands the keeper the secrets missing below read-write mounts' sources
 * (pairs of source and path, plan.h), one watch per source, each through
 * the descriptor the mount is made from (pinned at resolve) or one opened
 * following nothing; the keeper keeps its own copy. */
static void
watch_trees(struct sbx_keeper *k, const struct sbx_fsview *fs, const struct sbx_strv *pairs)
{
	for (size_t i = 0; i + 1 < pairs->n; i += 2) {
		const char *src = pairs->v[i];
		const struct sbx_pin *pin;
		_cleanup_close_ int own = -1;
		_cleanup_free_ char *tag = NULL;
		struct sbx_strv none = { 0 }, rels = { 0 };
		struct stat st;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j += 2)
			seen = strcmp(pairs->v[j], src) == 0;
		if (seen)
			continue;
		for (size_t j = i; j + 1 < pairs->n; j += 2)
			if (strcmp(pairs->v[j], src) == 0)
				sbx_strv_push(&rels, pairs->v[j + 1]);
		pin = sbx_fsview_pin(fs, src);
		if (pin != NULL || (own = sbx_open_nofollow(AT_FDCWD, src, &st)) >= 0) {
			tag = sbx_xasprintf("namespaces, in %s", src);
			sbx_keeper_watch(k, pin ? pin->fd : own, tag, &none, &rels, NULL, NULL);
		}
		sbx_strv_free(&rels);
	}
}

/* Once the tree is gone: the keeper moves aside what the sandbox made
 * where nothing may be made (a .git, a protected path that did not exist)
 * and removes the mount targets made for the run if still empty,
 * innermost first, every path reached from the workdir's descriptor
 * without following a link the sandbox may have planted on the way. */
static void
state_free(struct ns_state *st, struct sbx_report *r)
{
	if (st == NULL)
		return;
	sbx_keeper_undo_run(st->keeper, r ? &r->warnings : NULL);
	free(st);
}

static void
ns_cleanup(struct sbx_child *c, struct sbx_report *r)
{
	state_free(c->priv, r);
	c->priv = NULL;
}

/* The jail's init, born in the run's cgroup v2 leaf when there is one
 * (cgroup_fd, or -1). */
static pid_t
clone_jail(uint64_t flags, int *pidfd, int cgroup_fd)
{
	struct clone_args args = {
		.flags = flags | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};

	if (cgroup_fd >= 0)
		return sbx_cgroup_clone(&args, cgroup_fd);
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

/* The idmapping of a root caller's trees: a user namespace of its own
 * where 0 is SBX_ROOT_MAPPED_ID, so that through the mount the caller's
 * files (owned by 0 on disk) belong to the sandbox's id, and what the
 * sandbox makes is owned by 0 on disk. The jail's own namespace maps
 * SBX_ROOT_MAPPED_ID to itself and cannot serve: on-disk 0 would have no
 * mapping there. A child is born in the new namespace, its maps are
 * written, the namespace is kept by a descriptor and the child ends. */
static int
idmap_userns(struct sbx_err *err)
{
	struct clone_args args = { .flags = CLONE_NEWUSER, .exit_signal = 0 };
	char path[64], map[64];
	int hold[2], fd = -1;
	pid_t pid;

	if (pipe2(hold, O_CLOEXEC) < 0)
		return sbx_err_sys(err, "pipe");
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		char c;

		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	if (pid < 0) {
		close(hold[1]);
		return sbx_err_sys(err, "cannot make the idmapping's user namespace");
	}
	snprintf(map, sizeof(map), "0 %d 1\n", SBX_ROOT_MAPPED_ID);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	if (write_file(path, map) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		if (write_file(path, map) == 0) {
			snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
	}
	if (fd < 0)
		sbx_err_sys(err, "cannot set up the idmapping (%s)", path);
	close(hold[1]);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	return fd;
}

/* The most read-only covers one idmapped tree may need (a tree of
 * hard-linked files, a pnpm store's, needs one per file; past this the
 * run is refused rather than slowed down by thousands of mounts). */
#define MAX_COVERS 4096

/* How many times a tree that changed during its scan is scanned again. */
#define SCAN_TRIES 3

/* Through the idmapping every entry of a root caller's tree owned by root
 * (or its group) is the sandbox's. Those a landlock lend would leave alone
 * get a read-only mount of the host's own entry on top (doc/design/
 * idmap-covers.md): set-id and capability files (a shared-mmap write
 * keeps their bits), files with a link outside the tree, sockets, fifos
 * and devices, wherever they are (the secret list and the protected paths
 * included: the jail hides or freezes only those that existed when the
 * plan was made). The tree is scanned on the host, then cloned and
 * covered, then the host's tree must be as the scan saw it: a rename,
 * mount or link during the scan could have hidden an entry from it
 * (errnum ESTALE). Returns the clone, or -1. */
static int
cover_tree(const struct sbx_tree *t, const struct sbx_fsview *fs, int userns,
    struct sbx_strv *warnings, struct sbx_err *err)
{
	const struct sbx_pin *pin = sbx_fsview_pin(fs, t->src);
	_cleanup_close_ int own = -1;
	struct sbx_covers covers;
	int host, tree = -1, rc;

	if (pin == NULL && (own = sbx_open_nofollow(AT_FDCWD, t->src, NULL)) < 0)
		return sbx_err_sys(err, "cannot open %s", t->src);
	host = pin ? pin->fd : own;
	rc = sbx_owner_scan(host, t->src, 0, 0, NULL, MAX_COVERS, &covers, err);
	if (rc == 0 && (tree = sbx_mount_clone_tree(t, fs, userns, err)) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < covers.n; i++)
		rc = sbx_mount_cover(tree, host, t->src, &covers.v[i], err);
	if (rc == 0)
		rc = sbx_owner_scan_recheck(host, t->src, &covers, err);
	/* The user learns why rm or a write there fails (EBUSY, EROFS). */
	if (rc == 0 && covers.n > 0)
		sbx_strv_push_take(warnings,
		    sbx_xasprintf("%zu of root's entries in %s stay read-only and root's in the "
				  "sandbox (set-id, capabilities, a link outside, socket, fifo "
				  "or device), %s/%s among them",
			covers.n, t->src, t->src, covers.v[0].rel));
	sbx_covers_free(&covers);
	if (rc < 0 && tree >= 0) {
		close(tree);
		tree = -1;
	}
	return rc < 0 ? -1 : tree;
}

/* Tree i cloned for init, covered when idmapped: a tree that changed
 * during its scan is scanned afresh, SCAN_TRIES times. */
static int
make_tree(const struct sbx_tree *t, const struct sbx_fsview *fs, int userns,
    struct sbx_strv *warnings, struct sbx_err *err)
{
	if (!t->idmap)
		return sbx_mount_clone_tree(t, fs, userns, err);
	for (int try = 1;; try++) {
		int fd = cover_tree(t, fs, userns, warnings, err);

		if (fd >= 0 || err->errnum != ESTALE || try == SCAN_TRIES)
			return fd;
		memset(err, 0, sizeof(*err));
	}
}

/* The trees the parent clones for init (a root caller's): the idmapping's
 * user namespace is made only when one of them is idmapped (a rw tree: a
 * workdir or mount on disk); the system trees and devices of a default
 * run need none, and its clone3 and maps cost ~0.1 ms. */
static int
make_trees(const struct sbx_plan *plan, const struct sbx_fsview *fs, int *fds,
    struct sbx_strv *warnings, struct sbx_err *err)
{
	int userns = -1;

	for (size_t i = 0; i < plan->ntrees; i++)
		if (plan->trees[i].idmap) {
			userns = idmap_userns(err);
			if (userns < 0)
				return -1;
			break;
		}
	for (size_t i = 0; i < plan->ntrees; i++) {
		fds[i] = make_tree(&plan->trees[i], fs, userns, warnings, err);
		if (fds[i] < 0) {
			while (i-- > 0)
				close(fds[i]);
			if (userns >= 0)
				close(userns);
			return -1;
		}
	}
	if (userns >= 0)
		close(userns);
	return 0;
}

/* Init's first step is to start its helper (side_start()); it then
 * writes "h". Until "go" init and this thread share one CPU, and init
 * would run only once this thread blocks, after the maps and trees: the
 * wait lets the helper, the longest step of the start, begin ~0.1 ms
 * sooner (doc/design/startup.md, section 19). */
static int
await_side(int sock, struct sbx_err *err)
{
	char h = 0;
	ssize_t n;

	do
		n = read(sock, &h, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || h != 'h')
		return sbx_err_set(err, EIO, "the jail's init died while starting");
	sbx_phase("init started its helper");
	return 0;
}

static int
ns_spawn(const struct sbx_jail *j, struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_caps *caps = j->caps;
	const struct sbx_plan *plan = &j->plan;
	struct sbx_launch_pipes lp;
	struct sbx_child_msg m;
	struct ns_payload pl = { .plan = plan, .abi = caps->landlock_abi };
	/* A workdir made inside the jail goes with it: no repository can be
	 * left there for the caller's git. */
	_cleanup_gitguard_ struct sbx_gitguard *git_guard = NULL;
	bool guard = needs_unix_guard(p, x);
	int sync[2], pidfd = -1, fds[SBX_MAX_TREES];
	uint64_t flags = NS_FLAGS;
	struct ns_state *st = NULL;
	pid_t pid;
	ssize_t n;

	/* The jail plan is never built without one (jail.c). */
	if (x->fs == NULL)
		return sbx_err_set(err, EINVAL, "namespaces: no resolved filesystem view");
	if (!x->fs->workdir_in_jail)
		git_guard = sbx_gitguard_new(sbx_fsview_workdir_fd(x->fs), x->fs->workdir);
	git_guard = sbx_gitguard_add_mounts(git_guard, &j->view, x->fs);
	sbx_gitguard_idmapped(git_guard);
	sbx_gitguard_watch_mounts(git_guard, x->mounts_fd, x->fs->mountinfo);
	payload_net(&pl, x->net);
	pl.guard = guard;
	pl.trap = x->net != NULL || guard;
	pl.trace = x->trace;
	pl.send_free = send_free(x, guard);
	/* The core told the supervisor the same (SBX_NETSUP_DNS_RELAY,
	 * SBX_NETSUP_UDP_RELAY). */
	pl.relay = sbx_supcfg_relays_resolvers(x->net);
	pl.udp_relay = sbx_supcfg_relays_udp(x->net);
	if (plan->ntrees > SBX_ARRAY_LEN(fds))
		return sbx_err_set(err, E2BIG, "too many rw mounts");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sync) < 0)
		return sbx_err_sys(err, "socketpair");
	if (sbx_launch_pipes_open(&lp, err) < 0) {
		close(sync[0]);
		close(sync[1]);
		return -1;
	}
	st = sbx_xcalloc(1, sizeof(*st));
	st->keeper = x->keeper;
	{
		struct sbx_strv created = { 0 }, orphan = { 0 };

		for (size_t i = 0; i < plan->created.n; i++)
			sbx_strv_push(&created, plan->created.v[i] + strlen(x->fs->workdir) + 1);
		sbx_gitguard_orphan_names(git_guard, &orphan);
		sbx_keeper_watch(st->keeper, sbx_fsview_workdir_fd(x->fs), "namespaces", &created,
		    &plan->scrub, &orphan, &plan->held);
		sbx_strv_free(&created);
		sbx_strv_free(&orphan);
		watch_trees(st->keeper, x->fs, &plan->scrub_trees);
	}
	pl.state = st;
	/* Probed here once, so that init asks nothing (linux-caps.h). */
	(void)sbx_caps_last();
	fflush(NULL);
	sbx_phase("before clone3");
	pid = clone_jail(flags, &pidfd, x->cgroup ? x->cgroup_fd : -1);
	if (pid == 0) {
		close(sync[0]);
		child_main(plan, x, &lp, sync[1], &pl);
	}
	close(sync[1]);
	if (pid < 0) {
		int e = errno;

		close(sync[0]);
		sbx_launch_pipes_close(&lp);
		state_free(st, NULL);
		errno = e;
		/* No user namespace here (policy, sysctl, or a container's
		 * seccomp profile): "auto" goes on to the next backend. */
		sbx_err_sys(err,
		    x->cgroup ? "cannot create the jail's namespaces in its cgroup v2 leaf"
			      : "cannot create the jail's namespaces");
		err->errnum = SBX_EUNAVAIL;
		return -1;
	}
	sbx_phase("clone3 returned");
	sbx_launch_pipes_parent(&lp, c);
	close(lp.ack[1]);
	c->pid = pid;
	c->pidfd = pidfd;
	c->pidns = true;

	if (await_side(sync[0], err) < 0 || write_maps(pid, x, err) < 0 ||
	    (plan->ntrees > 0 && make_trees(plan, x->fs, fds, &r->warnings, err) < 0) ||
	    send_go(sync[0], fds, plan->ntrees, err) < 0)
		goto fail;
	for (size_t i = 0; i < plan->ntrees; i++)
		close(fds[i]);
	sbx_phase("maps written, trees sent");
	do
		n = read(sync[0], &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(m)) {
		sbx_err_set(err, EIO, "the jail's init died while starting");
		goto fail;
	}
	if (m.kind != 0) {
		m.msg[sizeof(m.msg) - 1] = '\0';
		sbx_err_set(err, m.errnum, "%s", m.msg);
		goto fail;
	}
	sbx_phase("init ready");
	if (m.fd >= 0) {
		c->notify_fd = (int)syscall(SYS_pidfd_getfd, pidfd, m.fd, 0);
		if (c->notify_fd < 0) {
			sbx_err_sys(err, "cannot take the jail's network listener");
			goto fail;
		}
		fcntl(c->notify_fd, F_SETFD, FD_CLOEXEC);
		if (m.fd2 >= 0) {
			c->diag_fd = (int)syscall(SYS_pidfd_getfd, pidfd, m.fd2, 0);
			if (c->diag_fd < 0) {
				sbx_err_sys(
				    err, "cannot take the jail's sock_diag or resolver socket");
				goto fail;
			}
			fcntl(c->diag_fd, F_SETFD, FD_CLOEXEC);
		}
		if (pl.udp_relay && m.fd3 >= 0) {
			c->tun_fd = (int)syscall(SYS_pidfd_getfd, pidfd, m.fd3, 0);
			if (c->tun_fd < 0) {
				sbx_err_sys(err, "cannot take the jail's tun device");
				goto fail;
			}
			fcntl(c->tun_fd, F_SETFD, FD_CLOEXEC);
		}
		if (write(sync[0], "a", 1) != 1) {
			sbx_err_sys(err, "the jail's init died while starting");
			goto fail;
		}
		/* How the supervisor judges these calls the core decided
		 * (supcfg.h). */
		r->layers.seccomp_notify = true;
	}
	close(sync[0]);
	free(pl.bind.v);
	free(pl.connect.v);
	c->priv = steal_ptr(&st);
	c->cleanup = ns_cleanup;
	sbx_gitguard_attach(&git_guard, c);
	r->layers.userns = r->layers.mountns = r->layers.pidns = true;
	r->layers.ipcns = r->layers.utsns = r->layers.cgroupns = true;
	r->layers.netns = true;
	r->layers.landlock_abi = caps->landlock_abi;
	r->layers.seccomp = r->layers.no_new_privs = r->layers.caps_dropped = true;
	r->layers.new_session = true;
	return 0;
fail:
	close(sync[0]);
	free(pl.bind.v);
	free(pl.connect.v);
	/* Killing init ends its pid namespace, and nothing of the caller's
	 * has run: init execs nothing before the ack above. */
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	sbx_child_close(c, NULL);
	state_free(st, NULL);
	/* Every step here comes before the command: a runtime that lets the
	 * namespaces be made but refuses a step in them (a fresh /proc under
	 * masked paths, a mount under AppArmor, an idmapped tree) leaves this
	 * backend unusable, and "auto" goes on with the step named. */
	{
		char why[sizeof(err->msg)];

		strlcpy(why, err->msg, sizeof(why));
		sbx_err_set(err, SBX_EUNAVAIL, "the jail could not be set up: %s", why);
	}
	return -1;
}

const struct sbx_backend sbx_backend_namespaces = {
	.name = "namespaces",
	.id = SBX_BACKEND_NAMESPACES,
	.probe = ns_probe,
	.enforces = ns_enforces,
	.describe = ns_describe,
	.spawn = ns_spawn,
};
