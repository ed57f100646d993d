#!/bin/sh
# area: netkit
# order: 55
# netkit_privilege: who may create and change netkit devices and manage
# their programs. netkit-privilege runs every operation (program load, create,
# change, BPF_PROG_ATTACH, BPF_LINK_CREATE, BPF_PROG_DETACH with and without
# a program fd - mainline ae23bc81ddf7, followup/0024 - and BPF_PROG_QUERY)
# as full root, as root without CAP_NET_ADMIN / CAP_BPF / CAP_SYS_ADMIN and
# combinations of them, and as root of a user namespace (in the initial
# netns and in the netns it owns); across netns (a device that is not in the
# caller's netns cannot be reached by ifindex) and against the peer device
# (which can never manage programs). Each cell expects mainline's answer,
# errno included; the program prints the matrix and one ok line per cell.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# Seven checks, whatever happens: the sysctl, netkit-privilege's status,
# cells and sysctl, and what is left: devices, programs, links.
tap_plan 7

# Rows x operations run by netkit-privilege (10 rows x 9, 7 rows x 6).
CELLS=132

names="nkpv0 nkpv1 nkpc0 nkpc1"
cleanup() {
	for n in $names; do
		ip link del "$n" 2>/dev/null
	done
}
cleanup

sysctl=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)
echo "# kernel.unprivileged_bpf_disabled = ${sysctl:-unreadable}"
expect_match "kernel.unprivileged_bpf_disabled is readable" '^[0-2]$' "$sysctl"

out=$(netkit-privilege 2>&1)
rc=$?
# netkit-privilege printed its own ok / not ok lines, shown here as
# diagnostics; its exit status and the count of cells sum them up.
printf '%s\n' "$out" | diag_lines
expect "netkit-privilege: every cell as expected (mainline; 6.1's own query check in one cell), cleanup done (exit status $rc)" "$rc"
expect_ge "netkit-privilege: cells that passed" \
	"$(printf '%s\n' "$out" | grep -c '^ok - \[')" "$CELLS"
expect_match "netkit-privilege: it saw the same sysctl value" \
	"^# kernel.unprivileged_bpf_disabled = $sysctl\$" "$out"

# Nothing left: devices (netkit-privilege checked the user namespace's netns
# before closing the last fd that held it), programs (freed after an RCU
# grace period, so allow a moment) and links.
left=
for n in $names; do
	ip link show "$n" >/dev/null 2>&1 && left="$left $n"
done
[ -z "$left" ]
expect "no test device left in the initial netns${left:+ (left:$left)}" $?

i=0
while :; do
	progs=$(bpftool prog show) || progs="bpftool prog show failed"
	progs=$(printf '%s\n' "$progs" | grep -E 'name nkpriv_|failed')
	[ -z "$progs" ] || [ "$i" -ge 50 ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -z "$progs" ]
expect "no nkpriv_ program left (waited $i x 0.1 s)${progs:+: $progs}" $?
links=$(bpftool link show) || links="bpftool link show failed"
links=$(printf '%s\n' "$links" | grep -E 'netkit|failed')
[ -z "$links" ]
expect "no netkit link left${links:+: $links}" $?

cleanup
tap_finish
