// SPDX-License-Identifier: GPL-2.0
/*
 * veth-phys and netkit-phys topologies, the pod's way out of the node:
 * every IPv4 packet the pod sends goes to the "physical" device with
 * bpf_redirect_neigh(), which looks the route and the neighbour up in the
 * host's namespace and transmits on that device. The same program runs at
 * tcx ingress of the pod's host-side veth (veth-phys: after the veth's
 * backlog round) and on the peer hook of the pod's netkit pair (netkit-phys:
 * in the xmit of the pod's own device, no backlog round), attached by
 * bench/guest/nkbench.c, which sets target_ifindex to the "physical" device.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TC_ACT_OK	0
#define ETH_P_IP	0x0800

const volatile __u32 target_ifindex = 0;

SEC("tc")
int redirect_neigh(struct __sk_buff *skb)
{
	if (!target_ifindex || skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	return bpf_redirect_neigh(target_ifindex, NULL, 0, 0);
}

char _license[] SEC("license") = "GPL";
