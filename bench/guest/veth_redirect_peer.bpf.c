// SPDX-License-Identifier: GPL-2.0
/*
 * veth-bpf topology: the pre-netkit container datapath. Attached at tc
 * ingress (clsact, direct action) of the host-side veth of pod A, it moves
 * every IPv4 packet the pod sends straight into the other pod with
 * bpf_redirect_peer(): the packet leaves the host-side veth of pod B's pair
 * on the ingress of its peer, pod B's veth, without touching the host's
 * stack. The loader (bench/guest/nkbench.c) sets target_ifindex to the host-side
 * veth of the other pair before loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TC_ACT_OK	0
#define ETH_P_IP	0x0800

const volatile __u32 target_ifindex = 0;

SEC("tc")
int veth_redirect_peer(struct __sk_buff *skb)
{
	if (!target_ifindex || skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	return bpf_redirect_peer(target_ifindex, 0);
}

char _license[] SEC("license") = "GPL";
