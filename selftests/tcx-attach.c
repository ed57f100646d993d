// SPDX-License-Identifier: GPL-2.0
/*
 * tcx-attach: attach a minimal program to a device's tcx ingress or egress
 * hook (built only when the tree carries tcx, patches/tcx/).
 *
 *   tcx-attach DEV ingress|egress pass|drop link PINPATH
 *   tcx-attach DEV ingress|egress pass|drop prog
 *   tcx-attach IFINDEX ingress|egress detach
 *   tcx-attach IFINDEX ingress|egress query
 *   tcx-attach fdinfo PINPATH
 *   tcx-attach DEV clsact-root
 *   tcx-attach replace PINPATH
 *
 * "link" creates a tcx BPF link (BPF_LINK_CREATE) and pins it at PINPATH
 * so that it outlives this process; "prog" attaches with BPF_PROG_ATTACH,
 * which needs no pin. The program, named tcx_pass or tcx_drop, returns
 * TCX_NEXT or TCX_DROP. "detach" detaches the hook's last program
 * (BPF_PROG_DETACH without a program) from the device of that ifindex,
 * which may be gone; "query" prints how many programs BPF_PROG_QUERY
 * finds on the hook of that ifindex. "fdinfo" prints what /proc/self/fdinfo shows for
 * the link pinned at PINPATH (its device and attach type). "clsact-root"
 * asks for a clsact qdisc in the place of DEV's root qdisc (tc refuses
 * that request itself) and prints the kernel's answer. "replace" updates
 * the link pinned at PINPATH to a new pass program (tcx_repl) with
 * BPF_F_REPLACE twice, printing each answer: first naming as the old
 * program one that is not the link's (the new one), then the link's
 * own. 6.1's iproute2
 * and bpftool cannot attach tcx programs, so the guest's tcx test uses
 * this, with raw bpf(2) calls only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
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
		"       %s IFINDEX ingress|egress detach|query\n"
		"       %s fdinfo PINPATH\n"
		"       %s DEV clsact-root\n"
		"       %s replace PINPATH\n", argv0, argv0, argv0, argv0, argv0, argv0);
	return 2;
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
	if (argc == 4 && (!strcmp(argv[3], "detach") || !strcmp(argv[3], "query")) &&
	    (!strcmp(argv[2], "ingress") || !strcmp(argv[2], "egress"))) {
		__u32 count = 0;
		int err;

		type = strcmp(argv[2], "ingress") ? BPF_TCX_EGRESS : BPF_TCX_INGRESS;
		if (!strcmp(argv[3], "query")) {
			err = nk_prog_query(atoi(argv[1]), type, NULL, NULL, &count, NULL);
			if (err) {
				errno = -err;
				die("BPF_PROG_QUERY");
			}
			printf("%u programs\n", count);
			return 0;
		}
		if (nk_prog_detach(atoi(argv[1]), type, 0, 0, 0, 0))
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
