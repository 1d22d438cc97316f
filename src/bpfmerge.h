/* One seccomp program that decides as two loaded one after the other:
 * made at build time (bpfgen.c), so that a jail loads one filter where it
 * loaded two, each load a fixed ~25 us plus the kernel's emulation of the
 * program for every system call number (doc/design/startup.md, section
 * 33). Pure: no system call, no libseccomp. */
#ifndef SBX_BPFMERGE_H
#define SBX_BPFMERGE_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

/* The action the kernel takes when a filter loaded first returned older
 * and one loaded after it returned newer (kernel/seccomp.c,
 * seccomp_run_filters): the lowest action, compared as a signed number
 * without its data, wins; of equal ones, the newer filter's value. A
 * single filter's value v is sbx_bpf_combine(v, SECCOMP_RET_ALLOW). */
uint32_t sbx_bpf_combine(uint32_t older, uint32_t newer);

/* Writes to out (room for cap instructions) a program that decides, for
 * every input, as the kernel does with older loaded and newer loaded
 * after it, and returns its length. 0 when either program has a shape
 * this merge does not take (an instruction other than loads of the
 * seccomp data, AND with a constant, jumps against constants and RET of a
 * constant; a test of the call number or architecture other than JEQ,
 * JGT or JGE; an architecture other than x86-64 whose decision depends on
 * the call number) or the result does not fit: the caller then keeps the
 * two programs. The result keeps every call number's decision that does
 * not depend on arguments free of argument loads, so the kernel's cache
 * of always-allowed calls is what it was with the two programs. */
size_t sbx_bpf_merge(const struct sock_filter *older, size_t nolder,
    const struct sock_filter *newer, size_t nnewer, struct sock_filter *out, size_t cap);

#endif
