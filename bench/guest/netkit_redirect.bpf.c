// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-bpf topology: the netkit datapath as Cilium drives it. Attached
 * through a netkit bpf link on the peer hook of pod A's pair
 * (BPF_NETKIT_PEER on the primary's ifindex), it runs in the xmit of the
 * pod's own device and bpf_redirect()s every IPv4 packet to the primary of
 * pod B's pair, whose xmit hands it to pod B. The loader
 * (bench/guest/nkbench.c) sets target_ifindex to that primary before loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP	0x0800

const volatile __u32 target_ifindex = 0;

SEC("netkit/peer")
int netkit_redirect(struct __sk_buff *skb)
{
	if (!target_ifindex || skb->protocol != bpf_htons(ETH_P_IP))
		return NETKIT_PASS;
	return bpf_redirect(target_ifindex, 0);
}

char _license[] SEC("license") = "GPL";
