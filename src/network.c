#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend.h"
#include "hostfacts.h"
#include "launch.h"
#include "linux-landlock.h"
#include "linux-trace.h"
#include "metasup.h"
#include "netsup.h"
#include "network.h"
#include "proxy.h"
#include "supervise.h"

static void
read_resolvers(struct sbx_netrules *r)
{
	char buf[8192];
	ssize_t n;
	int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	sbx_netrules_add_resolvers(r, buf);
}

int
sbx_network_prepare(
    struct sbx_network *n, const struct sbx_policy *p, int landlock_abi, struct sbx_err *err)
{
	uint16_t proxy_port = 0;

	memset(n, 0, sizeof(*n));
	pthread_mutex_init(&n->refusal_lock, NULL);
	n->refusal_lock_made = true;
	n->landlock_abi = landlock_abi;
	if (sbx_policy_net_off(p))
		return 0;
	n->supervised = true;
	if (p->proxy_allow.n > 0) {
		static const char *const vars[] = {
			"HTTPS_PROXY",
			"HTTP_PROXY",
			"https_proxy",
			"http_proxy",
			"ALL_PROXY",
		};

		struct sbx_proxy_rules rules = {
			.allow = &p->proxy_allow,
			.deny = &p->proxy_deny,
			.methods = &p->proxy_methods,
		};

		/* Before the proxy's helper is forked: its getaddrinfo() must
		 * load no NSS module (hostfacts.h). */
		if (sbx_nss_pin(err) < 0 || sbx_proxy_open(&n->proxy, &rules, err) < 0)
			return -1;
		proxy_port = (uint16_t)sbx_proxy_port(n->proxy);
		/* One port speaks both: HTTP for the *_PROXY variables, SOCKS5
		 * with the proxy resolving names for ALL_PROXY. */
		for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++)
			sbx_strv_push_take(&n->env,
			    sbx_xasprintf("%s=%s://127.0.0.1:%u", vars[i],
				strcmp(vars[i], "ALL_PROXY") == 0 ? "socks5h" : "http",
				proxy_port));
	}
	sbx_netrules_init(&n->rules, p, proxy_port);
	if (n->rules.outbound)
		read_resolvers(&n->rules);
	return 0;
}

/* The one place refusals meet: the supervisor's dispatcher and the
 * proxy's reader call it concurrently. */
static void
refused(void *ctx, const struct sbx_refusal *ref)
{
	struct sbx_network *n = ctx;

	pthread_mutex_lock(&n->refusal_lock);
	sbx_denied_add(&n->denied, ref->kind, ref->what);
	if (n->on_refusal)
		n->on_refusal(n->on_refusal_ctx, ref);
	pthread_mutex_unlock(&n->refusal_lock);
}

void
sbx_network_on_refusal(struct sbx_network *n, sbx_refusal_fn fn, void *ctx, int fd)
{
	n->on_refusal = fn;
	n->on_refusal_ctx = ctx;
	n->on_refusal_fd = fd;
}

/* For the namespaces backend and a root caller, on the launcher thread
 * before the jail is spawned: a Landlock domain holding only the abstract
 * socket scope (no port rule: the sandbox has a network namespace of its
 * own). The jail's domain nests in it, and the supervisor's dispatcher,
 * which keeps CAP_SYS_PTRACE to read the sandbox (netsup.c), inherits it:
 * Landlock then lets that capability reach the sandbox's processes only.
 * Without Landlock ABI 6 nothing is done. */
static int
enter_reader(struct sbx_network *n, struct sbx_err *err)
{
	if (n->landlock_abi < 6)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot set no_new_privs");
	if (sbx_landlock_apply_scope(n->landlock_abi, SBX_LANDLOCK_SCOPE_ABSTRACT, err) < 0)
		return -1;
	n->scoped = true;
	return 0;
}

/* On the launcher thread before the jail is spawned: a Landlock domain
 * with the TCP port rules. */
static int
enter_ports(struct sbx_network *n, struct sbx_err *err)
{
	struct sbx_ports bind = { 0 }, connect = { 0 };
	struct sbx_landlock_net net = { .enabled = true, .bind = &bind, .connect = &connect };
	int r;

	if (!n->supervised || n->landlock_abi < 4)
		return 0;
	/* Landlock needs no_new_privs (or CAP_SYS_ADMIN); it is a property
	 * of this thread only, and the jail takes it anyway. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_err_sys(err, "cannot set no_new_privs");
	sbx_netrules_landlock_ports(&n->rules, &bind, &connect, &net.connect_any);
	/* With the abstract socket scope too (ABI 6): an abstract connect the
	 * supervisor makes for the sandbox then reaches only sockets of the
	 * sandbox's own domain, nested in this one, never the host's. */
	r = sbx_landlock_apply_net(
	    n->landlock_abi, &net, n->landlock_abi >= 6 ? SBX_LANDLOCK_SCOPE_ABSTRACT : 0, err);
	if (r == 0 && n->landlock_abi >= 6)
		n->scoped = true;
	free(bind.v);
	free(connect.v);
	return r;
}

/* Starts the supervisor on the listener c handed over, configured by cfg
 * and by what only the jail knows (c->frozen, c->names_ruleset,
 * c->tun_fd). */
static int
supervise(
    struct sbx_network *n, const struct sbx_supcfg *cfg, struct sbx_child *c, struct sbx_err *err)
{
	static const struct sbx_strv none = { 0 };
	int notify_fd = steal_fd(&c->notify_fd), diag_fd = steal_fd(&c->diag_fd);
	int tun_fd = steal_fd(&c->tun_fd);
	/* Read now, by identity (sbx_netsup_set_guard): the lists are only
	 * lent to it. */
	struct sbx_meta_guard guard = {
		.hidden = cfg->hidden,
		.protect = cfg->protect,
		.frozen = c->frozen ? *c->frozen : none,
		.names = cfg->names,
		.guard_names = c->names_ruleset >= 0,
		.ruleset = c->names_ruleset,
		.fs = cfg->fs,
	};

	if (notify_fd < 0) {
		if (diag_fd >= 0)
			close(diag_fd);
		if (tun_fd >= 0)
			close(tun_fd);
		if (n->trace)
			return sbx_err_set(
			    err, ENOTSUP, "the jail did not hand over the traced calls");
		if (n->supervised)
			return sbx_err_set(
			    err, EINVAL, "the jail did not hand over its network calls");
		return 0;
	}
	n->sup =
	    sbx_netsup_new(&n->rules, cfg->flags | (n->scoped ? SBX_NETSUP_ABSTRACT_SCOPED : 0));
	if ((cfg->flags & SBX_NETSUP_META) || cfg->as_uid >= 0)
		sbx_netsup_set_meta(n->sup, (cfg->flags & SBX_NETSUP_META) ? &cfg->writable : NULL,
		    cfg->as_uid, cfg->as_gid);
	if (cfg->guard)
		sbx_netsup_set_guard(n->sup, &guard);
	sbx_netsup_set_refusal_hook(n->sup, refused, n, n->on_refusal ? n->on_refusal_fd : -1);
	sbx_netsup_set_trace(n->sup, n->trace);
	if (n->proxy)
		sbx_netsup_set_proxy(n->sup, sbx_proxy_admit_fd(n->proxy));
	/* Without it (the jail could make no tun device) the supervisor
	 * hands in host datagram sockets, as the jail's filter still traps
	 * sendmsg. */
	if (tun_fd >= 0)
		sbx_netsup_set_tun(n->sup, tun_fd);
	if (sbx_netsup_start(
		n->sup, notify_fd, diag_fd, n->trace ? sbx_trace_net : NULL, n->trace, err) < 0) {
		/* Nothing started; "auto" may try the next backend, which
		 * makes a supervisor of its own. */
		sbx_netsup_free(steal_ptr(&n->sup));
		return -1;
	}
	return 0;
}

struct launch_job {
	struct sbx_network *n;
	const struct sbx_supcfg *cfg;
	sbx_spawn_fn spawn;
	void *ctx;
	struct sbx_child *c;
	struct sbx_err *err;
	int rc;
};

/* Takes cfg's domain, spawns the jail and starts the supervisor, all on
 * the calling thread: the sandbox's domain then nests inside this one,
 * as ptrace-like access from the supervisor requires. */
static void *
launch_job(void *arg)
{
	struct launch_job *j = arg;
	int r = 0;

	j->rc = -1;
	if (j->cfg->domain == SBX_LAUNCH_PORT_DOMAIN)
		r = enter_ports(j->n, j->err);
	else if (j->cfg->domain == SBX_LAUNCH_READER_DOMAIN)
		r = enter_reader(j->n, j->err);
	r = r < 0 ? -1 : j->spawn(j->ctx, j->c, j->err);
	/* The supervisor's threads run wherever the scheduler puts them. */
	sbx_cpu_release();
	if (r < 0)
		return NULL;
	/* A backend that enforces no network rule (none) hands nothing over. */
	if (j->c->notify_fd < 0 && !j->cfg->expect_listener) {
		if (j->c->diag_fd >= 0)
			close(steal_fd(&j->c->diag_fd));
		if (j->c->tun_fd >= 0)
			close(steal_fd(&j->c->tun_fd));
		j->rc = 0;
		return NULL;
	}
	/* Killed, but left to the caller to close: its cleanup reports. */
	if (supervise(j->n, j->cfg, j->c, j->err) < 0) {
		sbx_child_abort(j->c);
		return NULL;
	}
	j->rc = 0;
	return NULL;
}

int
sbx_network_launch(struct sbx_network *n, const struct sbx_supcfg *cfg, sbx_spawn_fn spawn,
    void *ctx, struct sbx_child *c, struct sbx_err *err)
{
	struct launch_job j = {
		.n = n, .cfg = cfg, .spawn = spawn, .ctx = ctx, .c = c, .err = err
	};
	pthread_t t;
	int e;

	if (!cfg->launcher_thread) {
		launch_job(&j);
		return j.rc;
	}
	e = pthread_create(&t, NULL, launch_job, &j);
	if (e != 0) {
		errno = e;
		return sbx_err_sys(err, "cannot start the launcher thread");
	}
	pthread_join(t, NULL);
	return j.rc;
}

int
sbx_network_proxy(struct sbx_network *n, struct sbx_err *err)
{
	if (n->proxy == NULL)
		return 0;
	sbx_proxy_set_refusal_hook(n->proxy, refused, n);
	return sbx_proxy_start(n->proxy, n->trace ? sbx_trace_proxy : NULL, n->trace, err);
}

void
sbx_network_stop(struct sbx_network *n, struct sbx_report *r)
{
	if (n->proxy) {
		sbx_proxy_stop(n->proxy);
		r->proxy_port = sbx_proxy_port(n->proxy);
		r->denials += sbx_proxy_denials(n->proxy);
	}
	if (n->sup) {
		sbx_netsup_stop(n->sup);
		r->denials += sbx_netsup_denials(n->sup);
		if (sbx_netsup_drop_failed(n->sup))
			sbx_strv_push(&r->warnings,
			    "the supervisor could not take the sandbox's credentials: the calls "
			    "it was to make for the sandbox failed with EPERM");
	}
	/* Under the lock: a supervisor thread left behind by the stop could
	 * still be refusing. */
	if (n->refusal_lock_made) {
		pthread_mutex_lock(&n->refusal_lock);
		for (size_t i = 0; i < n->denied.n; i++)
			sbx_denied_add(&r->denied, n->denied.v[i].kind, n->denied.v[i].what);
		n->denied.n = 0;
		pthread_mutex_unlock(&n->refusal_lock);
	}
}

void
sbx_network_free(struct sbx_network *n)
{
	sbx_proxy_free(n->proxy);
	sbx_netsup_free(n->sup);
	sbx_netrules_free(&n->rules);
	sbx_strv_free(&n->env);
	if (n->refusal_lock_made)
		pthread_mutex_destroy(&n->refusal_lock);
	memset(n, 0, sizeof(*n));
}
