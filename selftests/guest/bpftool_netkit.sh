#!/bin/sh
# area: netkit
# order: 20
# bpftool_netkit: what bpftool shows for netkit attachments, against the
# output format of mainline's bpftool (netkit/0005, netkit/0006), and that
# 'bpftool cgroup tree' still works with netkit in the kernel
# (followup/0012, followup/0021), that 'bpftool cgroup show' does not take
# netkit programs for cgroup ones when a netkit ifindex equals the cgroup fd
# (b69d4413aa19), and that 'bpftool feature list_builtins' lists the netkit
# attach and link types past 6.1's unnamed gaps. Besides bpftool: what a
# netkit link's fdinfo says (its device and attach type, the device
# gone once it is deleted), ethtool's driver name and switchable
# offloads, and the random addresses of an l2 pair.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed or the setup did not work, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/bpftool_netkit_link
PIN_PEER=/sys/fs/bpf/bpftool_netkit_peer_link

cleanup() {
	ip link del nkb1 2>/dev/null
	rm -f "$PIN" "$PIN_PEER"
}

if ! netkit-pair nkb1 nkb0 l2 pass pass ||
	! ip link set nkb1 up || ! ip link set nkb0 up ||
	! netkit-attach nkb1 primary link "$PIN" ||
	! netkit-attach nkb1 peer prog; then
	expect "netkit pair with a primary link and a peer program" 1
	cleanup
	tap_finish
fi
idx=$(cat /sys/class/net/nkb1/ifindex)

# bpftool link: the link type, the device and the attach type.
out=$(bpftool link show pinned "$PIN")
expect "bpftool link show exits 0" $?
expect_match "link show: netkit link type" '^[0-9]+: netkit  prog [0-9]+' "$out"
expect_match "link show: device and attach type" \
	"^	ifindex nkb1\\($idx\\)  attach_type netkit_primary" "$out"
out=$(bpftool -j link show pinned "$PIN")
expect_match "link show -j" \
	"\"type\":\"netkit\",\"prog_id\":[0-9]+,\"devname\":\"nkb1\",\"ifindex\":$idx,\"attach_type\":\"netkit_primary\"" "$out"

# bpftool net: one line per netkit program, in the tc section.
out=$(bpftool net show dev nkb1)
expect "bpftool net show exits 0" $?
expect_match "net show: primary program with its link" \
	"^nkb1\\($idx\\) netkit/primary nk_pass prog_id [0-9]+ link_id [0-9]+ \$" "$out"
expect_match "net show: peer program without a link" \
	"^nkb1\\($idx\\) netkit/peer nk_pass prog_id [0-9]+ \$" "$out"
out=$(bpftool -j net show dev nkb1)
expect_match "net show -j: primary" \
	"\\{\"devname\":\"nkb1\",\"ifindex\":$idx,\"kind\":\"netkit/primary\",\"name\":\"nk_pass\",\"prog_id\":[0-9]+,\"prog_flags\":\\[\\],\"link_id\":[0-9]+,\"link_flags\":\\[\\]\\}" "$out"
expect_match "net show -j: peer" \
	"\\{\"devname\":\"nkb1\",\"ifindex\":$idx,\"kind\":\"netkit/peer\",\"name\":\"nk_pass\",\"prog_id\":[0-9]+,\"prog_flags\":\\[\\],\"link_id\":0,\"link_flags\":\\[\\]\\}" "$out"

# The links' fdinfo: the ifindex of the device the link is on (a peer
# link's is the peer) and the attach type, by number (uapi:
# BPF_NETKIT_PRIMARY 54, BPF_NETKIT_PEER 55) and by name.
out=$(netkit-attach fdinfo "$PIN")
expect "fdinfo of the primary link" $?
expect_match "fdinfo: the primary link's device" "^ifindex:	$idx\$" "$out"
expect_match "fdinfo: the primary link's attach type" '^attach_type:	54 \(primary\)$' "$out"
netkit-attach nkb1 peer link "$PIN_PEER"
expect "a peer link next to the peer program" $?
out=$(netkit-attach fdinfo "$PIN_PEER")
expect_match "fdinfo: the peer link's device, the peer" \
	"^ifindex:	$(cat /sys/class/net/nkb0/ifindex)\$" "$out"
expect_match "fdinfo: the peer link's attach type" '^attach_type:	55 \(peer\)$' "$out"
rm -f "$PIN_PEER"

out=$(ethtool -i nkb1)
expect "ethtool -i exits 0" $?
expect_match "ethtool -i: the driver is netkit" '^driver: netkit$' "$out"
# netkit's offloads can be switched (its hw_features), not fixed
out=$(ethtool -k nkb1)
expect_match "ethtool -k: tx-scatter-gather on, switchable" '^[[:space:]]*tx-scatter-gather: on$' "$out"

# Neither end of this l2 pair was given an address: each has a random
# one, locally administered unicast, and they differ.
mac=$(cat /sys/class/net/nkb1/address)
pmac=$(cat /sys/class/net/nkb0/address)
for m in "$mac" "$pmac"; do
	expect_match "random l2 address $m: locally administered unicast" \
		'^[0-9a-f][26ae]:([0-9a-f]{2}:){4}[0-9a-f]{2}$' "$m"
done
[ "$mac" != "$pmac" ]
expect "the two ends' addresses differ ($mac, $pmac)" $?

# bpftool cgroup queries every cgroup attach type; the netkit types must
# not make it fail.
bpftool cgroup tree /sys/fs/cgroup >/dev/null
expect "bpftool cgroup tree exits 0" $?

# bpftool cgroup show passes the cgroup's fd in the BPF_PROG_QUERY field
# that netkit reads as the ifindex. Give six netkit devices with programs
# the free ifindexes K..K+5, and start bpftool with every fd below K open
# (netkit-fdpad), so that the cgroup fd it opens is one of them even if it
# opens a few files first: only cgroup programs may show. The cgroup needs
# a program of its own, or bpftool lists nothing at all.
CG_PIN=/sys/fs/bpf/bpftool_netkit_cg
bpftool prog load /selftests/bpf/metadata_unused.bpf.o "$CG_PIN" &&
	bpftool cgroup attach /sys/fs/cgroup egress pinned "$CG_PIN"
expect "a cgroup_skb/egress program on the root cgroup" $?
k=40
while [ -n "$(for i in 0 1 2 3 4 5 100 101 102 103 104 105; do
	grep -lx "$((k + i))" /sys/class/net/*/ifindex 2>/dev/null; done)" ]; do
	k=$((k + 10))
done
ok=0
for i in 0 1 2 3 4 5; do
	netkit-pair -i "$((k + i)):$((k + i + 100))" "nkc$i" "nkcp$i" &&
		netkit-attach "nkc$i" primary prog || ok=1
done
expect "netkit devices with ifindexes $k-$((k + 5)), each with a program" "$ok"
out=$(netkit-fdpad "$k" bpftool cgroup show /sys/fs/cgroup)
expect "bpftool cgroup show (cgroup fd >= $k) exits 0" $?
expect_match "cgroup show lists the cgroup program" '^[0-9]+ +cgroup_inet_egress +prog' "$out"
expect_match "cgroup show lists no netkit program" '^$' "$(printf '%s\n' "$out" | grep -E 'nk_pass|netkit')"
out=$(netkit-fdpad "$k" bpftool cgroup tree /sys/fs/cgroup)
expect "bpftool cgroup tree (cgroup fd >= $k) exits 0" $?
expect_match "cgroup tree lists no netkit program" '^$' "$(printf '%s\n' "$out" | grep -E 'nk_pass|netkit')"
for i in 0 1 2 3 4 5; do
	ip link del "nkc$i" 2>/dev/null
done
bpftool cgroup detach /sys/fs/cgroup egress pinned "$CG_PIN"
rm -f "$CG_PIN"

# list_builtins: 6.1's attach and link types have unnamed gaps below the
# netkit numbers; the listing must go past them, and name no type there
# but tcx's where the series carries tcx (patches/tcx/; not CUT=netkit).
out=$(bpftool feature list_builtins attach_types)
expect "list_builtins attach_types exits 0" $?
if printf '%s\n' "$out" | grep -qx tcx_ingress; then
	want_a="lsm_cgroup tcx_ingress tcx_egress netkit_primary netkit_peer "
	want_l="struct_ops tcx netkit "
	want_j='"struct_ops","tcx","netkit"\]$'
else
	want_a="lsm_cgroup netkit_primary netkit_peer "
	want_l="struct_ops netkit "
	want_j='"struct_ops","netkit"\]$'
fi
last=$(printf '%s\n' "$out" | tail -n "$(echo "$want_a" | wc -w)" | tr '\n' ' ')
[ "$last" = "$want_a" ]
expect "attach_types: 6.1's last (lsm_cgroup), then ${want_a#lsm_cgroup }(got: $last)" $?
out=$(bpftool feature list_builtins link_types)
expect "list_builtins link_types exits 0" $?
last=$(printf '%s\n' "$out" | tail -n "$(echo "$want_l" | wc -w)" | tr '\n' ' ')
[ "$last" = "$want_l" ]
expect "link_types: struct_ops, then ${want_l#struct_ops }nothing between (got: $last)" $?
out=$(bpftool -j feature list_builtins link_types)
expect_match "link_types -j ends with ${want_l#struct_ops }" "$want_j" "$out"

# Once the device is gone, the pinned link is detached.
ip link del nkb1
out=$(bpftool link show pinned "$PIN")
expect_match "link show after the device is gone" \
	'^	ifindex \(detached\)  attach_type netkit_primary' "$out"
out=$(netkit-attach fdinfo "$PIN")
expect_match "fdinfo after the device is gone: ifindex 0" '^ifindex:	0$' "$out"
expect_match "fdinfo after the device is gone: still primary" '^attach_type:	54 \(primary\)$' "$out"

cleanup
tap_finish
