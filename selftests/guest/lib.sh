# shellcheck shell=sh
# Helpers of the guest tests, sourced by them; prints TAP-like lines.
# Every check prints "ok - ..." or "not ok - ..."; a failed one sets $fail,
# which the test passes to exit.

# shellcheck disable=SC2034 # read by the tests that source this file
fail=0

# What make qemu-test selected (scripts/select-tests.sh wrote the record,
# /etc/netkit-6.1/selection in the guest): $smoke is 1 when this test runs
# in its smoke form, and in_areas AREA tells whether AREA was selected (a
# test of several areas runs the part of those). Run by hand without the
# record: the full form, every area.
guest_smoke='' areas='netkit tcx'
# shellcheck source=/dev/null
[ ! -r /etc/netkit-6.1/selection ] || . /etc/netkit-6.1/selection
smoke=
case " $guest_smoke " in *" $(basename "$0" .sh) "*) smoke=1 ;; esac
in_areas() { case " $areas " in *" $1 "*) return 0 ;; esac; return 1; }

expect() { # expect DESCRIPTION STATUS
	if [ "$2" -eq 0 ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		fail=1
	fi
}

expect_ge() { # expect_ge DESCRIPTION VALUE MINIMUM
	if [ -n "$2" ] && [ "$2" -ge "$3" ]; then
		echo "ok - $1 ($2 >= $3)"
	else
		echo "not ok - $1 (${2:-no value}, expected >= $3)"
		fail=1
	fi
}

expect_match() { # expect_match DESCRIPTION EXTENDED-REGEX TEXT
	if printf '%s\n' "$3" | grep -qE "$2"; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		printf '%s\n' "$3" | sed 's/^/  got: /'
		fail=1
	fi
}

# pair_to_netns NETNS DEV PEER PREFIX: move PEER, the other end of DEV's
# pair, into NETNS, bring both ends up and address DEV PREFIX.1/24 and
# PEER PREFIX.2/24 (PREFIX is the first three octets, e.g. 10.97.0).
pair_to_netns() {
	ip link set "$3" netns "$1" &&
		ip link set "$2" up &&
		ip addr add "$4.1/24" dev "$2" &&
		ip -n "$1" link set "$3" up &&
		ip -n "$1" addr add "$4.2/24" dev "$3"
}

# wedged REASON: the kernel can no longer run tests (a task holds rtnl
# forever, say): /init runs no further guest test and says why.
wedged() {
	echo "$1" >/run/netkit-6.1-wedged
}

# expect_no_splat MARKER REGEX DESCRIPTION: the kernel log from the line
# MARKER (which the test wrote to /dev/kmsg at its start) on still holds
# that line and has no line matching REGEX; the matches, with 20 lines of
# context, are shown otherwise.
expect_no_splat() {
	_log=$(dmesg | sed -n "\|$1|,\$p")
	[ -n "$_log" ]
	expect "the kernel log still holds the start marker" $?
	_bad=$(printf '%s\n' "$_log" | grep -E -A20 "$2")
	[ -z "$_bad" ] || printf '%s\n' "$_bad" | head -n 80 | sed 's/^/  dmesg: /'
	[ -z "$_bad" ]
	expect "$3" $?
}
