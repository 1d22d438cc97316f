/* The allowlist proxy alone, without a sandbox, for
 * tests/integration/proxy.sh and bench/net-proxy:
 *
 *	proxy-driver [--deny PATTERN] [--methods LIST] [PATTERN]...
 *
 * Each PATTERN is an --allow-host value, --deny a --deny-host value and
 * --methods an --allow-method value (checked as sbxrun checks them).
 * Prints {"port":N} once the proxy listens, then one JSON line per proxy
 * event, and serves until its standard input reaches end of file; then it
 * stops the proxy and prints {"stopped":true,"denials":N,"stop_ms":T}.
 * Names are resolved by the proxy's own getaddrinfo(), as in sbxrun: a
 * test gives names to its servers with a private /etc/hosts. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "policy.h"
#include "proxy.h"

static void
put_line(char *s)
{
	fputs(s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	free(s);
}

static void
log_event(SBX_UNUSED void *ctx, const struct sbx_proxy_event *ev)
{
	struct sbx_json j = { 0 };

	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "kind");
	sbx_json_str(&j, ev->kind == SBX_PROXY_DECISION ? "decision" : "closed");
	sbx_json_key(&j, "id");
	sbx_json_uint(&j, ev->id);
	sbx_json_key(&j, "allowed");
	sbx_json_bool(&j, ev->allowed);
	sbx_json_key(&j, "status");
	sbx_json_int(&j, ev->status);
	sbx_json_key(&j, "reason");
	sbx_json_str(&j, ev->reason);
	sbx_json_key(&j, "method");
	sbx_json_str(&j, ev->method);
	sbx_json_key(&j, "host");
	sbx_json_str(&j, ev->host);
	sbx_json_key(&j, "port");
	sbx_json_int(&j, ev->port);
	sbx_json_key(&j, "addr");
	sbx_json_str(&j, ev->addr);
	if (ev->kind == SBX_PROXY_CLOSED) {
		sbx_json_key(&j, "bytes_up");
		sbx_json_uint(&j, ev->bytes_up);
		sbx_json_key(&j, "bytes_down");
		sbx_json_uint(&j, ev->bytes_down);
	}
	sbx_json_obj_end(&j);
	put_line(sbx_json_steal(&j));
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
main(int argc, char **argv)
{
	struct sbx_strv allow = { 0 }, deny = { 0 }, methods = { 0 };
	/* No supervisor announces the clients here (proxy.h). */
	struct sbx_proxy_rules rules = {
		.allow = &allow, .deny = &deny, .methods = &methods, .serve_unannounced = true
	};
	struct sbx_proxy *p = NULL;
	struct sbx_err err = { 0 };
	char buf[256];
	uint64_t t;

	for (int i = 1; i < argc; i++) {
		bool is_deny = strcmp(argv[i], "--deny") == 0 && i + 1 < argc;
		char *h;

		if (strcmp(argv[i], "--methods") == 0 && i + 1 < argc) {
			if (sbx_parse_method_list(argv[++i], &methods, &err) < 0) {
				fprintf(stderr, "proxy-driver: %s\n", err.msg);
				return 2;
			}
			continue;
		}
		if (is_deny)
			i++;
		if (sbx_parse_host_pattern(argv[i], &h, &err) < 0) {
			fprintf(stderr, "proxy-driver: %s\n", err.msg);
			return 2;
		}
		sbx_strv_push_take(is_deny ? &deny : &allow, h);
	}
	if (sbx_proxy_open(&p, &rules, &err) < 0) {
		fprintf(stderr, "proxy-driver: %s\n", err.msg);
		return 1;
	}
	put_line(sbx_xasprintf("{\"port\":%d}", sbx_proxy_port(p)));
	if (sbx_proxy_start(p, log_event, NULL, &err) < 0) {
		fprintf(stderr, "proxy-driver: %s\n", err.msg);
		sbx_proxy_free(p);
		return 1;
	}
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	t = now_ms();
	sbx_proxy_stop(p);
	put_line(sbx_xasprintf("{\"stopped\":true,\"denials\":%llu,\"stop_ms\":%llu}",
	    (unsigned long long)sbx_proxy_denials(p), (unsigned long long)(now_ms() - t)));
	sbx_proxy_free(p);
	sbx_strv_free(&allow);
	sbx_strv_free(&deny);
	sbx_strv_free(&methods);
	return 0;
}
