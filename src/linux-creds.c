#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-creds.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* The highest capability number this kernel knows (its bounding set may
 * hold more than the headers name). */
static int
last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int n = -1;

	if (f != NULL) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n > 0 && n < 64 ? n : CAP_LAST_CAP;
}

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif

static int
load_filter(const char *const *allow, int write_fd, int notify_fd, struct sbx_err *err)
{
	/* The ioctls that answer a notification: nothing else on that
	 * descriptor (never SECCOMP_IOCTL_NOTIF_RECV), nothing on another. */
	static const unsigned long answers[] = { SECCOMP_IOCTL_NOTIF_SEND,
		SECCOMP_IOCTL_NOTIF_ADDFD };
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
	if (r == 0 && write_fd >= 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)write_fd));
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

bool
sbx_creds_thread_holds_only(int uid, int gid)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	if (uid >= 0 && !holds_only(uid, gid))
		return false;
	if (syscall(SYS_capget, &hdr, caps) < 0)
		return false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (caps[i].effective || caps[i].permitted || caps[i].inheritable)
			return false;
	return true;
}

int
sbx_creds_drop_thread(int uid, int gid, const char *const *allow, int write_fd, struct sbx_err *err)
{
	return sbx_creds_drop_answering(uid, gid, allow, write_fd, -1, err);
}

int
sbx_creds_drop_answering(
    int uid, int gid, const char *const *allow, int write_fd, int notify_fd, struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	/* A thread made by one already dropped (the dispatcher, under the
	 * landlock backend) has nothing to change, and no right to. */
	if (uid >= 0 && !holds_only(uid, gid)) {
		/* The bounding set is per thread in the kernel (it lives in
		 * the thread's credentials); emptying it needs CAP_SETPCAP,
		 * which goes with the uid change below. */
		for (int cap = last_cap(); cap >= 0; cap--)
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 &&
			    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
				return sbx_err_sys(err, "cannot empty a thread's bounding set");
		/* Raw calls: this thread only (see linux-creds.h). Leaving uid
		 * 0 for another clears the permitted and effective sets. */
		if (syscall(SYS_setgroups, 0, NULL) < 0)
			return sbx_err_sys(err, "cannot drop a thread's groups");
		if (syscall(SYS_setresgid, gid, gid, gid) < 0 ||
		    syscall(SYS_setresuid, uid, uid, uid) < 0)
			return sbx_err_sys(err, "cannot take uid %d in a thread", uid);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return sbx_err_sys(err, "cannot clear a thread's ambient capabilities");
	memset(caps, 0, sizeof(caps));
	if (syscall(SYS_capset, &hdr, caps) < 0)
		return sbx_err_sys(err, "cannot drop a thread's capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot set no_new_privs in a thread");

	/* Checked, not assumed: what the kernel now holds for this thread. */
	if (syscall(SYS_getresuid, &ru, &eu, &su) < 0 || syscall(SYS_getresgid, &rg, &eg, &sg) < 0)
		return sbx_err_sys(err, "cannot read a thread's ids");
	if (uid >= 0 &&
	    (ru != (uid_t)uid || eu != (uid_t)uid || su != (uid_t)uid || rg != (gid_t)gid ||
		eg != (gid_t)gid || sg != (gid_t)gid || syscall(SYS_getgroups, 0, NULL) != 0 ||
		syscall(SYS_setfsuid, -1) != uid || syscall(SYS_setfsgid, -1) != gid))
		return sbx_err_set(err, EPERM, "a thread kept other ids than %d", uid);
	hdr = (struct __user_cap_header_struct){ .version = _LINUX_CAPABILITY_VERSION_3 };
	if (syscall(SYS_capget, &hdr, caps) < 0)
		return sbx_err_sys(err, "cannot read a thread's capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (caps[i].effective || caps[i].permitted || caps[i].inheritable)
			return sbx_err_set(err, EPERM, "a thread kept capabilities");
#ifdef SBX_SANITIZED
	/* A sanitizer build: its runtime maps memory, opens its report file
	 * and exits on its own from any thread, calls the filter refuses (a
	 * refused mmap makes ASan report, and a refused report loops). The
	 * plain build, which CI runs too, keeps the filter. */
	(void)load_filter;
	return 0;
#else
	return allow != NULL ? load_filter(allow, write_fd, notify_fd, err) : 0;
#endif
}
