/* The seccomp filter layered inside every Linux jail: a deny list answered
 * with EPERM (or ENOSYS where callers need to fall back), built with
 * libseccomp, refusing foreign syscall architectures. */
#ifndef SBX_LINUX_SECCOMP_H
#define SBX_LINUX_SECCOMP_H

#include <stdbool.h>

#include "err.h"
#include "util.h"

/* Trap the network calls (connect, bind, listen, sendto with an address,
 * sendmsg, sendmmsg) to a user-notification listener: the network
 * supervisor (netsup.c) answers them. */
#define SBX_SECCOMP_NET_NOTIFY 0x1u

/* Trap chmod, chown, times and xattr changes (metasup.h). */
#define SBX_SECCOMP_META_NOTIFY 0x2u
/* With SBX_SECCOMP_NET_NOTIFY: sendmsg and sendmmsg go to the supervisor
 * only with MSG_FASTOPEN in their flags (a register). For a jail with a
 * network namespace of its own and no host datagram socket ever handed
 * in: a stream ignores a send's address without that flag, and a socket
 * of the jail's namespace reaches nothing but its own lo. */
#define SBX_SECCOMP_NET_SEND_FREE 0x4u

/* Trap the file and exec calls the trace observes (linux-trace.h), and
 * sendto without an address too when the network calls are trapped. Not
 * set: none of them is in the filter. */
#define SBX_SECCOMP_TRACE_NOTIFY 0x8u

/* Trap the calls that make, remove, rename or write a name (namesup.h). */
#define SBX_SECCOMP_NAME_NOTIFY 0x10u

/* Loads the filter into the calling thread; needs no_new_privs. With
 * SBX_SECCOMP_NET_NOTIFY, *notify_fd receives the listener. */
int sbx_seccomp_load(unsigned flags, int *notify_fd, struct sbx_err *err);

/* A program ready for seccomp(2): a precomputed one, or one libseccomp
 * built and exported into memory (owned, freed by sbx_bpf_prog_free). */
struct sbx_bpf_prog {
	const void *insns;
	unsigned short len;
	bool listener; /* load with SECCOMP_FILTER_FLAG_NEW_LISTENER */
	void *owned;
};

/* Prepares the common filter for flags (as sbx_seccomp_load would load
 * it) without loading it, so that a child that must not allocate (one
 * started in its parent's memory, launch.h) only has to call
 * sbx_bpf_prog_load(). 0, or -1 with err. */
int sbx_seccomp_prepare(unsigned flags, struct sbx_bpf_prog *out, struct sbx_err *err);

/* The same for the host filter (linux-hostfilter.h); what 0 is an empty
 * program that loads nothing. */
int sbx_hostfilter_prepare(unsigned what, struct sbx_bpf_prog *out, struct sbx_err *err);

/* Loads a prepared program into the calling thread after no_new_privs,
 * with no allocation; *notify_fd receives the listener when it has one. */
int sbx_bpf_prog_load(const struct sbx_bpf_prog *p, int *notify_fd, struct sbx_err *err);

void sbx_bpf_prog_free(struct sbx_bpf_prog *p);

/* The common filter for flags, built with libseccomp and not loaded (a
 * scmp_filter_ctx the caller releases), or NULL with err. sbx_seccomp_load
 * loads the same program, precomputed at build time when it can
 * (src/bpfgen.c, doc/design/startup.md). */
void *sbx_seccomp_filter(unsigned flags, struct sbx_err *err);

/* A precomputed BPF program (struct sock_filter insns[len]); len 0 when
 * none was made for that shape. */
struct sbx_bpf {
	const void *insns;
	unsigned short len;
};

/* Made by sbx-bpfgen at build time: the common filter by SBX_SECCOMP_*
 * flags below SBX_BPF_NCOMMON (the network and metadata traps and the
 * free sends; not --trace, not the name traps), the host filter by every
 * combination of the SBX_HOSTF_* bits. */
#define SBX_BPF_NCOMMON 8
#define SBX_BPF_NHOST 16
extern const struct sbx_bpf sbx_bpf_common[SBX_BPF_NCOMMON];
extern const struct sbx_bpf sbx_bpf_host[SBX_BPF_NHOST];

/* Made by sbx-bpfgen too: for the pairs a jail loads one after the other
 * (the common filter for flags common and the host filter for host, the
 * common one first or last), one program that decides as the two
 * (bpfmerge.h): one load instead of two (doc/design/startup.md, section
 * 33). */
struct sbx_bpf_merged {
	bool common_first;
	unsigned char common, host;
	struct sbx_bpf prog;
};
extern const struct sbx_bpf_merged sbx_bpf_merged[];
extern const size_t sbx_bpf_nmerged;

/* The merged program for that pair in *out, true; false when none was
 * made (the two are then loaded one after the other). */
bool sbx_bpf_merged_find(unsigned flags, unsigned what, bool common_first, struct sbx_bpf *out);

/* Loads the common filter for flags, then the host filter for what: as
 * one program when sbx_bpf_merged_find() has one, else as
 * sbx_seccomp_load() and sbx_hostfilter_load() do. */
int sbx_seccomp_load_host(unsigned flags, unsigned what, int *notify_fd, struct sbx_err *err);

/* Whether the kernel accepts a filter at all, and whether it hands out a
 * user-notification listener (*notify), measured in a throwaway child. */
int sbx_seccomp_probe(bool *notify, struct sbx_err *err);

/* The filter in words, one rule per line, for --print-backend. */
void sbx_seccomp_describe(unsigned flags, struct sbx_buf *out);

#endif
