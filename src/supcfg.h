/* The supervisor's configuration for one run, decided by the core before
 * the spawn from the policy, the resolved filesystem view, the network
 * rules, the chosen backend and the caller's ids: what the supervisor
 * traps and how it judges it, where it lets metadata change and what it
 * leaves alone, which ids its on-behalf calls run as, and which thread and
 * Landlock domain the jail is launched from. Pure: no system call, so it
 * can be table-tested (tests/unit/test-supcfg.c). network.h takes it whole
 * in sbx_network_launch(); no backend sets any of it (doc/design/
 * supervisor.md, "Who configures the supervisor"). */
#ifndef SBX_SUPCFG_H
#define SBX_SUPCFG_H

#include <stdbool.h>
#include <sys/types.h>

#include "netrules.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

/* How the supervisor judges what it traps (sbx_supcfg.flags). */

/* Unix sockets: any the jail's private filesystem view shows. */
#define SBX_NETSUP_UNIX_VIEW 0x1u
/* Unix sockets: only those made inside the jail's own network namespace
 * pass (see sbx_netsup_start). */
#define SBX_NETSUP_UNIX_OWNED 0x2u
/* Metadata changes are trapped too (metasup.h); unix socket paths are
 * allowed in its writable trees. */
#define SBX_NETSUP_META 0x4u
/* The supervisor's threads hold Landlock's abstract unix socket scope:
 * an abstract connect made for the sandbox is judged by the kernel
 * (only sockets of the sandbox's own, nested, domain are reachable).
 * Not a decision of the configuration: network.c adds it when the
 * launcher's domain took the scope. */
#define SBX_NETSUP_ABSTRACT_SCOPED 0x8u
/* The sandbox runs in sbxrun's own user namespace, as the ids given to
 * sbx_netsup_set_meta() (the landlock backend): the dispatcher drops to
 * those ids and no capability too, before it reads anything of the
 * sandbox's, and keeps its ptrace-like access (same ids; the sandbox holds
 * no capability either). Without it (namespaces: the sandbox's user
 * namespace is owned by the caller, and a root caller's dispatcher must
 * keep CAP_SYS_PTRACE over it) a root caller's dispatcher takes the
 * sandbox's ids with that one capability (linux-creds.h). */
#define SBX_NETSUP_READ_DROPPED 0x10u
/* The sandbox has a network namespace of its own (namespaces backend, in
 * every network mode): its sockets live there, with only its private lo.
 * What stays there (its own loopback, any port) is made on its own
 * socket; what the rules let reach the host (a remote address, a loopback
 * port given back, a listen port) is made on a new socket in the host's
 * namespace, which the supervisor creates, connects or binds, and hands
 * in with SECCOMP_IOCTL_NOTIF_ADDFD in place of the caller's. */
#define SBX_NETSUP_OWN_NETNS 0x20u
/* The sandbox shares the host's network (landlock backend): it may bind
 * an ephemeral loopback port and connect to listeners it holds itself,
 * checked at each connect with sock_diag by socket cookie. */
#define SBX_NETSUP_OWN_LISTENERS 0x40u
/* With SBX_NETSUP_OWN_NETNS: the resolvers are on the jail's lo and
 * diag_fd is a UDP socket bound there on port 53 (any address); the
 * supervisor relays what the sandbox sends it to the resolvers and back.
 * A datagram socket of the host is then never handed in. */
#define SBX_NETSUP_DNS_RELAY 0x80u
/* With SBX_NETSUP_OWN_NETNS (--network on): the jail's init makes a tun
 * device and routes every destination but the jail's own through it, and
 * the supervisor relays the UDP found there (udprelay.h) from host
 * sockets it connects after the rules. A datagram socket of the jail then
 * keeps its own socket, and a datagram socket of the host is never handed
 * in. Whether the jail got a tun device is known only once it ran
 * (sbx_child.tun_fd): without one, the supervisor works as without this
 * flag. */
#define SBX_NETSUP_UDP_RELAY 0x100u
/* With SBX_NETSUP_OWN_NETNS and listen ports: a server of the sandbox's
 * on one is the host's (its bind is made there), and the sandbox's own
 * connects to it are made there too, when every listener on the port is
 * one the sandbox made (netclass.h, listen_self). */
#define SBX_NETSUP_LISTEN_SELF 0x200u

/* The uid and gid a root caller's sandbox runs as under both Linux
 * backends (namespaces maps root to it, landlock takes it), so the
 * supervisor's on-behalf calls leave the same owner as the sandbox's. */
#define SBX_SANDBOX_ROOT_ID 65534

/* The Landlock domain the launcher thread takes before it spawns the
 * jail; the jail's domain nests in it and the supervisor's threads,
 * started from the same thread, inherit it (network.h). */
enum sbx_launch_domain {
	SBX_LAUNCH_NO_DOMAIN,
	/* The TCP port rules and the abstract socket scope: the sandbox
	 * shares the host's network. */
	SBX_LAUNCH_PORT_DOMAIN,
	/* Only the abstract socket scope, for a root caller's dispatcher,
	 * which keeps CAP_SYS_PTRACE: Landlock then lets that capability
	 * reach the sandbox's processes only. */
	SBX_LAUNCH_READER_DOMAIN,
};

/* What the decision is taken from. */
struct sbx_supcfg_in {
	const struct sbx_policy *policy; /* resolved: mount sources canonical */
	const struct sbx_fsview *fs;
	/* The filesystem view (fsplan.h), or NULL: where protected symlinks
	 * lead in the workdir is protected as they are. */
	const struct sbx_fsplan *view;
	/* The network rules the jail's calls are judged by; NULL when they
	 * are not sbxrun's to judge: the network is fully off
	 * (sbx_policy_net_off), or the backend's engine owns it (docker). */
	const struct sbx_netrules *net;
	enum sbx_backend_id backend;
	const char *tmpdir; /* the run's private TMPDIR, or NULL */
	uid_t uid; /* the caller's (real) uid: the sandbox's ids derive from it */
	uid_t euid; /* sbxrun's effective uid: what its own threads may do */
	bool trace; /* --trace: the jail hands over its listener for it */
	uint32_t enforced; /* the rules the backend enforces (SBX_RULE_BIT) */
};

/* The configuration (sbx_supcfg_free() frees it). */
struct sbx_supcfg {
	/* The jail is spawned from a launcher thread of its own (the main
	 * thread never takes a Landlock domain), and which domain it takes. */
	bool launcher_thread;
	enum sbx_launch_domain domain;
	/* A listener is expected from the jail: the backend enforces a
	 * network rule or the run is traced. Without one the supervisor is
	 * simply not started. */
	bool expect_listener;
	unsigned flags; /* SBX_NETSUP_*, but ABSTRACT_SCOPED */
	/* SBX_NETSUP_META: the trees where metadata may change. */
	struct sbx_strv writable;
	/* What metadata and unix socket calls made for the sandbox leave
	 * alone (metasup.h, struct sbx_meta_guard), empty when the backend's
	 * supervisor guards nothing: the hidden paths, the protected ones
	 * (all of .git included), and the names the name supervisor keeps
	 * from being made, removed or renamed to, when the jail hands it that
	 * task (sbx_child.names_ruleset). */
	bool guard;
	struct sbx_strv hidden, protect, names;
	/* The ids the supervisor's on-behalf calls run as, -1: sbxrun's. */
	int as_uid, as_gid;
	/* The resolved paths (lent): the guards' paths are looked at through
	 * their pins (sbx_meta_guard.fs). */
	const struct sbx_fsview *fs;
};

/* Whether p asks for no network at all: no outbound, no ports, no proxy. */
bool sbx_policy_net_off(const struct sbx_policy *p);

/* Whether the namespaces backend's sandbox reaches the resolvers through
 * the resolver relay: then its datagrams to them stay in the jail, and no
 * datagram socket of the host is ever handed in. With a connect list,
 * every resolver; with the network on, only when one is a loopback stub
 * (127.0.0.53: the jail's own lo, which no route leads to the UDP relay;
 * the other resolvers are reached through that relay). The jail opens the
 * relay's socket and the supervisor serves it (SBX_NETSUP_DNS_RELAY): both
 * ask this. net: NULL when fully off. */
bool sbx_supcfg_relays_resolvers(const struct sbx_netrules *net);

/* Whether the namespaces backend's sandbox sends its datagrams through
 * the UDP relay (--network on, SBX_NETSUP_UDP_RELAY): the jail makes the
 * tun device and the supervisor reads it; both ask this. net: NULL when
 * fully off. */
bool sbx_supcfg_relays_udp(const struct sbx_netrules *net);

/* Fills cfg from in. */
void sbx_supcfg_make(const struct sbx_supcfg_in *in, struct sbx_supcfg *cfg);

/* The configuration as text, one fact a line, for the unit tests. */
char *sbx_supcfg_render(const struct sbx_supcfg *cfg);

void sbx_supcfg_free(struct sbx_supcfg *cfg);

#endif
