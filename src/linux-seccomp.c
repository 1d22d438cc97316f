#include "config.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux-seccomp.h"
#include "linux-trace.h"
#include "metasup.h"
#include "namesup.h"
#include "tasksup.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef TCXONC
#define TCXONC 0x540A
#endif
#ifndef TIOCSETD
#define TIOCSETD 0x5423
#endif
#ifndef TIOCEXCL
#define TIOCEXCL 0x540C
#endif

/* Denied outright: nothing a sandboxed script needs, each a known way to
 * widen the kernel's attack surface or to leave the jail. */
static const struct {
	const char *name;
	int errnum;
	const char *why;
} denied[] = {
	{ "io_uring_setup", EPERM, "io_uring bypasses seccomp and socket rules" },
	{ "io_uring_enter", EPERM, NULL },
	{ "io_uring_register", EPERM, NULL },
	{ "bpf", EPERM, "kernel attack surface" },
	{ "perf_event_open", EPERM, NULL },
	{ "userfaultfd", EPERM, "race-widening primitive" },
	{ "keyctl", EPERM, "the kernel keyring is not namespaced" },
	{ "add_key", EPERM, NULL },
	{ "request_key", EPERM, NULL },
	{ "kexec_load", EPERM, NULL },
	{ "kexec_file_load", EPERM, NULL },
	{ "init_module", EPERM, NULL },
	{ "finit_module", EPERM, NULL },
	{ "delete_module", EPERM, NULL },
	{ "mount", EPERM, "the mount table is the jail" },
	{ "umount2", EPERM, NULL },
	{ "open_tree", EPERM, NULL },
	{ "move_mount", EPERM, NULL },
	{ "fsopen", EPERM, NULL },
	{ "fsconfig", EPERM, NULL },
	{ "fsmount", EPERM, NULL },
	{ "fspick", EPERM, NULL },
	{ "mount_setattr", EPERM, NULL },
	{ "pivot_root", EPERM, NULL },
	{ "chroot", EPERM, NULL },
	{ "swapon", EPERM, NULL },
	{ "swapoff", EPERM, NULL },
	{ "reboot", EPERM, NULL },
	{ "setns", EPERM, "no joining other namespaces" },
	{ "unshare", EPERM, "no new namespaces" },
	{ "open_by_handle_at", EPERM, "file handles bypass path checks" },
	{ "name_to_handle_at", EPERM, NULL },
	{ "fanotify_init", EPERM, NULL },
	{ "quotactl", EPERM, NULL },
	{ "acct", EPERM, NULL },
	{ "lookup_dcookie", EPERM, NULL },
	{ "uselib", EPERM, NULL },
	{ "vm86", EPERM, NULL },
	{ "vm86old", EPERM, NULL },
	{ "nfsservctl", EPERM, NULL },
	{ "syslog", EPERM, "the kernel log is the host's" },
	/* glibc falls back to clone(2) on ENOSYS; clone3's flags live in
	 * memory that a filter cannot inspect. */
	{ "clone3", ENOSYS, "flags cannot be inspected; callers fall back to clone" },
};

/* Calls newer than the libseccomp this may be built with (2.5.4 knows
 * none past 462), by number where it cannot name them: every architecture
 * but alpha and mips shares the numbers of the calls added since 424.
 * Each does what an older call the filter or a supervisor judges does,
 * and would pass where that one is stopped: setxattrat and removexattrat
 * change what setxattr and removexattr, trapped for the metadata
 * supervisor, change (an ACL is a mode). Refused with ENOSYS, as a kernel
 * without them would, so that callers use the older call. */
static const struct {
	const char *name;
	int nr;
	int errnum;
	const char *why;
} newer[] = {
	{ "setxattrat", 463, ENOSYS, "setxattr's sibling; the older call is judged" },
	{ "getxattrat", 464, ENOSYS, NULL },
	{ "listxattrat", 465, ENOSYS, NULL },
	{ "removexattrat", 466, ENOSYS, "removexattr's sibling" },
	{ "open_tree_attr", 467, EPERM, "open_tree's sibling" },
	{ "file_getattr", 468, ENOSYS, "the inode flags' calls; the ioctls remain" },
	{ "file_setattr", 469, ENOSYS, NULL },
};

/* Every number after the newest above, up to this one: calls this filter
 * was written without knowing, refused with ENOSYS rather than let through
 * unjudged. */
#define NEWER_LAST 479

/* ioctl requests refused on every descriptor. A request is an int:
 * each is compared on the low 32 bits only, or a value with junk in the
 * high half passes (CVE-2019-7303). */
static const uint32_t ioctl_refused[] = {
	/* TIOCSTI and TIOCLINUX push input into a terminal. */
	TIOCSTI, TIOCLINUX,
	/* tcflow(TCOOFF) suspends a terminal's output for every writer: on
	 * one inherited from the caller, sbxrun's own messages and
	 * diagnostics line waited for ever. */
	TCXONC,
	/* A line discipline set on the caller's terminal (n_null takes every
	 * write and drops it) and its exclusive mode (every later open but
	 * root's fails) outlive the run: the caller's terminal, not the
	 * sandbox's. */
	TIOCSETD, TIOCEXCL,
	/* The inode flags and extended attributes of a file (linux/fs.h):
	 * the sandbox's uid may set the unprivileged ones (no dump, no atime,
	 * sync, no copy-on-write...) on any file it owns that it can open,
	 * and Landlock judges no ioctl of a regular file: under landlock,
	 * files of its uid outside every writable tree (a non-root caller's
	 * whole home). The same calls as file_setattr, refused with it. */
	0x40086602, /* FS_IOC_SETFLAGS */
	0x40046602, /* FS_IOC32_SETFLAGS */
	0x401c5820, /* FS_IOC_FSSETXATTR */
	/* btrfs snapshots copy a subvolume whole, owners and set-id bits
	 * included, for anyone who owns its root as the target mount sees
	 * it: through a root caller's idmapped workdir, root's subvolumes
	 * (doc/design/idmap-covers.md). New subvolumes go with them, and so
	 * do the flags of a subvolume (a read-only one of root's made
	 * writable). From linux/btrfs.h, which older headers may lack. */
	0x50009401, /* BTRFS_IOC_SNAP_CREATE */
	0x50009417, /* BTRFS_IOC_SNAP_CREATE_V2 */
	0x5000940e, /* BTRFS_IOC_SUBVOL_CREATE */
	0x50009418, /* BTRFS_IOC_SUBVOL_CREATE_V2 */
	0x4008941a, /* BTRFS_IOC_SUBVOL_SETFLAGS */
	0xc0c89425, /* BTRFS_IOC_SET_RECEIVED_SUBVOL */
};

/* An IPv6 routing header sends a socket's packets first to an address
 * of the header's, not to the one the supervisor or the jail's routes
 * judged: a segment routing header (type 4) needs no privilege, nor does
 * a type 2 one where the kernel has Mobile IPv6. The sticky header of a
 * socket and the RFC 2292 option block that can carry one. The same
 * header as a control message of one send is refused by the supervisor
 * (sbx_decode_rights). */
static const int ipv6_route_opts[] = {
	IPV6_RTHDR,
	IPV6_2292RTHDR,
	IPV6_2292PKTOPTIONS,
};

static const unsigned long clone_ns_flags[] = {
	CLONE_NEWUSER,
	CLONE_NEWNS,
	CLONE_NEWPID,
	CLONE_NEWNET,
	CLONE_NEWUTS,
	CLONE_NEWIPC,
	CLONE_NEWCGROUP,
	CLONE_NEWTIME,
};

/* personality(2) flags that weaken the process: no ASLR, executable data,
 * a mapping at address 0, legacy layouts. libseccomp allows one comparison
 * per argument and rule, so each flag is its own rule; the query value
 * 0xffffffff carries them all and is refused too. */
static const unsigned long personality_flags[] = {
	0x0040000 /* ADDR_NO_RANDOMIZE */,
	0x0400000 /* READ_IMPLIES_EXEC */,
	0x0100000 /* MMAP_PAGE_ZERO */,
	0x0200000 /* ADDR_COMPAT_LAYOUT */,
	0x0800000 /* ADDR_LIMIT_32BIT */,
	0x8000000 /* ADDR_LIMIT_3GB */,
};

/* Argument n equals the int v. The kernel reads an int argument from the
 * low 32 bits of its register and ignores the rest, while a filter sees
 * all 64: a plain SCMP_CMP_EQ lets 1 << 32 | v through as "not v". So
 * every comparison of an int argument masks the high half away. */
static struct scmp_arg_cmp
int_eq(unsigned n, int v)
{
	return (struct scmp_arg_cmp){
		.arg = n, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = (uint32_t)v
	};
}

static int
rule(scmp_filter_ctx ctx, int errnum, int nr, unsigned n, const struct scmp_arg_cmp *args,
    struct sbx_err *err)
{
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)errnum), nr, n, args);

	if (r < 0)
		return sbx_err_set(err, -r, "seccomp: cannot add a rule for syscall %d", nr);
	return 0;
}

/* Sockets: unix, IPv4 and IPv6 only (no netlink, packet, vsock, alg...),
 * and of those only TCP, UDP and ping: MPTCP ignores Landlock's TCP port
 * rules, SCTP and DCCP carry addresses the supervisor does not judge, raw
 * sockets craft any packet, and UDP-Lite, judged as UDP, is a protocol
 * the namespaces backend's UDP relay does not carry. */
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

static int
socket_rules(scmp_filter_ctx ctx, struct sbx_err *err)
{
	static const int inet[] = { AF_INET, AF_INET6 };
	static const int bad_types[] = { SOCK_RAW, SOCK_SEQPACKET, 6 /* SOCK_DCCP */, SOCK_PACKET };
	static const int bad_protos[] = { IPPROTO_MPTCP, IPPROTO_SCTP, 33 /* DCCP */,
		136 /* UDP-Lite */ };
	struct scmp_arg_cmp args[2];

	/* The one comparison that cannot be masked (libseccomp has no masked
	 * "greater than"): any high bit makes the 64-bit value larger, so it
	 * refuses more than the kernel would see, never less. */
	args[0] = SCMP_A0(SCMP_CMP_GT, AF_INET6, 0);
	if (rule(ctx, EAFNOSUPPORT, SCMP_SYS(socket), 1, args, err) < 0)
		return -1;
	for (int d = AF_INET + 1; d < AF_INET6; d++) {
		args[0] = int_eq(0, d);
		if (rule(ctx, EAFNOSUPPORT, SCMP_SYS(socket), 1, args, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad_protos); i++) {
		args[0] = int_eq(2, bad_protos[i]);
		if (rule(ctx, EPERM, SCMP_SYS(socket), 1, args, err) < 0)
			return -1;
	}
	for (size_t d = 0; d < SBX_ARRAY_LEN(inet); d++) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(bad_types); i++) {
			args[0] = int_eq(0, inet[d]);
			args[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, (scmp_datum_t)bad_types[i]);
			if (rule(ctx, EPERM, SCMP_SYS(socket), 2, args, err) < 0)
				return -1;
		}
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(ipv6_route_opts); i++) {
		args[0] = int_eq(1, IPPROTO_IPV6);
		args[1] = int_eq(2, ipv6_route_opts[i]);
		if (rule(ctx, EPERM, SCMP_SYS(setsockopt), 2, args, err) < 0)
			return -1;
	}
	/* Zero-copy sends: a send the supervisor makes for the sandbox goes
	 * from sbxrun's memory (netsup.c keeps MSG_ZEROCOPY out of it), and
	 * a program waiting for completions that never come would hang.
	 * ENOPROTOOPT, as a kernel without the option answers: programs
	 * then copy. */
	args[0] = int_eq(1, SOL_SOCKET);
	args[1] = int_eq(2, SO_ZEROCOPY);
	return rule(ctx, ENOPROTOOPT, SCMP_SYS(setsockopt), 2, args, err);
}

/* The calls that carry a network address go to the supervisor. */
static int
notify_rules(scmp_filter_ctx ctx, unsigned flags, struct sbx_err *err)
{
	static const int calls[] = {
		SCMP_SYS(connect),
		SCMP_SYS(bind),
		SCMP_SYS(listen),
		SCMP_SYS(sendmsg),
		SCMP_SYS(sendmmsg),
	};
	struct scmp_arg_cmp arg = SCMP_A4(SCMP_CMP_NE, 0, 0);
	int r;

	for (size_t i = 0; i < SBX_ARRAY_LEN(calls); i++) {
		bool send = calls[i] == SCMP_SYS(sendmsg) || calls[i] == SCMP_SYS(sendmmsg);

		if (send && (flags & SBX_SECCOMP_NET_SEND_FREE)) {
			/* Fast Open connects: the flags are argument 2 for
			 * sendmsg, 3 for sendmmsg; a single bit of the low half. */
			struct scmp_arg_cmp fo = calls[i] == SCMP_SYS(sendmsg)
			    ? SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN)
			    : SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);

			r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, calls[i], 1, &fo);
		} else {
			r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, calls[i], 0);
		}
		if (r < 0)
			return sbx_err_set(err, -r, "seccomp: cannot trap syscall %d", calls[i]);
	}
	/* sendto without an address uses the connection connect() judged;
	 * the trace observes it (a resolver's query on a connected socket). */
	r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto),
	    (flags & SBX_SECCOMP_TRACE_NOTIFY) ? 0 : 1, &arg);
	if (r < 0)
		return sbx_err_set(err, -r, "seccomp: cannot trap sendto");
	return 0;
}

/* The calls the trace observes; those the metadata supervisor judges
 * (SBX_SECCOMP_META_NOTIFY) are trapped for it already. */
static int
trace_rules(scmp_filter_ctx ctx, unsigned flags, struct sbx_err *err)
{
	for (size_t i = 0; sbx_trace_calls[i]; i++) {
		int nr = seccomp_syscall_resolve_name(sbx_trace_calls[i]);
		bool judged = false;

		for (size_t k = 0; (flags & SBX_SECCOMP_META_NOTIFY) && sbx_metasup_calls[k]; k++)
			judged = judged || strcmp(sbx_metasup_calls[k], sbx_trace_calls[i]) == 0;
		if (nr == __NR_SCMP_ERROR || judged)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0) < 0)
			return sbx_err_set(
			    err, EINVAL, "seccomp: cannot trap %s", sbx_trace_calls[i]);
	}
	return 0;
}

/* The calls that change another task's scheduling or limits, trapped
 * when they name one (tasksup.h): two rules for those that can name a
 * group or a user (either argument not the caller's), one with both
 * conditions for prlimit64 (a pid, and new limits). Whole 64-bit
 * registers are compared: junk above an int's 32 bits only traps a call
 * the supervisor then reads as the kernel does. */
static int
task_rules(scmp_filter_ctx ctx, struct sbx_err *err)
{
	for (const struct sbx_task_call *t = sbx_tasksup_calls; t->name; t++) {
		int nr = seccomp_syscall_resolve_name(t->name);
		struct scmp_arg_cmp who = SCMP_CMP(t->who, SCMP_CMP_NE, 0, 0), both[2] = { who };
		int r = 0;

		if (nr == __NR_SCMP_ERROR)
			continue;
		if (t->setting >= 0) {
			both[1] = SCMP_CMP((unsigned)t->setting, SCMP_CMP_NE, 0, 0);
			r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 2, both);
		} else {
			r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &who);
		}
		if (r == 0 && t->which >= 0) {
			struct scmp_arg_cmp which = SCMP_CMP(
			    (unsigned)t->which, SCMP_CMP_NE, (scmp_datum_t)t->self_which, 0);

			r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &which);
		}
		if (r < 0)
			return sbx_err_set(err, -r, "seccomp: cannot trap %s", t->name);
	}
	return 0;
}

/* Under a pid namespace (no supervisor judging tasks), init is pid 1 and
 * has the payload's uid: the kernel lets the payload lower its priority,
 * I/O class and limits, and a starved init ended the run late. Refused
 * when they name pid 1, its group (1, init being its session's leader)
 * or every process of a user (init among them), and so is joining that
 * group: the payload's own group is its own (launch.c). */
static int
init_rules(scmp_filter_ctx ctx, struct sbx_err *err)
{
	static const char *const by_pid[] = { "sched_setaffinity", "sched_setscheduler",
		"sched_setparam", "sched_setattr" };
	struct scmp_arg_cmp args[2];

	for (const struct sbx_task_call *t = sbx_tasksup_calls; t->name; t++) {
		int nr = seccomp_syscall_resolve_name(t->name);

		if (nr == __NR_SCMP_ERROR || t->which < 0)
			continue;
		args[0] = int_eq((unsigned)t->which, t->self_which);
		args[1] = int_eq(t->who, 1);
		if (rule(ctx, EPERM, nr, 2, args, err) < 0)
			return -1;
		args[0] = int_eq((unsigned)t->which, t->group_which);
		if (rule(ctx, EPERM, nr, 2, args, err) < 0)
			return -1;
		args[0] = int_eq((unsigned)t->which, t->user_which);
		if (rule(ctx, EPERM, nr, 1, args, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(by_pid); i++) {
		int nr = seccomp_syscall_resolve_name(by_pid[i]);

		args[0] = int_eq(0, 1);
		if (nr != __NR_SCMP_ERROR && rule(ctx, EPERM, nr, 1, args, err) < 0)
			return -1;
	}
	/* setpgid(pid, 1): init's group, which the payload left. */
	args[0] = int_eq(1, 1);
	if (rule(ctx, EPERM, SCMP_SYS(setpgid), 1, args, err) < 0)
		return -1;
	/* prlimit64(1, resource, new, old): only a reading passes. */
	args[0] = int_eq(0, 1);
	args[1] = SCMP_A2(SCMP_CMP_NE, 0, 0);
	return rule(ctx, EPERM, SCMP_SYS(prlimit64), 2, args, err);
}

static int
build(scmp_filter_ctx ctx, struct sbx_err *err)
{
	struct scmp_arg_cmp arg;
	int nr;

	for (size_t i = 0; i < SBX_ARRAY_LEN(denied); i++) {
		nr = seccomp_syscall_resolve_name(denied[i].name);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		if (rule(ctx, denied[i].errnum, nr, 0, NULL, err) < 0)
			return -1;
	}
#if !defined(__alpha__) && !defined(__mips__)
	for (size_t i = 0; i < SBX_ARRAY_LEN(newer); i++) {
		nr = seccomp_syscall_resolve_name(newer[i].name);
		if (rule(ctx, newer[i].errnum, nr == __NR_SCMP_ERROR ? newer[i].nr : nr, 0, NULL,
			err) < 0)
			return -1;
	}
	for (nr = newer[SBX_ARRAY_LEN(newer) - 1].nr + 1; nr <= NEWER_LAST; nr++)
		if (rule(ctx, ENOSYS, nr, 0, NULL, err) < 0)
			return -1;
#endif
	/* clone(2) creating any namespace. The flags are an unsigned long;
	 * these and the personality rules below test single bits of the low
	 * half, which no high bit can hide. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(clone_ns_flags); i++) {
		arg = SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]);
		if (rule(ctx, EPERM, SCMP_SYS(clone), 1, &arg, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(ioctl_refused); i++) {
		arg = int_eq(1, (int)ioctl_refused[i]);
		if (rule(ctx, EPERM, SCMP_SYS(ioctl), 1, &arg, err) < 0)
			return -1;
	}
	if (socket_rules(ctx, err) < 0)
		return -1;
	for (size_t i = 0; i < SBX_ARRAY_LEN(personality_flags); i++) {
		arg = SCMP_A0(SCMP_CMP_MASKED_EQ, personality_flags[i], personality_flags[i]);
		if (rule(ctx, EPERM, SCMP_SYS(personality), 1, &arg, err) < 0)
			return -1;
	}
	return 0;
}

void *
sbx_seccomp_filter(unsigned flags, struct sbx_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (ctx == NULL) {
		sbx_err_set(err, ENOMEM, "seccomp: cannot create a filter");
		return NULL;
	}
	/* Only the native architecture: a 32-bit syscall (int 0x80) or an
	 * x32 one would skip every rule below, so they fail instead. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* The system call number judged by a binary search, not a chain of
	 * comparisons: the same decisions (sbx-bpfgen --check), a third less
	 * time to load (the kernel runs the program for every call number
	 * to build its cache) and fewer steps per call. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r == 0)
		r = build(ctx, err) < 0 ? -EINVAL : 0;
	if (r == 0 && (flags & SBX_SECCOMP_NET_NOTIFY))
		r = notify_rules(ctx, flags, err) < 0 ? -EINVAL : 0;
	if (r == 0 && (flags & SBX_SECCOMP_TRACE_NOTIFY))
		r = trace_rules(ctx, flags, err) < 0 ? -EINVAL : 0;
	if (r == 0 && (flags & SBX_SECCOMP_META_NOTIFY))
		r = task_rules(ctx, err) < 0 ? -EINVAL : 0;
	else if (r == 0)
		r = init_rules(ctx, err) < 0 ? -EINVAL : 0;
	for (size_t i = 0; r == 0 && (flags & SBX_SECCOMP_META_NOTIFY) && sbx_metasup_calls[i];
	     i++) {
		int nr = seccomp_syscall_resolve_name(sbx_metasup_calls[i]);

		if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0) < 0) {
			sbx_err_set(err, EINVAL, "seccomp: cannot trap %s", sbx_metasup_calls[i]);
			r = -EINVAL;
		}
	}
	if (r < 0) {
		if (err && err->msg[0] == '\0')
			sbx_err_set(err, -r, "seccomp: cannot build the filter");
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* The throwaway child's exit code: 0 filter and listener, 3 filter only. */
static int
probe_child(void)
{
	struct sbx_err e = { 0 };
	scmp_filter_ctx ctx;
	int fd;

	alarm(2);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return 1;
	ctx = sbx_seccomp_filter(0, &e);
	if (ctx == NULL || seccomp_load(ctx) < 0)
		return 1;
	seccomp_release(ctx);
	/* The filter must answer, not kill: unshare is refused. */
	if (!(unshare(CLONE_NEWUSER) < 0 && errno == EPERM))
		return 2;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL || seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(getppid), 0) < 0 ||
	    seccomp_load(ctx) < 0)
		return 3;
	fd = seccomp_notify_fd(ctx);
	return fd >= 0 ? 0 : 3;
}

int
sbx_seccomp_probe(bool *notify, struct sbx_err *err)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return sbx_err_sys(err, "fork");
	if (pid == 0)
		_exit(probe_child());
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*notify = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3))
		return sbx_err_set(err, ENOSYS, "seccomp filters do not work here");
	return 0;
}

void
sbx_seccomp_describe(unsigned flags, struct sbx_buf *out)
{
	sbx_buf_puts(out, "# seccomp filter (default: allow; foreign architectures: kill)\n");
	for (size_t i = 0; i < SBX_ARRAY_LEN(denied); i++)
		sbx_buf_printf(out, "seccomp    %-18s -> %s%s%s\n", denied[i].name,
		    denied[i].errnum == ENOSYS ? "ENOSYS" : "EPERM", denied[i].why ? "  # " : "",
		    denied[i].why ? denied[i].why : "");
#if !defined(__alpha__) && !defined(__mips__)
	for (size_t i = 0; i < SBX_ARRAY_LEN(newer); i++)
		sbx_buf_printf(out, "seccomp    %-18s -> %s%s%s\n", newer[i].name,
		    newer[i].errnum == ENOSYS ? "ENOSYS" : "EPERM", newer[i].why ? "  # " : "",
		    newer[i].why ? newer[i].why : "");
	sbx_buf_printf(out, "seccomp    calls %d-%d -> ENOSYS  # newer than this filter\n",
	    newer[SBX_ARRAY_LEN(newer) - 1].nr + 1, NEWER_LAST);
#endif
	sbx_buf_puts(out, "seccomp    clone with CLONE_NEW* -> EPERM\n");
	sbx_buf_puts(out,
	    "seccomp    ioctl TIOCSTI, TIOCLINUX, TCXONC, TIOCSETD, TIOCEXCL (low 32 bits) -> "
	    "EPERM\n");
	sbx_buf_puts(out,
	    "seccomp    ioctl FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR (low 32 bits) "
	    "-> EPERM\n");
	sbx_buf_puts(out,
	    "seccomp    ioctl BTRFS_IOC_SNAP_CREATE(_V2), BTRFS_IOC_SUBVOL_CREATE(_V2), "
	    "BTRFS_IOC_SUBVOL_SETFLAGS, BTRFS_IOC_SET_RECEIVED_SUBVOL (low 32 bits) -> EPERM\n");
	sbx_buf_puts(out, "seccomp    socket outside unix, inet, inet6 -> EAFNOSUPPORT\n");
	sbx_buf_puts(
	    out, "seccomp    socket MPTCP, SCTP, DCCP, raw, seqpacket, packet (inet) -> EPERM\n");
	sbx_buf_puts(out,
	    "seccomp    setsockopt IPV6_RTHDR, IPV6_2292RTHDR, IPV6_2292PKTOPTIONS (low 32 bits) "
	    "-> EPERM  # a routing header sends elsewhere\n");
	sbx_buf_puts(out,
	    "seccomp    setsockopt SO_ZEROCOPY (low 32 bits) -> ENOPROTOOPT  # a send made for "
	    "the sandbox is sbxrun's memory\n");
	if ((flags & SBX_SECCOMP_NET_NOTIFY) && (flags & SBX_SECCOMP_NET_SEND_FREE))
		sbx_buf_puts(out,
		    "seccomp    connect, bind, listen, sendto with an address, sendmsg and "
		    "sendmmsg with MSG_FASTOPEN -> the network supervisor\n");
	else if (flags & SBX_SECCOMP_NET_NOTIFY)
		sbx_buf_puts(out,
		    "seccomp    connect, bind, listen, sendmsg, sendmmsg, sendto with an "
		    "address -> the network supervisor\n");
	if (flags & SBX_SECCOMP_TRACE_NOTIFY)
		sbx_buf_puts(out,
		    "seccomp    open, creat, truncate, unlink, rmdir, rename, mkdir, mknod, link, "
		    "symlink, chmod, chown, execve (and their *at forms), sendto -> observed for "
		    "--trace, then let go on\n");
	sbx_buf_puts(out,
	    "seccomp    personality with ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, "
	    "MMAP_PAGE_ZERO or a legacy layout -> EPERM\n");
}
