/* Two seccomp programs made one (bpfmerge.h). The kernel runs every
 * filter of a task on each call and keeps the lowest action; this builds
 * a program that computes that result itself:
 *
 *   1. Every comparison either program makes is against a constant, so
 *      the constants cut the architecture and the call number each into
 *      intervals over which every comparison comes out the same. Each
 *      program is run on one value of every (architecture, number) box,
 *      up to the point where it returns (a constant) or loads anything
 *      else of the seccomp data (an argument, the instruction pointer):
 *      its residual, the code from that load on, which the box's values
 *      cannot steer any more.
 *   2. Each box gets one block: a RET of the two constants combined, or a
 *      copy of a residual whose returns are mapped through the
 *      combination with the other program's constant, or, where both
 *      programs have a residual, the older one's copy whose every return
 *      jumps into a copy of the newer one's mapped through that value.
 *   3. A binary search on the architecture, then on the number, leads to
 *      the blocks; classic BPF jumps only forward and at most 255
 *      instructions far on a condition, so a far target is reached
 *      through a JA placed right after the jump.
 *
 * bpfgen --check runs every merged program against the two it replaces
 * on every call number and on argument values taken from the programs'
 * constants (tests/build/seccomp-golden.sh). */
#include "config.h"

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bpfmerge.h"

#ifndef SECCOMP_RET_ACTION_FULL
#define SECCOMP_RET_ACTION_FULL 0xffff0000U
#endif

uint32_t
sbx_bpf_combine(uint32_t older, uint32_t newer)
{
	uint32_t ret = SECCOMP_RET_ALLOW;

	/* The kernel's loop: the newest filter first, a later one taken only
	 * when strictly lower. */
	if ((int32_t)(newer & SECCOMP_RET_ACTION_FULL) < (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
		ret = newer;
	if ((int32_t)(older & SECCOMP_RET_ACTION_FULL) < (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
		ret = older;
	return ret;
}

#define LD_ABS (BPF_LD | BPF_W | BPF_ABS)
#define OFF_NR offsetof(struct seccomp_data, nr)
#define OFF_ARCH offsetof(struct seccomp_data, arch)

enum { OUT_BAD, OUT_RET, OUT_RES };

/* Where one program goes for one box: a return value or a residual. */
struct outcome {
	int kind;
	uint32_t v;
};

/* A box's pair of outcomes, older program's first. */
struct pair {
	struct outcome o, n;
};

static bool
is_jump_k(uint16_t code)
{
	return code == (BPF_JMP | BPF_JEQ | BPF_K) || code == (BPF_JMP | BPF_JGT | BPF_K) ||
	    code == (BPF_JMP | BPF_JGE | BPF_K) || code == (BPF_JMP | BPF_JSET | BPF_K);
}

/* Whether f is a program of the shape taken: loads of the seccomp data,
 * AND with a constant, jumps on constants within the program, RET of a
 * constant, and every path ends in a RET (the kernel's own check). */
static bool
shape_ok(const struct sock_filter *f, size_t n)
{
	if (n == 0 || n > BPF_MAXINSNS)
		return false;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];

		if (i->code == LD_ABS) {
			if (i->k % 4 != 0 || i->k + 4 > sizeof(struct seccomp_data))
				return false;
		} else if (i->code == (BPF_ALU | BPF_AND | BPF_K) || i->code == (BPF_RET | BPF_K)) {
			/* fine */
		} else if (i->code == (BPF_JMP | BPF_JA)) {
			if (i->k >= n - pc - 1)
				return false;
		} else if (is_jump_k(i->code)) {
			if (pc + 1 + i->jt >= n || pc + 1 + i->jf >= n)
				return false;
		} else {
			return false;
		}
	}
	/* The last instruction cannot fall through or jump past the end. */
	return f[n - 1].code == (BPF_RET | BPF_K);
}

/* Runs f on (arch, nr) up to a return or a load of anything else. A test
 * of the accumulator other than JEQ/JGT/JGE, or an AND while it holds
 * the number or the architecture, is not taken (OUT_BAD). */
static struct outcome
classify(const struct sock_filter *f, size_t n, uint32_t arch, uint32_t nr)
{
	uint32_t a = 0;
	bool held = false;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		bool t;

		switch (i->code) {
		case LD_ABS:
			if (i->k == OFF_NR || i->k == OFF_ARCH) {
				a = i->k == OFF_NR ? nr : arch;
				held = true;
				continue;
			}
			return (struct outcome){ OUT_RES, (uint32_t)pc };
		case BPF_RET | BPF_K: return (struct outcome){ OUT_RET, i->k };
		case BPF_JMP | BPF_JA: pc += i->k; continue;
		case BPF_JMP | BPF_JEQ | BPF_K: t = a == i->k; break;
		case BPF_JMP | BPF_JGT | BPF_K: t = a > i->k; break;
		case BPF_JMP | BPF_JGE | BPF_K: t = a >= i->k; break;
		default: return (struct outcome){ OUT_BAD, 0 };
		}
		if (!held)
			return (struct outcome){ OUT_BAD, 0 };
		pc += t ? i->jt : i->jf;
	}
	return (struct outcome){ OUT_BAD, 0 };
}

/* The interval starts: 0 and, for every constant a jump compares with, the
 * constant and the one after it (both programs). */
static uint32_t *
cuts(const struct sock_filter *a, size_t na, const struct sock_filter *b, size_t nb, size_t *nc)
{
	uint32_t *c = malloc(sizeof(*c) * (2 * (na + nb) + 1));
	size_t n = 0;

	if (c == NULL)
		return NULL;
	c[n++] = 0;
	for (size_t i = 0; i < na + nb; i++) {
		const struct sock_filter *f = i < na ? &a[i] : &b[i - na];

		if (!is_jump_k(f->code))
			continue;
		c[n++] = f->k;
		if (f->k != UINT32_MAX)
			c[n++] = f->k + 1;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && c[j - 1] > c[j]; j--) {
			uint32_t t = c[j];

			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	*nc = 0;
	for (size_t i = 0; i < n; i++)
		if (*nc == 0 || c[*nc - 1] != c[i])
			c[(*nc)++] = c[i];
	return c;
}

/* The program being made: instructions named by id, laid out in order;
 * a conditional jump's targets and a JA's are ids, resolved at the end. */
struct item {
	uint16_t code;
	uint32_t k;
	int jt, jf; /* conditional jumps, and JA's target in jt */
};

struct prog {
	struct item *items;
	int nitems, capitems;
	int *order;
	int norder, caporder;
	bool bad;
};

static int
add(struct prog *p, uint16_t code, uint32_t k, int jt, int jf)
{
	if (p->nitems == p->capitems) {
		int cap = p->capitems ? p->capitems * 2 : 256;
		struct item *n = realloc(p->items, sizeof(*n) * (size_t)cap);

		if (n == NULL) {
			p->bad = true;
			return 0;
		}
		p->items = n;
		p->capitems = cap;
	}
	p->items[p->nitems] = (struct item){ code, k, jt, jf };
	return p->nitems++;
}

/* Puts item id next in the layout (at position at, or at the end). */
static void
place_at(struct prog *p, int id, int at)
{
	if (p->norder == p->caporder) {
		int cap = p->caporder ? p->caporder * 2 : 256;
		int *n = realloc(p->order, sizeof(*n) * (size_t)cap);

		if (n == NULL) {
			p->bad = true;
			return;
		}
		p->order = n;
		p->caporder = cap;
	}
	if (at < 0)
		at = p->norder;
	memmove(p->order + at + 1, p->order + at, sizeof(int) * (size_t)(p->norder - at));
	p->order[at] = id;
	p->norder++;
}

static int
emit(struct prog *p, uint16_t code, uint32_t k, int jt, int jf)
{
	int id = add(p, code, k, jt, jf);

	if (!p->bad)
		place_at(p, id, -1);
	return id;
}

/* A block made for a box, so that equal boxes share it. */
struct block {
	int kind; /* what o and n are: OUT_RET / OUT_RES of each */
	struct pair key;
	int id; /* its first item, -1 until laid out */
};

struct merge {
	const struct sock_filter *f[2];
	size_t n[2];
	struct prog p;
	struct block *blocks;
	size_t nblocks, capblocks;
	/* Copies of the newer residual entered from a return of the older
	 * one's copy: (value, residual) -> first item, laid out last. */
	struct chain {
		uint32_t value, pc;
		int id;
	} * chains;
	size_t nchains, capchains;
};

static bool
same_outcome(struct outcome a, struct outcome b)
{
	return a.kind == b.kind && a.v == b.v;
}

static bool
same_pair(const struct pair *a, const struct pair *b)
{
	return same_outcome(a->o, b->o) && same_outcome(a->n, b->n);
}

/* The block of a pair: its index in m->blocks, made if new. A pair of two
 * returns comes as their combination alone (sbx_bpf_merge()). */
static long
block_of(struct merge *m, struct pair pr)
{
	for (size_t i = 0; i < m->nblocks; i++)
		if (same_pair(&m->blocks[i].key, &pr))
			return (long)i;
	if (m->nblocks == m->capblocks) {
		size_t cap = m->capblocks ? m->capblocks * 2 : 32;
		struct block *n = realloc(m->blocks, sizeof(*n) * cap);

		if (n == NULL)
			return -1;
		m->blocks = n;
		m->capblocks = cap;
	}
	m->blocks[m->nblocks] = (struct block){ .key = pr, .id = -1 };
	/* The item a jump to this block lands on: made now, laid out later. */
	m->blocks[m->nblocks].id = add(&m->p, 0, 0, -1, -1);
	return (long)m->nblocks++;
}

/* Copies program w's residual from pc, every RET k in it turned into
 * RET combine(...) with other (a return of the other program), or, with
 * chain, into a JA to a copy of the newer program's residual at
 * other.v for k. The first copied item becomes id first. */
static void
copy_residual(struct merge *m, int w, uint32_t pc, struct outcome other, int first)
{
	const struct sock_filter *f = m->f[w];
	size_t n = m->n[w];
	bool *reach = calloc(n, sizeof(*reach));
	int *ids = malloc(sizeof(*ids) * n);

	if (reach == NULL || ids == NULL) {
		m->p.bad = true;
		goto out;
	}
	reach[pc] = true;
	for (size_t i = pc; i < n; i++) {
		if (!reach[i])
			continue;
		if (f[i].code == (BPF_RET | BPF_K))
			continue;
		if (f[i].code == (BPF_JMP | BPF_JA))
			reach[i + 1 + f[i].k] = true;
		else if (is_jump_k(f[i].code)) {
			reach[i + 1 + f[i].jt] = true;
			reach[i + 1 + f[i].jf] = true;
		} else {
			reach[i + 1] = true;
		}
	}
	for (size_t i = pc; i < n; i++)
		if (reach[i])
			ids[i] = i == pc ? first : add(&m->p, 0, 0, -1, -1);
	for (size_t i = pc; i < n && !m->p.bad; i++) {
		struct item *it;

		if (!reach[i])
			continue;
		it = &m->p.items[ids[i]];
		*it = (struct item){ f[i].code, f[i].k, -1, -1 };
		if (f[i].code == (BPF_JMP | BPF_JA)) {
			it->jt = ids[i + 1 + f[i].k];
		} else if (is_jump_k(f[i].code)) {
			it->jt = ids[i + 1 + f[i].jt];
			it->jf = ids[i + 1 + f[i].jf];
		} else if (f[i].code == (BPF_RET | BPF_K)) {
			if (other.kind == OUT_RET) {
				it->k = w == 0 ? sbx_bpf_combine(f[i].k, other.v)
					       : sbx_bpf_combine(other.v, f[i].k);
			} else {
				/* The older one returned k: the newer one's
				 * residual decides, k folded into its returns. */
				size_t c;

				for (c = 0; c < m->nchains; c++)
					if (m->chains[c].value == f[i].k &&
					    m->chains[c].pc == other.v)
						break;
				if (c == m->nchains) {
					if (m->nchains == m->capchains) {
						size_t cap = m->capchains ? m->capchains * 2 : 16;
						struct chain *nc =
						    realloc(m->chains, sizeof(*nc) * cap);

						if (nc == NULL) {
							m->p.bad = true;
							break;
						}
						m->chains = nc;
						m->capchains = cap;
					}
					m->chains[c] = (struct chain){ f[i].k, other.v,
						add(&m->p, 0, 0, -1, -1) };
					m->nchains++;
					it = &m->p.items[ids[i]];
				}
				*it = (struct item){ BPF_JMP | BPF_JA, 0, m->chains[c].id, -1 };
			}
		}
		place_at(&m->p, ids[i], -1);
	}
out:
	free(reach);
	free(ids);
}

/* Lays out the block of index b at the end of the program. */
static void
lay_block(struct merge *m, size_t b)
{
	struct block *bl = &m->blocks[b];
	struct pair pr = bl->key;
	int id = bl->id;

	if (pr.o.kind == OUT_RET && pr.n.kind == OUT_RET) {
		m->p.items[id] = (struct item){ BPF_RET | BPF_K, pr.o.v, -1, -1 };
		place_at(&m->p, id, -1);
	} else if (pr.o.kind == OUT_RET) {
		copy_residual(m, 1, pr.n.v, pr.o, id);
	} else if (pr.n.kind == OUT_RET) {
		copy_residual(m, 0, pr.o.v, pr.n, id);
	} else {
		copy_residual(m, 0, pr.o.v, pr.n, id);
	}
}

/* Ranges [lo, hi) of one block but for at most CHAIN_MAX single values,
 * told apart by a JEQ each (one instruction where two JGEs would cut a
 * value out of the search): that block's index, the values in pts[],
 * their count in *npts; -1 when the ranges are not of that shape. n is the
 * number of ranges in all, the last running to the top value. */
#define CHAIN_MAX 4

static long
chain_of(const uint32_t *starts, const long *blk, size_t n, size_t lo, size_t hi, size_t *pts,
    size_t *npts)
{
	long d = -1;

	*npts = 0;
	for (size_t i = lo; i < hi; i++)
		if (i + 1 < n && starts[i + 1] - starts[i] == 1)
			continue;
		else if (d < 0)
			d = blk[i];
		else if (blk[i] != d)
			return -1;
	if (d < 0)
		return -1;
	for (size_t i = lo; i < hi; i++) {
		if (blk[i] == d)
			continue;
		if (*npts == CHAIN_MAX)
			return -1;
		pts[(*npts)++] = i;
	}
	return d;
}

/* A binary search over ranges [lo, hi) of starts[] (the value in the
 * accumulator; n of them in all), each range's block in blk[]: returns
 * the item to jump to. Nodes are laid out in preorder, at the end of the
 * program; a part of one block with a few single values out of it is a
 * chain of JEQs (chain_of()). */
static int
search(struct merge *m, const uint32_t *starts, const long *blk, size_t n, size_t lo, size_t hi)
{
	size_t mid, pts[CHAIN_MAX], npts;
	long d;
	int id, below, above;

	if (hi - lo == 1)
		return m->blocks[blk[lo]].id;
	if ((d = chain_of(starts, blk, n, lo, hi, pts, &npts)) >= 0) {
		int first = -1, prev = -1;

		for (size_t k = 0; k < npts; k++) {
			id = emit(&m->p, BPF_JMP | BPF_JEQ | BPF_K, starts[pts[k]],
			    m->blocks[blk[pts[k]]].id, -1);
			if (m->p.bad)
				return 0;
			if (prev >= 0)
				m->p.items[prev].jf = id;
			else
				first = id;
			prev = id;
		}
		if (prev < 0)
			return m->blocks[d].id;
		m->p.items[prev].jf = m->blocks[d].id;
		return first;
	}
	mid = lo + (hi - lo) / 2;
	id = emit(&m->p, BPF_JMP | BPF_JGE | BPF_K, starts[mid], -1, -1);
	/* Each call may move the items: their ids are kept, not pointers. */
	below = search(m, starts, blk, n, lo, mid);
	above = search(m, starts, blk, n, mid, hi);
	if (!m->p.bad) {
		m->p.items[id].jf = below;
		m->p.items[id].jt = above;
	}
	return id;
}

/* Ranges from intervals: adjacent intervals with the same block joined.
 * Returns their number; starts[] and blk[] rewritten in place. */
static size_t
join_ranges(uint32_t *starts, long *blk, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (k == 0 || blk[k - 1] != blk[i]) {
			starts[k] = starts[i];
			blk[k] = blk[i];
			k++;
		}
	return k;
}

/* Returns shared: a RET that a later RET of the same value can stand for
 * (nothing falls into it, and every conditional jump to it reaches that
 * one within 255) goes, its jumps moved there. Each residual copy brings
 * its own returns; one RET of a value serves many. Removing only
 * shortens the jumps that pass over it. */
static void
share_returns(struct prog *p)
{
	bool again = true;

	while (again && !p->bad) {
		again = false;
		for (int i = p->norder - 2; i >= 1 && !again; i--) {
			int id = p->order[i], j;
			const struct item *r = &p->items[id], *prev = &p->items[p->order[i - 1]];
			bool ok = true;

			if (r->code != (BPF_RET | BPF_K))
				continue;
			if (prev->code != (BPF_RET | BPF_K) && prev->code != (BPF_JMP | BPF_JA) &&
			    !is_jump_k(prev->code))
				continue; /* reached by falling through */
			for (j = i + 1; j < p->norder; j++)
				if (p->items[p->order[j]].code == r->code &&
				    p->items[p->order[j]].k == r->k)
					break;
			if (j == p->norder)
				continue;
			for (int s = 0; s < i && ok; s++) {
				const struct item *q = &p->items[p->order[s]];

				ok = !(is_jump_k(q->code) && (q->jt == id || q->jf == id) &&
				    j - s - 1 > 255);
			}
			if (!ok)
				continue;
			for (int s = 0; s < i; s++) {
				struct item *q = &p->items[p->order[s]];

				if (q->jt == id &&
				    (is_jump_k(q->code) || q->code == (BPF_JMP | BPF_JA)))
					q->jt = p->order[j];
				if (q->jf == id && is_jump_k(q->code))
					q->jf = p->order[j];
			}
			memmove(p->order + i, p->order + i + 1,
			    sizeof(int) * (size_t)(p->norder - i - 1));
			p->norder--;
			again = true;
		}
	}
}

/* Positions from the layout, then a JA after every conditional jump whose
 * target is more than 255 instructions ahead, until none is. Writes the
 * program; 0 when a target is behind its jump or it does not fit. */
static size_t
resolve(struct prog *p, struct sock_filter *out, size_t cap)
{
	int *pos = malloc(sizeof(*pos) * (size_t)(p->nitems + 2 * p->norder + 1));
	bool again = true;
	size_t n = 0;

	if (pos == NULL)
		return 0;
	while (again && !p->bad) {
		again = false;
		for (int i = 0; i < p->nitems; i++)
			pos[i] = -1;
		for (int i = 0; i < p->norder; i++)
			pos[p->order[i]] = i;
		for (int i = 0; i < p->norder && !again; i++) {
			struct item *it = &p->items[p->order[i]];

			if (!is_jump_k(it->code))
				continue;
			for (int side = 0; side < 2; side++) {
				int *t = side == 0 ? &it->jt : &it->jf;
				int off = pos[*t] - i - 1;

				if (pos[*t] < 0 || off < 0) {
					p->bad = true;
					break;
				}
				if (off > 255) {
					int ja = add(p, BPF_JMP | BPF_JA, 0, *t, -1);

					/* add() may have moved the items */
					it = &p->items[p->order[i]];
					t = side == 0 ? &it->jt : &it->jf;
					*t = ja;
					place_at(p, ja, i + 1);
					again = true;
					break;
				}
			}
		}
		if (again) {
			free(pos);
			pos = malloc(sizeof(*pos) * (size_t)(p->nitems + 1));
			if (pos == NULL)
				return 0;
		}
	}
	share_returns(p);
	for (int i = 0; i < p->nitems; i++)
		pos[i] = -1;
	for (int i = 0; i < p->norder; i++)
		pos[p->order[i]] = i;
	if (p->bad || (size_t)p->norder > cap || p->norder > BPF_MAXINSNS)
		goto out;
	for (int i = 0; i < p->norder; i++) {
		const struct item *it = &p->items[p->order[i]];
		struct sock_filter *o = &out[i];

		*o = (struct sock_filter){ it->code, 0, 0, it->k };
		if (it->code == (BPF_JMP | BPF_JA)) {
			if (pos[it->jt] <= i)
				goto out;
			o->k = (uint32_t)(pos[it->jt] - i - 1);
		} else if (is_jump_k(it->code)) {
			o->jt = (uint8_t)(pos[it->jt] - i - 1);
			o->jf = (uint8_t)(pos[it->jf] - i - 1);
		}
	}
	n = (size_t)p->norder;
out:
	free(pos);
	return n;
}

size_t
sbx_bpf_merge(const struct sock_filter *older, size_t nolder, const struct sock_filter *newer,
    size_t nnewer, struct sock_filter *out, size_t cap)
{
	struct merge m = { .f = { older, newer }, .n = { nolder, nnewer } };
	uint32_t *c = NULL, *astarts = NULL, *nstarts = NULL;
	long *ablk = NULL, *nblk = NULL;
	struct pair *boxes = NULL;
	size_t nc = 0, na, result = 0;

	if (!shape_ok(older, nolder) || !shape_ok(newer, nnewer))
		return 0;
	c = cuts(older, nolder, newer, nnewer, &nc);
	boxes = c ? calloc(nc * nc, sizeof(*boxes)) : NULL;
	astarts = malloc(sizeof(*astarts) * (nc + 1));
	nstarts = malloc(sizeof(*nstarts) * (nc + 1));
	ablk = malloc(sizeof(*ablk) * (nc + 1));
	nblk = malloc(sizeof(*nblk) * (nc + 1));
	if (boxes == NULL || astarts == NULL || nstarts == NULL || ablk == NULL || nblk == NULL)
		goto out;
	/* 1. Every box, both programs. */
	for (size_t ai = 0; ai < nc; ai++)
		for (size_t ni = 0; ni < nc; ni++) {
			struct pair *b = &boxes[ai * nc + ni];

			b->o = classify(older, nolder, c[ai], c[ni]);
			b->n = classify(newer, nnewer, c[ai], c[ni]);
			if (b->o.kind == OUT_BAD || b->n.kind == OUT_BAD)
				goto out;
			/* Two returns are their combination: boxes that
			 * decide alike are alike. */
			if (b->o.kind == OUT_RET && b->n.kind == OUT_RET) {
				b->o.v = sbx_bpf_combine(b->o.v, b->n.v);
				b->n.v = 0;
			}
		}
	/* 2. The architectures: one whose boxes all share one pair gets that
	 * pair's block; any other gets a search on the number. Such an
	 * architecture must be a single value (x86-64's): one search for a
	 * range of them would be a guess at what the programs meant. */
	emit(&m.p, LD_ABS, OFF_ARCH, -1, -1);
	for (size_t ai = 0; ai < nc; ai++) {
		const struct pair *row = &boxes[ai * nc];
		bool flat = true;

		for (size_t ni = 1; ni < nc && flat; ni++)
			flat = same_pair(&row[0], &row[ni]);
		astarts[ai] = c[ai];
		if (flat) {
			ablk[ai] = block_of(&m, row[0]);
			if (ablk[ai] < 0)
				goto out;
			continue;
		}
		if (ai + 1 >= nc || c[ai + 1] != c[ai] + 1)
			goto out;
		ablk[ai] = -2 - (long)ai; /* a search of its own, below */
	}
	na = join_ranges(astarts, ablk, nc);
	{
		/* The search on the architecture; an architecture with a search
		 * of its own is a block whose first item is that search's load
		 * of the number. */
		size_t nsearch = 0;
		long *searches = malloc(sizeof(*searches) * na);
		int root;

		if (searches == NULL)
			goto out;
		for (size_t i = 0; i < na; i++) {
			if (ablk[i] >= 0)
				continue;
			if (m.nblocks == m.capblocks) {
				size_t cap2 = m.capblocks ? m.capblocks * 2 : 32;
				struct block *nb = realloc(m.blocks, sizeof(*nb) * cap2);

				if (nb == NULL) {
					free(searches);
					goto out;
				}
				m.blocks = nb;
				m.capblocks = cap2;
			}
			m.blocks[m.nblocks] = (struct block){
				.kind = -1,
				.key = { { OUT_BAD, (uint32_t)(-2 - ablk[i]) }, { OUT_BAD, 0 } },
				.id = add(&m.p, LD_ABS, OFF_NR, -1, -1),
			};
			searches[nsearch++] = (long)m.nblocks;
			ablk[i] = (long)m.nblocks++;
		}
		root = search(&m, astarts, ablk, na, 0, na);
		if (na == 1) {
			/* No search: the only block comes right after the load. */
			(void)root;
		}
		/* 3. Each number search, then every block. */
		for (size_t s = 0; s < nsearch && !m.p.bad; s++) {
			struct block *sb = &m.blocks[searches[s]];
			size_t ai = sb->key.o.v;
			size_t nn;

			place_at(&m.p, sb->id, -1);
			for (size_t ni = 0; ni < nc; ni++) {
				nstarts[ni] = c[ni];
				nblk[ni] = block_of(&m, boxes[ai * nc + ni]);
				if (nblk[ni] < 0) {
					free(searches);
					goto out;
				}
			}
			nn = join_ranges(nstarts, nblk, nc);
			/* The load's successor is the search's root. */
			if (nn == 1) {
				emit(&m.p, BPF_JMP | BPF_JA, 0, m.blocks[nblk[0]].id, -1);
			} else {
				size_t before = (size_t)m.p.norder;
				int r = search(&m, nstarts, nblk, nn, 0, nn);

				if (m.p.norder == 0 || (size_t)m.p.norder == before ||
				    m.p.order[before] != r)
					m.p.bad = true;
			}
		}
		free(searches);
		if (na == 1) {
			/* The load of the architecture is followed by a JA. */
			int first = m.blocks[ablk[0]].id;

			place_at(&m.p, add(&m.p, BPF_JMP | BPF_JA, 0, first, -1), 1);
		}
		for (size_t b = 0; b < m.nblocks && !m.p.bad; b++)
			if (m.blocks[b].kind != -1)
				lay_block(&m, b);
		for (size_t k = 0; k < m.nchains && !m.p.bad; k++) {
			struct outcome v = { OUT_RET, m.chains[k].value };

			copy_residual(&m, 1, m.chains[k].pc, v, m.chains[k].id);
		}
	}
	result = resolve(&m.p, out, cap);
out:
	free(c);
	free(boxes);
	free(astarts);
	free(nstarts);
	free(ablk);
	free(nblk);
	free(m.blocks);
	free(m.chains);
	free(m.p.items);
	free(m.p.order);
	return result;
}
