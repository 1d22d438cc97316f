/* What the network rule tests share (test-netrules.c, test-netclass.c):
 * the rule sets, each a profile and a proxy port, with the resolvers of
 * one resolv.conf; the host's own address and a remote one; addresses
 * written as text in the tables. Header-only, like tap.h (include that
 * first); one test program includes it once. */
#ifndef SBX_NETFIXTURE_H
#define SBX_NETFIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "netrules.h"
#include "policy.h"
#include "profile.h"

#define RESOLV "nameserver 10.0.0.53\nnameserver fd00::53\nnameserver 127.0.0.53\n"
#define HOST_ADDR "192.168.1.10" /* one of this machine's own addresses */
#define REMOTE "93.184.216.34"

#define PROXY_PORT 41000

/* The rule sets: a profile each; the proxy's port with a proxy. */
enum { OFF, ON, PORTS, PROXY };
static const struct {
	const char *name;
	const char *ini;
	uint16_t proxy_port;
} rule_sets[] = {
	[OFF] = { "off", "", 0 },
	[ON] = { "on", "[sandbox]\nnetwork = on\n", 0 },
	[PORTS] = { "ports", "[ports]\nconnect = 443\nlisten = 8080\nloopback = 5432\n", 0 },
	[PROXY] = { "proxy", "[proxy]\nallow = example.org\n", PROXY_PORT },
};

/* Loads rule set number set into *p and *r, with the resolvers (free
 * both after). */
static void
load_rules(struct sbx_policy *p, struct sbx_netrules *r, int set)
{
	struct sbx_err err = { 0 };

	sbx_policy_init(p, "/home/alice");
	if (sbx_profile_load_string(p, "t.ini", rule_sets[set].ini, &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	sbx_netrules_init(r, p, rule_sets[set].proxy_port);
	sbx_netrules_add_resolvers(r, RESOLV);
}

/* Fills ss from the text of a table; returns its length, 0 for none.
 * Numeric IPv4 or IPv6 with port; "unix:PATH", "unix:@NAME" (abstract),
 * "unix:" (unnamed); "unspec" (AF_UNSPEC); "short" (an IPv4 address cut
 * short). */
static socklen_t
make_addr(struct sockaddr_storage *ss, const char *text, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (text == NULL)
		return 0;
	if (strcmp(text, "unspec") == 0) {
		ss->ss_family = AF_UNSPEC;
		return (socklen_t)sizeof(struct sockaddr_in);
	}
	if (strcmp(text, "short") == 0) {
		ss->ss_family = AF_INET;
		return (socklen_t)offsetof(struct sockaddr_in, sin_addr);
	}
	if (strncmp(text, "unix:", 5) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		size_t n = strlen(text + 5);

		un->sun_family = AF_UNIX;
		if (n == 0)
			return (socklen_t)offsetof(struct sockaddr_un, sun_path);
		if (n >= sizeof(un->sun_path))
			goto bad;
		memcpy(un->sun_path, text + 5, n);
		if (text[5] == '@') {
			un->sun_path[0] = '\0'; /* abstract: no terminating NUL */
			return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
		}
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	if (strchr(text, ':') == NULL) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		if (inet_pton(AF_INET, text, &in->sin_addr) != 1)
			goto bad;
		return (socklen_t)sizeof(*in);
	}
	{
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, text, &in6->sin6_addr) != 1)
			goto bad;
		return (socklen_t)sizeof(*in6);
	}
bad:
	printf("Bail out! bad address in the table: %s\n", text);
	exit(1);
}

#endif
