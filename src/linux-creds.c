#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-caps.h"
#include "linux-creds.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef CAP_SYS_PTRACE
#define CAP_SYS_PTRACE 19
#endif

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif

static int
load_filter(const char *const *allow, const int write_fds[2], int notify_fd, struct sbx_err *err)
{
	/* The ioctls that answer a notification, and the check that its
	 * caller still waits: nothing else on that descriptor (never
	 * SECCOMP_IOCTL_NOTIF_RECV), nothing on another. */
	static const unsigned long answers[] = { SECCOMP_IOCTL_NOTIF_SEND,
		SECCOMP_IOCTL_NOTIF_ADDFD, SECCOMP_IOCTL_NOTIF_ID_VALID };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int r = 0;

	if (ctx == NULL)
		return sbx_err_set(err, ENOMEM, "seccomp: cannot make the worker's filter");
	/* This thread only: the attribute is off by default, said here so
	 * that nobody turns it on (it would confine the whole of sbxrun). */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 0);
	for (size_t i = 0; r == 0 && allow[i]; i++) {
		int nr = seccomp_syscall_resolve_name(allow[i]);

		if (nr != __NR_SCMP_ERROR)
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	/* An int argument: only its low 32 bits are what the kernel uses. */
	for (size_t i = 0; r == 0 && i < 2; i++)
		if (write_fds[i] >= 0)
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
			    SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)write_fds[i]));
	for (size_t i = 0; r == 0 && notify_fd >= 0 && i < sizeof(answers) / sizeof(answers[0]);
	     i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)notify_fd),
		    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)answers[i]));
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		return sbx_err_set(err, -r, "seccomp: cannot load the worker's filter");
	return 0;
}

/* A thread that now holds the sandbox's ids (and no capability) would let
 * any process of those ids ptrace it, and so take the whole of sbxrun's
 * memory, if the process were dumpable: the kernel's ptrace check passes
 * on equal ids and a subset of capabilities. Changing a thread's ids
 * sets the process's dumpable flag to fs.suid_dumpable, 0 by default; a
 * machine set to 1 would leave it open. So it is cleared here, after
 * every drop (doc/design/supervisor.md). */
static int
not_dumpable(struct sbx_err *err)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		return sbx_err_sys(err, "cannot make sbxrun not dumpable");
	return 0;
}

/* Whether the calling thread's ids all are uid and gid, with no groups. */
static bool
holds_only(int uid, int gid)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	return syscall(SYS_getresuid, &ru, &eu, &su) == 0 &&
	    syscall(SYS_getresgid, &rg, &eg, &sg) == 0 && ru == (uid_t)uid && eu == (uid_t)uid &&
	    su == (uid_t)uid && rg == (gid_t)gid && eg == (gid_t)gid && sg == (gid_t)gid &&
	    syscall(SYS_getgroups, 0, NULL) == 0;
}

/* Empties the calling thread's bounding set (needs CAP_SETPCAP). */
static int
empty_bounding(struct sbx_err *err)
{
	if (sbx_caps_bset_empty() < 0)
		return sbx_err_sys(err, "cannot empty a thread's bounding set");
	return 0;
}

/* Leaves the calling thread with capability keep alone (-1: none) in its
 * effective and permitted sets, no inheritable or ambient one, then sets
 * no_new_privs and makes sbxrun not dumpable. */
static int
narrow_caps(int keep, struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return sbx_err_sys(err, "cannot clear a thread's ambient capabilities");
	memset(caps, 0, sizeof(caps));
	if (keep >= 0)
		caps[keep / 32].effective = caps[keep / 32].permitted = 1u << (keep % 32);
	if (syscall(SYS_capset, &hdr, caps) < 0)
		return sbx_err_sys(err, "cannot drop a thread's capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot set no_new_privs in a thread");
	return not_dumpable(err);
}

/* Checked, not assumed: whether the kernel holds for the calling thread
 * exactly what narrow_caps(keep) set. */
static int
check_caps(int keep, struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, caps) < 0)
		return sbx_err_sys(err, "cannot read a thread's capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t want = keep >= 0 && keep / 32 == i ? 1u << (keep % 32) : 0;

		if (caps[i].effective != want || caps[i].permitted != want || caps[i].inheritable)
			return sbx_err_set(err, EPERM, "a thread kept other capabilities");
	}
	return 0;
}

bool
sbx_creds_thread_holds_only(int uid, int gid)
{
	struct sbx_err err = { 0 };

	return (uid < 0 || holds_only(uid, gid)) && check_caps(-1, &err) == 0;
}

static int drop(int uid, int gid, const char *const *allow, const int write_fds[2], int notify_fd,
    struct sbx_err *err);

int
sbx_creds_drop_thread(int uid, int gid, const char *const *allow, int write_fd, struct sbx_err *err)
{
	const int fds[2] = { write_fd, -1 };

	return drop(uid, gid, allow, fds, -1, err);
}

int
sbx_creds_drop_thread2(
    int uid, int gid, const char *const *allow, int write_fd, int write_fd2, struct sbx_err *err)
{
	const int fds[2] = { write_fd, write_fd2 };

	return drop(uid, gid, allow, fds, -1, err);
}

int
sbx_creds_drop_answering(
    int uid, int gid, const char *const *allow, int write_fd, int notify_fd, struct sbx_err *err)
{
	const int fds[2] = { write_fd, -1 };

	return drop(uid, gid, allow, fds, notify_fd, err);
}

static int
drop(int uid, int gid, const char *const *allow, const int write_fds[2], int notify_fd,
    struct sbx_err *err)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	/* A thread made by one already dropped (the dispatcher, under the
	 * landlock backend) has nothing to change, and no right to. */
	if (uid >= 0 && !holds_only(uid, gid)) {
		/* The bounding set is per thread in the kernel (it lives in
		 * the thread's credentials); emptying it needs CAP_SETPCAP,
		 * which goes with the uid change below. */
		if (empty_bounding(err) < 0)
			return -1;
		/* Raw calls: this thread only (see linux-creds.h). Leaving uid
		 * 0 for another clears the permitted and effective sets. */
		if (syscall(SYS_setgroups, 0, NULL) < 0)
			return sbx_err_sys(err, "cannot drop a thread's groups");
		if (syscall(SYS_setresgid, gid, gid, gid) < 0 ||
		    syscall(SYS_setresuid, uid, uid, uid) < 0)
			return sbx_err_sys(err, "cannot take uid %d in a thread", uid);
	}
	if (narrow_caps(-1, err) < 0)
		return -1;

	/* Checked, not assumed: what the kernel now holds for this thread. */
	if (syscall(SYS_getresuid, &ru, &eu, &su) < 0 || syscall(SYS_getresgid, &rg, &eg, &sg) < 0)
		return sbx_err_sys(err, "cannot read a thread's ids");
	if (uid >= 0 &&
	    (ru != (uid_t)uid || eu != (uid_t)uid || su != (uid_t)uid || rg != (gid_t)gid ||
		eg != (gid_t)gid || sg != (gid_t)gid || syscall(SYS_getgroups, 0, NULL) != 0 ||
		syscall(SYS_setfsuid, -1) != uid || syscall(SYS_setfsgid, -1) != gid))
		return sbx_err_set(err, EPERM, "a thread kept other ids than %d", uid);
	if (check_caps(-1, err) < 0)
		return -1;
#ifdef SBX_SANITIZED
	/* A sanitizer build: its runtime maps memory, opens its report file
	 * and exits on its own from any thread, calls the filter refuses (a
	 * refused mmap makes ASan report, and a refused report loops). The
	 * plain build, which CI runs too, keeps the filter. */
	(void)load_filter;
	return 0;
#else
	return allow != NULL ? load_filter(allow, write_fds, notify_fd, err) : 0;
#endif
}

bool
sbx_creds_thread_is_reader(int uid, int gid)
{
	struct sbx_err err = { 0 };

	return uid >= 0 && holds_only(uid, gid) && check_caps(CAP_SYS_PTRACE, &err) == 0;
}

int
sbx_creds_reader_quiet(bool quiet)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
	uint32_t bit = 1u << (CAP_SYS_PTRACE % 32);
	int i = CAP_SYS_PTRACE / 32;

	memset(caps, 0, sizeof(caps));
	caps[i].permitted = bit;
	caps[i].effective = quiet ? 0 : bit;
	if (syscall(SYS_capset, &hdr, caps) < 0)
		return -1;
	/* Checked, not assumed: the effective set is what every permission
	 * check of the call to come reads. */
	memset(caps, 0, sizeof(caps));
	if (syscall(SYS_capget, &hdr, caps) < 0)
		return -1;
	for (int j = 0; j < _LINUX_CAPABILITY_U32S_3; j++) {
		uint32_t want = j == i ? bit : 0;

		if (caps[j].permitted != want || caps[j].inheritable ||
		    caps[j].effective != (quiet ? 0 : want))
			return -1;
	}
	return 0;
}

int
sbx_creds_drop_thread_reader(int uid, int gid, struct sbx_err *err)
{
	if (uid < 0 || gid < 0)
		return sbx_err_set(err, EINVAL, "a reader thread needs the sandbox's ids");
	if (empty_bounding(err) < 0)
		return -1;
	/* Keep the permitted set across the change of uid (the thread's
	 * securebits only), then narrow it to the one capability. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(
		    err, "cannot keep a thread's capabilities across its uid change");
	if (syscall(SYS_setgroups, 0, NULL) < 0)
		return sbx_err_sys(err, "cannot drop a thread's groups");
	if (syscall(SYS_setresgid, gid, gid, gid) < 0 || syscall(SYS_setresuid, uid, uid, uid) < 0)
		return sbx_err_sys(err, "cannot take uid %d in a thread", uid);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot clear a thread's keep-capabilities bit");
	if (narrow_caps(CAP_SYS_PTRACE, err) < 0)
		return -1;

	/* Checked, not assumed. */
	if (!holds_only(uid, gid) || syscall(SYS_setfsuid, -1) != uid ||
	    syscall(SYS_setfsgid, -1) != gid)
		return sbx_err_set(err, EPERM, "a thread kept other ids than %d", uid);
	return check_caps(CAP_SYS_PTRACE, err);
}
