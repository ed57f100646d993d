#!/bin/sh
# area: netkit
# order: 10
# netkit_stats: the counters 'ip -s link' shows for a netkit pair move with
# the traffic that crosses it (mainline ae1658272c64, "netkit: Add tstats
# per-CPU traffic counters"), and what the default policy drops is counted
# as a drop, not as traffic, as is a frame too short to carry an
# Ethernet header; a packet redirected to the peer with
# bpf_redirect_peer is received there as one that arrived there, and
# one sent where no peer can take it (lo, a missing ifindex, a peer that
# is down) is dropped.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed or the setup did not work, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NS=nkstats
NS2=nkstats2

# counter NETNS DEV rx|tx FIELD: one counter from 'ip -s -j link show';
# NETNS "-" is the initial namespace.
counter() {
	if [ "$1" = - ]; then
		ip -s -j link show dev "$2"
	else
		ip -n "$1" -s -j link show dev "$2"
	fi | sed -n "s/.*\"$3\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$4\":\([0-9]*\).*/\1/p"
}

setup() {
	ip netns add "$NS" &&
		ip -n "$NS" link set lo up &&
		netkit-pair nks1 nks0 l3 pass pass &&
		pair_to_netns "$NS" nks1 nks0 10.99.0 &&
		netkit-pair nkd1 nkd0 l3 pass drop &&
		pair_to_netns "$NS" nkd1 nkd0 10.98.0
}

cleanup() {
	ip link del nkpv0 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	ip link del nks1 2>/dev/null
	ip link del nkd1 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}

if ! setup; then
	expect "setting up two netkit pairs" 1
	cleanup
	tap_finish
fi

# Pair 1, both policies pass: five echo requests out of the primary, five
# replies back from the peer.
p_tx=$(counter - nks1 tx packets)
p_rx=$(counter - nks1 rx packets)
p_txb=$(counter - nks1 tx bytes)
q_tx=$(counter "$NS" nks0 tx packets)
q_rx=$(counter "$NS" nks0 rx packets)
q_rxb=$(counter "$NS" nks0 rx bytes)
ping -c 5 -i 0.2 -W 2 10.99.0.2 >/dev/null
expect "ping across a pass/pass pair" $?
expect_ge "primary tx packets" "$(counter - nks1 tx packets)" $((p_tx + 5))
expect_ge "primary rx packets" "$(counter - nks1 rx packets)" $((p_rx + 5))
expect_ge "primary tx bytes" "$(counter - nks1 tx bytes)" $((p_txb + 5 * 84))
expect_ge "peer rx packets" "$(counter "$NS" nks0 rx packets)" $((q_rx + 5))
expect_ge "peer tx packets" "$(counter "$NS" nks0 tx packets)" $((q_tx + 5))
expect_ge "peer rx bytes" "$(counter "$NS" nks0 rx bytes)" $((q_rxb + 5 * 84))

# Pair 2, the peer drops by default: the requests arrive, every reply is
# dropped in the peer's transmit path.
d_rx=$(counter "$NS" nkd0 rx packets)
d_tx=$(counter "$NS" nkd0 tx packets)
d_drop=$(counter "$NS" nkd0 tx dropped)
! ping -c 3 -i 0.2 -W 1 10.98.0.2 >/dev/null 2>&1
expect "ping across a pass/drop pair fails" $?
expect_ge "drop peer rx packets" "$(counter "$NS" nkd0 rx packets)" $((d_rx + 3))
expect_ge "drop peer tx dropped" "$(counter "$NS" nkd0 tx dropped)" $((d_drop + 3))
[ "$(counter "$NS" nkd0 tx packets)" = "$d_tx" ]
expect "drop peer tx packets unchanged ($d_tx)" $?

# Pair 1 again: frames shorter than an Ethernet header handed to the
# primary to transmit (netkit-shortframe: 2 bytes, redirected from a tun
# device's egress). netkit drops them before it reads their header and
# counts each as a drop; the peer gets none.
p_drop=$(counter - nks1 tx dropped)
netkit-shortframe nks1 5
expect "five 2-byte frames to the primary" $?
d=$(counter - nks1 tx dropped)
[ "$d" = $((p_drop + 5)) ]
expect "short frames: primary tx dropped $p_drop + 5 ($d)" $?

# Pair 1 again: echo requests from a third namespace arrive on a veth
# whose tc ingress program hands them to the peer with
# bpf_redirect_peer(primary). The peer receives them as if they had
# arrived there: the receive path takes another round on it, so a packet
# socket on the peer (as tcpdump) sees them (netkit-tap). No replies: the
# peer's namespace has no route back.
ip netns add "$NS2" &&
	ip link add nkpv0 type veth peer name nkpv1 netns "$NS2" &&
	echo 1 >/proc/sys/net/ipv6/conf/nkpv0/disable_ipv6 &&
	ip netns exec "$NS2" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/nkpv1/disable_ipv6' &&
	ip link set nkpv0 up && ip -n "$NS2" link set nkpv1 up &&
	ip -n "$NS2" addr add 10.96.0.1/24 dev nkpv1 &&
	ip -n "$NS2" route add 10.99.0.0/24 dev nkpv1 &&
	ip -n "$NS2" neigh add 10.99.0.2 lladdr "$(cat /sys/class/net/nkpv0/address)" \
		dev nkpv1 nud permanent &&
	netkit-attach nkpv0 tc-ingress redirect-peer "$(cat /sys/class/net/nks1/ifindex)"
expect "a veth from a third namespace, its ingress redirecting to the peer" $?
start_ready /tmp/netkit_stats.tap ip netns exec "$NS" netkit-tap nks0 4
! ip netns exec "$NS2" ping -c 5 -i 0.2 -W 1 10.99.0.2 >/dev/null 2>&1
expect "ping from the third namespace gets no reply" $?
wait "$ready_pid"
expect "netkit-tap ran on the peer" $?
expect_ge "peer-redirected: a packet socket on the peer saw them" "$(cat /tmp/netkit_stats.tap)" 5
rm -f /tmp/netkit_stats.tap /tmp/netkit_stats.tap.err

# The same veth, its program now redirecting with bpf_redirect_peer to
# where no peer can take the packet: lo (it has no peer), an ifindex
# that does not exist, the primary while its peer is down. Each packet
# is dropped where it arrived; nothing reaches the peer or lo.
# peer_refused WHAT IFINDEX
peer_refused() {
	tc qdisc del dev nkpv0 clsact &&
		netkit-attach nkpv0 tc-ingress redirect-peer "$2"
	expect "$1: the veth's ingress redirects to it" $?
	r_q=$(counter "$NS" nks0 rx packets)
	r_l=$(counter - lo rx packets)
	! ip netns exec "$NS2" ping -c 3 -i 0.2 -W 1 10.99.0.2 >/dev/null 2>&1
	expect "$1: no reply" $?
	[ "$(counter "$NS" nks0 rx packets)" = "$r_q" ]
	expect "$1: peer rx packets unchanged ($r_q)" $?
	[ "$(counter - lo rx packets)" = "$r_l" ]
	expect "$1: lo rx packets unchanged ($r_l)" $?
}
peer_refused "redirect_peer to lo" 1
peer_refused "redirect_peer to a missing ifindex" 2147483000
ip -n "$NS" link set nks0 down
peer_refused "redirect_peer while the peer is down" "$(cat /sys/class/net/nks1/ifindex)"
ip -n "$NS" link set nks0 up
expect "the peer up again" $?
ip link del nkpv0
ip netns del "$NS2"

# Pair 1 again, with a program at the primary that redirects to the
# egress of a veth: the echo requests leave through the veth (its other
# end receives them), count as the primary's tx and never reach the
# peer (no reply). The program runs with the packet already on the peer:
# the target is a device of the peer's namespace. No IPv6 on the veth:
# its DAD and router solicitations would be counted at the other end.
ip -n "$NS" link add nkrv0 type veth peer name nkrv1 &&
	ip netns exec "$NS" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/nkrv0/disable_ipv6 &&
		echo 1 >/proc/sys/net/ipv6/conf/nkrv1/disable_ipv6' &&
	ip -n "$NS" link set nkrv0 up && ip -n "$NS" link set nkrv1 up &&
	netkit-attach nks1 primary redirect "$(ip netns exec "$NS" cat /sys/class/net/nkrv0/ifindex)"
expect "a redirect program at the primary, to a veth of the peer's namespace" $?
p_tx=$(counter - nks1 tx packets)
v_rx=$(counter "$NS" nkrv1 rx packets)
q_rx=$(counter "$NS" nks0 rx packets)
! ping -c 5 -i 0.2 -W 1 10.99.0.2 >/dev/null 2>&1
expect "ping across the redirecting pair fails" $?
expect_ge "redirected: primary tx packets" "$(counter - nks1 tx packets)" $((p_tx + 5))
expect_ge "redirected: the veth's other end received them" "$(counter "$NS" nkrv1 rx packets)" $((v_rx + 5))
[ "$(counter "$NS" nks0 rx packets)" = "$q_rx" ]
expect "redirected: peer rx packets unchanged ($q_rx)" $?

cleanup
tap_finish
