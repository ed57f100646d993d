// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-shortframe: hand a netkit device frames shorter than an Ethernet
 * header to transmit.
 *
 *   netkit-shortframe TARGET COUNT
 *
 * No socket sends a frame shorter than ETH_HLEN out of an Ethernet device
 * (AF_PACKET checks the link-layer header's length), but a tc program can
 * redirect one. A tun device (IFF_TUN: no link-layer header), nksf0, is
 * where AF_PACKET sends a 1-byte packet; a cls_bpf program on its clsact
 * egress, nk_short, pushes a 1-byte link-layer header
 * (bpf_skb_change_head) and redirects the packet to TARGET's egress
 * (bpf_redirect): TARGET's ndo_start_xmit gets a 2-byte frame. COUNT such
 * packets are sent; the tun device, with its qdisc and program, is gone
 * when it exits. What became of the frames is for the caller to read from
 * TARGET's counters.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/if_tun.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/netkit-lib.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "netkit-shortframe: %s: %s\n", what, strerror(err));
	exit(1);
}

/* bpf_skb_change_head(ctx, 1, 0); on failure TC_ACT_SHOT; else bpf_redirect(to, 0) */
static int load_short(int to)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2,
		  .imm = 1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_skb_change_head },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0,
		  .off = 2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = TC_ACT_SHOT },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1,
		  .imm = to },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return nk_prog_load_insns(BPF_PROG_TYPE_SCHED_CLS, 0, insns,
				  sizeof(insns) / sizeof(insns[0]), "nk_short");
}

/* a tun device named name, up; its fd (the device lives while it is open) */
static int tun_up(const char *name, int *ifindex)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC), err;

	if (fd < 0)
		die("/dev/net/tun", errno);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr))
		die("TUNSETIFF", errno);
	*ifindex = if_nametoindex(name);
	if (!*ifindex)
		die(name, ENODEV);
	err = nk_link_up(NULL, *ifindex);
	if (err)
		die("tun device up", -err);
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_IP) };
	int dev, to, count, prog, tun, fd, err, i, sent = 0;
	char ext[256], byte = 0x45;

	if (argc != 3 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: %s TARGET COUNT\n", argv[0]);
		return 2;
	}
	to = if_nametoindex(argv[1]);
	count = atoi(argv[2]);
	if (!to)
		die(argv[1], ENODEV);
	prog = load_short(to);
	if (prog < 0)
		die("BPF_PROG_LOAD nk_short", errno);
	tun = tun_up("nksf0", &dev);
	err = nk_clsact(NULL, dev, TC_H_CLSACT, 1, ext, sizeof(ext));
	if (err)
		die(*ext ? ext : "RTM_NEWQDISC clsact", -err);
	err = nk_cls_bpf(NULL, dev, 1, prog, "nk_short", ext, sizeof(ext));
	if (err)
		die(*ext ? ext : "RTM_NEWTFILTER bpf", -err);
	fd = socket(AF_PACKET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("AF_PACKET socket", errno);
	sll.sll_ifindex = dev;
	for (i = 0; i < count; i++)
		if (sendto(fd, &byte, 1, 0, (struct sockaddr *)&sll, sizeof(sll)) == 1)
			sent++;
	if (sent != count)
		die("sendto of a 1-byte packet", errno);
	close(fd);
	close(tun);
	printf("# %d 1-byte packets sent on a tun device, each redirected to %s's egress with a 1-byte link-layer header\n",
	       count, argv[1]);
	return 0;
}
