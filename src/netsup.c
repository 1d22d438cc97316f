/* The supervisor of the sandbox's trapped calls (network and, under the
 * landlock backend, metadata): its process and thread model, and who holds
 * which rights (doc/design/supervisor.md says more).
 *
 *   main thread      sbxrun's lifecycle with the caller's rights: spawn,
 *                    wait, kill, the report, removing sbxrun's own files.
 *                    It never acts for the sandbox.
 *   launcher thread  (network.h) takes the Landlock network domain (and
 *                    no_new_privs) and starts the jail and this supervisor
 *                    from inside it; the sandbox's domain nests in it.
 *   dispatcher       one thread, made by the launcher, in that domain. It
 *                    reads notifications, reads the sandbox's memory
 *                    (process_vm_readv), takes its descriptors
 *                    (pidfd_getfd), resolves paths in its view and
 *                    decides. Those need ptrace access to the sandbox.
 *                    It drops before it reads anything of the sandbox's:
 *                    to the sandbox's ids and no capability under the
 *                    landlock backend (SBX_NETSUP_READ_DROPPED: the
 *                    sandbox shares sbxrun's user namespace, same ids
 *                    keep the access); for a root caller under namespaces
 *                    to uid/gid 65534 with CAP_SYS_PTRACE alone (the
 *                    sandbox's user namespace is root's, a thread cannot
 *                    change its own, and only that capability reaches
 *                    into it; the Landlock domain keeps it to the
 *                    sandbox's processes); another caller keeps its own
 *                    ids, which hold nothing more. Always no_new_privs.
 *                    It never blocks on a call for the sandbox. It
 *                    performs two kinds itself, and only when it holds the
 *                    sandbox's rights and no more (no capability: so not
 *                    a root caller's under namespaces): a send on a
 *                    connected stream, with MSG_DONTWAIT (send_now()); a
 *                    blocking caller's rest goes to a worker; and an inet
 *                    connect, cut off after CONNECT_INLINE_US by a timer
 *                    signal (connect_now()); a worker waits for a
 *                    handshake still in progress.
 *   workers          a pool of at most MAX_WORKERS threads, made by the
 *                    dispatcher when a call waits and none is idle (never
 *                    one per call). Each first drops itself for good to
 *                    the sandbox's credentials (linux-creds.h: for a root
 *                    caller uid/gid 65534, no groups, no capabilities;
 *                    for another caller its own ids), sets no_new_privs
 *                    and loads a seccomp filter of its own allowing only
 *                    the calls below; it keeps the Landlock domain. Every
 *                    call made for the sandbox (connect, bind, listen,
 *                    send*, metadata changes) is made there, so the kernel
 *                    judges it as it would judge the sandbox: a root-only
 *                    socket, a port below 1024, a security.* attribute stay
 *                    out of reach. A worker may block as long as the peer
 *                    wants; nobody waits for it without a bound. It
 *                    answers the call itself (SECCOMP_IOCTL_NOTIF_SEND,
 *                    SECCOMP_IOCTL_NOTIF_ADDFD, allowed by its filter on
 *                    the listener alone) when nothing else is left for
 *                    the dispatcher to do: one hop less per call.
 *   relay            (SBX_NETSUP_DNS_RELAY) one thread, dropped like a
 *                    worker, with a filter of its own: forwards the
 *                    queries the sandbox sends to the resolvers' addresses
 *                    on the jail's lo, from host sockets connected to the
 *                    resolvers, and the answers back; non-blocking.
 *   udp relay        (SBX_NETSUP_UDP_RELAY) one thread, dropped like a
 *                    worker, with a filter of its own: the UDP the jail
 *                    routes to its tun device, from host sockets it
 *                    connects after the rules (udprelay.c).
 *
 * The end of a run (sbx_netsup_stop): stopping is marked, every socket
 * held for the sandbox is shut down (again and again, until the workers
 * are out), and every join is bounded; a thread still stuck then is left
 * behind, with the memory it uses, for the process exit to end.
 *
 * Nothing in sbxrun may call glibc's set*id wrappers once these threads
 * exist: they would take every thread back to the caller's ids. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "linux-creds.h"
#include "linux-notify.h"
#include "linux-route.h"
#include "linux-trace.h"
#include "metasup.h"
#include "namesup.h"
#include "netsup.h"
#include "notifydecode.h"
#include "proxy.h"
#include "supervise.h"
#include "tasksup.h"
#include "udprelay.h"
#include "util.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1UL
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* Linux 5.14 */
#endif
#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

/* The workers: at most this many calls are in progress for the sandbox at
 * once (the others wait in the queue, in order). */
#define MAX_WORKERS 8
/* The bytes copied out of the sandbox that all calls waiting for a worker
 * or on one may hold together: each may hold SBX_DECODE_MAX_PAYLOAD, and
 * with every worker blocked on a peer that never reads, each trapped
 * thread of the sandbox (up to its task limit) queued another copy in
 * sbxrun, outside the sandbox's own limits. A call that would go past it
 * fails with ENOBUFS, as a full output queue makes a send fail; one alone
 * is always taken. */
#define MAX_HELD (64u << 20)
/* The descriptors passed in messages (SCM_RIGHTS) that all those calls
 * may hold together, as sbxrun's copies: with the workers blocked, calls
 * queued behind them each held up to SBX_DECODE_MAX_RIGHTS, and filled
 * sbxrun's table (every later trapped call failed, and the copies kept
 * the sandbox's sockets open past its end). A quarter of sbxrun's own
 * limit, at most this; a call that would go past it fails with
 * ETOOMANYREFS, as the kernel's bound on descriptors in flight does; one
 * alone is always taken. */
#define MAX_HELD_FDS 512u
/* How many calls may wait for a worker: each holds descriptors of its
 * own (a name call up to four), and calls queued behind blocked workers
 * filled sbxrun's table the same way. An eighth of sbxrun's limit, within
 * these; a call past it fails with EAGAIN. With the quarter above, at
 * most three quarters of the table go to the sandbox's calls. */
#define MIN_QUEUED 16u
#define MAX_QUEUED 1024u
/* How many loopback listeners of the sandbox are remembered (landlock). */
#define MAX_OWNED 65536
/* How long the end of a run waits for the supervisor's threads. */
#define STOP_GRACE_MS 2000
/* How long the dispatcher waits in a connect it makes itself before a
 * worker takes the wait over (connect_now()): a loopback or veth handshake
 * takes tens of microseconds. */
#define CONNECT_INLINE_US 1000
/* The signal that ends that wait: a real-time one nothing else in sbxrun
 * uses, sent by a timer to the dispatcher alone. */
#define CONNECT_SIGNAL (SIGRTMIN + 4)

/* The flags under which the sandbox's listeners are remembered and the
 * host's listeners asked of the kernel (owned_listener()). */
#define OWNS_LISTENERS (SBX_NETSUP_OWN_LISTENERS | SBX_NETSUP_LISTEN_SELF)

struct sbx_netsup {
	const struct sbx_netrules *rules;
	unsigned flags;
	struct sbx_netmode mode; /* the flags, for sbx_net_classify(), once started */
	int fd;
	int diag; /* sock_diag in the jail's netns, or -1 */
	pthread_mutex_t diag_lock;
	int wake[2];
	int done_fd; /* eventfd: a worker finished a call */
	struct sbx_meta_ctx meta; /* SBX_NETSUP_META; as_uid: the workers' ids */
	struct sbx_namesup *names; /* the name-changing calls, or NULL */
	int ruleset; /* with names: the sandbox's Landlock filesystem ruleset */
	pthread_t thread;
	bool started;
	bool abandoned; /* a thread outlived the stop: its memory is kept */
	bool refuse_all; /* the dispatcher could not drop: every call fails */
	/* The dispatcher holds the sandbox's rights and no more (see
	 * send_now()), or it is a reader that sets its one capability aside
	 * around such a call (quiets): it may make a stream send itself,
	 * without blocking. */
	bool sends_inline;
	bool quiets;
	/* ... and it has the timer that bounds a connect (connect_now()). */
	bool connects_inline;
	timer_t connect_timer;
	sbx_net_log_fn log;
	void *ctx;
	sbx_refusal_fn refused; /* each counted denial, or NULL */
	void *refused_ctx;
	int refused_fd; /* where refused writes, or -1 */
	struct sbx_trace *trace; /* observe the calls trapped for it, or NULL */
	pthread_mutex_t lock; /* the fields below, and the log */
	pthread_cond_t work; /* the queue got a call, or stopping */
	pthread_cond_t gone; /* a worker ended */
	struct call *queue, *queue_end; /* allowed, waiting for a worker */
	struct call *done, *done_end; /* performed, waiting for the answer */
	struct call *running, *running_end; /* on a worker now */
	pthread_t pool[MAX_WORKERS];
	int nworkers, idle, alive, nqueued;
	atomic_bool drop_failed; /* a thread could not take the sandbox's rights */
	atomic_bool stopping;
	atomic_uint_fast64_t denials;
	atomic_size_t held; /* MAX_HELD: bytes held by submitted calls */
	atomic_size_t held_fds; /* ... passed descriptors held by gathered calls */
	size_t max_held_fds; /* ... and their bound (MAX_HELD_FDS) */
	int max_queued; /* MAX_QUEUED: calls waiting for a worker */
	uint64_t host_netns; /* SBX_NETSUP_OWN_NETNS: the host's netns cookie */
	int relay_fd; /* SBX_NETSUP_DNS_RELAY: the jail's port 53, or -1 */
	pthread_t relay_thread;
	bool relay_started;
	int tun_fd; /* SBX_NETSUP_UDP_RELAY: the jail's tun device, or -1 */
	int proxy_admit; /* the proxy's announcements (proxy.h), or -1 */
	pthread_t udp_thread;
	bool udp_started;
	int inet_diag; /* SBX_NETSUP_OWN_LISTENERS: sock_diag here, or -1 */
	uint64_t *owned; /* ... cookies of the sandbox's loopback listeners */
	size_t nowned;
};

/* One call the sandbox made, with everything copied out of it. */
struct call {
	struct sbx_netsup *ns;
	uint64_t id;
	int pid;
	const char *opname;
	int nr;
	int sock; /* our copy of the caller's socket */
	int fdnum; /* its number in the caller's table */
	int domain; /* AF_INET, AF_INET6 or AF_UNIX, once gathered */
	int type;
	int protocol;
	/* Performed on a new socket in the host's netns, which replaces the
	 * caller's (SECCOMP_IOCTL_NOTIF_ADDFD) when the call worked. */
	bool rehome;
	bool cloexec; /* the caller's descriptor has FD_CLOEXEC */
	bool resumed; /* a connect the dispatcher began, still in progress */
	bool to_proxy; /* a connect to the allowlist proxy: announced to it */
	int newsock; /* that socket, or -1 */
	struct sockaddr_storage addr;
	socklen_t addrlen; /* 0: no address */
	int target; /* unix: O_PATH fd of the socket file, or -1 */
	int *passed; /* our copies of descriptors passed in the message */
	size_t npassed;
	uint64_t arg; /* backlog, flags */
	char *data; /* sendto payload */
	size_t len;
	struct msghdr msg; /* sendmsg, our copy */
	struct mmsghdr *mmsg; /* sendmmsg, our copies */
	uint64_t mmsg_at; /* ... and where the caller's array is */
	int mem; /* ... and its memory, for their lengths (or -1) */
	unsigned vlen;
	struct sbx_meta_op *meta; /* a metadata change, or NULL */
	struct sbx_name_op *name; /* a name change or write open, or NULL */
	const char *what; /* a refused metadata call, described; or NULL */
	size_t sent; /* a stream send: bytes the dispatcher sent already */
	size_t held; /* bytes of data and control copied; counted in ns->held */
	int64_t result; /* performed: >= 0 or -errno */
	struct call *next, *prev; /* in a queue of sbx_netsup */
};

static void
call_free(struct call *c)
{
	if (c->held > 0)
		atomic_fetch_sub(&c->ns->held, c->held);
	if (c->npassed > 0)
		atomic_fetch_sub(&c->ns->held_fds, c->npassed);
	if (c->sock >= 0)
		close(c->sock);
	if (c->newsock >= 0)
		close(c->newsock);
	if (c->target >= 0)
		close(c->target);
	if (c->mem >= 0)
		close(c->mem);
	for (size_t i = 0; i < c->npassed; i++)
		close(c->passed[i]);
	free(c->passed);
	free(c->data);
	sbx_decode_msghdr_free(&c->msg);
	sbx_decode_mmsg_free(c->mmsg, c->vlen);
	sbx_metasup_op_free(c->meta);
	/* An open made but never handed over. */
	if (c->name != NULL && sbx_namesup_addfd_flags(c->name) >= 0 && c->result >= 0)
		close((int)c->result);
	sbx_name_op_free(c->name);
	free(c);
}

struct sbx_netsup *
sbx_netsup_new(const struct sbx_netrules *rules, unsigned flags)
{
	struct sbx_netsup *ns = sbx_xcalloc(1, sizeof(*ns));
	struct rlimit nofile;
	pthread_condattr_t ca;

	ns->rules = rules;
	ns->flags = flags;
	ns->fd = -1;
	ns->diag = -1;
	ns->inet_diag = -1;
	ns->relay_fd = -1;
	ns->tun_fd = -1;
	ns->proxy_admit = -1;
	ns->done_fd = -1;
	ns->refused_fd = -1;
	ns->ruleset = -1;
	ns->meta.as_uid = ns->meta.as_gid = -1;
	ns->wake[0] = ns->wake[1] = -1;
	ns->max_held_fds = MAX_HELD_FDS;
	ns->max_queued = MAX_QUEUED;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		if (nofile.rlim_cur / 4 < MAX_HELD_FDS)
			ns->max_held_fds = (size_t)nofile.rlim_cur / 4;
		if (nofile.rlim_cur / 8 < MAX_QUEUED)
			ns->max_queued =
			    (int)(nofile.rlim_cur / 8 < MIN_QUEUED ? MIN_QUEUED
								   : nofile.rlim_cur / 8);
	}
	pthread_mutex_init(&ns->lock, NULL);
	pthread_mutex_init(&ns->diag_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ns->work, &ca);
	pthread_cond_init(&ns->gone, &ca);
	pthread_condattr_destroy(&ca);
	return ns;
}

void
sbx_netsup_set_meta(struct sbx_netsup *ns, const struct sbx_strv *writable, int as_uid, int as_gid)
{
	ns->meta.writable = writable;
	ns->meta.as_uid = as_uid;
	ns->meta.as_gid = as_gid;
}

void
sbx_netsup_set_guard(struct sbx_netsup *ns, const struct sbx_meta_guard *guard)
{
	if (guard)
		sbx_metasup_set_guard(&ns->meta, guard);
	if (guard && guard->guard_names) {
		ns->names = sbx_namesup_new(&guard->names, guard->fs);
		ns->ruleset = guard->ruleset;
	}
}

void
sbx_netsup_set_trace(struct sbx_netsup *ns, struct sbx_trace *t)
{
	ns->trace = t;
}

bool
sbx_netsup_drop_failed(const struct sbx_netsup *ns)
{
	return ns != NULL && atomic_load(&ns->drop_failed);
}

void
sbx_netsup_set_refusal_hook(struct sbx_netsup *ns, sbx_refusal_fn fn, void *ctx, int fd)
{
	ns->refused = fn;
	ns->refused_ctx = ctx;
	ns->refused_fd = fd;
}

uint64_t
sbx_netsup_denials(const struct sbx_netsup *ns)
{
	return ns ? atomic_load(&ns->denials) : 0;
}

/* Answers a notification with a result or an error, never with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: another thread of the sandbox could
 * change what the call refers to before the kernel went on with it (the
 * one exception, whose target cannot change, is handle_task()). */
static void
respond(struct sbx_netsup *ns, uint64_t id, int64_t val, int errnum)
{
	struct seccomp_notif_resp resp = { .id = id };

	if (errnum)
		resp.error = -errnum;
	else
		resp.val = val;
	/* ENOENT: the caller is gone or was interrupted; nothing to answer. */
	ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* The target of a refused call as text: "127.0.0.1:5432", "[::1]:80", a
 * unix socket's path ("@name" for an abstract one), or the metadata call
 * and its path. Everything in it comes from the sandbox. */
static const char *
call_target(const struct call *c, char *buf, size_t size)
{
	const struct sockaddr *sa = (const struct sockaddr *)&c->addr;
	char text[SBX_ADDR_STRLEN];

	if (c->what != NULL)
		return c->what;
	if (c->addrlen < sizeof(sa_family_t))
		return "";
	if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) {
		sbx_addr_format(sa, c->addrlen, text, sizeof(text));
		snprintf(buf, size, sa->sa_family == AF_INET6 ? "[%s]:%u" : "%s:%u", text,
		    (unsigned)sbx_sockaddr_port(sa, c->addrlen));
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&c->addr;
		size_t n = c->addrlen - offsetof(struct sockaddr_un, sun_path);

		if (c->addrlen <= offsetof(struct sockaddr_un, sun_path))
			snprintf(buf, size, "unix (unnamed)");
		else if (un->sun_path[0] == '\0')
			snprintf(buf, size, "@%.*s", (int)(n - 1), un->sun_path + 1);
		else
			snprintf(buf, size, "%.*s", (int)strnlen(un->sun_path, n), un->sun_path);
	} else {
		snprintf(buf, size, "address family %d", sa->sa_family);
	}
	return buf;
}

/* Hands one counted denial to the refusal hook (the diagnostics line's
 * list and -v), which serialises its callers. */
static void
report_refusal(struct sbx_netsup *ns, const struct call *c, const char *reason)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path) + 32];
	struct sbx_refusal ref = { .kind = c->opname, .why = reason };

	if (ns->refused == NULL)
		return;
	ref.what = call_target(c, buf, sizeof(buf));
	ns->refused(ns->refused_ctx, &ref);
}

static void
emit(struct sbx_netsup *ns, const struct call *c, bool allowed, const char *reason, int result)
{
	char text[SBX_ADDR_STRLEN], upath[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	struct sbx_net_event ev = {
		.op = c->opname,
		.allowed = allowed,
		.reason = reason,
		.pid = c->pid,
		.result = result,
	};

	/* A denial is a refusal by policy; a path that does not exist or a
	 * malformed address is an answer the kernel would have given too. */
	ev.denial = !allowed &&
	    (result == -EACCES || result == -EPERM || result == -EAFNOSUPPORT ||
		result == -EOPNOTSUPP);
	if (ev.denial) {
		atomic_fetch_add(&ns->denials, 1);
		report_refusal(ns, c, reason);
	}
	if (ns->log == NULL)
		return;
	ev.type = c->type;
	if (c->addrlen > 0 && c->addr.ss_family == AF_UNIX) {
		/* Refused: the path asked; allowed: it was made ours already. */
		int k = allowed
		    ? -1
		    : sbx_decode_unix_path(&c->addr, c->addrlen, upath + 1, sizeof(upath) - 1);

		upath[0] = '@';
		if (k >= 0)
			ev.addr = k == 0 ? upath : upath + 1;
	} else if (c->addrlen > 0) {
		ev.addr = sbx_addr_format(
		    (const struct sockaddr *)&c->addr, c->addrlen, text, sizeof(text));
		ev.port = sbx_sockaddr_port((const struct sockaddr *)&c->addr, c->addrlen);
	} else if (allowed && c->sock >= 0 && c->meta == NULL && c->nr != SCMP_SYS(listen)) {
		/* A send on a connected socket: to its peer (the trace looks
		 * for name lookups there). */
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);

		if (getpeername(c->sock, (struct sockaddr *)&peer, &len) == 0 &&
		    len <= sizeof(peer)) {
			ev.addr =
			    sbx_addr_format((struct sockaddr *)&peer, len, text, sizeof(text));
			ev.port = sbx_sockaddr_port((struct sockaddr *)&peer, len);
		}
	}
	if (allowed && c->nr == SCMP_SYS(sendto) && c->data) {
		struct iovec one = { .iov_base = c->data, .iov_len = c->len };

		ev.iov = &one;
		ev.iovlen = 1;
		pthread_mutex_lock(&ns->lock);
		ns->log(ns->ctx, &ev);
		pthread_mutex_unlock(&ns->lock);
		return;
	}
	if (allowed && c->nr == SCMP_SYS(sendmsg)) {
		ev.iov = c->msg.msg_iov;
		ev.iovlen = c->msg.msg_iovlen;
	}
	pthread_mutex_lock(&ns->lock);
	/* sendmmsg: one event a message (a resolver sends A and AAAA). */
	for (unsigned i = 0; allowed && c->nr == SCMP_SYS(sendmmsg) && i < c->vlen; i++) {
		ev.iov = c->mmsg[i].msg_hdr.msg_iov;
		ev.iovlen = c->mmsg[i].msg_hdr.msg_iovlen;
		ns->log(ns->ctx, &ev);
	}
	if (!allowed || c->nr != SCMP_SYS(sendmmsg))
		ns->log(ns->ctx, &ev);
	pthread_mutex_unlock(&ns->lock);
}

static int
peek_alloc(int pid, uint64_t addr, size_t len, size_t max, void **out)
{
	void *buf;

	if (len > max)
		return -1;
	buf = sbx_xmalloc(len ? len : 1);
	if (sbx_notify_peek(pid, addr, buf, len) < 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	return 0;
}

/* Whether addr is this machine: a local address by its form, or one the
 * routing table delivers here (read now, not from a snapshot taken at
 * start): every address of every interface, and what no interface holds
 * but the kernel still takes in, an IPv6 subnet-router anycast address on
 * a forwarding host or a prefix with a "local" route (the host's services
 * answered there). Where the table cannot be asked, one that a socket
 * here can bind. */
static bool
is_local(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_storage copy;
	int s, r;

	if (sbx_addr_is_local(sa, len))
		return true;
	if (len > (socklen_t)sizeof(copy))
		return true;
	r = sbx_route_is_local(sa, len);
	if (r >= 0)
		return r == 1;
	memcpy(&copy, sa, len);
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)&copy)->sin_port = 0;
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)&copy)->sin6_port = 0;
	else
		return true;
	s = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return true; /* cannot tell: refuse */
	r = bind(s, (struct sockaddr *)&copy, len);
	close(s);
	return r == 0 || errno == EADDRINUSE || errno == EACCES;
}

/* Copies the options of the caller's socket that shape what a host
 * socket made in its place does: blocking mode, address reuse, buffer
 * sizes the caller chose (a default is left alone, or the kernel's
 * autotuning would be locked off), IPv6-only, Nagle, keepalive, linger,
 * broadcast. A failure leaves the kernel's default. */
static void
copy_options(int from, int to, int domain, int type)
{
	static const int plain[] = { SO_REUSEADDR, SO_REUSEPORT, SO_KEEPALIVE, SO_BROADCAST };
	static const int sizes[] = { SO_SNDBUF, SO_RCVBUF };
	struct linger lg;
	socklen_t len;
	int v, w, fl = fcntl(from, F_GETFL);

	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(to, F_SETFL, O_NONBLOCK);
	for (size_t i = 0; i < SBX_ARRAY_LEN(plain); i++) {
		len = sizeof(v);
		if (getsockopt(from, SOL_SOCKET, plain[i], &v, &len) == 0 && v != 0)
			setsockopt(to, SOL_SOCKET, plain[i], &v, sizeof(v));
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(sizes); i++) {
		len = sizeof(v);
		if (getsockopt(from, SOL_SOCKET, sizes[i], &v, &len) < 0)
			continue;
		len = sizeof(w);
		/* The kernel doubles what setsockopt asks for. */
		if (getsockopt(to, SOL_SOCKET, sizes[i], &w, &len) == 0 && v != w)
			setsockopt(to, SOL_SOCKET, sizes[i], &(int){ v / 2 }, sizeof(int));
	}
	len = sizeof(lg);
	if (getsockopt(from, SOL_SOCKET, SO_LINGER, &lg, &len) == 0 && lg.l_onoff)
		setsockopt(to, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	len = sizeof(v);
	if (domain == AF_INET6 && getsockopt(from, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len) == 0)
		setsockopt(to, IPPROTO_IPV6, IPV6_V6ONLY, &v, sizeof(v));
	len = sizeof(v);
	if (type == SOCK_STREAM && getsockopt(from, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0 &&
	    v != 0)
		setsockopt(to, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v));
}

/* The rest of a blocking stream send that the dispatcher began without
 * blocking (c->sent bytes went already): sent here, and the result is the
 * whole count, or what went before an error, as the kernel counts a
 * stream send that fails part-way. */
static int64_t
send_rest(struct call *c)
{
	/* On the stack: a worker's filter has no call to grow a heap. */
	struct iovec iov[SBX_DECODE_MAX_IOV];
	struct msghdr m = { .msg_iov = iov };
	size_t skip = c->sent;
	ssize_t n;

	if (c->nr == SCMP_SYS(sendto)) {
		iov[m.msg_iovlen++] = (struct iovec){ c->data + skip, c->len - skip };
	} else {
		size_t i = 0;

		while (i < c->msg.msg_iovlen && skip >= c->msg.msg_iov[i].iov_len)
			skip -= c->msg.msg_iov[i++].iov_len;
		for (; i < c->msg.msg_iovlen && m.msg_iovlen < SBX_ARRAY_LEN(iov); i++)
			iov[m.msg_iovlen++] = c->msg.msg_iov[i];
		if (m.msg_iovlen > 0) {
			iov[0].iov_base = (char *)iov[0].iov_base + skip;
			iov[0].iov_len -= skip;
		}
		/* The control messages went with the first part. */
	}
	n = sendmsg(c->sock, &m, (int)c->arg | MSG_NOSIGNAL);
	return n < 0 ? (int64_t)c->sent : n + (int64_t)c->sent;
}

/* Whether an allowed connect goes to the allowlist proxy: a stream to its
 * port at 127.0.0.1, where it listens, in either family's spelling, the
 * one place the rules give that port back (sbx_addr_is_proxy_host()). */
static bool
reaches_proxy(const struct sbx_netsup *ns, const struct call *c)
{
	const struct sockaddr *sa = (const struct sockaddr *)&c->addr;

	return c->type == SOCK_STREAM && ns->rules->proxy_port != 0 && c->addrlen != 0 &&
	    sbx_sockaddr_port(sa, c->addrlen) == ns->rules->proxy_port &&
	    sbx_addr_is_proxy_host(sa, c->addrlen);
}

/* Tells the proxy the source that socket s will connect to it from
 * (add), or that the connect failed: it serves no other (proxy.h). An
 * unbound socket is bound first, to loopback and port 0 as the connect
 * would bind it, so that its source is known before the connect. A
 * socket of the sandbox's bound to the unspecified address connects to
 * loopback from 127.0.0.1. Nothing is sent when the source cannot be
 * told: the proxy then closes the connection, unserved. */
static void
proxy_announce(struct call *c, int s, bool add)
{
	struct sbx_proxy_admit a = { .add = add };
	struct sockaddr_storage me = { 0 };
	socklen_t len = sizeof(me);

	if (getsockname(s, (struct sockaddr *)&me, &len) < 0)
		return;
	if (add && sbx_sockaddr_port((struct sockaddr *)&me, len) == 0) {
		struct sockaddr_in in4 = { .sin_family = AF_INET };
		struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

		in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in6.sin6_addr.s6_addr[10] = in6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&in6.sin6_addr.s6_addr[12], &in4.sin_addr, 4);
		if ((me.ss_family == AF_INET ? bind(s, (struct sockaddr *)&in4, sizeof(in4))
					     : bind(s, (struct sockaddr *)&in6, sizeof(in6))) < 0)
			return;
		len = sizeof(me);
		if (getsockname(s, (struct sockaddr *)&me, &len) < 0)
			return;
	}
	if (me.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&me;

		a.addr = in->sin_addr.s_addr;
		a.port = in->sin_port;
	} else if (me.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in = (const struct sockaddr_in6 *)&me;

		if (IN6_IS_ADDR_V4MAPPED(&in->sin6_addr))
			memcpy(&a.addr, &in->sin6_addr.s6_addr[12], 4);
		else if (!IN6_IS_ADDR_UNSPECIFIED(&in->sin6_addr))
			return;
		a.port = in->sin6_port;
	} else
		return;
	if (a.addr == htonl(INADDR_ANY))
		a.addr = htonl(INADDR_LOOPBACK);
	(void)send(c->ns->proxy_admit, &a, sizeof(a), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Performs an allowed call on our copy of the socket (or the metadata
 * change); returns the result as the syscall would (>= 0) or -errno. Runs
 * on a worker, with the sandbox's credentials: the kernel judges the call
 * as it would judge the sandbox's own (or on the dispatcher for a connect,
 * when it holds exactly those: connect_now()). A call to rehome is made on
 * a new socket, made here: this thread is in the host's network namespace.
 * A connect the dispatcher began is waited for by connecting again: the
 * kernel then waits for the handshake in progress (EALREADY for a
 * non-blocking socket), as the first connect would have. */
static int64_t
perform(struct call *c)
{
	const struct sockaddr *sa = c->addrlen ? (const struct sockaddr *)&c->addr : NULL;
	ssize_t n = -1;
	int r = -1, s = c->sock;

	if (c->meta != NULL)
		return sbx_metasup_apply(c->meta);
	if (c->name != NULL)
		return sbx_namesup_apply(c->name, c->ns->fd, c->id);
	if (c->rehome && c->newsock < 0) {
		c->newsock = socket(c->domain, c->type | SOCK_CLOEXEC, c->protocol);
		if (c->newsock < 0)
			return -errno;
		copy_options(c->sock, c->newsock, c->domain, c->type);
	}
	if (c->rehome)
		s = c->newsock;
	if (c->nr == SCMP_SYS(connect)) {
		if (c->to_proxy && !c->resumed)
			proxy_announce(c, s, true);
		r = connect(s, sa, c->addrlen);
		if (c->to_proxy && r < 0 && errno != EINPROGRESS && errno != EALREADY &&
		    errno != EINTR) {
			int saved = errno;

			proxy_announce(c, s, false);
			errno = saved;
		}
		/* Resumed, and still in progress when the wait ended (the
		 * socket's SO_SNDTIMEO, or the sandbox made it non-blocking):
		 * the kernel says EALREADY where the first call would have said
		 * EINPROGRESS. */
		if (r < 0 && errno == EALREADY && c->resumed)
			errno = EINPROGRESS;
	} else if (c->nr == SCMP_SYS(bind))
		r = bind(s, sa, c->addrlen);
	else if (c->nr == SCMP_SYS(listen))
		r = listen(s, (int)c->arg);
	else if (c->sent > 0)
		return send_rest(c);
	else if (c->nr == SCMP_SYS(sendto))
		return (n = sendto(
			    s, c->data, c->len, (int)c->arg | MSG_NOSIGNAL, sa, c->addrlen)) < 0
		    ? -errno
		    : n;
	else if (c->nr == SCMP_SYS(sendmsg))
		return (n = sendmsg(s, &c->msg, (int)c->arg | MSG_NOSIGNAL)) < 0 ? -errno : n;
	else if (c->nr == SCMP_SYS(sendmmsg))
		r = sendmmsg(s, c->mmsg, c->vlen, (int)c->arg | MSG_NOSIGNAL);
	return r < 0 ? -errno : r;
}

/* What a worker may call: the calls it makes for the sandbox, and what
 * its own life in the pool needs (SBX_THREAD_RUNTIME_CALLS). Anything else fails
 * with EPERM; write(2) is allowed on the completion eventfd only. */
static const char *const worker_calls[] = {
	"connect",
	"bind",
	"getsockname", /* a connect to the proxy, announced (proxy_announce()) */
	"listen",
	"sendto",
	"sendmsg",
	"sendmmsg",
	"socket",
	"close", /* our copies, once the call is answered */
	"getsockopt",
	"setsockopt",
	"fcntl",
	"chmod",
	"fchmod",
	"fchmodat",
	"fchownat",
	"utimensat",
	"setxattr",
	"fsetxattr",
	"removexattr",
	"fremovexattr",
	"open",
	"openat",
	"truncate",
	"ftruncate", /* a cut after a lease: namesup.c */
	"newfstatat", /* the kind of file opened to be cut */
	"mkdirat",
	"mknodat",
	"symlinkat",
	"linkat",
	"renameat2",
	"unlinkat",
	SBX_THREAD_RUNTIME_CALLS,
	NULL,
};

/* The lists of calls: a call is in at most one at a time. */
static void
list_append(struct call **head, struct call **end, struct call *c)
{
	c->next = NULL;
	c->prev = *end;
	if (*end)
		(*end)->next = c;
	else
		*head = c;
	*end = c;
}

static void
list_remove(struct call **head, struct call **end, struct call *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		*end = c->prev;
	c->next = c->prev = NULL;
}

static int hand_in(struct sbx_netsup *ns, struct call *c, int64_t *r);

/* Gives the caller the descriptor a name call opened for it, at its
 * lowest free number, and that number as the answer. Ours is closed
 * before the caller resumes: the same open file, still open here, kept
 * the file open for writing, so the sandbox's exec of a file it had just
 * written failed with ETXTBSY and its lease with EAGAIN (the listener's
 * sync wake-up runs the caller before this thread). So the descriptor is
 * added without the answer, ours closed, and then the answer sent. A
 * caller interrupted in between keeps the descriptor (its call is
 * restarted): a file the rules let it open. */
static void
hand_over(struct sbx_netsup *ns, struct call *c)
{
	struct seccomp_notif_addfd add = {
		.id = c->id,
		.srcfd = (__u32)c->result,
		.newfd_flags = (__u32)sbx_namesup_addfd_flags(c->name),
	};
	int fd = ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add), saved = errno;

	close((int)c->result);
	c->result = -EBADF; /* handed over or dropped: never closed again */
	if (fd >= 0)
		respond(ns, c->id, fd, 0);
	else if (saved != ENOENT)
		respond(ns, c->id, 0, saved);
}

/* Gives the caller the result of a call performed for it: the host
 * socket made for it first, if any, then the result. */
static void
answer(struct sbx_netsup *ns, struct call *c)
{
	int64_t r = c->result;

	if (c->name != NULL && r >= 0 && sbx_namesup_addfd_flags(c->name) >= 0) {
		hand_over(ns, c);
		return;
	}
	if (c->newsock >= 0 && (r >= 0 || r == -EINPROGRESS) && hand_in(ns, c, &r) < 0)
		return; /* the caller went away */
	respond(ns, c->id, r < 0 ? 0 : r, r < 0 ? (int)-r : 0);
}

/* Whether the worker that performed a call may answer it itself: nothing
 * is left that needs the dispatcher (a trace line, the caller's memory
 * written for sendmmsg, a listener to remember, a metadata change), and
 * no stop has begun (the stop closes the listener only once every thread
 * is out, and then no worker answers any more through the dispatcher
 * either). */
static bool
answers_alone(const struct sbx_netsup *ns, const struct call *c)
{
	return ns->log == NULL && c->meta == NULL && c->nr != SCMP_SYS(sendmmsg) &&
	    !(c->nr == SCMP_SYS(listen) && (ns->flags & OWNS_LISTENERS)) && !ns->stopping;
}

static void *
worker(void *arg)
{
	struct sbx_netsup *ns = arg;
	struct sbx_err err = { 0 };
	uint64_t one = 1;
	/* Before the first call, for good. If this fails, the worker still
	 * answers (so nothing waits on it) but makes no call: EPERM. */
	bool dropped;

	/* A name the host can see (ps -L, /proc/PID/task/TID/comm). */
	(void)prctl(PR_SET_NAME, "sbxrun-worker", 0, 0, 0);
	/* With the name-changing calls: inside the sandbox's own Landlock
	 * filesystem domain first (per thread), so that what a worker makes
	 * is judged by the sandbox's rules, never by the caller's rights. */
	dropped = (ns->names == NULL || sbx_namesup_enter_thread(ns->ruleset) == 0) &&
	    sbx_creds_drop_answering(
		ns->meta.as_uid, ns->meta.as_gid, worker_calls, ns->done_fd, ns->fd, &err) == 0;

	if (!dropped)
		ns->drop_failed = true;

	pthread_mutex_lock(&ns->lock);
	for (;;) {
		struct call *c;

		while (ns->queue == NULL && !ns->stopping) {
			ns->idle++;
			pthread_cond_wait(&ns->work, &ns->lock);
			ns->idle--;
		}
		if (ns->stopping)
			break;
		c = ns->queue;
		if (c == NULL)
			continue; /* not reached: the wait ends with a call queued */
		list_remove(&ns->queue, &ns->queue_end, c);
		ns->nqueued--;
		list_append(&ns->running, &ns->running_end, c);
		pthread_mutex_unlock(&ns->lock);
		/* A call whose caller no longer waits (killed, or the whole
		 * tree gone while the call sat in the queue) is not made: a
		 * sandbox that queued calls behind blocked workers had them
		 * made after its end, during and after the run's checks
		 * (doc/design/supervisor.md). */
		if (dropped && ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &c->id) < 0)
			c->result = -ECANCELED;
		else
			c->result = dropped ? perform(c) : -EPERM;
		pthread_mutex_lock(&ns->lock);
		list_remove(&ns->running, &ns->running_end, c);
		if (dropped && answers_alone(ns, c)) {
			/* The caller resumes now, not after a second hop through
			 * the dispatcher. */
			pthread_mutex_unlock(&ns->lock);
			answer(ns, c);
			call_free(c);
			pthread_mutex_lock(&ns->lock);
			continue;
		}
		list_append(&ns->done, &ns->done_end, c);
		if (write(ns->done_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is already non-zero */
		}
	}
	ns->alive--;
	pthread_cond_broadcast(&ns->gone);
	pthread_mutex_unlock(&ns->lock);
	return NULL;
}

/* The bytes a call holds of the sandbox's: its data and control copies. */
static size_t
msg_bytes(const struct msghdr *m)
{
	size_t n = m->msg_controllen;

	for (size_t i = 0; m->msg_iov && i < m->msg_iovlen; i++)
		n += m->msg_iov[i].iov_len;
	return n;
}

static size_t
copied_bytes(const struct call *c)
{
	size_t n = c->data ? c->len : 0;

	n += msg_bytes(&c->msg);
	for (unsigned i = 0; c->mmsg && i < c->vlen; i++)
		n += msg_bytes(&c->mmsg[i].msg_hdr);
	return n;
}

/* Hands an allowed call to the pool; a worker is made when none is idle
 * for it, up to MAX_WORKERS. The dispatcher itself never performs. */
static void
submit(struct sbx_netsup *ns, struct call *c)
{
	size_t bytes = copied_bytes(c), was = atomic_fetch_add(&ns->held, bytes);

	c->held = bytes;
	if (was > 0 && was + bytes > MAX_HELD) {
		respond(ns, c->id, 0, ENOBUFS);
		emit(ns, c, false, "too many bytes waiting to be sent for the sandbox", -ENOBUFS);
		call_free(c);
		return;
	}
	pthread_mutex_lock(&ns->lock);
	if (ns->stopping) {
		pthread_mutex_unlock(&ns->lock);
		respond(ns, c->id, 0, ECONNABORTED);
		call_free(c);
		return;
	}
	if (ns->nqueued >= ns->max_queued) {
		pthread_mutex_unlock(&ns->lock);
		respond(ns, c->id, 0, EAGAIN);
		emit(ns, c, false, "too many calls waiting for the supervisor's workers", -EAGAIN);
		call_free(c);
		return;
	}
	list_append(&ns->queue, &ns->queue_end, c);
	ns->nqueued++;
	if (ns->nqueued > ns->idle && ns->nworkers < MAX_WORKERS &&
	    pthread_create(&ns->pool[ns->nworkers], NULL, worker, ns) == 0) {
		ns->nworkers++;
		ns->alive++;
	}
	if (ns->nworkers == 0) {
		/* No worker could be made: refused, never made here. */
		list_remove(&ns->queue, &ns->queue_end, c);
		ns->nqueued--;
		pthread_mutex_unlock(&ns->lock);
		respond(ns, c->id, 0, EAGAIN);
		call_free(c);
		return;
	}
	pthread_cond_signal(&ns->work);
	pthread_mutex_unlock(&ns->lock);
}

/* Puts the host socket a worker made for the call in the caller's table,
 * at the number of the socket it used, which it replaces (the kernel
 * closes that one: SECCOMP_ADDFD_FLAG_SETFD works like dup2). The caller
 * is still waiting in the trapped call, so nothing of its own runs in
 * between. -1: the notification is gone; *r gets an error when the socket
 * could not be installed. */
static int
hand_in(struct sbx_netsup *ns, struct call *c, int64_t *r)
{
	struct seccomp_notif_addfd a = {
		.id = c->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t)c->newsock,
		.newfd = (uint32_t)c->fdnum,
		.newfd_flags = c->cloexec ? O_CLOEXEC : 0,
	};

	if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) >= 0)
		return 0;
	if (errno == ENOENT)
		return -1;
	*r = -errno;
	return 0;
}

/* Remembers a listener the sandbox made on its loopback (the landlock
 * backend; under namespaces, on a listen port, where it is the host's),
 * by its socket cookie: unique for the life of the system, so a later
 * listener on the same port, the host's, is never taken for it. */
static void
own_listener(struct sbx_netsup *ns, const struct call *c)
{
	uint64_t cookie;
	socklen_t len = sizeof(cookie);

	if (ns->nowned >= MAX_OWNED ||
	    getsockopt(c->sock, SOL_SOCKET, SO_COOKIE, &cookie, &len) < 0)
		return;
	ns->owned = sbx_xreallocarray(ns->owned, ns->nowned + 1, sizeof(*ns->owned));
	ns->owned[ns->nowned++] = cookie;
}

/* Answers one call performed for the sandbox, on a worker or here: the
 * lengths sendmmsg reports, the host socket made for it, the listener to
 * remember, the descriptor a name call opened, the result, the trace. */
static void
conclude(struct sbx_netsup *ns, struct call *c)
{
	int64_t r = c->result;

	/* sendmmsg reports each message's sent length in its msg_len:
	 * write ours back into the caller's array (glibc's resolver
	 * reads them). Done here: it needs access to the caller. */
	for (int64_t i = 0; c->nr == SCMP_SYS(sendmmsg) && i < r; i++)
		sbx_notify_poke(c->mem,
		    c->mmsg_at + (uint64_t)i * sizeof(struct mmsghdr) +
			offsetof(struct mmsghdr, msg_len),
		    &c->mmsg[i].msg_len, sizeof(c->mmsg[i].msg_len));
	if (c->newsock >= 0 && (r >= 0 || r == -EINPROGRESS) && hand_in(ns, c, &r) < 0) {
		call_free(c); /* the caller went away */
		return;
	}
	if (c->nr == SCMP_SYS(listen) && r == 0 && (ns->flags & OWNS_LISTENERS))
		own_listener(ns, c);
	if (c->name != NULL && r >= 0 && sbx_namesup_addfd_flags(c->name) >= 0) {
		hand_over(ns, c);
	} else {
		respond(ns, c->id, r < 0 ? 0 : r, r < 0 ? (int)-r : 0);
	}
	if (c->meta == NULL && c->name == NULL)
		emit(ns, c, true, NULL, r < 0 ? (int)r : 0);
	call_free(c);
}

/* Answers the calls the workers finished. */
static void
finish(struct sbx_netsup *ns)
{
	struct call *list, *c;
	uint64_t n;

	if (read(ns->done_fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing new; the list says */
	}
	pthread_mutex_lock(&ns->lock);
	list = ns->done;
	ns->done = ns->done_end = NULL;
	pthread_mutex_unlock(&ns->lock);
	while ((c = list) != NULL) {
		list = c->next;
		conclude(ns, c);
	}
}

static int
fetch_caller(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return sbx_notify_peek(*(const int *)ctx, addr, buf, len);
}

/* Descriptors passed in a message we send for the caller are numbers in
 * the caller's table: each is taken (pidfd_getfd) and our copy's number
 * put in our copy of the message, or sbxrun would pass its own. Counted
 * against MAX_HELD_FDS until the call is freed. */
static int
take_passed(void *ctx, int fd)
{
	struct call *c = ctx;
	size_t was = atomic_fetch_add(&c->ns->held_fds, 1);
	int ours;

	/* Those of other calls held: one call alone always gets its own. */
	if (was > c->npassed && was >= c->ns->max_held_fds) {
		atomic_fetch_sub(&c->ns->held_fds, 1);
		return -ETOOMANYREFS;
	}
	if ((ours = sbx_notify_take_fd(c->pid, fd)) < 0) {
		atomic_fetch_sub(&c->ns->held_fds, 1);
		return -EBADF;
	}
	c->passed = sbx_xreallocarray(c->passed, c->npassed + 1, sizeof(int));
	c->passed[c->npassed++] = ours;
	return ours;
}

/* Reads one notification's call out of the caller; -errno on failure. */
/* The flags a send made for the sandbox keeps: those that say how the
 * data goes. Never MSG_ZEROCOPY: on a socket the sandbox gave
 * SO_ZEROCOPY, the kernel would pin the pages of sbxrun's copy of the
 * data instead of copying them, and what was still queued when
 * call_free() gave that memory back went out later as whatever sbxrun
 * wrote there since (pointers, its heap's metadata), to a peer that may
 * be the sandbox's own listener. Nor a flag a later kernel adds. */
#ifndef MSG_PROBE
#define MSG_PROBE 0x10 /* the kernel's name; glibc calls it MSG_PROXY */
#endif
#define SEND_FLAGS_KEPT \
	(MSG_OOB | MSG_DONTROUTE | MSG_PROBE | MSG_DONTWAIT | MSG_EOR | MSG_CONFIRM | \
	    MSG_NOSIGNAL | MSG_MORE | MSG_FASTOPEN)

static int
gather(SBX_UNUSED struct sbx_netsup *ns, const struct seccomp_notif *req, struct call *c)
{
	const __u64 *a = req->data.args;
	int pid = (int)req->pid, domain = 0, r;
	struct sbx_fetch f = { fetch_caller, &pid };
	socklen_t olen = sizeof(int);

	c->sock = sbx_notify_take_fd((int)req->pid, (int)a[0]);
	if (c->sock < 0)
		return errno == EBADF ? -EBADF : -EPERM;
	if (getsockopt(c->sock, SOL_SOCKET, SO_DOMAIN, &domain, &olen) < 0)
		return -ENOTSOCK;
	olen = sizeof(int);
	if (getsockopt(c->sock, SOL_SOCKET, SO_TYPE, &c->type, &olen) < 0)
		return -ENOTSOCK;
	olen = sizeof(int);
	if (getsockopt(c->sock, SOL_SOCKET, SO_PROTOCOL, &c->protocol, &olen) < 0)
		return -ENOTSOCK;
	if (c->nr == SCMP_SYS(connect) || c->nr == SCMP_SYS(bind))
		return (r = sbx_decode_addr(&f, a[1], a[2], &c->addr, &c->addrlen)) < 0 ? r
											: domain;
	if (c->nr == SCMP_SYS(listen)) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		c->arg = a[1];
		if (getsockname(c->sock, (struct sockaddr *)&ss, &len) == 0) {
			c->addrlen = len < sizeof(ss) ? len : sizeof(ss);
			memcpy(&c->addr, &ss, c->addrlen);
		}
		return domain;
	}
	if (c->nr == SCMP_SYS(sendto)) {
		if ((r = sbx_decode_addr(&f, a[4], a[5], &c->addr, &c->addrlen)) < 0)
			return r;
		if (peek_alloc(pid, a[1], a[2], SBX_DECODE_MAX_PAYLOAD, (void **)&c->data) < 0)
			return -EFAULT;
		c->len = a[2];
		c->arg = (uint64_t)(int)a[3] & SEND_FLAGS_KEPT;
		return domain;
	}
	if (c->nr == SCMP_SYS(sendmsg)) {
		if ((r = sbx_decode_msghdr(&f, a[1], &c->msg)) < 0 ||
		    (r = sbx_decode_rights(&c->msg, take_passed, c)) < 0)
			return r;
		if (c->msg.msg_name) {
			memcpy(&c->addr, c->msg.msg_name, c->msg.msg_namelen);
			c->addrlen = c->msg.msg_namelen;
		}
		c->arg = a[2] & SEND_FLAGS_KEPT;
		return domain;
	}
	if (c->nr == SCMP_SYS(sendmmsg)) {
		/* The lengths are written back once a worker has sent,
		 * maybe long after the check that follows this gathering:
		 * through the memory opened before it, never by the pid
		 * again (another process may have it by then). */
		c->mmsg_at = a[1];
		c->mem = sbx_notify_mem_open(pid);
		if ((r = sbx_decode_mmsg(&f, a[1], a[2], &c->mmsg, &c->vlen)) < 0)
			return r;
		/* The messages share one message's count of descriptors, as
		 * sbx_decode_mmsg() shares its bytes: 1024 messages of 253
		 * each were 259,072 descriptors in sbxrun's table. The first
		 * that does not fit ends the array (sent and counted up to
		 * there, as the kernel counts those before a failing one). */
		for (unsigned i = 0; i < c->vlen; i++) {
			size_t before = c->npassed;

			r = sbx_decode_rights(&c->mmsg[i].msg_hdr, take_passed, c);
			if (r == 0 && c->npassed <= SBX_DECODE_MAX_RIGHTS)
				continue;
			if (i == 0)
				return r < 0 ? r : -EINVAL;
			while (c->npassed > before) {
				close(c->passed[--c->npassed]);
				atomic_fetch_sub(&c->ns->held_fds, 1);
			}
			for (unsigned j = i; j < c->vlen; j++)
				sbx_decode_msghdr_free(&c->mmsg[j].msg_hdr);
			c->vlen = i;
		}
		c->arg = a[3] & SEND_FLAGS_KEPT;
		return domain;
	}
	return domain;
}

static bool owned_listener(struct sbx_netsup *ns, const struct sockaddr *sa, socklen_t len);

/* Whether our copy of a socket lives in the host's network namespace
 * (SBX_NETSUP_OWN_NETNS): one the supervisor handed in. Told by the
 * namespace's cookie (SO_NETNS_COOKIE, Linux 5.14), which needs no
 * right over either namespace; if it cannot be read, the host's. */
static bool
in_host_netns(const struct sbx_netsup *ns, int sock)
{
	uint64_t cookie;
	socklen_t len = sizeof(cookie);

	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) < 0)
		return true;
	return cookie == ns->host_netns;
}

/* Whether the caller's descriptor fd has FD_CLOEXEC: a flag of its table,
 * not of the socket, shown in /proc/PID/fdinfo/FD with the open flags. */
static bool
fd_cloexec(int pid, int fd)
{
	char path[64], text[512];
	unsigned flags = 0;
	const char *at;
	ssize_t n;
	int f;

	/* One read (the flags come second, after "pos:"), no stdio: this is
	 * on the path of every connect that leaves the jail. */
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	n = read(f, text, sizeof(text) - 1);
	close(f);
	if (n <= 0)
		return false;
	text[n] = '\0';
	at = strstr(text, "flags:");
	if (at == NULL || sscanf(at, "flags: %o", &flags) != 1)
		return false;
	return (flags & O_CLOEXEC) != 0;
}

/* Opens the socket file that a path names in the caller's view of the
 * filesystem: absolute paths under its root (symlinks resolved inside that
 * root), relative ones from its cwd without following any symlink (which
 * would be resolved against sbxrun's root instead). The root or cwd is
 * reached by the caller's pid: only once its descriptor is open is the
 * notification asked whether that pid is still the trapped caller (a
 * process of the host given the number meanwhile would lend its view). */
static int
open_in_caller(const struct sbx_netsup *ns, const struct call *c, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	uint64_t id = c->id;
	char dir[64];
	int dfd, fd;

	snprintf(dir, sizeof(dir), "/proc/%d/%s", c->pid, path[0] == '/' ? "root" : "cwd");
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0) {
		close(dfd);
		errno = ESRCH;
		return -1;
	}
	if (path[0] == '/') {
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		while (*path == '/')
			path++;
		if (*path == '\0')
			path = ".";
	} else {
		how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	}
	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	close(dfd);
	return fd;
}

/* Whether a unix socket bound to the file (dev, ino) lives in the jail's
 * network namespace, asked of the kernel with a sock_diag dump there. */
static bool
bound_inside(struct sbx_netsup *ns, dev_t dev, ino_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} q = {
		.nlh = { .nlmsg_len = sizeof(q),
		    .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = AF_UNIX,
		    .udiag_states = ~0u,
		    .udiag_show = UDIAG_SHOW_VFS },
	};
	/* The kernel's dev_t: major << 20 | minor. */
	uint32_t kdev = (major(dev) << 20) | minor(dev);
	char buf[16384];
	bool found = false, done = false;

	pthread_mutex_lock(&ns->diag_lock);
	if (send(ns->diag, &q, sizeof(q), MSG_NOSIGNAL) < 0)
		done = true;
	while (!done) {
		ssize_t n = recv(ns->diag, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a;
			int len;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, len);
			     len -= (int)RTA_ALIGN(a->rta_len),
			    a = (struct rtattr *)((char *)a + RTA_ALIGN(a->rta_len))) {
				struct unix_diag_vfs *v = RTA_DATA(a);

				if (a->rta_type == UNIX_DIAG_VFS && v->udiag_vfs_dev == kdev &&
				    v->udiag_vfs_ino == ino)
					found = true;
			}
		}
	}
	pthread_mutex_unlock(&ns->diag_lock);
	return found;
}

static bool
owned_cookie(const struct sbx_netsup *ns, uint64_t cookie)
{
	for (size_t i = 0; i < ns->nowned; i++)
		if (ns->owned[i] == cookie)
			return true;
	return false;
}

/* Whether a listener of address family fam at addr (network order, 4 or
 * 16 bytes) would take a connection to dst (4 bytes for IPv4, or 16):
 * the same address or a wildcard, an IPv6 listener taking IPv4 through
 * the mapped form too unless it is IPv6-only (v6only, which sock_diag
 * reports for every IPv6 listener). Errs on the side of "it would". */
static bool
covers(int fam, const uint32_t *addr, bool v6only, const uint8_t *dst, size_t dlen)
{
	static const uint8_t zero[16];
	uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff };

	if (fam == AF_INET)
		return dlen == 4 && (addr[0] == 0 || memcmp(addr, dst, 4) == 0);
	if (dlen == 4 && v6only)
		return false;
	if (memcmp(addr, zero, 16) == 0)
		return true;
	if (dlen == 16)
		return memcmp(addr, dst, 16) == 0;
	memcpy(mapped + 12, dst, 4);
	return memcmp(addr, mapped, 16) == 0;
}

/* Whether the inet_diag answer h carries INET_DIAG_SKV6ONLY, set. */
static bool
diag_v6only(const struct nlmsghdr *h)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

	for (const struct rtattr *a = (const struct rtattr *)(m + 1); RTA_OK(a, len);
	     len -= (int)RTA_ALIGN(a->rta_len),
				 a = (const struct rtattr *)((const char *)a +
				     RTA_ALIGN(a->rta_len)))
		if (a->rta_type == INET_DIAG_SKV6ONLY && RTA_PAYLOAD(a) >= 1)
			return *(const uint8_t *)RTA_DATA(a) != 0;
	return false;
}

/* Whether every TCP listener that a connect to sa would reach is one the
 * sandbox made (own_listener), and there is one: asked of the kernel
 * (sock_diag) at each connect, never remembered by port, since a host
 * process may take the port as soon as the sandbox lets it go. The
 * kernel filters the dump by the port (the request's source port, and
 * INET_DIAG_BC_S_EQ for a kernel that would not): another user's
 * listeners elsewhere cost only the kernel's walk over them, ~0.1 us
 * each (19,000 of them: 1.8 ms a connect, against 14.5 when each was
 * sent here and parsed). */
static bool
owned_listener(struct sbx_netsup *ns, const struct sockaddr *sa, socklen_t len)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	uint8_t dst[16];
	size_t dlen;
	uint16_t port = sbx_sockaddr_port(sa, len);
	bool mine = false, foreign = false;

	if (ns->inet_diag < 0 || ns->nowned == 0)
		return false;
	if (sa->sa_family == AF_INET) {
		memcpy(dst, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		dlen = 4;
	} else {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			memcpy(dst, a->s6_addr + 12, 4);
			dlen = 4;
		} else {
			memcpy(dst, a->s6_addr, 16);
			dlen = 16;
		}
	}
	pthread_mutex_lock(&ns->diag_lock);
	for (size_t f = 0; f < SBX_ARRAY_LEN(fams) && !foreign; f++) {
		struct {
			struct nlmsghdr nlh;
			struct inet_diag_req_v2 req;
			struct rtattr rta;
			struct inet_diag_bc_op bc[2];
		} q = {
			.nlh = { .nlmsg_len = sizeof(q),
			    .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
			.req = { .sdiag_family = (uint8_t)fams[f],
			    .sdiag_protocol = IPPROTO_TCP,
			    .idiag_states = 1u << 10 /* TCP_LISTEN */,
			    .id = { .idiag_sport = htons(port) } },
			.rta = { .rta_len = RTA_LENGTH(sizeof(q.bc)),
			    .rta_type = INET_DIAG_REQ_BYTECODE },
			/* Source port == port: on to the end (kept), else
			 * past it (dropped). */
			.bc = { { INET_DIAG_BC_S_EQ, sizeof(q.bc), sizeof(q.bc) + 4 },
			    { 0, 0, port } },
		};
		char buf[16384];
		bool done = false;

		if (fams[f] == AF_INET && dlen == 16)
			continue; /* an IPv6 destination: IPv4 listeners cannot take it */
		if (send(ns->inet_diag, &q, sizeof(q), MSG_NOSIGNAL) < 0) {
			foreign = true;
			break;
		}
		while (!done) {
			ssize_t n = recv(ns->inet_diag, buf, sizeof(buf), 0);
			struct nlmsghdr *h;

			if (n <= 0) {
				foreign = true; /* cannot tell: refuse */
				break;
			}
			for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
			     h = NLMSG_NEXT(h, n)) {
				const struct inet_diag_msg *m = NLMSG_DATA(h);
				uint64_t cookie;

				if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
					done = true;
					break;
				}
				if (ntohs(m->id.idiag_sport) != port ||
				    !covers(m->idiag_family, m->id.idiag_src,
					m->idiag_family == AF_INET6 && diag_v6only(h), dst, dlen))
					continue;
				cookie = (uint64_t)m->id.idiag_cookie[0] |
				    (uint64_t)m->id.idiag_cookie[1] << 32;
				if (owned_cookie(ns, cookie))
					mine = true;
				else
					foreign = true;
			}
		}
	}
	pthread_mutex_unlock(&ns->diag_lock);
	return mine && !foreign;
}

/* The path of a unix address in c (NUL-terminated into buf); 0 for an
 * abstract name, -1 for a malformed address. */
static int
unix_path(const struct call *c, char *buf, size_t size)
{
	return sbx_decode_unix_path(&c->addr, c->addrlen, buf, size);
}

/* Points c's address at "fmt" (a /proc/self/fd path of ours). */
static int
set_unix_path(struct call *c, const char *path)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&c->addr;

	if (strlen(path) >= sizeof(un->sun_path))
		return -1;
	memset(un->sun_path, 0, sizeof(un->sun_path));
	memcpy(un->sun_path, path, strlen(path));
	un->sun_family = AF_UNIX;
	c->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	return 0;
}

/* A send whose address the kernel would not use: our copy goes without. */
static void
drop_address(struct call *c)
{
	c->addrlen = 0;
	free(c->msg.msg_name);
	c->msg.msg_name = NULL;
	c->msg.msg_namelen = 0;
	for (unsigned i = 0; c->mmsg && i < c->vlen; i++) {
		free(c->mmsg[i].msg_hdr.msg_name);
		c->mmsg[i].msg_hdr.msg_name = NULL;
		c->mmsg[i].msg_hdr.msg_namelen = 0;
	}
}

/* A unix path to connect or send to (SBX_NETACT_UNIX_PEER): resolved in
 * the caller's view of the filesystem to the socket file, which must be
 * there, bound inside the jail's own network namespace if cls says so,
 * not at or below a hidden path, and in the writable trees if cls says
 * so. The call is then made on behalf with "/proc/self/fd/N" for the
 * file that was checked, so a path swapped after the check changes
 * nothing. */
static struct sbx_netverdict
resolve_unix_peer(struct sbx_netsup *ns, struct call *c, const struct sbx_netclass *cls)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1], proc[64];
	const char *why = NULL;
	struct stat st;

	if (unix_path(c, path, sizeof(path)) <= 0)
		return (struct sbx_netverdict){ false, EINVAL, "bad unix address" };
	c->target = open_in_caller(ns, c, path);
	if (c->target < 0)
		return (struct sbx_netverdict){ false, errno == ENOENT ? ENOENT : EACCES,
			"unix socket path not reachable" };
	if (fstat(c->target, &st) < 0 || !S_ISSOCK(st.st_mode))
		return (struct sbx_netverdict){ false, ECONNREFUSED, "not a socket" };
	if (cls->peer_bound_inside && !bound_inside(ns, st.st_dev, st.st_ino))
		return (struct sbx_netverdict){ false, EACCES, "a host unix socket" };
	/* A socket at or below a hidden path stays out of reach, as the
	 * path does (the sandbox can still use protected ones: reading). */
	if (sbx_metasup_guarded(&ns->meta, c->target, SBX_GUARD_HIDDEN, &why))
		return (struct sbx_netverdict){ false, EACCES, why };
	if (cls->peer_writable && !sbx_metasup_in_writable(&ns->meta, c->target))
		return (struct sbx_netverdict){ false, EACCES, "a host unix socket" };
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", c->target);
	if (set_unix_path(c, proc) < 0)
		return (struct sbx_netverdict){ false, ENAMETOOLONG, "unix path too long" };
	if (c->nr == SCMP_SYS(sendmsg)) {
		free(c->msg.msg_name);
		c->msg.msg_name = sbx_xmalloc(c->addrlen);
		memcpy(c->msg.msg_name, &c->addr, c->addrlen);
		c->msg.msg_namelen = c->addrlen;
	}
	return (struct sbx_netverdict){ .allow = true };
}

/* A unix path to bind (SBX_NETACT_UNIX_BIND): made in the directory the
 * caller's view gives it, reached by our descriptor of that directory,
 * which must be a writable tree if cls says so (the landlock backend,
 * with the host's view). */
static struct sbx_netverdict
resolve_unix_bind(struct sbx_netsup *ns, struct call *c, const struct sbx_netclass *cls)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1], proc[PATH_MAX];
	const char *name, *dir = ".", *why = NULL;
	char *slash;

	if (unix_path(c, path, sizeof(path)) <= 0)
		return (struct sbx_netverdict){ false, EINVAL, "bad unix address" };
	slash = strrchr(path, '/');
	if (slash != NULL) {
		*slash = '\0';
		dir = slash == path ? "/" : path;
		name = slash + 1;
	} else {
		name = path;
	}
	if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return (struct sbx_netverdict){ false, EINVAL, "bad unix socket name" };
	c->target = open_in_caller(ns, c, dir);
	if (c->target < 0)
		return (struct sbx_netverdict){ false, errno == ENOENT ? ENOENT : EACCES,
			"unix socket directory not reachable" };
	if (cls->bind_writable && !sbx_metasup_in_writable(&ns->meta, c->target))
		return (struct sbx_netverdict){ false, EACCES,
			"a unix socket outside the writable trees" };
	/* A new entry: not in a frozen directory, nor at or below a hidden
	 * or a protected path, as for the sandbox's own mknod. */
	if (sbx_metasup_guarded(&ns->meta, c->target,
		SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT | SBX_GUARD_FROZEN, &why))
		return (struct sbx_netverdict){ false, EACCES, why };
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", c->target, name);
	if (set_unix_path(c, proc) < 0)
		return (struct sbx_netverdict){ false, ENAMETOOLONG, "unix path too long" };
	return (struct sbx_netverdict){ .allow = true };
}

/* A call record for the notification req, with nothing taken yet. */
static struct call *
call_new(struct sbx_netsup *ns, const struct seccomp_notif *req, const char *opname)
{
	struct call *c = sbx_xcalloc(1, sizeof(*c));

	c->ns = ns;
	c->id = req->id;
	c->pid = (int)req->pid;
	c->nr = req->data.nr;
	c->opname = opname;
	c->sock = c->target = c->newsock = c->mem = -1;
	c->result = -ENOSYS; /* nothing made: no descriptor to close */
	return c;
}

/* Answers a path call (a name or a metadata change) that was not made:
 * errnum, and with a reason a counted refusal named what (described from
 * what the decision copied, namesup.h, metasup.h). */
static void
path_call_refused(struct sbx_netsup *ns, struct call *c, int errnum, const char *reason, char *what)
{
	if (reason)
		c->what = what;
	respond(ns, c->id, 0, errnum);
	if (reason)
		emit(ns, c, false, reason, -errnum);
	call_free(c);
}

/* A call that makes, removes, renames or writes a name: decided here
 * (namesup.c), made by a worker inside the sandbox's Landlock domain. */
static void
handle_name(struct sbx_netsup *ns, const struct seccomp_notif *req)
{
	struct call *c = call_new(ns, req, "name");
	char what[SBX_DENIED_WHAT_MAX + 1];
	const char *reason = NULL;
	int errnum = 0;

	if (sbx_namesup_prepare(ns->names, &ns->meta, ns->fd, req, &c->name, &errnum, &reason, what,
		sizeof(what)) < 0) {
		call_free(c); /* the caller went away */
		return;
	}
	if (c->name != NULL)
		submit(ns, c);
	else
		path_call_refused(ns, c, errnum, reason, what);
}

/* A metadata call: decided here (metasup.c), made by a worker, or here
 * when this thread holds the sandbox's rights and the call cannot block. */
static void
handle_meta(struct sbx_netsup *ns, const struct seccomp_notif *req)
{
	struct call *c = call_new(ns, req, "metadata");
	char what[SBX_DENIED_WHAT_MAX + 1];
	const char *reason = NULL;
	int errnum = 0;

	if (ns->trace)
		sbx_trace_note(ns->trace, req); /* judged below, as without a trace */
	if (sbx_metasup_prepare(
		&ns->meta, ns->fd, req, &c->meta, &errnum, &reason, what, sizeof(what)) < 0) {
		call_free(c); /* the caller went away */
		return;
	}
	/* Under landlock this thread already holds the sandbox's ids and no
	 * capability (SBX_NETSUP_READ_DROPPED), as a worker does: a change
	 * that cannot block is made here, without the hop to a worker and
	 * back (doc/design/startup.md). */
	if (c->meta != NULL && (ns->flags & SBX_NETSUP_READ_DROPPED) &&
	    sbx_metasup_cannot_block(c->meta)) {
		int64_t r = sbx_metasup_apply(c->meta);
		uint64_t id = c->id;

		/* Freed first: the answer wakes the caller on this CPU. */
		call_free(c);
		respond(ns, id, r < 0 ? 0 : r, r < 0 ? (int)-r : 0);
		return;
	}
	if (c->meta != NULL)
		submit(ns, c);
	else
		path_call_refused(ns, c, errnum, reason, what);
}

/* A call that changes a task's scheduling or limits (tasksup.h): let go
 * on when it acts on the caller, else refused. One of the two answers
 * here that are SECCOMP_USER_NOTIF_FLAG_CONTINUE (the other: an O_PATH
 * open, namesup.h), and why that is safe: what the
 * call acts on is an int in a register, fixed at the trap, and it is let
 * go on only when it is the calling thread's id or its process's, which
 * stay the caller's while it waits in this call (a thread group's id
 * outlives its leader until the last thread ends). Another pid, even one
 * of the sandbox's own tasks now, could be given to a task outside
 * (sbxrun's worker threads are made on the sandbox's demand) between the
 * check and the kernel's lookup. */
static void
handle_task(struct sbx_netsup *ns, const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp = { .id = req->id };
	enum sbx_task_verdict v;
	const char *why = NULL;
	char what[SBX_DENIED_WHAT_MAX + 1];
	uint64_t args[6];
	struct call *c;
	pid_t target;

	if (ns->trace)
		sbx_trace_note(ns->trace, req); /* judged below, as without a trace */
	for (size_t i = 0; i < SBX_ARRAY_LEN(args); i++)
		args[i] = req->data.args[i];
	v = sbx_tasksup_judge(req->data.nr, args, &target, &why);
	if (v == SBX_TASK_IF_CALLER && target != (pid_t)req->pid) {
		int tgid = sbx_notify_tgid((int)req->pid);

		/* Was that the caller's status, not a reused thread id's? */
		if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &resp.id) < 0)
			return;
		if (tgid <= 0 || target != tgid)
			v = SBX_TASK_REFUSE;
	}
	if (v == SBX_TASK_UNLESS_LEADER) {
		/* The group of the session's leader is init's: a session id
		 * is the leader's pid. The arguments are the caller's
		 * registers, the same when the call goes on. */
		pid_t sid = getsid((pid_t)req->pid);

		if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &resp.id) < 0)
			return;
		v = sid <= 0 || target == sid ? SBX_TASK_REFUSE : SBX_TASK_ALLOW;
	}
	if (v != SBX_TASK_REFUSE) {
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	c = call_new(ns, req, "process");
	sbx_tasksup_describe(req->data.nr, args, what, sizeof(what));
	c->what = what;
	respond(ns, c->id, 0, EPERM);
	emit(ns, c, false, why, -EPERM);
	call_free(c);
}

/* The facts sbx_net_classify() asks of the running system, for one call. */
struct facts_ctx {
	struct sbx_netsup *ns;
	const struct call *c;
};

static bool
fact_is_local(SBX_UNUSED void *ctx, const struct sockaddr *sa, socklen_t len)
{
	return is_local(sa, len);
}

static bool
fact_owned_listener(void *ctx, const struct sockaddr *sa, socklen_t len)
{
	return owned_listener(((struct facts_ctx *)ctx)->ns, sa, len);
}

static bool
fact_v6only(void *ctx)
{
	int v6only = 0;
	socklen_t len = sizeof(v6only);

	getsockopt(((struct facts_ctx *)ctx)->c->sock, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &len);
	return v6only != 0;
}

/* The kind of a trapped call, and its name in the trace. */
static enum sbx_netcall_kind
call_kind(int nr, const char **name)
{
	static const struct {
		int nr;
		enum sbx_netcall_kind kind;
		const char *name;
	} kinds[] = {
		{ SCMP_SYS(connect), SBX_NETCALL_CONNECT, "connect" },
		{ SCMP_SYS(bind), SBX_NETCALL_BIND, "bind" },
		{ SCMP_SYS(listen), SBX_NETCALL_LISTEN, "listen" },
		{ SCMP_SYS(sendto), SBX_NETCALL_SENDTO, "send" },
		{ SCMP_SYS(sendmsg), SBX_NETCALL_SENDMSG, "send" },
		{ SCMP_SYS(sendmmsg), SBX_NETCALL_SENDMMSG, "send" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(kinds); i++) {
		if (kinds[i].nr == nr) {
			*name = kinds[i].name;
			return kinds[i].kind;
		}
	}
	*name = "send";
	return SBX_NETCALL_OTHER;
}

static void act_end(struct sbx_netsup *ns);

/* Before a call the dispatcher makes for the sandbox: a reader (a root
 * caller's under namespaces) takes CAP_SYS_PTRACE out of its effective
 * set, so that the kernel judges the call with exactly the sandbox's
 * rights, as on a worker (doc/design/supervisor.md). False: it could not,
 * and a worker makes the call. */
static bool
act_begin(struct sbx_netsup *ns)
{
	if (!ns->quiets || sbx_creds_reader_quiet(true) == 0)
		return true;
	act_end(ns);
	return false;
}

/* After it: the capability back, which reading the sandbox needs. A
 * dispatcher that cannot take it back refuses every call from then on. */
static void
act_end(struct sbx_netsup *ns)
{
	if (ns->quiets && sbx_creds_reader_quiet(false) < 0) {
		ns->refuse_all = true;
		ns->sends_inline = false;
		ns->connects_inline = false;
	}
}

/* A send on a connected stream (no Fast Open: the address is dropped),
 * made here at once when it cannot block: with MSG_DONTWAIT, so that
 * nothing the sandbox does stalls this thread. Only when this thread
 * holds the sandbox's rights and no more (ns->sends_inline): the kernel
 * then judges it as it would the sandbox's own, as on a worker. A
 * blocking caller whose data did not all fit is not answered yet: false,
 * and a worker sends the rest (c->sent counts what went). True: answered. */
static bool
send_now(struct sbx_netsup *ns, struct call *c)
{
	int fl = fcntl(c->sock, F_GETFL), flags = (int)c->arg | MSG_NOSIGNAL | MSG_DONTWAIT;
	bool waits = !(c->arg & MSG_DONTWAIT) && !(fl >= 0 && (fl & O_NONBLOCK));
	size_t total = 0;
	ssize_t n;
	int64_t r;

	if (!act_begin(ns))
		return false; /* c->sent is 0: a worker sends it all */
	if (c->nr == SCMP_SYS(sendto)) {
		total = c->len;
		n = sendto(c->sock, c->data, c->len, flags, NULL, 0);
	} else {
		for (size_t i = 0; i < c->msg.msg_iovlen; i++)
			total += c->msg.msg_iov[i].iov_len;
		n = sendmsg(c->sock, &c->msg, flags);
	}
	r = n < 0 ? -errno : n;
	act_end(ns);
	if (waits && (r == -EAGAIN || (r > 0 && (size_t)r < total))) {
		c->sent = r > 0 ? (size_t)r : 0;
		return false;
	}
	respond(ns, c->id, r < 0 ? 0 : r, r < 0 ? (int)-r : 0);
	emit(ns, c, true, NULL, r < 0 ? (int)r : 0);
	call_free(c);
	return true;
}

static void
connect_signal(SBX_UNUSED int sig)
{
	/* Only to interrupt the dispatcher's connect (EINTR). */
}

/* The timer and the signal that bound connect_now(), on this thread (the
 * dispatcher): false leaves every connect to the workers. The handler has
 * no SA_RESTART, so the kernel ends the interrupted connect with EINTR and
 * leaves the handshake in progress. */
static bool
connect_timer_new(struct sbx_netsup *ns)
{
	struct sigaction sa = { .sa_handler = connect_signal };
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = CONNECT_SIGNAL };

	ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, glibc 2.35 */
	sigemptyset(&sa.sa_mask);
	return sigaction(CONNECT_SIGNAL, &sa, NULL) == 0 &&
	    timer_create(CLOCK_MONOTONIC, &ev, &ns->connect_timer) == 0;
}

/* An allowed inet connect, made here at once (perform(), as a worker makes
 * it: the host socket and its options for a rehomed one, the caller's
 * blocking mode) when this thread holds the sandbox's rights and no more
 * (ns->connects_inline): two thread wake-ups less. A timer signals this
 * thread every CONNECT_INLINE_US while the call runs, so that a peer that
 * never answers (or a sandbox that flips its socket to blocking) holds it
 * that long at most: the connect ends with EINTR, the handshake goes on,
 * and a worker waits for it (false). True: answered. */
static bool
connect_now(struct sbx_netsup *ns, struct call *c)
{
	const struct timespec step = { 0, CONNECT_INLINE_US * 1000L };
	const struct itimerspec on = { step, step }, off = { { 0, 0 }, { 0, 0 } };
	sigset_t sig;

	sigemptyset(&sig);
	sigaddset(&sig, CONNECT_SIGNAL);
	if (!act_begin(ns))
		return false;
	if (timer_settime(ns->connect_timer, 0, &on, NULL) < 0) {
		act_end(ns);
		return false;
	}
	pthread_sigmask(SIG_UNBLOCK, &sig, NULL);
	c->result = perform(c);
	pthread_sigmask(SIG_BLOCK, &sig, NULL);
	timer_settime(ns->connect_timer, 0, &off, NULL);
	act_end(ns);
	if (c->result == -EINTR) {
		c->resumed = true;
		return false;
	}
	conclude(ns, c);
	return true;
}

static void
handle(struct sbx_netsup *ns, const struct seccomp_notif *req)
{
	struct sbx_netverdict v = { .allow = false };
	struct facts_ctx fc = { ns, NULL };
	const struct sbx_netfacts facts = { fact_is_local, fact_owned_listener, fact_v6only, &fc };
	enum sbx_netcall_kind kind;
	struct sbx_netcall call;
	struct sbx_netclass cls;
	const char *opname;
	bool judged_by_names;
	struct call *c;
	int domain;

	/* Trapped for the trace only: observed and let go on (never a call
	 * judged here: those go on below, as without a trace). A call the
	 * name supervisor judges is never only observed: letting it go on
	 * would skip the guard of .git and the protected paths. */
	judged_by_names = ns->names != NULL && sbx_namesup_judges(req->data.nr, req->data.args);
	if (ns->trace && !judged_by_names &&
	    sbx_trace_observes(req, (ns->flags & SBX_NETSUP_META) != 0)) {
		sbx_trace_observe(ns->trace, ns->fd, req);
		return;
	}
	if (ns->refuse_all) {
		respond(ns, req->id, 0, EPERM); /* fail closed */
		return;
	}
	if (ns->names != NULL && sbx_namesup_passes(req->data.nr, req->data.args)) {
		struct seccomp_notif_resp resp = { .id = req->id,
			.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };

		/* An O_PATH open: nothing to judge (namesup.h). */
		ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	if ((ns->flags & SBX_NETSUP_META) && sbx_metasup_handles(req->data.nr)) {
		handle_meta(ns, req);
		return;
	}
	if ((ns->flags & SBX_NETSUP_META) && sbx_tasksup_handles(req->data.nr)) {
		handle_task(ns, req);
		return;
	}
	if (judged_by_names) {
		if (ns->trace)
			sbx_trace_note(ns->trace, req); /* judged, as without a trace */
		handle_name(ns, req);
		return;
	}
	kind = call_kind(req->data.nr, &opname);
	c = call_new(ns, req, opname);
	c->fdnum = (int)req->data.args[0];
	fc.c = c;
	domain = gather(ns, req, c);
	/* Only now that everything is copied: is the caller still the one
	 * that trapped (not a reused pid), still waiting? */
	if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &c->id) < 0) {
		call_free(c);
		return;
	}
	if (domain < 0) {
		respond(ns, c->id, 0, -domain);
		call_free(c);
		return;
	}
	c->domain = domain;
	call = (struct sbx_netcall){
		.kind = kind,
		.domain = domain,
		.type = c->type,
		.protocol = c->protocol,
		.addr = &c->addr,
		.addrlen = c->addrlen,
		.mmsg = c->mmsg,
		.vlen = c->vlen,
	};
	if (call.kind == SBX_NETCALL_SENDTO || call.kind == SBX_NETCALL_SENDMSG ||
	    call.kind == SBX_NETCALL_SENDMMSG)
		call.flags = (int)c->arg;
	if ((ns->flags & SBX_NETSUP_OWN_NETNS) && (domain == AF_INET || domain == AF_INET6))
		call.host_sock = in_host_netns(ns, c->sock);
	/* Pure (netrules.c) but for the facts it asks; a bind served on
	 * loopback rewrites c->addr. */
	cls = sbx_net_classify(ns->rules, &ns->mode, &call, &facts);
	switch (cls.act) {
	case SBX_NETACT_REFUSE: v = (struct sbx_netverdict){ false, cls.errnum, cls.reason }; break;
	case SBX_NETACT_UNIX_PEER: v = resolve_unix_peer(ns, c, &cls); break;
	case SBX_NETACT_UNIX_BIND: v = resolve_unix_bind(ns, c, &cls); break;
	case SBX_NETACT_NO_ADDRESS:
		/* Sent from our copy without the address. Never CONTINUE:
		 * another thread could point the descriptor at another
		 * socket before the kernel goes on. */
		drop_address(c);
		if (cls.send_inline && c->npassed == 0 && ns->sends_inline && send_now(ns, c))
			return;
		v.allow = true;
		break;
	case SBX_NETACT_ON_HOST:
		c->rehome = true;
		c->cloexec = fd_cloexec(c->pid, c->fdnum);
		v.allow = true;
		break;
	case SBX_NETACT_ON_COPY: v.allow = true; break;
	}
	if (!v.allow)
		goto refused;
	c->to_proxy = c->nr == SCMP_SYS(connect) && ns->proxy_admit >= 0 && reaches_proxy(ns, c);
	if (c->nr == SCMP_SYS(connect) && (domain == AF_INET || domain == AF_INET6) &&
	    ns->connects_inline && connect_now(ns, c))
		return;
	/* Whatever the socket's flags say now (the sandbox may flip them at
	 * any instant): a worker performs it (or waits for the connect begun
	 * above), never this thread. */
	submit(ns, c);
	return;
refused:
	respond(ns, c->id, 0, v.errnum);
	emit(ns, c, false, v.reason, -v.errnum);
	call_free(c);
}

/* A thread of the supervisor ends: one less for the stop to wait for. */
static void
thread_gone(struct sbx_netsup *ns)
{
	pthread_mutex_lock(&ns->lock);
	ns->alive--;
	pthread_cond_broadcast(&ns->gone);
	pthread_mutex_unlock(&ns->lock);
}

static void *
dispatcher(void *arg)
{
	struct sbx_netsup *ns = arg;
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	struct pollfd pfd[3];

	(void)prctl(PR_SET_NAME, "sbxrun-dispatch", 0, 0, 0);
	if (sbx_notify_alloc(&req, &resp) < 0)
		goto out;
	/* Drop before reading anything of the sandbox's. */
	if (ns->flags & SBX_NETSUP_READ_DROPPED) {
		/* The landlock backend: the sandbox runs in sbxrun's user
		 * namespace as the ids given, with no capability. The same
		 * ids and no capability keep the ptrace access this thread
		 * needs; no filter (it needs many more calls than a worker).
		 * The workers it makes start from there. */
		struct sbx_err err = { 0 };

		ns->refuse_all =
		    sbx_creds_drop_thread(ns->meta.as_uid, ns->meta.as_gid, NULL, -1, &err) < 0;
		ns->drop_failed = ns->refuse_all;
	} else if (ns->meta.as_uid >= 0) {
		/* The namespaces backend, a root caller: the sandbox runs in a
		 * user namespace root owns, where only CAP_SYS_PTRACE reaches
		 * it from here. The sandbox's ids and that one capability,
		 * confined by the Landlock domain to the sandbox's processes;
		 * every path resolved here is searched as the sandbox would
		 * search it. */
		struct sbx_err err = { 0 };

		ns->refuse_all =
		    sbx_creds_drop_thread_reader(ns->meta.as_uid, ns->meta.as_gid, &err) < 0;
		ns->drop_failed = ns->refuse_all;
	} else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		/* Another caller: its own ids and no capability already are
		 * the sandbox's; no_new_privs as everywhere else. */
		ns->refuse_all = true;
		ns->drop_failed = true;
	}
	pfd[0] = (struct pollfd){ .fd = ns->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = ns->wake[0], .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = ns->done_fd, .events = POLLIN };

	ns->quiets =
	    !ns->refuse_all && sbx_creds_thread_is_reader(ns->meta.as_uid, ns->meta.as_gid);
	ns->sends_inline = !ns->refuse_all &&
	    (ns->quiets || sbx_creds_thread_holds_only(ns->meta.as_uid, ns->meta.as_gid));
	ns->connects_inline = ns->sends_inline && connect_timer_new(ns);
	while (!ns->stopping) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[2].revents)
			finish(ns);
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		memset(req, 0, sizeof(*req));
		if (ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
			continue; /* ENOENT: the caller went away */
		handle(ns, req);
	}
	if (ns->connects_inline)
		timer_delete(ns->connect_timer);
	free(req);
	free(resp);
	sbx_notify_forget();
out:
	thread_gone(ns);
	return NULL;
}

/* The resolver relay (SBX_NETSUP_DNS_RELAY): one flow per sandbox socket
 * and resolver, on a host socket connected to that resolver. */
#define RELAY_FLOWS 64
#define RELAY_IDLE_MS 30000

struct relay_flow {
	struct sockaddr_in6 client; /* the sandbox's socket, as the jail sees it */
	struct sockaddr_storage server; /* the resolver (its address in the jail) */
	socklen_t serverlen;
	int host; /* connected to the resolver, or -1 */
	uint64_t used_ms;
};

/* What the relay thread may call, once dropped like a worker: its
 * forwarding, and the runtime every dropped thread needs. */
static const char *const relay_calls[] = {
	"socket",
	"connect",
	"sendto",
	"sendmsg",
	"recvfrom",
	"recvmsg",
	"poll",
	"ppoll",
	"close",
	SBX_THREAD_RUNTIME_CALLS,
	NULL,
};

/* One query from the jail: its destination (a resolver, read from the
 * packet info) decides where it goes; anything else is dropped. */
static void
relay_query(struct sbx_netsup *ns, struct relay_flow *flows)
{
	char data[65536], cbuf[256];
	struct sockaddr_in6 from;
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf) };
	struct sockaddr_storage to = { 0 };
	socklen_t tolen = 0;
	struct relay_flow *f = NULL, *oldest = &flows[0];
	ssize_t n = recvmsg(ns->relay_fd, &m, MSG_DONTWAIT);

	if (n < 0)
		return;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			struct sockaddr_in6 *t6 = (struct sockaddr_in6 *)&to;
			struct sockaddr_in *t4 = (struct sockaddr_in *)&to;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			if (IN6_IS_ADDR_V4MAPPED(&pi.ipi6_addr)) {
				*t4 = (struct sockaddr_in){ .sin_family = AF_INET,
					.sin_port = htons(53) };
				memcpy(&t4->sin_addr, &pi.ipi6_addr.s6_addr32[3], 4);
				tolen = sizeof(*t4);
			} else {
				*t6 = (struct sockaddr_in6){ .sin6_family = AF_INET6,
					.sin6_port = htons(53),
					.sin6_addr = pi.ipi6_addr };
				tolen = sizeof(*t6);
			}
		} else if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			struct sockaddr_in *t4 = (struct sockaddr_in *)&to;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			*t4 = (struct sockaddr_in){ .sin_family = AF_INET,
				.sin_port = htons(53),
				.sin_addr = pi.ipi_addr };
			tolen = sizeof(*t4);
		}
	}
	if (tolen == 0 || !sbx_addr_in_list((struct sockaddr *)&to, tolen, &ns->rules->resolvers))
		return;
	for (int i = 0; i < RELAY_FLOWS && f == NULL; i++) {
		if (flows[i].host >= 0 && flows[i].serverlen == tolen &&
		    memcmp(&flows[i].server, &to, tolen) == 0 &&
		    m.msg_namelen <= sizeof(flows[i].client) &&
		    memcmp(&flows[i].client, &from, m.msg_namelen) == 0)
			f = &flows[i];
		if (flows[i].host < 0 || flows[i].used_ms < oldest->used_ms)
			oldest = &flows[i];
	}
	if (f == NULL) {
		f = oldest;
		if (f->host >= 0)
			close(f->host);
		memset(f, 0, sizeof(*f));
		f->host = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (f->host < 0)
			return;
		if (connect(f->host, (struct sockaddr *)&to, tolen) < 0) {
			close(f->host);
			f->host = -1;
			return;
		}
		memcpy(
		    &f->client, &from, m.msg_namelen < sizeof(from) ? m.msg_namelen : sizeof(from));
		memcpy(&f->server, &to, tolen);
		f->serverlen = tolen;
	}
	f->used_ms = sbx_now_ms();
	if (send(f->host, data, (size_t)n, MSG_DONTWAIT) < 0) {
		/* dropped, as a datagram may be */
	}
}

/* An answer from a resolver goes back to the sandbox's socket, from the
 * resolver's address as the jail sees it. */
static void
relay_answer(struct sbx_netsup *ns, struct relay_flow *f)
{
	char data[65536], cbuf[CMSG_SPACE(sizeof(struct in6_pktinfo))] = { 0 };
	ssize_t n = recv(f->host, data, sizeof(data), MSG_DONTWAIT);
	struct iovec iov = { data, 0 };
	struct msghdr m = { .msg_name = &f->client,
		.msg_namelen = f->client.sin6_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								 : sizeof(struct sockaddr_in),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf };
	struct cmsghdr *cm;

	if (n < 0)
		return;
	iov.iov_len = (size_t)n;
	f->used_ms = sbx_now_ms();
	m.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&m);
	if (f->client.sin6_family == AF_INET6) {
		struct in6_pktinfo pi = { 0 };

		if (f->server.ss_family == AF_INET) {
			pi.ipi6_addr.s6_addr[10] = pi.ipi6_addr.s6_addr[11] = 0xff;
			memcpy(&pi.ipi6_addr.s6_addr32[3],
			    &((struct sockaddr_in *)&f->server)->sin_addr, 4);
		} else {
			pi.ipi6_addr = ((struct sockaddr_in6 *)&f->server)->sin6_addr;
		}
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		m.msg_controllen = CMSG_SPACE(sizeof(pi));
	} else {
		struct in_pktinfo pi = { .ipi_spec_dst =
					     ((struct sockaddr_in *)&f->server)->sin_addr };

		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		m.msg_controllen = CMSG_SPACE(sizeof(pi));
	}
	if (sendmsg(ns->relay_fd, &m, MSG_DONTWAIT) < 0) {
		/* the sandbox's socket is gone or full: dropped */
	}
}

/* The relay thread: the sandbox's rights (like a worker), a filter of its
 * own, and nothing else to do; it ends when the supervisor stops. Every
 * call it makes is non-blocking. */
static void *
relay(void *arg)
{
	struct sbx_netsup *ns = arg;
	struct sbx_err err = { 0 };
	struct relay_flow flows[RELAY_FLOWS];
	struct pollfd pfd[RELAY_FLOWS + 2];
	bool dropped =
	    sbx_creds_drop_thread(ns->meta.as_uid, ns->meta.as_gid, relay_calls, -1, &err) == 0;

	if (!dropped)
		ns->drop_failed = true;
	for (int i = 0; i < RELAY_FLOWS; i++)
		flows[i].host = -1;
	while (dropped && !ns->stopping) {
		uint64_t now = sbx_now_ms();

		pfd[0] = (struct pollfd){ .fd = ns->wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = ns->relay_fd, .events = POLLIN };
		for (int i = 0; i < RELAY_FLOWS; i++) {
			if (flows[i].host >= 0 && now - flows[i].used_ms > RELAY_IDLE_MS) {
				close(flows[i].host);
				flows[i].host = -1;
			}
			pfd[i + 2] = (struct pollfd){ .fd = flows[i].host, .events = POLLIN };
		}
		if (poll(pfd, RELAY_FLOWS + 2, 1000) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			relay_query(ns, flows);
		for (int i = 0; i < RELAY_FLOWS; i++)
			if (flows[i].host >= 0 && (pfd[i + 2].revents & POLLIN))
				relay_answer(ns, &flows[i]);
	}
	for (int i = 0; i < RELAY_FLOWS; i++)
		if (flows[i].host >= 0)
			close(flows[i].host);
	thread_gone(ns);
	return NULL;
}

/* The UDP relay's judgement of a flow's destination: the one a datagram
 * sent with that address gets (sbx_net_classify), asked for the relay's
 * host socket, so that only the rules and the host's facts decide (what
 * stays in the jail never reaches its tun device). A refusal is a denial
 * like any other. */
static bool
udp_judge(void *arg, const struct sockaddr *sa, socklen_t len)
{
	struct sbx_netsup *ns = arg;
	struct facts_ctx fc = { ns, NULL };
	const struct sbx_netfacts facts = { fact_is_local, fact_owned_listener, fact_v6only, &fc };
	struct call c = {
		.type = SOCK_DGRAM, .opname = "send", .sock = -1, .newsock = -1, .target = -1
	};
	struct sbx_netcall call = {
		.kind = SBX_NETCALL_SENDTO,
		.domain = sa->sa_family,
		.type = SOCK_DGRAM,
		.protocol = IPPROTO_UDP,
		.addr = &c.addr,
		.addrlen = len,
		.host_sock = true,
	};
	struct sbx_netclass cls;

	if (len > sizeof(c.addr))
		return false;
	memcpy(&c.addr, sa, len);
	c.addrlen = len;
	cls = sbx_net_classify(ns->rules, &ns->mode, &call, &facts);
	if (cls.act != SBX_NETACT_REFUSE)
		return true;
	atomic_fetch_add(&ns->denials, 1);
	report_refusal(ns, &c, cls.reason);
	return false;
}

static void *
udp_relay(void *arg)
{
	struct sbx_netsup *ns = arg;
	struct sbx_udprelay_args a = {
		.tun_fd = ns->tun_fd,
		.wake_fd = ns->wake[0],
		.stopping = &ns->stopping,
		.as_uid = ns->meta.as_uid,
		.as_gid = ns->meta.as_gid,
		.judge = udp_judge,
		.ctx = ns,
		.say_fd = ns->refused_fd,
	};

	(void)prctl(PR_SET_NAME, "sbxrun-udprelay", 0, 0, 0);
	if (sbx_udprelay_run(&a) < 0)
		ns->drop_failed = true;
	thread_gone(ns);
	return NULL;
}

/* Starts a helper thread of the supervisor (a relay), counted among the
 * live threads the stop waits for. */
static bool
start_helper(struct sbx_netsup *ns, pthread_t *t, void *(*fn)(void *))
{
	pthread_mutex_lock(&ns->lock);
	ns->alive++;
	pthread_mutex_unlock(&ns->lock);
	if (pthread_create(t, NULL, fn, ns) == 0)
		return true;
	thread_gone(ns);
	return false;
}

void
sbx_netsup_set_tun(struct sbx_netsup *ns, int tun_fd)
{
	ns->tun_fd = tun_fd;
}

void
sbx_netsup_set_proxy(struct sbx_netsup *ns, int admit_fd)
{
	ns->proxy_admit = fcntl(admit_fd, F_DUPFD_CLOEXEC, 3);
}

int
sbx_netsup_start(struct sbx_netsup *ns, int notify_fd, int diag_fd, sbx_net_log_fn log, void *ctx,
    struct sbx_err *err)
{
	sigset_t all, old;
	uint64_t flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	int r;

	ns->fd = notify_fd;
	ns->diag = diag_fd;
	if (ns->flags & SBX_NETSUP_DNS_RELAY) {
		ns->relay_fd = diag_fd;
		ns->diag = -1;
	}
	ns->log = log;
	ns->ctx = ctx;
	ns->mode = (struct sbx_netmode){
		.own_netns = (ns->flags & SBX_NETSUP_OWN_NETNS) != 0,
		.dns_relay = (ns->flags & SBX_NETSUP_DNS_RELAY) != 0,
		.own_listeners = (ns->flags & SBX_NETSUP_OWN_LISTENERS) != 0,
		.listen_self = (ns->flags & SBX_NETSUP_LISTEN_SELF) != 0,
		.unix_owned = (ns->flags & SBX_NETSUP_UNIX_OWNED) && ns->diag >= 0,
		.unix_view = (ns->flags & SBX_NETSUP_UNIX_VIEW) != 0,
		.host_view = (ns->flags & SBX_NETSUP_META) != 0,
		.abstract_scoped = (ns->flags & SBX_NETSUP_ABSTRACT_SCOPED) != 0,
		/* Only with the jail's tun device in hand (sbx_netsup_set_tun):
		 * a jail that could make none keeps sendmsg trapped, and its
		 * datagrams leave on host sockets handed in. */
		.udp_relay = (ns->flags & SBX_NETSUP_UDP_RELAY) && ns->tun_fd >= 0,
	};
	if (ns->flags & SBX_NETSUP_OWN_NETNS) {
		/* This thread is in the host's namespace: its cookie tells the
		 * sockets we hand in from the jail's own. */
		int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		socklen_t len = sizeof(ns->host_netns);

		if (s < 0 || getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &ns->host_netns, &len) < 0)
			ns->host_netns = 0; /* every socket counts as the host's */
		if (s >= 0)
			close(s);
	}
	if (ns->flags & OWNS_LISTENERS)
		ns->inet_diag = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	/* Wake the sandbox's thread on the CPU that answers (Linux 6.6). */
	ioctl(ns->fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags);
	if (pipe2(ns->wake, O_CLOEXEC) < 0)
		return sbx_err_sys(err, "pipe");
	ns->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ns->done_fd < 0)
		return sbx_err_sys(err, "eventfd");
	/* sbxrun's signalfd must keep getting every signal: this thread and
	 * the workers it makes block them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ns->alive = 1;
	r = pthread_create(&ns->thread, NULL, dispatcher, ns);
	/* Without its relay, the sandbox's queries get no answer. */
	if (r == 0 && ns->relay_fd >= 0)
		ns->relay_started = start_helper(ns, &ns->relay_thread, relay);
	/* Without the UDP relay, its datagrams go nowhere. */
	if (r == 0 && ns->mode.udp_relay)
		ns->udp_started = start_helper(ns, &ns->udp_thread, udp_relay);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		ns->alive = 0;
		errno = r;
		return sbx_err_sys(err, "cannot start the network supervisor");
	}
	ns->started = true;
	return 0;
}

/* Shuts down every socket a worker is using for the sandbox: a send or
 * connect blocked on a peer returns. With ns->lock held. */
static void
cut_loose(struct sbx_netsup *ns)
{
	for (struct call *c = ns->running; c; c = c->next) {
		/* newsock is set by the worker, before the call it makes on it */
		int h = c->newsock;

		if (c->sock >= 0)
			shutdown(c->sock, SHUT_RDWR);
		if (h >= 0)
			shutdown(h, SHUT_RDWR);
	}
}

static void
free_list(struct call *c)
{
	while (c != NULL) {
		struct call *next = c->next;

		call_free(c);
		c = next;
	}
}

/* Joins t within ms; false (t detached, left to run out) when it did not
 * end in time. */
static bool
join_bounded(pthread_t t, int ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(t, NULL, &until) == 0)
		return true;
	pthread_detach(t);
	return false;
}

void
sbx_netsup_stop(struct sbx_netsup *ns)
{
	struct timespec deadline, step;

	if (ns == NULL || !ns->started)
		return;
	ns->started = false;
	pthread_mutex_lock(&ns->lock);
	ns->stopping = true;
	pthread_cond_broadcast(&ns->work);
	pthread_mutex_unlock(&ns->lock);
	if (write(ns->wake[1], "x", 1) < 0) {
		/* the dispatcher also ends when the notify fd hangs up */
	}
	/* Bounded: every socket held for the sandbox is shut down, again at
	 * each step (a call may have begun just after the last pass), until
	 * every thread is out or the grace is over. */
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += STOP_GRACE_MS / 1000;
	pthread_mutex_lock(&ns->lock);
	for (;;) {
		cut_loose(ns);
		if (ns->alive == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &step);
		if (step.tv_sec > deadline.tv_sec ||
		    (step.tv_sec == deadline.tv_sec && step.tv_nsec >= deadline.tv_nsec))
			break;
		step.tv_nsec += 50 * 1000000L;
		if (step.tv_nsec >= 1000000000L) {
			step.tv_sec++;
			step.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&ns->gone, &ns->lock, &step);
	}
	if (ns->alive > 0) {
		/* Stuck past the grace in something no shutdown reaches: left
		 * to the process exit, with everything it may touch. */
		ns->abandoned = true;
		pthread_mutex_unlock(&ns->lock);
		pthread_detach(ns->thread);
		if (ns->relay_started)
			pthread_detach(ns->relay_thread);
		if (ns->udp_started)
			pthread_detach(ns->udp_thread);
		for (int i = 0; i < ns->nworkers; i++)
			pthread_detach(ns->pool[i]);
		return;
	}
	pthread_mutex_unlock(&ns->lock);
	/* Each has said it is leaving, so these joins return at once; still
	 * bounded, for a thread whose last steps (a runtime's teardown)
	 * could hang: one that does is left to the process exit. */
	if (!join_bounded(ns->thread, STOP_GRACE_MS))
		ns->abandoned = true;
	if (ns->relay_started && !join_bounded(ns->relay_thread, STOP_GRACE_MS))
		ns->abandoned = true;
	if (ns->udp_started && !join_bounded(ns->udp_thread, STOP_GRACE_MS))
		ns->abandoned = true;
	for (int i = 0; i < ns->nworkers; i++)
		if (!join_bounded(ns->pool[i], STOP_GRACE_MS))
			ns->abandoned = true;
	if (ns->abandoned)
		return;
	ns->nworkers = 0;
	free_list(ns->queue);
	free_list(ns->done);
	ns->queue = ns->queue_end = ns->done = ns->done_end = NULL;
	close(ns->fd);
	ns->fd = -1;
}

void
sbx_netsup_free(struct sbx_netsup *ns)
{
	if (ns == NULL)
		return;
	sbx_netsup_stop(ns);
	if (ns->abandoned)
		return; /* a thread may still use it */
	if (ns->wake[0] >= 0)
		close(ns->wake[0]);
	if (ns->wake[1] >= 0)
		close(ns->wake[1]);
	if (ns->done_fd >= 0)
		close(ns->done_fd);
	if (ns->fd >= 0)
		close(ns->fd);
	if (ns->diag >= 0)
		close(ns->diag);
	if (ns->inet_diag >= 0)
		close(ns->inet_diag);
	if (ns->relay_fd >= 0)
		close(ns->relay_fd);
	if (ns->tun_fd >= 0)
		close(ns->tun_fd);
	if (ns->proxy_admit >= 0)
		close(ns->proxy_admit);
	free(ns->owned);
	free(ns->meta.ids);
	sbx_namesup_free(ns->names);
	pthread_mutex_destroy(&ns->lock);
	pthread_mutex_destroy(&ns->diag_lock);
	pthread_cond_destroy(&ns->work);
	pthread_cond_destroy(&ns->gone);
	free(ns);
}
