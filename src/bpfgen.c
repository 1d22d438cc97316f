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
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfmerge.h"
#include "linux-hostfilter.h"
#include "linux-seccomp.h"
#include "util.h"

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

/* The program libseccomp makes of ctx with the given optimization level
 * (1: one comparison after another, 2: a binary search on the call
 * number; below 0: as ctx is set, as emit() prints it); n set to its
 * length. The caller frees it. */
static struct sock_filter *
export_at(scmp_filter_ctx ctx, int level, size_t *n)
{
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	struct sock_filter *f = NULL;
	off_t size;

	if (fd < 0 ||
	    (level >= 0 && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)level) < 0) ||
	    seccomp_export_bpf(ctx, fd) < 0 || (size = lseek(fd, 0, SEEK_END)) <= 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "sbx-bpfgen: cannot export at level %d\n", level);
		exit(1);
	}
	f = malloc((size_t)size);
	if (f == NULL || read(fd, f, (size_t)size) != size)
		exit(1);
	close(fd);
	*n = (size_t)size / sizeof(*f);
	return f;
}

/* Runs a classic BPF program on d, as the kernel's seccomp would; sets
 * *args when the path taken read an argument. Exits on an instruction
 * this interpreter does not know (the check then fails, never passes). */
static uint32_t
run(const struct sock_filter *f, size_t n, const struct seccomp_data *d, bool *args)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	const unsigned char *data = (const unsigned char *)d;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? x : i->k;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k % 4 != 0 || i->k + 4 > sizeof(*d))
				goto bad;
			memcpy(&a, data + i->k, 4);
			*args = *args || i->k >= offsetof(struct seccomp_data, args);
			continue;
		case BPF_LD | BPF_IMM: a = i->k; continue;
		case BPF_LDX | BPF_IMM: x = i->k; continue;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				goto bad;
			if (i->code == (BPF_LD | BPF_MEM))
				a = mem[i->k];
			else if (i->code == (BPF_LDX | BPF_MEM))
				x = mem[i->k];
			else
				mem[i->k] = i->code == BPF_ST ? a : x;
			continue;
		case BPF_MISC | BPF_TAX: x = a; continue;
		case BPF_MISC | BPF_TXA: a = x; continue;
		case BPF_RET | BPF_K: return i->k;
		case BPF_RET | BPF_A: return a;
		default: break;
		}
		if (BPF_CLASS(i->code) == BPF_ALU) {
			switch (BPF_OP(i->code)) {
			case BPF_AND: a &= src; continue;
			case BPF_OR: a |= src; continue;
			case BPF_XOR: a ^= src; continue;
			case BPF_ADD: a += src; continue;
			case BPF_SUB: a -= src; continue;
			case BPF_LSH: a = src < 32 ? a << src : 0; continue;
			case BPF_RSH: a = src < 32 ? a >> src : 0; continue;
			case BPF_NEG: a = -a; continue;
			default: goto bad;
			}
		}
		if (BPF_CLASS(i->code) == BPF_JMP) {
			bool t;

			switch (BPF_OP(i->code)) {
			case BPF_JA: pc += i->k; continue;
			case BPF_JEQ: t = a == src; break;
			case BPF_JGT: t = a > src; break;
			case BPF_JGE: t = a >= src; break;
			case BPF_JSET: t = (a & src) != 0; break;
			default: goto bad;
			}
			pc += t ? i->jt : i->jf;
			continue;
		}
	bad:
		fprintf(
		    stderr, "sbx-bpfgen: instruction 0x%04x at %zu not understood\n", i->code, pc);
		exit(1);
	}
	fprintf(stderr, "sbx-bpfgen: a program ran off its end\n");
	exit(1);
}

/* Adds k and its neighbours to the set of argument words to try. */
static void
add_word(uint32_t *w, size_t *n, size_t cap, uint32_t k)
{
	uint32_t v[] = { k, k - 1, k + 1, ~k, k | 0x80000000u };

	for (size_t i = 0; i < SBX_ARRAY_LEN(v) && *n < cap; i++)
		w[(*n)++] = v[i];
}

/* One side of a comparison: a program, or two loaded one after the other
 * (f[0] first), decided as the kernel decides with both
 * (kernel_pick()). */
struct side {
	const struct sock_filter *f[2];
	size_t n[2];
};

/* The kernel's choice between two filters' values (kernel/seccomp.c,
 * seccomp_run_filters: the newest filter first, from ALLOW, a value taken
 * only when its action, signed and without its data, is strictly lower),
 * written out here apart from bpfmerge.c's, so that the check does not
 * take the merge's word for it. */
static uint32_t
kernel_pick(uint32_t older, uint32_t newer)
{
	const uint32_t full = 0xffff0000u;
	uint32_t ret = SECCOMP_RET_ALLOW, cur[2] = { newer, older };

	for (int i = 0; i < 2; i++)
		if ((int32_t)(cur[i] & full) < (int32_t)(ret & full))
			ret = cur[i];
	return ret;
}

static uint32_t
decide(const struct side *s, const struct seccomp_data *d, bool *args)
{
	uint32_t r = run(s->f[0], s->n[0], d, args);

	return s->f[1] ? kernel_pick(r, run(s->f[1], s->n[1], d, args)) : r;
}

/* Whether the two sides decide alike on every system call number
 * below 1024 (and x32's, and a few beyond) for three architectures, and,
 * where either reads an argument, on every argument set to each word the
 * programs compare against (and its neighbours) in its low half, its
 * high half or both, one argument at a time, and on random arguments.
 * Prints the first difference; returns the number of inputs tried, or 0
 * on a difference. */
static unsigned long
same_decisions(const char *what, const struct side *a, const struct side *b)
{
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, 0,
		AUDIT_ARCH_X86_64 - 1, AUDIT_ARCH_X86_64 + 1, 0xffffffffu };
	uint32_t words[2048];
	size_t nw = 0;
	unsigned long tried = 0;
	unsigned seed = 1;

	add_word(words, &nw, SBX_ARRAY_LEN(words), 0);
	for (int s = 0; s < 2; s++)
		for (int p = 0; p < 2; p++) {
			const struct side *sd = s == 0 ? a : b;

			for (size_t i = 0; sd->f[p] && i < sd->n[p]; i++) {
				const struct sock_filter *f = &sd->f[p][i];

				if (BPF_CLASS(f->code) == BPF_JMP || BPF_CLASS(f->code) == BPF_ALU)
					add_word(words, &nw, SBX_ARRAY_LEN(words), f->k);
			}
		}
	for (size_t ai = 0; ai < SBX_ARRAY_LEN(arches); ai++)
		for (uint32_t k = 0; k < 1024 + 1024 + 8; k++) {
			struct seccomp_data d = { .arch = arches[ai] };
			bool args = false;
			uint32_t ra, rb;

			d.nr = (int)(k < 1024 ? k
				: k < 2048    ? (0x40000000u | (k - 1024))
					      : (0xffffffffu - (k - 2048)));
			ra = decide(a, &d, &args);
			rb = decide(b, &d, &args);
			tried++;
			if (ra != rb)
				goto differ;
			if (!args)
				continue;
			/* One argument at a time: each word in its low half,
			 * its high half, or both. */
			for (int arg = 0; arg < 6; arg++)
				for (size_t w = 0; w < nw; w++)
					for (int half = 0; half < 3; half++) {
						memset(d.args, 0, sizeof(d.args));
						d.args[arg] = half == 0 ? words[w]
						    : half == 1
						    ? (uint64_t)words[w] << 32
						    : (uint64_t)words[w] << 32 | words[w];
						ra = decide(a, &d, &args);
						rb = decide(b, &d, &args);
						tried++;
						if (ra != rb)
							goto differ;
					}
			/* And every argument at once, from the words. */
			for (int r = 0; r < 4096; r++) {
				for (int arg = 0; arg < 6; arg++)
					d.args[arg] = (uint64_t)words[(size_t)rand_r(&seed) % nw]
						<< 32 |
					    words[(size_t)rand_r(&seed) % nw];
				ra = decide(a, &d, &args);
				rb = decide(b, &d, &args);
				tried++;
				if (ra != rb)
					goto differ;
			}
			continue;
		differ:
			fprintf(stderr,
			    "sbx-bpfgen: %s: arch 0x%x call %d args %llx %llx %llx %llx %llx %llx: "
			    "0x%08x against 0x%08x\n",
			    what, d.arch, d.nr, (unsigned long long)d.args[0],
			    (unsigned long long)d.args[1], (unsigned long long)d.args[2],
			    (unsigned long long)d.args[3], (unsigned long long)d.args[4],
			    (unsigned long long)d.args[5], ra, rb);
			return 0;
		}
	return tried;
}

/* The pairs of filters a jail loads one after the other that are loaded
 * as one program (bpfmerge.h, doc/design/startup.md, section 33): under
 * landlock the host filter then the listener's (the metadata traps, with
 * or without the network's: a landlock payload with seccomp always has a
 * listener); under namespaces the common filter then the host's NOSETID. */
static const struct {
	bool common_first;
	unsigned common, host;
} pairs[] = {
#define LL_HOST(x) (SBX_HOSTF_NOIPC | SBX_HOSTF_NOSETID | (x))
	{ false, SBX_SECCOMP_META_NOTIFY, LL_HOST(0) },
	{ false, SBX_SECCOMP_META_NOTIFY, LL_HOST(SBX_HOSTF_NOSOCKET) },
	{ false, SBX_SECCOMP_META_NOTIFY, LL_HOST(SBX_HOSTF_INETONLY) },
	{ false, SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_NET_NOTIFY, LL_HOST(0) },
	{ false, SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_NET_NOTIFY, LL_HOST(SBX_HOSTF_NOSOCKET) },
	{ false, SBX_SECCOMP_META_NOTIFY | SBX_SECCOMP_NET_NOTIFY, LL_HOST(SBX_HOSTF_INETONLY) },
#undef LL_HOST
	{ true, 0, SBX_HOSTF_NOSETID },
	{ true, SBX_SECCOMP_NET_NOTIFY, SBX_HOSTF_NOSETID },
	{ true, SBX_SECCOMP_NET_SEND_FREE, SBX_HOSTF_NOSETID },
	{ true, SBX_SECCOMP_NET_NOTIFY | SBX_SECCOMP_NET_SEND_FREE, SBX_HOSTF_NOSETID },
};

/* The program of the common filter for flags (common) or of the host
 * filter for what, as the tables hold it (level -1) or at a given
 * optimization level; n set to its length. The caller frees it. */
static struct sock_filter *
shape_program(bool common, unsigned shape, int level, size_t *n)
{
	struct sbx_err err = { 0 };
	scmp_filter_ctx ctx =
	    common ? sbx_seccomp_filter(shape, &err) : sbx_hostfilter_filter(shape, &err);
	struct sock_filter *f;

	if (ctx == NULL) {
		fprintf(stderr, "sbx-bpfgen: %s\n", err.msg);
		exit(1);
	}
	f = export_at(ctx, level, n);
	seccomp_release(ctx);
	return f;
}

/* Pair k's two programs (level as shape_program()), older first, and
 * their merge (room for BPF_MAXINSNS), whose length it returns. A host
 * program that could answer with a notification, or a pair this merge
 * does not take, ends the build: the merged filter keeps the common
 * one's listener, and a pair dropped would cost every run a load. */
static size_t
pair_programs(size_t k, int level, struct side *s, struct sock_filter *merged)
{
	struct sock_filter *c, *h;
	size_t nc, nh, n;

	c = shape_program(true, pairs[k].common, level, &nc);
	h = shape_program(false, pairs[k].host, level, &nh);
	for (size_t i = 0; i < nh; i++)
		if (h[i].code == (BPF_RET | BPF_K) &&
		    (h[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF) {
			fprintf(stderr, "sbx-bpfgen: host filter %u answers with a notification\n",
			    pairs[k].host);
			exit(1);
		}
	*s = pairs[k].common_first ? (struct side){ { c, h }, { nc, nh } }
				   : (struct side){ { h, c }, { nh, nc } };
	n = sbx_bpf_merge(s->f[0], s->n[0], s->f[1], s->n[1], merged, BPF_MAXINSNS);
	if (n == 0) {
		fprintf(stderr, "sbx-bpfgen: common %u and host %u cannot be merged\n",
		    pairs[k].common, pairs[k].host);
		exit(1);
	}
	return n;
}

/* --check: every shape's program, as made here (a binary search on the
 * call number), decides as libseccomp's plain one (the same rules, one
 * comparison after another). */
static int
check(void)
{
	struct sbx_err err = { 0 };
	unsigned long inputs = 0;
	unsigned shapes = 0;

	for (unsigned k = 0; k < SBX_BPF_NCOMMON + SBX_BPF_NHOST - 1; k++) {
		bool common = k < SBX_BPF_NCOMMON;
		unsigned f = common ? k : k - SBX_BPF_NCOMMON + 1;
		scmp_filter_ctx ctx =
		    common ? sbx_seccomp_filter(f, &err) : sbx_hostfilter_filter(f, &err);
		struct sock_filter *tree, *plain;
		size_t nt, np;
		char what[32];
		unsigned long n;

		if (ctx == NULL) {
			fprintf(stderr, "sbx-bpfgen: %s\n", err.msg);
			return 1;
		}
		tree = export_at(ctx, 2, &nt);
		plain = export_at(ctx, 1, &np);
		snprintf(what, sizeof(what), "%s_%u", common ? "common" : "host", f);
		n = same_decisions(
		    what, &(struct side){ { tree }, { nt } }, &(struct side){ { plain }, { np } });
		free(tree);
		free(plain);
		seccomp_release(ctx);
		if (n == 0)
			return 1;
		inputs += n;
		shapes++;
	}
	/* Each merged program, made from the search programs as the tables
	 * hold them, decides as the two plain programs loaded one after the
	 * other. */
	for (size_t k = 0; k < SBX_ARRAY_LEN(pairs); k++) {
		static struct sock_filter merged[BPF_MAXINSNS], scratch[BPF_MAXINSNS];
		struct side two, plain;
		size_t nm = pair_programs(k, -1, &two, merged);
		char what[48];
		unsigned long n;

		pair_programs(k, 1, &plain, scratch);
		snprintf(
		    what, sizeof(what), "merged common %u host %u", pairs[k].common, pairs[k].host);
		n = same_decisions(what, &(struct side){ { merged }, { nm } }, &plain);
		for (int p = 0; p < 2; p++) {
			free((void *)two.f[p]);
			free((void *)plain.f[p]);
		}
		if (n == 0)
			return 1;
		inputs += n;
		shapes++;
	}
	printf("%u shapes, %lu inputs: the same decisions\n", shapes, inputs);
	return 0;
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
		/* The rules one after another, as a reader follows them; the
		 * program a run loads is the same rules as a binary search
		 * (--check shows they decide alike). */
		if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 1) < 0) {
			fprintf(stderr, "sbx-bpfgen: cannot set the optimization level\n");
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
	size_t common[SBX_BPF_NCOMMON], host[SBX_BPF_NHOST] = { 0 }, nmerged[SBX_ARRAY_LEN(pairs)];
	struct sbx_err err = { 0 };
	char name[32];

	if (argc == 2 && strcmp(argv[1], "--pfc") == 0)
		return pfc();
	if (argc == 2 && strcmp(argv[1], "--check") == 0)
		return check();
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
	for (size_t k = 0; k < SBX_ARRAY_LEN(pairs); k++) {
		static struct sock_filter merged[BPF_MAXINSNS];
		struct side two;
		size_t n = pair_programs(k, -1, &two, merged);

		printf("static const struct sock_filter merged_%zu[] = {\n", k);
		for (size_t i = 0; i < n; i++)
			printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", merged[i].code, merged[i].jt,
			    merged[i].jf, merged[i].k);
		printf("};\n\n");
		nmerged[k] = n;
		free((void *)two.f[0]);
		free((void *)two.f[1]);
	}
	printf("const struct sbx_bpf sbx_bpf_common[SBX_BPF_NCOMMON] = {\n");
	for (unsigned f = 0; f < SBX_BPF_NCOMMON; f++)
		printf("\t{ common_%u, %zu },\n", f, common[f]);
	printf("};\n\nconst struct sbx_bpf sbx_bpf_host[SBX_BPF_NHOST] = {\n\t{ 0, 0 },\n");
	for (unsigned w = 1; w < SBX_BPF_NHOST; w++)
		printf("\t{ host_%u, %zu },\n", w, host[w]);
	printf("};\n\nconst struct sbx_bpf_merged sbx_bpf_merged[] = {\n");
	for (size_t k = 0; k < SBX_ARRAY_LEN(pairs); k++)
		printf("\t{ %s, %u, %u, { merged_%zu, %zu } },\n",
		    pairs[k].common_first ? "true" : "false", pairs[k].common, pairs[k].host, k,
		    nmerged[k]);
	printf("};\n\nconst size_t sbx_bpf_nmerged = %zu;\n", SBX_ARRAY_LEN(pairs));
	return fflush(stdout) == 0 ? 0 : 1;
}
