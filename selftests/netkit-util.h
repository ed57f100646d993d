/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test helpers (selftests/netkit-*.c, tcx-*.c) share: errno
 * names for their reports, the extack message of a netlink error answer,
 * and raw bpf(2) calls to load a one-verdict program and attach it.
 * Header-only, so each helper stays one static binary built from one .c;
 * the includer defines _GNU_SOURCE (strerrorname_np). Attach types are
 * plain ints here, so the header builds against the netkit-only cut's
 * uapi as well as the full series' (which adds tcx).
 */
#ifndef NETKIT_UTIL_H
#define NETKIT_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/netlink.h>

/* The kernel-internal ENOTSUPP, which bpf(2) hands out; libc has no name. */
#define NK_ENOTSUPP 524

/*
 * "EINVAL" for EINVAL or -EINVAL, "success" for 0, "errno N" for what libc
 * cannot name. Four rotating buffers, so one printf may take several.
 */
static inline const char *nk_errname(int err)
{
	static char buf[4][24];
	static int i;
	const char *s;

	if (err < 0)
		err = -err;
	if (!err)
		return "success";
	if (err == NK_ENOTSUPP)
		return "ENOTSUPP";
	s = strerrorname_np(err);
	if (s)
		return s;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "errno %d", err);
	return buf[i];
}

/*
 * The extack message of an NLMSG_ERROR answer of len bytes (the socket
 * has NETLINK_EXT_ACK set), or NULL if it carries none.
 */
static inline const char *nk_extack_msg(const struct nlmsghdr *n, int len)
{
	const struct nlmsgerr *e = NLMSG_DATA(n);
	int off = NLMSG_LENGTH(sizeof(*e));
	const struct nlattr *a;

	if (!(n->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (!(n->nlmsg_flags & NLM_F_CAPPED))	/* the request is echoed */
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (off + (int)sizeof(*a) <= len) {
		a = (const struct nlattr *)((const char *)n + off);
		if (a->nla_len < sizeof(*a) || off + a->nla_len > len)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG &&
		    memchr(a + 1, 0, a->nla_len - sizeof(*a)))
			return (const char *)(a + 1);
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* bpf(2) with the whole union: the result, or -1 with errno set. */
static inline int nk_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Load the program "r0 = verdict; exit" of prog_type for
 * expected_attach_type, named name (GPL). The fd, or -1 with errno set.
 */
static inline int nk_prog_load(int prog_type, int expected_attach_type,
			       int verdict, const char *name)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = verdict },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = prog_type;
	attr.expected_attach_type = expected_attach_type;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return nk_bpf(BPF_PROG_LOAD, &attr);
}

/*
 * Attach prog_fd to the device ifindex at attach_type: with
 * BPF_PROG_ATTACH when pin is NULL, else as a BPF link (BPF_LINK_CREATE)
 * pinned at pin, so that it outlives the caller. NULL on success, else the
 * name of the command that failed, with errno set.
 */
static inline const char *nk_attach(int ifindex, int attach_type,
				    int prog_fd, const char *pin)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	if (!pin) {
		attr.target_ifindex = ifindex;
		attr.attach_bpf_fd = prog_fd;
		attr.attach_type = attach_type;
		return nk_bpf(BPF_PROG_ATTACH, &attr) ? "BPF_PROG_ATTACH" : NULL;
	}
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.target_ifindex = ifindex;
	attr.link_create.attach_type = attach_type;
	fd = nk_bpf(BPF_LINK_CREATE, &attr);
	if (fd < 0)
		return "BPF_LINK_CREATE";
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)pin;
	attr.bpf_fd = fd;
	return nk_bpf(BPF_OBJ_PIN, &attr) ? "BPF_OBJ_PIN" : NULL;
}

#endif /* NETKIT_UTIL_H */
