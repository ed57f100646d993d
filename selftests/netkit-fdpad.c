// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-fdpad: run a command whose next open() returns a given fd.
 *
 *   netkit-fdpad FD COMMAND [ARG...]
 *
 * Opens /dev/null until every fd below FD is taken, then executes COMMAND,
 * which inherits them. bpftool_netkit.sh uses it to make the fd of the
 * cgroup that 'bpftool cgroup show' opens equal to the ifindex of a netkit
 * device (the kernel reads the same BPF_PROG_QUERY field as either).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int want, fd;

	if (argc < 3 || (want = atoi(argv[1])) < 3) {
		fprintf(stderr, "usage: %s FD COMMAND [ARG...] (FD >= 3)\n", argv[0]);
		return 2;
	}
	do {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0) {
			perror("netkit-fdpad: open /dev/null");
			return 1;
		}
	} while (fd < want - 1);
	if (fd >= want) {
		fprintf(stderr, "netkit-fdpad: fd %d is already taken\n", want);
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("netkit-fdpad: exec");
	return 1;
}
