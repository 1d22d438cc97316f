/* The proxy allowlist matcher and the local-address classifier. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "hostmatch.h"
#include "policy.h"
#include "tap.h"

static void
normalizes(const char *in, const char *want)
{
	char out[SBX_HOST_MAX];
	bool r = sbx_host_normalize(in, strlen(in), out, sizeof(out));

	if (want == NULL) {
		if (!ok(!r && out[0] == '\0', "'%s' is refused", in))
			diag("normalized to '%s'", out);
	} else {
		ok(r, "'%s' is a host", in);
		is_str(out, want, "'%s' normalizes to '%s'", in, want);
	}
}

static void
check_normalize(void)
{
	char out[SBX_HOST_MAX], big[300];

	normalizes("example.org", "example.org");
	normalizes("Example.ORG.", "example.org");
	normalizes("under_score.example", "under_score.example");
	normalizes("xn--bcher-kva.example", "xn--bcher-kva.example");
	normalizes("1e100.net", "1e100.net");
	normalizes("123.example", "123.example");
	normalizes("localhost", "localhost");
	normalizes("", NULL);
	normalizes(".", NULL);
	normalizes("..", NULL);
	normalizes("example.org..", NULL);
	normalizes(".example.org", NULL);
	normalizes("a..b", NULL);
	normalizes("exa mple.org", NULL);
	normalizes("example.org ", NULL);
	normalizes(" example.org", NULL);
	normalizes("ex%61mple.org", NULL);
	normalizes("a/b.org", NULL);
	normalizes("a\\b.org", NULL);
	normalizes("user@example.org", NULL);
	normalizes("example.org:80", NULL);
	normalizes("*.example.org", NULL);
	normalizes("b\xc3\xbc"
		   "cher.example",
	    NULL);
	normalizes("tab\t.org", NULL);
	normalizes("cr\r.org", NULL);

	/* Embedded NUL: the length says more than strlen() would. */
	ok(!sbx_host_normalize("example.org\0.evil.com", 21, out, sizeof(out)),
	    "embedded NUL is refused");
	ok(!sbx_host_normalize("example.org", 11, out, 5), "too small an output is refused");

	/* Label and name lengths. */
	memset(big, 'a', 63);
	strcpy(big + 63, ".org");
	normalizes(big, big);
	memset(big, 'a', 64);
	strcpy(big + 64, ".org");
	normalizes(big, NULL);
	for (int i = 0; i < 4; i++) {
		memset(big + i * 64, 'b', 63);
		big[i * 64 + 63] = '.';
	}
	big[253] = '\0'; /* 4 labels: 63+1+63+1+63+1+61 = 253 */
	ok(sbx_host_normalize(big, 253, out, sizeof(out)), "a 253-byte name is a host");
	big[253] = '.';
	big[254] = '\0';
	ok(sbx_host_normalize(big, 254, out, sizeof(out)), "253 bytes plus the root dot");
	big[253] = 'b';
	ok(!sbx_host_normalize(big, 254, out, sizeof(out)), "a 254-byte name is refused");

	/* IPv4: the dotted quad only; inet_aton's other spellings are refused
	 * so that no name turns into an address behind the matcher's back. */
	normalizes("192.0.2.1", "192.0.2.1");
	normalizes("192.0.2.1.", "192.0.2.1");
	normalizes("127.0.0.1", "127.0.0.1");
	normalizes("127.1", NULL);
	normalizes("2130706433", NULL);
	normalizes("0x7f000001", NULL);
	normalizes("0x7f.0.0.1", NULL);
	normalizes("0X7F.0.0.1", NULL);
	normalizes("017700000001", NULL);
	normalizes("01.2.3.4", NULL);
	normalizes("1.2.3.04", NULL);
	normalizes("256.1.1.1", NULL);
	normalizes("1.2.3.4.5", NULL);
	normalizes("a.123", NULL);
	normalizes("example.0x10", NULL);
	normalizes("example.0xg", "example.0xg");

	/* IPv6 in brackets, canonical inet_ntop form. */
	normalizes("[2001:DB8::1]", "[2001:db8::1]");
	normalizes("[2001:0db8:0000:0000:0000:0000:0000:0001]", "[2001:db8::1]");
	normalizes("[::1]", "[::1]");
	normalizes("[::ffff:127.0.0.1]", "[::ffff:127.0.0.1]");
	normalizes("[fe80::1%eth0]", NULL);
	normalizes("[fe80::1%25eth0]", NULL);
	normalizes("[::1", NULL);
	normalizes("[]", NULL);
	normalizes("[1.2.3.4]", NULL);
	normalizes("[::1]x", NULL);
	normalizes("[::1]:80", NULL);
	normalizes("::1", NULL);
	normalizes("[[::1]]", NULL);
}

static struct sbx_strv
strv(const char *const *v)
{
	struct sbx_strv sv = { 0 };

	for (; *v; v++)
		sbx_strv_push(&sv, *v);
	return sv;
}

static void
allowed(const struct sbx_strv *pats, const char *host, bool want)
{
	ok(sbx_host_allowed(pats, host) == want, "'%s' is %s", host, want ? "allowed" : "refused");
}

static void
check_allowed(void)
{
	static const char *const list[] = {
		"example.org",
		"*.example.com",
		"192.0.2.1",
		"[2001:db8::1]",
		"2001:db8::2",
		"Mixed.Case.NET.",
		"*.0.2.1",
		"localhost",
		NULL,
	};
	struct sbx_strv pats = strv(list);
	struct sbx_strv none = { 0 };

	/* Exact names. */
	allowed(&pats, "example.org", true);
	allowed(&pats, "EXAMPLE.org", true);
	allowed(&pats, "example.org.", true);
	allowed(&pats, "www.example.org", false);
	allowed(&pats, "example.org.evil.com", false);
	allowed(&pats, "xexample.org", false);
	allowed(&pats, "example.orgx", false);
	allowed(&pats, "example.or", false);
	allowed(&pats, "example.org..", false);
	allowed(&pats, "example.org%00", false);
	allowed(&pats, "example.org ", false);
	allowed(&pats, "mixed.case.net", true);
	allowed(&pats, "localhost", true);

	/* *.suffix: strictly under suffix, at any depth. */
	allowed(&pats, "a.example.com", true);
	allowed(&pats, "a.b.c.example.com", true);
	allowed(&pats, "A.Example.COM.", true);
	allowed(&pats, "evil.com.example.com", true);
	allowed(&pats, "example.com", false);
	allowed(&pats, ".example.com", false);
	allowed(&pats, "badexample.com", false);
	allowed(&pats, "a-example.com", false);
	allowed(&pats, "example.com.evil.net", false);
	allowed(&pats, "a.example.com.evil.net", false);
	allowed(&pats, "a.example.comm", false);
	allowed(&pats, "a.example.co", false);
	allowed(&pats, "*.example.com", false);
	allowed(&pats, "a.example.com/x", false);
	allowed(&pats, "a.example.com:443", false);
	allowed(&pats, "a.example.com@evil.net", false);

	/* Addresses: exact only, never through a wildcard. */
	allowed(&pats, "192.0.2.1", true);
	allowed(&pats, "192.0.2.01", false);
	allowed(&pats, "3221225985", false);
	allowed(&pats, "[192.0.2.1]", false);
	allowed(&pats, "10.0.2.1", false);
	allowed(&pats, "[2001:db8::1]", true);
	allowed(&pats, "[2001:DB8:0::0:1]", true);
	allowed(&pats, "[2001:db8::2]", true);
	allowed(&pats, "[2001:db8::3]", false);
	allowed(&pats, "2001:db8::1", false);
	allowed(&pats, "[::ffff:192.0.2.1]", false);
	allowed(&pats, "127.0.0.1", false);

	ok(!sbx_host_allowed(&none, "example.org"), "an empty list allows nothing");
	ok(!sbx_host_allowed(NULL, "example.org"), "no list allows nothing");
	ok(!sbx_host_allowed(&pats, NULL), "no host is refused");
	{
		static const char *const bad[] = { "*", "*.", "*..example.org", "", NULL };
		struct sbx_strv b = strv(bad);

		ok(!sbx_host_allowed(&b, "example.org") && !sbx_host_allowed(&b, "a.example.org"),
		    "malformed patterns match nothing");
		sbx_strv_free(&b);
	}
	sbx_strv_free(&pats);
}

static const char *
verdict_name(enum sbx_host_verdict v)
{
	switch (v) {
	case SBX_HOST_ALLOWED: return "allowed";
	case SBX_HOST_NOT_LISTED: return "not listed";
	case SBX_HOST_PORT: return "port not allowed";
	case SBX_HOST_DENIED: return "denied";
	}
	return "?";
}

static void
decides(const struct sbx_strv *allow, const struct sbx_strv *deny, const char *host, uint16_t port,
    enum sbx_host_verdict want)
{
	enum sbx_host_verdict v = sbx_host_decide(allow, deny, host, port);

	if (!ok(v == want, "'%s' port %u is %s", host, port, verdict_name(want)))
		diag("got: %s", verdict_name(v));
}

/* Ports, deny over allow, IDN, case and trailing dots: the rules of the
 * allow and deny entries together (sbx_host_decide()). */
static void
check_decide(void)
{
	static const char *const allow_list[] = {
		"api.example.com",
		"git.example.com:22",
		"*.example.org",
		"*.corp.example:5432",
		"db.example.net:5432",
		"db.example.net:6379",
		"xn--bcher-kva.example",
		"192.0.2.1:8080",
		"[2001:db8::1]:22",
		"mixed.example.com",
		"mixed.example.com:8443",
		"uploads.example.org",
		"Upper.Example.COM.:993",
		NULL,
	};
	static const char *const deny_list[] = {
		"uploads.example.org",
		"*.internal.example.org",
		"mixed.example.com:443",
		"*.corp.example:5432",
		NULL,
	};
	struct sbx_strv allow = strv(allow_list), deny = strv(deny_list), none = { 0 };
	struct sbx_ports ports = { 0 };

	/* No port: 80 and 443, nothing else. */
	decides(&allow, &deny, "api.example.com", 443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "api.example.com", 80, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "api.example.com", 9090, SBX_HOST_PORT);
	decides(&allow, &deny, "api.example.com", 22, SBX_HOST_PORT);
	decides(&allow, &deny, "api.example.com", 8443, SBX_HOST_PORT);
	decides(&allow, &deny, "api.example.com", 0, SBX_HOST_PORT);
	/* A port: only that port, not 80 or 443 as well. */
	decides(&allow, &deny, "git.example.com", 22, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "git.example.com", 443, SBX_HOST_PORT);
	decides(&allow, &deny, "git.example.com", 80, SBX_HOST_PORT);
	decides(&allow, &deny, "git.example.com", 2222, SBX_HOST_PORT);
	decides(&allow, &deny, "db.example.net", 5432, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "db.example.net", 6379, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "db.example.net", 3306, SBX_HOST_PORT);
	/* Entries add up: no port and a port on the same host. */
	decides(&allow, &deny, "mixed.example.com", 80, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "mixed.example.com", 8443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "mixed.example.com", 8080, SBX_HOST_PORT);
	/* *.suffix with and without a port. */
	decides(&allow, &deny, "a.example.org", 443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "a.b.example.org", 80, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "a.example.org", 22, SBX_HOST_PORT);
	decides(&allow, &deny, "example.org", 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "badexample.org", 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "a.example.org.evil.net", 443, SBX_HOST_NOT_LISTED);
	/* Deny wins over allow: a whole host, a wildcard inside an allowed
	 * wildcard, one port of a host, and a wildcard equal to an allow. */
	decides(&allow, &deny, "uploads.example.org", 443, SBX_HOST_DENIED);
	decides(&allow, &deny, "uploads.example.org", 80, SBX_HOST_DENIED);
	decides(&allow, &deny, "uploads.example.org", 9999, SBX_HOST_DENIED);
	decides(&allow, &deny, "UPLOADS.Example.Org.", 443, SBX_HOST_DENIED);
	decides(&allow, &deny, "a.internal.example.org", 443, SBX_HOST_DENIED);
	decides(&allow, &deny, "internal.example.org", 443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "mixed.example.com", 443, SBX_HOST_DENIED);
	decides(&allow, &deny, "db.corp.example", 5432, SBX_HOST_DENIED);
	decides(&allow, &deny, "db.corp.example", 443, SBX_HOST_PORT);
	decides(&none, &deny, "uploads.example.org", 443, SBX_HOST_DENIED);
	decides(&allow, NULL, "uploads.example.org", 443, SBX_HOST_ALLOWED);
	/* Case and one trailing dot, on either side. */
	decides(&allow, &deny, "API.Example.Com.", 443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "upper.example.com", 993, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "api.example.com..", 443, SBX_HOST_NOT_LISTED);
	/* International names: their xn-- form only, case aside; the UTF-8
	 * spelling (which no client sends on the wire) and a look-alike
	 * never match. */
	decides(&allow, &deny, "xn--bcher-kva.example", 443, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "XN--BCHER-KVA.EXAMPLE.", 80, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "b\303\274cher.example", 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "xn--bcher-kvb.example", 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "bucher.example", 443, SBX_HOST_NOT_LISTED);
	/* Addresses with ports: exact address and port. */
	decides(&allow, &deny, "192.0.2.1", 8080, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "192.0.2.1", 80, SBX_HOST_PORT);
	decides(&allow, &deny, "3221225985", 8080, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "[2001:db8::1]", 22, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "[2001:DB8:0::1]", 22, SBX_HOST_ALLOWED);
	decides(&allow, &deny, "[2001:db8::1]", 443, SBX_HOST_PORT);
	/* Nothing listed, or nothing at all. */
	decides(&none, NULL, "api.example.com", 443, SBX_HOST_NOT_LISTED);
	decides(NULL, NULL, "api.example.com", 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, NULL, 443, SBX_HOST_NOT_LISTED);
	decides(&allow, &deny, "", 443, SBX_HOST_NOT_LISTED);
	{
		static const char *const bad[] = { "a.com:", "a.com:0", "a.com:65536", "a.com:x",
			"a.com:1:2", NULL };
		struct sbx_strv b = strv(bad);

		decides(&b, NULL, "a.com", 443, SBX_HOST_NOT_LISTED);
		decides(&b, NULL, "a.com", 1, SBX_HOST_NOT_LISTED);
		decides(&allow, &b, "api.example.com", 443, SBX_HOST_ALLOWED);
		ok(true, "malformed entries neither allow nor deny");
		sbx_strv_free(&b);
	}
	ok(strcmp(sbx_host_verdict_reason(SBX_HOST_DENIED), "host denied") == 0 &&
		sbx_host_verdict_reason(SBX_HOST_ALLOWED) == NULL,
	    "each verdict has its reason");

	/* The ports the helper may connect to: 80 and 443 for an entry
	 * without a port, each named port. */
	sbx_host_allow_ports(&allow, &ports);
	{
		static const uint16_t want[] = { 22, 80, 443, 993, 5432, 6379, 8080, 8443 };
		bool same = ports.n == SBX_ARRAY_LEN(want);

		for (size_t i = 0; same && i < ports.n; i++)
			same = ports.v[i] == want[i];
		ok(same, "the allow entries give ports 22 80 443 993 5432 6379 8080 8443");
	}
	free(ports.v);
	ports = (struct sbx_ports){ 0 };
	{
		static const char *const only[] = { "git.example.com:22", NULL };
		struct sbx_strv o = strv(only);

		sbx_host_allow_ports(&o, &ports);
		ok(ports.n == 1 && ports.v[0] == 22, "a single host:22 gives port 22 alone");
		sbx_strv_free(&o);
	}
	free(ports.v);
	sbx_strv_free(&allow);
	sbx_strv_free(&deny);
}

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static struct addr
ip(const char *text, uint16_t port)
{
	struct addr a = { 0 };

	if (strchr(text, ':') != NULL) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a.ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		if (inet_pton(AF_INET6, text, &s->sin6_addr) != 1)
			diag("bad test address %s", text);
		a.len = sizeof(*s);
	} else {
		struct sockaddr_in *s = (struct sockaddr_in *)&a.ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		if (inet_pton(AF_INET, text, &s->sin_addr) != 1)
			diag("bad test address %s", text);
		a.len = sizeof(*s);
	}
	return a;
}

static void
local(const char *text, bool want)
{
	struct addr a = ip(text, 443);

	ok(sbx_addr_is_local((struct sockaddr *)&a.ss, a.len) == want, "%s is %s", text,
	    want ? "local" : "not local");
}

static void
check_local(void)
{
	static const char *const yes[] = {
		"127.0.0.1",
		"127.0.0.53",
		"127.255.255.254",
		"0.0.0.0",
		"0.1.2.3",
		"169.254.169.254",
		"169.254.0.1",
		"169.254.255.255",
		"224.0.0.1",
		"239.255.255.250",
		"240.0.0.1",
		"255.255.255.255",
		"100.100.100.200",
		"::",
		"::1",
		"::ffff:127.0.0.1",
		"::ffff:127.1.2.3",
		"::ffff:0.0.0.0",
		"::ffff:169.254.169.254",
		"::ffff:224.0.0.1",
		"::127.0.0.1",
		"::8.8.8.8",
		"::0.0.0.1",
		"::ffff:0:127.0.0.1",
		"::ffff:0:0.0.0.0",
		"64:ff9b::127.0.0.1",
		"64:ff9b::a9fe:a9fe",
		"2002:7f00:1::1",
		"2002:a9fe:a9fe::",
		"2002::1",
		"fe80::1",
		"fe80::1:2:3:4",
		"febf:ffff::1",
		"ff02::1",
		"ff05::2",
		"fd00:ec2::254",
		NULL,
	};
	static const char *const no[] = {
		"8.8.8.8",
		"1.1.1.1",
		"10.0.0.1",
		"172.16.0.1",
		"192.168.1.1",
		"100.64.0.1",
		"126.255.255.255",
		"128.0.0.1",
		"1.0.0.0",
		"169.253.255.255",
		"169.255.0.1",
		"223.255.255.255",
		"100.100.100.201",
		"192.0.2.1",
		"2001:db8::1",
		"2606:4700::1111",
		"::1:0:0:1",
		"::ffff:8.8.8.8",
		"::ffff:0:8.8.8.8",
		"64:ff9b::808:808",
		"64:ff9b:1::7f00:1",
		"2002:808:808::1",
		"fec0::1",
		"fc00::1",
		"fd00:ec2::253",
		"fd00:ec2::254:1",
		"2001::1",
		"fe7f:ffff::1",
		"::fffe:127.0.0.1",
		NULL,
	};
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_storage st = { .ss_family = AF_UNSPEC };
	struct addr a;
	char raw[sizeof(struct sockaddr_in6) + 1];

	for (const char *const *s = yes; *s; s++)
		local(*s, true);
	for (const char *const *s = no; *s; s++)
		local(*s, false);

	/* Fail closed on what cannot be classified. */
	ok(sbx_addr_is_local(NULL, 0), "NULL is local");
	ok(sbx_addr_is_local((struct sockaddr *)&un, sizeof(un)), "AF_UNIX is refused");
	ok(sbx_addr_is_local((struct sockaddr *)&st, sizeof(st)), "AF_UNSPEC is refused");
	a = ip("8.8.8.8", 53);
	ok(sbx_addr_is_local((struct sockaddr *)&a.ss, 8), "a short AF_INET is refused");
	ok(sbx_addr_is_local((struct sockaddr *)&a.ss, 1), "a one-byte sockaddr is refused");
	a = ip("2001:db8::1", 53);
	ok(!sbx_addr_is_local((struct sockaddr *)&a.ss, 24), "the 24-byte RFC 2133 sockaddr_in6");
	ok(sbx_addr_is_local((struct sockaddr *)&a.ss, 23), "a short AF_INET6 is refused");

	/* Unaligned, as copied out of another process. */
	a = ip("::1", 80);
	memcpy(raw + 1, &a.ss, sizeof(struct sockaddr_in6));
	ok(sbx_addr_is_local((struct sockaddr *)(raw + 1), sizeof(struct sockaddr_in6)),
	    "an unaligned ::1 is local");
	a = ip("2001:db8::1", 80);
	memcpy(raw + 1, &a.ss, sizeof(struct sockaddr_in6));
	ok(!sbx_addr_is_local((struct sockaddr *)(raw + 1), sizeof(struct sockaddr_in6)),
	    "an unaligned 2001:db8::1 is not");
}

static bool
equal(const char *x, const char *y)
{
	struct addr a = ip(x, 1), b = ip(y, 2);

	return sbx_addr_equal((struct sockaddr *)&a.ss, a.len, (struct sockaddr *)&b.ss, b.len);
}

static void
check_own(void)
{
	struct sbx_addrlist own = { 0 };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct addr a;
	char buf[SBX_ADDR_STRLEN];

	ok(equal("10.0.0.5", "10.0.0.5"), "same IPv4, other port");
	ok(equal("10.0.0.5", "::ffff:10.0.0.5"), "IPv4 equals its mapped IPv6");
	ok(equal("::ffff:10.0.0.5", "10.0.0.5"), "and the other way round");
	ok(!equal("10.0.0.5", "10.0.0.6"), "other IPv4");
	ok(!equal("10.0.0.5", "::10.0.0.5"), "IPv4-compatible is not IPv4-mapped");
	ok(equal("2001:db8::5", "2001:db8:0::5"), "same IPv6");
	ok(!equal("2001:db8::5", "2001:db8::6"), "other IPv6");
	{
		struct addr x = ip("fe80::1", 1), y = ip("fe80::1", 1);

		((struct sockaddr_in6 *)&x.ss)->sin6_scope_id = 2;
		ok(sbx_addr_equal((struct sockaddr *)&x.ss, x.len, (struct sockaddr *)&y.ss, y.len),
		    "the scope is ignored");
	}
	ok(!sbx_addr_equal((struct sockaddr *)&un, sizeof(un), (struct sockaddr *)&un, sizeof(un)),
	    "AF_UNIX equals nothing");

	a = ip("10.0.0.5", 0);
	sbx_addrlist_add(&own, (struct sockaddr *)&a.ss, a.len);
	a = ip("2001:db8::5", 0);
	sbx_addrlist_add(&own, (struct sockaddr *)&a.ss, a.len);
	sbx_addrlist_add(&own, (struct sockaddr *)&un, sizeof(un));
	is_int((intmax_t)own.n, 2, "the list takes IPv4 and IPv6 only");

	{
		static const struct {
			const char *addr;
			bool refused;
		} cases[] = {
			{ "10.0.0.5", true },
			{ "::ffff:10.0.0.5", true },
			{ "10.0.0.6", false },
			{ "2001:db8::5", true },
			{ "2001:db8::6", false },
			{ "127.0.0.1", true },
			{ "169.254.169.254", true },
			{ "8.8.8.8", false },
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
			a = ip(cases[i].addr, 443);
			ok(sbx_addr_refused((struct sockaddr *)&a.ss, a.len, &own) ==
				cases[i].refused,
			    "%s is %s with the own list", cases[i].addr,
			    cases[i].refused ? "refused" : "allowed");
		}
	}
	a = ip("10.0.0.5", 443);
	ok(!sbx_addr_refused((struct sockaddr *)&a.ss, a.len, NULL),
	    "no own list: 10.0.0.5 passes");
	ok(sbx_addr_in_list((struct sockaddr *)&a.ss, a.len, &own), "10.0.0.5 is in the list");
	ok(!sbx_addr_in_list((struct sockaddr *)&a.ss, a.len, NULL), "nothing is in no list");
	sbx_addrlist_free(&own);
	is_int((intmax_t)own.n, 0, "freed list is empty");

	a = ip("192.0.2.1", 443);
	is_str(sbx_addr_format((struct sockaddr *)&a.ss, a.len, buf, sizeof(buf)), "192.0.2.1",
	    "format IPv4 without the port");
	a = ip("2001:db8::1", 443);
	is_str(sbx_addr_format((struct sockaddr *)&a.ss, a.len, buf, sizeof(buf)), "2001:db8::1",
	    "format IPv6 without the port");
	a = ip("::ffff:127.0.0.1", 443);
	is_str(sbx_addr_format((struct sockaddr *)&a.ss, a.len, buf, sizeof(buf)),
	    "::ffff:127.0.0.1", "format keeps the IPv4-mapped spelling");
	is_str(sbx_addr_format((struct sockaddr *)&un, sizeof(un), buf, sizeof(buf)), "?",
	    "format AF_UNIX");
}

int
main(void)
{
	check_normalize();
	check_allowed();
	check_decide();
	check_local();
	check_own();
	return done_testing();
}
