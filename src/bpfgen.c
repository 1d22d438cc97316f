/* sbx-bpfgen: run at build time, writes src/bpf-tables.c, the BPF
 * programs libseccomp makes for each shape of sbxrun's common and host
 * filters (seccomp_export_bpf), so that a run loads one instead of
 * building it (doc/design/startup.md). Built from the very functions the
 * run falls back to, so the two cannot differ.
 *
 * With --pfc it prints the same filters as libseccomp's readable pseudo
 * code instead (seccomp_export_pfc), one section per shape: the rule set
 * that tests/build/seccomp-golden.sh compares with the checked-in text,
 * so that a change to the jail's system call rules shows as a diff. */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux-hostfilter.h"
#include "linux-seccomp.h"

/* Prints the program of ctx as an array named name; returns its length. */
static size_t
emit(scmp_filter_ctx ctx, const char *name)
{
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	struct sock_filter f;
	size_t n = 0;

	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "sbx-bpfgen: cannot export %s\n", name);
		exit(1);
	}
	printf("static const struct sock_filter %s[] = {\n", name);
	while (read(fd, &f, sizeof(f)) == (ssize_t)sizeof(f)) {
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", f.code, f.jt, f.jf, f.k);
		n++;
	}
	printf("};\n\n");
	close(fd);
	if (n == 0 || n > BPF_MAXINSNS) {
		fprintf(stderr, "sbx-bpfgen: %s has %zu instructions\n", name, n);
		exit(1);
	}
	return n;
}

/* Prints every shape's rules as pseudo code on standard output. */
static int
pfc(void)
{
	struct sbx_err err = { 0 };

	for (unsigned k = 0; k < 4 + 7; k++) {
		unsigned f = k < 4 ? k : k - 3;
		scmp_filter_ctx ctx =
		    k < 4 ? sbx_seccomp_filter(f, &err) : sbx_hostfilter_filter(f, &err);

		if (ctx == NULL) {
			fprintf(stderr, "sbx-bpfgen: %s\n", err.msg);
			return 1;
		}
		printf("## %s filter, shape %u\n", k < 4 ? "common" : "host", f);
		fflush(stdout);
		if (seccomp_export_pfc(ctx, STDOUT_FILENO) < 0) {
			fprintf(stderr, "sbx-bpfgen: cannot export the pseudo code\n");
			return 1;
		}
		seccomp_release(ctx);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t common[SBX_BPF_NCOMMON], host[SBX_BPF_NHOST] = { 0 };
	struct sbx_err err = { 0 };
	char name[32];

	if (argc == 2 && strcmp(argv[1], "--pfc") == 0)
		return pfc();
	printf("/* Made by sbx-bpfgen (src/bpfgen.c) at build time; do not edit. */\n"
	       "#include \"config.h\"\n\n#include <linux/filter.h>\n\n"
	       "#include \"linux-seccomp.h\"\n\n");
	for (unsigned f = 0; f < SBX_BPF_NCOMMON; f++) {
		scmp_filter_ctx ctx = sbx_seccomp_filter(f, &err);

		if (ctx == NULL) {
			fprintf(stderr, "sbx-bpfgen: %s\n", err.msg);
			return 1;
		}
		snprintf(name, sizeof(name), "common_%u", f);
		common[f] = emit(ctx, name);
		seccomp_release(ctx);
	}
	for (unsigned w = 1; w < SBX_BPF_NHOST; w++) {
		scmp_filter_ctx ctx = sbx_hostfilter_filter(w, &err);

		if (ctx == NULL) {
			fprintf(stderr, "sbx-bpfgen: %s\n", err.msg);
			return 1;
		}
		snprintf(name, sizeof(name), "host_%u", w);
		host[w] = emit(ctx, name);
		seccomp_release(ctx);
	}
	printf("const struct sbx_bpf sbx_bpf_common[SBX_BPF_NCOMMON] = {\n");
	for (unsigned f = 0; f < SBX_BPF_NCOMMON; f++)
		printf("\t{ common_%u, %zu },\n", f, common[f]);
	printf("};\n\nconst struct sbx_bpf sbx_bpf_host[SBX_BPF_NHOST] = {\n\t{ 0, 0 },\n");
	for (unsigned w = 1; w < SBX_BPF_NHOST; w++)
		printf("\t{ host_%u, %zu },\n", w, host[w]);
	printf("};\n");
	return fflush(stdout) == 0 ? 0 : 1;
}
