// SPDX-License-Identifier: GPL-2.0
/*
 * tcx-attach: attach a minimal program to a device's tcx ingress or egress
 * hook (built only when the tree carries tcx, patches/tcx/).
 *
 *   tcx-attach DEV ingress|egress pass|drop link PINPATH
 *   tcx-attach DEV ingress|egress pass|drop prog
 *   tcx-attach IFINDEX ingress|egress detach|detach-first
 *   tcx-attach IFINDEX ingress|egress query
 *   tcx-attach fdinfo PINPATH
 *   tcx-attach DEV clsact-root
 *   tcx-attach DEV class MINOR
 *   tcx-attach DEV cycles clsact|ingress|link|prog|prog-fail|link-fail|link-nofd|dev N
 *   tcx-attach replace PINPATH
 *   tcx-attach DEV send
 *   tcx-attach NAME tap
 *   tcx-attach NAME inject
 *   tcx-attach DEV ingress|egress tcindex N
 *   tcx-attach DEV ingress|egress redirect IFINDEX
 *   tcx-attach DEV ingress|egress ethertype HEX
 *   tcx-attach DEV ingress|egress classid MAJ:MIN
 *
 * "link" creates a tcx BPF link (BPF_LINK_CREATE) and pins it at PINPATH
 * so that it outlives this process; "prog" attaches with BPF_PROG_ATTACH,
 * which needs no pin. The program, named tcx_pass or tcx_drop, returns
 * TCX_NEXT or TCX_DROP. "detach" detaches the hook's last program
 * (BPF_PROG_DETACH without a program) from the device of that ifindex,
 * which may be gone, "detach-first" its first (the same with
 * BPF_F_BEFORE); "query" prints how many programs BPF_PROG_QUERY
 * finds on the hook of that ifindex ("N programs") and the hook's
 * revision ("revision R", 1 for a hook without a tcx entry). "fdinfo"
 * prints what /proc/self/fdinfo shows for the link pinned at PINPATH
 * (its device and attach type). "clsact-root"
 * asks for a clsact qdisc in the place of DEV's root qdisc (tc refuses
 * that request itself) and prints the kernel's answer. "class" asks
 * with RTM_GETTCLASS for the class ffff:MINOR (hex) of DEV's ingress or
 * clsact qdisc and prints whether the kernel found it. "cycles" makes
 * and undoes, N times, what creates and frees a hook's tcx entry: a
 * clsact qdisc added and deleted (both hooks' entries), an ingress qdisc
 * added and deleted (the ingress hook's entry), a tcx link made
 * at ingress and closed, a program attached at egress and detached, and
 * what fails after making the entry: a program attached at egress and a
 * link made at ingress, each with a stale expected_revision (ESTALE:
 * "prog-fail", "link-fail"), a link made at ingress with no fd free
 * (EMFILE: "link-nofd"); "dev": a veth pair made, a program attached at
 * one end's ingress, the pair deleted with it (DEV must have no tcx
 * program, no qdisc of its own); after N / 5 cycles unmeasured (the
 * caches' one-time growth), it prints the slab cache whose objects in
 * use (/proc/slabinfo) grew most over the N, and by how many: the least
 * of that over 2 to 11 s after the last cycle (RCU's deferred frees come
 * down meanwhile, a leak stays; lib/'s nk_slab_cycles()). "replace" updates
 * the link pinned at PINPATH to a new pass program (tcx_repl) with
 * BPF_F_REPLACE twice, printing each answer: first naming as the old
 * program one that is not the link's (the new one), then the link's
 * own. "send" hands DEV one frame to transmit through an AF_PACKET socket
 * (dev_queue_xmit(), so past DEV's egress hooks) and prints what the
 * sender is told: "sent", or the errno's name. "tap" makes a persistent
 * tap device NAME (no queue attached; ip link del removes it). "inject"
 * takes NAME's queue, writes one frame into it (the tap's receive path:
 * netif_receive_skb(), past NAME's ingress hooks) with a packet socket for
 * its ethertype on NAME, and prints whether that socket got the frame
 * within 1 s ("delivered", "not delivered"). "tcindex" attaches
 * (BPF_PROG_ATTACH) a program, tcx_tcindex, that drops a frame whose
 * skb->tc_index is N and passes the others on (TCX_NEXT). "redirect"
 * attaches one, tcx_redirect, that answers bpf_redirect(IFINDEX, 0):
 * TCX_REDIRECT, every frame out of the device IFINDEX. "ethertype"
 * attaches one, tcx_ethertype, that drops a frame whose two bytes at
 * offset 12 from where the program's frame starts (the Ethernet header's
 * ethertype) are HEX, and passes the others on: what it drops shows
 * where its view of the frame begins. "classid" attaches one,
 * tcx_classid, that stores MAJ:MIN (hex, as tc writes a class) to
 * skb->tc_classid, of which the kernel keeps the minor (a 16-bit field
 * in the qdisc's control block), and answers TCX_PASS, which makes that
 * the frame's tc_index. 6.1's iproute2
 * and bpftool cannot attach tcx programs, so the guest's tcx test uses
 * this, with raw bpf(2) calls only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/pkt_sched.h>

#include "lib/netkit-lib.h"

static void die(const char *what)
{
	fprintf(stderr, "tcx-attach: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s DEV ingress|egress pass|drop link PINPATH\n"
		"       %s DEV ingress|egress pass|drop prog\n"
		"       %s IFINDEX ingress|egress detach|detach-first|query\n"
		"       %s fdinfo PINPATH\n"
		"       %s DEV clsact-root\n"
		"       %s DEV class MINOR\n"
		"       %s DEV cycles clsact|ingress|link|prog|prog-fail|link-fail|link-nofd|dev N\n"
		"       %s replace PINPATH\n"
		"       %s DEV send\n"
		"       %s NAME tap|inject\n"
		"       %s DEV ingress|egress tcindex N\n"
		"       %s DEV ingress|egress redirect IFINDEX\n"
		"       %s DEV ingress|egress ethertype HEX\n"
		"       %s DEV ingress|egress classid MAJ:MIN\n", argv0, argv0, argv0, argv0,
		argv0, argv0, argv0, argv0, argv0, argv0, argv0, argv0, argv0, argv0);
	return 2;
}

/* Loads insns as a tcx program named name and attaches it to dev's hook type */
static int insns_attach(const char *dev, int type, const struct bpf_insn *insns,
			unsigned int n, const char *name)
{
	int ifindex = if_nametoindex(dev), prog;

	if (!ifindex)
		die(dev);
	prog = nk_prog_load_insns(BPF_PROG_TYPE_SCHED_CLS, type, insns, n, name);
	if (prog < 0)
		die("BPF_PROG_LOAD");
	if (nk_prog_attach(ifindex, type, prog, 0, 0, 0, 0))
		die("BPF_PROG_ATTACH");
	return 0;
}

/* "redirect": a program that answers bpf_redirect(ifindex, 0) */
static int redirect_attach(const char *dev, int type, int ifindex)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1,
		  .imm = ifindex },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return insns_attach(dev, type, insns, sizeof(insns) / sizeof(insns[0]),
			    "tcx_redirect");
}

/* The end of a program that drops the frame when r0 is v, else passes it on. */
#define DROP_IF_R0_IS(v)							\
	{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .off = 2,	\
	  .imm = (v) },								\
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,		\
	  .imm = TCX_DROP },							\
	{ .code = BPF_JMP | BPF_EXIT },						\
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,		\
	  .imm = TCX_NEXT },							\
	{ .code = BPF_JMP | BPF_EXIT }

/* "tcindex": a program that drops a frame of skb->tc_index N, passes the others on */
static int tcindex_attach(const char *dev, int type, int n)
{
	struct bpf_insn insns[] = {
		/* r0 = skb->tc_index */
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1, .off = offsetof(struct __sk_buff, tc_index) },
		DROP_IF_R0_IS(n),
	};

	return insns_attach(dev, type, insns, sizeof(insns) / sizeof(insns[0]),
			    "tcx_tcindex");
}

/* "ethertype": a program that drops a frame of ethertype proto, passes the others on */
static int ethertype_attach(const char *dev, int type, unsigned int proto)
{
	struct bpf_insn insns[] = {
		/* bpf_skb_load_bytes(skb, 12, r10 - 8, 2) */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 12 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_3,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_3, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_4, .imm = 2 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_skb_load_bytes },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .off = 4 },
		/* the two bytes as they lie in memory: network order */
		{ .code = BPF_LDX | BPF_MEM | BPF_H, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_10, .off = -8 },
		DROP_IF_R0_IS(htons(proto)),
	};

	return insns_attach(dev, type, insns, sizeof(insns) / sizeof(insns[0]),
			    "tcx_ethertype");
}

/* "classid": a program that sets skb->tc_classid to classid and answers TCX_PASS */
static int classid_attach(const char *dev, int type, unsigned int classid)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2,
		  .imm = classid },
		{ .code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_2, .off = offsetof(struct __sk_buff, tc_classid) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = TCX_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return insns_attach(dev, type, insns, sizeof(insns) / sizeof(insns[0]),
			    "tcx_classid");
}

/* "DEV HOOK what ARG": the programs of one instruction list each */
static int hook_prog(char **argv)
{
	int type = strcmp(argv[2], "ingress") ? BPF_TCX_EGRESS : BPF_TCX_INGRESS;
	unsigned int maj, min;
	unsigned long proto;
	char *end;
	int len = -1;

	if (!strcmp(argv[3], "tcindex"))
		return tcindex_attach(argv[1], type, atoi(argv[4]));
	if (!strcmp(argv[3], "redirect"))
		return redirect_attach(argv[1], type, atoi(argv[4]));
	if (!strcmp(argv[3], "ethertype")) {
		proto = strtoul(argv[4], &end, 16);
		if (!*argv[4] || *end || proto > 0xffff) {
			fprintf(stderr, "tcx-attach: not an ethertype: %s\n", argv[4]);
			return 2;
		}
		return ethertype_attach(argv[1], type, proto);
	}
	if (sscanf(argv[4], "%x:%x%n", &maj, &min, &len) != 2 || argv[4][len] ||
	    maj > 0xffff || min > 0xffff) {
		fprintf(stderr, "tcx-attach: not a class: %s\n", argv[4]);
		return 2;
	}
	return classid_attach(argv[1], type, maj << 16 | min);
}

/* "replace": BPF_LINK_UPDATE with BPF_F_REPLACE, a wrong then the right old program */
static int replace(const char *pin)
{
	struct bpf_link_info li;
	union bpf_attr a;
	int link, prog, old, err;

	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)pin;
	link = nk_bpf(BPF_OBJ_GET, &a);
	if (link < 0 || nk_link_info(link, &li))
		die(pin);
	old = nk_fd_by_id(BPF_PROG_GET_FD_BY_ID, li.prog_id);
	prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, li.tcx.attach_type, TCX_NEXT,
			    "tcx_repl");
	if (old < 0 || prog < 0)
		die("the link's program, a new one");
	err = nk_link_update(link, prog, BPF_F_REPLACE, prog);
	printf("old program not the link's: %s\n", err ? strerror(-err) : "updated");
	err = nk_link_update(link, prog, BPF_F_REPLACE, old);
	printf("old program the link's: %s\n", err ? strerror(-err) : "updated");
	return 0;
}

/* The frames of "send" and "inject": broadcast, a local experimental ethertype */
#define FRAME_PROTO	0x88b5

static void frame(unsigned char *f, size_t len)
{
	memset(f, 0, len);
	memset(f, 0xff, ETH_ALEN);
	f[ETH_ALEN] = 0x02;	/* a locally administered source */
	f[ETH_ALEN + 5] = 0x01;
	f[2 * ETH_ALEN] = FRAME_PROTO >> 8;
	f[2 * ETH_ALEN + 1] = FRAME_PROTO & 0xff;
}

/* "send": one frame out of ifindex through dev_queue_xmit(), the answer */
static int send_one(int ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex,
				   .sll_protocol = htons(FRAME_PROTO) };
	unsigned char f[64];
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("AF_PACKET socket");
	frame(f, sizeof(f));
	if (send(fd, f, sizeof(f), 0) == (ssize_t)sizeof(f))
		printf("sent\n");
	else
		printf("%s\n", nk_errname(-errno));
	close(fd);
	return 0;
}

/* NAME's tap queue (persist: keep the device when the fd closes) */
static int tap_open(const char *name, int persist)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) ||
	    (persist && ioctl(fd, TUNSETPERSIST, 1)))
		die(name);
	return fd;
}

/* "inject": one frame into NAME's receive path; did a socket get it? */
static int inject(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(FRAME_PROTO) };
	unsigned char f[64], buf[256];
	int tap = tap_open(name, 0), fd, got = 0;
	double end;

	sll.sll_ifindex = if_nametoindex(name);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(FRAME_PROTO));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("AF_PACKET socket");
	frame(f, sizeof(f));
	if (write(tap, f, sizeof(f)) != (ssize_t)sizeof(f))
		die("write to the tap");
	for (end = nk_now() + 1; !got && nk_now() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 50) > 0 && recv(fd, buf, sizeof(buf), 0) > 0)
			got = 1;
	}
	printf("%s\n", got ? "delivered" : "not delivered");
	close(fd);
	close(tap);
	return 0;
}

/* "class": RTM_GETTCLASS of ffff:minor at ifindex */
static int class_get(int ifindex, unsigned int minor)
{
	char reply[1024], ext[256];
	struct nk_msg m;
	struct tcmsg *t;
	int err;

	/* the class comes back only to a request that asks for an echo */
	t = nk_msg_init(&m, RTM_GETTCLASS, NLM_F_ACK | NLM_F_ECHO, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_handle = TC_H_MAKE(TC_H_CLSACT, minor);
	err = nk_nl_request(NULL, &m, ext, sizeof(ext), reply, sizeof(reply));
	if (!err && ((struct nlmsghdr *)reply)->nlmsg_type != RTM_NEWTCLASS)
		err = -EPROTO;
	printf("class ffff:%x: %s%s%s\n", minor, err ? strerror(-err) : "found",
	       *ext ? ": " : "", ext);
	return !!err;
}

/* What one cycle of "cycles" works on */
struct cyc {
	const char *kind;
	struct nk_nl nl;
	int ifindex, prog;
	char ext[256];
};

/* A call that must fail with ESTALE (an expected_revision past the hook's) */
static int stale(int ret)
{
	if (ret > 0)	/* a link after all */
		close(ret);
	return ret == -ESTALE ? 0 : ret < 0 ? ret : -EPROTO;
}

/*
 * One cycle of "cycles" (see the top): 0 or -errno (c->ext: the extack).
 * The failing kinds must fail as they should: ESTALE, or EMFILE for
 * "link-nofd".
 */
static int cycle(void *arg, int i)
{
	struct cyc *c = arg;
	char name[IFNAMSIZ];
	int err, link, ifindex;

	(void)i;
	c->ext[0] = 0;
	if (!strcmp(c->kind, "clsact") || !strcmp(c->kind, "ingress")) {
		err = nk_qdisc(&c->nl, c->ifindex, TC_H_CLSACT, c->kind, 1, c->ext, sizeof(c->ext));
		return err ? err : nk_qdisc(&c->nl, c->ifindex, TC_H_CLSACT, c->kind, 0, c->ext,
					    sizeof(c->ext));
	}
	if (!strcmp(c->kind, "link")) {
		link = nk_link_create(c->ifindex, BPF_TCX_INGRESS, c->prog, 0, 0, 0);
		if (link < 0)
			return link;
		close(link);
		return 0;
	}
	if (!strcmp(c->kind, "prog-fail"))
		return stale(nk_prog_attach(c->ifindex, BPF_TCX_EGRESS, c->prog, 0, 0, 0, 5));
	if (!strcmp(c->kind, "link-fail"))
		return stale(nk_link_create(c->ifindex, BPF_TCX_INGRESS, c->prog, 0, 0, 5));
	if (!strcmp(c->kind, "link-nofd")) {
		err = nk_link_create_nofd(c->ifindex, BPF_TCX_INGRESS, c->prog);
		return err == -EMFILE ? 0 : err ? err : -EPROTO;
	}
	if (!strcmp(c->kind, "dev")) {
		/* a veth pair, a program at one end's ingress, the pair deleted */
		snprintf(name, sizeof(name), "tcxcy%d", c->ifindex);
		err = nk_veth_pair(&c->nl, name, "tcxcy_p", c->ext, sizeof(c->ext));
		if (err)
			return err;
		ifindex = if_nametoindex(name);
		err = ifindex ? nk_prog_attach(ifindex, BPF_TCX_INGRESS, c->prog, 0, 0, 0, 0)
			      : -ENODEV;
		return nk_link_del(&c->nl, ifindex) ?: err;
	}
	err = nk_prog_attach(c->ifindex, BPF_TCX_EGRESS, c->prog, 0, 0, 0, 0);
	return err ? err : nk_prog_detach(c->ifindex, BPF_TCX_EGRESS, c->prog, 0, 0, 0);
}

/* "cycles": n cycles of kind on ifindex, after n / 5 unmeasured */
static int cycles(int ifindex, const char *kind, int n)
{
	static const char *const kinds[] = { "clsact", "ingress", "link", "prog", "prog-fail",
					     "link-fail", "link-nofd", "dev" };
	static struct cyc c;
	const char *name;
	int err, failed = 0;
	unsigned int k;
	long grew;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[k]); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		fprintf(stderr, "tcx-attach: no cycles of %s\n", kind);
		return 2;
	}
	c.kind = kind;
	c.ifindex = ifindex;
	c.prog = -1;
	err = nk_nl_open(&c.nl, 0);
	if (err) {
		errno = -err;
		die("netlink");
	}
	if (strcmp(kind, "clsact") && strcmp(kind, "ingress")) {
		c.prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, strstr(kind, "link") ||
				      !strcmp(kind, "dev") ? BPF_TCX_INGRESS : BPF_TCX_EGRESS,
				      TCX_NEXT, "tcx_pass");
		if (c.prog < 0) {
			errno = -c.prog;
			die("BPF_PROG_LOAD");
		}
	}
	grew = nk_slab_cycles(n, cycle, &c, &name, &failed);
	if (grew < 0) {
		printf("%s cycle %d: %s%s%s\n", kind, failed, strerror(-grew),
		       c.ext[0] ? ": " : "", c.ext);
		return 1;
	}
	printf("%s cycles=%d grew_most=%s grew_by=%ld\n", kind, n, name, grew);
	if (c.prog >= 0)
		close(c.prog);
	nk_nl_close(&c.nl);
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex, type, drop;
	const char *failed;

	if (argc == 3 && !strcmp(argv[1], "fdinfo")) {
		if (nk_pinned_fdinfo(argv[2]))
			die(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "replace"))
		return replace(argv[2]);
	if (argc == 5 && !strcmp(argv[2], "cycles")) {
		ifindex = if_nametoindex(argv[1]);
		if (!ifindex)
			die(argv[1]);
		return cycles(ifindex, argv[3], atoi(argv[4]));
	}
	if (argc == 4 && !strcmp(argv[2], "class")) {
		ifindex = if_nametoindex(argv[1]);
		if (!ifindex)
			die(argv[1]);
		return class_get(ifindex, strtoul(argv[3], NULL, 16));
	}
	if (argc == 3 && !strcmp(argv[2], "send")) {
		ifindex = if_nametoindex(argv[1]);
		if (!ifindex)
			die(argv[1]);
		return send_one(ifindex);
	}
	if (argc == 3 && !strcmp(argv[2], "tap")) {
		close(tap_open(argv[1], 1));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[2], "inject"))
		return inject(argv[1]);
	if (argc == 5 && (!strcmp(argv[3], "tcindex") || !strcmp(argv[3], "redirect") ||
			  !strcmp(argv[3], "ethertype") || !strcmp(argv[3], "classid")) &&
	    (!strcmp(argv[2], "ingress") || !strcmp(argv[2], "egress")))
		return hook_prog(argv);
	if (argc == 3 && !strcmp(argv[2], "clsact-root")) {
		char ext[256];
		int err;

		ifindex = if_nametoindex(argv[1]);
		if (!ifindex)
			die(argv[1]);
		err = nk_clsact(NULL, ifindex, TC_H_ROOT, 1, ext, sizeof(ext));
		printf("clsact as root qdisc: %s%s%s\n", err ? strerror(-err) : "created",
		       *ext ? ": " : "", ext);
		return !!err;
	}
	if (argc == 4 && (!strcmp(argv[3], "detach") || !strcmp(argv[3], "detach-first") ||
			  !strcmp(argv[3], "query")) &&
	    (!strcmp(argv[2], "ingress") || !strcmp(argv[2], "egress"))) {
		__u32 count = 0;
		__u64 rev = 0;
		int err;

		type = strcmp(argv[2], "ingress") ? BPF_TCX_EGRESS : BPF_TCX_INGRESS;
		if (!strcmp(argv[3], "query")) {
			err = nk_prog_query(atoi(argv[1]), type, NULL, NULL, &count, &rev);
			if (err) {
				errno = -err;
				die("BPF_PROG_QUERY");
			}
			printf("%u programs\nrevision %llu\n", count, (unsigned long long)rev);
			return 0;
		}
		if (nk_prog_detach(atoi(argv[1]), type, 0,
				   strcmp(argv[3], "detach") ? BPF_F_BEFORE : 0, 0, 0))
			die("BPF_PROG_DETACH");
		return 0;
	}
	if (argc < 5 || (strcmp(argv[2], "ingress") && strcmp(argv[2], "egress")) ||
	    (strcmp(argv[3], "pass") && strcmp(argv[3], "drop")) ||
	    !((!strcmp(argv[4], "link") && argc == 6) ||
	      (!strcmp(argv[4], "prog") && argc == 5)))
		return usage(argv[0]);
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	type = strcmp(argv[2], "ingress") ? BPF_TCX_EGRESS : BPF_TCX_INGRESS;
	drop = !strcmp(argv[3], "drop");

	failed = nk_attach(ifindex, type, drop ? TCX_DROP : TCX_NEXT,
			   drop ? "tcx_drop" : "tcx_pass",
			   strcmp(argv[4], "link") ? NULL : argv[5]);
	if (failed)
		die(failed);
	return 0;
}
