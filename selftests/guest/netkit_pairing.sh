#!/bin/sh
# area: netkit
# order: 30
# netkit_pairing: mainline 7.1 gave netkit attribute 10 to
# IFLA_NETKIT_PAIRING (0: pair, 1: single device). The series does not
# carry single device mode (see README), but a request for it must fail
# with a clear error instead of being dropped and turned into a pair
# (followup: "netkit: Refuse mainline's single device mode attribute").
# And what a pair is made with when a request leaves attributes out:
# scrubbing at both ends is NETKIT_SCRUB_DEFAULT (1), and an l2 pair
# made without peer info, whose primary is given an address, gives the
# peer a random one of its own (the request's address is the primary's
# only).
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# Twenty checks, whatever happens (none depends on another's outcome).
tap_plan 20

cleanup() {
	ip link del nkp1 2>/dev/null
	ip link del nkp2 2>/dev/null
}
absent() { ! ip link show "$1" >/dev/null 2>&1; }
cleanup

out=$(netkit-pair -p 1 nkp1 nkp0 2>&1)
expect "single device mode is refused" $((!$?))
expect_match "single device mode: errno and extack message" \
	'Operation not supported: netkit single device mode is not supported by this kernel$' "$out"
absent nkp1 && absent nkp0
expect "single device mode: no device left behind" $?

out=$(netkit-pair -p 2 nkp1 nkp0 2>&1)
expect "pairing value out of range is refused" $((!$?))
expect_match "pairing out of range: errno and policy message, as in mainline" \
	'Numerical result out of range: integer out of range$' "$out"
absent nkp1 && absent nkp0
expect "pairing out of range: no device left behind" $?

# Pair mode is what this kernel does anyway: accepted, as in mainline.
netkit-pair -p 0 nkp1 nkp0
expect "pair mode (0) creates a pair" $?
ip link show nkp1 >/dev/null 2>&1 && ip link show nkp0 >/dev/null 2>&1
expect "pair mode: both devices exist" $?

# As in mainline, the pairing cannot be changed after creation.
out=$(netkit-pair -c -p 0 nkp1 2>&1)
expect "changing the pairing is refused" $((!$?))
expect_match "changing the pairing: errno and extack message" \
	'Permission denied: netkit link pairing cannot be changed after device creation$' "$out"
out=$(netkit-pair -c -p 1 nkp1 2>&1)
expect "changing to single device mode is refused" $((!$?))
expect_match "changing to single device mode: errno and extack message" \
	'Operation not supported: netkit single device mode is not supported by this kernel$' "$out"

# No IFLA_NETKIT_SCRUB or IFLA_NETKIT_PEER_SCRUB in netkit-pair's
# request: both ends scrub by default, as each end reports.
out=$(netkit-pair -s nkp1)
expect_match "scrub left out: the primary's and its peer's are default" \
	' scrub=1 peer_scrub=1$' "$out"
out=$(netkit-pair -s nkp0)
expect_match "scrub left out: the peer's and its primary's are default" \
	' scrub=1 peer_scrub=1$' "$out"

# An l2 primary given an address, no IFLA_NETKIT_PEER_INFO: the kernel
# names the peer; the address is the primary's, the peer's is random.
addr=02:00:5e:10:00:01
netkit-pair -a "$addr" nkp2 - l2
expect "an l2 pair without peer info, the primary given $addr" $?
pidx=$(cat /sys/class/net/nkp2/iflink 2>/dev/null)
peer=$(grep -lx "${pidx:-none}" /sys/class/net/*/ifindex 2>/dev/null | cut -d/ -f5)
[ -n "$peer" ] && [ "$peer" != nkp2 ]
expect "its peer ($peer, ifindex $pidx) exists" $?
expect_match "the primary has the address it was given" "^$addr\$" \
	"$(cat /sys/class/net/nkp2/address)"
pmac=$(cat "/sys/class/net/$peer/address" 2>/dev/null)
expect_match "the peer's address ($pmac) is random: locally administered unicast" \
	'^[0-9a-f][26ae]:([0-9a-f]{2}:){4}[0-9a-f]{2}$' "$pmac"
[ "$pmac" != "$addr" ]
expect "the peer's address is not the primary's" $?

cleanup
absent nkp1 && absent nkp0 && absent nkp2 && absent "${peer:-nkp2}"
expect "cleanup removed the pairs" $?
tap_finish
