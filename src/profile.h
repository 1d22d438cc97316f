/* Profiles: INI files read with inih into a policy. */
#ifndef SBX_PROFILE_H
#define SBX_PROFILE_H

#include "err.h"
#include "policy.h"

/* Applies the profile text to p. name is used in messages ("FILE:LINE: ...").
 * Unknown sections and keys, duplicated scalar keys and bad values are
 * errors; the first one stops the parse. */
int sbx_profile_load_string(
    struct sbx_policy *p, const char *name, const char *text, struct sbx_err *err);

/* Same, reading the file at path. */
int sbx_profile_load_file(struct sbx_policy *p, const char *path, struct sbx_err *err);

/* Whether arg names a file (contains '/' or ends in ".ini") rather than a
 * profile name to look up. */
bool sbx_profile_arg_is_file(const char *arg);

/* Finds NAME.ini in the NULL-terminated list of directories; fills *path
 * with the first that exists. */
int sbx_profile_find(const char *name, const char *const *dirs, char **path, struct sbx_err *err);

/* The user's profile directory: $XDG_CONFIG_HOME/sbxrun/profiles when
 * xdg is absolute (the XDG rule: a relative one is ignored), else
 * HOME/.config/sbxrun/profiles. The caller frees it. */
char *sbx_profile_user_dir(const char *xdg, const char *home);

/* One profile -p NAME could load, for --list-profiles. */
struct sbx_profile_entry {
	char *name;
	char *path;
	char *summary; /* its first comment line, "" when none */
	bool shadowed; /* a directory earlier in the order has NAME.ini too */
};

struct sbx_profile_list {
	struct sbx_profile_entry *v;
	size_t n;
};

/* Fills out with every NAME.ini in the NULL-terminated dirs that
 * sbx_profile_find() could return for some order of names: readable, and
 * NAME a valid profile name. Sorted by name; for one name, in the order
 * of dirs, every entry after the first marked shadowed. A directory that
 * cannot be read is skipped, as the lookup skips it. */
void sbx_profile_list(const char *const *dirs, struct sbx_profile_list *out);
void sbx_profile_list_free(struct sbx_profile_list *l);

/* The --list-profiles text: a header, then a line per name with the file
 * that -p NAME loads and its summary, and below it, with no name, each
 * file of that name it shadows. Nothing found: one line saying where it
 * looked. Control bytes in names, paths and summaries are shown as '?'. */
char *sbx_profile_list_render(const struct sbx_profile_list *l, const char *const *dirs);

#endif
