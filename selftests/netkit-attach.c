// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-attach: attach a minimal pass-through program to a netkit device.
 *
 *   netkit-attach DEV primary|peer link PINPATH
 *   netkit-attach DEV primary|peer prog
 *
 * "link" creates a netkit BPF link (BPF_LINK_CREATE) and pins it at
 * PINPATH so that it outlives this process; "prog" attaches with
 * BPF_PROG_ATTACH, which needs no pin. The program, named nk_pass,
 * returns NETKIT_NEXT. bpftool cannot attach netkit programs, so the
 * guest's bpftool test uses this, with raw bpf(2) calls only.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static void die(const char *what)
{
	fprintf(stderr, "netkit-attach: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		/* r0 = NETKIT_NEXT; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = NETKIT_NEXT },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int ifindex, type, prog_fd, fd;

	if (argc < 4 || (strcmp(argv[2], "primary") && strcmp(argv[2], "peer")) ||
	    (!strcmp(argv[3], "link") && argc != 5) ||
	    (!strcmp(argv[3], "prog") && argc != 4) ||
	    (strcmp(argv[3], "link") && strcmp(argv[3], "prog"))) {
		fprintf(stderr, "usage: %s DEV primary|peer link PINPATH\n"
			"       %s DEV primary|peer prog\n", argv[0], argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	type = strcmp(argv[2], "primary") ? BPF_NETKIT_PEER : BPF_NETKIT_PRIMARY;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.expected_attach_type = type;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	strncpy(attr.prog_name, "nk_pass", sizeof(attr.prog_name) - 1);
	prog_fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0)
		die("BPF_PROG_LOAD");

	memset(&attr, 0, sizeof(attr));
	if (!strcmp(argv[3], "prog")) {
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
	attr.pathname = (unsigned long)argv[4];
	attr.bpf_fd = fd;
	if (sys_bpf(BPF_OBJ_PIN, &attr))
		die("BPF_OBJ_PIN");
	return 0;
}
