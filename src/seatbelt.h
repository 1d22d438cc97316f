/* The Seatbelt profile of a run: the filesystem view (fsplan.h) and the
 * policy's network rules -> SBPL text for /usr/bin/sandbox-exec. Pure and OS-independent: the same policy and view
 * give the same bytes on Linux and macOS, so the text is golden-tested on
 * Linux and printed by --print-backend anywhere. */
#ifndef SBX_SEATBELT_H
#define SBX_SEATBELT_H

#include <stdint.h>

#include "err.h"
#include "fsplan.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

/* The sandbox-exec parameter (-D NAME=DIR) that carries the canonical path
 * of the run's private temp dir: its name is random, so the profile names
 * it through (param "SBX_TMPDIR") and stays the same text for every run. */
#define SBX_SEATBELT_TMPDIR_PARAM "SBX_TMPDIR"

/* The only sandbox-exec sbxrun trusts. */
#define SBX_SEATBELT_EXEC "/usr/bin/sandbox-exec"

struct sbx_seatbelt_opts {
	uint16_t proxy_port; /* the built-in proxy's host loopback port; 0: none */
	/* The host's facts, so that the view makes the Linux backends'
	 * decisions (where a protected symlink leads is protected too);
	 * NULL: names alone, the same text on every machine. */
	const struct sbx_fsfacts *facts;
};

/* What strict mode makes readable on macOS, fixed so that the profile does
 * not depend on the machine that prints it. NULL-terminated. */
extern const char *const sbx_seatbelt_roots[];

/* Appends s to out as an SBPL string literal: quotes and backslashes are
 * escaped; a control character (below 0x20, or 0x7f) cannot be carried
 * safely and is refused with -1 and err. */
int sbx_seatbelt_quote(struct sbx_buf *out, const char *s, struct sbx_err *err);

/* The path as Seatbelt sees it: "." and empty components dropped, ".."
 * applied lexically, and /tmp, /var and /etc (symlinks into /private on
 * macOS) replaced by their targets, because Seatbelt matches the path a
 * lookup resolves to. NULL when path is not absolute; the caller frees. */
char *sbx_seatbelt_canon(const char *path);

/* Appends the profile of p to out: builds p's filesystem view (fsplan.h)
 * on opts->facts (names alone without them) and lowers it with
 * sbx_seatbelt_lower(). fs must be the resolved view of p (mount sources
 * are taken from p, canonical after resolve). opts may be NULL. On a path
 * that cannot be written in SBPL, fills err and returns -1; out is then
 * incomplete. */
int sbx_seatbelt_profile(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_seatbelt_opts *opts, struct sbx_buf *out, struct sbx_err *err);

/* Appends the profile that lowers the filesystem view v (and p's network
 * rules) to out. The filesystem sections take every path from v: the
 * writable, readable, protected and hidden entries. */
int sbx_seatbelt_lower(const struct sbx_fsplan *v, const struct sbx_policy *p,
    const struct sbx_seatbelt_opts *opts, struct sbx_buf *out, struct sbx_err *err);

#endif
