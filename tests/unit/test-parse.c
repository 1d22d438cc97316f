/* The value grammar of profiles and flags: durations, sizes, counts,
 * booleans, ports and port lists, host patterns, relative paths, mount
 * values, "~" expansion, and the formatters that write values back. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tap.h"

static void
duration_ok(const char *s, uint64_t want)
{
	struct sbx_err err = { 0 };
	uint64_t v = 12345;

	if (is_int(sbx_parse_duration_ms(s, &v, &err), 0, "duration '%s' parses", s))
		is_u64(v, want, "duration '%s' = %" PRIu64 " ms", s, want);
	else
		diag("error: %s", err.msg);
}

static void
duration_bad(const char *s, const char *msg)
{
	struct sbx_err err = { 0 };
	uint64_t v = 12345;

	is_int(sbx_parse_duration_ms(s, &v, &err), -1, "duration '%s' is refused", s);
	is_u64(v, 12345, "a refused duration '%s' leaves the output alone", s);
	like(err.msg, msg, "duration '%s': message", s);
}

static void
test_durations(void)
{
	struct sbx_err err = { 0 };

	duration_ok("30s", 30000);
	duration_ok("0", 0);
	duration_ok("0s", 0);
	duration_ok("5", 5000); /* a bare number is seconds */
	duration_ok("100ms", 100);
	duration_ok("1ms", 1);
	duration_ok("2m", 120000);
	duration_ok("1h", 3600000);
	duration_ok("24h", 86400000);
	duration_ok("007s", 7000);
	/* The cap is 366 days, in every unit. */
	duration_ok("8784h", UINT64_C(8784) * 3600000);
	duration_ok("527040m", UINT64_C(527040) * 60000);
	duration_ok("31622400s", UINT64_C(31622400) * 1000);
	duration_ok("31622400", UINT64_C(31622400) * 1000);
	duration_ok("31622400000ms", UINT64_C(31622400000));
	duration_bad("8785h", "too long");
	duration_bad("527041m", "too long");
	duration_bad("31622401s", "too long");
	duration_bad("31622400001ms", "too long");
	duration_bad("99999999999999999999999", "bad duration");
	duration_bad("18446744073709551615h", "too long");

	duration_bad("", "empty duration");
	duration_bad("   ", "empty duration");
	duration_bad("abc", "bad duration 'abc'");
	duration_bad("-1", "bad duration");
	duration_bad("+1s", "bad duration");
	duration_bad("1.5s", "bad duration");
	duration_bad("1d", "bad duration '1d'");
	duration_bad("s", "bad duration");
	duration_bad("30 s", "bad duration");
	duration_bad(" 30s", "bad duration");
	duration_bad("30s ", "bad duration");
	duration_bad("1h30m", "bad duration");
	duration_bad("1sec", "bad duration");
	duration_bad("0x10", "bad duration");

	is_int(
	    sbx_parse_duration_ms(NULL, &(uint64_t){ 0 }, &err), -1, "a NULL duration is refused");
	is_int(err.errnum, EINVAL, "errnum is EINVAL");
	is_int(sbx_parse_duration_ms("9000h", &(uint64_t){ 0 }, &err), -1, "9000h is refused");
	is_int(err.errnum, ERANGE, "too long: errnum is ERANGE");
	is_int(sbx_parse_duration_ms("x", &(uint64_t){ 0 }, NULL), -1,
	    "a NULL error record is allowed");
}

static void
size_ok(const char *s, uint64_t want)
{
	struct sbx_err err = { 0 };
	uint64_t v = 12345;

	if (is_int(sbx_parse_size(s, &v, &err), 0, "size '%s' parses", s))
		is_u64(v, want, "size '%s' = %" PRIu64, s, want);
	else
		diag("error: %s", err.msg);
}

static void
size_bad(const char *s, const char *msg)
{
	struct sbx_err err = { 0 };
	uint64_t v = 12345;

	is_int(sbx_parse_size(s, &v, &err), -1, "size '%s' is refused", s);
	is_u64(v, 12345, "a refused size '%s' leaves the output alone", s);
	like(err.msg, msg, "size '%s': message", s);
}

/* How long the supervisor's poll waits for the nearest of its deadlines. */
static void
test_poll_timeout(void)
{
	const uint64_t none[] = { 0, 0, 0 };
	const uint64_t some[] = { 0, 1500, 1200 };
	const uint64_t far[] = { UINT64_MAX - 1 };

	is_int(sbx_poll_timeout(1000, none, 3), -1, "no deadline: wait forever");
	is_int(sbx_poll_timeout(1000, some, 3), 200, "the nearest deadline wins");
	is_int(sbx_poll_timeout(1200, some, 3), 0, "a deadline reached: do not wait");
	is_int(sbx_poll_timeout(5000, some, 3), 0, "a deadline passed: do not wait");
	is_int(sbx_poll_timeout(1000, some, 2), 500, "only the first n count");
	is_int(sbx_poll_timeout(0, far, 1), INT_MAX, "a far deadline is capped at INT_MAX");
}

static void
test_sizes(void)
{
	size_ok("0", 0);
	size_ok("100", 100);
	size_ok("100b", 100);
	size_ok("100B", 100);
	size_ok("1K", 1024);
	size_ok("1k", 1024);
	size_ok("1kb", 1024);
	size_ok("1KiB", 1024);
	size_ok("512M", UINT64_C(512) << 20);
	size_ok("512m", UINT64_C(512) << 20);
	size_ok("512MB", UINT64_C(512) << 20);
	size_ok("2MiB", UINT64_C(2) << 20);
	size_ok("1G", UINT64_C(1) << 30);
	size_ok("3gib", UINT64_C(3) << 30);
	size_ok("1T", UINT64_C(1) << 40);
	size_ok("2tb", UINT64_C(2) << 40);
	size_ok("9223372036854775807", INT64_MAX);
	size_ok("8388607T", UINT64_C(8388607) << 40);
	size_bad("9223372036854775808", "too large");
	size_bad("8388608T", "too large");
	size_bad("8589934592G", "too large");
	size_bad("99999999999999999999999", "bad size");

	size_bad("", "empty size");
	size_bad(" ", "empty size");
	size_bad("lots", "bad size 'lots'");
	size_bad("1.5G", "bad size");
	size_bad("-1", "bad size");
	size_bad("1P", "bad size");
	size_bad("1 G", "bad size");
	size_bad("G", "bad size");
	size_bad("1GiBB", "bad size");
	size_bad("1gigabytes", "bad size");
	size_bad("1Kb5", "bad size");
}

static void
test_counts(void)
{
	struct sbx_err err = { 0 };
	uint64_t v = 7;

	is_int(sbx_parse_count("10", 100, &v, &err), 0, "count 10 (max 100)");
	is_u64(v, 10, "count value");
	is_int(sbx_parse_count("100", 100, &v, &err), 0, "count at the maximum");
	is_u64(v, 100, "count value at the maximum");
	is_int(sbx_parse_count("0", 100, &v, &err), 0, "count 0 parses (callers refuse it)");
	is_u64(v, 0, "count value 0");
	v = 7;
	is_int(sbx_parse_count("101", 100, &v, &err), -1, "count above the maximum");
	like(err.msg, "out of range (at most 100)", "message gives the maximum");
	is_int(err.errnum, ERANGE, "errnum is ERANGE");
	is_u64(v, 7, "output untouched");
	is_int(sbx_parse_count("", 100, &v, &err), -1, "empty count");
	like(err.msg, "empty number", "empty count message");
	is_int(sbx_parse_count("1k", 10000, &v, &err), -1, "count with a suffix");
	like(err.msg, "bad number '1k'", "bad count message");
	is_int(sbx_parse_count("-1", 100, &v, &err), -1, "negative count");
	is_int(sbx_parse_count("+1", 100, &v, &err), -1, "count with a sign");
	is_int(sbx_parse_count(" 1", 100, &v, &err), -1, "count with a leading space");
	is_int(sbx_parse_count("1 ", 100, &v, &err), -1, "count with a trailing space");
	is_int(
	    sbx_parse_count("18446744073709551616", UINT64_MAX, &v, &err), -1, "count past 2^64");
	is_int(sbx_parse_count("18446744073709551615", UINT64_MAX, &v, &err), 0, "count 2^64-1");
	is_u64(v, UINT64_MAX, "count 2^64-1 value");
}

static void
test_bools(void)
{
	static const char *const yes[] = { "yes", "YES", "Yes", "true", "True", "on", "ON", "1" };
	static const char *const no[] = { "no", "NO", "false", "FALSE", "off", "Off", "0" };
	static const char *const bad[] = { "", "maybe", "y", "n", "2", "yes ", " no", "enabled",
		"t", "onn" };
	struct sbx_err err = { 0 };

	for (size_t i = 0; i < SBX_ARRAY_LEN(yes); i++) {
		bool b = false;

		ok(sbx_parse_bool(yes[i], &b, &err) == 0 && b, "boolean '%s' is true", yes[i]);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(no); i++) {
		bool b = true;

		ok(sbx_parse_bool(no[i], &b, &err) == 0 && !b, "boolean '%s' is false", no[i]);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		bool b = true;

		err.msg[0] = '\0';
		ok(sbx_parse_bool(bad[i], &b, &err) == -1 && b, "boolean '%s' is refused", bad[i]);
		like(err.msg, "bad boolean", "boolean '%s': message", bad[i]);
	}
}

static void
test_ports(void)
{
	static const struct {
		const char *s;
		int want; /* -1: refused */
		const char *msg;
	} cases[] = {
		{ "1", 1, NULL },
		{ "80", 80, NULL },
		{ "8080", 8080, NULL },
		{ "65535", 65535, NULL },
		{ "00443", 443, NULL },
		{ "0", -1, "out of range (1-65535)" },
		{ "65536", -1, "out of range" },
		{ "70000", -1, "port 70000 is out of range" },
		{ "99999999999999999999999", -1, "bad port" },
		{ "-1", -1, "bad port '-1'" },
		{ "abc", -1, "bad port 'abc'" },
		{ "", -1, "bad port" },
		{ "80a", -1, "bad port" },
		{ "8 0", -1, "bad port" },
		{ "0x50", -1, "bad port" },
		{ "http", -1, "bad port" },
	};
	struct sbx_err err = { 0 };

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		uint16_t p = 4;
		int r = sbx_parse_port(cases[i].s, &p, &err);

		if (cases[i].want >= 0) {
			if (is_int(r, 0, "port '%s' parses", cases[i].s))
				is_int(p, cases[i].want, "port '%s' value", cases[i].s);
		} else {
			is_int(r, -1, "port '%s' is refused", cases[i].s);
			is_int(p, 4, "port '%s': output untouched", cases[i].s);
			like(err.msg, cases[i].msg, "port '%s': message", cases[i].s);
		}
	}
}

static bool
ports_are(const struct sbx_ports *p, const uint16_t *want, size_t n)
{
	if (p->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p->v[i] != want[i])
			return false;
	return true;
}

static void
show_ports(const struct sbx_ports *p)
{
	char buf[256] = "";

	for (size_t i = 0; i < p->n && strlen(buf) < 200; i++)
		snprintf(
		    buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", i ? "," : "", p->v[i]);
	diag("ports: [%s]", buf);
}

static void
port_list_ok(const char *s, const uint16_t *want, size_t n)
{
	struct sbx_ports p = { 0 };
	struct sbx_err err = { 0 };

	if (!is_int(sbx_parse_port_list(s, &p, &err), 0, "port list '%s' parses", s))
		diag("error: %s", err.msg);
	if (!ok(ports_are(&p, want, n), "port list '%s': sorted, distinct values", s))
		show_ports(&p);
	free(p.v);
}

static void
test_port_lists(void)
{
	struct sbx_ports p = { 0 };
	struct sbx_err err = { 0 };

	port_list_ok("8080", (const uint16_t[]){ 8080 }, 1);
	port_list_ok("8080, 8081", (const uint16_t[]){ 8080, 8081 }, 2);
	port_list_ok("8081,8080", (const uint16_t[]){ 8080, 8081 }, 2);
	port_list_ok("443,80,443", (const uint16_t[]){ 80, 443 }, 2);
	port_list_ok("80 443\t22", (const uint16_t[]){ 22, 80, 443 }, 3);
	port_list_ok("  80  ", (const uint16_t[]){ 80 }, 1);
	port_list_ok("65535,1", (const uint16_t[]){ 1, 65535 }, 2);

	/* Lists extend what is there, keeping it sorted and distinct. */
	sbx_ports_add(&p, 9000);
	sbx_ports_add(&p, 22);
	is_int(sbx_parse_port_list("443, 22", &p, &err), 0, "port list extends a list");
	if (!ok(ports_are(&p, (const uint16_t[]){ 22, 443, 9000 }, 3), "merged list is sorted"))
		show_ports(&p);
	ok(sbx_ports_contains(&p, 443), "contains 443");
	ok(!sbx_ports_contains(&p, 444), "does not contain 444");

	/* A bad entry refuses the whole value and changes nothing. */
	is_int(sbx_parse_port_list("80, 70000", &p, &err), -1, "a bad port refuses the list");
	like(err.msg, "port 70000 is out of range", "message names the bad port");
	if (!ok(ports_are(&p, (const uint16_t[]){ 22, 443, 9000 }, 3),
		"a refused list adds nothing (not even its good ports)"))
		show_ports(&p);
	is_int(sbx_parse_port_list("80,x", &p, &err), -1, "a non-number refuses the list");
	like(err.msg, "bad port 'x'", "message names the bad entry");
	is_int(sbx_parse_port_list("", &p, &err), -1, "an empty list is refused");
	like(err.msg, "empty port list", "empty list message");
	is_int(sbx_parse_port_list(" \t", &p, &err), -1, "a blank list is refused");
	/* "listen = ," declares nothing: a typo, not an empty list. */
	ok(sbx_parse_port_list(",", &p, &err) == -1 && sbx_parse_port_list(" , ,", &p, &err) == -1,
	    "a list of only separators (',', ' , ,') is refused");
	free(p.v);
}

static void
host_ok(const char *s, const char *want)
{
	struct sbx_err err = { 0 };
	char *h = NULL;

	if (is_int(sbx_parse_host_pattern(s, &h, &err), 0, "host '%s' is accepted", s))
		is_str(h, want, "host '%s' is stored as '%s'", s, want);
	else
		diag("error: %s", err.msg);
	free(h);
}

static void
host_bad(const char *s)
{
	struct sbx_err err = { 0 };
	char *h = NULL;

	is_int(sbx_parse_host_pattern(s, &h, &err), -1, "host '%s' is refused", s);
	ok(h == NULL, "host '%s': no output", s);
	like(err.msg, "host", "host '%s': message says host", s);
	free(h);
}

static void
test_methods(void)
{
	struct sbx_strv m = { 0 };
	struct sbx_err err = { 0 };

	ok(sbx_parse_method_list("GET, head,OPTIONS", &m, &err) == 0 && m.n == 3 &&
		strcmp(m.v[0], "GET") == 0 && strcmp(m.v[1], "HEAD") == 0 &&
		strcmp(m.v[2], "OPTIONS") == 0,
	    "a method list parses, upper case, in order");
	ok(sbx_parse_method_list("get,POST", &m, &err) == 0 && m.n == 4 &&
		strcmp(m.v[3], "POST") == 0,
	    "a second list extends it without duplicates");
	is_int(sbx_parse_method_list("CONNECT", &m, &err), -1, "CONNECT is refused");
	like(err.msg, "host and port rules", "... saying tunnels follow the host rules");
	is_int(sbx_parse_method_list("GET,connect", &m, &err), -1, "connect in a list too");
	is_int(sbx_parse_method_list("G ET;", &m, &err), -1, "a bad token is refused");
	is_int(sbx_parse_method_list(" , ", &m, &err), -1, "an empty list is refused");
	is_int(sbx_parse_method_list("GET\nPOST", &m, &err), -1, "a newline is refused");
	ok(m.n == 4, "refused lists add nothing");
	sbx_strv_free(&m);
}

static void
test_hosts(void)
{
	char long_name[300];

	host_ok("api.example.com", "api.example.com");
	host_ok("API.Example.COM", "api.example.com");
	host_ok("example.com.", "example.com");
	host_ok("*.example.org", "*.example.org");
	host_ok("*.Example.ORG.", "*.example.org");
	host_ok("localhost", "localhost");
	host_ok("xn--bcher-kva.example", "xn--bcher-kva.example");
	host_ok("a-b.c-d.example", "a-b.c-d.example");
	host_ok("10.0.0.1", "10.0.0.1");
	host_ok("example.com:443", "example.com:443");
	host_ok("Git.Example.COM.:22", "git.example.com:22");
	host_ok("*.example.org:8443", "*.example.org:8443");
	host_ok("example.com:065535", "example.com:65535");
	host_ok("10.0.0.1:5432", "10.0.0.1:5432");
	host_ok("XN--BCHER-KVA.example:22", "xn--bcher-kva.example:22");
	/* IPv6 literals, bracketed, as the proxy compares them. */
	host_ok("[fd00::2]", "[fd00::2]");
	host_ok("[FD00:0:0::2]:443", "[fd00::2]:443");
	host_ok("[::ffff:10.0.0.1]", "[::ffff:10.0.0.1]");
	host_bad("[fd00::2");
	host_bad("[zz]");
	host_bad("[fd00::2]x");
	host_bad("[fd00::2]:0");
	host_bad("[fd00::2]:");
	host_bad("fd00::2");

	host_bad("");
	host_bad("  ");
	host_bad("*");
	host_bad("*.");
	host_bad("**.example.org");
	host_bad("a*.example.org");
	host_bad("api.*.example.org");
	host_bad("*.*.example.org");
	host_bad("example.*");
	host_bad("exa mple.com");
	host_bad("a..b");
	host_bad(".example.com");
	host_bad("*..example.com");
	host_bad("example.com..");
	host_bad("http://example.com");
	host_bad("example.com:");
	host_bad("example.com:0");
	host_bad("example.com:65536");
	host_bad("example.com:x");
	host_bad("example.com:443:22");
	host_bad(":443");
	host_bad("*:443");
	host_bad("example.com:-1");
	host_bad("b\303\274cher.example");
	host_bad("*.b\303\274cher.example:22");
	host_bad("user@example.com");
	host_ok("[::1]", "[::1]"); /* taken; the proxy refuses loopback anyway */
	host_bad("ex_ample.com");
	host_bad("exämple.com");

	memset(long_name, 'a', 253);
	long_name[253] = '\0';
	for (size_t i = 60; i < 253; i += 61)
		long_name[i] = '.';
	host_ok(long_name, long_name);
	memset(long_name, 'a', 254);
	long_name[254] = '\0';
	for (size_t i = 60; i < 254; i += 61)
		long_name[i] = '.';
	host_bad(long_name);
}

static void
test_relative_paths(void)
{
	static const char *const good[] = {
		"a",
		"a/b",
		"data",
		"./a",
		"a/./b",
		"..a",
		"a..",
		"a/...",
		"a/..b/c",
		"a//b",
		"a/",
		".envrc",
		".git/hooks",
		"my data",
	};
	static const struct {
		const char *path, *msg;
	} bad[] = {
		{ "", "mount target is empty" },
		{ "/abs", "mount target '/abs' must be relative to the workdir" },
		{ "//abs", "must be relative" },
		{ "..", "mount target '..' may not contain '..'" },
		{ "../a", "may not contain '..'" },
		{ "a/..", "may not contain '..'" },
		{ "a/../b", "may not contain '..'" },
		{ "a//../b", "may not contain '..'" },
		{ "a/../", "may not contain '..'" },
	};
	struct sbx_err err = { 0 };

	for (size_t i = 0; i < SBX_ARRAY_LEN(good); i++)
		is_int(sbx_check_relative_path("mount target", good[i], &err), 0,
		    "relative path '%s' is accepted", good[i]);
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		is_int(sbx_check_relative_path("mount target", bad[i].path, &err), -1,
		    "relative path '%s' is refused", bad[i].path);
		like(err.msg, bad[i].msg, "relative path '%s': message", bad[i].path);
	}
	sbx_check_relative_path("protected path", "/x", &err);
	like(err.msg, "protected path '/x'", "the message names what was checked");
}

static void
test_relative_path_clean(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a", "a" },
		{ "a/", "a" },
		{ "a//", "a" },
		{ "./a", "a" },
		{ "a/./b", "a/b" },
		{ "a//b/", "a/b" },
		{ "a/.", "a" },
		{ ".", "." },
		{ "./", "." },
		{ ".//.", "." },
		{ "..a/a..", "..a/a.." },
		{ ".vscode/", ".vscode" },
		{ "my data/", "my data" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		char *got = sbx_relative_path_clean(cases[i].in);

		is_str(got, cases[i].out, "relative path '%s' reads as '%s'", cases[i].in,
		    cases[i].out);
		free(got);
	}
}

static void
mount_ok(const char *value, const char *source, bool rw)
{
	struct sbx_err err = { 0 };
	char *src = NULL;
	bool m = !rw;

	if (is_int(sbx_parse_mount_value(value, &src, &m, &err), 0, "mount value '%s' parses",
		value)) {
		is_str(src, source, "mount value '%s': source", value);
		ok(m == rw, "mount value '%s': %s", value, rw ? "read-write" : "read-only");
	} else {
		diag("error: %s", err.msg);
	}
	free(src);
}

static void
test_mount_values(void)
{
	struct sbx_err err = { 0 };
	char *src = NULL;
	bool rw = false;

	mount_ok("/srv/data", "/srv/data", false);
	mount_ok("/srv/data:ro", "/srv/data", false);
	mount_ok("/srv/data:rw", "/srv/data", true);
	mount_ok("/srv/a:b", "/srv/a:b", false);
	mount_ok("/srv/a:b:rw", "/srv/a:b", true);
	mount_ok("/srv/a:ro:rw", "/srv/a:ro", true);
	mount_ok("~/x:rw", "~/x", true);
	mount_ok("relative/dir", "relative/dir", false);
	mount_ok("/srv/data:RW", "/srv/data:RW", false);

	is_int(sbx_parse_mount_value("", &src, &rw, &err), -1, "empty mount value is refused");
	like(err.msg, "empty mount source", "empty mount message");
	is_int(sbx_parse_mount_value("   ", &src, &rw, &err), -1, "blank mount value is refused");
	ok(src == NULL, "no source on error");
}

static void
test_expand_home(void)
{
	struct sbx_err err = { 0 };
	char *out = NULL;

	is_int(sbx_expand_home("~", "/home/u", &out, &err), 0, "~ expands");
	is_str(out, "/home/u", "~ is the home");
	free(out);
	is_int(sbx_expand_home("~/", "/home/u", &out, &err), 0, "~/ expands");
	is_str(out, "/home/u/", "~/ is the home with a slash");
	free(out);
	is_int(sbx_expand_home("~/proj/x", "/home/u", &out, &err), 0, "~/proj/x expands");
	is_str(out, "/home/u/proj/x", "~/proj/x under the home");
	free(out);
	is_int(sbx_expand_home("/abs/~/x", "/home/u", &out, &err), 0, "a later ~ is kept");
	is_str(out, "/abs/~/x", "only a leading ~ expands");
	free(out);
	is_int(sbx_expand_home("rel", "/home/u", &out, &err), 0, "a relative path is kept");
	is_str(out, "rel", "relative path unchanged");
	free(out);
	is_int(sbx_expand_home("x~", "/home/u", &out, &err), 0, "x~ is kept");
	is_str(out, "x~", "x~ unchanged");
	free(out);
	out = NULL;
	is_int(sbx_expand_home("~root/x", "/home/u", &out, &err), -1, "~user is refused");
	like(err.msg, "not ~user", "~user message");
	ok(out == NULL, "no output for ~user");
	is_int(sbx_expand_home("~~", "/home/u", &out, &err), -1, "~~ is refused");
}

static void
test_formats(void)
{
	static const struct {
		uint64_t ms;
		const char *text;
	} durations[] = {
		{ 0, "0" },
		{ 1, "1ms" },
		{ 999, "999ms" },
		{ 1000, "1s" },
		{ 1500, "1500ms" },
		{ 30000, "30s" },
		{ 60000, "1m" },
		{ 90000, "90s" },
		{ 120000, "2m" },
		{ 3600000, "1h" },
		{ 5400000, "90m" },
		{ 86400000, "24h" },
		{ 3600001, "3600001ms" },
	};
	static const struct {
		uint64_t bytes;
		const char *text;
	} sizes[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ 1023, "1023" },
		{ 1024, "1K" },
		{ 1536, "1536" },
		{ 1 << 20, "1M" },
		{ 536870912, "512M" },
		{ UINT64_C(1) << 30, "1G" },
		{ UINT64_C(3) << 29, "1536M" },
		{ UINT64_C(1) << 40, "1T" },
		{ UINT64_C(8388607) << 40, "8388607T" },
	};
	uint64_t seed = 88172645463325252ULL;

	for (size_t i = 0; i < SBX_ARRAY_LEN(durations); i++) {
		char *t = sbx_format_duration(durations[i].ms);
		uint64_t back = 1;

		is_str(t, durations[i].text, "duration %" PRIu64 " ms is written '%s'",
		    durations[i].ms, durations[i].text);
		ok(sbx_parse_duration_ms(t, &back, NULL) == 0 && back == durations[i].ms,
		    "'%s' reads back as %" PRIu64 " ms", t, durations[i].ms);
		free(t);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(sizes); i++) {
		char *t = sbx_format_size(sizes[i].bytes);
		uint64_t back = 1;

		is_str(t, sizes[i].text, "size %" PRIu64 " is written '%s'", sizes[i].bytes,
		    sizes[i].text);
		ok(sbx_parse_size(t, &back, NULL) == 0 && back == sizes[i].bytes,
		    "'%s' reads back as %" PRIu64, t, sizes[i].bytes);
		free(t);
	}

	/* Pseudo-random values across the whole accepted range. */
	{
		int bad_d = 0, bad_s = 0;

		for (int i = 0; i < 20000; i++) {
			uint64_t d, s, back;
			char *t;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			d = seed % (UINT64_C(31622400000) + 1);
			if (i % 3 == 0)
				d -= d % 1000;
			if (i % 5 == 0)
				d -= d % 60000;
			s = (seed >> 1) >> (seed % 64);
			if (i % 4 == 0)
				s &= ~UINT64_C(0xfffff);
			t = sbx_format_duration(d);
			if (sbx_parse_duration_ms(t, &back, NULL) != 0 || back != d) {
				if (bad_d++ < 3)
					diag("duration %" PRIu64 " -> '%s'", d, t);
			}
			free(t);
			t = sbx_format_size(s);
			if (sbx_parse_size(t, &back, NULL) != 0 || back != s) {
				if (bad_s++ < 3)
					diag("size %" PRIu64 " -> '%s'", s, t);
			}
			free(t);
		}
		is_int(bad_d, 0, "20000 random durations round-trip through text");
		is_int(bad_s, 0, "20000 random sizes round-trip through text");
	}
}

static void
test_names(void)
{
	static const char *const backends[] = {
		"auto",
		"namespaces",
		"landlock",
		"seatbelt",
		"docker",
		"none",
	};
	enum sbx_backend_id id;

	for (size_t i = 0; i < SBX_ARRAY_LEN(backends); i++) {
		ok(sbx_backend_parse(backends[i], &id) == 0 &&
			strcmp(sbx_backend_name(id), backends[i]) == 0,
		    "backend '%s' round-trips", backends[i]);
	}
	is_int(sbx_backend_parse("bwrap", &id), -1, "unknown backend refused");
	is_int(sbx_backend_parse("None", &id), -1, "backend names are case-sensitive");
	is_int(sbx_backend_parse("", &id), -1, "empty backend refused");
	is_str(sbx_fs_name(SBX_FS_STRICT), "strict", "fs strict");
	is_str(sbx_fs_name(SBX_FS_ALLOWLIST), "allowlist", "fs allowlist");
	is_str(sbx_fs_name(SBX_FS_OPEN), "open", "fs open");
	is_str(sbx_limit_name(SBX_LIMIT_MEMORY), "memory", "limit memory");
	is_str(sbx_limit_name(SBX_LIMIT_PIDS), "pids", "limit pids");
	is_str(sbx_limit_name(SBX_LIMIT_CPU), "cpu", "limit cpu");
	is_str(sbx_limit_name(SBX_LIMIT_FILE_SIZE), "file_size", "limit file_size");
	is_str(sbx_limit_name(SBX_LIMIT_OPEN_FILES), "open_files", "limit open_files");
}

int
main(void)
{
	test_durations();
	test_poll_timeout();
	test_sizes();
	test_counts();
	test_bools();
	test_ports();
	test_port_lists();
	test_hosts();
	test_methods();
	test_relative_paths();
	test_relative_path_clean();
	test_mount_values();
	test_expand_home();
	test_formats();
	test_names();
	return done_testing();
}
