#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-caps.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

int
sbx_caps_last(void)
{
	/* Threads may ask at once (supervisor workers drop their bounding
	 * sets): each computes the same number, so a relaxed store is
	 * enough. */
	static int cached = -1;
	int last = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (last < 0) {
		int lo = 0, hi = 63;

		/* Capability 0 always exists; PR_CAPBSET_READ fails with
		 * EINVAL only for a number the kernel does not know. */
		while (lo < hi) {
			int mid = (lo + hi + 1) / 2;

			if (prctl(PR_CAPBSET_READ, mid, 0, 0, 0) >= 0)
				lo = mid;
			else
				hi = mid - 1;
		}
		last = lo;
		__atomic_store_n(&cached, last, __ATOMIC_RELAXED);
	}
	return last;
}

int
sbx_caps_bset_empty(void)
{
	for (int cap = sbx_caps_last(); cap >= 0; cap--)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -1;
	return 0;
}

int
sbx_caps_drop_all(struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	int last = sbx_caps_last();
	/* Without CAP_SETPCAP every drop from the bounding set fails with
	 * EPERM (prctl(2)), which is ignored: those calls are skipped. */
	bool setpcap = sbx_caps_has(CAP_SETPCAP);
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	/* With CAP_SETPCAP still held: lock root out of capabilities. */
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0 && errno != EPERM)
		return sbx_err_sys(err, "cannot lock the securebits");
	for (int cap = 0; setpcap && cap <= last; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
			return sbx_err_sys(
			    err, "cannot drop capability %d from the bounding set", cap);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return sbx_err_sys(err, "cannot clear the ambient capabilities");
	if (syscall(SYS_capset, &hdr, data) < 0)
		return sbx_err_sys(err, "cannot drop capabilities");
	return 0;
}

int
sbx_no_new_privs(struct sbx_err *err)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot set no_new_privs");
	return 0;
}

bool
sbx_caps_has(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}
