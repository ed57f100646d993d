// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-faultinject: make the allocations of netkit's kernel entry points fail
 * one after the other, and check that nothing is left half done.
 *
 *   netkit-faultinject [-0] [-v] [-t SECONDS] [-n MAX_N] [ENTRY...]
 *   netkit-faultinject -c
 *   netkit-faultinject -l
 *   netkit-faultinject -S
 *
 * For each entry point (all of them unless some are named; -l lists
 * them), the call is made with the calling thread's fail-nth
 * (/proc/thread-self/fail-nth, Documentation/fault-injection/) set to
 * n = 1, 2, ... so that its n-th allocation fails, until a call succeeds
 * without the fault being injected (fail-nth reads 0 after the call when
 * the fault was injected, else n minus the allocations it passed). For
 * every n:
 *  - a failed call must return -1 with ENOMEM or ENOBUFS (other errnos
 *    only where the table explained[] says why) and leave the state as it
 *    was: no new device (the ifindexes and names of an RTM_GETLINK dump),
 *    the same policies, the same programs and links in BPF_PROG_QUERY,
 *    the same BPF_LINK_GET_NEXT_ID list, and no reference on the program
 *    it was given (once its fd is closed, the program id is gone);
 *  - a call that succeeds (with or without an injected fault, which
 *    some allocations survive) must have done all of its work, which is
 *    checked, then undone for the next n;
 *  - an RTM_* request whose ack could not be allocated (recv() fails with
 *    ENOBUFS, netlink_ack()) must have done all of its work.
 * The kernel log (/dev/kmsg) is read after every call: the stack that
 * failslab and fail_page_alloc print with verbose=2 gives the allocation
 * site, the first frame that is not an allocator function, counted per
 * entry point and in total, and for each errno other than ENOMEM. A dump
 * ends with its " </TASK>" line; records of other CPUs that land amid it
 * (printk serialises only the dump_stack() callers) are read as records of
 * their own, and a dump whose end is not there yet when the call returns
 * is waited for (0.5 s). A stack trace or report that no injected fault
 * explains (WARNING, BUG, KASAN, lockdep, ...) fails, and so does a fault
 * injection report line whose level would put it on the console (the
 * caller sets the levels). A fault injection stack without a caller of
 * the allocator is printed and counted as not attributed, but does not
 * fail by itself - the call's result and the checks of the state decide,
 * and an errno other than ENOMEM/ENOBUFS that only its site could explain
 * fails; an entry point none of whose stacks could be attributed fails
 * (the stacks are not read right).
 *
 * Entry points: RTM_NEWLINK creating a netkit pair with and without
 * IFLA_NETKIT_PEER_INFO, RTM_NEWLINK changing the policies of an existing
 * pair that is up (changelink), RTM_DELLINK of a pair that is up and has
 * a program and a link,
 * BPF_PROG_ATTACH/BPF_PROG_DETACH/BPF_PROG_QUERY and BPF_LINK_CREATE/
 * BPF_LINK_UPDATE/BPF_LINK_DETACH on netkit devices, and the attachment
 * that fills bpf_mprog (BPF_PROG_ATTACH and BPF_LINK_CREATE of the 63rd
 * program, bpf_mprog_max()), after which a 64th must fail with ERANGE as
 * in mainline (kernel/bpf/mprog.c, bpf_mprog_attach()), and RTM_NEWQDISC
 * of a clsact and of an ingress qdisc on a netkit device (clsact_init()
 * and ingress_init() allocate the tcx entries that tcx programs share
 * with them); with -T (a kernel that
 * carries tcx) also BPF_PROG_ATTACH and BPF_LINK_CREATE of tcx programs
 * on a netkit device (the tcx-* entry points, run only when named or
 * with -T).
 *
 * -0 makes each call once without fault injection (the same checks; for
 * kernels without CONFIG_FAULT_INJECTION). -t caps the run time of the
 * fault loops (default 300 s; reaching it is a failure), -n the n of one
 * entry point (default 5000). -v prints every kernel log line read that
 * is not part of a fault injection stack. -c checks that no netkit
 * device, no netkit link and no program of this tool (named nkfi) is
 * left. Devices are named nkfi*, programs nkfi; the debugfs settings
 * (ignore-gfp-wait, ...) are up to the caller (netkit_faultinject.sh).
 * -S is the reader's self-test, without the kernel: planted /dev/kmsg
 * records (a recorded dump with other CPUs' records amid it, cut short,
 * without a caller, with a WARNING or a stray stack, ...) must give the
 * site, the problems and the errno verdict each case expects.
 * Prints "ok - ..." / "not ok - ..." lines and "# ..." notes; exits 1 if
 * a check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>

#include "lib/netkit-lib.h"

#define MPROG_MAX	63	/* bpf_mprog_max(): BPF_MPROG_MAX - 1 */
#define MAX_ERRNO	256
#define MAX_SITES	256
#define NR_LINKS	128

static int fault = 1, verbose;
static int max_n = 5000;
static double deadline, time_cap = 300;
static struct nk_nl nl = { .fd = -1 };
static char why[512];

/* Sets why (the reason a check failed) and returns 0. */
static int whyf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return 0;
}

/* ---- statistics of one entry point ---- */

struct stats {
	int tries, injected, failed, inj_ok, ack_lost, problems;
	int err[MAX_ERRNO];		/* failed calls, by errno */
	int explained[8];		/* by index in explained[] */
	int send_err[MAX_ERRNO];	/* of which: send() of the request */
	struct nk_km_count km;		/* what the kernel log showed */
	int nerrsites;
	struct {
		int err, count;
		char site[64];
	} errsites[MAX_SITES];		/* failed calls: errno and site */
	int points;			/* fault points of the last call */
};

static struct stats *st;	/* the current entry point's */
static const char *ep_name = "setup";
static int cur_n;

static void vnote(const char *fmt, va_list ap)
{
	printf("# %s n=%d: ", ep_name, cur_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

/* A line about the call that is no failure. */
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

static void problem(const char *fmt, ...)
{
	va_list ap;

	if (st)
		st->problems++;
	if (st && st->problems > 10) {
		if (st->problems == 11)
			printf("# %s: more problems, not shown\n", ep_name);
		return;
	}
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* ---- the kernel log (lib/kmsg.c) ---- */

/* console_loglevel 8 until main() reads it */
static struct nk_kmsg km = {
	.fd = -1, .con_level = 8, .problem = problem, .note = note,
};

static void kmsg_drain(void)
{
	km.cur = st ? &st->km : NULL;
	nk_kmsg_drain(&km);
}

/* ---- rtnetlink, on lib/ ---- */

enum { CALL_OK, CALL_FAIL, CALL_ACK_LOST };

struct outcome {
	int res;		/* CALL_* */
	int err;		/* errno of a failure */
	int in_send;		/* the failure came from send() */
	int injected;
	int left;		/* fail-nth after the call */
	char ext[256];		/* extack message */
};

/* Sends the request with fail-nth at n (0: none), reads the ack. */
static void nl_call(struct nk_msg *m, int fault_n, struct outcome *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	nk_fail_nth_arm(fault_n);
	rc = nk_nl_send(&nl, m);
	o->err = errno;
	o->injected = nk_fail_nth_disarm(fault_n, &o->left);
	if (rc < 0) {
		o->res = CALL_FAIL;
		o->in_send = 1;
		return;
	}
	rc = nk_nl_answer(&nl, o->ext, sizeof(o->ext), NULL, 0);
	if (nl.recv_err) {
		o->err = nl.recv_err;
		o->res = o->err == ENOBUFS ? CALL_ACK_LOST : CALL_FAIL;
		snprintf(o->ext, sizeof(o->ext), "recv: %s", nk_errname(o->err));
		return;
	}
	o->err = -rc;
	o->res = o->err ? CALL_FAIL : CALL_OK;
}

struct links {
	int n;
	struct nk_link l[NR_LINKS];
};

/* All devices of the namespace, by an RTM_GETLINK dump. */
static int links_get(struct links *ls)
{
	int n = nk_links_dump(&nl, ls->l, NR_LINKS, 0);

	ls->n = n < 0 ? 0 : n < NR_LINKS ? n : NR_LINKS;
	if (n < 0)
		return whyf("RTM_GETLINK dump: %s", strerror(-n));
	return 1;
}

static struct nk_link *by_name(struct links *ls, const char *name)
{
	int i;

	for (i = 0; i < ls->n; i++)
		if (!strcmp(ls->l[i].name, name))
			return &ls->l[i];
	return NULL;
}

static struct nk_link *by_index(struct links *ls, int ifindex)
{
	int i;

	for (i = 0; i < ls->n; i++)
		if (ls->l[i].ifindex == ifindex)
			return &ls->l[i];
	return NULL;
}

/* The devices of b that are not in a (same ifindex and name): count, names. */
static int links_new(struct links *a, struct links *b, char *names, size_t size)
{
	struct nk_link *l;
	size_t len = 0;
	int i, n = 0;

	if (names && size)
		names[0] = 0;
	for (i = 0; i < b->n; i++) {
		l = by_index(a, b->l[i].ifindex);
		if (l && !strcmp(l->name, b->l[i].name))
			continue;
		n++;
		if (names && len < size)
			len += snprintf(names + len, size - len, " %s(%d)",
					b->l[i].name, b->l[i].ifindex);
	}
	return n;
}

static int links_same(struct links *a, struct links *b)
{
	char added[256], gone[256];
	int na = links_new(a, b, added, sizeof(added));
	int ng = links_new(b, a, gone, sizeof(gone));

	if (!na && !ng)
		return 1;
	return whyf("devices changed: new:%s gone:%s", na ? added : " -", ng ? gone : " -");
}

/* The outcome of a request as check: 1, or 0 with why set to what
 * (printf-like) and the answer.
 */
static int nl_outcome(struct nk_msg *m, int fault_n, struct outcome *o,
		      const char *fmt, ...)
{
	struct outcome tmp;
	char what[64];
	va_list ap;

	if (!o)
		o = &tmp;
	nl_call(m, fault_n, o);
	if (o->res == CALL_OK)
		return 1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return whyf("%s: %s%s%s", what, nk_errname(o->err), o->ext[0] ? ": " : "",
		    o->ext);
}

static int nk_create(const char *name, const char *peer, int with_data,
		     int mode, int pol, int peer_pol, int fault_n,
		     struct outcome *o)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0);
	nk_put_str(&m, IFLA_IFNAME, name);
	nk_nest(&m, IFLA_LINKINFO);
	nk_put(&m, IFLA_INFO_KIND, "netkit", 6);
	if (with_data) {
		nk_nest(&m, IFLA_INFO_DATA);
		nk_put_u32(&m, IFLA_NETKIT_MODE, mode);
		nk_put_u32(&m, IFLA_NETKIT_POLICY, pol);
		nk_put_u32(&m, IFLA_NETKIT_PEER_POLICY, peer_pol);
		if (peer)
			nk_netkit_peer(&m, 0, peer);
	}
	nk_nest_end_all(&m);
	return nl_outcome(&m, fault_n, o, "RTM_NEWLINK %s", name);
}

static int nk_change(int ifindex, int pol, int peer_pol, int fault_n,
		     struct outcome *o)
{
	struct nk_msg m;

	nk_netkit_begin(&m, RTM_NEWLINK, NLM_F_ACK, ifindex, NULL);
	nk_put_u32(&m, IFLA_NETKIT_POLICY, pol);
	nk_put_u32(&m, IFLA_NETKIT_PEER_POLICY, peer_pol);
	nk_nest_end_all(&m);
	return nl_outcome(&m, fault_n, o, "RTM_NEWLINK (change) %d", ifindex);
}

static int nk_del(int ifindex, int fault_n, struct outcome *o)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_DELLINK, NLM_F_ACK, ifindex);
	return nl_outcome(&m, fault_n, o, "RTM_DELLINK %d", ifindex);
}

/* Sets IFF_UP (no injection). */
static int nk_up(int ifindex)
{
	struct ifinfomsg *ifi;
	struct nk_msg m;

	ifi = nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK, ifindex);
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_outcome(&m, 0, NULL, "set %d up", ifindex);
}

/* Creates a pair, both up. */
static int nk_create_up(const char *name, const char *peer)
{
	struct links ls;

	if (!nk_create(name, peer, 1, NETKIT_L3, NETKIT_PASS, NETKIT_PASS, 0, NULL) ||
	    !links_get(&ls) || !by_name(&ls, name) || !by_name(&ls, peer))
		return 0;
	return nk_up(by_name(&ls, peer)->ifindex) && nk_up(by_name(&ls, name)->ifindex);
}

/* The device's ifindex, 0 if there is none. */
static int ifindex_of(const char *name)
{
	struct links ls;
	struct nk_link *l;

	if (!links_get(&ls))
		return 0;
	l = by_name(&ls, name);
	return l ? l->ifindex : 0;
}

static int del_if_there(const char *name)
{
	int idx = ifindex_of(name);

	return !idx || nk_del(idx, 0, NULL);
}

/* ---- bpf(2), on lib/ ---- */

/* bpf(2) with fail-nth at n (0: none). */
static int bpf_call(int cmd, union bpf_attr *attr, int fault_n,
		    struct outcome *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	nk_fail_nth_arm(fault_n);
	rc = nk_bpf(cmd, attr);
	o->err = errno;
	o->injected = nk_fail_nth_disarm(fault_n, &o->left);
	o->res = rc < 0 ? CALL_FAIL : CALL_OK;
	if (rc >= 0)
		o->err = 0;
	return rc;
}

static int prog_load(int type)
{
	int fd = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, type, NETKIT_NEXT, "nkfi");

	if (fd < 0)
		whyf("BPF_PROG_LOAD: %s", nk_errname(errno));
	return fd;
}

/* Closes the program's fd: nothing else may hold it. */
static int prog_release(int *fd, __u32 id, const char *what)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (!id || nk_id_gone(BPF_PROG_GET_FD_BY_ID, id))
		return 1;
	return whyf("%s program %u still exists after its fd was closed (a reference was left)",
		    what, id);
}

static int link_release(int *fd, __u32 id)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (!id || nk_id_gone(BPF_LINK_GET_FD_BY_ID, id))
		return 1;
	return whyf("link %u still exists after its fd was closed", id);
}

static int query(int ifindex, int type, struct nk_query *q)
{
	if (nk_query(ifindex, type, q))
		return whyf("BPF_PROG_QUERY: %s", nk_errname(errno));
	return 1;
}

/* The query shows exactly these programs (and links; 0: none). */
/* Mainline's numbers; the netkit-only cut's uapi does not name them. */
#define AT_TCX_INGRESS	46
#define AT_TCX_EGRESS	47
#define LT_TCX		11	/* BPF_LINK_TYPE_TCX */

static int attached(int ifindex, int type, int count, const __u32 *ids,
		    const __u32 *link_ids)
{
	const char *hook = type == BPF_NETKIT_PEER ? "peer" :
			   type == AT_TCX_INGRESS ? "tcx ingress" :
			   type == AT_TCX_EGRESS ? "tcx egress" : "primary";
	struct nk_query q;
	int i;

	if (!query(ifindex, type, &q))
		return 0;
	if ((int)q.count != count)
		return whyf("%s: %u programs attached, expected %d", hook, q.count, count);
	for (i = 0; i < count; i++) {
		if (q.prog_ids[i] != ids[i] || q.link_ids[i] != (link_ids ? link_ids[i] : 0))
			return whyf("%s: position %d has program %u link %u, expected %u link %u",
				    hook, i, q.prog_ids[i], q.link_ids[i], ids[i],
				    link_ids ? link_ids[i] : 0);
	}
	return 1;
}

/* BPF_PROG_ATTACH, BPF_PROG_DETACH (1 or 0 with why) or BPF_LINK_CREATE
 * (the fd, -1 with why), with fail-nth at fault_n.
 */
static int bpf_op(int cmd, int ifindex, int type, int fd, int fault_n,
		  struct outcome *o)
{
	static const char *const name[] = {
		[BPF_PROG_ATTACH] = "BPF_PROG_ATTACH",
		[BPF_PROG_DETACH] = "BPF_PROG_DETACH",
		[BPF_LINK_CREATE] = "BPF_LINK_CREATE",
	};
	union bpf_attr attr;
	struct outcome tmp;
	int rc;

	if (!o)
		o = &tmp;
	if (cmd == BPF_LINK_CREATE)
		nk_link_create_attr(&attr, ifindex, type, fd, 0, 0, 0);
	else
		nk_attach_attr(&attr, ifindex, type, fd, 0, 0, 0, 0);
	rc = bpf_call(cmd, &attr, fault_n, o);
	if (rc < 0)
		whyf("%s: %s", name[cmd], nk_errname(o->err));
	return cmd == BPF_LINK_CREATE ? rc : rc == 0;
}

#define prog_attach(...)	bpf_op(BPF_PROG_ATTACH, __VA_ARGS__)
#define prog_detach(...)	bpf_op(BPF_PROG_DETACH, __VA_ARGS__)
#define link_create(...)	bpf_op(BPF_LINK_CREATE, __VA_ARGS__)

static int link_info(int fd, struct bpf_link_info *info)
{
	if (nk_link_info(fd, info))
		return whyf("link info: %s", nk_errname(errno));
	return 1;
}

struct idlist {
	int n;
	__u32 ids[1024];
};

static void idlist_get(struct idlist *l)
{
	l->n = nk_all_ids(BPF_LINK_GET_NEXT_ID, l->ids, 1024);
}

static int idlist_same(struct idlist *a, struct idlist *b)
{
	if (a->n == b->n && !memcmp(a->ids, b->ids, a->n * sizeof(a->ids[0])))
		return 1;
	return whyf("BPF link ids changed: %d links before, %d after", a->n, b->n);
}

/* ---- the entry points ---- */

/*
 * setup: bring the state the call starts from (no injection);
 * call: the call, with fail-nth at n (0: none);
 * unchanged: checks the state after a failed call;
 * done: checks the state after a successful call;
 * teardown: back to the state before setup (final: the last, successful
 * call; the state may be kept for fini);
 * init/fini: before and after the loop.
 * The checks return 1 if good, else 0 with the reason in why.
 */
struct ep {
	const char *name;
	const char *what;
	int arg;
	int (*init)(int arg);
	int (*setup)(int arg);
	void (*call)(int arg, int n, struct outcome *o);
	int (*unchanged)(int arg);
	int (*done)(int arg);
	int (*teardown)(int arg, int final);
	int (*fini)(int arg);
};

static int ep_done;		/* the loop ended with a successful call */
static struct links before;	/* the devices before the call */
static struct idlist lbefore;	/* the links before the call */

static int snapshot(void)
{
	idlist_get(&lbefore);
	return links_get(&before);
}

static int devices_unchanged(void)
{
	struct links now;

	return links_get(&now) && links_same(&before, &now);
}

static int newlink_unchanged(int arg)
{
	(void)arg;
	return devices_unchanged();
}

/* RTM_NEWLINK creating a pair, arg 1: with IFLA_NETKIT_PEER_INFO. */
static int newlink_setup(int arg)
{
	(void)arg;
	return snapshot();
}

static void newlink_call(int arg, int n, struct outcome *o)
{
	if (arg)
		nk_create("nkfi1", "nkfi1p", 1, NETKIT_L2, NETKIT_PASS,
			  NETKIT_DROP, n, o);
	else
		nk_create("nkfi2", NULL, 0, 0, 0, 0, n, o);
}

static int check_pair(struct links *ls, const char *name, const char *peer,
		      int mode, int pol, int peer_pol)
{
	struct nk_link *p = by_name(ls, name), *q;

	if (!p)
		return whyf("no device %s", name);
	q = by_index(ls, p->link);
	if (!q)
		return whyf("%s: no peer device (iflink %d)", name, p->link);
	if (peer ? strcmp(q->name, peer) :
	    strncmp(q->name, "nk", 2) || strspn(q->name + 2, "0123456789") !=
	    strlen(q->name + 2) || !q->name[2])
		return whyf("%s: peer is %s, expected %s", name, q->name,
			    peer ? peer : "nk<number>");
	if (strcmp(p->kind, "netkit") || strcmp(q->kind, "netkit"))
		return whyf("%s/%s: kinds %s/%s", name, q->name, p->kind, q->kind);
	if (q->link != p->ifindex)
		return whyf("%s: iflink %d, expected %d", q->name, q->link, p->ifindex);
	if (p->primary != 1 || q->primary != 0)
		return whyf("%s/%s: primary %d/%d, expected 1/0", name, q->name,
			    p->primary, q->primary);
	if (p->mode != mode || q->mode != mode)
		return whyf("%s/%s: mode %d/%d, expected %d", name, q->name,
			    p->mode, q->mode, mode);
	/* dev_change_flags() clears IFF_NOARP in L2 mode. */
	if (!(p->flags & IFF_NOARP) != (mode == NETKIT_L2) ||
	    !(q->flags & IFF_NOARP) != (mode == NETKIT_L2))
		return whyf("%s/%s: flags %#x/%#x, IFF_NOARP must be %s in mode %d",
			    name, q->name, p->flags, q->flags,
			    mode == NETKIT_L2 ? "clear" : "set", mode);
	if (p->policy != pol || p->peer_policy != peer_pol ||
	    q->policy != peer_pol || q->peer_policy != pol)
		return whyf("%s/%s: policies %d,%d/%d,%d, expected %d,%d/%d,%d",
			    name, q->name, p->policy, p->peer_policy, q->policy,
			    q->peer_policy, pol, peer_pol, peer_pol, pol);
	return 1;
}

static int newlink_done(int arg)
{
	struct links now;
	char added[256];
	int n;

	if (!links_get(&now))
		return 0;
	n = links_new(&before, &now, added, sizeof(added));
	if (n != 2 || links_new(&now, &before, NULL, 0))
		return whyf("expected the two devices of the pair as the only change, new:%s", added);
	if (arg)
		return check_pair(&now, "nkfi1", "nkfi1p", NETKIT_L2,
				  NETKIT_PASS, NETKIT_DROP);
	return check_pair(&now, "nkfi2", NULL, NETKIT_L3, NETKIT_PASS,
			  NETKIT_PASS);
}

static int newlink_teardown(int arg, int final)
{
	(void)final;
	return del_if_there(arg ? "nkfi1" : "nkfi2") && devices_unchanged();
}

static int newlink_fini(int arg)
{
	return del_if_there(arg ? "nkfi1" : "nkfi2");
}

/* RTM_NEWLINK without NLM_F_CREATE: changelink of both policies. */
static int change_setup(int arg)
{
	struct links ls;
	struct nk_link *l;

	(void)arg;
	if (!links_get(&ls))
		return 0;
	l = by_name(&ls, "nkfi3");
	if (!l && !nk_create_up("nkfi3", "nkfi3p"))
		return 0;
	if (l && (l->policy != NETKIT_PASS || l->peer_policy != NETKIT_PASS) &&
	    !nk_change(l->ifindex, NETKIT_PASS, NETKIT_PASS, 0, NULL))
		return 0;
	return snapshot() && check_pair(&before, "nkfi3", "nkfi3p", NETKIT_L3,
					NETKIT_PASS, NETKIT_PASS);
}

static void change_call(int arg, int n, struct outcome *o)
{
	(void)arg;
	nk_change(by_name(&before, "nkfi3")->ifindex, NETKIT_DROP, NETKIT_DROP,
		  n, o);
}

static int change_check(int drop)
{
	struct links now;
	int pol = drop ? NETKIT_DROP : NETKIT_PASS;

	if (!links_get(&now) || !links_same(&before, &now) ||
	    !check_pair(&now, "nkfi3", "nkfi3p", NETKIT_L3, pol, pol))
		return 0;
	if (!(by_name(&now, "nkfi3")->flags & IFF_UP) ||
	    !(by_name(&now, "nkfi3p")->flags & IFF_UP))
		return whyf("nkfi3/nkfi3p are no longer up");
	return 1;
}

static int change_unchanged(int arg)
{
	(void)arg;
	return change_check(0);
}

static int change_done(int arg)
{
	(void)arg;
	return change_check(1);
}

static int change_fini(int arg)
{
	(void)arg;
	return del_if_there("nkfi3");
}

/*
 * RTM_NEWQDISC of a clsact (arg 0) or an ingress (arg 1) qdisc on nkfi8
 * (up): clsact_init() and ingress_init() allocate the device's tcx
 * entries (tcx/) and the qdisc's blocks. Whether the qdisc is there is
 * asked by deleting it: a failed call must leave none, a successful one
 * must have added it, with hooks that take filters (and teardown finds it
 * gone).
 */
static int clsact_call_n(int arg, int add, int fault_n, struct outcome *o)
{
	const char *kind = arg ? "ingress" : "clsact";
	struct nk_msg m;
	struct tcmsg *t;

	t = nk_msg_init(&m, add ? RTM_NEWQDISC : RTM_DELQDISC,
			NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0),
			sizeof(*t));
	t->tcm_ifindex = ifindex_of("nkfi8");
	t->tcm_handle = TC_H_MAKE(TC_H_CLSACT, 0);
	t->tcm_parent = TC_H_CLSACT;
	nk_put_str(&m, TCA_KIND, kind);
	return nl_outcome(&m, fault_n, o, "RTM_%sQDISC %s", add ? "NEW" : "DEL", kind);
}

/*
 * The fault loop fails the nth allocation of the call, n = 1, 2, ...; an
 * allocation that stays after a failed call shifts the count of the calls
 * after it, and the allocation behind it is never failed. The first
 * qdisc on the ingress side makes the device's ingress queue
 * (dev_ingress_queue_create(), kept until the device goes), and the
 * allocation behind it is ingress_init()'s and clsact_init()'s tcx entry:
 * so nkfi8 gets its queue here, from an ingress qdisc added and deleted,
 * and every call of the loop makes the same allocations.
 */
static int clsact_setup(int arg)
{
	(void)arg;
	if (!ifindex_of("nkfi8") && !nk_create_up("nkfi8", "nkfi8p"))
		return 0;
	if (!clsact_call_n(1, 1, 0, NULL) || !clsact_call_n(1, 0, 0, NULL))
		return whyf("the ingress qdisc that makes nkfi8's ingress queue could not be added and deleted");
	return snapshot();
}

static void clsact_call(int arg, int n, struct outcome *o)
{
	clsact_call_n(arg, 1, n, o);
}

static int clsact_unchanged(int arg)
{
	struct outcome o;

	if (clsact_call_n(arg, 0, 0, &o))
		return whyf("a%s qdisc is on nkfi8 after the failed call",
			    arg ? "n ingress" : " clsact");
	return devices_unchanged();
}

/*
 * A qdisc the call made works: each of its hooks (clsact's two, ingress'
 * one) takes a cls_bpf filter, which its filter block must be there for
 * (the qdisc's deletion takes the filters along).
 */
static int clsact_works(int arg)
{
	char ext[256];
	int prog, hook, err = 0;

	prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, 0, TC_ACT_OK, "nkfi_cls");
	if (prog < 0)
		return whyf("BPF_PROG_LOAD of a cls_bpf program: %s", strerror(errno));
	for (hook = 0; hook <= !arg; hook++) {
		err = nk_cls_bpf(NULL, ifindex_of("nkfi8"), hook, prog, "nkfi_cls",
				 ext, sizeof(ext));
		if (err)
			break;
	}
	close(prog);
	if (err)
		return whyf("the %s qdisc takes no filter at its %s hook: %s%s%s",
			    arg ? "ingress" : "clsact", hook ? "egress" : "ingress",
			    nk_errname(err), *ext ? ": " : "", ext);
	return 1;
}

static int clsact_done(int arg)
{
	if (!clsact_works(arg))
		return 0;
	if (!clsact_call_n(arg, 0, 0, NULL))
		return whyf("no %s qdisc on nkfi8 after the call", arg ? "ingress" : "clsact");
	return devices_unchanged();
}

static int clsact_fini(int arg)
{
	(void)arg;
	return del_if_there("nkfi8");
}

/*
 * RTM_DELLINK of a pair with a program (BPF_PROG_ATTACH) on the primary
 * and a link on the peer: both are released with the devices.
 */
static int del_prog = -1, del_lprog = -1, del_link = -1;
static __u32 del_prog_id, del_lprog_id, del_link_id;

static int del_setup(int arg)
{
	struct bpf_link_info info;
	int idx;

	(void)arg;
	if (!nk_create_up("nkfi4", "nkfi4p"))
		return 0;
	idx = ifindex_of("nkfi4");
	del_prog = prog_load(BPF_NETKIT_PRIMARY);
	del_lprog = prog_load(BPF_NETKIT_PEER);
	if (del_prog < 0 || del_lprog < 0 ||
	    !prog_attach(idx, BPF_NETKIT_PRIMARY, del_prog, 0, NULL))
		return 0;
	del_link = link_create(idx, BPF_NETKIT_PEER, del_lprog, 0, NULL);
	if (del_link < 0 || !link_info(del_link, &info))
		return 0;
	del_prog_id = nk_prog_id(del_prog);
	del_lprog_id = nk_prog_id(del_lprog);
	del_link_id = info.id;
	return snapshot();
}

static void del_call(int arg, int n, struct outcome *o)
{
	(void)arg;
	nk_del(by_name(&before, "nkfi4")->ifindex, n, o);
}

static int del_unchanged(int arg)
{
	int idx = by_name(&before, "nkfi4")->ifindex;

	(void)arg;
	return devices_unchanged() &&
	       attached(idx, BPF_NETKIT_PRIMARY, 1, &del_prog_id, NULL) &&
	       attached(idx, BPF_NETKIT_PEER, 1, &del_lprog_id, &del_link_id);
}

static int del_done(int arg)
{
	struct bpf_link_info info;
	struct links now;
	char gone[256];

	(void)arg;
	if (!links_get(&now))
		return 0;
	if (links_new(&before, &now, NULL, 0) ||
	    links_new(&now, &before, gone, sizeof(gone)) != 2 ||
	    by_name(&now, "nkfi4") || by_name(&now, "nkfi4p"))
		return whyf("expected nkfi4 and nkfi4p gone and nothing else, gone:%s", gone);
	if (!link_info(del_link, &info))
		return 0;
	if (info.netkit.ifindex)
		return whyf("the link is still on ifindex %u", info.netkit.ifindex);
	/* The device held the only other references. */
	return prog_release(&del_prog, del_prog_id, "the primary's") &&
	       link_release(&del_link, del_link_id) &&
	       prog_release(&del_lprog, del_lprog_id, "the link's");
}

static int del_teardown(int arg, int final)
{
	(void)arg;
	(void)final;
	return del_if_there("nkfi4") &&
	       prog_release(&del_prog, del_prog_id, "the primary's") &&
	       link_release(&del_link, del_link_id) &&
	       prog_release(&del_lprog, del_lprog_id, "the link's");
}

static int del_fini(int arg)
{
	return del_teardown(arg, 1);
}

/* The BPF entry points work on the pair nkfi5/nkfi5p. */
static int bpf_idx, bpf_pidx;
static int bp = -1, bp2 = -1, bl = -1;	/* programs and a link */
static __u32 bp_id, bp2_id, bl_id;

static int bpf_init(int arg)
{
	(void)arg;
	if (!ifindex_of("nkfi5") &&
	    !nk_create("nkfi5", "nkfi5p", 1, NETKIT_L2, NETKIT_PASS,
		       NETKIT_PASS, 0, NULL))
		return 0;
	bpf_idx = ifindex_of("nkfi5");
	bpf_pidx = ifindex_of("nkfi5p");
	return attached(bpf_idx, BPF_NETKIT_PRIMARY, 0, NULL, NULL) &&
	       attached(bpf_idx, BPF_NETKIT_PEER, 0, NULL, NULL);
}

static int bpf_fini(int arg)
{
	(void)arg;
	return del_if_there("nkfi5");
}

static int load_bp(int type)
{
	bl_id = bp2_id = 0;
	bp = prog_load(type);
	bp_id = bp < 0 ? 0 : nk_prog_id(bp);
	return bp >= 0;
}

static int release_all(void)
{
	return link_release(&bl, bl_id) &&
	       prog_release(&bp, bp_id, "the first") &&
	       prog_release(&bp2, bp2_id, "the second");
}

/* BPF_PROG_ATTACH, arg: the attach type. */
static int attach_setup(int arg)
{
	return load_bp(arg) && snapshot();
}

static void attach_call(int arg, int n, struct outcome *o)
{
	prog_attach(bpf_idx, arg, bp, n, o);
}

static int attach_unchanged(int arg)
{
	return attached(bpf_idx, arg, 0, NULL, NULL) &&
	       prog_release(&bp, bp_id, "the refused");
}

static int attach_done(int arg)
{
	return attached(bpf_idx, arg, 1, &bp_id, NULL);
}

static int attach_teardown(int arg, int final)
{
	(void)final;
	if (bp >= 0 && !prog_detach(bpf_idx, arg, bp, 0, NULL))
		return 0;
	return attached(bpf_idx, arg, 0, NULL, NULL) && release_all();
}

/* BPF_PROG_QUERY of the primary with one program. */
static struct nk_query qres;

static int query_setup(int arg)
{
	return load_bp(arg) && prog_attach(bpf_idx, arg, bp, 0, NULL) && snapshot();
}

static void query_call(int arg, int n, struct outcome *o)
{
	union bpf_attr attr;

	nk_query_prep(&attr, bpf_idx, arg, &qres);
	bpf_call(BPF_PROG_QUERY, &attr, n, o);
	qres.count = attr.query.count;
}

static int query_unchanged(int arg)
{
	return attached(bpf_idx, arg, 1, &bp_id, NULL);
}

static int query_done(int arg)
{
	if (qres.count != 1 || qres.prog_ids[0] != bp_id || qres.link_ids[0])
		return whyf("the query returned %u programs, first %u link %u; expected 1, %u link 0",
			    qres.count, qres.prog_ids[0], qres.link_ids[0], bp_id);
	return query_unchanged(arg);
}

/* BPF_PROG_DETACH of the one program. */
static void detach_call(int arg, int n, struct outcome *o)
{
	prog_detach(bpf_idx, arg, bp, n, o);
}

static int detach_done(int arg)
{
	return attached(bpf_idx, arg, 0, NULL, NULL) &&
	       prog_release(&bp, bp_id, "the detached");
}

/* BPF_LINK_CREATE, arg: the attach type. */
static void lcreate_call(int arg, int n, struct outcome *o)
{
	bl = link_create(bpf_idx, arg, bp, n, o);
}

static int lcreate_unchanged(int arg)
{
	struct idlist now;

	idlist_get(&now);
	return idlist_same(&lbefore, &now) &&
	       attached(bpf_idx, arg, 0, NULL, NULL) &&
	       prog_release(&bp, bp_id, "the refused");
}

/* The link of this program on nkfi5 (its peer nkfi5p for a peer link). */
static int link_is(int fd, __u32 prog, int type, __u32 *id)
{
	int ifindex = type == BPF_NETKIT_PEER ? bpf_pidx : bpf_idx;
	__u32 ltype = type == AT_TCX_INGRESS || type == AT_TCX_EGRESS ?
		      LT_TCX : BPF_LINK_TYPE_NETKIT;
	struct bpf_link_info info;

	if (!link_info(fd, &info))
		return 0;
	/* a tcx link's info has the netkit one's layout */
	if (info.type != ltype || info.prog_id != prog ||
	    (int)info.netkit.ifindex != ifindex || (int)info.netkit.attach_type != type)
		return whyf("link %u: type %u prog %u ifindex %u attach type %u, expected %u %u %d %d",
			    info.id, info.type, info.prog_id, info.netkit.ifindex,
			    info.netkit.attach_type, ltype, prog, ifindex, type);
	if (id)
		*id = info.id;
	return 1;
}

static int lcreate_done(int arg)
{
	struct idlist now;

	idlist_get(&now);
	if (now.n != lbefore.n + 1)
		return whyf("%d links before, %d after", lbefore.n, now.n);
	return link_is(bl, bp_id, arg, &bl_id) &&
	       attached(bpf_idx, arg, 1, &bp_id, &bl_id);
}

static int lcreate_teardown(int arg, int final)
{
	(void)final;
	return release_all() && attached(bpf_idx, arg, 0, NULL, NULL);
}

/* BPF_LINK_UPDATE of a link from bp to bp2. */
static int lupdate_setup(int arg)
{
	if (!load_bp(arg))
		return 0;
	bl = link_create(bpf_idx, arg, bp, 0, NULL);
	bp2 = prog_load(arg);
	if (bl < 0 || bp2 < 0 || !link_is(bl, bp_id, arg, &bl_id))
		return 0;
	bp2_id = nk_prog_id(bp2);
	return snapshot();
}

static void lupdate_call(int arg, int n, struct outcome *o)
{
	union bpf_attr attr;

	(void)arg;
	memset(&attr, 0, sizeof(attr));
	attr.link_update.link_fd = bl;
	attr.link_update.new_prog_fd = bp2;
	bpf_call(BPF_LINK_UPDATE, &attr, n, o);
}

static int lupdate_unchanged(int arg)
{
	return link_is(bl, bp_id, arg, NULL) &&
	       attached(bpf_idx, arg, 1, &bp_id, &bl_id) &&
	       prog_release(&bp2, bp2_id, "the refused");
}

static int lupdate_done(int arg)
{
	return link_is(bl, bp2_id, arg, NULL) &&
	       attached(bpf_idx, arg, 1, &bp2_id, &bl_id) &&
	       prog_release(&bp, bp_id, "the replaced");
}

/* BPF_LINK_DETACH of a link. */
static int ldetach_setup(int arg)
{
	if (!load_bp(arg))
		return 0;
	bl = link_create(bpf_idx, arg, bp, 0, NULL);
	return bl >= 0 && link_is(bl, bp_id, arg, &bl_id) && snapshot();
}

static void ldetach_call(int arg, int n, struct outcome *o)
{
	union bpf_attr attr;

	(void)arg;
	memset(&attr, 0, sizeof(attr));
	attr.link_detach.link_fd = bl;
	bpf_call(BPF_LINK_DETACH, &attr, n, o);
}

static int ldetach_unchanged(int arg)
{
	return link_is(bl, bp_id, arg, NULL) &&
	       attached(bpf_idx, arg, 1, &bp_id, &bl_id);
}

static int ldetach_done(int arg)
{
	struct bpf_link_info info;

	if (!attached(bpf_idx, arg, 0, NULL, NULL) || !link_info(bl, &info))
		return 0;
	if (info.netkit.ifindex)
		return whyf("the detached link is still on ifindex %u", info.netkit.ifindex);
	return link_release(&bl, bl_id) && prog_release(&bp, bp_id, "the detached link's");
}

/*
 * bpf_mprog full: MPROG_MAX - 1 programs are attached (arg: 0 with
 * BPF_PROG_ATTACH to nkfi6, 1 with links to the peer of nkfi7), the call
 * attaches the last one that fits; fini checks that one more fails.
 */
static int mp_fd[MPROG_MAX + 1], mp_link[MPROG_MAX + 1];
static __u32 mp_id[MPROG_MAX + 1], mp_lid[MPROG_MAX + 1];
static int mp_idx, mp_n;

static int mp_type(int arg)
{
	return arg ? BPF_NETKIT_PEER : BPF_NETKIT_PRIMARY;
}

static int mp_attach(int arg, int i, int fault_n, struct outcome *o)
{
	struct bpf_link_info info;

	mp_link[i] = -1;
	mp_lid[i] = 0;
	if (!arg)
		return prog_attach(mp_idx, BPF_NETKIT_PRIMARY, mp_fd[i], fault_n, o);
	mp_link[i] = link_create(mp_idx, BPF_NETKIT_PEER, mp_fd[i], fault_n, o);
	if (mp_link[i] < 0)
		return 0;
	if (!link_info(mp_link[i], &info))
		return 0;
	mp_lid[i] = info.id;
	return 1;
}

static int mp_init(int arg)
{
	const char *name = arg ? "nkfi7" : "nkfi6";
	int i;

	for (i = 0; i <= MPROG_MAX; i++)
		mp_fd[i] = mp_link[i] = -1;
	mp_n = 0;
	if (!nk_create(name, arg ? "nkfi7p" : "nkfi6p", 1, NETKIT_L3,
		       NETKIT_PASS, NETKIT_PASS, 0, NULL))
		return 0;
	mp_idx = ifindex_of(name);
	for (i = 0; i < MPROG_MAX - 1; i++) {
		mp_fd[i] = prog_load(mp_type(arg));
		if (mp_fd[i] < 0)
			return 0;
		mp_id[i] = nk_prog_id(mp_fd[i]);
		if (!mp_attach(arg, i, 0, NULL))
			return 0;
		mp_n++;
	}
	return attached(mp_idx, mp_type(arg), mp_n, mp_id, arg ? mp_lid : NULL);
}

static int mp_setup(int arg)
{
	int i = MPROG_MAX - 1;

	mp_fd[i] = prog_load(mp_type(arg));
	if (mp_fd[i] < 0)
		return 0;
	mp_id[i] = nk_prog_id(mp_fd[i]);
	return snapshot();
}

static void mp_call(int arg, int n, struct outcome *o)
{
	mp_attach(arg, MPROG_MAX - 1, n, o);
}

static int mp_unchanged(int arg)
{
	struct idlist now;

	idlist_get(&now);
	return idlist_same(&lbefore, &now) &&
	       attached(mp_idx, mp_type(arg), MPROG_MAX - 1, mp_id, arg ? mp_lid : NULL) &&
	       prog_release(&mp_fd[MPROG_MAX - 1], mp_id[MPROG_MAX - 1], "the refused");
}

static int mp_done(int arg)
{
	return attached(mp_idx, mp_type(arg), MPROG_MAX, mp_id, arg ? mp_lid : NULL);
}

static int mp_teardown(int arg, int final)
{
	int i = MPROG_MAX - 1;

	if (final)
		return 1;
	/* An injected fault that the attachment survived: undo it. */
	if (arg) {
		if (!link_release(&mp_link[i], mp_lid[i]))
			return 0;
	} else if (mp_fd[i] >= 0 &&
		   !prog_detach(mp_idx, BPF_NETKIT_PRIMARY, mp_fd[i], 0, NULL)) {
		return 0;
	}
	return prog_release(&mp_fd[i], mp_id[i], "the last");
}

static int mp_fini(int arg)
{
	struct outcome o;
	struct idlist l0, l1;
	int i = MPROG_MAX, ok, good = 1;

	/* One more than bpf_mprog_max(): ERANGE, as mainline. */
	if (!ep_done) {
		/* stopped early: clean up only */
	} else if (attached(mp_idx, mp_type(arg), MPROG_MAX, mp_id, arg ? mp_lid : NULL)) {
		mp_fd[i] = prog_load(mp_type(arg));
		mp_id[i] = nk_prog_id(mp_fd[i]);
		idlist_get(&l0);
		ok = mp_attach(arg, i, 0, &o);
		idlist_get(&l1);
		if (ok) {
			mp_n = MPROG_MAX + 1;
			whyf("it was attached");
		} else if (o.err == ERANGE) {
			ok = !(idlist_same(&l0, &l1) &&
			       attached(mp_idx, mp_type(arg), MPROG_MAX, mp_id, arg ? mp_lid : NULL) &&
			       prog_release(&mp_fd[i], mp_id[i], "the refused"));
		} else {
			ok = 1;
			whyf("expected ERANGE");
		}
		nk_report(!ok, "%s: attaching program %d fails with %s as in mainline (ERANGE, bpf_mprog_attach()), nothing changed%s%s",
		       arg ? "BPF_LINK_CREATE" : "BPF_PROG_ATTACH", MPROG_MAX + 1,
		       mp_n > MPROG_MAX ? "success" : nk_errname(o.err), ok ? ": " : "",
		       ok ? why : "");
	} else {
		nk_report(0, "%s: %d programs attached before the one too many: %s",
		       arg ? "BPF_LINK_CREATE" : "BPF_PROG_ATTACH", MPROG_MAX, why);
	}
	/* Deleting the device releases every program and detaches the links. */
	if (!del_if_there(arg ? "nkfi7" : "nkfi6"))
		good = 0;
	for (i = 0; i <= MPROG_MAX; i++) {
		if (good && !link_release(&mp_link[i], mp_lid[i]))
			good = 0;
		if (good && !prog_release(&mp_fd[i], mp_id[i], "a"))
			good = 0;
		if (mp_fd[i] >= 0)
			close(mp_fd[i]);
		if (mp_link[i] >= 0)
			close(mp_link[i]);
	}
	return good;
}

static const struct ep eps[] = {
	{ "newlink-peer", "RTM_NEWLINK netkit with IFLA_NETKIT_PEER_INFO", 1,
	  NULL, newlink_setup, newlink_call, newlink_unchanged, newlink_done,
	  newlink_teardown, newlink_fini },
	{ "newlink-nopeer", "RTM_NEWLINK netkit without IFLA_NETKIT_PEER_INFO (no IFLA_INFO_DATA)", 0,
	  NULL, newlink_setup, newlink_call, newlink_unchanged, newlink_done,
	  newlink_teardown, newlink_fini },
	{ "changelink", "RTM_NEWLINK changelink of IFLA_NETKIT_POLICY and IFLA_NETKIT_PEER_POLICY (pair up)", 0,
	  NULL, change_setup, change_call, change_unchanged, change_done,
	  NULL, change_fini },
	{ "dellink", "RTM_DELLINK of a pair (up) with a program and a link", 0,
	  NULL, del_setup, del_call, del_unchanged, del_done, del_teardown, del_fini },
	{ "prog-attach-primary", "BPF_PROG_ATTACH BPF_NETKIT_PRIMARY", BPF_NETKIT_PRIMARY,
	  bpf_init, attach_setup, attach_call, attach_unchanged, attach_done,
	  attach_teardown, bpf_fini },
	{ "prog-attach-peer", "BPF_PROG_ATTACH BPF_NETKIT_PEER", BPF_NETKIT_PEER,
	  bpf_init, attach_setup, attach_call, attach_unchanged, attach_done,
	  attach_teardown, bpf_fini },
	{ "prog-query", "BPF_PROG_QUERY BPF_NETKIT_PRIMARY", BPF_NETKIT_PRIMARY,
	  bpf_init, query_setup, query_call, query_unchanged, query_done,
	  attach_teardown, bpf_fini },
	{ "prog-detach", "BPF_PROG_DETACH BPF_NETKIT_PEER", BPF_NETKIT_PEER,
	  bpf_init, query_setup, detach_call, query_unchanged, detach_done,
	  attach_teardown, bpf_fini },
	{ "link-create-primary", "BPF_LINK_CREATE BPF_NETKIT_PRIMARY", BPF_NETKIT_PRIMARY,
	  bpf_init, attach_setup, lcreate_call, lcreate_unchanged, lcreate_done,
	  lcreate_teardown, bpf_fini },
	{ "link-create-peer", "BPF_LINK_CREATE BPF_NETKIT_PEER", BPF_NETKIT_PEER,
	  bpf_init, attach_setup, lcreate_call, lcreate_unchanged, lcreate_done,
	  lcreate_teardown, bpf_fini },
	{ "link-update", "BPF_LINK_UPDATE of a netkit link", BPF_NETKIT_PRIMARY,
	  bpf_init, lupdate_setup, lupdate_call, lupdate_unchanged, lupdate_done,
	  lcreate_teardown, bpf_fini },
	{ "link-detach", "BPF_LINK_DETACH of a netkit link", BPF_NETKIT_PEER,
	  bpf_init, ldetach_setup, ldetach_call, ldetach_unchanged, ldetach_done,
	  lcreate_teardown, bpf_fini },
	{ "mprog-max-prog", "BPF_PROG_ATTACH of program 63 of 63 (bpf_mprog full)", 0,
	  mp_init, mp_setup, mp_call, mp_unchanged, mp_done, mp_teardown, mp_fini },
	{ "mprog-max-link", "BPF_LINK_CREATE of link 63 of 63 (bpf_mprog full)", 1,
	  mp_init, mp_setup, mp_call, mp_unchanged, mp_done, mp_teardown, mp_fini },
	{ "clsact-add", "RTM_NEWQDISC of a clsact qdisc on a netkit device (up)", 0,
	  NULL, clsact_setup, clsact_call, clsact_unchanged, clsact_done,
	  NULL, clsact_fini },
	{ "ingress-add", "RTM_NEWQDISC of an ingress qdisc on a netkit device (up)", 1,
	  NULL, clsact_setup, clsact_call, clsact_unchanged, clsact_done,
	  NULL, clsact_fini },
	{ "tcx-prog-attach", "BPF_PROG_ATTACH BPF_TCX_INGRESS on a netkit device", AT_TCX_INGRESS,
	  bpf_init, attach_setup, attach_call, attach_unchanged, attach_done,
	  attach_teardown, bpf_fini },
	{ "tcx-link-create", "BPF_LINK_CREATE BPF_TCX_EGRESS on a netkit device", AT_TCX_EGRESS,
	  bpf_init, attach_setup, lcreate_call, lcreate_unchanged, lcreate_done,
	  lcreate_teardown, bpf_fini },
};

#define NR_EPS (int)(sizeof(eps) / sizeof(eps[0]))

static void errnos(char *buf, size_t size, struct stats *s)
{
	size_t len = 0;
	int e;

	buf[0] = 0;
	for (e = 1; e < MAX_ERRNO; e++) {
		if (!s->err[e])
			continue;
		len += snprintf(buf + len, size - len, "%s%s x%d", len ? ", " : "",
				nk_errname(e), s->err[e]);
		if (s->send_err[e])
			len += snprintf(buf + len, size - len, " (%d from send())",
					s->send_err[e]);
		if (len >= size)
			break;
	}
	if (!len)
		snprintf(buf, size, "none");
}

/*
 * Errnos other than ENOMEM and ENOBUFS are failures, unless the fault hit
 * an allocation that explains them.
 */
static const struct {
	int err;
	const char *site;	/* prefix of "site < caller < ..." */
	const char *why;
} explained[] = {
	{ EINVAL, "kobject_set_name_vargs < dev_set_name < netdev_register_kobject",
	  "netdev_register_kobject() ignores the failure of dev_set_name() (net/core/net-sysfs.c, the same in mainline), device_add() then refuses the nameless device with EINVAL (drivers/base/core.c)" },
	{ ENOENT, "dev_ingress_queue_create < tc_modify_qdisc",
	  "tc_modify_qdisc() answers a failed dev_ingress_queue_create() with ENOENT, \"Cannot find ingress queue for specified device\" (net/sched/sch_api.c, the same in mainline)" },
};

#define NR_EXPLAINED (int)(sizeof(explained) / sizeof(explained[0]))

/* -1: ENOMEM/ENOBUFS, else the index in explained, NR_EXPLAINED: a failure */
static int errno_class(int err, const char *site)
{
	int i;

	if (err == ENOMEM || err == ENOBUFS)
		return -1;
	for (i = 0; i < NR_EXPLAINED; i++)
		if (err == explained[i].err &&
		    !strncmp(site, explained[i].site, strlen(explained[i].site)))
			return i;
	return NR_EXPLAINED;
}

/* Counts a failed call by errno and site (the first frame of site). */
static void errsite_add(struct stats *s, int err, const char *site)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(site, " "), site);
	for (i = 0; i < s->nerrsites; i++) {
		if (s->errsites[i].err == err && !strcmp(s->errsites[i].site, name)) {
			s->errsites[i].count++;
			return;
		}
	}
	if (i == (int)(sizeof(s->errsites) / sizeof(s->errsites[0])))
		return;
	s->errsites[i].err = err;
	s->errsites[i].count = 1;
	strcpy(s->errsites[i].site, name);
	s->nerrsites++;
}

static void run_ep(const struct ep *ep)
{
	static struct stats s;
	struct outcome o;
	char buf[512];
	int n, done = 0, capped = 0, broken = 0, bad_errno = 0, e;
	double t0 = nk_now();

	memset(&s, 0, sizeof(s));
	st = &s;
	ep_name = ep->name;
	km.unattributed_shown = 0;
	cur_n = 0;
	kmsg_drain();
	if (ep->init && !ep->init(ep->arg)) {
		nk_report(0, "%s: setup: %s", ep->what, why);
		ep_done = 0;
		if (ep->fini)
			ep->fini(ep->arg);
		st = NULL;
		return;
	}
	for (n = fault ? 1 : 0; !done; n++) {
		cur_n = n;
		if (fault && (n > max_n || nk_now() > deadline)) {
			capped = 1;
			break;
		}
		if (!ep->setup(ep->arg)) {
			problem("setup: %s", why);
			broken = 1;
			break;
		}
		kmsg_drain();
		km.fi_seen = 0;
		km.last_site[0] = 0;
		ep->call(ep->arg, n, &o);
		s.tries++;
		if (o.injected)
			s.injected++;
		kmsg_drain();
		switch (o.res) {
		case CALL_FAIL:
			if (!o.injected) {
				problem("failed without an injected fault: %s%s%s",
					nk_errname(o.err), o.ext[0] ? ": " : "", o.ext);
				broken = 1;
				break;
			}
			s.failed++;
			e = o.err < MAX_ERRNO ? o.err : 0;
			s.err[e]++;
			if (o.in_send)
				s.send_err[e]++;
			errsite_add(&s, o.err, km.last_site[0] ? km.last_site : "(no-stack)");
			e = errno_class(o.err, km.last_site);
			if (e >= 0 && e < NR_EXPLAINED) {
				s.explained[e]++;
			} else if (e == NR_EXPLAINED) {
				bad_errno = 1;
				problem("failed with %s%s%s (expected ENOMEM or ENOBUFS), fault injected at %s",
					nk_errname(o.err), o.ext[0] ? ": " : "", o.ext,
					km.last_site[0] ? km.last_site : "(no stack)");
			}
			if (!ep->unchanged(ep->arg))
				problem("the failed call (%s, fault at %s) left a change: %s",
					nk_errname(o.err), km.last_site[0] ? km.last_site : "(no stack)",
					why);
			break;
		case CALL_ACK_LOST:
			s.ack_lost++;
			if (!o.injected)
				problem("ack lost (recv: ENOBUFS) without an injected fault");
			if (!ep->done(ep->arg))
				problem("ack lost (recv: ENOBUFS) and the request not done: %s", why);
			break;
		case CALL_OK:
			if (!ep->done(ep->arg))
				problem("succeeded%s%s but: %s",
					o.injected ? " with an injected fault at " : "",
					o.injected ? (km.last_site[0] ? km.last_site : "(no stack)") : "",
					why);
			if (o.injected) {
				s.inj_ok++;
			} else {
				done = 1;
				s.points = n - o.left;
			}
			break;
		}
		if (!ep->teardown || broken) {
			if (broken)
				break;
		} else if (!ep->teardown(ep->arg, done)) {
			problem("teardown: %s", why);
			broken = 1;
			break;
		}
		if (!fault)
			break;
	}
	kmsg_drain();
	cur_n = 0;
	ep_done = done;
	if (ep->fini && !ep->fini(ep->arg))
		problem("cleanup: %s", why);
	kmsg_drain();
	nk_kmsg_attribution_check(&km);
	errnos(buf, sizeof(buf), &s);
	if (!fault) {
		nk_report(done && !s.problems, "%s: works without fault injection (%.1f s)",
		       ep->what, nk_now() - t0);
	} else {
		nk_report(done && !capped && !s.problems && !bad_errno,
		       "%s: %s at n=%d; %d injected: %d failed (%s), %d succeeded anyway, %d acks lost; %d problems (%.1f s)",
		       ep->what, done ? "success without injection" :
		       capped ? "STOPPED by the n or time cap" : "STOPPED",
		       s.tries, s.injected, s.failed, buf, s.inj_ok,
		       s.ack_lost, s.problems, nk_now() - t0);
		printf("#   stacks read: %d (failslab %d, fail_page_alloc %d), injections without a stack (__GFP_NOWARN): %d, stacks the failures caused (warn_alloc, __register_sysctl_table): %d%s\n",
		       s.km.fi_reports, s.km.fi_slab, s.km.fi_page,
		       s.injected - s.km.fi_reports, s.km.alloc_warn,
		       s.km.lost ? ", kernel log records LOST" : "");
		printf("#   stacks attributed: %d, not attributed: %d; records of other CPUs read amid the dumps: %d; dumps without their end: %d\n",
		       s.km.attributed, s.km.unattributed, s.km.interleaved,
		       s.km.incomplete);
		if (done)
			printf("#   the successful call passed %d fault points (allocations that fail-nth counts)\n",
			       s.points);
		/* Where the errnos other than ENOMEM came from. */
		for (e = 0; e < s.nerrsites; e++)
			if (s.errsites[e].err != ENOMEM)
				printf("#   %s x%d where the fault hit %s\n",
				       nk_errname(s.errsites[e].err), s.errsites[e].count,
				       s.errsites[e].site);
		for (e = 0; e < NR_EXPLAINED; e++)
			if (s.explained[e])
				printf("#   %s x%d, explained: %s\n", nk_errname(explained[e].err),
				       s.explained[e], explained[e].why);
		nk_sites_print(&s.km, "     ");
		if (capped)
			printf("#   the cap stopped it: n > %d or %.0f s (-n, -t)\n", max_n, time_cap);
	}
	fflush(stdout);
	st = NULL;
}

/* ---- what is left at the end ---- */

static int check_clean(void)
{
	struct bpf_link_info linfo;
	struct bpf_prog_info pinfo;
	union bpf_attr attr;
	struct links ls;
	int i, fd, good = 1, nprog = 0, nlink = 0;

	if (!links_get(&ls)) {
		nk_report(0, "list the devices: %s", why);
		return 0;
	}
	for (i = 0; i < ls.n; i++) {
		if (!strcmp(ls.l[i].kind, "netkit") || !strncmp(ls.l[i].name, "nkfi", 4)) {
			printf("# left: device %s (%d, kind %s)\n", ls.l[i].name,
			       ls.l[i].ifindex, ls.l[i].kind);
			good = 0;
		}
	}
	nk_report(good, "no netkit device left (%d devices)", ls.n);
	memset(&attr, 0, sizeof(attr));
	good = 1;
	while (!nk_bpf(BPF_PROG_GET_NEXT_ID, &attr)) {
		attr.start_id = attr.next_id;
		nprog++;
		fd = nk_bpf(BPF_PROG_GET_FD_BY_ID, &(union bpf_attr){ .prog_id = attr.next_id });
		if (fd < 0)
			continue;
		if (!nk_obj_info(fd, &pinfo, sizeof(pinfo)) && !strcmp(pinfo.name, "nkfi")) {
			printf("# left: program %u (%s)\n", pinfo.id, pinfo.name);
			good = 0;
		}
		close(fd);
	}
	nk_report(good, "no nkfi program left (%d programs)", nprog);
	memset(&attr, 0, sizeof(attr));
	good = 1;
	while (!nk_bpf(BPF_LINK_GET_NEXT_ID, &attr)) {
		attr.start_id = attr.next_id;
		nlink++;
		fd = nk_bpf(BPF_LINK_GET_FD_BY_ID, &(union bpf_attr){ .link_id = attr.next_id });
		if (fd < 0)
			continue;
		if (!nk_obj_info(fd, &linfo, sizeof(linfo)) &&
		    (linfo.type == BPF_LINK_TYPE_NETKIT || linfo.type == LT_TCX)) {
			printf("# left: %s link %u (prog %u)\n",
			       linfo.type == LT_TCX ? "tcx" : "netkit", linfo.id, linfo.prog_id);
			good = 0;
		}
		close(fd);
	}
	nk_report(good, "no netkit or tcx link left (%d links)", nlink);
	return !nk_failures;
}

static void prefault_stack(void)
{
	volatile char buf[256 * 1024];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

#define USAGE	"[-0] [-v] [-T] [-t SECONDS] [-n MAX_N] [ENTRY...]\n" \
		"       netkit-faultinject -c | -l | -S"

int main(int argc, char **argv)
{
	int i, j, clean = 0, list = 0, self = 0, no_fault = 0, sel[NR_EPS], nsel = 0, tcx = 0;
	const struct nk_opt opts[] = {
		{ '0', 'f', &no_fault, NULL }, { 'c', 'f', &clean, NULL }, { 'l', 'f', &list, NULL },
		{ 'T', 'f', &tcx, NULL },
		{ 'S', 'f', &self, NULL }, { 'n', 'i', &max_n, NULL }, { 't', 'd', &time_cap, NULL },
		{ 'v', 'f', &verbose, NULL }, { 0 }
	};
	struct timeval tv = { .tv_sec = 30 };
	double t0 = nk_now();
	FILE *f;

	nk_options(argc, argv, opts, USAGE);
	fault = !no_fault;
	if (self) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		ep_name = "self-test";
		return !nk_kmsg_selftest(&km, errno_class, NR_EXPLAINED, &cur_n);
	}
	if (list) {
		for (i = 0; i < NR_EPS; i++)
			printf("%-20s %s\n", eps[i].name, eps[i].what);
		return 0;
	}
	for (i = optind; i < argc; i++) {
		for (j = 0; j < NR_EPS && strcmp(argv[i], eps[j].name); j++)
			;
		if (j == NR_EPS)
			nk_usage(argv[0], USAGE);
		sel[nsel++] = j;
	}
	if (!nsel)
		for (j = 0; j < NR_EPS; j++)
			if (tcx || strncmp(eps[j].name, "tcx-", 4))
				sel[nsel++] = j;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (nk_nl_open(&nl, 0) ||
	    setsockopt(nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		printf("not ok - netlink socket: %s\n", strerror(errno));
		return 1;
	}
	if (clean)
		return !check_clean();

	if (fault) {
		if (nk_fail_nth_open()) {
			printf("not ok - fault injection: /proc/thread-self/fail-nth: %s (a kernel without CONFIG_FAULT_INJECTION?)\n",
			       strerror(errno));
			return 1;
		}
		f = fopen("/proc/sys/kernel/printk", "r");
		if (!f || fscanf(f, "%d", &km.con_level) != 1) {
			printf("not ok - /proc/sys/kernel/printk: %s\n", strerror(errno));
			return 1;
		}
		fclose(f);
	}
	km.verbose = verbose;
	if (nk_kmsg_open(&km)) {
		printf("not ok - /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	/* No page fault (page table allocation) between fail-nth and a call. */
	prefault_stack();
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		printf("# mlockall: %s\n", strerror(errno));

	deadline = nk_now() + time_cap;
	for (i = 0; i < nsel; i++)
		run_ep(&eps[sel[i]]);
	if (fault) {
		nk_report(!km.on_console, "fault injection reports kept off the console (console_loglevel %d): %d lines below it",
		       km.con_level, km.on_console);
		printf("# allocation sites reached, all entry points (first frame that is not the allocator, count, < its callers):\n");
		nk_sites_print(&km.total, " ");
		printf("# stacks not attributed: %d; records of other CPUs read amid the dumps: %d; dumps without their end: %d\n",
		       km.total.unattributed, km.total.interleaved,
		       km.total.incomplete);
	}
	printf("# %d entry points in %.1f s, %d failed\n", nsel, nk_now() - t0, nk_failures);
	return !!nk_failures;
}
