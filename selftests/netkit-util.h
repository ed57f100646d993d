/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test helpers (selftests/netkit-*.c) share: errno names
 * for their reports and the extack message of a netlink error answer.
 * Header-only, so each helper stays one static binary built from one .c;
 * the includer defines _GNU_SOURCE (strerrorname_np).
 */
#ifndef NETKIT_UTIL_H
#define NETKIT_UTIL_H

#include <stdio.h>
#include <string.h>
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

#endif /* NETKIT_UTIL_H */
