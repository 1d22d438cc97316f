#include "config.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "linux-hostfilter.h"

/* System V IPC and POSIX message queues live in the IPC namespace: the
 * host's, here. A key or an id is all it takes to reach another
 * process's segment, semaphore or queue of the same uid. */
static const char *const ipc_calls[] = {
	"shmget",
	"shmat",
	"shmctl",
	"semget",
	"semop",
	"semtimedop",
	"semctl",
	"msgget",
	"msgsnd",
	"msgrcv",
	"msgctl",
	"ipc",
	"mq_open",
	"mq_unlink",
	"mq_timedsend",
	"mq_timedreceive",
	"mq_notify",
	"mq_getsetattr",
};

/* The calls that set a file's mode, and the argument that holds it. */
static const struct {
	const char *name;
	unsigned arg;
} mode_calls[] = {
	{ "chmod", 1 },
	{ "fchmod", 1 },
	{ "fchmodat", 2 },
	{ "fchmodat2", 2 },
	{ "open", 2 },
	{ "openat", 3 },
	{ "creat", 1 },
	{ "mknod", 1 },
	{ "mknodat", 2 },
};

static int
add(scmp_filter_ctx ctx, int errnum, const char *name, unsigned n, const struct scmp_arg_cmp *args,
    struct sbx_err *err)
{
	int nr = seccomp_syscall_resolve_name(name), r;

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture, or newer than libseccomp */
	r = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)errnum), nr, n, args);
	if (r < 0)
		return sbx_err_set(err, -r, "seccomp: cannot add a rule for %s", name);
	return 0;
}

static int
build(scmp_filter_ctx ctx, unsigned what, struct sbx_err *err)
{
	struct scmp_arg_cmp arg;

	if (what & SBX_HOSTF_NOSOCKET) {
		/* Landlock's TCP rules leave UDP, Fast Open, listen()'s
		 * automatic bind and pathname unix sockets open (the host's
		 * /run and /tmp hold daemons' sockets, and Landlock before
		 * the unix-socket right does not check connect()): with the
		 * network fully off no socket is needed at all. */
		if (add(ctx, EPERM, "socket", 0, NULL, err) < 0)
			return -1;
		/* A connected datagram pair still sends to any named socket
		 * given to sendto() (unix_dgram_sendmsg() looks the address
		 * up); stream and seqpacket pairs ignore an address. */
		arg = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM);
		if (add(ctx, EPERM, "socketpair", 1, &arg, err) < 0)
			return -1;
	}
	if (what & SBX_HOSTF_INETONLY) {
		/* Only sockets the supervisor judges: inet ones, whose every
		 * bind and connect it sees. The common filter (linux-seccomp.c)
		 * already refuses every family but unix, inet and inet6; unix
		 * goes here, compared on the int's low 32 bits. */
		arg = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffff, AF_UNIX);
		if (add(ctx, EPERM, "socket", 1, &arg, err) < 0)
			return -1;
		arg = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM);
		if (add(ctx, EPERM, "socketpair", 1, &arg, err) < 0)
			return -1;
	}
	if (what & SBX_HOSTF_NOIPC) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(ipc_calls); i++)
			if (add(ctx, EPERM, ipc_calls[i], 0, NULL, err) < 0)
				return -1;
	}
	if (what & SBX_HOSTF_NOSETID) {
		static const unsigned long bits[] = { S_ISUID, S_ISGID };

		for (size_t i = 0; i < SBX_ARRAY_LEN(mode_calls); i++) {
			for (size_t k = 0; k < SBX_ARRAY_LEN(bits); k++) {
				arg = (struct scmp_arg_cmp){ .arg = mode_calls[i].arg,
					.op = SCMP_CMP_MASKED_EQ,
					.datum_a = bits[k],
					.datum_b = bits[k] };
				if (add(ctx, EPERM, mode_calls[i].name, 1, &arg, err) < 0)
					return -1;
			}
		}
		/* openat2() carries the mode in memory, out of a filter's
		 * reach; callers fall back to openat() on ENOSYS. */
		if (add(ctx, ENOSYS, "openat2", 0, NULL, err) < 0)
			return -1;
	}
	return 0;
}

void *
sbx_hostfilter_filter(unsigned what, struct sbx_err *err)
{
	scmp_filter_ctx ctx;
	int r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL) {
		sbx_err_set(err, ENOMEM, "seccomp: cannot create a filter");
		return NULL;
	}
	/* As in the common filter: a foreign syscall ABI would skip every
	 * rule, so it kills instead. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* A binary search on the call number, as in the common filter. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0) {
		sbx_err_set(
		    err, -r, "seccomp: cannot set the filter's architecture action and layout");
	} else if (build(ctx, what, err) < 0) {
		r = -1;
	}
	if (r < 0) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

void
sbx_hostfilter_describe(unsigned what, struct sbx_buf *out)
{
	if (what & SBX_HOSTF_NOSOCKET) {
		sbx_buf_puts(out, "seccomp    socket(any family) -> EPERM  # network fully off\n");
		sbx_buf_puts(out,
		    "seccomp    socketpair(SOCK_DGRAM) -> EPERM  # sendto() names any socket\n");
	}
	if (what & SBX_HOSTF_INETONLY) {
		sbx_buf_puts(out,
		    "seccomp    socket(not inet, inet6) -> EPERM  # network off; own loopback "
		    "through the supervisor\n");
		sbx_buf_puts(out,
		    "seccomp    socketpair(SOCK_DGRAM) -> EPERM  # sendto() names any socket\n");
	}
	if (what & SBX_HOSTF_NOIPC)
		sbx_buf_puts(out,
		    "seccomp    System V IPC (shm*, sem*, msg*), mq_* -> EPERM  "
		    "# the host's IPC namespace\n");
	if (what & SBX_HOSTF_NOSETID) {
		sbx_buf_puts(out,
		    "seccomp    chmod/fchmod/fchmodat/fchmodat2, open/openat/creat, "
		    "mknod/mknodat with S_ISUID or S_ISGID -> EPERM\n");
		sbx_buf_puts(out, "seccomp    openat2 -> ENOSYS  # its mode cannot be inspected\n");
	}
}
