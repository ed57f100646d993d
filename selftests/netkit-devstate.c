// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-devstate: what the netkit_devstate guest test reads and sends.
 *
 *   netkit-devstate show DEV
 *   netkit-devstate xfer [-r] PRIMARY NETNS PRIMARY_ADDR PEER_ADDR COUNT
 *   netkit-devstate peerdown PRIMARY PEER SECONDS
 *   netkit-devstate frames PRIMARY NETNS|- COUNT
 *   netkit-devstate notify PRIMARY PEER
 *   netkit-devstate cycles pair|pair-fail|link|link-nofd N
 *
 * show: one line of what RTM_GETLINK reports for DEV: the flags IFF_UP
 * and IFF_LOWER_UP, IFLA_CARRIER (the carrier as such, also of a device
 * that is down, whose flags never show IFF_LOWER_UP), IFLA_OPERSTATE,
 * IFLA_MASTER, and the netkit attributes (-1 for one not reported).
 *
 * xfer: COUNT UDP datagrams from the primary (in this namespace) to
 * PEER_ADDR and COUNT from its peer (in NETNS) to PRIMARY_ADDR, each
 * sent with SO_MARK 42 and SO_PRIORITY 5 and received by a bound socket
 * (no ICMP error goes back); then each direction's counters of both ends
 * as the stats of RTM_GETLINK moved. With -r, a recording program is
 * attached at each end's hook (BPF_NETKIT_PRIMARY: what the primary
 * transmits, BPF_NETKIT_PEER: what the peer does) by a link, which runs
 * after netkit has scrubbed the packet by the transmitting end's setting
 * and lets it pass: it counts the packets it sees, those whose mark is
 * still 42 and those whose priority is still 5 (and those with a transmit
 * time, which UDP here never has).
 *
 * frames: the metadata each end's transmissions keep when the peer is in
 * NETNS, or with "-" in this namespace too. Recorders as with xfer -r;
 * then COUNT frames into each end through an AF_PACKET socket on it (in
 * its namespace) with SO_MARK 42, SO_PRIORITY 5 and a transmit time
 * (SO_TXTIME, SCM_TXTIME), which becomes the skb's tstamp. One line a
 * direction: sent, what its recorder saw, and how many kept their mark,
 * priority and tstamp. netkit scrubs nothing within a namespace; across
 * namespaces it clears the tstamp, and the mark and priority too where
 * the transmitting end scrubs.
 *
 * peerdown: PRIMARY and PEER, the ends of one pair in this namespace,
 * both up. A program that drops and whose runs the kernel counts
 * (BPF_ENABLE_STATS, run_cnt) at the primary's hook. Then:
 *  - the peer up: frames sent into the primary through an AF_PACKET
 *    socket run the program (a check that the count works);
 *  - the peer down and linkwatch done with the primary (its operstate no
 *    longer up): frames through a socket that bypasses the qdisc and
 *    through one that does not; none may run the program, none reach the
 *    peer, and the ones that bypass the qdisc are counted as the
 *    primary's drops;
 *  - for SECONDS, the peer taken down and up again while another thread
 *    sends frames into the primary: a frame that reaches netkit_xmit()
 *    after the peer went down, while linkwatch has not yet swapped the
 *    primary's qdisc for noop (it waits for rtnl, which the peer's close
 *    holds through its notifiers), must be dropped there before the
 *    program runs: the primary's drops minus the program's runs is how
 *    many frames met the peer down (printed), and it must not be
 *    negative. The test wants it above 0: a netkit_xmit() that ran the
 *    program for a peer that is down leaves it at 0.
 *
 * notify: what a listener of RTNLGRP_LINK hears while a pair PRIMARY /
 * PEER (l3) is made and deleted by this program: for each end, how many
 * RTM_NEWLINK messages, the first one's nlmsg_pid and IFLA_LINK (-1 if
 * none), then how many RTM_DELLINK and the last one's IFLA_LINK, one line
 * each ("newlink primary count=N pid=P link=L", "dellink peer count=N
 * link=L"), and "self pid=P", the portid of the socket that made the
 * requests.
 *
 * csum: a frame whose checksum is left to the device (a packet socket's
 * virtio_net_hdr with VIRTIO_NET_HDR_F_NEEDS_CSUM: CHECKSUM_PARTIAL)
 * sent through each end of the pair PRIMARY / PEER (both in this
 * namespace, up) and read by a packet socket with PACKET_VNET_HDR on the
 * other end: an IPv4 frame and an MPLS one (a label, then the same IPv4
 * frame), UDP, the checksum field holding a mark. Every netkit end
 * offers NETIF_F_HW_CSUM, for MPLS frames too (its mpls_features, which
 * the transmit path's harmonize_features() applies to MPLS frames), so
 * the frame must arrive still CHECKSUM_PARTIAL (NEEDS_CSUM, its
 * csum_start) with the mark untouched: a device that could not checksum
 * it would have had skb_checksum_help() write the checksum before its
 * ndo_start_xmit.
 *
 * cycles: N times (after N / 5 unmeasured) what makes and frees netkit's
 * objects, then the slab cache whose objects in use grew most over the
 * N, and by how many (lib/'s nk_slab_cycles(): "pair cycles=N
 * grew_most=CACHE grew_by=K"): "pair" makes an l2 pair nkcy1/nkcy0 and
 * deletes it (both net_devices); "pair-fail" asks for a pair whose peer
 * is to be named lo (refused with EEXIST once the peer was made); "link"
 * makes a netkit link at the primary of the pair nkcz1/nkcz0 and closes
 * it; "link-nofd" asks for that link with no fd free (EMFILE once the
 * link was made).
 *
 * Each check prints an "ok - ..." or "not ok - ..." line; the exit status
 * is 1 if one failed, 2 on bad usage, else 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/net_tstamp.h>
#include <linux/virtio_net.h>
#include <time.h>

#include "lib/netkit-lib.h"

#define MARK		42
#define PRIORITY	5
#define PORT		9

static const char *usage_text =
	"show DEV | xfer [-r] PRIMARY NETNS PRIMARY_ADDR PEER_ADDR COUNT | "
	"peerdown PRIMARY PEER SECONDS | frames PRIMARY NETNS|- COUNT | notify PRIMARY PEER | "
	"csum PRIMARY PEER | "
	"cycles pair|pair-fail|link|link-nofd N";

static const char *operstate_name(int s)
{
	static const char *const names[] = {
		"unknown", "notpresent", "down", "lowerlayerdown",
		"testing", "dormant", "up",
	};

	return s >= 0 && s < (int)(sizeof(names) / sizeof(names[0])) ?
		names[s] : "?";
}

static const char *enum_name(int v, const char *a, const char *b, int va)
{
	return v < 0 ? "-1" : v == va ? a : b;
}

/* ---- show ---------------------------------------------------------- */

static int show(const char *dev)
{
	struct nk_link l;
	int err = nk_link_get(NULL, 0, dev, &l);

	if (err) {
		fprintf(stderr, "netkit-devstate: RTM_GETLINK %s: %s\n", dev,
			nk_errname(err));
		return 1;
	}
	printf("up=%d lower_up=%d carrier=%d operstate=%s master=%d primary=%d "
	       "mode=%s policy=%s peer_policy=%s scrub=%s peer_scrub=%s "
	       "headroom=%d tailroom=%d\n",
	       !!(l.flags & IFF_UP), !!(l.flags & IFF_LOWER_UP), l.carrier,
	       operstate_name(l.operstate), l.master, l.primary,
	       enum_name(l.mode, "l2", "l3", NETKIT_L2),
	       enum_name(l.policy, "pass", "drop", NETKIT_PASS),
	       enum_name(l.peer_policy, "pass", "drop", NETKIT_PASS),
	       enum_name(l.scrub, "none", "default", NETKIT_SCRUB_NONE),
	       enum_name(l.peer_scrub, "none", "default", NETKIT_SCRUB_NONE),
	       l.headroom, l.tailroom);
	return 0;
}

/* ---- xfer ---------------------------------------------------------- */

/* What a recorder counts, in its map's one value. */
struct seen {
	__u64 packets, mark, priority, tstamp;
};

/*
 * nkds_rec: count the packet, and whether its mark and priority are still
 * what the sender set and whether it has a tstamp; then NETKIT_PASS. The map's value is addressed
 * directly (BPF_PSEUDO_MAP_VALUE) and read back through mmap().
 */
static int load_recorder(int type, int map)
{
	const int mark = offsetof(struct __sk_buff, mark);
	const int prio = offsetof(struct __sk_buff, priority);
	const int tstamp = offsetof(struct __sk_buff, tstamp);
	const struct bpf_insn insns[] = {
		/* 0 */ { BPF_LD | BPF_DW | BPF_IMM, 7, BPF_PSEUDO_MAP_VALUE, 0, map },
		/* 1 */ { 0, 0, 0, 0, 0 },
		/* 2 */ { BPF_LDX | BPF_MEM | BPF_W, 2, 1, mark, 0 },
		/* 3 */ { BPF_LDX | BPF_MEM | BPF_W, 4, 1, prio, 0 },
		/* 4 */ { BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 1 },
		/* 5 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			  offsetof(struct seen, packets), BPF_ADD },
		/* 6 */ { BPF_JMP | BPF_JNE | BPF_K, 2, 0, 8 - 6 - 1, MARK },
		/* 7 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			  offsetof(struct seen, mark), BPF_ADD },
		/* 8 */ { BPF_JMP | BPF_JNE | BPF_K, 4, 0, 10 - 8 - 1, PRIORITY },
		/* 9 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			  offsetof(struct seen, priority), BPF_ADD },
		/* 10 */ { BPF_LDX | BPF_MEM | BPF_DW, 5, 1, tstamp, 0 },
		/* 11 */ { BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 13 - 11 - 1, 0 },
		/* 12 */ { BPF_STX | BPF_ATOMIC | BPF_DW, 7, 3,
			  offsetof(struct seen, tstamp), BPF_ADD },
		/* 13 */ { BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, NETKIT_PASS },
		/* 14 */ { BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};

	return nk_prog_load_insns(BPF_PROG_TYPE_SCHED_CLS, type, insns,
				  sizeof(insns) / sizeof(insns[0]), "nkds_rec");
}

/* A recorder at ifindex's hook type, by a link: its counters, or NULL. */
static struct seen *record(int ifindex, int type, int *link)
{
	int map, prog;
	void *v;

	map = nk_mmap_array(sizeof(struct seen), &v);
	if (map < 0) {
		nk_say("not ok - recorder map: %s", nk_errname(map));
		return NULL;
	}
	prog = load_recorder(type, map);
	close(map);
	if (prog < 0) {
		nk_say("not ok - recorder: %s", nk_errname(prog));
		return NULL;
	}
	*link = nk_link_create(ifindex, type, prog, 0, 0, 0);
	close(prog);
	if (*link < 0) {
		nk_say("not ok - recorder link at the %s hook: %s",
		       type == BPF_NETKIT_PRIMARY ? "primary" : "peer",
		       nk_errname(*link));
		return NULL;
	}
	return v;
}

/* An rtnetlink socket in the namespace of nsfd (home: the caller's). */
static int nl_open_in(struct nk_nl *nl, int nsfd, int home)
{
	int err;

	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	err = nk_nl_open(nl, 0);
	if (setns(home, CLONE_NEWNET) < 0)
		return -errno;
	return err;
}

static int stats(struct nk_nl *nl, int ifindex, struct rtnl_link_stats64 *st)
{
	struct nk_link l;
	int err = nk_link_get(nl, ifindex, NULL, &l);

	if (!err && !l.has_stats)
		err = -ENODATA;
	if (!err)
		*st = l.st;
	return err;
}

/* A UDP socket in nsfd's namespace that sends with the mark and priority. */
static int sender(int nsfd, int home)
{
	int fd = nk_socket_in(nsfd, home, AF_INET, SOCK_DGRAM, 0);
	int mark = MARK, prio = PRIORITY;

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ||
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio))) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int send_n(int fd, const char *to, int n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int i, sent = 0;

	inet_pton(AF_INET, to, &sin.sin_addr);
	for (i = 0; i < n; i++)
		if (sendto(fd, "netkit", 6, 0, (struct sockaddr *)&sin,
			   sizeof(sin)) == 6)
			sent++;
	usleep(100000);	/* the receive side's backlog */
	return sent;
}

static int xfer(int argc, char **argv)
{
	struct rtnl_link_stats64 p0, q0, p1, q1;
	struct seen *seen[2] = { NULL, NULL };
	int links[2] = { -1, -1 }, rec = 0, i, err, home, nsfd, n, sent;
	int srv[2], snd[2], pidx, qidx;
	struct nk_nl pnl, qnl;
	struct nk_link pl;
	char path[128];

	if (argc > 0 && !strcmp(argv[0], "-r")) {
		rec = 1;
		argc--;
		argv++;
	}
	if (argc != 5)
		nk_usage("netkit-devstate", usage_text);
	n = atoi(argv[4]);
	pidx = if_nametoindex(argv[0]);
	snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
	home = open("/proc/self/ns/net", O_RDONLY);
	nsfd = open(path, O_RDONLY);
	if (!pidx || home < 0 || nsfd < 0) {
		nk_say("not ok - xfer: %s, its netns %s: %s", argv[0], path,
		       strerror(errno));
		return 1;
	}
	err = nk_nl_open(&pnl, 0);
	if (!err)
		err = nl_open_in(&qnl, nsfd, home);
	if (!err)
		err = nk_link_get(&pnl, pidx, NULL, &pl);
	if (err) {
		nk_say("not ok - xfer: netlink: %s", nk_errname(err));
		return 1;
	}
	qidx = pl.link;
	if (rec) {
		seen[0] = record(pidx, BPF_NETKIT_PRIMARY, &links[0]);
		seen[1] = record(pidx, BPF_NETKIT_PEER, &links[1]);
		if (!seen[0] || !seen[1])
			return 1;
	}
	/* receivers, so that no ICMP error travels back */
	srv[0] = nk_udp_server(home, home, argv[2], PORT, 1 << 16);
	srv[1] = nk_udp_server(nsfd, home, argv[3], PORT, 1 << 16);
	snd[0] = sender(home, home);
	snd[1] = sender(nsfd, home);
	for (i = 0; i < 2; i++)
		if (srv[i] < 0 || snd[i] < 0) {
			nk_say("not ok - xfer: sockets: %s",
			       nk_errname(srv[i] < 0 ? srv[i] : snd[i]));
			return 1;
		}

	for (i = 0; i < 2; i++) {
		struct seen before = { 0 };

		if (seen[i])
			before = *seen[i];
		err = stats(&pnl, pidx, &p0);
		if (!err)
			err = stats(&qnl, qidx, &q0);
		sent = send_n(snd[i], i ? argv[2] : argv[3], n);
		if (!err)
			err = stats(&pnl, pidx, &p1);
		if (!err)
			err = stats(&qnl, qidx, &q1);
		if (err) {
			nk_say("not ok - xfer: stats: %s", nk_errname(err));
			return 1;
		}
		if (!i)
			printf("primary->peer: sent=%d tx=%llu tx_dropped=%llu rx_other=%llu",
			       sent, p1.tx_packets - p0.tx_packets,
			       p1.tx_dropped - p0.tx_dropped,
			       q1.rx_packets - q0.rx_packets);
		else
			printf("peer->primary: sent=%d tx=%llu tx_dropped=%llu rx_other=%llu",
			       sent, q1.tx_packets - q0.tx_packets,
			       q1.tx_dropped - q0.tx_dropped,
			       p1.rx_packets - p0.rx_packets);
		if (seen[i])
			printf(" seen=%llu mark_kept=%llu priority_kept=%llu",
			       seen[i]->packets - before.packets,
			       seen[i]->mark - before.mark,
			       seen[i]->priority - before.priority);
		printf("\n");
		fflush(stdout);
	}
	for (i = 0; i < 2; i++)
		if (links[i] >= 0)
			close(links[i]);
	return 0;
}

/* ---- csum ---------------------------------------------------------- */

#define CSUM_MARK	0x1234
#define CSUM_LEN	96

/*
 * The frame csum sends: broadcast, ethertype IPv4 or MPLS unicast (one
 * label, 16, bottom of stack), an IPv4 header from 10.254.0.1 to
 * 10.254.0.2, UDP with CSUM_MARK in its checksum field, and tag after
 * the UDP header. Returns the UDP header's offset (csum_start).
 */
static int csum_frame(unsigned char *f, int mpls, __u16 tag)
{
	static const unsigned char label[4] = { 0x00, 0x01, 0x01, 0x40 };
	int o = ETH_HLEN;

	memset(f, 0, CSUM_LEN);
	memset(f, 0xff, ETH_ALEN);
	f[6] = 0x02;
	f[11] = 0x01;
	if (mpls) {
		f[12] = 0x88;
		f[13] = 0x47;		/* ETH_P_MPLS_UC */
		memcpy(f + o, label, sizeof(label));
		o += sizeof(label);
	} else {
		f[12] = 0x08;		/* ETH_P_IP */
	}
	f[o] = 0x45;
	f[o + 3] = CSUM_LEN - o;
	f[o + 8] = 64;
	f[o + 9] = IPPROTO_UDP;
	memcpy(f + o + 12, (unsigned char[]){ 10, 254, 0, 1, 10, 254, 0, 2 }, 8);
	o += 20;
	f[o + 1] = PORT;
	f[o + 3] = PORT;
	f[o + 5] = CSUM_LEN - o;
	f[o + 6] = CSUM_MARK >> 8;
	f[o + 7] = CSUM_MARK & 0xff;
	f[o + 8] = tag >> 8;
	f[o + 9] = tag & 0xff;
	return o;
}

/* A packet socket with PACKET_VNET_HDR on ifindex. */
static int vnet_socket(int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_ifindex = ifindex,
		.sll_protocol = htons(ETH_P_ALL),
	};
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)), one = 1;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * One frame (mpls or IPv4) from the end named from through the socket
 * tx to the socket rx on the other end: the checks of what arrived.
 */
static void csum_one(int tx, int rx, int mpls, const char *from, const char *to,
		     __u16 tag)
{
	unsigned char buf[sizeof(struct virtio_net_hdr) + CSUM_LEN];
	struct virtio_net_hdr *vh = (struct virtio_net_hdr *)buf;
	unsigned char *f = buf + sizeof(*vh);
	const char *what = mpls ? "MPLS" : "IPv4";
	int start, len, field;
	double end;

	start = csum_frame(f, mpls, tag);
	memset(vh, 0, sizeof(*vh));
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = start;
	vh->csum_offset = 6;
	if (send(tx, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
		nk_report(0, "csum: %s frame, checksum left to %s: sent: %s", what,
			  from, strerror(errno));
		return;
	}
	end = nk_now() + 2;
	do {
		len = recv(rx, buf, sizeof(buf), 0);
		if (len < 0)
			break;
	} while ((len < (int)sizeof(*vh) + start + 10 ||
		  f[start + 8] != tag >> 8 || f[start + 9] != (tag & 0xff)) &&
		 nk_now() < end);
	if (len < (int)sizeof(*vh) + start + 10 || f[start + 8] != tag >> 8 ||
	    f[start + 9] != (tag & 0xff)) {
		nk_report(0, "csum: %s frame, checksum left to %s: not received at %s",
			  what, from, to);
		return;
	}
	field = f[start + 6] << 8 | f[start + 7];
	nk_report(vh->flags == VIRTIO_NET_HDR_F_NEEDS_CSUM && vh->csum_start == start &&
		  vh->csum_offset == 6 && field == CSUM_MARK,
		  "csum: %s frame, checksum left to %s: at %s still partial (flags %u, csum_start %u, offset %u; want 1, %d, 6), its field untouched (0x%04x; want 0x%04x)",
		  what, from, to, vh->flags, vh->csum_start, vh->csum_offset, start,
		  field, CSUM_MARK);
}

static int csum(int argc, char **argv)
{
	int idx[2], fd[2], i, mpls;

	if (argc != 2)
		nk_usage("netkit-devstate", usage_text);
	for (i = 0; i < 2; i++) {
		idx[i] = if_nametoindex(argv[i]);
		fd[i] = idx[i] ? vnet_socket(idx[i]) : -ENODEV;
		if (fd[i] < 0) {
			nk_say("not ok - csum: a packet socket on %s: %s", argv[i],
			       nk_errname(fd[i]));
			return 1;
		}
	}
	for (mpls = 0; mpls < 2; mpls++)
		for (i = 0; i < 2; i++)
			csum_one(fd[i], fd[!i], mpls, argv[i], argv[!i],
				 (__u16)(0x4e00 + mpls * 2 + i));
	close(fd[0]);
	close(fd[1]);
	return nk_failures ? 1 : 0;
}

/* ---- frames -------------------------------------------------------- */

/*
 * An AF_PACKET socket on ifindex in nsfd's namespace that sends with the
 * mark, the priority and transmit times.
 */
static int frame_sender(int nsfd, int home, int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_ifindex = ifindex,
	};
	struct sock_txtime txt = { .clockid = CLOCK_MONOTONIC };
	int fd = nk_socket_in(nsfd, home, AF_PACKET, SOCK_RAW, 0);
	int mark = MARK, prio = PRIORITY;

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ||
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TXTIME, &txt, sizeof(txt)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* n broadcast frames, each with a transmit time 1 s ahead: how many went. */
static int send_timed(int fd, int n)
{
	unsigned char eth[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	char ctl[CMSG_SPACE(sizeof(__u64))];
	struct iovec iov = { .iov_base = eth, .iov_len = sizeof(eth) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	__u64 when = (__u64)((nk_now() + 1) * 1e9);
	int i, sent = 0;

	eth[12] = 0x08;				/* ETH_P_IP */
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_TXTIME;
	cm->cmsg_len = CMSG_LEN(sizeof(when));
	memcpy(CMSG_DATA(cm), &when, sizeof(when));
	for (i = 0; i < n; i++)
		if (sendmsg(fd, &msg, 0) == (ssize_t)sizeof(eth))
			sent++;
	usleep(100000);
	return sent;
}

static int frames(int argc, char **argv)
{
	struct seen *seen[2];
	int links[2], snd[2], i, home, nsfd, n, sent, pidx, qidx;
	struct nk_link pl;
	char path[128];

	if (argc != 3)
		nk_usage("netkit-devstate", usage_text);
	n = atoi(argv[2]);
	pidx = if_nametoindex(argv[0]);
	home = open("/proc/self/ns/net", O_RDONLY);
	if (strcmp(argv[1], "-")) {
		snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
		nsfd = open(path, O_RDONLY);
	} else {
		nsfd = open("/proc/self/ns/net", O_RDONLY);
	}
	if (!pidx || home < 0 || nsfd < 0) {
		nk_say("not ok - frames: %s, the peer's netns %s: %s", argv[0],
		       argv[1], strerror(errno));
		return 1;
	}
	i = nk_link_get(NULL, pidx, NULL, &pl);
	if (i) {
		nk_say("not ok - frames: RTM_GETLINK %s: %s", argv[0], nk_errname(i));
		return 1;
	}
	qidx = pl.link;		/* the peer's ifindex, in its namespace */
	seen[0] = record(pidx, BPF_NETKIT_PRIMARY, &links[0]);
	seen[1] = record(pidx, BPF_NETKIT_PEER, &links[1]);
	if (!seen[0] || !seen[1])
		return 1;
	snd[0] = frame_sender(home, home, pidx);
	snd[1] = frame_sender(nsfd, home, qidx);
	for (i = 0; i < 2; i++)
		if (snd[i] < 0) {
			nk_say("not ok - frames: the %s's packet socket: %s",
			       i ? "peer" : "primary", nk_errname(snd[i]));
			return 1;
		}
	for (i = 0; i < 2; i++) {
		struct seen before = *seen[i];

		sent = send_timed(snd[i], n);
		printf("%s: sent=%d seen=%llu mark_kept=%llu priority_kept=%llu tstamp_kept=%llu\n",
		       i ? "peer->primary" : "primary->peer", sent,
		       seen[i]->packets - before.packets, seen[i]->mark - before.mark,
		       seen[i]->priority - before.priority,
		       seen[i]->tstamp - before.tstamp);
	}
	for (i = 0; i < 2; i++) {
		close(snd[i]);
		close(links[i]);
	}
	return 0;
}

/* ---- peerdown ------------------------------------------------------ */

static int set_up(struct nk_nl *nl, int ifindex, int up)
{
	struct nk_msg m;
	struct ifinfomsg *ifi = nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK, ifindex);

	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP;
	return nk_nl_talk(nl, &m, NULL, 0);
}

/* A raw AF_PACKET socket on ifindex; bypass: PACKET_QDISC_BYPASS. */
static int packet_socket(int ifindex, int bypass)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_ifindex = ifindex,
		.sll_protocol = 0,
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return -errno;
	if ((bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
				  sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* An Ethernet frame to the peer's address, IPv4 type, 60 bytes. */
static unsigned char frame[60];

static int send_frames(int fd, int n)
{
	int i, sent = 0;

	for (i = 0; i < n; i++)
		if (send(fd, frame, sizeof(frame), 0) == sizeof(frame))
			sent++;
	return sent;
}

static __u64 run_cnt(int prog)
{
	struct bpf_prog_info info;

	return nk_obj_info(prog, &info, sizeof(info)) ? 0 : info.run_cnt;
}

struct snap {
	struct rtnl_link_stats64 p, q;
	__u64 runs;
};

static struct nk_nl nl;
static int pidx, qidx, prog;

static void snap(struct snap *s)
{
	int err = stats(&nl, pidx, &s->p);

	if (!err)
		err = stats(&nl, qidx, &s->q);
	if (err) {
		nk_say("not ok - peerdown: stats: %s", nk_errname(err));
		exit(1);
	}
	s->runs = run_cnt(prog);
}

static volatile int stop;
static long race_sent;

static void *race_sender(void *arg)
{
	int fd = *(int *)arg;

	nk_pin_cpu(1);
	while (!stop)
		if (send(fd, frame, sizeof(frame), 0) == sizeof(frame))
			race_sent++;
	return NULL;
}

/* Wait until linkwatch has set ifindex's operstate to up or not up. */
static int wait_oper(int ifindex, int up, double secs)
{
	double end = nk_now() + secs;
	struct nk_link l;

	while (nk_now() < end) {
		if (!nk_link_get(&nl, ifindex, NULL, &l) &&
		    (l.operstate == IF_OPER_UP) == up)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static int peerdown(int argc, char **argv)
{
	struct snap a, b;
	union bpf_attr attr;
	int stats_fd, link, fd, fd_bypass, sent, sent_bypass, err;
	long cycles = 0, met;
	double secs, end;
	pthread_t t;

	if (argc != 3)
		nk_usage("netkit-devstate", usage_text);
	secs = atof(argv[2]);
	pidx = if_nametoindex(argv[0]);
	qidx = if_nametoindex(argv[1]);
	if (!pidx || !qidx || nk_nl_open(&nl, 0)) {
		nk_say("not ok - peerdown: %s, %s: %s", argv[0], argv[1],
		       strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	stats_fd = nk_bpf(BPF_ENABLE_STATS, &attr);
	prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY,
			    NETKIT_DROP, "nkds_drop");
	link = prog < 0 ? prog : nk_link_create(pidx, BPF_NETKIT_PRIMARY, prog, 0, 0, 0);
	fd = packet_socket(pidx, 0);
	fd_bypass = packet_socket(pidx, 1);
	if (stats_fd < 0 || prog < 0 || link < 0 || fd < 0 || fd_bypass < 0) {
		nk_say("not ok - peerdown: setup: stats %s, program %s, link %s, sockets %s %s",
		       nk_errname(stats_fd < 0 ? stats_fd : 0),
		       nk_errname(prog < 0 ? prog : 0),
		       nk_errname(link < 0 ? link : 0),
		       nk_errname(fd < 0 ? fd : 0),
		       nk_errname(fd_bypass < 0 ? fd_bypass : 0));
		return 1;
	}
	memset(frame, 0xff, 6);				/* broadcast */
	frame[6] = 0x02;				/* a local source */
	frame[12] = 0x08;				/* ETH_P_IP */

	/* The peer up: the program runs and drops. */
	err = wait_oper(pidx, 1, 5);
	snap(&a);
	sent = send_frames(fd, 10);
	snap(&b);
	/* send() answers ENOBUFS for a frame the program dropped
	 * (netkit_xmit()'s NET_XMIT_DROP): none counts as sent
	 */
	nk_report(!err && !sent && b.runs - a.runs == 10 && b.p.tx_dropped - a.p.tx_dropped == 10,
		  "peer up (%s): 10 frames into the primary (%d sent, 0 expected) ran the program %llu times, the primary dropped %llu",
		  err ? "the primary's operstate is not up" : "operstate up", sent,
		  b.runs - a.runs, b.p.tx_dropped - a.p.tx_dropped);

	/* The peer down, linkwatch done with the primary. */
	err = set_up(&nl, qidx, 0);
	if (!err)
		err = wait_oper(pidx, 0, 5);
	nk_report(!err, "the peer down, the primary's operstate no longer up: %s",
		  nk_errname(err));
	snap(&a);
	sent = send_frames(fd, 10);
	sent_bypass = send_frames(fd_bypass, 10);
	snap(&b);
	nk_report(b.runs == a.runs,
		  "peer down: 10 frames through the qdisc (%d sent) and 10 bypassing it (%d sent) did not run the program (%llu runs)",
		  sent, sent_bypass, b.runs - a.runs);
	nk_report(b.q.rx_packets == a.q.rx_packets && b.p.tx_packets == a.p.tx_packets,
		  "peer down: none reached the peer (its rx %llu) or counted as sent (tx %llu)",
		  b.q.rx_packets - a.q.rx_packets, b.p.tx_packets - a.p.tx_packets);
	/* the noop qdisc's NET_XMIT_CN is no error for send(), the
	 * NET_XMIT_DROP of netkit_xmit() is ENOBUFS
	 */
	nk_report(b.p.tx_dropped - a.p.tx_dropped >= 10 && !sent_bypass,
		  "peer down: the primary counted the 10 frames that bypassed the qdisc as dropped (%llu), send() refused them all (%d sent)",
		  b.p.tx_dropped - a.p.tx_dropped, sent_bypass);

	/* The race: the peer down and up while frames go into the primary. */
	err = set_up(&nl, qidx, 1);
	if (!err)
		err = wait_oper(pidx, 1, 5);
	if (err) {
		nk_say("not ok - the peer up again: %s", nk_errname(err));
		return 1;
	}
	snap(&a);
	nk_pin_cpu(0);
	if (pthread_create(&t, NULL, race_sender, &fd)) {
		nk_say("not ok - peerdown: the sender thread");
		return 1;
	}
	end = nk_now() + secs;
	while (nk_now() < end) {
		if (set_up(&nl, qidx, 0) || set_up(&nl, qidx, 1))
			break;
		cycles++;
	}
	stop = 1;
	pthread_join(t, NULL);
	usleep(100000);
	snap(&b);
	met = (long)(b.p.tx_dropped - a.p.tx_dropped) - (long)(b.runs - a.runs);
	nk_say("# peerdown race: %ld down/up cycles, %ld frames sent, %llu program runs, "
	       "%llu dropped by the primary, %ld met the peer down (dropped before the program)",
	       cycles, race_sent, b.runs - a.runs, b.p.tx_dropped - a.p.tx_dropped, met);
	nk_report(cycles > 0, "peerdown race: the peer went down and up %ld times", cycles);
	nk_report(met >= 0, "peerdown race: every program run was a drop (drops - runs = %ld >= 0)",
		  met);
	nk_report(b.q.rx_packets == a.q.rx_packets,
		  "peerdown race: nothing reached the peer (its rx %llu)",
		  b.q.rx_packets - a.q.rx_packets);
	printf("met=%ld\n", met);
	close(link);
	close(prog);
	close(stats_fd);
	return nk_failures ? 1 : 0;
}

/* notify's tally of one end */
struct heard {
	int ifindex, newlink, new_link, dellink, del_link;
	__u32 new_pid;
};

static void hear(const struct nlmsghdr *h, struct heard *e, int n)
{
	struct nk_link l;
	int i;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return;
	nk_link_parse(h, &l);
	for (i = 0; i < n; i++) {
		if (l.ifindex != e[i].ifindex)
			continue;
		if (h->nlmsg_type == RTM_NEWLINK) {
			if (!e[i].newlink++) {
				e[i].new_pid = h->nlmsg_pid;
				e[i].new_link = l.link;
			}
		} else {
			e[i].dellink++;
			e[i].del_link = l.link;
		}
	}
}

/* Reads what the listener heard within ms, into e. */
static void listen_for(int fd, struct heard *e, int n, int ms)
{
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	double end = nk_now() + ms / 1000.0;
	const struct nlmsghdr *h;
	int len;

	while (nk_now() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 20) <= 0)
			continue;
		len = recv(fd, buf, sizeof(buf), 0);
		if (len <= 0)
			continue;
		for (h = (void *)buf; NLMSG_OK(h, (unsigned int)len); h = NLMSG_NEXT(h, len))
			hear(h, e, n);
	}
}

static int notify(int argc, char **argv)
{
	struct nk_pair_spec sp;
	struct sockaddr_nl self = { 0 }, sa = { .nl_family = AF_NETLINK,
						 .nl_groups = RTMGRP_LINK };
	struct heard e[2] = { { 0 }, { 0 } };
	socklen_t slen = sizeof(self);
	struct nk_nl nl;
	char ext[256];
	int fd, err, i;

	if (argc != 2)
		nk_usage("netkit-devstate", usage_text);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		nk_report(0, "notify: a listener of RTNLGRP_LINK: %s", strerror(errno));
		return 1;
	}
	err = nk_nl_open(&nl, 0);
	if (!err && getsockname(nl.fd, (struct sockaddr *)&self, &slen))
		err = -errno;
	if (!err) {
		sp = (struct nk_pair_spec)NK_PAIR_SPEC(argv[0], argv[1]);
		sp.mode = NETKIT_L3;
		err = nk_netkit_add(&nl, &sp, ext, sizeof(ext));
	}
	if (err) {
		nk_report(0, "notify: the pair %s/%s: %s %s", argv[0], argv[1], nk_errname(err), ext);
		return 1;
	}
	e[0].ifindex = if_nametoindex(argv[0]);
	e[1].ifindex = if_nametoindex(argv[1]);
	listen_for(fd, e, 2, 500);
	err = nk_link_del(&nl, e[0].ifindex);
	if (err) {
		nk_report(0, "notify: deleting %s: %s", argv[0], nk_errname(err));
		return 1;
	}
	listen_for(fd, e, 2, 500);
	printf("self pid=%u\n", self.nl_pid);
	for (i = 0; i < 2; i++) {
		printf("newlink %s count=%d pid=%u link=%d\n", i ? "peer" : "primary",
		       e[i].newlink, e[i].new_pid, e[i].new_link);
		printf("dellink %s count=%d link=%d\n", i ? "peer" : "primary", e[i].dellink,
		       e[i].del_link);
	}
	nk_nl_close(&nl);
	close(fd);
	return 0;
}

/* what one cycle of "cycles" works on */
struct cyc {
	const char *kind;
	struct nk_nl nl;
	int ifindex, prog;
	char ext[256];
};

static int cycle(void *arg, int i)
{
	struct cyc *c = arg;
	struct nk_pair_spec sp = NK_PAIR_SPEC("nkcy1", "nkcy0");
	int err, link;

	(void)i;
	c->ext[0] = 0;
	sp.mode = NETKIT_L2;
	if (!strcmp(c->kind, "pair")) {
		err = nk_netkit_add(&c->nl, &sp, c->ext, sizeof(c->ext));
		return err ? err : nk_link_del(&c->nl, if_nametoindex("nkcy1"));
	}
	if (!strcmp(c->kind, "pair-fail")) {
		sp.peer = "lo";
		err = nk_netkit_add(&c->nl, &sp, c->ext, sizeof(c->ext));
		return err == -EEXIST ? 0 : err ? err : -EPROTO;
	}
	if (!strcmp(c->kind, "link")) {
		link = nk_link_create(c->ifindex, BPF_NETKIT_PRIMARY, c->prog, 0, 0, 0);
		if (link < 0)
			return link;
		close(link);
		return 0;
	}
	/* link-nofd: no fd free, the link is made, then refused its fd */
	err = nk_link_create_nofd(c->ifindex, BPF_NETKIT_PRIMARY, c->prog);
	return err == -EMFILE ? 0 : err ? err : -EPROTO;
}

static int cycles(int argc, char **argv)
{
	static struct cyc c;
	struct nk_pair_spec sp = NK_PAIR_SPEC("nkcz1", "nkcz0");
	const char *name;
	int err, n, failed = 0;
	long grew;

	if (argc != 2 || (strcmp(argv[0], "pair") && strcmp(argv[0], "pair-fail") &&
			  strcmp(argv[0], "link") && strcmp(argv[0], "link-nofd")) ||
	    (n = atoi(argv[1])) <= 0)
		nk_usage("netkit-devstate", usage_text);
	c.kind = argv[0];
	c.prog = -1;
	err = nk_nl_open(&c.nl, 0);
	if (!err && !strncmp(c.kind, "link", 4)) {
		err = nk_netkit_add(&c.nl, &sp, c.ext, sizeof(c.ext));
		c.ifindex = if_nametoindex("nkcz1");
		c.prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY, NETKIT_NEXT,
				      "nk_pass");
		if (!err && c.prog < 0)
			err = c.prog;
	}
	if (err) {
		nk_report(0, "cycles %s: setting up: %s %s", c.kind, nk_errname(err), c.ext);
		return 1;
	}
	grew = nk_slab_cycles(n, cycle, &c, &name, &failed);
	if (c.ifindex)
		nk_link_del(&c.nl, c.ifindex);
	if (grew < 0) {
		printf("%s cycle %d: %s%s%s\n", c.kind, failed, nk_errname(grew),
		       c.ext[0] ? ": " : "", c.ext);
		return 1;
	}
	printf("%s cycles=%d grew_most=%s grew_by=%ld\n", c.kind, n, name, grew);
	if (c.prog >= 0)
		close(c.prog);
	nk_nl_close(&c.nl);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "show"))
		return argc == 3 ? show(argv[2]) : 2;
	if (argc >= 2 && !strcmp(argv[1], "xfer"))
		return xfer(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "peerdown"))
		return peerdown(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "frames"))
		return frames(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "notify"))
		return notify(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "csum"))
		return csum(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "cycles"))
		return cycles(argc - 2, argv + 2);
	nk_usage(argv[0], usage_text);
}
