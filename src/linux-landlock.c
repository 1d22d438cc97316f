#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-landlock.h"
#include "resolve.h"
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

/* The deepest anchor at or above path, or NULL. */
static const struct sbx_landlock_anchor *
anchor_of(const char *path, const struct sbx_landlock_anchor *a, size_t n)
{
	const struct sbx_landlock_anchor *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (a[i].fd >= 0 && sbx_path_is_under(path, a[i].path) &&
		    (best == NULL || strlen(a[i].path) > strlen(best->path)))
			best = &a[i];
	return best;
}

/* An O_PATH descriptor of a rule's path. Without anchors (a jail's own new
 * root, where the namespaces backend applies its rules) it is opened by
 * name. With anchors (host paths, the landlock backend) it is never looked
 * up again by name: a path at or below an anchor (the workdir, a mount
 * source, a read path, the private TMPDIR, each pinned once by resolve or
 * the keeper) is the anchor's descriptor or is opened beneath it with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
 * any other path (/usr, /etc, /dev/null, /proc: root's, in directories
 * only root can change) is opened from / following no symlink. */
static int
rule_fd(
    const char *path, const struct sbx_landlock_anchor *a, size_t n, struct stat *st, bool *statted)
{
	const struct sbx_landlock_anchor *at;
	const char *rel;
	int fd;

	*statted = false;
	if (a == NULL)
		return open(path, O_PATH | O_CLOEXEC);
	at = anchor_of(path, a, n);
	if (at == NULL) {
		fd = sbx_open_nofollow(AT_FDCWD, path, st);
		*statted = fd >= 0;
		return fd;
	}
	rel = path + strlen(at->path);
	while (*rel == '/')
		rel++;
	if (*rel == '\0')
		return fcntl(at->fd, F_DUPFD_CLOEXEC, 3);
	fd = sbx_open_nofollow(at->fd, rel, st);
	*statted = fd >= 0;
	return fd;
}

static int
add_path_rule(int ruleset, const struct sbx_ll_rule *rule, int abi,
    const struct sbx_landlock_anchor *anchors, size_t nanchors, struct sbx_err *err)
{
	struct sbx_path_beneath_attr attr = { 0 };
	struct stat st;
	bool statted;
	int fd = rule_fd(rule->path, anchors, nanchors, &st, &statted);

	if (fd < 0) {
		/* Nothing there to grant. ELOOP and EXDEV (anchored paths
		 * only): a symlink stands where the plan saw none, or the path
		 * left its anchor; the rule is dropped, which grants less. */
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
		    (anchors != NULL && (errno == ELOOP || errno == EXDEV)))
			return 0;
		return sbx_err_sys(err, "landlock: %s", rule->path);
	}
	attr.parent_fd = fd;
	attr.allowed_access = fs_rights(rule->access, abi);
	/* A rule on a file may only carry file rights (the open's own stat,
	 * where it made one, is of this descriptor). */
	if ((statted || sbx_fstat_cached(fd, &st) == 0) && !S_ISDIR(st.st_mode))
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
 * descriptor, or -1 with err. */
static int
make_ruleset(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, const struct sbx_landlock_anchor *anchors, size_t nanchors,
    struct sbx_err *err)
{
	struct sbx_ruleset_attr attr = { 0 };
	size_t size = sizeof(attr);
	int ruleset;

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
		if (add_path_rule(ruleset, &plan->rules[i], abi, anchors, nanchors, err) < 0)
			goto fail;
	if (net && attr.handled_access_net) {
		if (add_port_rules(ruleset, net->bind, LANDLOCK_ACCESS_NET_BIND_TCP, err) < 0 ||
		    (!net->connect_any &&
			add_port_rules(
			    ruleset, net->connect, LANDLOCK_ACCESS_NET_CONNECT_TCP, err) < 0))
			goto fail;
	}
	return ruleset;
fail:
	close(ruleset);
	return -1;
}

int
sbx_landlock_enforce(int ruleset, struct sbx_err *err)
{
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
		return sbx_err_sys(err, "landlock: cannot restrict the sandbox");
	return 0;
}

static int
restrict_self(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, struct sbx_err *err)
{
	int ruleset = make_ruleset(plan, abi, net, scopes, NULL, 0, err);
	int r;

	if (ruleset < 0)
		return -1;
	r = sbx_landlock_enforce(ruleset, err);
	close(ruleset);
	return r;
}

int
sbx_landlock_fs_ruleset(const struct sbx_plan *plan, int abi,
    const struct sbx_landlock_anchor *anchors, size_t nanchors, struct sbx_err *err)
{
	static const struct sbx_landlock_anchor none;

	if (abi < 1)
		return sbx_err_set(err, ENOSYS, "landlock is not available in this kernel");
	return make_ruleset(
	    plan, abi, NULL, 0, anchors ? anchors : &none, anchors ? nanchors : 0, err);
}

int
sbx_landlock_ruleset(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, const struct sbx_landlock_anchor *anchors, size_t nanchors,
    struct sbx_err *err)
{
	static const struct sbx_landlock_anchor none;

	if (abi < 1)
		return sbx_err_set(err, ENOSYS, "landlock is not available in this kernel");
	return make_ruleset(
	    plan, abi, net, scopes, anchors ? anchors : &none, anchors ? nanchors : 0, err);
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
sbx_landlock_apply_scope(int abi, unsigned scopes, struct sbx_err *err)
{
	if (abi < 6 || scopes == 0)
		return sbx_err_set(err, ENOSYS, "landlock scopes need ABI 6 (Linux 6.12)");
	return restrict_self(NULL, abi, NULL, scopes, err);
}

int
sbx_landlock_apply_net(
    int abi, const struct sbx_landlock_net *net, unsigned scopes, struct sbx_err *err)
{
	if (abi < 4)
		return sbx_err_set(err, ENOSYS, "landlock TCP rules need ABI 4 (Linux 6.7)");
	return restrict_self(NULL, abi, net, scopes, err);
}
