// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-pair: create a netkit pair over rtnetlink.
 *
 *   netkit-pair [-i IFINDEX[:PEER_IFINDEX]] [-p PAIRING] [-a ADDRESS]
 *               [-S [SCRUB]:[PEER_SCRUB]] [-H HEADROOM] [-T TAILROOM]
 *               PRIMARY PEER [l2|l3] [pass|drop|-] [pass|drop|-]
 *   netkit-pair -c [-p PAIRING] [-P [POLICY]:[PEER_POLICY]] PRIMARY
 *   netkit-pair -s DEV
 *
 * The guest's ip is Debian 12's iproute2 6.1, which predates netkit
 * ("ip link add type netkit" needs iproute2 6.8), so the guest tests create
 * their devices with this instead. The last two arguments are the default
 * policies of the primary and the peer ("-": the attribute is not sent;
 * left out: pass). -i asks for the devices' ifindex;
 * -p sends mainline's IFLA_NETKIT_PAIRING (attribute 10, which the 6.1 uapi
 * leaves unnamed) with the given u32 value, as a newer iproute2 does; with
 * -c it is sent as a change of the existing PRIMARY, as are -P's
 * IFLA_NETKIT_POLICY and IFLA_NETKIT_PEER_POLICY (pass or drop; a side
 * left empty is not sent). -a gives the
 * primary an address (IFLA_ADDRESS, aa:bb:cc:dd:ee:ff). PEER "-" sends
 * no IFLA_NETKIT_PEER_INFO: the kernel names the peer; PRIMARY "-" (when
 * creating) sends no IFLA_IFNAME: the kernel names the primary. -S sends
 * IFLA_NETKIT_SCRUB and IFLA_NETKIT_PEER_SCRUB (none or default; a side
 * left empty is not sent), so that the two ends can be made to differ;
 * -H and -T send IFLA_NETKIT_HEADROOM and IFLA_NETKIT_TAILROOM (u16), which
 * set both ends. A refused request
 * prints the errno and the kernel's extack message. -s prints the
 * netkit attributes RTM_GETLINK reports for DEV, as name=value (-1 for
 * one not reported): primary, mode, policy, peer_policy, scrub,
 * peer_scrub.
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

#include "lib/netkit-lib.h"

/* a policy argument: pass, drop, or "-" / "" (-1: not sent) */
static int policy(const char *s)
{
	if (!strcmp(s, "-") || !*s)
		return -1;
	if (!strcmp(s, "pass"))
		return NETKIT_PASS;
	if (!strcmp(s, "drop"))
		return NETKIT_DROP;
	fprintf(stderr, "netkit-pair: policy must be pass, drop or -, not %s\n", s);
	exit(2);
}

static void usage(const char *prog) __attribute__((noreturn));

/* -S: none, default or a number (sent as given); "" is left out (-1) */
static int scrub(const char *s, const char *prog)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	if (!strcmp(s, "none"))
		return NETKIT_SCRUB_NONE;
	if (!strcmp(s, "default"))
		return NETKIT_SCRUB_DEFAULT;
	v = strtol(s, &end, 0);
	if (*end || v < 0)
		usage(prog);
	return v;
}

/* Mainline's IFLA_NETKIT_PAIRING, one past the last attribute 6.1 names. */
#define MAINLINE_IFLA_NETKIT_PAIRING	(IFLA_NETKIT_MAX + 1)

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-i IFINDEX[:PEER_IFINDEX]] [-p PAIRING] [-a ADDRESS] [-S [SCRUB]:[PEER_SCRUB]] [-H HEADROOM] [-T TAILROOM] PRIMARY PEER|- [l2|l3] [pass|drop|-] [pass|drop|-]\n"
		"       %s -c [-p PAIRING] [-P [POLICY]:[PEER_POLICY]] PRIMARY\n"
		"       %s -s DEV\n", prog, prog, prog);
	exit(2);
}

/* -s: what RTM_GETLINK reports of DEV's netkit attributes */
static int show(const char *dev)
{
	struct nk_link l;
	int err;

	err = nk_link_get(NULL, 0, dev, &l);
	if (err) {
		fprintf(stderr, "netkit-pair: RTM_GETLINK %s: %s\n", dev, strerror(-err));
		return 1;
	}
	printf("primary=%d mode=%d policy=%d peer_policy=%d scrub=%d peer_scrub=%d\n",
	       l.primary, l.mode, l.policy, l.peer_policy, l.scrub, l.peer_scrub);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, err, ifindex = 0, peer_ifindex = 0, set_pairing = 0, change = 0;
	const char *prog = argv[0], *show_dev = NULL;
	unsigned char addr[6];
	int set_addr = 0, scrub_prim = -1, scrub_peer = -1, pol_prim = -1, pol_peer = -1;
	long headroom = -1, tailroom = -1;
	char extra, *colon;
	__u32 pairing = 0;
	struct nk_msg m;
	struct nk_nl nl;
	char ext[256];
	char *end;

	while ((opt = getopt(argc, argv, "a:ci:p:s:H:P:S:T:")) != -1) {
		switch (opt) {
		case 'P':
			colon = strchr(optarg, ':');
			if (!colon)
				usage(prog);
			*colon = 0;
			pol_prim = policy(optarg);
			pol_peer = policy(colon + 1);
			if (pol_prim < 0 && pol_peer < 0)
				usage(prog);
			break;
		case 'S':
			colon = strchr(optarg, ':');
			if (!colon)
				usage(prog);
			*colon = 0;
			scrub_prim = scrub(optarg, prog);
			scrub_peer = scrub(colon + 1, prog);
			break;
		case 'H':
		case 'T':
			*(opt == 'H' ? &headroom : &tailroom) = strtol(optarg, &end, 0);
			if (*end || *optarg == '-' || !*optarg ||
			    (opt == 'H' ? headroom : tailroom) > 0xffff)
				usage(prog);
			break;
		case 'a':
			if (sscanf(optarg, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx%c", &addr[0],
				   &addr[1], &addr[2], &addr[3], &addr[4], &addr[5],
				   &extra) != 6)
				usage(prog);
			set_addr = 1;
			break;
		case 's':
			show_dev = optarg;
			break;
		case 'c':
			change = 1;
			break;
		case 'i':
			ifindex = strtol(optarg, &end, 10);
			if (*end == ':')
				peer_ifindex = strtol(end + 1, &end, 10);
			if (*end || ifindex <= 0)
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
	if (show_dev) {
		if (argc != 1 || change || set_pairing || set_addr)
			usage(prog);
		return show(show_dev);
	}
	if (change ? argc != 2 || (!set_pairing && pol_prim < 0 && pol_peer < 0) || set_addr ||
		     scrub_prim >= 0 || scrub_peer >= 0 || headroom >= 0 || tailroom >= 0 :
		     argc < 3 || argc > 6 || pol_prim >= 0 || pol_peer >= 0)
		usage(prog);
	if (!change) {
		pol_prim = argc > 4 ? policy(argv[4]) : NETKIT_PASS;
		pol_peer = argc > 5 ? policy(argv[5]) : NETKIT_PASS;
	}

	nk_netkit_begin(&m, RTM_NEWLINK,
			NLM_F_ACK | (change ? 0 : NLM_F_CREATE | NLM_F_EXCL),
			ifindex, change || strcmp(argv[1], "-") ? argv[1] : NULL);
	if (!change) {
		nk_put_u32(&m, IFLA_NETKIT_MODE, argc > 3 && !strcmp(argv[3], "l2") ?
			   NETKIT_L2 : NETKIT_L3);
		if (scrub_prim >= 0)
			nk_put_u32(&m, IFLA_NETKIT_SCRUB, scrub_prim);
		if (scrub_peer >= 0)
			nk_put_u32(&m, IFLA_NETKIT_PEER_SCRUB, scrub_peer);
		if (headroom >= 0)
			nk_put_u16(&m, IFLA_NETKIT_HEADROOM, headroom);
		if (tailroom >= 0)
			nk_put_u16(&m, IFLA_NETKIT_TAILROOM, tailroom);
	}
	if (pol_prim >= 0)
		nk_put_u32(&m, IFLA_NETKIT_POLICY, pol_prim);
	if (pol_peer >= 0)
		nk_put_u32(&m, IFLA_NETKIT_PEER_POLICY, pol_peer);
	if (set_pairing)
		nk_put_u32(&m, MAINLINE_IFLA_NETKIT_PAIRING, pairing);
	/* IFLA_NETKIT_PEER_INFO: an ifinfomsg followed by the peer's name. */
	if (!change && strcmp(argv[2], "-"))
		nk_netkit_peer(&m, peer_ifindex, argv[2]);
	nk_nest_end_all(&m);
	if (set_addr)
		nk_put(&m, IFLA_ADDRESS, addr, sizeof(addr));

	err = nk_nl_open(&nl, 0);
	if (err) {
		perror("netkit-pair: netlink socket");
		return 1;
	}
	err = nk_nl_talk(&nl, &m, ext, sizeof(ext));
	if (err) {
		fprintf(stderr, "netkit-pair: RTM_NEWLINK %s%s%s: %s%s%s\n", argv[1],
			change ? "" : "/", change ? "" : argv[2], strerror(-err),
			*ext ? ": " : "", ext);
		return 1;
	}
	nk_nl_close(&nl);
	return 0;
}
