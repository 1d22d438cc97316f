/* sbx_supcfg_make() as a table: a policy, the network rules it makes (with
 * the resolvers of a resolv.conf), a backend, the caller and whether the
 * run is traced, against the supervisor's whole configuration as text:
 * the launcher's thread and Landlock domain, whether a listener is
 * expected, the SBX_NETSUP_* flags, the ids of the on-behalf calls and the
 * trees it may change or must leave alone. The filesystem view is built
 * by hand: the function reads nothing from the machine. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "netrules.h"
#include "policy.h"
#include "profile.h"
#include "resolve.h"
#include "supcfg.h"
#include "tap.h"

#define HOME "/home/alice"
#define WD HOME "/proj"
#define TMPDIR "/tmp/sbxrun-tmp.TEST"
#define RESOLV "nameserver 10.0.0.53\n"
/* A stub on the host's loopback (systemd-resolved) besides a remote one. */
#define RESOLV_STUB "nameserver 127.0.0.53\nnameserver 10.0.0.53\n"

/* Only the protected path asked for, so that the texts stay short; one
 * read-write mount and one read-only. */
#define BASE \
	"[sandbox]\nprotect_defaults = false\n[protect]\npath = secret.txt\n" \
	"[mounts]\ndata = /srv/data:rw\nref = /srv/ref\n"

#define NET_RULES \
	(SBX_RULE_BIT(SBX_RULE_LISTEN) | SBX_RULE_BIT(SBX_RULE_CONNECT) | \
	    SBX_RULE_BIT(SBX_RULE_LOOPBACK) | SBX_RULE_BIT(SBX_RULE_PROXY))

#define LL_LISTS \
	"writable " WD "\n" \
	"writable " TMPDIR "\n" \
	"writable /srv/data\n" \
	"hidden " HOME "/.ssh\n" \
	"protect " WD "/.git/hooks\n" \
	"protect " WD "/.git/config\n" \
	"protect " WD "/secret.txt\n" \
	"protect " WD "/.git\n" \
	"names " WD "/.git\n" \
	"names " WD "/.git/hooks\n" \
	"names " WD "/.git/config\n" \
	"names " WD "/secret.txt\n"

struct row {
	const char *name;
	const char *ini; /* after BASE */
	enum sbx_backend_id backend;
	unsigned uid;
	bool trace;
	uint32_t enforced;
	const char *want;
};

static const struct row rows[] = {
	{ "namespaces, network off, alice", "", SBX_BACKEND_NAMESPACES, 1000, false, NET_RULES,
	    "launch main domain none\nlistener expected\nflags unix-owned own-netns\n"
	    "ids -1 -1\nguard no\n" },
	{ "namespaces, network off, root: the reader's domain", "", SBX_BACKEND_NAMESPACES, 0,
	    false, NET_RULES,
	    "launch thread domain reader\nlistener expected\nflags unix-owned own-netns\n"
	    "ids 65534 65534\nguard no\n" },
	{ "namespaces, a connect list: the resolver relay", "[ports]\nconnect = 443\n",
	    SBX_BACKEND_NAMESPACES, 1000, false, NET_RULES,
	    "launch thread domain none\nlistener expected\n"
	    "flags unix-view own-netns dns-relay\nids -1 -1\nguard no\n" },
	{ "namespaces, network on: the UDP relay", "[sandbox]\nnetwork = on\n",
	    SBX_BACKEND_NAMESPACES, 0, false, NET_RULES,
	    "launch thread domain reader\nlistener expected\n"
	    "flags unix-view own-netns udp-relay\nids 65534 65534\nguard no\n" },
	{ "namespaces, a listen port: the sandbox's own connects to it leave the jail",
	    "[ports]\nlisten = 8080\n", SBX_BACKEND_NAMESPACES, 1000, false, NET_RULES,
	    "launch thread domain none\nlistener expected\n"
	    "flags unix-view own-netns listen-self\nids -1 -1\nguard no\n" },
	{ "landlock, network on: no relay", "[sandbox]\nnetwork = on\n", SBX_BACKEND_LANDLOCK, 1000,
	    false, NET_RULES,
	    "launch thread domain ports\nlistener expected\n"
	    "flags meta read-dropped own-listeners\nids -1 -1\nguard yes\n" LL_LISTS },
	{ "landlock, network off, alice", "", SBX_BACKEND_LANDLOCK, 1000, false, NET_RULES,
	    "launch main domain none\nlistener expected\n"
	    "flags meta read-dropped own-listeners\nids -1 -1\nguard yes\n" LL_LISTS },
	{ "landlock, listen port, root: the port domain", "[ports]\nlisten = 8080\n",
	    SBX_BACKEND_LANDLOCK, 0, false, NET_RULES,
	    "launch thread domain ports\nlistener expected\n"
	    "flags meta read-dropped own-listeners\nids 65534 65534\nguard yes\n" LL_LISTS },
	{ "landlock without the network rules enforced", "", SBX_BACKEND_LANDLOCK, 1000, false,
	    SBX_RULE_BIT(SBX_RULE_NETWORK),
	    "launch main domain none\nlistener optional\n"
	    "flags meta read-dropped own-listeners\nids -1 -1\nguard yes\n" LL_LISTS },
	{ "none, network on: ports domain, nothing expected", "[sandbox]\nnetwork = on\n",
	    SBX_BACKEND_NONE, 0, false, 0,
	    "launch thread domain ports\nlistener optional\nflags\nids -1 -1\nguard no\n" },
	{ "none, traced: a listener is expected", "", SBX_BACKEND_NONE, 1000, true, 0,
	    "launch main domain none\nlistener expected\nflags\nids -1 -1\nguard no\n" },
	{ "docker: the engine's network", "[sandbox]\nnetwork = on\n", SBX_BACKEND_DOCKER, 0, false,
	    NET_RULES, "launch main domain none\nlistener expected\nflags\nids -1 -1\nguard no\n" },
};

/* The same with a loopback stub resolver (RESOLV_STUB): under --network
 * on it is the jail's own lo, which no route leads to the UDP relay, so
 * the resolver relay serves it too. */
static const struct row stub_rows[] = {
	{ "namespaces, network on, a loopback stub: both relays", "[sandbox]\nnetwork = on\n",
	    SBX_BACKEND_NAMESPACES, 1000, false, NET_RULES,
	    "launch thread domain none\nlistener expected\n"
	    "flags unix-view own-netns dns-relay udp-relay\nids -1 -1\nguard no\n" },
	{ "namespaces, a connect list, a loopback stub: the resolver relay alone",
	    "[ports]\nconnect = 443\n", SBX_BACKEND_NAMESPACES, 1000, false, NET_RULES,
	    "launch thread domain none\nlistener expected\n"
	    "flags unix-view own-netns dns-relay\nids -1 -1\nguard no\n" },
};

static void
check_row(const struct row *w, const char *resolv)
{
	_cleanup_free_ char *ini = sbx_xasprintf("%s%s", BASE, w->ini), *got = NULL;
	struct sbx_policy p;
	struct sbx_netrules r = { 0 };
	struct sbx_fsview fs = { .workdir = (char *)WD };
	struct sbx_supcfg cfg;
	struct sbx_err err = { 0 };
	bool net = false;

	sbx_policy_init(&p, HOME);
	if (sbx_profile_load_string(&p, "t.ini", ini, &err) < 0) {
		printf("Bail out! %s: %s\n", w->name, err.msg);
		exit(1);
	}
	sbx_strv_push(&fs.homes, HOME);
	sbx_strv_push(&fs.hidden, HOME "/.ssh");
	/* main.c hands the rules over only when they are sbxrun's to judge. */
	if (!sbx_policy_net_off(&p) && w->backend != SBX_BACKEND_DOCKER) {
		sbx_netrules_init(&r, &p, 0);
		if (r.outbound)
			sbx_netrules_add_resolvers(&r, resolv);
		net = true;
	}
	{
		struct sbx_supcfg_in in = {
			.policy = &p,
			.fs = &fs,
			.net = net ? &r : NULL,
			.backend = w->backend,
			.tmpdir = w->backend == SBX_BACKEND_LANDLOCK ? TMPDIR : NULL,
			.uid = w->uid,
			.euid = w->uid,
			.trace = w->trace,
			.enforced = w->enforced,
		};

		sbx_supcfg_make(&in, &cfg);
	}
	got = sbx_supcfg_render(&cfg);
	is_str(got, w->want, "%s", w->name);
	sbx_supcfg_free(&cfg);
	if (net)
		sbx_netrules_free(&r);
	sbx_strv_free(&fs.homes);
	sbx_strv_free(&fs.hidden);
	sbx_policy_free(&p);
}

/* The built-in protected paths reach the guard and the names, as they
 * reach the Landlock rules (plan.h, sbx_protect_list). */
static void
check_defaults(void)
{
	struct sbx_policy p;
	struct sbx_fsview fs = { .workdir = (char *)WD };
	struct sbx_supcfg cfg;
	struct sbx_supcfg_in in = {
		.policy = &p,
		.fs = &fs,
		.backend = SBX_BACKEND_LANDLOCK,
		.tmpdir = TMPDIR,
		.uid = 1000,
		.euid = 1000,
	};

	sbx_policy_init(&p, HOME);
	sbx_supcfg_make(&in, &cfg);
	ok(sbx_strv_contains(&cfg.protect, WD "/.envrc"), "a built-in protected path is guarded");
	ok(sbx_strv_contains(&cfg.names, WD "/.envrc"), "... and its name kept");
	ok(cfg.writable.n == 2, "no mount: the workdir and TMPDIR are writable");
	sbx_supcfg_free(&cfg);
	sbx_policy_free(&p);
}

int
main(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(rows); i++)
		check_row(&rows[i], RESOLV);
	for (size_t i = 0; i < SBX_ARRAY_LEN(stub_rows); i++)
		check_row(&stub_rows[i], RESOLV_STUB);
	check_defaults();
	return done_testing();
}
