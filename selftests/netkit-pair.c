// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-pair: create a netkit pair over rtnetlink.
 *
 *   netkit-pair [-i IFINDEX[:PEER_IFINDEX]] [-p PAIRING] PRIMARY PEER
 *               [l2|l3] [pass|drop] [pass|drop]
 *   netkit-pair -c -p PAIRING PRIMARY
 *
 * The guest's ip is Debian 12's iproute2 6.1, which predates netkit
 * ("ip link add type netkit" needs iproute2 6.8), so the guest tests create
 * their devices with this instead. The last two arguments are the default
 * policies of the primary and the peer. -i asks for the devices' ifindex;
 * -p sends mainline's IFLA_NETKIT_PAIRING (attribute 10, which the 6.1 uapi
 * leaves unnamed) with the given u32 value, as a newer iproute2 does; with
 * -c it is sent alone as a change of the existing PRIMARY. A refused
 * request prints the errno and the kernel's extack message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netkit-util.h"

struct req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[512];
};

static struct rtattr *add_attr(struct nlmsghdr *n, int type, const void *data,
			       int len)
{
	struct rtattr *rta = (void *)n + NLMSG_ALIGN(n->nlmsg_len);

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void end_nest(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (void *)n + n->nlmsg_len - (void *)nest;
}

static int policy(const char *s)
{
	if (!strcmp(s, "pass"))
		return NETKIT_PASS;
	if (!strcmp(s, "drop"))
		return NETKIT_DROP;
	fprintf(stderr, "netkit-pair: policy must be pass or drop, not %s\n", s);
	exit(2);
}

/* Mainline's IFLA_NETKIT_PAIRING, one past the last attribute 6.1 names. */
#define MAINLINE_IFLA_NETKIT_PAIRING	(IFLA_NETKIT_MAX + 1)

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-i IFINDEX[:PEER_IFINDEX]] [-p PAIRING] PRIMARY PEER [l2|l3] [pass|drop] [pass|drop]\n"
		"       %s -c -p PAIRING PRIMARY\n", prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rtattr *linkinfo, *data, *peer;
	struct ifinfomsg peer_ifm = { .ifi_family = AF_UNSPEC };
	struct req req = {};
	__u32 mode = NETKIT_L3, prim_policy = NETKIT_PASS, peer_policy;
	struct {
		struct nlmsghdr n;
		struct nlmsgerr e;
		char buf[512];
	} ack;
	int fd, len, opt, one = 1, set_pairing = 0, change = 0;
	const char *prog = argv[0];
	__u32 pairing = 0;
	const char *msg;
	char *end;

	while ((opt = getopt(argc, argv, "ci:p:")) != -1) {
		switch (opt) {
		case 'c':
			change = 1;
			break;
		case 'i':
			req.i.ifi_index = strtol(optarg, &end, 10);
			if (*end == ':')
				peer_ifm.ifi_index = strtol(end + 1, &end, 10);
			if (*end || req.i.ifi_index <= 0)
				usage(prog);
			break;
		case 'p':
			pairing = strtoul(optarg, &end, 10);
			if (*end)
				usage(prog);
			set_pairing = 1;
			break;
		default:
			usage(prog);
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (change ? argc != 2 || !set_pairing : argc < 3 || argc > 6)
		usage(prog);
	if (argc > 3)
		mode = strcmp(argv[3], "l2") ? NETKIT_L3 : NETKIT_L2;
	if (argc > 4)
		prim_policy = policy(argv[4]);
	peer_policy = argc > 5 ? policy(argv[5]) : NETKIT_PASS;

	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	req.n.nlmsg_type = RTM_NEWLINK;
	req.i.ifi_family = AF_UNSPEC;
	add_attr(&req.n, IFLA_IFNAME, argv[1], strlen(argv[1]) + 1);
	linkinfo = add_attr(&req.n, IFLA_LINKINFO, NULL, 0);
	add_attr(&req.n, IFLA_INFO_KIND, "netkit", strlen("netkit"));
	data = add_attr(&req.n, IFLA_INFO_DATA, NULL, 0);
	if (change) {
		req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		add_attr(&req.n, MAINLINE_IFLA_NETKIT_PAIRING, &pairing, sizeof(pairing));
		end_nest(&req.n, data);
		end_nest(&req.n, linkinfo);
		goto send;
	}
	add_attr(&req.n, IFLA_NETKIT_MODE, &mode, sizeof(mode));
	add_attr(&req.n, IFLA_NETKIT_POLICY, &prim_policy, sizeof(prim_policy));
	add_attr(&req.n, IFLA_NETKIT_PEER_POLICY, &peer_policy, sizeof(peer_policy));
	if (set_pairing)
		add_attr(&req.n, MAINLINE_IFLA_NETKIT_PAIRING, &pairing, sizeof(pairing));

	/* IFLA_NETKIT_PEER_INFO: an ifinfomsg followed by the peer's name. */
	peer = add_attr(&req.n, IFLA_NETKIT_PEER_INFO, &peer_ifm, sizeof(peer_ifm));
	add_attr(&req.n, IFLA_IFNAME, argv[2], strlen(argv[2]) + 1);
	end_nest(&req.n, peer);
	end_nest(&req.n, data);
	end_nest(&req.n, linkinfo);

send:
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0) {
		perror("netkit-pair: netlink socket");
		return 1;
	}
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0) {
		perror("netkit-pair: send");
		return 1;
	}
	len = recv(fd, &ack, sizeof(ack), 0);
	if (len < (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    ack.n.nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "netkit-pair: unexpected netlink answer\n");
		return 1;
	}
	if (ack.e.error) {
		msg = nk_extack_msg(&ack.n, len);
		fprintf(stderr, "netkit-pair: RTM_NEWLINK %s%s%s: %s%s%s\n", argv[1],
			change ? "" : "/", change ? "" : argv[2], strerror(-ack.e.error),
			msg ? ": " : "", msg ? msg : "");
		return 1;
	}
	close(fd);
	return 0;
}
