/* Dropping every capability for good: effective, permitted, inheritable,
 * ambient and the bounding set, with the securebits locked so that uid 0
 * inside a user namespace cannot win them back through exec. */
#ifndef SBX_LINUX_CAPS_H
#define SBX_LINUX_CAPS_H

#include <stdbool.h>

#include "err.h"

/* Drops all capabilities of the calling thread; needs CAP_SETPCAP (held
 * by the creator of a user namespace inside it) for the bounding set. */
int sbx_caps_drop_all(struct sbx_err *err);

/* Empties the calling thread's bounding set: each capability still in it
 * is dropped. A read costs little; a drop makes new credentials (~2 us
 * each here), so a set emptied once, by the thread or before its clone,
 * is checked, not dropped again. Needs CAP_SETPCAP; -1 with errno at the
 * first drop that fails. */
int sbx_caps_bset_empty(void);

/* The highest capability number the running kernel knows (the bounding
 * set's last bit), found once by probing with PR_CAPBSET_READ and kept:
 * call it before a fork and the child asks nothing. */
int sbx_caps_last(void);

/* Sets no_new_privs. */
int sbx_no_new_privs(struct sbx_err *err);

/* Whether the calling thread holds capability cap (effective). */
bool sbx_caps_has(int cap);

#endif
