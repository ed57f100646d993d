// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-privilege: the privilege matrix of netkit's control operations.
 *
 *   netkit-privilege
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
#include <unistd.h>
#include <linux/capability.h>

#include "lib/netkit-lib.h"

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

#define NA		NK_CAPB(CAP_NET_ADMIN)
#define BPF		NK_CAPB(CAP_BPF)
#define SA		NK_CAPB(CAP_SYS_ADMIN)

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

/* ---- bpf and rtnetlink, on lib/ ---- */

/*
 * The programs are "r0 = NETKIT_PASS; exit" (TC_ACT_OK for a filter: 0).
 * Requests go over a socket of their own in the current netns (nl NULL):
 * 0 or -errno, the extack of a refusal in msg.
 */

static int nl_create(const char *name, const char *peer, int ifindex,
		     int peer_ifindex, char *msg, size_t msglen)
{
	struct nk_pair_spec sp = NK_PAIR_SPEC(name, peer);
	struct nk_msg m;

	sp.ifindex = ifindex;
	sp.peer_ifindex = peer_ifindex;
	sp.mode = NETKIT_L3;
	sp.policy = sp.peer_policy = NETKIT_PASS;
	nk_netkit_pair(&m, NLM_F_ACK, &sp);
	return nk_nl_talk(NULL, &m, msg, msglen);
}

/* RTM_NEWLINK on an existing device: set its IFLA_NETKIT_POLICY. */
static int nl_set_policy(int ifindex, __u32 policy, char *msg, size_t msglen)
{
	struct nk_msg m;

	nk_netkit_begin(&m, RTM_NEWLINK, NLM_F_ACK, ifindex, NULL);
	nk_put_u32(&m, IFLA_NETKIT_POLICY, policy);
	nk_nest_end_all(&m);
	return nk_nl_talk(NULL, &m, msg, msglen);
}

static void create_pair(const char *name, const char *peer, int ifindex,
			int peer_ifindex, const char *where)
{
	char msg[200], what[100];
	int err = nl_create(name, peer, ifindex, peer_ifindex, msg, sizeof(msg));

	if (err) {
		errno = -err;
		printf("# %s\n", msg);
		snprintf(what, sizeof(what), "create %s/%s in %s", name, peer, where);
		die(what);
	}
}

static __u32 prog_id(int fd)
{
	__u32 id = nk_prog_id(fd);

	if (!id)
		die("BPF_OBJ_GET_INFO_BY_FD");
	return id;
}

/* ---- namespaces and capabilities ---- */

/* Move this (single-threaded, root) process to a netns. */
static void root_enter(int ns)
{
	if (setns(ns == NS_USER ? user_net_fd : init_net_fd, CLONE_NEWNET))
		die("setns(CLONE_NEWNET)");
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
		err = nk_caps_drop(rw->drop, ~rw->drop & (NA | BPF | SA));
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
	__u32 ids[4] = {};

	switch (op) {
	case OP_LOAD:
	case OP_LOAD_SF:
		ret = op == OP_LOAD ?
		      nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY,
				   NETKIT_PASS, "nkpriv_load") :
		      nk_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, 0, NETKIT_PASS,
				   "nkpriv_sf");
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
		res->err = -nk_prog_attach(d->ifindex, rw->attach_type, fd, 0, 0, 0, 0);
		break;
	case OP_LINK:
		ret = nk_link_create(d->ifindex, rw->attach_type, fd, 0, 0, 0);
		if (ret < 0) {
			res->err = errno;
			break;
		}
		/* It is a netkit link on the device (ifindex of the primary). */
		if (nk_link_info(ret, &info))
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
		res->err = -nk_prog_detach(d->ifindex, rw->attach_type,
					   op == OP_DETACH_FD ? fd : 0, 0, 0, 0);
		break;
	case OP_QUERY:
		ret = nk_prog_count(d->ifindex, rw->attach_type, ids, 4);
		if (ret < 0)
			res->err = -ret;
		else if (ret != 1 || ids[0] != want_id)
			snprintf(res->msg, sizeof(res->msg),
				 "query: %d programs, first id %u, expected 1 program, id %u",
				 ret, ids[0], want_id);
		break;
	}
}

struct cell {
	const struct row *rw;
	int op;
	__u32 want_id;
};

static void child(void *arg, void *r)
{
	const struct cell *c = arg;

	if (!enter_caller(c->rw, r))
		do_op(c->rw, c->op, c->want_id, r);
}

static struct result run_child(const struct row *rw, int op, __u32 want_id)
{
	struct cell c = { rw, op, want_id };
	struct result res = {};
	int status, err;

	err = nk_child(child, &c, &res, sizeof(res), &status);
	if (err < 0) {
		errno = -err;
		die("fork");
	}
	if (err) {
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
	n = nk_prog_count(d->pri_ifindex, rw->attach_type, NULL, 0);
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
	struct nk_link l;
	bool ok;

	/* Setup: the cells that remove or list a program find one there. */
	if (op == OP_DETACH_FD || op == OP_DETACH_NOFD || op == OP_QUERY) {
		root_enter(d->netns);
		if (nk_prog_attach(d->pri_ifindex, rw->attach_type, fd, 0, 0, 0, 0))
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
		while (nk_prog_count(d->pri_ifindex, rw->attach_type, NULL, 0) > 0)
			if (nk_prog_detach(d->pri_ifindex, rw->attach_type, 0, 0, 0, 0))
				die("teardown BPF_PROG_DETACH");
		root_enter(NS_INIT);
	}
	if (op == OP_CHANGE) {
		root_enter(d->netns);
		want_pol = !res.err && !d->peer ? NETKIT_DROP : NETKIT_PASS;
		/* its IFLA_NETKIT_POLICY (-1: none), or -errno */
		pol = nk_link_get(NULL, d->ifindex, NULL, &l) ?: l.policy;
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
		if (count && nk_link_del(NULL, if_nametoindex(CREATE_PRI)))
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
	nk_report(ok, "[%s] %s: %s%s%s%s%s%s%s%s", rw->name, op_name[op],
		  res.broken ? "not run" : errname(res.err), res.msg[0] ? " (" : "",
		  res.msg, res.msg[0] ? ")" : "", ok ? "" : ", expected ",
		  ok ? "" : errname(want), check[0] ? "; " : "", check);
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

int main(void)
{
	int ri, op, cells = 0, left;
	double t0 = nk_now();
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (nk_read_int("/proc/sys/kernel/unprivileged_bpf_disabled", &unpriv_bpf_disabled))
		die("/proc/sys/kernel/unprivileged_bpf_disabled");
	printf("# kernel.unprivileged_bpf_disabled = %d\n", unpriv_bpf_disabled);

	init_net_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (init_net_fd < 0)
		die("/proc/self/ns/net");
	/* The user namespace and its netns, held by fds; a helper made them. */
	err = nk_userns_new(&user_ns_fd, &user_net_fd);
	if (err) {
		errno = -err;
		die("a user namespace and its netns");
	}

	/* The devices; root creates them before the matrix runs. */
	create_pair("nkpv0", "nkpv1", IDX_PRI, IDX_PEER, "the initial netns");
	root_enter(NS_USER);
	create_pair("nkpu0", "nkpu1", IDX_UPRI, IDX_UPEER, "the user namespace's netns");
	root_enter(NS_INIT);

	/* Loaded by root, inherited by every child. */
	prog_pri = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY,
				NETKIT_PASS, "nkpriv_pri");
	prog_peer = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PEER,
				 NETKIT_PASS, "nkpriv_peer");
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
	if (nk_link_del(NULL, IDX_PRI))
		die("delete nkpv0");
	root_enter(NS_USER);
	if (nk_link_del(NULL, IDX_UPRI))
		die("delete nkpu0");
	left = !!if_nametoindex("nkpu0") + !!if_nametoindex("nkpu1") +
	       !!if_nametoindex(CREATE_PRI) + !!if_nametoindex(CREATE_PEER);
	root_enter(NS_INIT);
	left += !!if_nametoindex("nkpv0") + !!if_nametoindex("nkpv1") +
		!!if_nametoindex(CREATE_PRI) + !!if_nametoindex(CREATE_PEER);
	close(user_net_fd);
	close(user_ns_fd);
	close(init_net_fd);
	nk_report(!left, "cleanup: no test device left in either netns (%d left)", left);

	printf("# %d cells, %d failed, %.1f s\n", cells, nk_failures, nk_now() - t0);
	return nk_failures ? 1 : 0;
}
