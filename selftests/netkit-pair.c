// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-pair: create a netkit pair over rtnetlink.
 *
 *   netkit-pair PRIMARY PEER [l2|l3] [pass|drop] [pass|drop]
 *
 * The guest's ip is Debian 12's iproute2 6.1, which predates netkit
 * ("ip link add type netkit" needs iproute2 6.8), so the guest tests create
 * their devices with this instead. The last two arguments are the default
 * policies of the primary and the peer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

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
	int fd, len;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: %s PRIMARY PEER [l2|l3] [pass|drop] [pass|drop]\n",
			argv[0]);
		return 2;
	}
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
	add_attr(&req.n, IFLA_NETKIT_MODE, &mode, sizeof(mode));
	add_attr(&req.n, IFLA_NETKIT_POLICY, &prim_policy, sizeof(prim_policy));
	add_attr(&req.n, IFLA_NETKIT_PEER_POLICY, &peer_policy, sizeof(peer_policy));

	/* IFLA_NETKIT_PEER_INFO: an ifinfomsg followed by the peer's name. */
	peer = add_attr(&req.n, IFLA_NETKIT_PEER_INFO, &peer_ifm, sizeof(peer_ifm));
	add_attr(&req.n, IFLA_IFNAME, argv[2], strlen(argv[2]) + 1);
	end_nest(&req.n, peer);
	end_nest(&req.n, data);
	end_nest(&req.n, linkinfo);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
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
		fprintf(stderr, "netkit-pair: RTM_NEWLINK %s/%s: %s\n", argv[1],
			argv[2], strerror(-ack.e.error));
		return 1;
	}
	close(fd);
	return 0;
}
