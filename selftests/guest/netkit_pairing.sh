#!/bin/sh
# area: netkit
# order: 30
# netkit_pairing: mainline 7.1 gave netkit attribute 10 to
# IFLA_NETKIT_PAIRING (0: pair, 1: single device). The series does not
# carry single device mode (see README), but a request for it must fail
# with a clear error instead of being dropped and turned into a pair
# (followup: "netkit: Refuse mainline's single device mode attribute").
#
# Runs in the test guest as root, prints one "ok"/"not ok" line per check
# and exits non-zero if any check failed.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cleanup() { ip link del nkp1 2>/dev/null; }
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

cleanup
absent nkp1 && absent nkp0
expect "cleanup removed the pair" $?
exit "$fail"
