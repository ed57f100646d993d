// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-priv: the privilege matrix of netkit's control operations.
 *
 *   netkit-priv
 *
 * Runs as root. Every cell of the matrix is one operation done by a forked
 * child with one set of privileges, against a netkit device in a given
 * network namespace; the answer (allowed, or the errno) is compared with
 * what mainline's code decides. The operations:
 *
 *   load      BPF_PROG_LOAD of a BPF_PROG_TYPE_SCHED_CLS program
 *   load-sf   BPF_PROG_LOAD of a BPF_PROG_TYPE_SOCKET_FILTER program (only
 *             to show kernel.unprivileged_bpf_disabled at work)
 *   create    RTM_NEWLINK creating a netkit pair in the caller's netns
 *   change    RTM_NEWLINK on an existing device setting IFLA_NETKIT_POLICY
 *   attach    BPF_PROG_ATTACH (program fd loaded by root, inherited)
 *   link      BPF_LINK_CREATE of a netkit link (same program fd)
 *   det-fd    BPF_PROG_DETACH with the program fd
 *   det-nofd  BPF_PROG_DETACH without a program fd (mainline ae23bc81ddf7)
 *   query     BPF_PROG_QUERY
 *
 * The callers: full root; root without CAP_NET_ADMIN, CAP_BPF, CAP_SYS_ADMIN
 * or combinations of them (capset(2) on the effective, permitted and
 * inheritable sets of the child; no exec follows, so they stay dropped);
 * "root" of a user namespace (made once with unshare(CLONE_NEWUSER |
 * CLONE_NEWNET) by a helper, entered by the children with setns(2); uid and
 * gid 0 mapped to 0), in the initial netns and in the netns that the user
 * namespace owns; root in a fresh netns. The devices: a pair in the initial
 * netns (ifindex 4001/4002) and a pair in the user namespace's netns
 * (4101/4102); cross-netns cells target a device that is not in the
 * caller's netns, peer cells target the peer device.
 *
 * Root does the setup of every cell (e.g. attaches the program that a
 * detach cell removes) and checks its effect afterwards: the program count
 * and the device policy must show that an allowed operation took effect and
 * a refused one did not.
 *
 * Prints the matrix as a table and one "ok - ..." / "not ok - ..." line per
 * cell; exits with 1 if any cell or the cleanup check failed, 2 if a setup
 * or teardown step of root failed (then it stops at once).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netkit-util.h"

/* The devices, with fixed ifindexes so that no netns has the other's. */
#define IDX_PRI		4001	/* nkpv0, primary, initial netns */
#define IDX_PEER	4002	/* nkpv1, its peer */
#define IDX_UPRI	4101	/* nkpu0, primary, the user namespace's netns */
#define IDX_UPEER	4102	/* nkpu1, its peer */
#define CREATE_PRI	"nkpc0"	/* the pair made by the create cells */
#define CREATE_PEER	"nkpc1"

enum { NS_INIT, NS_USER, NS_FRESH };

enum {
	OP_LOAD, OP_LOAD_SF, OP_CREATE, OP_CHANGE, OP_ATTACH, OP_LINK,
	OP_DETACH_FD, OP_DETACH_NOFD, OP_QUERY, NR_OPS
};
static const char *const op_col[NR_OPS] = {
	"load", "load-sf", "create", "change", "attach", "link", "det-fd",
	"det-nofd", "query",
};
static const char *const op_name[NR_OPS] = {
	"BPF_PROG_LOAD sched_cls", "BPF_PROG_LOAD socket_filter",
	"RTM_NEWLINK create netkit", "RTM_NEWLINK change policy",
	"BPF_PROG_ATTACH", "BPF_LINK_CREATE", "BPF_PROG_DETACH with prog fd",
	"BPF_PROG_DETACH without prog fd", "BPF_PROG_QUERY",
};
#define ALL_OPS		((1u << NR_OPS) - 1)
#define DEV_OPS		(1u << OP_CHANGE | 1u << OP_ATTACH | 1u << OP_LINK | \
			 1u << OP_DETACH_FD | 1u << OP_DETACH_NOFD | 1u << OP_QUERY)

struct dev {
	int ifindex;		/* the target of the operations */
	int pri_ifindex;	/* its primary, where root attaches */
	int netns;		/* where it lives */
	bool peer;
};
enum { DEV_INIT, DEV_INIT_PEER, DEV_USER, DEV_USER_PEER };
static const struct dev devs[] = {
	[DEV_INIT]	= { IDX_PRI, IDX_PRI, NS_INIT, false },
	[DEV_INIT_PEER]	= { IDX_PEER, IDX_PRI, NS_INIT, true },
	[DEV_USER]	= { IDX_UPRI, IDX_UPRI, NS_USER, false },
	[DEV_USER_PEER]	= { IDX_UPEER, IDX_UPRI, NS_USER, true },
};

#define CAPB(c)		(1ull << (c))
#define NA		CAPB(CAP_NET_ADMIN)
#define BPF		CAPB(CAP_BPF)
#define SA		CAPB(CAP_SYS_ADMIN)

struct row {
	const char *name;
	int netns;		/* where the caller runs */
	bool userns;		/* the caller is root of the user namespace */
	unsigned long long drop;	/* capabilities the caller dropped */
	int dev;
	int attach_type;
	unsigned int ops;
};

static const struct row rows[] = {
	{ "root",		NS_INIT, false, 0,	DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-NET_ADMIN",		NS_INIT, false, NA,	DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-BPF",		NS_INIT, false, BPF,	DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-SYS_ADMIN",		NS_INIT, false, SA,	DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-NET_ADMIN-BPF-SYS_ADMIN", NS_INIT, false, NA | BPF | SA, DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-BPF-SYS_ADMIN",	NS_INIT, false, BPF | SA, DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "-NET_ADMIN-SYS_ADMIN", NS_INIT, false, NA | SA, DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "userns, init netns",	NS_INIT, true, 0,	DEV_INIT, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "userns, own netns",	NS_USER, true, 0,	DEV_USER, BPF_NETKIT_PRIMARY, ALL_OPS },
	{ "root, userns' netns", NS_USER, false, 0,	DEV_USER, BPF_NETKIT_PRIMARY, ALL_OPS },
	/* The device is in another netns than the caller. */
	{ "xns: root fresh>init", NS_FRESH, false, 0,	DEV_INIT, BPF_NETKIT_PRIMARY, DEV_OPS },
	{ "xns: userns>init",	NS_USER, true, 0,	DEV_INIT, BPF_NETKIT_PRIMARY, DEV_OPS },
	{ "xns: root init>userns", NS_INIT, false, 0,	DEV_USER, BPF_NETKIT_PRIMARY, DEV_OPS },
	/* The target is the peer device. */
	{ "peer: root",		NS_INIT, false, 0,	DEV_INIT_PEER, BPF_NETKIT_PEER, DEV_OPS },
	{ "peer: root, primary type", NS_INIT, false, 0, DEV_INIT_PEER, BPF_NETKIT_PRIMARY, DEV_OPS },
	{ "peer: -NET_ADMIN-BPF-SYS_ADMIN", NS_INIT, false, NA | BPF | SA, DEV_INIT_PEER, BPF_NETKIT_PEER, DEV_OPS },
	{ "peer: userns, own netns", NS_USER, true, 0,	DEV_USER_PEER, BPF_NETKIT_PEER, DEV_OPS },
};
#define NR_ROWS		((int)(sizeof(rows) / sizeof(rows[0])))

/* The answer of one cell, sent by the child through a pipe. */
struct result {
	int err;		/* 0 or a positive errno */
	int broken;		/* the child could not even try */
	char msg[200];		/* extack message or what a check found */
};

static int init_net_fd = -1, user_net_fd = -1, user_ns_fd = -1;
static int prog_pri = -1, prog_peer = -1;
static int unpriv_bpf_disabled = -1;
static int failures;

/* The table says "allow" where the others say "success". */
static const char *errname(int err)
{
	return err ? nk_errname(err) : "allow";
}

static void die(const char *what)
{
	printf("not ok - setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- bpf ---- */

/* r0 = NETKIT_PASS (TC_ACT_OK for a filter: 0); exit */
static int prog_load(int type, int expected_attach_type, const char *name)
{
	return nk_prog_load(type, expected_attach_type, NETKIT_PASS, name);
}

static int prog_attach(int ifindex, int type, int fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_ifindex = ifindex;
	attr.attach_bpf_fd = fd;
	attr.attach_type = type;
	return nk_bpf(BPF_PROG_ATTACH, &attr) ? -errno : 0;
}

static int prog_detach(int ifindex, int type, int fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_ifindex = ifindex;
	attr.attach_bpf_fd = fd;	/* 0: no program fd */
	attr.attach_type = type;
	return nk_bpf(BPF_PROG_DETACH, &attr) ? -errno : 0;
}

/* Number of programs attached, or -errno. ids may be NULL. */
static int prog_query(int ifindex, int type, __u32 *ids, __u32 nr_ids)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_ifindex = ifindex;
	attr.query.attach_type = type;
	attr.query.prog_ids = (unsigned long)ids;
	attr.query.prog_cnt = nr_ids;
	if (nk_bpf(BPF_PROG_QUERY, &attr))
		return -errno;
	return attr.query.prog_cnt;
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (nk_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		die("BPF_OBJ_GET_INFO_BY_FD");
	return info.id;
}

/* ---- rtnetlink ---- */

struct nlreq {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[512];
};

static struct rtattr *add_attr(struct nlreq *r, int type, const void *data,
			       int len)
{
	char *p = (char *)r + NLMSG_ALIGN(r->n.nlmsg_len);
	struct rtattr *rta = (struct rtattr *)p;

	if (NLMSG_ALIGN(r->n.nlmsg_len) + RTA_SPACE(len) > sizeof(*r)) {
		fprintf(stderr, "netkit-priv: netlink request too long\n");
		exit(2);
	}
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(p + RTA_LENGTH(0), data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void end_nest(struct nlreq *r, struct rtattr *nest)
{
	nest->rta_len = (char *)r + r->n.nlmsg_len - (char *)nest;
}

static void nl_init(struct nlreq *r, int type, int flags, int ifindex)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->i.ifi_family = AF_UNSPEC;
	r->i.ifi_index = ifindex;
}

/*
 * Send a request in the current netns; 0 or -errno, the extack message in
 * msg. With reply, the first answer is copied there (RTM_GETLINK).
 */
static int nl_talk(struct nlreq *r, char *msg, size_t msglen, void *reply,
		   size_t replylen)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static char buf[16384];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct nlmsgerr *e;
	int fd, len, one = 1, ret;
	const char *m;

	if (msg && msglen)
		msg[0] = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	    send(fd, r, r->n.nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0) {
		ret = -errno;
		goto out;
	}
	if (len < (int)NLMSG_HDRLEN || n->nlmsg_len > (__u32)len) {
		ret = -EBADMSG;
		goto out;
	}
	if (n->nlmsg_type != NLMSG_ERROR) {
		ret = -EBADMSG;
		if (reply && n->nlmsg_len <= replylen) {
			memcpy(reply, n, n->nlmsg_len);
			ret = 0;
		}
		goto out;
	}
	e = NLMSG_DATA(n);
	ret = e->error;
	m = ret ? nk_extack_msg(n, len) : NULL;
	if (m && msg && msglen)
		snprintf(msg, msglen, "%s", m);
out:
	close(fd);
	return ret;
}

static int nl_create(const char *name, const char *peer, int ifindex,
		     int peer_ifindex, char *msg, size_t msglen)
{
	struct ifinfomsg peer_ifm = { .ifi_family = AF_UNSPEC,
				      .ifi_index = peer_ifindex };
	__u32 mode = NETKIT_L3, pass = NETKIT_PASS;
	struct rtattr *linkinfo, *data, *p;
	struct nlreq r;

	nl_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, ifindex);
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = add_attr(&r, IFLA_LINKINFO, NULL, 0);
	add_attr(&r, IFLA_INFO_KIND, "netkit", strlen("netkit"));
	data = add_attr(&r, IFLA_INFO_DATA, NULL, 0);
	add_attr(&r, IFLA_NETKIT_MODE, &mode, sizeof(mode));
	add_attr(&r, IFLA_NETKIT_POLICY, &pass, sizeof(pass));
	add_attr(&r, IFLA_NETKIT_PEER_POLICY, &pass, sizeof(pass));
	p = add_attr(&r, IFLA_NETKIT_PEER_INFO, &peer_ifm, sizeof(peer_ifm));
	add_attr(&r, IFLA_IFNAME, peer, strlen(peer) + 1);
	end_nest(&r, p);
	end_nest(&r, data);
	end_nest(&r, linkinfo);
	return nl_talk(&r, msg, msglen, NULL, 0);
}

/* RTM_NEWLINK on an existing device: set its IFLA_NETKIT_POLICY. */
static int nl_set_policy(int ifindex, __u32 policy, char *msg, size_t msglen)
{
	struct rtattr *linkinfo, *data;
	struct nlreq r;

	nl_init(&r, RTM_NEWLINK, NLM_F_ACK, ifindex);
	linkinfo = add_attr(&r, IFLA_LINKINFO, NULL, 0);
	add_attr(&r, IFLA_INFO_KIND, "netkit", strlen("netkit"));
	data = add_attr(&r, IFLA_INFO_DATA, NULL, 0);
	add_attr(&r, IFLA_NETKIT_POLICY, &policy, sizeof(policy));
	end_nest(&r, data);
	end_nest(&r, linkinfo);
	return nl_talk(&r, msg, msglen, NULL, 0);
}

static int nl_del(int ifindex, const char *name)
{
	struct nlreq r;

	nl_init(&r, RTM_DELLINK, NLM_F_ACK, ifindex);
	if (name)
		add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_talk(&r, NULL, 0, NULL, 0);
}

static struct rtattr *find_attr(struct rtattr *rta, int len, int type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type)
			return rta;
	return NULL;
}

/* The IFLA_NETKIT_POLICY of a device, or -errno. */
static int nl_get_policy(int ifindex)
{
	static char reply[16384];
	struct nlmsghdr *n = (struct nlmsghdr *)reply;
	struct rtattr *a;
	struct nlreq r;
	int ret, len;

	nl_init(&r, RTM_GETLINK, 0, ifindex);
	ret = nl_talk(&r, NULL, 0, reply, sizeof(reply));
	if (ret)
		return ret;
	if (n->nlmsg_type != RTM_NEWLINK)
		return -EBADMSG;
	len = n->nlmsg_len - NLMSG_LENGTH(sizeof(struct ifinfomsg));
	a = find_attr(IFLA_RTA(NLMSG_DATA(n)), len, IFLA_LINKINFO);
	if (!a)
		return -ENOENT;
	a = find_attr(RTA_DATA(a), RTA_PAYLOAD(a), IFLA_INFO_DATA);
	if (!a)
		return -ENOENT;
	a = find_attr(RTA_DATA(a), RTA_PAYLOAD(a), IFLA_NETKIT_POLICY);
	if (!a || RTA_PAYLOAD(a) != sizeof(__u32))
		return -ENOENT;
	return *(__u32 *)RTA_DATA(a);
}

/* ---- namespaces and capabilities ---- */

static int ns_fd(int ns)
{
	return ns == NS_USER ? user_net_fd : init_net_fd;
}

/* Move this (single-threaded, root) process to a netns. */
static void root_enter(int ns)
{
	if (setns(ns_fd(ns), CLONE_NEWNET))
		die("setns(CLONE_NEWNET)");
}

static int drop_caps(unsigned long long drop)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned long long eff;
	int i;

	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (i = 0; i < 2; i++) {
		__u32 m = drop >> (32 * i);

		d[i].effective &= ~m;
		d[i].permitted &= ~m;
		d[i].inheritable &= ~m;
	}
	if (syscall(SYS_capset, &h, d))
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	eff = d[0].effective | (unsigned long long)d[1].effective << 32;
	/* The dropped ones are gone, the others of the three are still there. */
	if ((eff & drop) || (~drop & (NA | BPF | SA) & ~eff))
		return -EPROTO;
	return 0;
}

/* In a child: become the caller of a row. */
static int enter_caller(const struct row *rw, struct result *res)
{
	const char *what = NULL;
	int err;

	if (rw->netns == NS_USER && setns(user_net_fd, CLONE_NEWNET))
		what = "setns(CLONE_NEWNET)";
	else if (rw->netns == NS_FRESH && unshare(CLONE_NEWNET))
		what = "unshare(CLONE_NEWNET)";
	else if (rw->userns && setns(user_ns_fd, CLONE_NEWUSER))
		what = "setns(CLONE_NEWUSER)";
	if (!what && rw->drop) {
		err = drop_caps(rw->drop);
		if (err) {
			errno = -err;
			what = "capset";
		}
	}
	if (!what)
		return 0;
	res->broken = 1;
	snprintf(res->msg, sizeof(res->msg), "%s: %s", what,
		 errno == EPROTO ? "capabilities not as asked afterwards" :
		 strerror(errno));
	return -1;
}

/* ---- the cells ---- */

static int prog_for(int attach_type)
{
	return attach_type == BPF_NETKIT_PEER ? prog_peer : prog_pri;
}

/* In the child: the operation itself. */
static void do_op(const struct row *rw, int op, __u32 want_id,
		  struct result *res)
{
	const struct dev *d = &devs[rw->dev];
	int fd = prog_for(rw->attach_type), ret;
	struct bpf_link_info info;
	union bpf_attr attr;
	__u32 ids[4] = {};

	switch (op) {
	case OP_LOAD:
	case OP_LOAD_SF:
		ret = op == OP_LOAD ?
		      prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY, "nkpriv_load") :
		      prog_load(BPF_PROG_TYPE_SOCKET_FILTER, 0, "nkpriv_sf");
		if (ret < 0) {
			res->err = errno;
			break;
		}
		close(ret);
		break;
	case OP_CREATE:
		res->err = -nl_create(CREATE_PRI, CREATE_PEER, 0, 0, res->msg,
				      sizeof(res->msg));
		break;
	case OP_CHANGE:
		res->err = -nl_set_policy(d->ifindex, NETKIT_DROP, res->msg,
					  sizeof(res->msg));
		break;
	case OP_ATTACH:
		res->err = -prog_attach(d->ifindex, rw->attach_type, fd);
		break;
	case OP_LINK:
		memset(&attr, 0, sizeof(attr));
		attr.link_create.prog_fd = fd;
		attr.link_create.target_ifindex = d->ifindex;
		attr.link_create.attach_type = rw->attach_type;
		ret = nk_bpf(BPF_LINK_CREATE, &attr);
		if (ret < 0) {
			res->err = errno;
			break;
		}
		/* It is a netkit link on the device (ifindex of the primary). */
		memset(&info, 0, sizeof(info));
		memset(&attr, 0, sizeof(attr));
		attr.info.bpf_fd = ret;
		attr.info.info_len = sizeof(info);
		attr.info.info = (unsigned long)&info;
		if (nk_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
			snprintf(res->msg, sizeof(res->msg),
				 "link info: %s", strerror(errno));
		else if (info.type != BPF_LINK_TYPE_NETKIT ||
			 info.netkit.ifindex != (__u32)d->ifindex ||
			 info.netkit.attach_type != (__u32)rw->attach_type)
			snprintf(res->msg, sizeof(res->msg),
				 "link info: type %u ifindex %u attach_type %u",
				 info.type, info.netkit.ifindex,
				 info.netkit.attach_type);
		close(ret);
		break;
	case OP_DETACH_FD:
	case OP_DETACH_NOFD:
		res->err = -prog_detach(d->ifindex, rw->attach_type,
					op == OP_DETACH_FD ? fd : 0);
		break;
	case OP_QUERY:
		ret = prog_query(d->ifindex, rw->attach_type, ids, 4);
		if (ret < 0)
			res->err = -ret;
		else if (ret != 1 || ids[0] != want_id)
			snprintf(res->msg, sizeof(res->msg),
				 "query: %d programs, first id %u, expected 1 program, id %u",
				 ret, ids[0], want_id);
		break;
	}
}

static struct result run_child(const struct row *rw, int op, __u32 want_id)
{
	struct result res = {};
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(pfd[0]);
		if (!enter_caller(rw, &res))
			do_op(rw, op, want_id, &res);
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	n = read(pfd[0], &res, sizeof(res));
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || n != sizeof(res) ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		memset(&res, 0, sizeof(res));
		res.broken = 1;
		snprintf(res.msg, sizeof(res.msg), "child died (status 0x%x)",
			 status);
	}
	return res;
}

/*
 * Mainline's answer for a caller and an operation, from mainline's code
 * (v6.12 + ae23bc81ddf7 "bpf: Fix tcx/netkit detach permissions when prog
 * fd isn't given"):
 * - capable() and bpf_capable() look at the initial user namespace, so
 *   the root of a user namespace has none of these;
 *   bpf_capable() = CAP_BPF || CAP_SYS_ADMIN, bpf_net_capable() =
 *   CAP_NET_ADMIN || CAP_SYS_ADMIN (kernel/bpf/syscall.c,
 *   bpf_token_capable() without a token).
 * - BPF_PROG_LOAD (bpf_prog_load()): EPERM if unprivileged_bpf_disabled and
 *   !bpf_capable(); EPERM for types other than socket filter/cgroup skb
 *   without bpf_capable(); EPERM for net admin types (sched_cls) without
 *   CAP_NET_ADMIN || CAP_SYS_ADMIN.
 * - RTM_NEWLINK (rtnetlink_rcv_msg()): netlink_net_capable(CAP_NET_ADMIN),
 *   i.e. CAP_NET_ADMIN in the user ns owning the caller's netns, else
 *   EPERM; an ifindex that is not in the caller's netns gives ENODEV
 *   (rtnl_newlink()); netkit_change_link() refuses a peer with EACCES.
 * - BPF_PROG_ATTACH, BPF_LINK_CREATE, BPF_PROG_DETACH with an fd: no
 *   capability check, the program fd is the permission; then
 *   netkit_dev_fetch() in the caller's netns: ENODEV if the ifindex is not
 *   there, EACCES for a peer device.
 * - BPF_PROG_DETACH without fd: bpf_mprog_detach_empty() ->
 *   bpf_net_capable(), else EPERM, before netkit_dev_fetch().
 * - BPF_PROG_QUERY (bpf_prog_query()): bpf_net_capable(), else EPERM, first.
 */
static int mainline_answer(const struct row *rw, int op)
{
	const struct dev *d = &devs[rw->dev];
	bool has_na = !rw->userns && !(rw->drop & NA);
	bool has_bpf = !rw->userns && !(rw->drop & BPF);
	bool has_sa = !rw->userns && !(rw->drop & SA);
	bool bpf_cap = has_bpf || has_sa, net_cap = has_na || has_sa;
	/* CAP_NET_ADMIN over the caller's netns: init root has it over every
	 * netns; the user namespace's root only over the netns it owns.
	 */
	bool nl_cap = rw->userns ? rw->netns == NS_USER : has_na;
	bool reachable = rw->netns == d->netns;
	int dev_err = !reachable ? ENODEV : d->peer ? EACCES : 0;

	switch (op) {
	case OP_LOAD:
		return bpf_cap && net_cap ? 0 : EPERM;
	case OP_LOAD_SF:
		return bpf_cap || !unpriv_bpf_disabled ? 0 : EPERM;
	case OP_CREATE:
		return nl_cap ? 0 : EPERM;
	case OP_CHANGE:
		return nl_cap ? dev_err : EPERM;
	case OP_ATTACH:
	case OP_LINK:
	case OP_DETACH_FD:
		return dev_err;
	case OP_DETACH_NOFD:
		return net_cap ? dev_err : EPERM;
	case OP_QUERY:
		/* The one cell where this kernel is not mainline: 6.1's
		 * bpf_prog_query() asks for capable(CAP_NET_ADMIN) for every
		 * program type; mainline accepts CAP_SYS_ADMIN too since the
		 * BPF token series ("bpf: align CAP_NET_ADMIN checks with
		 * bpf_capable() approach", 6.9). That check is 6.1's own, for
		 * all users of BPF_PROG_QUERY; the series leaves it alone
		 * (see patches/followup/0024).
		 */
		return has_na ? dev_err : EPERM;
	}
	return -1;
}

/* Root: programs attached at the primary of the cell's device, or -errno. */
static int root_count(const struct row *rw)
{
	const struct dev *d = &devs[rw->dev];
	int n;

	root_enter(d->netns);
	n = prog_query(d->pri_ifindex, rw->attach_type, NULL, 0);
	root_enter(NS_INIT);
	return n;
}

static char cell_text[NR_ROWS][NR_OPS][16];

static void run_cell(int ri, int op)
{
	const struct row *rw = &rows[ri];
	const struct dev *d = &devs[rw->dev];
	int fd = prog_for(rw->attach_type), want = mainline_answer(rw, op);
	int count, want_count = 0, pol, want_pol, i;
	char check[240] = "";
	struct result res;
	bool ok;

	/* Setup: the cells that remove or list a program find one there. */
	if (op == OP_DETACH_FD || op == OP_DETACH_NOFD || op == OP_QUERY) {
		root_enter(d->netns);
		if (prog_attach(d->pri_ifindex, rw->attach_type, fd))
			die("setup BPF_PROG_ATTACH");
		root_enter(NS_INIT);
	}

	res = run_child(rw, op, prog_id(fd));

	/* The effect, as root. */
	if (op == OP_ATTACH || op == OP_DETACH_FD || op == OP_DETACH_NOFD ||
	    op == OP_QUERY || op == OP_LINK) {
		if (op == OP_ATTACH)
			want_count = !res.err;
		else if (op == OP_QUERY)
			want_count = 1;
		else if (op == OP_DETACH_FD || op == OP_DETACH_NOFD)
			want_count = !!res.err;
		/* A link goes with its last fd, closed when the child exited;
		 * allow the release a moment.
		 */
		for (i = 0; i < 100; i++) {
			count = root_count(rw);
			if (count == want_count || op != OP_LINK)
				break;
			usleep(10000);
		}
		if (count != want_count)
			snprintf(check, sizeof(check),
				 "%d programs attached afterwards, expected %d",
				 count, want_count);
		/* Teardown: nothing stays attached. */
		root_enter(d->netns);
		while (prog_query(d->pri_ifindex, rw->attach_type, NULL, 0) > 0)
			if (prog_detach(d->pri_ifindex, rw->attach_type, 0))
				die("teardown BPF_PROG_DETACH");
		root_enter(NS_INIT);
	}
	if (op == OP_CHANGE) {
		root_enter(d->netns);
		want_pol = !res.err && !d->peer ? NETKIT_DROP : NETKIT_PASS;
		pol = nl_get_policy(d->ifindex);
		if (pol != want_pol)
			snprintf(check, sizeof(check),
				 "policy afterwards %d, expected %d", pol, want_pol);
		if (pol != NETKIT_PASS &&
		    nl_set_policy(d->ifindex, NETKIT_PASS, NULL, 0))
			die("teardown: policy back to pass");
		root_enter(NS_INIT);
	}
	if (op == OP_CREATE && rw->netns != NS_FRESH) {
		root_enter(rw->netns);
		count = !!if_nametoindex(CREATE_PRI) + !!if_nametoindex(CREATE_PEER);
		if (count != (res.err ? 0 : 2))
			snprintf(check, sizeof(check),
				 "%d of %s/%s exist afterwards, expected %d", count,
				 CREATE_PRI, CREATE_PEER, res.err ? 0 : 2);
		if (count && nl_del(0, CREATE_PRI))
			die("teardown: delete " CREATE_PRI);
		root_enter(NS_INIT);
	}
	/* The refusal of a peer's change says why (netkit_change_link()). */
	if (op == OP_CHANGE && want == EACCES && res.err == EACCES &&
	    strcmp(res.msg, "netkit link settings can be changed only through the primary device"))
		snprintf(check, sizeof(check), "extack \"%s\"", res.msg);

	/* A query or link that worked reports in msg what was wrong with it. */
	if ((op == OP_QUERY || op == OP_LINK) && !res.err && res.msg[0] && !check[0])
		snprintf(check, sizeof(check), "the answer was wrong");
	ok = !res.broken && res.err == want && !check[0];
	if (res.broken)
		snprintf(cell_text[ri][op], sizeof(cell_text[ri][op]), "BROKEN!");
	else
		snprintf(cell_text[ri][op], sizeof(cell_text[ri][op]), "%s%s",
			 errname(res.err), ok ? "" : "!");
	printf("%s - [%s] %s: %s", ok ? "ok" : "not ok", rw->name, op_name[op],
	       res.broken ? "not run" : errname(res.err));
	if (res.msg[0])
		printf(" (%s)", res.msg);
	if (!ok)
		printf(", expected %s", errname(want));
	if (check[0])
		printf("; %s", check);
	printf("\n");
	if (!ok)
		failures++;
}

static void print_table(void)
{
	int ri, op;

	printf("\nnetkit privilege matrix (allow or errno; '-' = not run; '!' = differs from mainline,\n"
	       "whose answer the cell's not ok line gives)\n");
	printf("%-40s", "caller -> device ifindex");
	for (op = 0; op < NR_OPS; op++)
		printf(" %-9s", op_col[op]);
	printf("\n");
	for (ri = 0; ri < NR_ROWS; ri++) {
		char label[64];

		snprintf(label, sizeof(label), "%s -> %d", rows[ri].name,
			 devs[rows[ri].dev].ifindex);
		printf("%-40s", label);
		for (op = 0; op < NR_OPS; op++)
			printf(" %-9s", cell_text[ri][op][0] ? cell_text[ri][op] : "-");
		printf("\n");
	}
	printf("devices: %d/%d primary/peer in the initial netns, %d/%d in the user namespace's netns;\n"
	       "load-sf: socket filter load, with kernel.unprivileged_bpf_disabled = %d\n\n",
	       IDX_PRI, IDX_PEER, IDX_UPRI, IDX_UPEER, unpriv_bpf_disabled);
}

/* The user namespace and its netns, held by fds; a helper made them. */
static void make_userns(void)
{
	int up[2], down[2];
	char path[64], c;
	pid_t pid;
	int fd;

	if (pipe(up) || pipe(down))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(up[0]);
		close(down[1]);
		c = unshare(CLONE_NEWUSER | CLONE_NEWNET) ? 'E' : 'U';
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		/* Wait until the parent holds the namespaces. */
		if (read(down[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) != 1 || c != 'U') {
		errno = EPROTO;
		die("helper: unshare(CLONE_NEWUSER | CLONE_NEWNET)");
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1\n", 6) != 6)
		die("uid_map");
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1\n", 6) != 6)
		die("gid_map");
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	user_ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	user_net_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (user_ns_fd < 0 || user_net_fd < 0)
		die("open /proc/PID/ns");
	close(down[1]);
	close(up[0]);
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
}

static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f || fscanf(f, "%d", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

int main(void)
{
	int ri, op, cells = 0, left;
	struct timespec t0, t1;
	char msg[200];
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unpriv_bpf_disabled = read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled");
	printf("# kernel.unprivileged_bpf_disabled = %d\n", unpriv_bpf_disabled);

	init_net_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (init_net_fd < 0)
		die("/proc/self/ns/net");
	make_userns();

	/* The devices; root creates them before the matrix runs. */
	err = nl_create("nkpv0", "nkpv1", IDX_PRI, IDX_PEER, msg, sizeof(msg));
	if (err) {
		errno = -err;
		printf("# %s\n", msg);
		die("create nkpv0/nkpv1 in the initial netns");
	}
	root_enter(NS_USER);
	err = nl_create("nkpu0", "nkpu1", IDX_UPRI, IDX_UPEER, msg, sizeof(msg));
	if (err) {
		errno = -err;
		printf("# %s\n", msg);
		die("create nkpu0/nkpu1 in the user namespace's netns");
	}
	root_enter(NS_INIT);

	/* Loaded by root, inherited by every child. */
	prog_pri = prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY, "nkpriv_pri");
	prog_peer = prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PEER, "nkpriv_peer");
	if (prog_pri < 0 || prog_peer < 0)
		die("BPF_PROG_LOAD as root");

	for (ri = 0; ri < NR_ROWS; ri++)
		for (op = 0; op < NR_OPS; op++)
			if (rows[ri].ops & (1u << op)) {
				run_cell(ri, op);
				cells++;
			}

	print_table();

	/* Cleanup, and check that nothing is left. */
	close(prog_pri);
	close(prog_peer);
	if (nl_del(IDX_PRI, NULL))
		die("delete nkpv0");
	root_enter(NS_USER);
	if (nl_del(IDX_UPRI, NULL))
		die("delete nkpu0");
	left = !!if_nametoindex("nkpu0") + !!if_nametoindex("nkpu1") +
	       !!if_nametoindex(CREATE_PRI) + !!if_nametoindex(CREATE_PEER);
	root_enter(NS_INIT);
	left += !!if_nametoindex("nkpv0") + !!if_nametoindex("nkpv1") +
		!!if_nametoindex(CREATE_PRI) + !!if_nametoindex(CREATE_PEER);
	close(user_net_fd);
	close(user_ns_fd);
	close(init_net_fd);
	printf("%s - cleanup: no test device left in either netns (%d left)\n",
	       left ? "not ok" : "ok", left);
	if (left)
		failures++;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %d cells, %d failed, %.1f s\n", cells, failures,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failures ? 1 : 0;
}
