// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-attach: attach a minimal pass-through program to a netkit device.
 *
 *   netkit-attach DEV primary|peer link PINPATH
 *   netkit-attach DEV primary|peer prog
 *   netkit-attach DEV primary|peer redirect IFINDEX
 *   netkit-attach fdinfo PINPATH
 *   netkit-attach DEV tc-ingress redirect-peer IFINDEX
 *
 * "link" creates a netkit BPF link (BPF_LINK_CREATE) and pins it at
 * PINPATH so that it outlives this process; "prog" attaches with
 * BPF_PROG_ATTACH, which needs no pin. "redirect" attaches (as "prog")
 * a program named nk_redirect that returns bpf_redirect(IFINDEX, 0): the
 * device's packets leave through IFINDEX's egress. "fdinfo" prints what
 * /proc/self/fdinfo shows for the object pinned at PINPATH (a netkit or
 * tcx link's device and attach type). "tc-ingress redirect-peer" adds a
 * clsact qdisc to DEV (any device) and, at its ingress, a cls_bpf program
 * named nk_peer_redir that returns bpf_redirect_peer(IFINDEX, 0): what
 * arrives on DEV is received on IFINDEX's peer (a netkit or veth device's,
 * in another netns). The other programs, named nk_pass,
 * return NETKIT_NEXT. bpftool cannot attach netkit programs, so the
 * guest's bpftool test uses this, with raw bpf(2) calls only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>

#include "lib/netkit-lib.h"

static void die(const char *what)
{
	fprintf(stderr, "netkit-attach: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * "r1 = to; r2 = 0; call HELPER; exit" (bpf_redirect or bpf_redirect_peer)
 * as a SCHED_CLS program named name: its fd.
 */
static int load_redirect(int helper, int expected_attach_type, int to,
			 const char *name)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1,
		  .imm = to },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_JMP | BPF_CALL, .imm = helper },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = nk_prog_load_insns(BPF_PROG_TYPE_SCHED_CLS, expected_attach_type, insns,
				sizeof(insns) / sizeof(insns[0]), name);
	if (fd < 0)
		die("BPF_PROG_LOAD");
	return fd;
}

/* nk_redirect, attached at ifindex's netkit hook */
static void attach_redirect(int ifindex, int type, int to)
{
	int fd = load_redirect(BPF_FUNC_redirect, type, to, "nk_redirect");

	if (nk_prog_attach(ifindex, type, fd, 0, 0, 0, 0))
		die("BPF_PROG_ATTACH");
}

/* nk_peer_redir, at DEV's tc ingress (a clsact qdisc added for it) */
static void tc_redirect_peer(int ifindex, int to)
{
	int fd = load_redirect(BPF_FUNC_redirect_peer, 0, to, "nk_peer_redir");
	char ext[256];
	int err;

	err = nk_clsact(NULL, ifindex, TC_H_CLSACT, 1, ext, sizeof(ext));
	if (!err)
		err = nk_cls_bpf(NULL, ifindex, 0, fd, "nk_peer_redir", ext, sizeof(ext));
	if (err) {
		errno = -err;
		die(*ext ? ext : "clsact and its cls_bpf filter");
	}
}

int main(int argc, char **argv)
{
	int ifindex, type;
	const char *failed;

	if (argc == 3 && !strcmp(argv[1], "fdinfo")) {
		if (nk_pinned_fdinfo(argv[2]))
			die(argv[2]);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[2], "tc-ingress") &&
	    !strcmp(argv[3], "redirect-peer")) {
		ifindex = if_nametoindex(argv[1]);
		if (!ifindex)
			die(argv[1]);
		tc_redirect_peer(ifindex, atoi(argv[4]));
		return 0;
	}
	if (argc < 4 || (strcmp(argv[2], "primary") && strcmp(argv[2], "peer")) ||
	    (!strcmp(argv[3], "link") && argc != 5) ||
	    (!strcmp(argv[3], "prog") && argc != 4) ||
	    (!strcmp(argv[3], "redirect") && argc != 5) ||
	    (strcmp(argv[3], "link") && strcmp(argv[3], "prog") &&
	     strcmp(argv[3], "redirect"))) {
		fprintf(stderr, "usage: %s DEV primary|peer link PINPATH\n"
			"       %s DEV primary|peer prog\n"
			"       %s DEV primary|peer redirect IFINDEX\n"
			"       %s fdinfo PINPATH\n"
			"       %s DEV tc-ingress redirect-peer IFINDEX\n",
			argv[0], argv[0], argv[0], argv[0], argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	type = strcmp(argv[2], "primary") ? BPF_NETKIT_PEER : BPF_NETKIT_PRIMARY;
	if (!strcmp(argv[3], "redirect")) {
		attach_redirect(ifindex, type, atoi(argv[4]));
		return 0;
	}

	failed = nk_attach(ifindex, type, NETKIT_NEXT, "nk_pass",
			   strcmp(argv[3], "link") ? NULL : argv[4]);
	if (failed)
		die(failed);
	return 0;
}
