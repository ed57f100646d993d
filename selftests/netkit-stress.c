// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-stress: randomized stress of netkit devices and their BPF
 * attachments on both CPUs at once, with traffic flowing meanwhile.
 *
 *   netkit-stress [-n ITERATIONS] [-t SECONDS] [-s SEED] [-w WORKERS]
 *
 * Two worker processes (-w), pinned to CPU 0 and CPU 1, each in a network
 * namespace of its own with NS_PEERS more namespaces for peers, run random
 * operations (seeded, the seed is printed; -s sets it) until the workers
 * together ran ITERATIONS of them (default 1000) or SECONDS passed (default
 * 60); past ITERATIONS, they run the operation types that have not run
 * yet, until each ran once. The run fails if fewer than ITERATIONS ran,
 * or an operation type never did. The operations:
 *
 *   create     a pair over RTM_NEWLINK, L2 or L3, pass or drop policies,
 *              the peer in the worker's namespace or another one, given
 *              by IFLA_NET_NS_FD in IFLA_NETKIT_PEER_INFO or moved there
 *              after creation; the attributes read back must match
 *   delete     RTM_DELLINK through the primary or the peer; both go away
 *   netns-del  close the last reference of a peer namespace: its pairs
 *              must go away; the namespace is then made anew
 *   attach     BPF_PROG_ATTACH, primary or peer hook (always through the
 *              primary's ifindex), with BPF_F_BEFORE/BPF_F_AFTER relative
 *              to a program or link by fd or id, BPF_F_REPLACE, and
 *              expected_revision taken from BPF_PROG_QUERY, 0, or stale
 *   detach     BPF_PROG_DETACH by fd, by position (fd 0), stale revision
 *   link       BPF_LINK_CREATE, the same positions and revisions
 *   update     BPF_LINK_UPDATE with and without BPF_F_REPLACE/old_prog_fd
 *   link-det   BPF_LINK_DETACH of a live link, then close
 *   link-close close of a live link
 *   wrong-dev  attach/detach/query through a peer, a non-netkit device or
 *              a missing ifindex
 *   xmit       one frame over AF_PACKET through a primary or a peer:
 *              with programs attached it passes (they all return
 *              NETKIT_NEXT or NETKIT_PASS), else the default policy
 *              decides; sendto() and the counters of both ends must show
 *              exactly that (IPv6 is off in these namespaces, nothing else
 *              crosses the stressed pairs)
 *
 * Every operation has an expected result, from a model of each hook that
 * follows what mainline's bpf_mprog and netkit code does (revision
 * included); any other result is a failure, printed with the operation,
 * and after each operation the hook is queried and compared with the
 * model. Links of a deleted device stay defunct: BPF_LINK_UPDATE must
 * fail with ENOLINK, BPF_LINK_DETACH and close must succeed.
 *
 * Meanwhile a third process sends UDP datagrams through a netkit pair of
 * its own into another namespace, swapping the programs of the links on
 * that pair and attaching and detaching another one in front of them (all
 * pass): datagrams must arrive during the stress, every one of them, and
 * the pair's counters must agree with what was sent.
 *
 * At the end no netkit device may remain in the workers' namespaces and no
 * BPF program or link may exist that did not exist before (BPF_PROG_GET_
 * NEXT_ID / BPF_LINK_GET_NEXT_ID). Prints TAP-like "ok"/"not ok" lines and
 * per-operation counts; exits 0 only if everything held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "lib/netkit-lib.h"

#define MAX_WORKERS	2
#define NS_PEERS	3	/* peer namespaces per worker */
#define MAX_PAIRS	6	/* live pairs per worker */
#define MAX_ATT		5	/* attachments per hook kept by the model */
#define NPOOL		8	/* programs per attach type per worker */
#define MAX_PRINT	25	/* failure lines printed per process */
#define __maybe_unused	__attribute__((unused))

enum {
	OP_CREATE, OP_DELETE, OP_NETNS_DEL, OP_ATTACH, OP_DETACH, OP_LINK,
	OP_UPDATE, OP_LINK_DET, OP_LINK_CLOSE, OP_WRONG_DEV, OP_XMIT, OP_DEFUNCT,
	NOPS
};

/*
 * The operations, ops[] below: the name, the relative weight of the
 * random choice (OP_DEFUNCT: 0, it comes with deleting a pair that has a
 * link) and the handler with its argument.
 */
struct worker;
static const struct op {
	const char *name;
	int weight;
	void (*run)(struct worker *w, int arg);
	int arg;
} ops[NOPS];

struct wstats {
	long n[NOPS], ok[NOPS], xerr[NOPS], bad[NOPS];
	long stale_query_rev;	/* attach to an empty hook with query's rev */
	long pairs_gone_netns;
	long iterations;
	long failures;
	int finished;
};

struct tstats {
	volatile long sent, received, updates;
	volatile int ready, stop;
	long failures;
};

struct shared {
	long total;		/* operations run by all workers */
	struct wstats w[MAX_WORKERS];
	struct tstats t;
};

static struct shared *sh;
static long required = 1000;
static double time_cap = 60;
static __u64 seed;
static double t_start;
/* nk_say(): one write per line, so the lines of the processes do not mix. */
#define say nk_say

/* The failures of this process (main, a worker, traffic), counted in sh. */
static struct nk_fails fails = { .who = "main", .max = MAX_PRINT };
#define failure(...)	nk_fail(&fails, __VA_ARGS__)
/* A failure of the worker's operation op in this iteration: a wrong call. */
#define wrong(w, op, fmt, ...)	do { (w)->st->bad[op]++; \
	failure("iteration %ld: " fmt, (w)->iter, __VA_ARGS__); } while (0)

/* lib/'s xorshift64*, reduced from bit 33 on */
static __u64 rng;

static unsigned int rnd(unsigned int n)
{
	__u64 x = nk_rand(&rng);

	return n ? (unsigned int)(x >> 33) % n : 0;
}

/* ---- netlink, on lib/: a socket per netns; the last extack here ---- */

static char extack[256];

/* ---- namespaces ---- */

/* No IPv6 on the devices made in the current netns from now on. */
static int no_ipv6(void)
{
	return nk_write_str("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
}

struct ns_socks {
	struct nk_nl *rtnl;
	int *packet;
};

/* In the new netns: no IPv6, an rtnetlink and maybe a packet socket. */
static int ns_socks(void *arg)
{
	struct ns_socks *ss = arg;

	if (no_ipv6())
		return -errno;
	if (nk_nl_open(ss->rtnl, 0))
		return -errno;
	if (ss->packet) {
		*ss->packet = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (*ss->packet < 0) {
			nk_nl_close(ss->rtnl);
			return -errno;
		}
	}
	return 0;
}

/*
 * A new network namespace, without IPv6 on its devices: its fd, and an
 * rtnetlink socket and, if packet is given, an AF_PACKET socket in it.
 */
static int new_netns(int home_fd, struct nk_nl *rtnl, int *packet)
{
	struct ns_socks ss = { rtnl, packet };

	return nk_netns_new(home_fd, ns_socks, &ss);
}

/* ---- bpf, on lib/ ---- */

/* The program "r0 = verdict; exit": its fd, or -errno. */
static int prog_load(int type, int verdict, const char *name)
{
	return nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, type, verdict, name);
}


/* ---- the workers' model ---- */

static const int hook_type[2] = { BPF_NETKIT_PRIMARY, BPF_NETKIT_PEER };
static const char *const hook_name[2] = { "primary", "peer" };

struct att {
	int prog;		/* index into the pool */
	int link_fd;		/* -1: attached with BPF_PROG_ATTACH */
	__u32 link_id;
};

struct hook {
	__u64 rev;		/* the bundle's revision */
	int n;
	struct att a[MAX_ATT];
};

struct pair {
	int used, up;
	__u32 policy, peer_policy;
	int ifindex, peer_ifindex;
	int ns;			/* peer namespace index, -1: home */
	char name[IFNAMSIZ], peer_name[IFNAMSIZ];
	struct hook hook[2];
};

struct worker {
	int id;
	int home_fd;
	struct nk_nl home_rtnl;
	int ns_fd[NS_PEERS], ns_packet[NS_PEERS];
	struct nk_nl ns_rtnl[NS_PEERS];
	int packet;		/* AF_PACKET socket in the home netns */
	struct { int fd; __u32 id; } pool[2][NPOOL];
	struct pair pair[MAX_PAIRS];
	unsigned int names;
	long iter;
	int op;			/* the operation running, for its counts */
	struct wstats *st;
};

static struct nk_nl *peer_rtnl(struct worker *w, struct pair *p)
{
	return p->ns < 0 ? &w->home_rtnl : &w->ns_rtnl[p->ns];
}

/* Record the outcome of one call of operation op against its expectation. */
static int check(struct worker *w, int op, const char *what, int got, int want)
{
	if (got == want) {
		if (want)
			w->st->xerr[op]++;
		else
			w->st->ok[op]++;
		return 0;
	}
	w->st->bad[op]++;
	failure("iteration %ld %s: %s: expected %s, got %s%s%s", w->iter,
		ops[op].name, what, nk_errname(want), nk_errname(got),
		extack[0] ? ", extack: " : "", extack);
	return -1;
}

static int in_hook(struct hook *h, int prog)
{
	int i;

	for (i = 0; i < h->n; i++)
		if (h->a[i].prog == prog)
			return i;
	return -1;
}

/* A random pool program that is not on the hook. */
static int free_prog(struct hook *h)
{
	int p;

	do
		p = rnd(NPOOL);
	while (in_hook(h, p) >= 0);
	return p;
}

/* A pool program not on the hook and not prog (there are always some). */
static int free_prog_except(struct hook *h, int prog)
{
	int p;

	do
		p = rnd(NPOOL);
	while (p == prog || in_hook(h, p) >= 0);
	return p;
}

static struct pair *random_pair(struct worker *w)
{
	int i, start = rnd(MAX_PAIRS);

	for (i = 0; i < MAX_PAIRS; i++)
		if (w->pair[(start + i) % MAX_PAIRS].used)
			return &w->pair[(start + i) % MAX_PAIRS];
	return NULL;
}

static void delete_pair(struct worker *w, struct pair *p, int via_peer, int op);

/* Compare the hook with the kernel's answer to BPF_PROG_QUERY. */
static int verify_hook(struct worker *w, struct pair *p, int hk, struct nk_query *q,
		       const char *when)
{
	struct hook *h = &p->hook[hk];
	char exp[256] = "", got[1024] = "";
	__u64 rev = h->n ? h->rev : 1;
	int err, i;

	err = nk_query(p->ifindex, hook_type[hk], q);
	if (err) {
		wrong(w, w->op, "BPF_PROG_QUERY %s %s %s: %s", p->name, hook_name[hk], when,
		      nk_errname(err));
		return -1;
	}
	/* the prog/link id pairs of the model and of the kernel */
	for (i = 0; i < h->n; i++)
		snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp), " %u/%u",
			 w->pool[hk][h->a[i].prog].id,
			 h->a[i].link_fd < 0 ? 0 : h->a[i].link_id);
	for (i = 0; i < (int)q->count && i < 64; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), " %u/%u",
			 q->prog_ids[i], q->link_ids[i]);
	if (q->count == (__u32)h->n && q->revision == rev && !strcmp(exp, got))
		return 0;
	wrong(w, w->op, "%s %s hook %s differs from the model: expected revision %llu, prog/link ids [%s ], got revision %llu, [%s ]",
	      p->name, hook_name[hk], when, rev, exp, q->revision, got);
	return -1;
}

/* After an unexpected result the model is unreliable: drop the pair. */
static void resync(struct worker *w, struct pair *p)
{
	delete_pair(w, p, 0, OP_DELETE);
}

/*
 * The relative target of BPF_F_BEFORE/AFTER: attachment i of the hook,
 * by program fd or id, or by link fd or id for a link.
 */
static __u32 relative_of(struct worker *w, int hk, struct att *a, __u32 *flags)
{
	int how = rnd(a->link_fd >= 0 ? 4 : 2);	/* bit 0: by id, bit 1: the link */

	*flags |= (how & 1 ? BPF_F_ID : 0) | (how & 2 ? BPF_F_LINK : 0);
	if (how & 2)
		return how & 1 ? a->link_id : (__u32)a->link_fd;
	return how & 1 ? w->pool[hk][a->prog].id : (__u32)w->pool[hk][a->prog].fd;
}

/* expected_revision: none, what BPF_PROG_QUERY said, the model's, stale. */
static __u64 pick_revision(struct hook *h, struct nk_query *q, int stale)
{
	int how;

	if (stale)
		return rnd(2) && h->rev > 1 ? h->rev - 1 : h->rev + 1 + rnd(3);
	how = rnd(3);
	return how == 0 ? 0 : how == 1 ? q->revision : h->rev;
}

static void do_create(struct worker *w, int arg __maybe_unused);
static void do_detach(struct worker *w, int arg __maybe_unused);

/*
 * A random attachment by link (link 1) or by BPF_PROG_ATTACH (link 0):
 * its pair, hook and index, or NULL if there is none.
 */
static struct pair *random_att(struct worker *w, int link, int *hk, int *idx)
{
	struct pair *found = NULL;
	int i, h, k, n = 0;

	for (i = 0; i < MAX_PAIRS; i++) {
		if (!w->pair[i].used)
			continue;
		for (h = 0; h < 2; h++)
			for (k = 0; k < w->pair[i].hook[h].n; k++)
				if ((w->pair[i].hook[h].a[k].link_fd >= 0) == link &&
				    !rnd(++n)) {
					found = &w->pair[i];
					*hk = h;
					*idx = k;
				}
	}
	return found;
}

/*
 * Start operation op on hook hk of p: count it and compare the hook with
 * the kernel first; on a difference the pair is dropped, and -1.
 */
static int op_begin(struct worker *w, int op, struct pair *p, int hk,
		    struct nk_query *q)
{
	w->st->n[w->op = op]++;
	if (!verify_hook(w, p, hk, q, "before"))
		return 0;
	resync(w, p);
	return -1;
}

/* Attachment j leaves the hook: a new revision. */
static void hook_remove(struct hook *h, int j)
{
	memmove(&h->a[j], &h->a[j + 1], (h->n - j - 1) * sizeof(h->a[0]));
	h->n--;
	h->rev++;
}

/* BPF_PROG_ATTACH (link == 0) or BPF_LINK_CREATE (link == 1). */
static void do_attach(struct worker *w, int link)
{
	int op = link ? OP_LINK : OP_ATTACH;
	__u32 flags = 0, relative = 0;
	int hk, j = -1, pos, replace = -1, want = 0, got, prog, v, k, how;
	struct nk_query q;
	struct pair *p;
	struct hook *h;
	__u64 rev;
	char what[160];

	p = random_pair(w);
	if (!p) {
		do_create(w, 0);
		return;
	}
	hk = rnd(2);
	h = &p->hook[hk];
	if (h->n >= MAX_ATT) {
		do_detach(w, 0);
		return;
	}
	if (op_begin(w, op, p, hk, &q))
		return;
	prog = free_prog(h);
	pos = h->n;
	v = rnd(10);
	if (link && (v == 5 || v == 9))
		v = 3 + rnd(2);
	if ((v == 3 || v == 4 || v == 7) && !h->n)
		v = rnd(3);
	switch (v) {
	case 0:	/* append */
		break;
	case 1:	/* first */
		flags = BPF_F_BEFORE;
		pos = 0;
		break;
	case 2:	/* last */
		flags = BPF_F_AFTER;
		break;
	case 3:	/* before attachment j */
	case 4:	/* after attachment j */
		j = rnd(h->n);
		flags = v == 3 ? BPF_F_BEFORE : BPF_F_AFTER;
		relative = relative_of(w, hk, &h->a[j], &flags);
		pos = v == 3 ? j : j + 1;
		break;
	case 5:	/* replace a program attachment, maybe with a position */
		for (k = 0, j = -1; k < h->n; k++)
			if (h->a[k].link_fd < 0 && (j < 0 || rnd(2)))
				j = k;
		flags = BPF_F_REPLACE;
		if (j < 0) {	/* nothing to replace: a program not on the hook */
			replace = w->pool[hk][free_prog_except(h, prog)].fd;
			want = -ENOENT;
			break;
		}
		replace = w->pool[hk][h->a[j].prog].fd;
		pos = j;
		if (j + 1 < h->n && rnd(2)) {
			flags |= BPF_F_BEFORE;
			relative = relative_of(w, hk, &h->a[j + 1], &flags);
		} else if (j > 0 && rnd(2)) {
			flags |= BPF_F_AFTER;
			relative = relative_of(w, hk, &h->a[j - 1], &flags);
		}
		break;
	case 6:	/* relative to a program not on the hook: fd, id, or no such id */
		flags = rnd(2) ? BPF_F_BEFORE : BPF_F_AFTER;
		k = free_prog_except(h, prog);
		how = rnd(3);
		flags |= how ? BPF_F_ID : 0;
		relative = how == 0 ? (__u32)w->pool[hk][k].fd : how == 1 ? w->pool[hk][k].id :
			   0x7ffffff0;
		want = -ENOENT;
		break;
	case 7:	/* a program that is already on the hook */
		prog = h->a[rnd(h->n)].prog;
		want = -EEXIST;
		break;
	case 8:	/* stale revision */
		break;
	case 9:	/* replace the program of a link, or a missing one */
		for (k = 0, j = -1; k < h->n; k++)
			if (h->a[k].link_fd >= 0)
				j = k;
		flags = BPF_F_REPLACE;
		if (j >= 0) {
			replace = w->pool[hk][h->a[j].prog].fd;
			want = -EBUSY;
		} else {
			replace = w->pool[hk][free_prog_except(h, prog)].fd;
			want = -ENOENT;
		}
		break;
	}
	rev = pick_revision(h, &q, v == 8);
	if (rev && rev != h->rev)
		want = -ESTALE;
	if (v != 8 && rev && rev == q.revision && rev != h->rev)
		w->st->stale_query_rev++;	/* an empty hook, see main() */
	snprintf(what, sizeof(what),
		 "%s %s %s prog %u flags %#x relative %u replace %d expected_revision %llu (model %llu, %d attached)",
		 link ? "BPF_LINK_CREATE" : "BPF_PROG_ATTACH", p->name,
		 hook_name[hk], w->pool[hk][prog].id, flags, relative, replace, rev, h->rev, h->n);
	if (link)
		got = nk_link_create(p->ifindex, hook_type[hk],
				      w->pool[hk][prog].fd, flags, relative, rev);
	else
		got = nk_prog_attach(p->ifindex, hook_type[hk], w->pool[hk][prog].fd,
				 flags, relative, replace < 0 ? 0 : replace, rev);
	if (check(w, op, what, got < 0 ? got : 0, want)) {
		if (link && got >= 0)
			close(got);
		resync(w, p);
		return;
	}
	if (!want) {
		if (flags & BPF_F_REPLACE) {
			h->a[pos].prog = prog;
		} else {
			memmove(&h->a[pos + 1], &h->a[pos],
				(h->n - pos) * sizeof(h->a[0]));
			h->a[pos].prog = prog;
			h->a[pos].link_fd = -1;
			if (link) {
				struct bpf_link_info li;
				int err = nk_link_info(got, &li);

				if (err)
					wrong(w, op, "BPF_OBJ_GET_INFO_BY_FD of a new link: %s",
					      nk_errname(err));
				h->a[pos].link_fd = got;
				h->a[pos].link_id = li.id;
			}
			h->n++;
		}
		h->rev++;
	}
	if (verify_hook(w, p, hk, &q, "after"))
		resync(w, p);
}

/* BPF_PROG_DETACH */
static void do_detach(struct worker *w, int arg __maybe_unused)
{
	__u32 flags = 0, relative = 0;
	int hk = 0, j = -1, k, v, want = 0, got, fd = 0;
	struct nk_query q;
	struct pair *p;
	struct hook *h;
	__u64 rev;
	char what[160];

	/* mostly where there is something to detach */
	p = rnd(4) ? random_att(w, 0, &hk, &k) : NULL;
	if (!p) {
		p = random_pair(w);
		hk = rnd(2);
	}
	if (!p) {
		do_create(w, 0);
		return;
	}
	h = &p->hook[hk];
	if (op_begin(w, OP_DETACH, p, hk, &q))
		return;
	for (k = 0; k < h->n; k++)
		if (h->a[k].link_fd < 0 && (j < 0 || rnd(2)))
			j = k;
	v = rnd(10);
	if (j < 0 && v < 4)
		v = 4 + rnd(6);
	if (v < 4)	/* 0-3: by the fd of program attachment j; 0, 1: that only */
		fd = w->pool[hk][h->a[j].prog].fd;
	switch (v) {
	case 2:	/* by fd, with a consistent position */
		if (j + 1 < h->n) {
			flags = BPF_F_BEFORE;
			relative = relative_of(w, hk, &h->a[j + 1], &flags);
		} else if (j > 0) {
			flags = BPF_F_AFTER;
			relative = relative_of(w, hk, &h->a[j - 1], &flags);
		}
		break;
	case 3:	/* by fd, before an attachment it is not in front of */
		flags = BPF_F_BEFORE;
		do
			k = rnd(h->n);
		while (k == j + 1);
		relative = relative_of(w, hk, &h->a[k], &flags);
		want = -ERANGE;
		break;
	case 4:	/* the first one, without fd */
		flags = BPF_F_BEFORE;
		j = 0;
		break;
	case 5:	/* the last one, without fd */
	case 6:	/* without fd and flags: the last one too */
		flags = v == 5 ? BPF_F_AFTER : 0;
		j = h->n - 1;
		break;
	case 7:	/* a program that is not on the hook */
		fd = w->pool[hk][free_prog(h)].fd;
		want = -ENOENT;
		break;
	case 8:	/* the program of a link */
		for (k = 0, j = -1; k < h->n; k++)
			if (h->a[k].link_fd >= 0)
				j = k;
		if (j < 0) {
			fd = w->pool[hk][free_prog(h)].fd;
			want = -ENOENT;
		} else {
			fd = w->pool[hk][h->a[j].prog].fd;
			want = -EBUSY;
		}
		break;
	case 9:	/* stale revision, else by position */
		flags = BPF_F_BEFORE;
		j = 0;
		break;
	}
	if (v >= 4 && v <= 6 && !want && j >= 0 && h->n && h->a[j].link_fd >= 0)
		want = -EBUSY;
	if (v == 9 && h->n && h->a[0].link_fd >= 0)
		want = -EBUSY;
	rev = pick_revision(h, &q, v == 9);
	if (rev && rev != h->rev)
		want = -ESTALE;
	if (!h->n)	/* netkit: no entry, before bpf_mprog_detach() */
		want = -ENOENT;
	snprintf(what, sizeof(what),
		 "BPF_PROG_DETACH %s %s fd %s flags %#x relative %u expected_revision %llu (model %llu, %d attached)",
		 p->name, hook_name[hk], fd ? "set" : "0", flags, relative, rev, h->rev, h->n);
	got = nk_prog_detach(p->ifindex, hook_type[hk], fd, flags, relative, rev);
	if (check(w, OP_DETACH, what, got, want)) {
		resync(w, p);
		return;
	}
	if (!want)
		hook_remove(h, j);
	if (verify_hook(w, p, hk, &q, "after"))
		resync(w, p);
}

/* BPF_LINK_UPDATE of a live link */
static void do_update(struct worker *w, int arg __maybe_unused)
{
	int hk, j, v, prog, want = 0, got, old = 0, k;
	__u32 flags = 0;
	struct nk_query q;
	struct pair *p;
	struct hook *h;
	struct att *a;
	char what[160];

	p = random_att(w, 1, &hk, &j);
	if (!p) {
		do_attach(w, 1);
		return;
	}
	h = &p->hook[hk];
	a = &h->a[j];
	if (op_begin(w, OP_UPDATE, p, hk, &q))
		return;
	prog = free_prog(h);
	v = rnd(8);
	if (v == 6 && h->n < 2)
		v = 0;
	switch (v) {	/* 0, 1: a free program, no flags */
	case 2:
	case 3:	/* BPF_F_REPLACE with the current program */
		flags = BPF_F_REPLACE;
		old = w->pool[hk][a->prog].fd;
		break;
	case 4:	/* BPF_F_REPLACE with another program */
		flags = BPF_F_REPLACE;
		k = (a->prog + 1 + rnd(NPOOL - 1)) % NPOOL;
		old = w->pool[hk][k].fd;
		want = -EPERM;
		break;
	case 5:	/* the program it has: nothing changes */
		prog = a->prog;
		break;
	case 6:	/* the program of another attachment of the hook */
		k = (j + 1 + rnd(h->n - 1)) % h->n;
		prog = h->a[k].prog;
		want = -EEXIST;
		break;
	case 7:	/* old_prog_fd without BPF_F_REPLACE */
		old = w->pool[hk][a->prog].fd;
		want = -EINVAL;
		break;
	}
	snprintf(what, sizeof(what),
		 "BPF_LINK_UPDATE link %u on %s %s: prog %u -> %u flags %#x old_prog_fd %s",
		 a->link_id, p->name, hook_name[hk], w->pool[hk][a->prog].id,
		 w->pool[hk][prog].id, flags, old ? "set" : "0");
	got = nk_link_update(a->link_fd, w->pool[hk][prog].fd, flags, old);
	if (check(w, OP_UPDATE, what, got, want)) {
		resync(w, p);
		return;
	}
	if (!want && prog != a->prog) {
		a->prog = prog;
		h->rev++;
	}
	if (verify_hook(w, p, hk, &q, "after"))
		resync(w, p);
}

/* A call on a defunct link, checked as part of OP_DEFUNCT. */
static int defunct_check(struct worker *w, struct pair *p, int hk, struct att *a,
			 const char *call, int got, int want)
{
	char what[128];

	snprintf(what, sizeof(what), "link %u of deleted %s %s: %s", a->link_id,
		 p->name, hook_name[hk], call);
	return check(w, OP_DEFUNCT, what, got, want);
}

/* A defunct link: update fails with ENOLINK, detach and close succeed. */
static void defunct_link(struct worker *w, struct pair *p, int hk, struct att *a)
{
	struct bpf_link_info li;
	int err, prog = rnd(NPOOL);

	w->st->n[w->op = OP_DEFUNCT]++;
	if (rnd(2))
		err = nk_link_update(a->link_fd, w->pool[hk][prog].fd,
				      BPF_F_REPLACE, w->pool[hk][a->prog].fd);
	else
		err = nk_link_update(a->link_fd, w->pool[hk][prog].fd, 0, 0);
	if (!defunct_check(w, p, hk, a, "BPF_LINK_UPDATE", err, -ENOLINK)) {
		err = nk_link_info(a->link_fd, &li);
		if (err || li.netkit.ifindex || li.netkit.attach_type !=
		    (__u32)hook_type[hk] || li.id != a->link_id ||
		    li.prog_id != w->pool[hk][a->prog].id) {
			wrong(w, OP_DEFUNCT, "link %u of deleted %s: info %s, ifindex %u attach_type %u prog %u (expected 0, %d, %u)",
			      a->link_id, p->name, nk_errname(err), li.netkit.ifindex,
			      li.netkit.attach_type, li.prog_id, hook_type[hk],
			      w->pool[hk][a->prog].id);
		}
	}
	defunct_check(w, p, hk, a, "BPF_LINK_DETACH", nk_link_detach(a->link_fd), 0);
	if (rnd(2))
		defunct_check(w, p, hk, a, "BPF_LINK_UPDATE after detach",
			      nk_link_update(a->link_fd, w->pool[hk][prog].fd, 0, 0), -ENOLINK);
	defunct_check(w, p, hk, a, "close", close(a->link_fd) ? -errno : 0, 0);
	a->link_fd = -1;
}

/* BPF_LINK_DETACH (detach == 1) or close of a live link. */
static void do_link_release(struct worker *w, int detach)
{
	int op = detach ? OP_LINK_DET : OP_LINK_CLOSE;
	int hk, j, err;
	struct nk_query q;
	struct pair *p;
	struct hook *h;
	struct att a;
	char what[128];

	p = random_att(w, 1, &hk, &j);
	if (!p) {
		do_attach(w, 1);
		return;
	}
	h = &p->hook[hk];
	a = h->a[j];
	if (op_begin(w, op, p, hk, &q))
		return;
	hook_remove(h, j);
	snprintf(what, sizeof(what), "%s link %u on %s %s",
		 detach ? "BPF_LINK_DETACH" : "close", a.link_id, p->name,
		 hook_name[hk]);
	if (detach) {
		err = nk_link_detach(a.link_fd);
		if (check(w, op, what, err, 0) ||
		    verify_hook(w, p, hk, &q, "after detach")) {
			close(a.link_fd);
			resync(w, p);
			return;
		}
		/* now defunct as well */
		snprintf(what, sizeof(what), "BPF_LINK_UPDATE of detached link %u",
			 a.link_id);
		check(w, op, what, nk_link_update(a.link_fd,
			w->pool[hk][a.prog].fd, 0, 0), -ENOLINK);
	}
	snprintf(what, sizeof(what), "close link %u", a.link_id);
	check(w, op, what, close(a.link_fd) ? -errno : 0, 0);
	if (verify_hook(w, p, hk, &q, "after"))
		resync(w, p);
}

/* Links of a pair that is gone: defunct; programs went with the device. */
static void pair_gone(struct worker *w, struct pair *p)
{
	int hk, k;

	for (hk = 0; hk < 2; hk++)
		for (k = 0; k < p->hook[hk].n; k++)
			if (p->hook[hk].a[k].link_fd >= 0)
				defunct_link(w, p, hk, &p->hook[hk].a[k]);
	p->used = 0;
}

/* Both ends up, checked as part of operation op: 0 or -1. */
static int pair_up(struct worker *w, struct pair *p, int op)
{
	int err = nk_pair_up(&w->home_rtnl, p->ifindex, peer_rtnl(w, p), p->peer_ifindex, 0);

	p->up = !check(w, op, "setting the pair up", err, 0);
	return p->up ? 0 : -1;
}

static void do_create(struct worker *w, int arg __maybe_unused)
{
	int i, ns, via_fd, err, slot = -1, up;
	__u32 mode = rnd(2) ? NETKIT_L2 : NETKIT_L3;
	__u32 pol = rnd(2) ? NETKIT_PASS : NETKIT_DROP;
	__u32 peer_pol = rnd(2) ? NETKIT_PASS : NETKIT_DROP;
	struct nk_link li, lp;
	struct nk_pair_spec sp;
	struct pair *p;
	char what[160];

	for (i = 0; i < MAX_PAIRS; i++)
		if (!w->pair[i].used && (slot < 0 || rnd(2)))
			slot = i;
	if (slot < 0) {
		delete_pair(w, random_pair(w), rnd(2), OP_DELETE);
		return;
	}
	w->st->n[w->op = OP_CREATE]++;
	p = &w->pair[slot];
	memset(p, 0, sizeof(*p));
	w->names++;
	snprintf(p->name, sizeof(p->name), "nka%u", w->names);
	snprintf(p->peer_name, sizeof(p->peer_name), "nkb%u", w->names);
	ns = (int)rnd(NS_PEERS + 1) - 1;
	via_fd = ns >= 0 && rnd(2);
	up = rnd(2);
	snprintf(what, sizeof(what),
		 "RTM_NEWLINK %s/%s %s %s/%s, peer %s%s", p->name, p->peer_name,
		 mode == NETKIT_L2 ? "l2" : "l3", pol == NETKIT_PASS ? "pass" : "drop",
		 peer_pol == NETKIT_PASS ? "pass" : "drop",
		 ns < 0 ? "in the same netns" : via_fd ?
		 "into another netns by IFLA_NET_NS_FD" : "moved into another netns",
		 up ? ", set up" : "");
	sp = (struct nk_pair_spec){ .name = p->name, .peer = p->peer_name, .mode = mode,
		.policy = pol, .peer_policy = peer_pol, .peer_nsfd = via_fd ? w->ns_fd[ns] : -1 };
	err = nk_netkit_add(&w->home_rtnl, &sp, extack, sizeof(extack));
	if (check(w, OP_CREATE, what, err, 0))
		return;
	err = nk_link_get(&w->home_rtnl, 0, p->name, &li);
	if (err) {
		failure("iteration %ld: %s: the primary is not there: %s",
			w->iter, what, nk_errname(err));
		return;
	}
	p->used = 1;
	p->ifindex = li.ifindex;
	p->ns = via_fd ? ns : -1;
	p->policy = pol;
	p->peer_policy = peer_pol;
	err = nk_link_get(peer_rtnl(w, p), 0, p->peer_name, &lp);
	if (!err && ns >= 0 && !via_fd) {
		err = nk_link_move(&w->home_rtnl, lp.ifindex, w->ns_fd[ns], extack, sizeof(extack));
		if (!check(w, OP_CREATE, "moving the peer to another netns", err, 0))
			p->ns = ns;
		err = nk_link_get(peer_rtnl(w, p), 0, p->peer_name, &lp);
		if (!err)	/* IFLA_LINK of the primary follows the peer */
			err = nk_link_get(&w->home_rtnl, p->ifindex, NULL, &li);
	}
	if (err) {
		failure("iteration %ld: %s: the peer is not there: %s",
			w->iter, what, nk_errname(err));
		delete_pair(w, p, 0, OP_DELETE);
		return;
	}
	p->peer_ifindex = lp.ifindex;
	p->hook[0].rev = p->hook[1].rev = 1;	/* n is 0 */
	if (!li.netkit || !lp.netkit || li.primary != 1 || lp.primary != 0 ||
	    li.mode != (int)mode || lp.mode != (int)mode ||
	    li.policy != (int)pol || li.peer_policy != (int)peer_pol ||
	    lp.policy != (int)peer_pol || lp.peer_policy != (int)pol ||
	    li.link != lp.ifindex || lp.link != li.ifindex) {
		wrong(w, OP_CREATE, "%s: read back primary %d mode %d policy %d peer_policy %d iflink %d, peer %d mode %d policy %d peer_policy %d iflink %d, ifindexes %d/%d",
		      what, li.primary, li.mode, li.policy, li.peer_policy, li.link, lp.primary,
		      lp.mode, lp.policy, lp.peer_policy, lp.link, li.ifindex, lp.ifindex);
	}
	if (up)
		pair_up(w, p, OP_CREATE);
}

/* Delete a pair through the primary or the peer; both must go away. */
static void delete_pair(struct worker *w, struct pair *p, int via_peer, int op)
{
	struct nk_link li;
	char what[128];
	int err, end;

	if (!p || !p->used)
		return;
	w->st->n[w->op = op]++;
	snprintf(what, sizeof(what), "RTM_DELLINK %s of %s/%s", via_peer ?
		 "peer" : "primary", p->name, p->peer_name);
	if (via_peer)
		err = nk_link_del(peer_rtnl(w, p), p->peer_ifindex);
	else
		err = nk_link_del(&w->home_rtnl, p->ifindex);
	check(w, op, what, err, 0);
	for (end = 0; end < 2; end++) {
		err = nk_link_get(end ? peer_rtnl(w, p) : &w->home_rtnl,
				  end ? p->peer_ifindex : p->ifindex, NULL, &li);
		if (err != -ENODEV)
			wrong(w, op, "after %s the %s: %s, expected ENODEV", what, hook_name[end],
			      nk_errname(err));
	}
	pair_gone(w, p);
}

/* Drop the last reference of a peer namespace; its pairs must go away. */
static void do_netns_del(struct worker *w, int arg __maybe_unused)
{
	int i, k, hk, ns = rnd(NS_PEERS), err;
	struct nk_link li;
	double deadline;

	w->st->n[w->op = OP_NETNS_DEL]++;
	nk_nl_close(&w->ns_rtnl[ns]);
	close(w->ns_packet[ns]);
	close(w->ns_fd[ns]);
	w->ns_packet[ns] = w->ns_fd[ns] = -1;
	/* cleanup_net runs from a workqueue: wait for it */
	deadline = nk_now() + 30 + time_cap / 4;
	for (i = 0; i < MAX_PAIRS; i++) {
		struct pair *p = &w->pair[i];

		if (!p->used || p->ns != ns)
			continue;
		while ((err = nk_link_get(&w->home_rtnl, p->ifindex, NULL, &li)) == 0 &&
		       nk_now() < deadline)
			usleep(2000);
		if (err != -ENODEV) {
			wrong(w, OP_NETNS_DEL, "%s of a pair whose peer's netns is gone: %s, expected ENODEV",
			      p->name, nk_errname(err));
			/* beyond reach now: let the links go */
			for (hk = 0; hk < 2; hk++)
				for (k = 0; k < p->hook[hk].n; k++)
					if (p->hook[hk].a[k].link_fd >= 0)
						close(p->hook[hk].a[k].link_fd);
			p->used = 0;
			continue;
		}
		w->st->pairs_gone_netns++;
		pair_gone(w, p);
	}
	w->ns_fd[ns] = new_netns(w->home_fd, &w->ns_rtnl[ns], &w->ns_packet[ns]);
	if (w->ns_fd[ns] < 0) {
		wrong(w, OP_NETNS_DEL, "making a netns: %s", nk_errname(w->ns_fd[ns]));
		exit(1);
	}
	w->st->ok[OP_NETNS_DEL]++;
}

/* Attach, detach or query through a device that is not a netkit primary. */
static void do_wrong_dev(struct worker *w, int arg __maybe_unused)
{
	static const char *const calls[] = { "BPF_PROG_ATTACH", "BPF_LINK_CREATE",
					     "BPF_PROG_DETACH", "BPF_PROG_QUERY" };
	struct pair *p = random_pair(w);
	int ifindex, want, got, hk = rnd(2), what = rnd(4);
	struct nk_query q;
	char desc[128];

	w->st->n[w->op = OP_WRONG_DEV]++;
	if (p && p->ns < 0 && rnd(2)) {
		ifindex = p->peer_ifindex;	/* netkit, but not primary */
		want = -EACCES;
	} else if (rnd(2)) {
		ifindex = 1;			/* lo */
		want = -ENXIO;
	} else {
		ifindex = 0x7ffffff0;		/* no such device */
		want = -ENODEV;
	}
	if (what == 0)
		got = nk_prog_attach(ifindex, hook_type[hk], w->pool[hk][0].fd, 0, 0, 0, 0);
	else if (what == 1)
		got = nk_link_create(ifindex, hook_type[hk], w->pool[hk][0].fd, 0, 0, 0);
	else if (what == 2)
		got = nk_prog_detach(ifindex, hook_type[hk], w->pool[hk][0].fd, 0, 0, 0);
	else
		got = nk_query(ifindex, hook_type[hk], &q);
	if (what == 1 && got >= 0) {
		close(got);	/* a link: let it go again */
		got = 0;
	}
	snprintf(desc, sizeof(desc), "%s %s through ifindex %d", calls[what], hook_name[hk],
		 ifindex);
	check(w, OP_WRONG_DEV, desc, got, want);
}

/*
 * One frame through the primary (hook 0) or the peer (hook 1). Every pool program returns NETKIT_NEXT or NETKIT_PASS, so with
 * any attached the frame passes; without, the device's policy decides.
 */
static void do_xmit(struct worker *w, int arg __maybe_unused)
{
	static const unsigned char frame[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* broadcast */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x88, 0xb5,				/* local experimental */
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	struct pair *p = random_pair(w);
	struct nk_link s0, r0, s1, r1;
	int hk, pass, err, want, tx_if, rx_if;
	struct nk_nl *tx_fd, *rx_fd;
	char what[200];

	if (!p) {
		do_create(w, 0);
		return;
	}
	w->st->n[w->op = OP_XMIT]++;
	if (!p->up && pair_up(w, p, OP_XMIT))
		return;
	err = nk_link_wait_oper_up(&w->home_rtnl, p->ifindex, 20);
	if (!err)
		err = nk_link_wait_oper_up(peer_rtnl(w, p), p->peer_ifindex, 20);
	if (check(w, OP_XMIT, "waiting for operstate up", err, 0))
		return;
	hk = rnd(2);
	tx_fd = hk ? peer_rtnl(w, p) : &w->home_rtnl;
	rx_fd = hk ? &w->home_rtnl : peer_rtnl(w, p);
	tx_if = hk ? p->peer_ifindex : p->ifindex;
	rx_if = hk ? p->ifindex : p->peer_ifindex;
	pass = p->hook[hk].n ||
	       (hk ? p->peer_policy : p->policy) == NETKIT_PASS;
	err = nk_link_get(tx_fd, tx_if, NULL, &s0);
	if (!err)
		err = nk_link_get(rx_fd, rx_if, NULL, &r0);
	if (check(w, OP_XMIT, "RTM_GETLINK before", err, 0))
		return;
	memset(sll.sll_addr, 0xff, ETH_ALEN);
	sll.sll_ifindex = tx_if;
	err = sendto(hk && p->ns >= 0 ? w->ns_packet[p->ns] : w->packet,
		     frame, sizeof(frame), 0,
		     (struct sockaddr *)&sll, sizeof(sll)) < 0 ? -errno : 0;
	want = pass ? 0 : -ENOBUFS;
	snprintf(what, sizeof(what),
		 "AF_PACKET sendto through %s of %s (%d programs, policy %s)",
		 hk ? p->ns < 0 ? "the peer" : "the peer in another netns" :
		 "the primary", p->name, p->hook[hk].n,
		 (hk ? p->peer_policy : p->policy) == NETKIT_PASS ? "pass" : "drop");
	if (check(w, OP_XMIT, what, err, want))
		return;
	err = nk_link_get(tx_fd, tx_if, NULL, &s1);
	if (!err)
		err = nk_link_get(rx_fd, rx_if, NULL, &r1);
	if (check(w, OP_XMIT, "RTM_GETLINK after", err, 0))
		return;
	if (s1.st.tx_packets - s0.st.tx_packets != (__u64)pass ||
	    s1.st.tx_bytes - s0.st.tx_bytes != (__u64)(pass ? sizeof(frame) : 0) ||
	    s1.st.tx_dropped - s0.st.tx_dropped != (__u64)!pass ||
	    r1.st.rx_packets - r0.st.rx_packets != (__u64)pass ||
	    r1.st.rx_bytes - r0.st.rx_bytes != (__u64)(pass ? sizeof(frame) : 0)) {
		wrong(w, OP_XMIT, "%s: counters moved by tx %llu packets %llu bytes %llu dropped, rx %llu packets %llu bytes; expected %s",
		      what, s1.st.tx_packets - s0.st.tx_packets, s1.st.tx_bytes - s0.st.tx_bytes,
		      s1.st.tx_dropped - s0.st.tx_dropped, r1.st.rx_packets - r0.st.rx_packets,
		      r1.st.rx_bytes - r0.st.rx_bytes, pass ? "1 packet of 60 bytes each way" : "1 drop");
	}
}

static void do_delete(struct worker *w, int arg)
{
	if (random_pair(w))
		delete_pair(w, random_pair(w), rnd(2), OP_DELETE);
	else
		do_create(w, arg);
}

/* Delete a pair that has a link: its links go defunct (OP_DEFUNCT). */
static void do_defunct(struct worker *w, int arg __maybe_unused)
{
	int hk, j;
	struct pair *p = random_att(w, 1, &hk, &j);

	if (p)
		delete_pair(w, p, rnd(2), OP_DELETE);
	else
		do_attach(w, 1);
}

static const struct op ops[NOPS] = {
	[OP_CREATE] = { "create", 13, do_create, 0 },
	[OP_DELETE] = { "delete", 6, do_delete, 0 },
	[OP_NETNS_DEL] = { "netns-del", 2, do_netns_del, 0 },
	[OP_ATTACH] = { "attach", 16, do_attach, 0 },
	[OP_DETACH] = { "detach", 12, do_detach, 0 },
	[OP_LINK] = { "link", 16, do_attach, 1 },
	[OP_UPDATE] = { "update", 14, do_update, 0 },
	[OP_LINK_DET] = { "link-det", 5, do_link_release, 1 },
	[OP_LINK_CLOSE] = { "link-close", 7, do_link_release, 0 },
	[OP_WRONG_DEV] = { "wrong-dev", 3, do_wrong_dev, 0 },
	[OP_XMIT] = { "xmit", 8, do_xmit, 0 },
	[OP_DEFUNCT] = { "defunct-link", 0, do_defunct, 0 },
};

static int pick_op(void)
{
	int i, sum = 0, r;

	for (i = 0; i < NOPS; i++)
		sum += ops[i].weight;
	r = rnd(sum);
	for (i = 0; i < NOPS; i++) {
		r -= ops[i].weight;
		if (r < 0)
			return i;
	}
	return OP_CREATE;
}

/*
 * Once the required iterations ran: an operation type that no worker has
 * run yet (-1: none), which the workers then run until each type ran once,
 * so that "every operation type ran" holds for any -n. OP_DEFUNCT comes
 * from deleting a pair that has a link.
 */
static int missing_op(void)
{
	long n;
	int op, i;

	for (op = 0; op < NOPS; op++) {
		for (n = 0, i = 0; i < MAX_WORKERS; i++)
			n += __atomic_load_n(&sh->w[i].n[op], __ATOMIC_RELAXED);
		if (!n)
			return op;
	}
	return -1;
}

static int worker_main(int id)
{
	struct worker w = { .id = id, .st = &sh->w[id] };
	char names[256];
	int i, hk, n, err, op;

	snprintf(fails.who, sizeof(fails.who), "worker %d", id);
	fails.count = &w.st->failures;
	rng = seed * 2 + id * 0x9e3779b97f4a7c15ULL + 1;
	err = nk_pin_cpu(id);
	if (err) {
		failure("sched_setaffinity to CPU %d: %s", id, nk_errname(err));
		return 1;
	}
	/* a netns of its own, with the sockets of a peer netns */
	w.home_fd = nk_netns_unshare();
	err = w.home_fd < 0 ? w.home_fd : ns_socks(&(struct ns_socks){ &w.home_rtnl, &w.packet });
	if (err) {
		failure("home netns: %s", nk_errname(err));
		return 1;
	}
	for (i = 0; i < NS_PEERS; i++) {
		w.ns_fd[i] = new_netns(w.home_fd, &w.ns_rtnl[i], &w.ns_packet[i]);
		if (w.ns_fd[i] < 0) {
			failure("peer netns: %s", nk_errname(w.ns_fd[i]));
			return 1;
		}
	}
	for (hk = 0; hk < 2; hk++)
		for (i = 0; i < NPOOL; i++) {
			char name[16];

			snprintf(name, sizeof(name), "nks%d_%c%d", id, "ap"[hk], i);
			w.pool[hk][i].fd = prog_load(hook_type[hk],
						     i % 2 ? NETKIT_PASS : NETKIT_NEXT, name);
			w.pool[hk][i].id = nk_prog_id(w.pool[hk][i].fd);
			if (!w.pool[hk][i].id) {
				failure("BPF_PROG_LOAD %s: %s", name, nk_errname(-errno));
				return 1;
			}
		}

	while (nk_now() - t_start < time_cap) {
		op = -1;
		if (__atomic_fetch_add(&sh->total, 1, __ATOMIC_RELAXED) >= required &&
		    (op = missing_op()) < 0)
			break;
		w.iter++;
		w.st->iterations = w.iter;
		if (op < 0)
			op = pick_op();
		ops[op].run(&w, ops[op].arg);
	}

	/* Tear down: the rest of the pairs, then nothing may be left. */
	for (i = 0; i < MAX_PAIRS; i++)
		delete_pair(&w, &w.pair[i], rnd(2), OP_DELETE);
	for (i = -1; i < NS_PEERS; i++) {
		n = nk_links_names(i < 0 ? &w.home_rtnl : &w.ns_rtnl[i], 1,
				   names, sizeof(names));
		if (n)
			failure("netkit devices left in %s netns %d: %s%s",
				i < 0 ? "the home" : "peer", i, nk_errname(n < 0 ? n : 0),
				names);
	}
	w.st->finished = 1;
	return w.st->failures ? 1 : 0;	/* programs, sockets, namespaces go with the process */
}

/* ---- traffic ---- */

static int traffic_main(void)
{
	struct tstats *t = &sh->t;
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	int home_fd, b_fd, tx, rx, err, i;
	struct nk_nl home_rtnl, b_rtnl = { .fd = -1 };
	int prog[3][2], link[2], cur[2] = { 0, 0 }, on[2] = { 0, 0 };
	struct nk_link a1, b1, a2;
	char payload[64] = "netkit-stress";
	long sent = 0, received = 0, pkts, rounds = 0, toggles = 0;

	snprintf(fails.who, sizeof(fails.who), "traffic");
	fails.count = &t->failures;
	rng = seed ^ 0x5bd1e995;
	home_fd = nk_netns_unshare();
	b_fd = home_fd < 0 ? home_fd : new_netns(home_fd, &b_rtnl, NULL);
	if (b_fd < 0 || nk_nl_open(&home_rtnl, 0)) {
		failure("namespaces: %s", nk_errname(b_fd < 0 ? b_fd : -errno));
		return 1;
	}
	err = nk_netkit_add(&home_rtnl, &(struct nk_pair_spec){ .name = "nkt1", .peer = "nkt0",
			    .mode = NETKIT_L3, .policy = NETKIT_PASS, .peer_policy = NETKIT_PASS,
			    .peer_nsfd = b_fd }, extack, sizeof(extack));
	if (!err)
		err = nk_link_get(&home_rtnl, 0, "nkt1", &a1);
	if (!err)
		err = nk_link_get(&b_rtnl, 0, "nkt0", &b1);
	if (!err)
		err = nk_addr_add(&home_rtnl, a1.ifindex, "10.77.0.1", 24);
	if (!err)
		err = nk_addr_add(&b_rtnl, b1.ifindex, "10.77.0.2", 24);
	if (!err)
		err = nk_pair_up(&home_rtnl, a1.ifindex, &b_rtnl, b1.ifindex, 20);
	if (err) {
		failure("traffic pair nkt1/nkt0: %s%s%s", nk_errname(err),
			extack[0] ? ": " : "", extack);
		return 1;
	}
	/*
	 * Links with programs that pass everything, their programs swapped
	 * while sending, and another program attached in front of them and
	 * detached again: the packets cross changing bpf_mprog entries.
	 */
	for (i = 0; i < 2; i++) {
		prog[i][0] = prog_load(hook_type[i], NETKIT_NEXT, "nkt_next");
		prog[i][1] = prog_load(hook_type[i], NETKIT_PASS, "nkt_pass");
		prog[2][i] = prog_load(hook_type[i], NETKIT_NEXT, "nkt_extra");
		link[i] = prog[i][0] < 0 || prog[i][1] < 0 || prog[2][i] < 0 ?
			-EBADF :
			nk_link_create(a1.ifindex, hook_type[i], prog[i][0], 0, 0, 0);
		if (link[i] < 0) {
			failure("traffic pair links: %s", nk_errname(link[i]));
			return 1;
		}
	}
	inet_pton(AF_INET, "10.77.0.2", &dst.sin_addr);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	rx = tx < 0 ? -errno : nk_udp_server(b_fd, home_fd, "10.77.0.2", 9, 1 << 20);
	if (rx < 0) {
		failure("UDP sockets: %s", nk_errname(rx));
		return 1;
	}
	t->ready = 1;
	while (!t->stop) {
		for (i = 0; i < 8; i++) {
			if (sendto(tx, payload, sizeof(payload), 0,
				   (struct sockaddr *)&dst, sizeof(dst)) == sizeof(payload))
				sent++;
			else
				failure("sendto: %s", nk_errname(-errno));
		}
		while (recv(rx, payload, sizeof(payload), 0) > 0)
			received++;
		t->sent = sent;
		t->received = received;
		if (++rounds % 8 == 0) {
			i = rnd(2);
			cur[i] ^= 1;
			err = nk_link_update(link[i], prog[i][cur[i]], 0, 0);
			if (err)
				failure("BPF_LINK_UPDATE on nkt1 %s: %s",
					hook_name[i], nk_errname(err));
			t->updates++;
		}
		if (rounds % 8 == 4) {
			i = rnd(2);
			if (on[i])
				err = nk_prog_detach(a1.ifindex, hook_type[i],
						 prog[2][i], 0, 0, 0);
			else
				err = nk_prog_attach(a1.ifindex, hook_type[i],
						 prog[2][i], BPF_F_BEFORE, 0, 0, 0);
			if (err)
				failure("%s on nkt1 %s: %s", on[i] ?
					"BPF_PROG_DETACH" : "BPF_PROG_ATTACH",
					hook_name[i], nk_errname(err));
			on[i] ^= 1;
			toggles++;
		}
		usleep(2000);
	}
	/*
	 * What is still in flight (a backlog that ksoftirqd drains, on a
	 * busy guest later than the send) arrives: wait for it, up to 10 s.
	 */
	for (i = 0; i < 1000 && received < sent; i++) {
		usleep(10000);
		while (recv(rx, payload, sizeof(payload), 0) > 0)
			received++;
	}
	t->received = received;

	/* Counters: read primary, peer, primary again. */
	err = nk_link_get(&home_rtnl, a1.ifindex, NULL, &a1);
	if (!err)
		err = nk_link_get(&b_rtnl, b1.ifindex, NULL, &b1);
	if (!err)
		err = nk_link_get(&home_rtnl, a1.ifindex, NULL, &a2);
	if (err || !a1.has_stats || !b1.has_stats) {
		failure("reading the counters of nkt1/nkt0: %s", nk_errname(err));
		return 1;
	}
	say("# traffic: %ld datagrams sent, %ld received, %ld link updates, %ld program attaches/detaches; nkt1 tx %llu packets %llu bytes %llu dropped, nkt0 rx %llu packets %llu bytes",
	    sent, received, (long)t->updates, toggles, a1.st.tx_packets, a1.st.tx_bytes,
	    a1.st.tx_dropped, b1.st.rx_packets, b1.st.rx_bytes);
	pkts = a1.st.tx_packets + a1.st.tx_dropped;
	nk_report(pkts >= sent, "traffic: nkt1 tx packets + dropped >= datagrams sent (%ld >= %ld)",
		  pkts, sent);
	nk_report(b1.st.rx_packets >= a1.st.tx_packets && b1.st.rx_packets <= a2.st.tx_packets &&
		  b1.st.rx_bytes >= a1.st.tx_bytes && b1.st.rx_bytes <= a2.st.tx_bytes,
		  "traffic: nkt0 rx packets and bytes equal nkt1 tx (nkt0 rx %llu packets %llu bytes, nkt1 tx %llu..%llu packets %llu..%llu bytes)",
		  b1.st.rx_packets, b1.st.rx_bytes, a1.st.tx_packets, a2.st.tx_packets,
		  a1.st.tx_bytes, a2.st.tx_bytes);
	nk_report((long)b1.st.rx_packets >= received && received <= sent,
		  "traffic: received <= nkt0 rx packets and <= sent (%ld received, nkt0 rx %llu, %ld sent)",
		  received, b1.st.rx_packets, sent);
	/* every program passes, and softirqs deliver before the next send */
	nk_report(received == sent, "traffic: every datagram arrived (%ld of %ld, nkt1 tx dropped %llu)",
		  received, sent, a1.st.tx_dropped);
	t->failures += nk_failures;

	/* The pair goes; its links stay, defunct. */
	err = nk_link_del(&home_rtnl, a1.ifindex);
	if (err)
		failure("RTM_DELLINK nkt1: %s", nk_errname(err));
	for (i = 0; i < 2; i++) {
		err = nk_link_update(link[i], prog[i][!cur[i]], 0, 0);
		if (err != -ENOLINK)
			failure("BPF_LINK_UPDATE on the deleted nkt1 %s: %s, expected ENOLINK",
				hook_name[i], nk_errname(err));
		err = nk_link_detach(link[i]);
		if (err)
			failure("BPF_LINK_DETACH on the deleted nkt1: %s", nk_errname(err));
		if (close(link[i]) || close(prog[i][0]) || close(prog[i][1]) ||
		    close(prog[2][i]))
			failure("close: %s", nk_errname(-errno));
	}
	for (i = 0; i < 2; i++) {
		char names[64];

		err = nk_links_names(i ? &b_rtnl : &home_rtnl, 1, names, sizeof(names));
		if (err)
			failure("netkit devices left after deleting nkt1: %s%s",
				nk_errname(err < 0 ? err : 0), names);
	}
	return t->failures ? 1 : 0;	/* the sockets and namespaces go with the process */
}

/* ---- main ---- */

#define USAGE	"[-n ITERATIONS] [-t SECONDS] [-s SEED] [-w WORKERS]"

int main(int argc, char **argv)
{
	static __u32 progs_before[16384], links_before[16384];
	int np, nl, i, op, status, workers = 2, fail = 0, left_p, left_l;
	long sum[4][NOPS] = {}, total = 0, failures_main = 0, r0, r1, stale = 0;
	const struct nk_opt opts[] = {
		{ 'n', 'l', &required, NULL }, { 't', 'd', &time_cap, NULL },
		{ 's', 'u', &seed, NULL }, { 'w', 'i', &workers, NULL }, { 0 }
	};
	pid_t pid[MAX_WORKERS], tpid;
	char buf[256], lbuf[256];
	double t_end, deadline;

	fails.count = &failures_main;
	seed = nk_seed();
	if (nk_options(argc, argv, opts, USAGE) != argc || required < 1 ||
	    time_cap <= 0 || workers < 1 || workers > MAX_WORKERS)
		nk_usage(argv[0], USAGE);
	setvbuf(stdout, NULL, _IONBF, 0);
	say("# netkit-stress: seed %llu, %ld iterations required, time cap %.0f s, %d workers",
	    seed, required, time_cap, workers);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	np = nk_all_ids(BPF_PROG_GET_NEXT_ID, progs_before, 16384);
	nl = nk_all_ids(BPF_LINK_GET_NEXT_ID, links_before, 16384);

	tpid = fork();
	if (tpid == 0)
		_exit(traffic_main());
	deadline = nk_now() + 60;
	while (!sh->t.ready && nk_now() < deadline && waitpid(tpid, &status, WNOHANG) == 0)
		usleep(10000);
	if (!sh->t.ready) {
		say("not ok - the traffic process did not start");
		kill(tpid, SIGKILL);
		waitpid(tpid, &status, 0);
		return 1;
	}
	r0 = sh->t.received;

	t_start = nk_now();
	for (i = 0; i < workers; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(worker_main(i));
	}
	/*
	 * Workers stop at the cap; give them time for the teardown and for
	 * the longest wait of a netns deletion.
	 */
	for (i = 0; i < workers; i++) {
		if (nk_wait_child(pid[i], t_start + time_cap + 90 + time_cap / 4, &status)) {
			say("not ok - worker %d still running %.0f s after the time cap, killed",
			    i, nk_now() - t_start - time_cap);
			fail = 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!sh->w[i].failures)
				say("not ok - worker %d exited with status %#x", i, status);
			fail = 1;
		}
	}
	t_end = nk_now();
	r1 = sh->t.received;
	sh->t.stop = 1;
	waitpid(tpid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail = 1;

	for (i = 0; i < workers; i++)
		for (op = 0; op < NOPS; op++) {
			sum[0][op] += sh->w[i].n[op];
			sum[1][op] += sh->w[i].ok[op];
			sum[2][op] += sh->w[i].xerr[op];
			sum[3][op] += sh->w[i].bad[op];
		}
	say("# operations run, and the calls they made: as expected success, as expected errno, unexpected");
	say("# %-12s %8s %8s %8s %8s", "operation", "runs", "success", "errno", "wrong");
	for (i = 0; i < NOPS; i++)
		say("# %-12s %8ld %8ld %8ld %8ld", ops[i].name, sum[0][i],
		    sum[1][i], sum[2][i], sum[3][i]);
	for (i = 0; i < workers; i++) {
		total += sh->w[i].iterations;
		say("# worker %d (CPU %d): %ld iterations, %ld failures, %ld pairs gone with their peer's netns, %ld attachments to an empty hook with BPF_PROG_QUERY's stale revision",
		    i, i, sh->w[i].iterations, sh->w[i].failures, sh->w[i].pairs_gone_netns,
		    sh->w[i].stale_query_rev);
		if (sh->w[i].failures || !sh->w[i].finished)
			fail = 1;
		stale += sh->w[i].stale_query_rev;
	}
	nk_report(total >= required, "%ld iterations in %.1f s (required %ld, cap %.0f s)",
		  total, t_end - t_start, required, time_cap);
	/*
	 * netkit keeps its bpf_mprog bundle, and the revision counting in it,
	 * for the life of the device, but once the last program is gone
	 * BPF_PROG_QUERY finds no entry and reports revision 1 (mainline's
	 * netkit_prog_query() and bpf_mprog_query() alike), so an attach with
	 * that revision gets ESTALE; the model expects what mainline does.
	 */
	say("# %ld attachments to an emptied hook used BPF_PROG_QUERY's revision 1 and got ESTALE, as mainline's code does",
	    stale);
	for (i = 0; i < OP_DEFUNCT + 1 && sum[0][i]; i++)
		;
	if (i == OP_DEFUNCT + 1)
		say("ok - every operation type ran");
	else if (total >= required) {
		say("not ok - operation %s never ran", ops[i].name);
		fail = 1;
	}
	nk_report(r1 > r0, "traffic flowed during the stress (%ld datagrams received, %ld before)",
		  r1 - r0, r0);
	if (sh->t.failures)
		fail = 1;

	/* Programs and links are freed after RCU grace periods: wait a bit. */
	deadline = nk_now() + 20;
	left_p = nk_ids_settle(BPF_PROG_GET_NEXT_ID, progs_before, np, buf, sizeof(buf), deadline);
	left_l = nk_ids_settle(BPF_LINK_GET_NEXT_ID, links_before, nl, lbuf, sizeof(lbuf), deadline);
	nk_report(!left_p && !left_l,
		  "no program or link left behind (%d programs, %d links existed before; left: %d programs (ids%s), %d links (ids%s))",
		  np, nl, left_p, buf, left_l, lbuf);
	if (failures_main || nk_failures)
		fail = 1;
	say("# elapsed %.1f s, seed %llu", nk_now() - t_start, seed);
	return fail;
}
