#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "diag.h"
#include "plan.h"
#include "supcfg.h"

bool
sbx_policy_net_off(const struct sbx_policy *p)
{
	return !p->network && p->listen.n == 0 && p->connect.n == 0 && p->loopback.n == 0 &&
	    p->proxy_allow.n == 0;
}

/* Whether one of the resolvers is a loopback address (a stub). */
static bool
loopback_resolver(const struct sbx_netrules *r)
{
	for (size_t i = 0; i < r->resolvers.n; i++) {
		const struct sockaddr_storage *ss = &r->resolvers.v[i];

		if (sbx_addr_is_loopback((const struct sockaddr *)ss,
			ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in)))
			return true;
	}
	return false;
}

bool
sbx_supcfg_relays_resolvers(const struct sbx_netrules *net)
{
	return net != NULL && net->outbound && net->resolvers.n > 0 &&
	    (!net->network || loopback_resolver(net));
}

bool
sbx_supcfg_relays_udp(const struct sbx_netrules *net)
{
	return net != NULL && net->network;
}

/* The namespaces backend: the sandbox has a network namespace of its
 * own. Unix sockets: with the network fully off, only those bound in the
 * jail's own namespace (its filesystem view still shows the host's
 * sockets); under network rules, whatever the view shows, as the user
 * asked for a network. Metadata calls are not trapped: the mount
 * namespace keeps the read-only trees read-only. */
static void
namespaces_cfg(const struct sbx_supcfg_in *in, struct sbx_supcfg *cfg)
{
	cfg->flags = SBX_NETSUP_OWN_NETNS |
	    (in->net == NULL ? SBX_NETSUP_UNIX_OWNED : SBX_NETSUP_UNIX_VIEW) |
	    (sbx_supcfg_relays_resolvers(in->net) ? SBX_NETSUP_DNS_RELAY : 0) |
	    (sbx_supcfg_relays_udp(in->net) ? SBX_NETSUP_UDP_RELAY : 0) |
	    (in->net != NULL && in->net->listen.n > 0 ? SBX_NETSUP_LISTEN_SELF : 0);
	/* The sandbox has its own loopback on any port: no TCP port domain
	 * (the supervisor alone makes sockets in the host's namespace). A
	 * root caller's dispatcher keeps CAP_SYS_PTRACE over the sandbox's
	 * user namespace (netsup.c): a domain of its own confines it to the
	 * sandbox's processes. */
	if (in->euid == 0)
		cfg->domain = SBX_LAUNCH_READER_DOMAIN;
}

/* The landlock backend: the sandbox shares the host's network, user
 * namespace and disk. Unix sockets are refused by its filter; metadata
 * calls are judged, in the trees it may write, away from the paths its
 * Landlock rules keep from it. */
static void
landlock_cfg(const struct sbx_supcfg_in *in, struct sbx_supcfg *cfg)
{
	const struct sbx_policy *p = in->policy;
	const char *wd = in->fs->workdir;
	struct sbx_strv rel = { 0 };

	cfg->flags = SBX_NETSUP_META | SBX_NETSUP_READ_DROPPED | SBX_NETSUP_OWN_LISTENERS;
	sbx_strv_push(&cfg->writable, wd);
	if (in->tmpdir)
		sbx_strv_push(&cfg->writable, in->tmpdir);
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].rw)
			sbx_strv_push(&cfg->writable, p->mounts[i].source);
	cfg->guard = true;
	sbx_strv_copy(&cfg->hidden, &in->fs->hidden);
	sbx_protect_list(p, in->fs, &rel);
	for (size_t i = 0; i < rel.n; i++)
		sbx_strv_push_take(&cfg->protect, sbx_path_join(wd, rel.v[i]));
	/* What protected symlinks lead to in the workdir (a hook that is a
	 * link to scripts/pre-commit, a .git that is a link to the real
	 * one): the guard follows a listed name that is a link itself, but
	 * not one inside a protected directory (fsplan.c, add_protected). */
	for (size_t i = 0; in->view && i < in->view->n; i++) {
		const struct sbx_fsentry *e = &in->view->v[i];

		if (e->origin == SBX_FSO_LINK && e->disp == SBX_FSD_PROTECTED &&
		    !sbx_strv_contains(&cfg->protect, e->path))
			sbx_strv_push(&cfg->protect, e->path);
	}
	/* All of .git is read-only, as the plan's rules keep it (git inside
	 * can read, not commit, as under the namespaces backend); a .git
	 * that does not exist is skipped when the guard is read. */
	sbx_strv_push_take(&cfg->protect, sbx_path_join(wd, ".git"));
	/* Where the workdir keeps its write rights, the protected names and
	 * .git may not be made (namesup.h). */
	sbx_strv_push_take(&cfg->names, sbx_path_join(wd, ".git"));
	for (size_t i = 0; i < rel.n; i++)
		sbx_strv_push_take(&cfg->names, sbx_path_join(wd, rel.v[i]));
	sbx_strv_free(&rel);
}

void
sbx_supcfg_make(const struct sbx_supcfg_in *in, struct sbx_supcfg *cfg)
{
	const uint32_t net_rules = SBX_RULE_BIT(SBX_RULE_LISTEN) | SBX_RULE_BIT(SBX_RULE_CONNECT) |
	    SBX_RULE_BIT(SBX_RULE_LOOPBACK) | SBX_RULE_BIT(SBX_RULE_PROXY);

	memset(cfg, 0, sizeof(*cfg));
	cfg->as_uid = cfg->as_gid = -1;
	cfg->fs = in->fs;
	cfg->expect_listener = in->trace || (in->enforced & net_rules);
	switch (in->backend) {
	case SBX_BACKEND_NAMESPACES: namespaces_cfg(in, cfg); break;
	case SBX_BACKEND_LANDLOCK: landlock_cfg(in, cfg); break;
	default: break;
	}
	/* A sandbox on the host's network: the launcher takes the TCP port
	 * rules, a second, kernel-held wall around every call the supervisor
	 * makes for it (network.h). */
	if (in->backend != SBX_BACKEND_NAMESPACES && in->net != NULL)
		cfg->domain = SBX_LAUNCH_PORT_DOMAIN;
	/* A root caller's sandbox runs as the mapped ids: the sockets and
	 * files the supervisor makes for it get the same owner. */
	if ((in->backend == SBX_BACKEND_NAMESPACES || in->backend == SBX_BACKEND_LANDLOCK) &&
	    in->uid == 0)
		cfg->as_uid = cfg->as_gid = SBX_SANDBOX_ROOT_ID;
	cfg->launcher_thread = in->net != NULL || cfg->domain == SBX_LAUNCH_READER_DOMAIN;
}

static void
render_list(struct sbx_buf *b, const char *name, const struct sbx_strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		sbx_buf_printf(b, "%s %s\n", name, l->v[i]);
}

char *
sbx_supcfg_render(const struct sbx_supcfg *cfg)
{
	static const struct {
		unsigned bit;
		const char *name;
	} flags[] = {
		{ SBX_NETSUP_UNIX_VIEW, "unix-view" },
		{ SBX_NETSUP_UNIX_OWNED, "unix-owned" },
		{ SBX_NETSUP_META, "meta" },
		{ SBX_NETSUP_ABSTRACT_SCOPED, "abstract-scoped" },
		{ SBX_NETSUP_READ_DROPPED, "read-dropped" },
		{ SBX_NETSUP_OWN_NETNS, "own-netns" },
		{ SBX_NETSUP_OWN_LISTENERS, "own-listeners" },
		{ SBX_NETSUP_DNS_RELAY, "dns-relay" },
		{ SBX_NETSUP_UDP_RELAY, "udp-relay" },
		{ SBX_NETSUP_LISTEN_SELF, "listen-self" },
	};
	static const char *const domains[] = { "none", "ports", "reader" };
	struct sbx_buf b = { 0 };

	sbx_buf_printf(&b, "launch %s domain %s\n", cfg->launcher_thread ? "thread" : "main",
	    domains[cfg->domain]);
	sbx_buf_printf(&b, "listener %s\n", cfg->expect_listener ? "expected" : "optional");
	sbx_buf_printf(&b, "flags");
	for (size_t i = 0; i < SBX_ARRAY_LEN(flags); i++)
		if (cfg->flags & flags[i].bit)
			sbx_buf_printf(&b, " %s", flags[i].name);
	sbx_buf_printf(
	    &b, "\nids %d %d\nguard %s\n", cfg->as_uid, cfg->as_gid, cfg->guard ? "yes" : "no");
	render_list(&b, "writable", &cfg->writable);
	render_list(&b, "hidden", &cfg->hidden);
	render_list(&b, "protect", &cfg->protect);
	render_list(&b, "names", &cfg->names);
	return sbx_buf_steal(&b);
}

void
sbx_supcfg_free(struct sbx_supcfg *cfg)
{
	sbx_strv_free(&cfg->writable);
	sbx_strv_free(&cfg->hidden);
	sbx_strv_free(&cfg->protect);
	sbx_strv_free(&cfg->names);
	memset(cfg, 0, sizeof(*cfg));
}
