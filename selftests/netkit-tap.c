// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-tap: count the IPv4 frames a device receives, as tcpdump would
 * see them.
 *
 *   netkit-tap DEV SECONDS
 *
 * An AF_PACKET socket for every protocol (ETH_P_ALL) bound to DEV, in the
 * current netns: the receive path hands it each frame it takes in on
 * DEV's behalf (the device's ptype_all taps). For SECONDS it counts the
 * incoming IPv4 frames (not DEV's own outgoing ones) and prints the count
 * ("ready" first on stderr, once the socket is bound).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "lib/netkit-lib.h"

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	double end;
	char buf[2048];
	int fd, n = 0;

	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: %s DEV SECONDS\n", argv[0]);
		return 2;
	}
	sll.sll_ifindex = if_nametoindex(argv[1]);
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (!sll.sll_ifindex || fd < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "netkit-tap: %s: %s\n", argv[1],
			sll.sll_ifindex ? strerror(errno) : "no such device");
		return 1;
	}
	fprintf(stderr, "ready\n");
	end = nk_now() + atof(argv[2]);
	while (nk_now() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t len = sizeof(from);

		if (poll(&p, 1, 50) <= 0)
			continue;
		if (recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len) < 0)
			continue;
		if (from.sll_pkttype != PACKET_OUTGOING &&
		    from.sll_protocol == htons(ETH_P_IP))
			n++;
	}
	printf("%d\n", n);
	return 0;
}
