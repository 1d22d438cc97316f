/* bpfmerge.c: the kernel's choice between two filters, and merged programs
 * checked against the two they replace on every call number below 700,
 * several architectures and argument values around the programs'
 * constants. sbx-bpfgen --check does the same for the jail's own pairs
 * (tests/build/seccomp-golden.sh). */
#include "config.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

#include "../../src/bpfmerge.h"
#include "tap.h"

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JGE(k, t, f) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define NR offsetof(struct seccomp_data, nr)
#define ARCH offsetof(struct seccomp_data, arch)
#define ARG(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))

/* A classic BPF interpreter for the instructions the merge takes. */
static uint32_t
run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		bool t;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS: memcpy(&a, (const char *)d + i->k, 4); continue;
		case BPF_ALU | BPF_AND | BPF_K: a &= i->k; continue;
		case BPF_RET | BPF_K: return i->k;
		case BPF_JMP | BPF_JA: pc += i->k; continue;
		case BPF_JMP | BPF_JEQ | BPF_K: t = a == i->k; break;
		case BPF_JMP | BPF_JGT | BPF_K: t = a > i->k; break;
		case BPF_JMP | BPF_JGE | BPF_K: t = a >= i->k; break;
		case BPF_JMP | BPF_JSET | BPF_K: t = (a & i->k) != 0; break;
		default: return 0xdeadbeef;
		}
		pc += t ? i->jt : i->jf;
	}
	return 0xdeadbeef;
}

/* The kernel's rule, written out apart from bpfmerge.c's. */
static uint32_t
pick(uint32_t older, uint32_t newer)
{
	uint32_t ret = SECCOMP_RET_ALLOW;

	if ((int32_t)(newer & 0xffff0000u) < (int32_t)(ret & 0xffff0000u))
		ret = newer;
	if ((int32_t)(older & 0xffff0000u) < (int32_t)(ret & 0xffff0000u))
		ret = older;
	return ret;
}

/* Whether m decides as a then b on every input tried; prints the first
 * difference. */
static bool
same(const struct sock_filter *m, size_t nm, const struct sock_filter *a, size_t na,
    const struct sock_filter *b, size_t nb)
{
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, 0,
		AUDIT_ARCH_X86_64 + 1, 0xffffffffu };
	static const uint64_t args[] = { 0, 1, 2, 3, 4, 7, 8, 0x800, 0x100000000ull, 0xffffffffull,
		~0ull };

	if (nm == 0)
		return false;
	for (size_t ai = 0; ai < sizeof(arches) / sizeof(arches[0]); ai++)
		for (uint32_t nr = 0; nr < 700 + 3; nr++)
			for (size_t x = 0; x < sizeof(args) / sizeof(args[0]); x++)
				for (int slot = 0; slot < 2; slot++) {
					struct seccomp_data d = { .arch = arches[ai] };
					uint32_t want, got;

					d.nr = (int)(nr < 700 ? nr
						: nr == 700   ? 0x40000000u + 5
							      : 0xffffffffu - (nr - 701));
					d.args[slot] = args[x];
					want = pick(run(a, na, &d), run(b, nb, &d));
					got = run(m, nm, &d);
					if (want != got) {
						diag("arch %#x nr %d arg%d %#llx: merged %#x, the "
						     "two %#x",
						    d.arch, d.nr, slot, (unsigned long long)args[x],
						    got, want);
						return false;
					}
				}
	return true;
}

#define N(p) (sizeof(p) / sizeof((p)[0]))

static void
test_pick(void)
{
	is_int(sbx_bpf_combine(SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW), SECCOMP_RET_ALLOW,
	    "allow and allow: allow");
	is_int(sbx_bpf_combine(ERRNO(1), ERRNO(38)), ERRNO(38), "two errnos: the newer one's");
	is_int(sbx_bpf_combine(SECCOMP_RET_KILL_PROCESS, ERRNO(1)), SECCOMP_RET_KILL_PROCESS,
	    "killing the process beats an errno");
	is_int(sbx_bpf_combine(SECCOMP_RET_USER_NOTIF, ERRNO(13)), ERRNO(13),
	    "an errno beats a notification, older or newer");
	is_int(sbx_bpf_combine(ERRNO(13), SECCOMP_RET_USER_NOTIF), ERRNO(13),
	    "an errno beats a notification, newer or older");
	is_int(sbx_bpf_combine(SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS),
	    SECCOMP_RET_KILL_PROCESS, "the process before the thread (signed order)");
	is_int(sbx_bpf_combine(SECCOMP_RET_LOG, SECCOMP_RET_ALLOW), SECCOMP_RET_LOG,
	    "log beats allow");
	is_int(sbx_bpf_combine(SECCOMP_RET_ALLOW | 5, SECCOMP_RET_ALLOW), SECCOMP_RET_ALLOW,
	    "allow's data is not a lower action");
}

static void
test_small(void)
{
	/* x86-64 only; 2 refused; 5 refused when its first argument's low
	 * bit is set. */
	static const struct sock_filter older[] = {
		LD(ARCH),
		JEQ(AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD(NR),
		JEQ(2, 0, 1),
		RET(ERRNO(1)),
		JEQ(5, 0, 3),
		LD(ARG(0)),
		JSET(1, 0, 1),
		RET(ERRNO(13)),
		RET(SECCOMP_RET_ALLOW),
	};
	/* 5 notified; 7 refused when its second argument is 3; 400 and up
	 * ENOSYS, but x32's numbers killed. */
	static const struct sock_filter newer[] = {
		LD(ARCH),
		JEQ(AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD(NR),
		JGE(0x40000000, 0, 1),
		RET(SECCOMP_RET_KILL_PROCESS),
		JEQ(5, 0, 1),
		RET(SECCOMP_RET_USER_NOTIF),
		JEQ(7, 0, 4),
		LD(ARG(1)),
		JEQ(3, 0, 1),
		RET(ERRNO(38)),
		RET(SECCOMP_RET_ALLOW),
		JGE(400, 0, 1),
		RET(ERRNO(38)),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter m[BPF_MAXINSNS];
	size_t n;

	n = sbx_bpf_merge(older, N(older), newer, N(newer), m, BPF_MAXINSNS);
	ok(n > 0, "two small programs merge");
	ok(same(m, n, older, N(older), newer, N(newer)), "and decide as the two");
	n = sbx_bpf_merge(newer, N(newer), older, N(older), m, BPF_MAXINSNS);
	ok(same(m, n, newer, N(newer), older, N(older)), "loaded the other way round too");
	n = sbx_bpf_merge(older, N(older), older, N(older), m, BPF_MAXINSNS);
	ok(same(m, n, older, N(older), older, N(older)),
	    "a program with itself (both residuals at once)");
	is_int((int)sbx_bpf_merge(older, N(older), newer, N(newer), m, 5), 0,
	    "no room: nothing, not a cut program");
}

/* 300 calls, each with an action of its own: far jumps. */
static void
test_far(void)
{
	static struct sock_filter a[2 * 300 + 8], b[8], m[BPF_MAXINSNS];
	size_t na = 0, nb = 0, n;

	a[na++] = (struct sock_filter)LD(NR);
	for (uint32_t i = 0; i < 300; i++) {
		a[na++] = (struct sock_filter)JEQ(2 * i + 1, 0, 1);
		a[na++] = (struct sock_filter)RET(ERRNO(i % 200 + 1));
	}
	a[na++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	b[nb++] = (struct sock_filter)LD(ARCH);
	b[nb++] = (struct sock_filter)JEQ(AUDIT_ARCH_X86_64, 1, 0);
	b[nb++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
	b[nb++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	n = sbx_bpf_merge(b, nb, a, na, m, BPF_MAXINSNS);
	ok(n > 600, "300 actions make a search of %zu instructions", n);
	ok(same(m, n, b, nb, a, na), "whose far targets are reached");
	na = 0;
	for (size_t i = 0; i < n; i++)
		na += m[i].code == (BPF_JMP | BPF_JA);
	ok(na > 0, "through %zu JAs", na);
}

static void
test_refused(void)
{
	static const struct sock_filter plain[] = { LD(NR), RET(SECCOMP_RET_ALLOW) };
	static const struct sock_filter tax[] = { LD(NR), BPF_STMT(BPF_MISC | BPF_TAX, 0),
		RET(SECCOMP_RET_ALLOW) };
	static const struct sock_filter jset_nr[] = { LD(NR), JSET(1, 0, 1), RET(ERRNO(1)),
		RET(SECCOMP_RET_ALLOW) };
	/* Every architecture above 5 looks at the number. */
	static const struct sock_filter arch_range[] = { LD(ARCH), JGE(5, 0, 3), LD(NR),
		JEQ(1, 0, 1), RET(ERRNO(1)), RET(SECCOMP_RET_ALLOW) };
	static const struct sock_filter off_end[] = { LD(NR), JEQ(1, 0, 1), RET(SECCOMP_RET_ALLOW),
		LD(ARG(0)) };
	struct sock_filter m[BPF_MAXINSNS];

	ok(sbx_bpf_merge(plain, N(plain), plain, N(plain), m, BPF_MAXINSNS) > 0,
	    "the plainest programs merge");
	is_int((int)sbx_bpf_merge(tax, N(tax), plain, N(plain), m, BPF_MAXINSNS), 0,
	    "the index register is not taken");
	is_int((int)sbx_bpf_merge(plain, N(plain), jset_nr, N(jset_nr), m, BPF_MAXINSNS), 0,
	    "a bit test of the number is not taken");
	is_int((int)sbx_bpf_merge(arch_range, N(arch_range), plain, N(plain), m, BPF_MAXINSNS), 0,
	    "a range of architectures that looks at the number is not taken");
	is_int((int)sbx_bpf_merge(plain, N(plain), off_end, N(off_end), m, BPF_MAXINSNS), 0,
	    "a program that can run off its end is not taken");
}

int
main(void)
{
	test_pick();
	test_small();
	test_far();
	test_refused();
	return done_testing();
}
