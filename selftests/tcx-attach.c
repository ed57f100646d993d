// SPDX-License-Identifier: GPL-2.0
/*
 * tcx-attach: attach a minimal program to a device's tcx ingress or egress
 * hook (built only when the tree carries tcx, patches/tcx/).
 *
 *   tcx-attach DEV ingress|egress pass|drop link PINPATH
 *   tcx-attach DEV ingress|egress pass|drop prog
 *
 * "link" creates a tcx BPF link (BPF_LINK_CREATE) and pins it at PINPATH
 * so that it outlives this process; "prog" attaches with BPF_PROG_ATTACH,
 * which needs no pin. The program, named tcx_pass or tcx_drop, returns
 * TCX_NEXT or TCX_DROP. 6.1's iproute2 and bpftool cannot attach tcx
 * programs, so the guest's tcx test uses this, with raw bpf(2) calls only.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static void die(const char *what)
{
	fprintf(stderr, "tcx-attach: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s DEV ingress|egress pass|drop link PINPATH\n"
		"       %s DEV ingress|egress pass|drop prog\n", argv0, argv0);
	return 2;
}

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		/* r0 = TCX_NEXT or TCX_DROP; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int ifindex, type, prog_fd, fd, drop;

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
	insns[0].imm = drop ? TCX_DROP : TCX_NEXT;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.expected_attach_type = type;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	strncpy(attr.prog_name, drop ? "tcx_drop" : "tcx_pass",
		sizeof(attr.prog_name) - 1);
	prog_fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0)
		die("BPF_PROG_LOAD");

	memset(&attr, 0, sizeof(attr));
	if (!strcmp(argv[4], "prog")) {
		attr.target_ifindex = ifindex;
		attr.attach_bpf_fd = prog_fd;
		attr.attach_type = type;
		if (sys_bpf(BPF_PROG_ATTACH, &attr))
			die("BPF_PROG_ATTACH");
		return 0;
	}
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.target_ifindex = ifindex;
	attr.link_create.attach_type = type;
	fd = sys_bpf(BPF_LINK_CREATE, &attr);
	if (fd < 0)
		die("BPF_LINK_CREATE");
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)argv[5];
	attr.bpf_fd = fd;
	if (sys_bpf(BPF_OBJ_PIN, &attr))
		die("BPF_OBJ_PIN");
	return 0;
}
