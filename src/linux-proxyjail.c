/* The proxy helper's walls. Who holds what is written at the top of
 * proxy.c; this file only builds the walls, in the order the kernel needs
 * them: ids and capabilities first (they need the capabilities being
 * dropped), then no_new_privs (Landlock and seccomp need it), Landlock,
 * and seccomp last (its allow-list has no room for the calls above). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <nss.h>
#endif

#include "linux-caps.h"
#include "linux-landlock.h"
#include "linux-proxyjail.h"
#include "plan.h"

#ifdef SBX_SANITIZED
#include <limits.h>
#include <sanitizer/common_interface_defs.h>
#include <stdlib.h>
#endif

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef NETLINK_ROUTE
#define NETLINK_ROUTE 0
#endif

/* The ids a root caller's proxy runs as: the overflow ids, which own
 * nothing on the host. */
#define SBX_PROXY_ID 65534

/* What getaddrinfo() reads when it resolves with files and DNS (measured
 * with strace on glibc 2.36): the resolver's and the hosts file, the
 * host.conf options, and gai.conf for sorting several addresses.
 * nsswitch.conf is read once, before the walls go up, where the host
 * database is pinned to files and DNS (see pin_resolver()). */
static const char *const resolver_files[] = {
	"/etc/resolv.conf",
	"/etc/hosts",
	"/etc/host.conf",
	"/etc/gai.conf",
#if !defined(__GLIBC__)
	"/etc/nsswitch.conf",
#endif
};

/* glibc resolves "files" and "dns" with code inside libc.so itself since
 * 2.34; any other NSS module would be dlopen()ed, which needs the
 * library's files and executable mappings. Pinning the host database
 * here makes nsswitch.conf's other modules (mdns, myhostname, resolve)
 * irrelevant, and glibc stops re-reading nsswitch.conf from then on. */
static void
pin_resolver(void)
{
#if defined(__GLIBC__)
	(void)__nss_configure_lookup("hosts", "files dns");
#endif
}

/* Whether this process sits in the initial user namespace, where every
 * id is mapped: there, failing to take on an id is an error. */
static bool
initial_userns(void)
{
	char buf[128];
	unsigned long inner, outer, count;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool init = true;

	if (f == NULL)
		return true;
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    sscanf(buf, "%lu %lu %lu", &inner, &outer, &count) == 3)
		init = inner == 0 && outer == 0 && count == 4294967295UL;
	fclose(f);
	return init;
}

/* A root caller's helper takes the overflow ids. Inside a user namespace
 * that maps no such id (only there can setresgid() say EINVAL) the ids
 * stay, and the capabilities go below like everyone else's. */
static int
drop_ids(struct sbx_err *err)
{
	bool init;

	if (geteuid() != 0)
		return 0;
	init = initial_userns();
	if (setgroups(0, NULL) < 0 && (init || errno != EPERM))
		return sbx_err_sys(err, "proxy: cannot drop the supplementary groups");
	if (setresgid(SBX_PROXY_ID, SBX_PROXY_ID, SBX_PROXY_ID) < 0) {
		if (init || errno != EINVAL)
			return sbx_err_sys(err, "proxy: cannot take gid %d", SBX_PROXY_ID);
		return 0;
	}
	return 1;
}

static int
drop_caps(bool setuid_nobody, struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	uid_t r, e, s;

	/* While CAP_SETPCAP may still be held: the bounding set, and root
	 * locked out of capabilities should anything ever exec. A caller
	 * without the capability gets EPERM and keeps what it never had. */
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0 && errno != EPERM)
		return sbx_err_sys(err, "proxy: cannot lock the securebits");
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
			return sbx_err_sys(err, "proxy: cannot drop capability %d", cap);
	if (setuid_nobody) {
		if (setresuid(SBX_PROXY_ID, SBX_PROXY_ID, SBX_PROXY_ID) < 0)
			return sbx_err_sys(err, "proxy: cannot take uid %d", SBX_PROXY_ID);
		if (getresuid(&r, &e, &s) < 0 || r != SBX_PROXY_ID || e != SBX_PROXY_ID ||
		    s != SBX_PROXY_ID)
			return sbx_err_set(err, EPERM, "proxy: uid %d did not stick", SBX_PROXY_ID);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return sbx_err_sys(err, "proxy: cannot clear the ambient capabilities");
	if (syscall(SYS_capset, &hdr, data) < 0)
		return sbx_err_sys(err, "proxy: cannot drop the capabilities");
	return 0;
}

#ifdef SBX_SANITIZED
/* A sanitized build (configure --enable-sanitizers) only. The ASan and
 * UBSan runtimes each open their report file, "<log_path>.<pid>", by name
 * and only when they have something to report, so the helper's walls must
 * leave that directory writable, or a report in the helper is lost and
 * the runtime exits instead ("Can't open file"). The helper wipes its
 * environment before the walls go up, so the directories are taken at
 * start-up, from the options the runtimes read: ASAN_OPTIONS (which LSan
 * shares) and UBSAN_OPTIONS. (GCC's shared libubsan reads its options
 * only at its first report, from /proc/self/environ, which the helper has
 * wiped by then: its report goes to the helper's /dev/null. The helper
 * still dies of it, so the run shows it; doc/design/proving.md.) */
static char san_dirs[2][PATH_MAX];

/* The directory of the last log_path=VALUE in a sanitizer option string
 * (separators and quotes as the runtimes split them), into dir; empty
 * when the reports go to stderr, stdout or nowhere named. */
static void
san_dir_of(const char *opts, char *dir, size_t size)
{
	const char *v = NULL, *end, *slash = NULL;
	char cwd[PATH_MAX];
	size_t len;

	dir[0] = '\0';
	for (const char *s = opts; s != NULL && (s = strstr(s, "log_path=")) != NULL; s++)
		if (s == opts || strchr(" \t\n\r,:", s[-1]) != NULL)
			v = s + strlen("log_path=");
	if (v == NULL)
		return;
	if (*v == '"' || *v == '\'') {
		end = strchr(v + 1, *v);
		v++;
	} else
		end = v + strcspn(v, " \t\n\r,:");
	if (end == NULL)
		end = v + strlen(v);
	for (const char *c = v; c < end; c++)
		if (*c == '/')
			slash = c;
	len = (size_t)(end - v);
	if (len == 0 ||
	    (len == 6 && (strncmp(v, "stderr", 6) == 0 || strncmp(v, "stdout", 6) == 0)))
		return;
	if (slash == NULL) {
		/* A bare prefix: the current directory. */
		if (getcwd(cwd, sizeof(cwd)) != NULL)
			snprintf(dir, size, "%s", cwd);
		return;
	}
	len = slash == v ? 1 : (size_t)(slash - v);
	if (*v != '/' && getcwd(cwd, sizeof(cwd)) != NULL)
		snprintf(dir, size, "%s/%.*s", cwd, (int)len, v);
	else
		snprintf(dir, size, "%.*s", (int)len, v);
}

static void __attribute__((constructor)) san_take_dirs(void)
{
	san_dir_of(getenv("ASAN_OPTIONS"), san_dirs[0], sizeof(san_dirs[0]));
	san_dir_of(getenv("UBSAN_OPTIONS"), san_dirs[1], sizeof(san_dirs[1]));
}
#define SAN_RULES SBX_ARRAY_LEN(san_dirs)
#else
#define SAN_RULES 0
#endif

static int
landlock(const struct sbx_ports *connect, struct sbx_err *err)
{
	struct sbx_ll_rule rules[SBX_ARRAY_LEN(resolver_files) + SAN_RULES];
	struct sbx_plan plan = { .rules = rules, .nrules = SBX_ARRAY_LEN(resolver_files) };
	struct sbx_ports none = { 0 };
	struct sbx_landlock_net net = {
		.enabled = true,
		.connect_any = connect == NULL,
		.bind = &none,
		.connect = connect,
	};
	int abi = sbx_landlock_abi();

	/* Without Landlock (before Linux 5.13) the ids, the empty
	 * capability sets and seccomp are the walls. */
	if (abi < 1)
		return 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(resolver_files); i++)
		rules[i] = (struct sbx_ll_rule){ .path = (char *)resolver_files[i],
			.access = SBX_LL_READ };
#ifdef SBX_SANITIZED
	/* The runtimes' report directories (see san_dirs). */
	for (size_t i = 0; i < SAN_RULES; i++)
		if (san_dirs[i][0] != '\0')
			rules[plan.nrules++] = (struct sbx_ll_rule){
				.path = san_dirs[i], .access = SBX_LL_WRITE, .is_dir = true
			};
#endif
	return sbx_landlock_apply(&plan, abi, abi >= 4 ? &net : NULL,
	    SBX_LANDLOCK_SCOPE_ABSTRACT | SBX_LANDLOCK_SCOPE_SIGNAL, err);
}

/* A compare of an int argument on its low 32 bits only, as the kernel
 * reads it: high garbage must not turn a refused value into another. */
#define ARG32(i, v) SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, 0xffffffffULL, (uint32_t)(v))

static int
allow(scmp_filter_ctx ctx, int nr, unsigned n, const struct scmp_arg_cmp *args, struct sbx_err *err)
{
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, args);

	if (r < 0)
		return sbx_err_set(err, -r, "proxy: seccomp rule for syscall %d", nr);
	return 0;
}

/* The proxy's calls, measured with strace over tests/integration/proxy.sh
 * (threads, the relay, getaddrinfo() over files and DNS, getifaddrs()). */
static const int plain_calls[] = {
	SCMP_SYS(read), SCMP_SYS(readv), SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(close),
	SCMP_SYS(lseek), SCMP_SYS(openat), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
	SCMP_SYS(fcntl), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(connect),
	SCMP_SYS(bind), /* getifaddrs() binds its netlink socket; TCP binds
	                 * are Landlock's to refuse */
	SCMP_SYS(accept4), SCMP_SYS(getsockopt), SCMP_SYS(setsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(getpeername), SCMP_SYS(shutdown), SCMP_SYS(sendto), SCMP_SYS(recvfrom),
	SCMP_SYS(sendmsg), SCMP_SYS(recvmsg), SCMP_SYS(sendmmsg), SCMP_SYS(munmap), SCMP_SYS(brk),
	SCMP_SYS(madvise), SCMP_SYS(mremap), SCMP_SYS(futex), SCMP_SYS(set_robust_list),
	SCMP_SYS(rseq), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigaction), /* glibc sets its own handlers up at the first thread */
	SCMP_SYS(rt_sigreturn), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getrandom),
	SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid),
	SCMP_SYS(uname), SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity),
	SCMP_SYS(tgkill), /* abort(); Landlock's signal scope keeps it home */
};

#ifdef SBX_SANITIZED
/* What the ASan and UBSan runtimes call besides (a sanitized build only;
 * the plain build's list above is the whole filter there), measured with
 * strace over tests/integration/proxy.sh and a report forced in the
 * helper: sigaltstack() at every thread's start and end (the runtime's
 * handler for deadly signals runs on a stack of its own), and open(), not
 * openat(), for the report file. */
static const int sanitizer_calls[] = {
	SCMP_SYS(sigaltstack),
	SCMP_SYS(open),
};
#endif

static int
seccomp(struct sbx_err *err)
{
	static const int inet[] = { AF_INET, AF_INET6 };
	static const int protos[] = { 0, IPPROTO_TCP, IPPROTO_UDP };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int r = -1, rc;

	if (ctx == NULL)
		return sbx_err_set(err, ENOMEM, "proxy: seccomp_init failed");
	for (size_t i = 0; i < SBX_ARRAY_LEN(plain_calls); i++)
		if (allow(ctx, plain_calls[i], 0, NULL, err) < 0)
			goto out;
#ifdef SBX_SANITIZED
	for (size_t i = 0; i < SBX_ARRAY_LEN(sanitizer_calls); i++)
		if (allow(ctx, sanitizer_calls[i], 0, NULL, err) < 0)
			goto out;
#endif
	/* Sockets: TCP and UDP over IPv4 and IPv6 (MPTCP, SCTP and the
	 * rest refused), and the route netlink that getifaddrs() reads. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(inet); i++)
		for (size_t j = 0; j < SBX_ARRAY_LEN(protos); j++) {
			struct scmp_arg_cmp a[] = { ARG32(0, inet[i]), ARG32(2, protos[j]) };

			if (allow(ctx, SCMP_SYS(socket), 2, a, err) < 0)
				goto out;
		}
	{
		struct scmp_arg_cmp a[] = { ARG32(0, AF_NETLINK), ARG32(2, NETLINK_ROUTE) };

		if (allow(ctx, SCMP_SYS(socket), 2, a, err) < 0)
			goto out;
	}
	/* The resolver asks how much a UDP answer holds; no other ioctl. */
	{
		struct scmp_arg_cmp a[] = { ARG32(1, FIONREAD) };

		if (allow(ctx, SCMP_SYS(ioctl), 1, a, err) < 0)
			goto out;
	}
	/* Memory, never executable: the helper loads no code. */
	{
		struct scmp_arg_cmp a[] = { SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0) };

		if (allow(ctx, SCMP_SYS(mmap), 1, a, err) < 0 ||
		    allow(ctx, SCMP_SYS(mprotect), 1, a, err) < 0)
			goto out;
	}
	/* Threads only, no new process; clone3() hides its flags from
	 * seccomp in memory, so it says ENOSYS and glibc falls back. */
	{
		struct scmp_arg_cmp a[] = { SCMP_A0(
		    SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD) };

		if (allow(ctx, SCMP_SYS(clone), 1, a, err) < 0)
			goto out;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
		if (rc < 0) {
			sbx_err_set(err, -rc, "proxy: seccomp rule for clone3");
			goto out;
		}
	}
	rc = seccomp_load(ctx);
	if (rc < 0) {
		sbx_err_set(err, -rc, "proxy: cannot load the seccomp filter");
		goto out;
	}
	r = 0;
out:
	seccomp_release(ctx);
	return r;
}

int
sbx_proxyjail_enter(const struct sbx_ports *connect, struct sbx_err *err)
{
	int nobody;

	pin_resolver();
	nobody = drop_ids(err);
	if (nobody < 0 || drop_caps(nobody == 1, err) < 0)
		return -1;
	if (sbx_no_new_privs(err) < 0)
		return sbx_err_wrap(err, "proxy");
#ifdef SBX_SANITIZED
	/* The runtime reads /proc/self/maps once now, for the reports it
	 * may write once /proc is out of reach. */
	{
		__sanitizer_sandbox_arguments args = { .coverage_fd = -1 };

		__sanitizer_sandbox_on_notify(&args);
	}
#endif
	if (landlock(connect, err) < 0)
		return sbx_err_wrap(err, "proxy");
	return seccomp(err);
}
