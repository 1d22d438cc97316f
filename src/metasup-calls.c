/* The calls the metadata supervisor takes (metasup.h): apart, so that the
 * build-time filter generator (bpfgen.c) traps the same list without
 * linking the supervisor. */
#include "config.h"

#include <stddef.h>

#include "metasup.h"

const char *const sbx_metasup_calls[] = {
	"chmod",
	"fchmod",
	"fchmodat",
	"fchmodat2",
	"chown",
	"lchown",
	"fchown",
	"fchownat",
	"utime",
	"utimes",
	"futimesat",
	"utimensat",
	"setxattr",
	"lsetxattr",
	"fsetxattr",
	"removexattr",
	"lremovexattr",
	"fremovexattr",
	NULL,
};
