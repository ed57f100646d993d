// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-attach: attach a minimal pass-through program to a netkit device.
 *
 *   netkit-attach DEV primary|peer link PINPATH
 *   netkit-attach DEV primary|peer prog
 *   netkit-attach fdinfo PINPATH
 *
 * "link" creates a netkit BPF link (BPF_LINK_CREATE) and pins it at
 * PINPATH so that it outlives this process; "prog" attaches with
 * BPF_PROG_ATTACH, which needs no pin. "fdinfo" prints what
 * /proc/self/fdinfo shows for the object pinned at PINPATH (a netkit or
 * tcx link's device and attach type). The program, named nk_pass,
 * returns NETKIT_NEXT. bpftool cannot attach netkit programs, so the
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

#include "lib/netkit-lib.h"

static void die(const char *what)
{
	fprintf(stderr, "netkit-attach: %s: %s\n", what, strerror(errno));
	exit(1);
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
	if (argc < 4 || (strcmp(argv[2], "primary") && strcmp(argv[2], "peer")) ||
	    (!strcmp(argv[3], "link") && argc != 5) ||
	    (!strcmp(argv[3], "prog") && argc != 4) ||
	    (strcmp(argv[3], "link") && strcmp(argv[3], "prog"))) {
		fprintf(stderr, "usage: %s DEV primary|peer link PINPATH\n"
			"       %s DEV primary|peer prog\n"
			"       %s fdinfo PINPATH\n", argv[0], argv[0], argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	type = strcmp(argv[2], "primary") ? BPF_NETKIT_PEER : BPF_NETKIT_PRIMARY;

	failed = nk_attach(ifindex, type, NETKIT_NEXT, "nk_pass",
			   strcmp(argv[3], "link") ? NULL : argv[4]);
	if (failed)
		die(failed);
	return 0;
}
