/* A tiny header-only TAP (Test Anything Protocol) producer for the unit
 * tests. Each test program includes it once and prints TAP on stdout,
 * which automake's tap-driver.sh reads under "make check".
 *
 *	#include "tap.h"
 *
 *	int
 *	main(void)
 *	{
 *		ok(1 + 1 == 2, "addition");
 *		is_int(strlen("abc"), 3, "strlen");
 *		is_str(getenv("NOPE"), NULL, "unset variable");
 *		like(msg, "t.ini:3:", "message names the line");
 *		return done_testing();
 *	}
 *
 * Every check prints "ok N - name" or "not ok N - name" and returns
 * whether it passed, so a test can add context: if (!ok(...)) diag(...).
 * On failure the is_* and like checks print what they got and what they
 * wanted as "#" lines. The plan ("1..N") is printed by done_testing() at
 * the end, or up front by plan(N); done_testing() returns the exit status
 * for main: 0 when every check passed and the plan was kept, else 1.
 * skip(n, reason) records n skipped checks; the reason is required.
 *
 * Output is flushed after every line so that a crash (or a sanitizer
 * abort) leaves the results so far in the log. Names are printf formats.
 */
#ifndef SBX_TAP_H
#define SBX_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run_; /* checks so far */
static int tap_failed_; /* of which failed */
static int tap_planned_ = -1;

__attribute__((unused, format(printf, 1, 2))) static void
diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Prints a string for a diagnostic: quoted, control bytes as \xNN, or
 * "NULL". */
__attribute__((unused)) static void
tap_print_str_(const char *label, const char *s)
{
	printf("#   %8s: ", label);
	if (s == NULL) {
		fputs("NULL\n", stdout);
		return;
	}
	putchar('\'');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '\n')
			fputs("\\n\n#             ", stdout);
		else if (*c < 0x20 || *c == 0x7f)
			printf("\\x%02x", *c);
		else
			putchar(*c);
	}
	fputs("'\n", stdout);
}

__attribute__((unused)) static void
plan(int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_planned_ = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

__attribute__((format(printf, 2, 0))) static bool
tap_vok_(bool pass, const char *fmt, va_list ap)
{
	tap_run_++;
	if (!pass)
		tap_failed_++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run_);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	return pass;
}

__attribute__((unused, format(printf, 2, 3))) static bool
ok(bool pass, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(pass, fmt, ap);
	va_end(ap);
	return r;
}

/* Signed integers (anything that fits intmax_t). */
__attribute__((unused, format(printf, 3, 4))) static bool
is_int(intmax_t got, intmax_t want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#        got: %jd\n#   expected: %jd\n", got, want);
	return r;
}

/* Unsigned 64-bit values (sizes, durations). */
__attribute__((unused, format(printf, 3, 4))) static bool
is_u64(uint64_t got, uint64_t want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#        got: %" PRIu64 "\n#   expected: %" PRIu64 "\n", got, want);
	return r;
}

/* Strings; NULL equals only NULL. */
__attribute__((unused, format(printf, 3, 4))) static bool
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(got == want || (got && want && strcmp(got, want) == 0), fmt, ap);
	va_end(ap);
	if (!r) {
		tap_print_str_("got", got);
		tap_print_str_("expected", want);
	}
	return r;
}

/* got contains the substring want (not a regular expression). */
__attribute__((unused, format(printf, 3, 4))) static bool
like(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(got != NULL && strstr(got, want) != NULL, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_print_str_("got", got);
		tap_print_str_("wanted", want);
	}
	return r;
}

/* got does not contain want (a NULL got passes). */
__attribute__((unused, format(printf, 3, 4))) static bool
unlike(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok_(got == NULL || strstr(got, want) == NULL, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_print_str_("got", got);
		tap_print_str_("unwanted", want);
	}
	return r;
}

/* Records n checks as skipped. Only for a missing kernel feature, and the
 * reason says which. */
__attribute__((unused)) static void
skip(int n, const char *reason)
{
	if (reason == NULL || *reason == '\0') {
		fputs("Bail out! skip() needs a reason\n", stdout);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		tap_run_++;
		printf("ok %d # SKIP %s\n", tap_run_, reason);
	}
	fflush(stdout);
}

/* Ends the test: prints the plan if plan() was not called; returns the
 * exit status for main. */
__attribute__((unused)) static int
done_testing(void)
{
	if (tap_planned_ < 0) {
		printf("1..%d\n", tap_run_);
	} else if (tap_planned_ != tap_run_) {
		diag("planned %d checks but ran %d", tap_planned_, tap_run_);
		fflush(stdout);
		return 1;
	}
	if (tap_failed_)
		diag("%d of %d checks failed", tap_failed_, tap_run_);
	fflush(stdout);
	return tap_failed_ ? 1 : 0;
}

#endif
