#!/bin/sh
# bpftool_netkit: what bpftool shows for netkit attachments, against the
# output format of mainline's bpftool (netkit/0005, netkit/0006), and that
# 'bpftool cgroup tree' still works with netkit in the kernel
# (followup/0012, followup/0021).
#
# Runs in the test guest as root, prints one "ok"/"not ok" line per check
# and exits non-zero if any check failed or the setup did not work.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/bpftool_netkit_link

cleanup() {
	ip link del nkb1 2>/dev/null
	rm -f "$PIN"
}

if ! netkit-pair nkb1 nkb0 l2 pass pass ||
	! ip link set nkb1 up || ! ip link set nkb0 up ||
	! netkit-attach nkb1 primary link "$PIN" ||
	! netkit-attach nkb1 peer prog; then
	echo "not ok - netkit pair with a primary link and a peer program"
	cleanup
	exit 1
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

# bpftool cgroup queries every cgroup attach type; the netkit types must
# not make it fail.
bpftool cgroup tree /sys/fs/cgroup >/dev/null
expect "bpftool cgroup tree exits 0" $?

# Once the device is gone, the pinned link is detached.
ip link del nkb1
out=$(bpftool link show pinned "$PIN")
expect_match "link show after the device is gone" \
	'^	ifindex \(detached\)  attach_type netkit_primary' "$out"

cleanup
exit "$fail"
