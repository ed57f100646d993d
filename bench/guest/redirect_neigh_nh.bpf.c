// SPDX-License-Identifier: GPL-2.0
/*
 * veth-phys, veth-phys-clsact and netkit-phys: the pod's way out of the
 * node as an agent sends it, to a next hop it already knows. Every IPv4
 * packet the pod sends goes to the physical device with
 * bpf_redirect_neigh() and the next hop in its parameters: the helper does
 * no route lookup, it finds (or creates) the neighbour entry of that next
 * hop on the device and transmits there. An agent knows the node's next
 * hop (its gateway, or here the remote host on the device's link) and
 * passes it, as it caches what it can rather than looking the route up per
 * packet. bench/guest/nkbench.c sets cfg: the physical device's ifindex
 * and the next hop. redirect_neigh.bpf.c is the same program without the
 * next hop: the helper's route lookup per packet (netkit-phys-route,
 * netkit-vphys).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TC_ACT_OK	0
#define ETH_P_IP	0x0800
#define AF_INET		2

/* The loader's settings, in this order (nkbench writes the 8 bytes). */
const volatile struct {
	__u32 target_ifindex;
	__be32 nexthop;
} cfg = {};

SEC("tc")
int redirect_neigh_nh(struct __sk_buff *skb)
{
	struct bpf_redir_neigh nh = {
		.nh_family = AF_INET,
		.ipv4_nh = cfg.nexthop,
	};

	if (!cfg.target_ifindex || !cfg.nexthop || skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	return bpf_redirect_neigh(cfg.target_ifindex, &nh, sizeof(nh), 0);
}

char _license[] SEC("license") = "GPL";
