// SPDX-License-Identifier: GPL-2.0
/*
 * mprog-linkrace: race the last reference of a netkit or tcx object
 * against bpf_mprog operations that hold a reference on it with rtnl held
 * (and a netkit pair's delete against the frames it sends, and a detach
 * against a frame still running the programs), on two CPUs, and report a
 * kernel that stops making progress as a failure within seconds.
 *
 *   mprog-linkrace [-k netkit,tcx] [-c CASE,...] [-d SECONDS] [-H SECONDS]
 *                   [-s SEED] [-l]
 *
 * Each case runs for -d seconds (default 3) in a child process with two
 * threads, each pinned to a CPU of its own:
 *
 * - the owner makes an object, publishes it and destroys it again, in a
 *   loop (one "generation" per object);
 * - the racer runs operations on the generation it last saw published,
 *   through the handle the owner published (an fd, an id, a pin path, an
 *   ifindex), and undoes what they changed.
 *
 * An operation "met" the destruction it raced with when it started before
 * the owner finished destroying that generation and ended after the owner
 * had begun to: the two were in the kernel at the same time. The counts of
 * operations and meetings are printed per case, so that a reader sees that
 * the race was exercised. Cases:
 *
 *   close-attach   the owner creates a link and closes its only fd; the
 *                  racer names that link as the anchor of a relative
 *                  BPF_PROG_ATTACH, BPF_PROG_DETACH or BPF_LINK_CREATE
 *                  (BPF_F_BEFORE | BPF_F_LINK, by fd or with BPF_F_ID by
 *                  id), on the link's hook or on the other one. bpf_mprog
 *                  holds that reference with rtnl held; if its put is the
 *                  last and frees the link inline, the link's release takes
 *                  rtnl again: a self-deadlock with 6.1's bpf_link_put()
 *                  before ab5d47bd41b1.
 *   xdpclose-attach  the same with an XDP link (on the pair's peer) as
 *                  the anchor: bpf_mprog takes the reference before it
 *                  checks the link's program type, and an XDP link's
 *                  release takes rtnl too.
 *   unlink-update  the owner creates a link, pins it, closes the fd and
 *                  unlinks the pin; the racer opens the pin and updates the
 *                  link's program (BPF_LINK_UPDATE), then closes it.
 *   devdel-update  the owner creates a netkit pair and a link on it, then
 *                  deletes the device (RTM_DELLINK) and closes the link;
 *                  the racer updates or detaches the link.
 *   netnsdel-attach  the owner creates a netkit pair whose peer lives in a
 *                  new network namespace and drops that namespace; the
 *                  racer attaches a program or creates a link on the
 *                  primary while the namespace's cleanup deletes the pair.
 *   devdel-xmit   (netkit) the owner creates a netkit pair, sets both ends
 *                  up and deletes it again; the racer sends a frame out of
 *                  the primary (AF_PACKET with PACKET_QDISC_BYPASS, straight
 *                  to netkit_xmit). The delete takes the pair's peer
 *                  pointers away before it closes the devices: a frame
 *                  sent in between finds no peer and must be dropped
 *                  (ENOBUFS), not followed.
 *   detach-inflight  the hook runs lr_spin (bpf_loop() for tens of ms,
 *                  marking the frame) and then lr_pass; the racer sends
 *                  frames out of the primary. The owner waits until a frame
 *                  is inside lr_spin, detaches lr_pass (BPF_PROG_DETACH,
 *                  or every other generation BPF_LINK_DETACH of its link)
 *                  and at once attaches it again in front (BPF_F_BEFORE),
 *                  which rewrites the entry the frame started on: a detach
 *                  that returns before the frames running the old entry
 *                  are done (its RCU sync left out) lets that frame find
 *                  lr_spin in its next slot and run it a second time,
 *                  which lr_spin counts. No frame may run it twice.
 *   qdiscdel-attach  (tcx) the owner adds and deletes a clsact qdisc; the
 *                  racer creates and closes tcx links and attaches and
 *                  detaches tcx programs on the same device.
 *
 * Each case runs for each kind of -k where it applies (netkit: the
 * primary and peer hooks of a netkit pair; tcx: ingress and egress of a
 * netkit device). The results of the racer's operations must be among the
 * answers mainline gives for the states the object passes through; after
 * each case no program or link may be left (the census of
 * BPF_{PROG,LINK}_GET_NEXT_ID, given time for deferred frees) and its
 * devices must be gone.
 *
 * The parent watches the two threads' heartbeats. If either has not moved
 * for -H seconds (default 5), the kernel is wedged: the parent prints the
 * threads' state, wait channel and kernel stack, reports the case as
 * failed and exits 3 at once, without running more cases (whatever holds
 * rtnl would block them too).
 *
 * Runs as root in the test guest; -l lists the cases. Exit status: 0 all
 * passed, 1 a check failed, 2 usage or setup error, 3 the kernel stopped
 * making progress.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/netkit-lib.h"

/* Mainline's numbers; the netkit-only cut's uapi does not name the tcx ones. */
#define AT_TCX_INGRESS		46
#define AT_TCX_EGRESS		47
#define ACT_TCX_NEXT		(-1)	/* TCX_NEXT */
#define AT_NETKIT_PRIMARY	54
#define AT_NETKIT_PEER		55

#define MAX_ERRNO_SLOTS		8
#define NR_OPS			8

enum kind { KIND_NETKIT, KIND_TCX, NR_KINDS };
static const char *const kind_names[NR_KINDS] = { "netkit", "tcx" };
static const int kind_hooks[NR_KINDS][2] = {
	{ AT_NETKIT_PRIMARY, AT_NETKIT_PEER },
	{ AT_TCX_INGRESS, AT_TCX_EGRESS },
};

/* What one kind of racer operation did during a case. */
struct op_stats {
	const char *name;
	unsigned long n, met;
	int err[MAX_ERRNO_SLOTS];	/* distinct results seen (0 = success) */
	unsigned long err_n[MAX_ERRNO_SLOTS];
	int bad_err;			/* a result outside the allowed set */
};

/*
 * Shared between the parent and the case's child (MAP_SHARED), and between
 * the child's two threads.
 */
struct shared {
	/* heartbeats, bumped by each thread at least once per loop */
	volatile unsigned long beat[2];
	volatile int stop;
	volatile int tid[2];
	/* the generation published and how far its destruction got */
	volatile long live, started, closing, closed;
	volatile int link_fd, ifindex, peer_ifindex;
	volatile __u32 link_id;
	char pin[64];
	unsigned long gens;
	struct op_stats ops[NR_OPS];
	int nops;
	char failure[512];
	char note[128];		/* a case's own count, printed after the ops */
};

/* detach-inflight: lr_spin's map value, mapped into the child */
struct spin_state {
	__u64 inside;		/* a frame is in lr_spin's loop */
	__u64 twice;		/* frames that ran lr_spin a second time */
	__u64 frames;		/* frames that ran it */
};

struct ctx;
struct race_case {
	const char *name;
	unsigned int kinds;		/* bit per enum kind */
	int (*setup)(struct ctx *c);
	int (*owner)(struct ctx *c, long gen);	/* make, publish, destroy */
	void (*racer)(struct ctx *c);		/* one operation */
	const char *const *ops;			/* names of the racer's ops */
	int xdp_anchor;		/* close-attach: the anchor is an XDP link */
};

struct ctx {
	struct shared *sh;
	const struct race_case *rc;
	enum kind kind;
	int hook[2];
	int prog[2];		/* a pass program per hook */
	int prog_alt[2];	/* another one, for updates */
	int prog_r[2];		/* the racer's own, for its attachments */
	int xdp_prog;		/* an XDP_PASS program, for XDP link anchors */
	int nl;			/* the owner's rtnetlink socket */
	int home_ns;
	int dev, dev_peer;	/* the case's long-lived netkit pair, if any */
	int pkt;		/* the racer's AF_PACKET socket, for frames */
	volatile struct spin_state *spin;	/* detach-inflight: lr_spin's map */
	int spin_link;		/* detach-inflight: lr_pass's link, or -1 */
	__u64 rng;
};

static double seconds = 3, hang_after = 5;
static __u64 seed;
static int failed;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Record the case's first failure; the case then stops. */
static void fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->sh->failure[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->sh->failure, sizeof(c->sh->failure), fmt, ap);
	va_end(ap);
	c->sh->stop = 1;
}

/* lib/'s xorshift64*, seeded per case and thread */
static __u64 rnd(struct ctx *c)
{
	return nk_rand(&c->rng);
}

/* A few hundred loop turns of jitter, so that the two sides shift. */
static void jitter(struct ctx *c)
{
	volatile unsigned int i, n = rnd(c) % 512;

	for (i = 0; i < n; i++)
		;
}

/* ---- bpf(2) and rtnetlink, on lib/ ---- */

static int link_create(int ifindex, int type, int prog, __u32 flags,
		       __u32 relative)
{
	return nk_link_create(ifindex, type, prog, flags, relative, 0);
}

static int prog_attach(int cmd, int ifindex, int type, int prog, __u32 flags,
		       __u32 relative)
{
	return cmd == BPF_PROG_ATTACH ?
	       nk_prog_attach(ifindex, type, prog, flags, relative, 0, 0) :
	       nk_prog_detach(ifindex, type, prog, flags, relative, 0);
}

/* Send with NLM_F_ACK and wait for the ack: 0 or -errno. Each call has a
 * sequence of its own, so that the threads' requests do not mix.
 */
static int nl_talk(int fd, struct nk_msg *m)
{
	struct nk_nl nl = { .fd = fd };

	m->n.nlmsg_flags |= NLM_F_ACK;
	return nk_nl_talk(&nl, m, NULL, 0);
}

/* A netkit pair PRIMARY/PEER in L3 mode; the peer in netns nsfd if >= 0. */
static int nl_netkit_add(int fd, const char *name, const char *peer, int nsfd)
{
	struct nk_pair_spec sp = NK_PAIR_SPEC(name, peer);
	struct nk_msg m;

	sp.mode = NETKIT_L3;
	sp.peer_nsfd = nsfd;
	nk_netkit_pair(&m, 0, &sp);
	return nl_talk(fd, &m);
}

static int nl_link_del(int fd, int ifindex)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_DELLINK, 0, ifindex);
	return nl_talk(fd, &m);
}

static int nl_clsact(int fd, int ifindex, int add)
{
	struct nk_nl nl = { .fd = fd };

	return nk_clsact(&nl, ifindex, TC_H_CLSACT, add, NULL, 0);
}

/* ---- racer bookkeeping ---- */

static int op_index(struct ctx *c, const char *name)
{
	struct shared *sh = c->sh;
	int i;

	for (i = 0; i < sh->nops; i++)
		if (!strcmp(sh->ops[i].name, name))
			return i;
	return -1;
}

/*
 * Account one racer operation on generation gen that returned err (0 or
 * -errno) and started when generation gen had been destroyed up to
 * closed0. allowed lists the errnos mainline may answer, 0-terminated
 * (success is always allowed).
 */
static void op_done(struct ctx *c, const char *name, long gen, long closed0,
		    int err, const int *allowed)
{
	struct op_stats *s = &c->sh->ops[op_index(c, name)];
	int i, ok = !err;

	s->n++;
	if (closed0 < gen && c->sh->closing >= gen)
		s->met++;
	for (i = 0; !ok && allowed[i]; i++)
		ok = -err == allowed[i];
	if (!ok && !s->bad_err) {
		s->bad_err = err;
		fail(c, "%s on generation %ld: %s, not an answer mainline gives here",
		     name, gen, nk_errname(err));
	}
	for (i = 0; i < MAX_ERRNO_SLOTS; i++) {
		if (s->err_n[i] && s->err[i] == err) {
			s->err_n[i]++;
			return;
		}
		if (!s->err_n[i]) {
			s->err[i] = err;
			s->err_n[i] = 1;
			return;
		}
	}
}

/* Read what the owner published: the generation, or 0 if none yet. */
static long snapshot(struct ctx *c, long *closed0)
{
	long gen = __atomic_load_n(&c->sh->live, __ATOMIC_ACQUIRE);

	*closed0 = __atomic_load_n(&c->sh->closed, __ATOMIC_ACQUIRE);
	__atomic_store_n(&c->sh->started, gen, __ATOMIC_RELEASE);
	return gen;
}

static void publish(struct ctx *c, long gen)
{
	__atomic_store_n(&c->sh->live, gen, __ATOMIC_RELEASE);
}

/*
 * The owner is about to destroy generation gen: wait (20 ms at most) until
 * the racer has started an operation on it, then a random few hundred
 * loop turns, so that the destruction lands inside the racer's syscalls
 * at varying depths.
 */
static void closing(struct ctx *c, long gen)
{
	double t0 = nk_now();

	while (__atomic_load_n(&c->sh->started, __ATOMIC_ACQUIRE) < gen &&
	       !c->sh->stop && nk_now() - t0 < 0.02)
		c->sh->beat[0]++;
	jitter(c);
	__atomic_store_n(&c->sh->closing, gen, __ATOMIC_RELEASE);
}

static void closed(struct ctx *c, long gen)
{
	__atomic_store_n(&c->sh->closed, gen, __ATOMIC_RELEASE);
}

static int res(int rc)
{
	return rc < 0 ? -errno : 0;
}

/* ---- setups ---- */

static int make_pair(struct ctx *c, const char *a, const char *b)
{
	int err = nl_netkit_add(c->nl, a, b, -1);

	if (err) {
		out("# RTM_NEWLINK netkit %s/%s: %s\n", a, b, nk_errname(err));
		return -1;
	}
	c->dev = if_nametoindex(a);
	c->dev_peer = if_nametoindex(b);
	return c->dev && c->dev_peer ? 0 : -1;
}

/* The hooks' devices: netkit's primary (either hook), tcx on the primary. */
static int setup_pair(struct ctx *c)
{
	return make_pair(c, "nklr0", "nklr1");
}

/* ---- close-attach ---- */

static const char *const close_attach_ops[] = {
	"attach-id", "attach-fd", "detach-id", "detach-fd", "link-id", "link-fd",
	NULL
};

static int owner_close(struct ctx *c, long gen)
{
	double t0 = nk_now();
	int fd;

	/*
	 * When the racer's reference on the last generation's link was the
	 * last one, that link is released from the workqueue, a moment
	 * after the close (as in mainline): until then the hook still holds
	 * it, and a new link answers EBUSY (XDP) or EEXIST (the same
	 * program on the hook).
	 */
	do {
		c->sh->beat[0]++;
		if (c->rc->xdp_anchor)
			fd = link_create(c->dev_peer, BPF_XDP, c->xdp_prog, 0, 0);
		else
			fd = link_create(c->dev, c->hook[0], c->prog[0], 0, 0);
	} while (fd < 0 && (errno == EBUSY || errno == EEXIST) &&
		 nk_now() - t0 < hang_after);
	if (fd < 0) {
		fail(c, "owner: BPF_LINK_CREATE: %s", nk_errname(-errno));
		return -1;
	}
	c->sh->link_fd = fd;
	c->sh->link_id = nk_link_id(fd);
	publish(c, gen);
	closing(c, gen);
	close(fd);
	closed(c, gen);
	return 0;
}

static void racer_close(struct ctx *c)
{
	/*
	 * Mainline's answers for an anchor that is gone or not on this hook
	 * (ENOENT; EBADF for a closed fd; EINVAL for an fd or id that names
	 * no link of this program type), and for a detach of the racer's
	 * program, which is not attached (ENOENT) or not next to the anchor
	 * (ERANGE).
	 */
	static const int allowed[] = { ENOENT, EBADF, EINVAL, ERANGE, 0 };
	unsigned int pick = rnd(c);
	int h = pick & 1, by_id = (pick >> 1) & 1, op = (pick >> 2) % 3;
	__u32 flags = BPF_F_BEFORE | BPF_F_LINK | (by_id ? BPF_F_ID : 0);
	char name[16];
	long gen, closed0;
	__u32 rel;
	int err, fd;

	gen = snapshot(c, &closed0);
	if (!gen)
		return;
	rel = by_id ? c->sh->link_id : (__u32)c->sh->link_fd;
	snprintf(name, sizeof(name), "%s-%s", op == 0 ? "attach" :
		 op == 1 ? "detach" : "link", by_id ? "id" : "fd");
	switch (op) {
	case 0:
		err = res(prog_attach(BPF_PROG_ATTACH, c->dev, c->hook[h],
				      c->prog_r[h], flags, rel));
		op_done(c, name, gen, closed0, err, allowed);
		if (!err && prog_attach(BPF_PROG_DETACH, c->dev, c->hook[h],
					c->prog_r[h], 0, 0))
			fail(c, "racer: detach of its own program: %s",
			     nk_errname(-errno));
		break;
	case 1:
		err = res(prog_attach(BPF_PROG_DETACH, c->dev, c->hook[h],
				      c->prog_r[h], flags, rel));
		op_done(c, name, gen, closed0, err, allowed);
		break;
	default:
		fd = link_create(c->dev, c->hook[h], c->prog_r[h], flags, rel);
		err = res(fd);
		op_done(c, name, gen, closed0, err, allowed);
		if (fd >= 0)
			close(fd);
		break;
	}
}

/* ---- unlink-update ---- */

static const char *const unlink_update_ops[] = { "get-update", NULL };

static int owner_unlink(struct ctx *c, long gen)
{
	union bpf_attr a;
	int fd;

	double t0 = nk_now();

	/*
	 * The racer's fd may keep the last generation's link, and with it
	 * the program, on the hook for a moment: EEXIST until it closes it.
	 */
	while ((fd = link_create(c->dev, c->hook[0], c->prog[0], 0, 0)) < 0 &&
	       errno == EEXIST && nk_now() - t0 < hang_after)
		c->sh->beat[0]++;
	if (fd < 0) {
		fail(c, "owner: BPF_LINK_CREATE: %s", nk_errname(-errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)c->sh->pin;
	a.bpf_fd = fd;
	if (nk_bpf(BPF_OBJ_PIN, &a)) {
		fail(c, "owner: BPF_OBJ_PIN %s: %s", c->sh->pin, nk_errname(-errno));
		close(fd);
		return -1;
	}
	close(fd);
	publish(c, gen);
	closing(c, gen);
	if (unlink(c->sh->pin))
		fail(c, "owner: unlink %s: %s", c->sh->pin, nk_errname(-errno));
	closed(c, gen);
	return 0;
}

static void racer_unlink(struct ctx *c)
{
	/*
	 * The pin is gone (ENOENT); an update of a live link succeeds, or
	 * answers EEXIST while the program is also on the hook through the
	 * next generation's link.
	 */
	static const int allowed[] = { ENOENT, EEXIST, 0 };
	long gen, closed0;
	union bpf_attr a;
	int fd, err;

	gen = snapshot(c, &closed0);
	if (!gen)
		return;
	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)c->sh->pin;
	fd = nk_bpf(BPF_OBJ_GET, &a);
	if (fd < 0) {
		op_done(c, "get-update", gen, closed0, -errno, allowed);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.link_update.link_fd = fd;
	a.link_update.new_prog_fd = c->prog_alt[0];
	err = res(nk_bpf(BPF_LINK_UPDATE, &a));
	op_done(c, "get-update", gen, closed0, err, allowed);
	close(fd);
}

/*
 * Publish generation gen, whose device is c->sh->ifindex (named name),
 * and delete that device as the destruction the racer meets.
 */
static void publish_delete(struct ctx *c, long gen, const char *name)
{
	int err;

	publish(c, gen);
	closing(c, gen);
	err = nl_link_del(c->nl, c->sh->ifindex);
	closed(c, gen);
	if (err)
		fail(c, "owner: RTM_DELLINK %s: %s", name, nk_errname(err));
}

/* ---- devdel-update ---- */

static const char *const devdel_update_ops[] = { "update", "detach", NULL };

static int owner_devdel(struct ctx *c, long gen)
{
	int fd, err;

	err = nl_netkit_add(c->nl, "nklr2", "nklr3", -1);
	c->sh->ifindex = if_nametoindex("nklr2");
	if (err || !c->sh->ifindex) {
		fail(c, "owner: RTM_NEWLINK nklr2/nklr3: %s", nk_errname(err));
		return -1;
	}
	fd = link_create(c->sh->ifindex, c->hook[0], c->prog[0], 0, 0);
	if (fd < 0) {
		fail(c, "owner: BPF_LINK_CREATE: %s", nk_errname(-errno));
		nl_link_del(c->nl, c->sh->ifindex);
		return -1;
	}
	c->sh->link_fd = fd;
	publish_delete(c, gen, "nklr2");
	/*
	 * The racer may still use the number: it then names a closed fd
	 * or the next generation's link, both answers allowed below.
	 */
	c->sh->link_fd = -1;
	close(fd);
	return 0;
}

static void racer_devdel(struct ctx *c)
{
	/*
	 * A live link updates (0) or detaches (0); a defunct one answers
	 * ENOLINK to both; a closed fd EBADF, a reused one EINVAL; updating
	 * a detached link's program: ENOLINK.
	 */
	static const int allowed[] = { ENOLINK, EBADF, EINVAL, 0 };
	int detach = rnd(c) & 1, fd, err;
	long gen, closed0;
	union bpf_attr a;

	gen = snapshot(c, &closed0);
	fd = c->sh->link_fd;
	if (!gen || fd < 0)
		return;
	memset(&a, 0, sizeof(a));
	if (detach) {
		a.link_detach.link_fd = fd;
		err = res(nk_bpf(BPF_LINK_DETACH, &a));
	} else {
		a.link_update.link_fd = fd;
		a.link_update.new_prog_fd = c->prog_alt[0];
		err = res(nk_bpf(BPF_LINK_UPDATE, &a));
	}
	op_done(c, detach ? "detach" : "update", gen, closed0, err, allowed);
}

/* ---- devdel-xmit ---- */

static const char *const devdel_xmit_ops[] = { "send", NULL };

static int owner_devdel_xmit(struct ctx *c, long gen)
{
	struct nk_nl nl = { .fd = c->nl };
	int err, peer;

	err = nl_netkit_add(c->nl, "nklr6", "nklr7", -1);
	c->sh->ifindex = if_nametoindex("nklr6");
	peer = if_nametoindex("nklr7");
	if (err || !c->sh->ifindex || !peer) {
		fail(c, "owner: RTM_NEWLINK nklr6/nklr7: %s", nk_errname(err));
		return -1;
	}
	/* both up: the carrier is on, a frame reaches netkit_xmit */
	err = nk_pair_up(&nl, c->sh->ifindex, &nl, peer, 0);
	if (err) {
		fail(c, "owner: nklr6/nklr7 up: %s", nk_errname(err));
		nl_link_del(c->nl, c->sh->ifindex);
		return -1;
	}
	publish_delete(c, gen, "nklr6");
	return 0;
}

/*
 * Send a broadcast frame out of ifindex from the racer's AF_PACKET socket
 * (made on first use; with PACKET_QDISC_BYPASS straight to the driver's
 * xmit, else through __dev_queue_xmit() and tcx egress): 0 or -errno;
 * 1 if there is no socket (the case's failure is recorded).
 */
static int send_frame(struct ctx *c, int ifindex, int bypass)
{
	/* from a locally administered address, local ethertype */
	static const unsigned char frame[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		ETH_P_802_EX1 >> 8, ETH_P_802_EX1 & 0xff,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };

	if (c->pkt < 0) {
		c->pkt = socket(AF_PACKET, SOCK_RAW, 0);
		if (c->pkt < 0 || setsockopt(c->pkt, SOL_PACKET, PACKET_QDISC_BYPASS,
					     &bypass, sizeof(bypass))) {
			fail(c, "racer: AF_PACKET socket: %s", nk_errname(-errno));
			return 1;
		}
	}
	sll.sll_ifindex = ifindex;
	sll.sll_protocol = htons(ETH_P_802_EX1);
	return res(sendto(c->pkt, frame, sizeof(frame), 0,
			  (struct sockaddr *)&sll, sizeof(sll)));
}

static void racer_devdel_xmit(struct ctx *c)
{
	/*
	 * Sent (0: the peer took it), dropped by netkit or on the way to it
	 * (ENOBUFS: no peer, or the device no longer running), the device
	 * down (ENETDOWN) or gone (ENXIO).
	 */
	static const int allowed[] = { ENOBUFS, ENETDOWN, ENXIO, 0 };
	long gen, closed0;
	int err;

	gen = snapshot(c, &closed0);
	if (!gen)
		return;
	err = send_frame(c, c->sh->ifindex, 1);
	if (err <= 0)
		op_done(c, "send", gen, closed0, err, allowed);
}

/* ---- netnsdel-attach ---- */

static const char *const netnsdel_attach_ops[] = { "attach", "link", NULL };

static int owner_netnsdel(struct ctx *c, long gen)
{
	double t0;
	int nsfd, err, ifindex;

	if (unshare(CLONE_NEWNET)) {
		fail(c, "owner: unshare(CLONE_NEWNET): %s", nk_errname(-errno));
		return -1;
	}
	nsfd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (setns(c->home_ns, CLONE_NEWNET) || nsfd < 0) {
		fail(c, "owner: back to the first netns: %s", nk_errname(-errno));
		return -1;
	}
	err = nl_netkit_add(c->nl, "nklr4", "nklr5", nsfd);
	ifindex = if_nametoindex("nklr4");
	if (err || !ifindex) {
		fail(c, "owner: RTM_NEWLINK nklr4/nklr5 (peer in a new netns): %s",
		     nk_errname(err));
		close(nsfd);
		return -1;
	}
	c->sh->ifindex = ifindex;
	publish(c, gen);
	closing(c, gen);
	close(nsfd);	/* the last reference: the netns' cleanup deletes the pair */
	t0 = nk_now();
	while (if_nametoindex("nklr4") == (unsigned int)ifindex) {
		c->sh->beat[0]++;
		if (nk_now() - t0 > 2 * hang_after) {
			fail(c, "owner: nklr4 still there %.0f s after its peer's netns was released",
			     nk_now() - t0);
			return -1;
		}
		usleep(1000);
	}
	closed(c, gen);
	return 0;
}

/*
 * One attach-and-detach or link-create-and-close of the racer's program on
 * ifindex, on a random hook. The detach of a program it attached must work
 * too when must_detach (the device cannot have gone meanwhile).
 */
static void racer_attach_or_link(struct ctx *c, int ifindex,
				 const int *allowed, int must_detach)
{
	int link = rnd(c) & 1, h = rnd(c) & 1, fd, err;
	long gen, closed0;

	gen = snapshot(c, &closed0);
	if (!gen)
		return;
	if (link) {
		fd = link_create(ifindex, c->hook[h], c->prog_r[h], 0, 0);
		err = res(fd);
		op_done(c, "link", gen, closed0, err, allowed);
		if (fd >= 0)
			close(fd);
		return;
	}
	err = res(prog_attach(BPF_PROG_ATTACH, ifindex, c->hook[h],
			      c->prog_r[h], 0, 0));
	op_done(c, "attach", gen, closed0, err, allowed);
	if (!err && prog_attach(BPF_PROG_DETACH, ifindex, c->hook[h],
				c->prog_r[h], 0, 0) && must_detach)
		fail(c, "racer: detach of its own program: %s",
		     nk_errname(-errno));
}

static void racer_netnsdel(struct ctx *c)
{
	/* the device is gone (ENODEV) or the pair lost its peer (ENXIO) */
	static const int allowed[] = { ENODEV, ENXIO, 0 };

	racer_attach_or_link(c, c->sh->ifindex, allowed, 0);
}

/* ---- detach-inflight ---- */

#define SPIN_MARK	0x6e6b6c72	/* skb->mark: lr_spin ran on this frame */
#define SPIN_LOOPS	(1 << 21)	/* bpf_loop() turns: tens of ms in TCG */

static const char *const detach_inflight_ops[] = { "send", NULL };

/* netkit: the primary's hook; tcx: egress, which a frame sent passes */
static int spin_hook(struct ctx *c)
{
	return c->kind == KIND_TCX ? 1 : 0;
}

/*
 * lr_spin: the first time a frame comes by, mark it, count it in frames,
 * raise inside, run bpf_loop() SPIN_LOOPS times, lower inside; a frame
 * that comes by marked counts in twice. Then the next program (NEXT).
 */
static int load_spin(struct ctx *c, int map)
{
	const int mark = offsetof(struct __sk_buff, mark);
	const struct bpf_insn insns[] = {
		/* 0 */ { BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0 },
		/* 1 */ { BPF_LD | BPF_DW | BPF_IMM, 7, BPF_PSEUDO_MAP_VALUE, 0, map },
		/* 2 */ { 0, 0, 0, 0, 0 },
		/* 3 */ { BPF_LDX | BPF_MEM | BPF_W, 2, 6, mark, 0 },
		/* 4 */ { BPF_JMP | BPF_JNE | BPF_K, 2, 0, 8 - 4 - 1, SPIN_MARK },
		/* 5 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 1 },
		/* 6 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			  offsetof(struct spin_state, twice), BPF_ADD },
		/* 7 */ { BPF_JMP | BPF_JA, 0, 0, 21 - 7 - 1, 0 },
		/* 8 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, SPIN_MARK },
		/* 9 */ { BPF_STX | BPF_MEM | BPF_W, 6, 3, mark, 0 },
		/* 10 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 1 },
		/* 11 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			   offsetof(struct spin_state, frames), BPF_ADD },
		/* 12 */ { BPF_STX | BPF_MEM | BPF_DW, 7, 3,
			   offsetof(struct spin_state, inside), 0 },
		/* 13 */ { BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, SPIN_LOOPS },
		/* 14 */ { BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_FUNC, 0, 23 - 14 - 1 },
		/* 15 */ { 0, 0, 0, 0, 0 },
		/* 16 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0 },
		/* 17 */ { BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0 },
		/* 18 */ { BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop },
		/* 19 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0 },
		/* 20 */ { BPF_STX | BPF_MEM | BPF_DW, 7, 3,
			   offsetof(struct spin_state, inside), 0 },
		/* 21 */ { BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0,
			   c->kind == KIND_TCX ? ACT_TCX_NEXT : NETKIT_NEXT },
		/* 22 */ { BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
		/* 23: the callback: 0, go on */
		/* 23 */ { BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0 },
		/* 24 */ { BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	static char log[16384];
	int fd;

	fd = nk_prog_load_cb(BPF_PROG_TYPE_SCHED_CLS, c->hook[spin_hook(c)],
			     insns, sizeof(insns) / sizeof(insns[0]), 23,
			     "lr_spin", log, sizeof(log));
	if (fd < 0)
		out("# lr_spin refused: %s\n%s", nk_errname(fd), log);
	return fd;
}

/* The pair up, lr_spin's map mapped, lr_spin then lr_pass on the hook. */
static int setup_spin(struct ctx *c)
{
	struct nk_nl nl = { .fd = c->nl };
	int h = spin_hook(c), map, spin, err;
	void *v;

	if (make_pair(c, "nklr0", "nklr1"))
		return -1;
	err = nk_pair_up(&nl, c->dev, &nl, c->dev_peer, 0);
	if (err) {
		out("# nklr0/nklr1 up: %s\n", nk_errname(err));
		return -1;
	}
	map = nk_mmap_array(sizeof(struct spin_state), &v);
	if (map < 0) {
		out("# lr_spin's map: %s\n", nk_errname(map));
		return -1;
	}
	spin = load_spin(c, map);
	close(map);
	if (spin < 0)
		return -1;
	c->spin = v;
	err = prog_attach(BPF_PROG_ATTACH, c->dev, c->hook[h], spin, 0, 0);
	if (!err)
		err = prog_attach(BPF_PROG_ATTACH, c->dev, c->hook[h],
				  c->prog[h], 0, 0);
	close(spin);
	if (err)
		out("# lr_spin and lr_pass on nklr0: %s\n", nk_errname(err));
	return err ? -1 : 0;
}

static int owner_detach_inflight(struct ctx *c, long gen)
{
	int h = spin_hook(c), type = c->hook[h], pass = c->prog[h], err;
	double t0 = nk_now();

	publish(c, gen);
	/* a frame sent after the publish is in lr_spin's loop */
	while (__atomic_load_n(&c->sh->started, __ATOMIC_ACQUIRE) < gen ||
	       !__atomic_load_n(&c->spin->inside, __ATOMIC_ACQUIRE)) {
		c->sh->beat[0]++;
		if (c->sh->stop)
			return 0;
		if (nk_now() - t0 > 2) {
			fail(c, "owner: no frame in lr_spin for 2 s");
			return -1;
		}
	}
	closing(c, gen);
	if (c->spin_link >= 0) {
		err = nk_link_detach(c->spin_link);
		close(c->spin_link);
		c->spin_link = -1;
	} else {
		err = prog_attach(BPF_PROG_DETACH, c->dev, type, pass, 0, 0);
	}
	closed(c, gen);
	/* lr_pass first: the entry the frame started on is written now */
	if (!err)
		err = prog_attach(BPF_PROG_ATTACH, c->dev, type, pass, BPF_F_BEFORE, 0);
	/*
	 * and lr_spin first again for the next generation, lr_pass after it
	 * attached as a program (even generations next) or a link (odd)
	 */
	if (!err)
		err = prog_attach(BPF_PROG_DETACH, c->dev, type, pass, 0, 0);
	if (!err && gen & 1) {
		c->spin_link = link_create(c->dev, type, pass, 0, 0);
		err = c->spin_link < 0 ? c->spin_link : 0;
	} else if (!err) {
		err = prog_attach(BPF_PROG_ATTACH, c->dev, type, pass, 0, 0);
	}
	if (err) {
		fail(c, "owner: detach and attach of lr_pass: %s", nk_errname(err));
		return -1;
	}
	return 0;
}

static void racer_detach_inflight(struct ctx *c)
{
	static const int allowed[] = { 0 };
	unsigned long long twice, frames;
	long gen, closed0;
	int err;

	gen = snapshot(c, &closed0);
	if (!gen)
		return;
	err = send_frame(c, c->dev, 0);
	if (err > 0)
		return;
	op_done(c, "send", gen, closed0, err, allowed);
	twice = __atomic_load_n(&c->spin->twice, __ATOMIC_ACQUIRE);
	frames = __atomic_load_n(&c->spin->frames, __ATOMIC_ACQUIRE);
	snprintf(c->sh->note, sizeof(c->sh->note),
		 "lr_spin ran on %llu frames, %llu of them twice", frames, twice);
	if (twice)
		fail(c, "%llu of %llu frames ran lr_spin twice: the detach on generation %ld returned while a frame still ran the entry it replaced, and the attach after it rewrote that entry",
		     twice, frames, gen);
}

/* ---- qdiscdel-attach (tcx) ---- */

static const char *const qdiscdel_attach_ops[] = { "attach", "link", NULL };

static int owner_qdiscdel(struct ctx *c, long gen)
{
	int err = nl_clsact(c->nl, c->dev, 1);

	if (err) {
		fail(c, "owner: RTM_NEWQDISC clsact: %s", nk_errname(err));
		return -1;
	}
	publish(c, gen);
	closing(c, gen);
	err = nl_clsact(c->nl, c->dev, 0);
	closed(c, gen);
	if (err)
		fail(c, "owner: RTM_DELQDISC clsact: %s", nk_errname(err));
	return 0;
}

static void racer_qdiscdel(struct ctx *c)
{
	/* tcx and clsact share the hook: tcx must work whatever clsact does */
	static const int allowed[] = { 0 };

	racer_attach_or_link(c, c->dev, allowed, 1);
}

#define BOTH	(1 << KIND_NETKIT | 1 << KIND_TCX)
static const struct race_case cases[] = {
	{ .name = "close-attach", .kinds = BOTH, .setup = setup_pair,
	  .owner = owner_close, .racer = racer_close, .ops = close_attach_ops },
	{ .name = "xdpclose-attach", .kinds = BOTH, .setup = setup_pair,
	  .owner = owner_close, .racer = racer_close, .ops = close_attach_ops,
	  .xdp_anchor = 1 },
	{ .name = "unlink-update", .kinds = BOTH, .setup = setup_pair,
	  .owner = owner_unlink, .racer = racer_unlink, .ops = unlink_update_ops },
	{ .name = "devdel-update", .kinds = BOTH,
	  .owner = owner_devdel, .racer = racer_devdel, .ops = devdel_update_ops },
	{ .name = "devdel-xmit", .kinds = 1 << KIND_NETKIT,
	  .owner = owner_devdel_xmit, .racer = racer_devdel_xmit,
	  .ops = devdel_xmit_ops },
	{ .name = "netnsdel-attach", .kinds = BOTH,
	  .owner = owner_netnsdel, .racer = racer_netnsdel,
	  .ops = netnsdel_attach_ops },
	{ .name = "detach-inflight", .kinds = BOTH, .setup = setup_spin,
	  .owner = owner_detach_inflight, .racer = racer_detach_inflight,
	  .ops = detach_inflight_ops },
	{ .name = "qdiscdel-attach", .kinds = 1 << KIND_TCX, .setup = setup_pair,
	  .owner = owner_qdiscdel, .racer = racer_qdiscdel,
	  .ops = qdiscdel_attach_ops },
};
#define NR_CASES (int)(sizeof(cases) / sizeof(cases[0]))

/* ---- the child: two threads ---- */

static void *owner_thread(void *arg)
{
	struct ctx *c = arg;
	long gen;

	nk_pin_cpu(0);
	c->sh->tid[0] = gettid();
	for (gen = 1; !c->sh->stop; gen++) {
		unsigned long racer = c->sh->beat[1];
		double t0 = nk_now();

		c->sh->beat[0]++;
		if (c->rc->owner(c, gen))
			break;
		c->sh->gens = gen;
		/*
		 * Let the racer run at least one operation per generation (it
		 * may lose every contest for rtnl otherwise), for 50 ms at most.
		 */
		while (c->sh->beat[1] == racer && !c->sh->stop && nk_now() - t0 < 0.05)
			c->sh->beat[0]++;
	}
	c->sh->stop = 1;
	return NULL;
}

static void *racer_thread(void *arg)
{
	struct ctx c = *(struct ctx *)arg;

	c.rng ^= 0x9e3779b97f4a7c15ULL;
	nk_pin_cpu(1);
	c.sh->tid[1] = gettid();
	while (!c.sh->stop) {
		c.sh->beat[1]++;
		c.rc->racer(&c);
	}
	return NULL;
}

static int load_progs(struct ctx *c)
{
	int h;

	for (h = 0; h < 2; h++) {
		c->prog[h] = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, c->hook[h],
					  c->kind == KIND_TCX ? ACT_TCX_NEXT : NETKIT_NEXT,
					  "lr_pass");
		c->prog_alt[h] = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, c->hook[h],
					      c->kind == KIND_TCX ? ACT_TCX_NEXT : NETKIT_NEXT,
					      "lr_alt");
		c->prog_r[h] = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, c->hook[h],
					    c->kind == KIND_TCX ? ACT_TCX_NEXT : NETKIT_NEXT,
					    "lr_racer");
		if (c->prog[h] < 0 || c->prog_alt[h] < 0 || c->prog_r[h] < 0)
			return -1;
	}
	c->xdp_prog = nk_prog_load(BPF_PROG_TYPE_XDP, BPF_XDP, XDP_PASS,
				   "lr_xdp");
	return c->xdp_prog < 0 ? -1 : 0;
}

static int run_child(struct ctx *c)
{
	struct nk_nl nl;
	pthread_t t[2];
	double t0;

	c->nl = nk_nl_open(&nl, 0) ? -1 : nl.fd;
	c->home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (c->nl < 0 || c->home_ns < 0 || load_progs(c)) {
		fail(c, "setup: netlink socket, netns or program load: %s",
		     nk_errname(-errno));
		return 2;
	}
	if (c->rc->setup && c->rc->setup(c)) {
		fail(c, "setup of %s failed", c->rc->name);
		return 2;
	}
	if (pthread_create(&t[0], NULL, owner_thread, c) ||
	    pthread_create(&t[1], NULL, racer_thread, c)) {
		fail(c, "pthread_create failed");
		return 2;
	}
	t0 = nk_now();
	while (!c->sh->stop && nk_now() - t0 < seconds)
		usleep(20000);
	c->sh->stop = 1;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	if (c->dev)
		nl_link_del(c->nl, c->dev);
	return 0;
}

/* ---- the parent ---- */

static void show_task(pid_t pid, int tid, const char *who)
{
	char path[96], buf[4096];
	ssize_t n;
	int fd;

	out("#   %s thread %d:\n", who, tid);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		out("#     wchan %s\n", buf);
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		out("#     (no %s: %s)\n", path, strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		out("#     %s\n", l);
}

static void report_ops(const struct shared *sh)
{
	for (int i = 0; i < sh->nops; i++) {
		const struct op_stats *s = &sh->ops[i];
		char errs[256] = "";
		int len = 0;

		for (int j = 0; j < MAX_ERRNO_SLOTS && s->err_n[j]; j++)
			len += snprintf(errs + len, sizeof(errs) - len, "%s%s %lu",
					j ? ", " : "", nk_errname(s->err[j]),
					s->err_n[j]);
		out("#   %-10s %6lu ops, %5lu met the destruction (%s)\n",
		    s->name, s->n, s->met, len ? errs : "-");
	}
}

static int run_case(const struct race_case *rc, enum kind kind, int idx)
{
	struct shared *sh;
	unsigned long last[2] = { 0, 0 };
	double moved[2], t0 = nk_now();
	struct nk_census before, after;	/* all programs and links */
	int status, i, wedged = -1;
	struct ctx c;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(&c, 0, sizeof(c));
	c.sh = sh;
	c.rc = rc;
	c.kind = kind;
	c.hook[0] = kind_hooks[kind][0];
	c.hook[1] = kind_hooks[kind][1];
	c.rng = seed ^ ((uint64_t)(idx + 1) * 0x2545f4914f6cdd1dULL);
	c.dev = c.dev_peer = 0;
	c.pkt = -1;
	c.spin_link = -1;
	sh->link_fd = -1;
	snprintf(sh->pin, sizeof(sh->pin), "/sys/fs/bpf/nklr_%d", getpid());
	for (i = 0; rc->ops[i]; i++)
		sh->ops[i].name = rc->ops[i];
	sh->nops = i;
	nk_census_take(NULL, NULL, -1, &before);

	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		_exit(run_child(&c));
	moved[0] = moved[1] = nk_now();
	while (waitpid(pid, &status, WNOHANG) == 0) {
		usleep(100000);
		for (i = 0; i < 2; i++) {
			if (sh->beat[i] != last[i]) {
				last[i] = sh->beat[i];
				moved[i] = nk_now();
			} else if (nk_now() - moved[i] > hang_after && sh->tid[i]) {
				wedged = i;
			}
		}
		if (wedged >= 0)
			break;
	}
	out("# %s/%s: %lu generations in %.1f s\n", rc->name, kind_names[kind],
	    sh->gens, nk_now() - t0);
	report_ops(sh);
	if (sh->note[0])
		out("#   %s\n", sh->note);
	if (wedged >= 0) {
		out("#   the %s thread made no progress for %.0f s: the kernel is wedged\n",
		    wedged ? "racer" : "owner", hang_after);
		show_task(pid, sh->tid[0], "owner");
		show_task(pid, sh->tid[1], "racer");
		out("not ok - %s/%s: no deadlock (a %s thread stuck for %.0f s)\n",
		    rc->name, kind_names[kind], wedged ? "racer" : "owner",
		    hang_after);
		return 3;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		out("not ok - %s/%s: the case ran (%s)\n", rc->name,
		    kind_names[kind], sh->failure[0] ? sh->failure : "child died");
		return 1;
	}
	if (sh->failure[0]) {
		out("not ok - %s/%s: %s\n", rc->name, kind_names[kind], sh->failure);
		failed = 1;
	} else {
		out("ok - %s/%s: no deadlock, every answer one mainline gives\n",
		    rc->name, kind_names[kind]);
	}
	for (i = 0; i < sh->nops; i++)
		if (!sh->ops[i].n) {
			out("not ok - %s/%s: the racer ran %s\n", rc->name,
			    kind_names[kind], sh->ops[i].name);
			failed = 1;
		}
	/* Programs and links left over, after time for deferred frees. */
	if (nk_census_settles(NULL, NULL, -1, &before, &after, 5)) {
		out("ok - %s/%s: no program or link left (%d, %d)\n", rc->name,
		    kind_names[kind], after.progs, after.links);
	} else {
		out("not ok - %s/%s: no program or link left (%d programs, %d links; %d and %d before)\n",
		    rc->name, kind_names[kind], after.progs, after.links,
		    before.progs, before.links);
		failed = 1;
	}
	if (if_nametoindex("nklr0") || if_nametoindex("nklr2") ||
	    if_nametoindex("nklr4") || if_nametoindex("nklr6")) {
		out("not ok - %s/%s: its devices are gone\n", rc->name,
		    kind_names[kind]);
		failed = 1;
	}
	unlink(sh->pin);
	munmap(sh, sizeof(*sh));
	return 0;
}

static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return 1;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

#define USAGE	"[-k netkit,tcx] [-c CASE,...] [-d SECONDS] [-H SECONDS] [-s SEED] [-l]"

int main(int argc, char **argv)
{
	const char *kinds = "netkit,tcx", *only = NULL;
	int k, i, idx = 0, rc, ran = 0, list = 0;
	const struct nk_opt opts[] = {
		{ 'k', 's', &kinds, NULL }, { 'c', 's', &only, NULL },
		{ 'd', 'd', &seconds, NULL }, { 'H', 'd', &hang_after, NULL },
		{ 's', 'u', &seed, NULL }, { 'l', 'f', &list, NULL }, { 0 }
	};

	seed = nk_seed();
	if (nk_options(argc, argv, opts, USAGE) != argc || seconds <= 0 ||
	    hang_after <= 0)
		nk_usage(argv[0], USAGE);
	if (list) {
		for (i = 0; i < NR_CASES; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	out("# mprog-linkrace: seed %llu (-s to replay), %.1f s per case, wedged after %.0f s without progress\n",
	    (unsigned long long)seed, seconds, hang_after);
	for (i = 0; i < NR_CASES; i++) {
		if (!listed(only, cases[i].name))
			continue;
		for (k = 0; k < NR_KINDS; k++) {
			if (!(cases[i].kinds & 1 << k) || !listed(kinds, kind_names[k]))
				continue;
			rc = run_case(&cases[i], k, idx++);
			ran++;
			if (rc == 3)
				return 3;
			if (rc)
				failed = 1;
		}
	}
	if (!ran) {
		out("not ok - no case selected\n");
		return 1;
	}
	return failed;
}
