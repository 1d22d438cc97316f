/* The pure part of --selftest: reading the payload's lines, the verdict
 * rules (the host decides; a missing line is never a pass), the script,
 * the decoy layout, cksum, and the report. */
#include "config.h"

#include "cli.h"
#include "selftest.h"
#include "tap.h"

static void
test_outcome(void)
{
	const char *out =
	    "noise\n" SBX_ST_TAG " loopback refused connect: Permission denied\n" SBX_ST_TAG
	    " mptcp done an MPTCP socket\n" SBX_ST_TAG " int80 na no entry\n" SBX_ST_TAG
	    " loop done not this one\n" SBX_ST_TAG " odd maybe x\n";
	char *d = NULL;

	is_int(sbx_st_outcome_of(out, "loopback", &d), SBX_ST_REFUSED, "refused is read");
	is_str(d, "connect: Permission denied", "the detail is the rest of the line");
	free(d);
	is_int(sbx_st_outcome_of(out, "mptcp", &d), SBX_ST_DONE, "done is read");
	free(d);
	is_int(sbx_st_outcome_of(out, "int80", &d), SBX_ST_NA, "na is read");
	free(d);
	is_int(sbx_st_outcome_of(out, "loo", &d), SBX_ST_MISSING, "an id is matched whole");
	ok(d == NULL, "no detail without a line");
	is_int(
	    sbx_st_outcome_of(out, "odd", &d), SBX_ST_MISSING, "an unknown outcome is no outcome");
	free(d);
	is_int(sbx_st_outcome_of("", "x", &d), SBX_ST_MISSING, "empty output");
}

static void
test_verdicts(void)
{
	struct sbx_st_report r = { 0 };
	const char *out =
	    SBX_ST_TAG " a done worked\n" SBX_ST_TAG " b refused EPERM\n" SBX_ST_TAG " c na why\n";
	struct sbx_st_row *row;

	row = sbx_st_add(&r, "a", "A", SBX_ST_BY_HOST);
	is_int(row->verdict, SBX_ST_UNKNOWN, "a new row is unknown");
	sbx_st_judge_host(row, out, false, "seen");
	is_int(row->verdict, SBX_ST_STOPPED, "host: worked inside, nothing on the host: stopped");
	like(row->detail, "contained", "... and said to be contained");
	sbx_st_judge_host(row, out, true, "the marker exists");
	is_int(row->verdict, SBX_ST_ESCAPED, "host: the effect is on the host: not stopped");
	is_str(row->detail, "the marker exists", "... with what the host saw");
	sbx_st_judge_host(row, "", true, "seen");
	is_int(row->verdict, SBX_ST_ESCAPED, "host: the effect decides even without a line");
	sbx_st_judge_host(row, "", false, "seen");
	is_int(row->verdict, SBX_ST_UNKNOWN, "host: no line and no effect: did not run");

	row = sbx_st_add(&r, "b", "B", SBX_ST_BY_PAYLOAD);
	sbx_st_judge_payload(row, out);
	is_int(row->verdict, SBX_ST_STOPPED, "payload: refused is stopped");
	is_str(row->detail, "EPERM", "... with its reason");
	row = sbx_st_add(&r, "c", "C", SBX_ST_BY_PAYLOAD);
	sbx_st_judge_payload(row, out);
	is_int(row->verdict, SBX_ST_SKIPPED, "payload: na is skipped");
	is_int(sbx_st_status(&r), 1, "a report with an escape fails");
	sbx_st_find(&r, "a")->verdict = SBX_ST_STOPPED;
	is_int(sbx_st_status(&r), 0, "stopped and skipped rows pass");
	row = sbx_st_add(&r, "d", "D", SBX_ST_BY_PAYLOAD);
	sbx_st_judge_payload(row, out);
	is_int(row->verdict, SBX_ST_UNKNOWN, "payload: no line is unknown");
	is_int(sbx_st_status(&r), 1, "an attempt that did not run fails the report");
	ok(sbx_st_find(&r, "zz") == NULL, "find: no such row");
	sbx_st_report_free(&r);
	is_int(sbx_st_status(&r), 1, "an empty report fails");
}

static void
test_report(void)
{
	struct sbx_st_report r = { 0 };
	char *table, *json;

	sbx_st_add(&r, "a", "first attempt", SBX_ST_BY_HOST)->verdict = SBX_ST_STOPPED;
	sbx_st_add(&r, "b", "second", SBX_ST_BY_PAYLOAD)->verdict = SBX_ST_ESCAPED;
	sbx_st_add(&r, "c", "third", SBX_ST_BY_PAYLOAD);
	free(r.rows[1].detail);
	r.rows[1].detail = sbx_xstrdup("line\nbreak\x1b[31m");
	r.backend = sbx_xstrdup("landlock");
	r.isolation = sbx_xstrdup("full");
	table = sbx_st_table(&r);
	like(table, "attempt        expected  result", "the header, padded to the widest title");
	like(table, "first attempt  stopped   stopped      host:", "a stopped row");
	like(table, "second         stopped   NOT STOPPED  payload: line?break?[31m",
	    "control bytes shown as ?");
	like(table, "third          stopped   NOT RUN", "a row that did not run");
	json = sbx_st_json(&r, sbx_st_status(&r));
	like(json,
	    "{\"selftest\":\"fail\",\"status\":1,\"backend\":\"landlock\",\"isolation\":\"full\","
	    "\"attempts\":3,\"stopped\":1,\"skipped\":0,\"not_stopped\":[\"b\"],\"not_run\":["
	    "\"c\"]",
	    "the JSON summary");
	ok(strchr(json, '\n') == NULL, "the summary is one line");
	free(table);
	free(json);
	sbx_st_report_free(&r);
}

static void
test_script(void)
{
	struct sbx_strv decoys = { 0 }, sys = { 0 };
	struct sbx_st_script s = {
		.payload = "/w/it's",
		.workdir = "/w",
		.home = "/h",
		.outside = "/o",
		.decoys = &decoys,
		.system = &sys,
		.loopback = "127.0.0.1 4000",
		.abstract = "name",
		.linger = "TOKEN",
		.parent = 42,
		.bare_repo = true,
		.syscalls = true,
		.signal_parent = true,
	};
	char *text;
	const char *sig, *last;

	sbx_strv_push(&decoys, ".ssh/decoy");
	sbx_strv_push(&sys, "/etc/shadow");
	text = sbx_st_script_text(&s);
	like(text, "P='/w/it'\\''s'\n", "values are single-quoted, quotes escaped");
	like(text, "cd \"$W\" || exit 1\n", "the script starts in the workdir");
	like(text, "try write-outside ", "the write outside");
	like(text, "try 'read:~/.ssh/decoy' ", "a decoy read");
	like(text, "try 'read:/etc/shadow' sh -c 'cksum <",
	    "a system secret comes back as a checksum");
	like(text, "fsmonitor", "the bare repository");
	like(text, "pl loopback tcp 127.0.0.1 4000\n", "the loopback listener");
	unlike(text, "pl interface", "no interface row without an address");
	like(text, "pl abstract abstract 'name'\n", "the abstract socket");
	like(text, "pl mptcp-high mptcp-high\n", "MPTCP with high bits");
	like(text, "pl ptrace ptrace 42\n", "ptrace names sbxrun's pid");
	like(text, "pl linger linger 'TOKEN'\n", "the daemon carries its token");
	sig = strstr(text, "pl signal signal 42\n");
	last = strstr(text, "exit 0\n");
	ok(sig != NULL && last != NULL && sig < last && strstr(sig + 1, "pl ") == NULL,
	    "the signal comes last");
	free(text);
	s.syscalls = s.bare_repo = s.signal_parent = false;
	s.outside = NULL;
	s.git_hooks = true;
	text = sbx_st_script_text(&s);
	like(text, "try git-hooks sh -c 'chmod 0777 .git/hooks", "the hooks chmod");
	unlike(text, "try write-outside", "no write outside without a directory");
	unlike(text, "pl userns", "no syscall attempts unless asked");
	free(text);
	sbx_strv_free(&decoys);
	sbx_strv_free(&sys);
}

static void
test_misc(void)
{
	char *f, *v;

	f = sbx_st_decoy_file(".ssh");
	is_str(f, ".ssh/decoy", "a directory secret gets a file inside");
	free(f);
	f = sbx_st_decoy_file(".config/gh");
	is_str(f, ".config/gh/decoy", "a nested directory secret");
	free(f);
	f = sbx_st_decoy_file(".netrc");
	is_str(f, ".netrc", "an rc file is the decoy itself");
	free(f);
	f = sbx_st_decoy_file(".git-credentials");
	is_str(f, ".git-credentials", "a credentials file is the decoy itself");
	free(f);
	/* printf 'hello\n' | cksum; printf '' | cksum */
	is_int(sbx_st_cksum("hello\n", 6), 3015617425u, "cksum of hello\\n as cksum(1) says");
	is_int(sbx_st_cksum("", 0), 4294967295u, "cksum of nothing");
	v = sbx_st_json_field("{\"status\":125,\"error\":\"a \\\"b\\\"\\nc\",\"x\":1}", "error");
	is_str(v, "a \"b\" c", "a string field, unescaped");
	free(v);
	v = sbx_st_json_field("{\"status\":125,\"error\":null}", "status");
	is_str(v, "125", "a number field");
	free(v);
	ok(sbx_st_json_field("{}", "error") == NULL, "a missing field");
	ok(sbx_st_json_field(NULL, "error") == NULL, "no line");
}

static void
test_cli(void)
{
	struct {
		const char *args[6];
		bool good;
	} cases[] = {
		{ { "sbxrun", "--selftest" }, true },
		{ { "sbxrun", "--selftest", "--backend", "landlock", "--allow-degraded" }, true },
		{ { "sbxrun", "--selftest", "-q", "--diag", "none" }, true },
		{ { "sbxrun", "--selftest", "--network", "off" }, false },
		{ { "sbxrun", "--selftest", "-w", "/tmp/x" }, false },
		{ { "sbxrun", "--selftest", "-p", "strict" }, false },
		{ { "sbxrun", "--selftest", "--", "true" }, false },
		{ { "sbxrun", "--selftest", "--interp", "python3" }, false },
		{ { "sbxrun", "--selftest", "--probe" }, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_cli cli = { 0 };
		struct sbx_err err = { 0 };
		int argc = 0;

		while (argc < 6 && cases[i].args[argc])
			argc++;
		if (!ok(sbx_cli_parse(&cli, argc, (char **)cases[i].args, &err) == 0, "parse %zu",
			i))
			diag("%s", err.msg);
		is_int(sbx_st_check_cli(&cli, &err) == 0, cases[i].good, "%s %s %s: %s",
		    cases[i].args[1], cases[i].args[2] ? cases[i].args[2] : "",
		    cases[i].args[3] ? cases[i].args[3] : "", cases[i].good ? "taken" : "refused");
		sbx_cli_free(&cli);
	}
}

int
main(void)
{
	test_outcome();
	test_verdicts();
	test_report();
	test_script();
	test_misc();
	test_cli();
	return done_testing();
}
