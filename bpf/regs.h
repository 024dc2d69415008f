/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Function arguments at a uprobe, for the two architectures Echo runs on, from the user
 * register layout (struct pt_regs on x86-64, struct user_pt_regs on arm64) rather than
 * kernel types. Arguments past the registers are read from the caller's stack: on x86-64
 * the 7th integer argument sits just above the return address, on arm64 the 9th at sp.
 */
#ifndef ECHO_REGS_H
#define ECHO_REGS_H

#include "bpf.h"

#if defined(__TARGET_ARCH_x86)

struct echo_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs,
		flags, sp, ss;
};
#define REG_ARGS 6

static __always_inline __u64 reg_arg(struct echo_regs *r, int n)
{
	switch (n) {
	case 0: return r->di;
	case 1: return r->si;
	case 2: return r->dx;
	case 3: return r->cx;
	case 4: return r->r8;
	default: return r->r9;
	}
}
#define RET(r) ((r)->ax)
#define SP(r) ((r)->sp)
/* at function entry the return address is on top of the stack */
static __always_inline __u64 caller(struct echo_regs *r)
{
	__u64 ra = 0;
	bpf_probe_read_user(&ra, sizeof ra, (void *)r->sp);
	return ra;
}
#define STACK_ARG_BASE(r) ((r)->sp + 8)

#elif defined(__TARGET_ARCH_arm64)

struct echo_regs {
	__u64 regs[31];
	__u64 sp, pc, pstate;
};
#define REG_ARGS 8

static __always_inline __u64 reg_arg(struct echo_regs *r, int n)
{
	return r->regs[n & 7];
}
#define RET(r) ((r)->regs[0])
#define SP(r) ((r)->sp)
static __always_inline __u64 caller(struct echo_regs *r)
{
	return r->regs[30]; /* the link register holds the return address at entry */
}
#define STACK_ARG_BASE(r) ((r)->sp)

#else
#error "define __TARGET_ARCH_x86 or __TARGET_ARCH_arm64 (bpf2go -target does)"
#endif

/* The n-th integer-class argument (0-based), valid at function entry. */
static __always_inline __u64 arg(struct echo_regs *r, int n)
{
	if (n < REG_ARGS)
		return reg_arg(r, n);
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof v, (void *)(STACK_ARG_BASE(r) + 8 * (__u64)(n - REG_ARGS)));
	return v;
}

#endif
