/* The filesystem facts a view needs (fsplan.h), read from this machine
 * with POSIX calls alone (lstat, readlink, opendir/readdir, stat), so that
 * every backend that builds a view, on Linux and on macOS, asks the host
 * the same questions. */
#ifndef SBX_HOSTFACTS_H
#define SBX_HOSTFACTS_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "fsplan.h"

struct sbx_fsview;

/* The ids the sandbox will hold, for judging what file permissions alone
 * keep from it. */
struct sbx_host_ids {
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
	/* The resolved paths, or NULL: a path at or below one of fs's pins
	 * is looked up from the pin's descriptor, not by name (Linux). */
	const struct sbx_fsview *fs;
};

/* Facts read from this machine's filesystem (lstat, readlink, readdir),
 * from the pins of ids->fs where a path lies below one; ids may be NULL
 * when "sealed" does not matter and nothing is pinned. */
void sbx_host_facts_init(struct sbx_fsfacts *facts, const struct sbx_host_ids *ids);

/* Whether the directory dir is a git directory in itself, as git's
 * is_git_directory() takes one: a HEAD, and objects and refs next to it,
 * or a commondir naming where they are. Never enters another mount (a
 * hung FUSE server on one of those names is not asked). */
bool sbx_host_is_git_dir(int dir);

/* The ids of a sandbox run for the caller: the caller's own, or for root
 * the unprivileged mapped id with no groups. */
void sbx_host_ids_for(
    struct sbx_host_ids *ids, uid_t caller_uid, gid_t caller_gid, uid_t root_mapped);

/* The caller's account: the user name and home directory that the
 * system's user database gives for uid. */
struct sbx_account {
	char *name; /* NULL when the uid has no entry */
	char *home; /* NULL, or what the entry says (may be empty or relative) */
};

/* Looks uid up in the system's user database. A sbxrun linked with glibc
 * statically (configure's default; --disable-static-libc links the shared
 * one) must never load an NSS module: it reads /etc/passwd itself, as the
 * "files" source would, and asks `getent passwd UID` only for a uid
 * /etc/passwd lacks when nsswitch.conf names other sources (sbxrun(1),
 * "Filesystem"). Returns 0 with
 * acct->name NULL when no source knows the uid, -1 with err filled when
 * the answer cannot be had. */
int sbx_account_lookup(uid_t uid, struct sbx_account *acct, struct sbx_err *err);

/* Parses what `getent passwd UID` printed: exactly one passwd(5) line of
 * seven fields ending in a newline, whose uid field is uid. Fills acct
 * (the caller frees both strings with sbx_account_free()); returns -1 with
 * err filled on anything else. */
int sbx_account_parse(
    const char *out, size_t len, uid_t uid, struct sbx_account *acct, struct sbx_err *err);

/* Whether the nsswitch.conf text conf names "files" as the only source of
 * database db on every line for it (action items in brackets and comments
 * aside), and has at least one such line. */
bool sbx_nsswitch_files_only(const char *conf, const char *db);

/* A sbxrun linked with glibc statically pins every NSS database it or a
 * helper forked from it could query (the proxy's getaddrinfo()) to the
 * sources built into glibc, so that no lookup loads a module of another
 * glibc; once, while single-threaded. -1 if that fails; 0 and nothing
 * done elsewhere. */
int sbx_nss_pin(struct sbx_err *err);

/* Frees an account's strings. */
void sbx_account_free(struct sbx_account *acct);

#endif
