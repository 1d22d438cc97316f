/* Loading the seccomp filters of a jail: the program precomputed at build
 * time for that shape (bpfgen.c), else the one libseccomp builds now.
 * doc/design/startup.md says why and how they are kept the same. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-hostfilter.h"
#include "linux-seccomp.h"
#include "namesup.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* 1 when there is no precomputed program or the kernel refuses it as
 * invalid (a program made for a newer kernel's actions): the caller then
 * builds one. Else 0, or -1 with err. libseccomp's own load sets
 * no_new_privs first and asks for a listener exactly when the program
 * returns SECCOMP_RET_USER_NOTIF: the same here. */
static int
load_precomputed(const struct sbx_bpf *b, bool listener, int *notify_fd, struct sbx_err *err)
{
	struct sock_fprog prog = { .len = b->len, .filter = (struct sock_filter *)b->insns };
	long r;

	if (b->len == 0)
		return 1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "seccomp: no_new_privs");
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
	if (r < 0 && errno == EINVAL)
		return 1;
	if (r < 0)
		return sbx_err_sys(err, "seccomp: cannot load the filter");
	if (listener)
		*notify_fd = (int)r;
	return 0;
}

int
sbx_seccomp_load(unsigned flags, int *notify_fd, struct sbx_err *err)
{
	bool listener = flags &
	    (SBX_SECCOMP_NET_NOTIFY | SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_TRACE_NOTIFY |
		SBX_SECCOMP_NAME_NOTIFY);
	scmp_filter_ctx ctx;
	int r;

	if (flags < SBX_ARRAY_LEN(sbx_bpf_common)) {
		r = load_precomputed(&sbx_bpf_common[flags], listener, notify_fd, err);
		if (r <= 0)
			return r;
	}
	ctx = sbx_seccomp_filter(flags, err);
	if (ctx == NULL)
		return -1;
	/* The name supervisor's traps are added here, not in the filter
	 * builder that sbx-bpfgen also links: no precomputed shape has them. */
	r = 0;
	if ((flags & SBX_SECCOMP_NAME_NOTIFY) && (r = sbx_namesup_filter(ctx)) < 0)
		sbx_err_set(err, -r, "seccomp: cannot trap the name-changing calls");
	/* Such a shape exists only here, where sbx-bpfgen --check never saw
	 * it: its program stays the rules one after another (level 1), not
	 * a search whose equivalence nothing has shown. */
	if (r == 0 && (flags & SBX_SECCOMP_NAME_NOTIFY) &&
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 1)) < 0)
		sbx_err_set(err, -r, "seccomp: cannot set the optimization level");
	if (r == 0) {
		r = seccomp_load(ctx);
		if (r < 0)
			sbx_err_set(err, -r, "seccomp: cannot load the filter: %s", strerror(-r));
	}
	if (r == 0 && listener) {
		*notify_fd = seccomp_notify_fd(ctx);
		if (*notify_fd < 0) {
			sbx_err_set(err, -*notify_fd, "seccomp: no notification listener");
			r = -1;
		}
	}
	seccomp_release(ctx);
	return r < 0 ? -1 : 0;
}

bool
sbx_bpf_merged_find(unsigned flags, unsigned what, bool common_first, struct sbx_bpf *out)
{
	for (size_t i = 0; i < sbx_bpf_nmerged; i++) {
		const struct sbx_bpf_merged *m = &sbx_bpf_merged[i];

		if (m->common == flags && m->host == what && m->common_first == common_first &&
		    m->prog.len > 0) {
			*out = m->prog;
			return true;
		}
	}
	return false;
}

int
sbx_seccomp_load_host(unsigned flags, unsigned what, int *notify_fd, struct sbx_err *err)
{
	bool listener = flags &
	    (SBX_SECCOMP_NET_NOTIFY | SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_TRACE_NOTIFY |
		SBX_SECCOMP_NAME_NOTIFY);
	struct sbx_bpf m;

	if (what != 0 && sbx_bpf_merged_find(flags, what, true, &m)) {
		int r = load_precomputed(&m, listener, notify_fd, err);

		if (r <= 0)
			return r;
	}
	if (sbx_seccomp_load(flags, notify_fd, err) < 0)
		return -1;
	return sbx_hostfilter_load(what, err);
}

int
sbx_hostfilter_load(unsigned what, struct sbx_err *err)
{
	scmp_filter_ctx ctx;
	int r;

	if (what == 0)
		return 0;
	if (what < SBX_ARRAY_LEN(sbx_bpf_host)) {
		r = load_precomputed(&sbx_bpf_host[what], false, NULL, err);
		if (r <= 0)
			return r;
	}
	ctx = sbx_hostfilter_filter(what, err);
	if (ctx == NULL)
		return -1;
	r = seccomp_load(ctx);
	if (r < 0)
		sbx_err_set(err, -r, "seccomp: cannot load the host filter: %s", strerror(-r));
	seccomp_release(ctx);
	return r < 0 ? -1 : 0;
}

/* libseccomp 2.5 exports only to a descriptor: a memory file, read back. */
static int
export_prog(void *ctx, bool listener, struct sbx_bpf_prog *out, struct sbx_err *err)
{
	int fd = (int)syscall(SYS_memfd_create, "sbxrun-bpf", MFD_CLOEXEC);
	off_t size;
	int r;

	if (fd < 0)
		return sbx_err_sys(err, "seccomp: memfd_create");
	if ((r = seccomp_export_bpf(ctx, fd)) < 0) {
		close(fd);
		return sbx_err_set(err, -r, "seccomp: cannot export the filter");
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		close(fd);
		return sbx_err_set(err, EIO, "seccomp: the exported filter has a bad size");
	}
	out->owned = sbx_xmalloc((size_t)size);
	if (pread(fd, out->owned, (size_t)size, 0) != (ssize_t)size) {
		close(fd);
		free(out->owned);
		out->owned = NULL;
		return sbx_err_sys(err, "seccomp: cannot read the exported filter");
	}
	close(fd);
	out->insns = out->owned;
	out->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	out->listener = listener;
	return 0;
}

int
sbx_seccomp_prepare(unsigned flags, struct sbx_bpf_prog *out, struct sbx_err *err)
{
	bool listener = flags &
	    (SBX_SECCOMP_NET_NOTIFY | SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_TRACE_NOTIFY |
		SBX_SECCOMP_NAME_NOTIFY);
	scmp_filter_ctx ctx;
	int r = 0;

	*out = (struct sbx_bpf_prog){ .listener = listener };
	if (flags < SBX_ARRAY_LEN(sbx_bpf_common) && sbx_bpf_common[flags].len > 0) {
		out->insns = sbx_bpf_common[flags].insns;
		out->len = sbx_bpf_common[flags].len;
		return 0;
	}
	ctx = sbx_seccomp_filter(flags, err);
	if (ctx == NULL)
		return -1;
	if ((flags & SBX_SECCOMP_NAME_NOTIFY) && (r = sbx_namesup_filter(ctx)) < 0)
		sbx_err_set(err, -r, "seccomp: cannot trap the name-changing calls");
	if (r == 0)
		r = export_prog(ctx, listener, out, err);
	seccomp_release(ctx);
	return r < 0 ? -1 : 0;
}

int
sbx_hostfilter_prepare(unsigned what, struct sbx_bpf_prog *out, struct sbx_err *err)
{
	scmp_filter_ctx ctx;
	int r;

	*out = (struct sbx_bpf_prog){ 0 };
	if (what == 0)
		return 0;
	if (what < SBX_ARRAY_LEN(sbx_bpf_host) && sbx_bpf_host[what].len > 0) {
		out->insns = sbx_bpf_host[what].insns;
		out->len = sbx_bpf_host[what].len;
		return 0;
	}
	ctx = sbx_hostfilter_filter(what, err);
	if (ctx == NULL)
		return -1;
	r = export_prog(ctx, false, out, err);
	seccomp_release(ctx);
	return r;
}

int
sbx_bpf_prog_load(const struct sbx_bpf_prog *p, int *notify_fd, struct sbx_err *err)
{
	struct sock_fprog prog = { .len = p->len, .filter = (struct sock_filter *)p->insns };
	long r;

	if (p->len == 0)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "seccomp: no_new_privs");
	/* No libseccomp fallback here, unlike load_precomputed(): the kernel
	 * checks only the instructions at load time, not the actions they
	 * return, so EINVAL can only be a kernel without user notification
	 * (older than 5.0), where libseccomp's program could not get a
	 * listener either. */
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    p->listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
	if (r < 0)
		return sbx_err_sys(err, "seccomp: cannot load the filter");
	if (p->listener)
		*notify_fd = (int)r;
	return 0;
}

void
sbx_bpf_prog_free(struct sbx_bpf_prog *p)
{
	free(p->owned);
	*p = (struct sbx_bpf_prog){ 0 };
}
