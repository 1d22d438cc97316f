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

#endif
