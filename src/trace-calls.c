/* The calls a trace observes (linux-trace.h): apart, so that the
 * build-time filter generator (bpfgen.c), which links the filter
 * builders, does not link the tracer. */
#include "config.h"

#include <stddef.h>

#include "linux-trace.h"

const char *const sbx_trace_calls[] = {
	"open",
	"openat",
	"openat2",
	"creat",
	"truncate",
	"unlink",
	"unlinkat",
	"rmdir",
	"rename",
	"renameat",
	"renameat2",
	"mkdir",
	"mkdirat",
	"mknod",
	"mknodat",
	"link",
	"linkat",
	"symlink",
	"symlinkat",
	"chmod",
	"fchmodat",
	"fchmodat2",
	"chown",
	"lchown",
	"fchownat",
	"execve",
	"execveat",
	NULL,
};
