#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-landlock.h"
#include "util.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#define SBX_LANDLOCK_RULE_PATH_BENEATH 1
#define SBX_LANDLOCK_RULE_NET_PORT 2

/* The kernel's structures as of ABI 6; older kernels accept the larger
 * struct as long as the fields they do not know are zero (the kernel's
 * copy_struct_from_user() rule). */
struct sbx_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct sbx_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct sbx_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define FS_FILE_RIGHTS \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)

int
sbx_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

/* Every filesystem right the ABI knows: whatever is not granted is denied. */
static uint64_t
fs_handled(int abi)
{
	uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;

	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return all;
}

static uint64_t
fs_rights(unsigned access, int abi)
{
	uint64_t r = 0;

	if (access & SBX_LL_LIST)
		r |= LANDLOCK_ACCESS_FS_READ_DIR;
	if (access & SBX_LL_READ)
		r |= LANDLOCK_ACCESS_FS_READ_FILE;
	if (access & SBX_LL_EXEC)
		r |= LANDLOCK_ACCESS_FS_EXECUTE;
	if (access & SBX_LL_WRITE)
		r |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
		    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |
		    LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE;
	if (access & SBX_LL_DEV)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r & fs_handled(abi);
}

static int
add_path_rule(int ruleset, const struct sbx_ll_rule *rule, int abi, struct sbx_err *err)
{
	struct sbx_path_beneath_attr attr = { 0 };
	struct stat st;
	int fd = open(rule->path, O_PATH | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return 0; /* nothing there to grant */
		return sbx_err_sys(err, "landlock: %s", rule->path);
	}
	attr.parent_fd = fd;
	attr.allowed_access = fs_rights(rule->access, abi);
	/* A rule on a file may only carry file rights. */
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		attr.allowed_access &= FS_FILE_RIGHTS;
	if (attr.allowed_access != 0 &&
	    syscall(__NR_landlock_add_rule, ruleset, SBX_LANDLOCK_RULE_PATH_BENEATH, &attr, 0) <
		0) {
		sbx_err_sys(err, "landlock: rule for %s", rule->path);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
add_port_rules(int ruleset, const struct sbx_ports *ports, uint64_t access, struct sbx_err *err)
{
	for (size_t i = 0; ports && i < ports->n; i++) {
		struct sbx_net_port_attr attr = { .allowed_access = access, .port = ports->v[i] };

		if (syscall(__NR_landlock_add_rule, ruleset, SBX_LANDLOCK_RULE_NET_PORT, &attr, 0) <
		    0)
			return sbx_err_sys(err, "landlock: rule for port %u", ports->v[i]);
	}
	return 0;
}

/* A ruleset with the plan's rules, the port rules and the scopes; its
 * descriptor, or -1. */
static int
make_ruleset(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, struct sbx_err *err)
{
	struct sbx_ruleset_attr attr = { 0 };
	size_t size = sizeof(attr);
	int ruleset, r = -1;

	if (plan)
		attr.handled_access_fs = fs_handled(abi);
	if (net && net->enabled && abi >= 4)
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    (net->connect_any ? 0 : LANDLOCK_ACCESS_NET_CONNECT_TCP);
	if (abi >= 6) {
		if (scopes & SBX_LANDLOCK_SCOPE_ABSTRACT)
			attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		if (scopes & SBX_LANDLOCK_SCOPE_SIGNAL)
			attr.scoped |= LANDLOCK_SCOPE_SIGNAL;
	}
	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		return sbx_err_sys(err, "landlock: cannot create a ruleset");
	for (size_t i = 0; plan && i < plan->nrules; i++)
		if (add_path_rule(ruleset, &plan->rules[i], abi, err) < 0)
			goto out;
	if (attr.handled_access_net) {
		if (add_port_rules(ruleset, net->bind, LANDLOCK_ACCESS_NET_BIND_TCP, err) < 0 ||
		    (!net->connect_any &&
			add_port_rules(
			    ruleset, net->connect, LANDLOCK_ACCESS_NET_CONNECT_TCP, err) < 0))
			goto out;
	}
	return ruleset;
out:
	close(ruleset);
	return r;
}

static int
restrict_self(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, struct sbx_err *err)
{
	int ruleset = make_ruleset(plan, abi, net, scopes, err), r = 0;

	if (ruleset < 0)
		return -1;
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
		r = sbx_err_sys(err, "landlock: cannot restrict the sandbox");
	close(ruleset);
	return r;
}

int
sbx_landlock_fs_ruleset(const struct sbx_plan *plan, int abi, struct sbx_err *err)
{
	if (abi < 1)
		return sbx_err_set(err, ENOSYS, "landlock is not available in this kernel");
	return make_ruleset(plan, abi, NULL, 0, err);
}

int
sbx_landlock_apply(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, struct sbx_err *err)
{
	if (abi < 1)
		return sbx_err_set(err, ENOSYS, "landlock is not available in this kernel");
	return restrict_self(plan, abi, net, scopes, err);
}

int
sbx_landlock_apply_net(
    int abi, const struct sbx_landlock_net *net, unsigned scopes, struct sbx_err *err)
{
	if (abi < 4)
		return sbx_err_set(err, ENOSYS, "landlock TCP rules need ABI 4 (Linux 6.7)");
	return restrict_self(NULL, abi, net, scopes, err);
}
