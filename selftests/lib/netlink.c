// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: rtnetlink - the message builder, talk, extack, dumps and the
 * device census. Raw netlink (no libmnl), see netkit-lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/veth.h>

#include "netkit-lib.h"

/* ---- the builder ---------------------------------------------------- */

void *nk_msg_init(struct nk_msg *m, int type, int flags, int hdrlen)
{
	memset(m, 0, sizeof(*m));
	m->n.nlmsg_type = type;
	m->n.nlmsg_flags = NLM_F_REQUEST | flags;
	m->len = NLMSG_LENGTH(hdrlen);
	m->n.nlmsg_len = m->len;
	return NLMSG_DATA(&m->n);
}

struct ifinfomsg *nk_msg_link(struct nk_msg *m, int type, int flags,
			      int ifindex)
{
	struct ifinfomsg *ifm = nk_msg_init(m, type, flags, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	return ifm;
}

static void too_long(void)
{
	fprintf(stderr, "%s: netlink message too long\n",
		program_invocation_short_name);
	exit(2);
}

static int room(struct nk_msg *m, int len)
{
	return NLA_ALIGN(m->len) + NLA_HDRLEN + len <= (int)sizeof(m->buf) - 16;
}

struct nlattr *nk_put(struct nk_msg *m, int type, const void *data, int len)
{
	struct nlattr *a;

	if (len < 0 || !room(m, len))
		too_long();
	a = (struct nlattr *)(m->buf + NLA_ALIGN(m->len));
	memset(a, 0, NLA_HDRLEN + NLA_ALIGN(len));
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len && data)
		memcpy(a + 1, data, len);
	if (m->nattr < NK_MSG_MAXATTRS)
		m->attr_off[m->nattr++] = (char *)a - m->buf;
	m->len = NLA_ALIGN(m->len) + NLA_ALIGN(a->nla_len);
	return a;
}

void nk_put_u8(struct nk_msg *m, int type, __u8 v)
{
	nk_put(m, type, &v, sizeof(v));
}

void nk_put_u16(struct nk_msg *m, int type, __u16 v)
{
	nk_put(m, type, &v, sizeof(v));
}

void nk_put_u32(struct nk_msg *m, int type, __u32 v)
{
	nk_put(m, type, &v, sizeof(v));
}

void nk_put_str(struct nk_msg *m, int type, const char *s)
{
	nk_put(m, type, s, strlen(s) + 1);
}

void nk_put_raw(struct nk_msg *m, const void *data, int len)
{
	if (len < 0 || !room(m, len))
		too_long();
	if (data)
		memcpy(m->buf + m->len, data, len);
	else
		memset(m->buf + m->len, 0, len);
	m->len += len;
}

void nk_nest(struct nk_msg *m, int type)
{
	struct nlattr *a = nk_put(m, type, NULL, 0);

	if (m->sp >= (int)(sizeof(m->stack) / sizeof(m->stack[0])))
		too_long();
	m->stack[m->sp++] = (char *)a - m->buf;
}

void nk_nest_end(struct nk_msg *m)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->stack[--m->sp]);

	a->nla_len = m->len - ((char *)a - m->buf);
}

void nk_nest_end_all(struct nk_msg *m)
{
	while (m->sp)
		nk_nest_end(m);
}

void nk_netkit_begin(struct nk_msg *m, int type, int flags, int ifindex,
		     const char *name)
{
	nk_msg_link(m, type, flags, ifindex);
	if (name)
		nk_put_str(m, IFLA_IFNAME, name);
	nk_nest(m, IFLA_LINKINFO);
	nk_put(m, IFLA_INFO_KIND, "netkit", 6);
	nk_nest(m, IFLA_INFO_DATA);
}

void nk_netkit_peer(struct nk_msg *m, int ifindex, const char *name)
{
	struct ifinfomsg ifm = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };

	nk_nest(m, IFLA_NETKIT_PEER_INFO);
	nk_put_raw(m, &ifm, sizeof(ifm));
	if (name)
		nk_put_str(m, IFLA_IFNAME, name);
}

void nk_netkit_pair(struct nk_msg *m, int flags, const struct nk_pair_spec *s)
{
	nk_netkit_begin(m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | flags,
			s->ifindex, s->name);
	if (s->mode >= 0)
		nk_put_u32(m, IFLA_NETKIT_MODE, s->mode);
	if (s->policy >= 0)
		nk_put_u32(m, IFLA_NETKIT_POLICY, s->policy);
	if (s->peer_policy >= 0)
		nk_put_u32(m, IFLA_NETKIT_PEER_POLICY, s->peer_policy);
	nk_netkit_peer(m, s->peer_ifindex, s->peer);
	if (s->peer_nsfd >= 0)
		nk_put_u32(m, IFLA_NET_NS_FD, s->peer_nsfd);
	nk_nest_end_all(m);
}

/* ---- the socket ----------------------------------------------------- */

int nk_nl_open(struct nk_nl *nl, int rcvbuf)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->bad_offs = -1;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl->fd < 0)
		return -errno;
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0) {
		err = errno;
		close(nl->fd);
		nl->fd = -1;
		errno = err;
		return -err;
	}
	if (rcvbuf > 0)
		setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return 0;
}

void nk_nl_close(struct nk_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

int nk_nl_send(struct nk_nl *nl, struct nk_msg *m)
{
	m->n.nlmsg_len = m->len;
	m->n.nlmsg_seq = ++nl->seq;
	nl->recv_err = 0;
	return send(nl->fd, m->buf, m->len, 0) < 0 ? -errno : 0;
}

/* The extended ack's attribute of that type in the error message n */
static const struct nlattr *extack_attr(const struct nlmsghdr *n, int len, int type)
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
		if (a->nla_type == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

const char *nk_extack_msg(const struct nlmsghdr *n, int len)
{
	const struct nlattr *a = extack_attr(n, len, NLMSGERR_ATTR_MSG);

	return a && memchr(a + 1, 0, a->nla_len - sizeof(*a)) ? (const char *)(a + 1) : NULL;
}

int nk_extack_offs(const struct nlmsghdr *n, int len)
{
	const struct nlattr *a = extack_attr(n, len, NLMSGERR_ATTR_OFFS);
	__u32 v;

	if (!a || a->nla_len < sizeof(*a) + sizeof(v))
		return -1;
	memcpy(&v, a + 1, sizeof(v));
	return (int)v;
}

/* NLMSG_OK()/NLMSG_NEXT() without their signed/unsigned comparisons */
static int msg_ok(const char *buf, const struct nlmsghdr *h, int len)
{
	int off = (const char *)h - buf;

	return off + NLMSG_HDRLEN <= len && h->nlmsg_len >= NLMSG_HDRLEN &&
	       off + (long)h->nlmsg_len <= len;
}

static const struct nlmsghdr *msg_next(const struct nlmsghdr *h)
{
	return (const struct nlmsghdr *)((const char *)h + NLMSG_ALIGN(h->nlmsg_len));
}

/*
 * One batch of answers into buf: its length, -errno of recv(), or
 * NK_NL_NOANSWER. EINTR is retried.
 */
static int receive(struct nk_nl *nl, char *buf, int size)
{
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	int n;

	for (;;) {
		if (nl->timeout_ms > 0) {
			n = poll(&pfd, 1, nl->timeout_ms);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return NK_NL_NOANSWER;
		}
		n = recv(nl->fd, buf, size, 0);
		if (n >= 0)
			return n;
		if (errno != EINTR) {
			nl->recv_err = errno;
			return -errno;
		}
	}
}

int nk_nl_answer(struct nk_nl *nl, char *ext, size_t extsz, void *reply,
		 size_t replysz)
{
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h;
	const char *s;
	int n;

	if (ext && extsz)
		*ext = 0;
	nl->bad_offs = -1;
	for (;;) {
		n = receive(nl, buf, sizeof(buf));
		if (n < 0 || n == NK_NL_NOANSWER)
			return n;
		for (h = (void *)buf; msg_ok(buf, h, n); h = msg_next(h)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
					return -EPROTO;
				nl->bad_offs = nk_extack_offs(h, h->nlmsg_len);
				s = nk_extack_msg(h, h->nlmsg_len);
				if (ext && extsz)
					snprintf(ext, extsz, "%s", s ? s : "");
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			}
			if (reply) {
				if (h->nlmsg_len > replysz)
					return -EMSGSIZE;
				memcpy(reply, h, h->nlmsg_len);
				return 0;
			}
		}
	}
}

int nk_nl_request(struct nk_nl *nl, struct nk_msg *m, char *ext,
		  size_t extsz, void *reply, size_t replysz)
{
	int err;

	if (!nl)
		return nk_nl_once(m, ext, extsz, reply, replysz);
	err = nk_nl_send(nl, m);
	if (err) {
		if (ext && extsz)
			*ext = 0;
		return err;
	}
	return nk_nl_answer(nl, ext, extsz, reply, replysz);
}

int nk_nl_once(struct nk_msg *m, char *ext, size_t extsz, void *reply,
	       size_t replysz)
{
	struct nk_nl nl;
	int err = nk_nl_open(&nl, 0);

	if (ext && extsz)
		*ext = 0;
	if (err)
		return err;
	err = nk_nl_request(&nl, m, ext, extsz, reply, replysz);
	nk_nl_close(&nl);
	return err;
}

int nk_nl_talk(struct nk_nl *nl, struct nk_msg *m, char *ext, size_t extsz)
{
	return nk_nl_request(nl, m, ext, extsz, NULL, 0);
}

int nk_nl_dump(struct nk_nl *nl, struct nk_msg *m, nk_dump_cb cb, void *arg)
{
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h;
	int n;

	m->n.nlmsg_flags |= NLM_F_DUMP;
	n = nk_nl_send(nl, m);
	if (n)
		return n;
	for (;;) {
		n = receive(nl, buf, sizeof(buf));
		if (n < 0 || n == NK_NL_NOANSWER)
			return n;
		for (h = (void *)buf; msg_ok(buf, h, n); h = msg_next(h)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			cb(h, arg);
		}
	}
}

/* ---- devices -------------------------------------------------------- */

static void parse_netkit(struct nk_link *l, const struct rtattr *data)
{
	int len = RTA_PAYLOAD(data);
	const struct rtattr *a;

	for (a = RTA_DATA(data); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_NETKIT_PRIMARY:
			l->primary = *(__u8 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_POLICY:
			l->policy = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_PEER_POLICY:
			l->peer_policy = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_MODE:
			l->mode = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_SCRUB:
			l->scrub = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_PEER_SCRUB:
			l->peer_scrub = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_HEADROOM:
			l->headroom = *(__u16 *)RTA_DATA(a);
			break;
		case IFLA_NETKIT_TAILROOM:
			l->tailroom = *(__u16 *)RTA_DATA(a);
			break;
		}
	}
}

void nk_link_parse(const struct nlmsghdr *h, struct nk_link *l)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = IFLA_PAYLOAD(h), ilen;
	const struct rtattr *a, *b;

	memset(l, 0, sizeof(*l));
	l->link = l->primary = l->policy = l->peer_policy = l->mode = -1;
	l->scrub = l->peer_scrub = l->headroom = l->tailroom = -1;
	l->carrier = -1;
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			snprintf(l->name, sizeof(l->name), "%s", (char *)RTA_DATA(a));
			break;
		case IFLA_LINK:
			l->link = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_MTU:
			l->mtu = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_GROUP:
			l->group = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_OPERSTATE:
			l->operstate = *(__u8 *)RTA_DATA(a);
			break;
		case IFLA_CARRIER:
			l->carrier = *(__u8 *)RTA_DATA(a);
			break;
		case IFLA_MASTER:
			l->master = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_STATS64:
			memcpy(&l->st, RTA_DATA(a), sizeof(l->st));
			l->has_stats = 1;
			break;
		case IFLA_LINKINFO:
			ilen = RTA_PAYLOAD(a);
			for (b = RTA_DATA(a); RTA_OK(b, ilen); b = RTA_NEXT(b, ilen)) {
				if (b->rta_type == IFLA_INFO_KIND)
					snprintf(l->kind, sizeof(l->kind), "%.*s",
						 (int)RTA_PAYLOAD(b), (char *)RTA_DATA(b));
				else if (b->rta_type == IFLA_INFO_DATA)
					parse_netkit(l, b);
			}
			break;
		}
	}
	l->netkit = !strcmp(l->kind, "netkit");
}

int nk_link_get(struct nk_nl *nl, int ifindex, const char *name,
		struct nk_link *l)
{
	char reply[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nk_msg m;
	int err;

	nk_msg_link(&m, RTM_GETLINK, 0, ifindex);
	if (!ifindex)
		nk_put_str(&m, IFLA_IFNAME, name);
	err = nk_nl_request(nl, &m, NULL, 0, reply, sizeof(reply));
	if (err)
		return err;
	if (((struct nlmsghdr *)reply)->nlmsg_type != RTM_NEWLINK)
		return -EBADMSG;
	nk_link_parse((struct nlmsghdr *)reply, l);
	return 0;
}

struct census {
	struct nk_link *ls;
	int max, n, netkit_only;
};

static void census_one(const struct nlmsghdr *h, void *arg)
{
	struct census *c = arg;
	struct nk_link l;

	if (h->nlmsg_type != RTM_NEWLINK)
		return;
	nk_link_parse(h, &l);
	if (c->netkit_only && !l.netkit)
		return;
	if (c->ls && c->n < c->max)
		c->ls[c->n] = l;
	c->n++;
}

int nk_links_dump(struct nk_nl *nl, struct nk_link *ls, int max,
		  int netkit_only)
{
	struct census c = { .ls = ls, .max = max, .netkit_only = netkit_only };
	struct nk_msg m;
	int err;

	nk_msg_link(&m, RTM_GETLINK, 0, 0);
	err = nk_nl_dump(nl, &m, census_one, &c);
	return err ? err : c.n;
}

int nk_link_del(struct nk_nl *nl, int ifindex)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_DELLINK, NLM_F_ACK, ifindex);
	return nk_nl_talk(nl, &m, NULL, 0);
}

int nk_netkit_others(struct nk_nl *nl, const int *keep, int nkeep, int del)
{
	static __thread struct nk_link ls[256];
	int n, i, j, found = 0, guard = 0;

again:
	n = nk_links_dump(nl, ls, 256, 1);
	if (n < 0 || n == NK_NL_NOANSWER)
		return n < 0 ? n : -ETIMEDOUT;
	for (i = 0; i < n && i < 256; i++) {
		for (j = 0; j < nkeep && ls[i].ifindex != keep[j]; j++)
			;
		if (j < nkeep)
			continue;
		if (!del) {
			found++;
			continue;
		}
		if (nk_link_del(nl, ls[i].ifindex) == 0)
			found++;
		if (++guard > 1000)
			return -EBUSY;
		/* a pair goes at once: the dump is stale */
		goto again;
	}
	return found;
}

int nk_veth_pair(struct nk_nl *nl, const char *name, const char *peer,
		 char *ext, size_t extsz)
{
	struct ifinfomsg ifm = { .ifi_family = AF_UNSPEC };
	struct nk_msg m;

	nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0);
	nk_put_str(&m, IFLA_IFNAME, name);
	nk_nest(&m, IFLA_LINKINFO);
	nk_put(&m, IFLA_INFO_KIND, "veth", 4);
	nk_nest(&m, IFLA_INFO_DATA);
	nk_nest(&m, VETH_INFO_PEER);
	nk_put_raw(&m, &ifm, sizeof(ifm));
	nk_put_str(&m, IFLA_IFNAME, peer);
	nk_nest_end_all(&m);
	return nk_nl_talk(nl, &m, ext, extsz);
}

int nk_netkit_add(struct nk_nl *nl, const struct nk_pair_spec *s, char *ext,
		  size_t extsz)
{
	struct nk_msg m;

	nk_netkit_pair(&m, NLM_F_ACK, s);
	return nk_nl_talk(nl, &m, ext, extsz);
}

int nk_link_move(struct nk_nl *nl, int ifindex, int nsfd, char *ext,
		 size_t extsz)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK, ifindex);
	nk_put_u32(&m, IFLA_NET_NS_FD, nsfd);
	return nk_nl_talk(nl, &m, ext, extsz);
}

int nk_link_up(struct nk_nl *nl, int ifindex)
{
	struct nk_msg m;
	struct ifinfomsg *ifi = nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK, ifindex);

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nk_nl_talk(nl, &m, NULL, 0);
}

int nk_pair_up(struct nk_nl *nl, int ifindex, struct nk_nl *peer_nl,
	       int peer_ifindex, double timeout)
{
	int err = nk_link_up(nl, ifindex);

	if (!err)
		err = nk_link_up(peer_nl, peer_ifindex);
	if (!err && timeout > 0)
		err = nk_link_wait_oper_up(nl, ifindex, timeout);
	if (!err && timeout > 0)
		err = nk_link_wait_oper_up(peer_nl, peer_ifindex, timeout);
	return err;
}

int nk_links_names(struct nk_nl *nl, int netkit_only, char *names,
		   size_t size)
{
	static __thread struct nk_link ls[64];
	int i, n = nk_links_dump(nl, ls, 64, netkit_only);
	size_t len = 0;

	names[0] = 0;
	for (i = 0; i < n && i < 64; i++)
		if (len + IFNAMSIZ + 2 < size)
			len += snprintf(names + len, size - len, " %s", ls[i].name);
	return n;
}

int nk_link_wait_oper_up(struct nk_nl *nl, int ifindex, double timeout)
{
	double deadline = nk_now() + timeout;
	struct nk_link li;
	int err;

	while (!(err = nk_link_get(nl, ifindex, NULL, &li)) &&
	       li.operstate != IF_OPER_UP && nk_now() < deadline)
		usleep(1000);
	if (!err && li.operstate != IF_OPER_UP)
		err = -ETIMEDOUT;
	return err;
}

int nk_qdisc(struct nk_nl *nl, int ifindex, __u32 parent, const char *kind, int add,
	     char *ext, size_t extsz)
{
	struct nk_msg m;
	struct tcmsg *t;

	t = nk_msg_init(&m, add ? RTM_NEWQDISC : RTM_DELQDISC,
			NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0),
			sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_handle = TC_H_MAKE(TC_H_CLSACT, 0);
	t->tcm_parent = parent;
	nk_put_str(&m, TCA_KIND, kind);
	return nk_nl_request(nl, &m, ext, extsz, NULL, 0);
}

int nk_clsact(struct nk_nl *nl, int ifindex, __u32 parent, int add, char *ext,
	      size_t extsz)
{
	return nk_qdisc(nl, ifindex, parent, "clsact", add, ext, extsz);
}

int nk_cls_bpf(struct nk_nl *nl, int ifindex, int egress, int prog_fd,
	       const char *name, char *ext, size_t extsz)
{
	struct nk_msg m;
	struct tcmsg *t;

	t = nk_msg_init(&m, RTM_NEWTFILTER, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
			sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_parent = TC_H_MAKE(TC_H_CLSACT,
				  egress ? TC_H_MIN_EGRESS : TC_H_MIN_INGRESS);
	t->tcm_info = TC_H_MAKE(1 << 16, htons(ETH_P_ALL));
	nk_put_str(&m, TCA_KIND, "bpf");
	nk_nest(&m, TCA_OPTIONS);
	nk_put_u32(&m, TCA_BPF_FD, prog_fd);
	nk_put_str(&m, TCA_BPF_NAME, name);
	nk_put_u32(&m, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
	nk_nest_end_all(&m);
	return nk_nl_request(nl, &m, ext, extsz, NULL, 0);
}

int nk_addr_add(struct nk_nl *nl, int ifindex, const char *ipv4,
		int prefixlen)
{
	struct ifaddrmsg *ifa;
	struct in_addr in;
	struct nk_msg m;

	ifa = nk_msg_init(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK,
			  sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = prefixlen;
	ifa->ifa_index = ifindex;
	if (inet_pton(AF_INET, ipv4, &in) != 1)
		return -EINVAL;
	nk_put(&m, IFA_LOCAL, &in, sizeof(in));
	nk_put(&m, IFA_ADDRESS, &in, sizeof(in));
	return nk_nl_talk(nl, &m, NULL, 0);
}
