/* The seccomp filter layered inside every Linux jail: a deny list answered
 * with EPERM (or ENOSYS where callers need to fall back), built with
 * libseccomp, refusing foreign syscall architectures. */
#ifndef SBX_LINUX_SECCOMP_H
#define SBX_LINUX_SECCOMP_H

#include <stdbool.h>

#include "err.h"
#include "util.h"

/* Loads the filter into the calling thread; needs no_new_privs. */
int sbx_seccomp_load(struct sbx_err *err);

/* Whether the kernel accepts a filter at all, and whether it hands out a
 * user-notification listener (*notify), measured in a throwaway child. */
int sbx_seccomp_probe(bool *notify, struct sbx_err *err);

/* The filter in words, one rule per line, for --print-backend. */
void sbx_seccomp_describe(struct sbx_buf *out);

#endif
