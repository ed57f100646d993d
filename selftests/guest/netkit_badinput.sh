#!/bin/sh
# area: netkit
# order: 45
# smoke: the fuzzer sends 1000 messages instead of 10000
# netkit_badinput: malformed netkit requests. First a table of malformed
# rtnetlink and bpf(2) requests, each answered with mainline's errno and
# extack message (netkit-badinput table), then a seeded random mutator of
# netkit netlink messages and bpf attrs (netkit-badinput fuzz), whose
# every answer must be an errno or a valid result. Afterwards no netkit
# device, program or link made by the test may remain, the kernel log
# must hold no splat, and a fresh netkit pair must still work. Between
# the two, pair requests from a namespace whose peer, refused for its
# MTU, was to go into another (netkit-badinput netns).
#
# The kernel command line may set nkbad.count=N (fuzzer messages, default
# 10000, 1000 in the smoke form; lower it only for the slow debug kernel),
# nkbad.time=SECONDS (the fuzzer's time cap, default 300) and nkbad.seed=S
# (replay a seed).
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

count=10000
[ -z "$smoke" ] || count=1000
limit=300
seed=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	nkbad.count=*) count=${arg#nkbad.count=} ;;
	nkbad.time=*) limit=${arg#nkbad.time=} ;;
	nkbad.seed=*) seed=${arg#nkbad.seed=} ;;
	esac
done

# The devices of netkit-badinput are named nkb* (table) and nkfz* (fuzz).
ours() { ip -br link show | sed -nE 's/^((nkb|nkfz)[^ @]*).*/\1/p'; }
cleanup() {
	for d in $(ours); do
		ip link del "$d" 2>/dev/null
	done
}
absent() { ! ip link show "$1" >/dev/null 2>&1; }
# Kernel trouble logged since the marker this test writes to /dev/kmsg.
MARK="netkit_badinput: start $$"
since_mark() { dmesg | sed -n "/$MARK/,\$p"; }
splats() {
	since_mark | grep -E 'WARNING:|BUG:|Oops|KASAN|UBSAN|kmemleak|refcount_t:|general protection|list_(add|del) corruption|INFO: task .* blocked|hung_task|soft lockup|RCU stall|rcu_sched self-detected|unregister_netdevice: waiting'
}
cleanup

if ! echo "$MARK" >/dev/kmsg || [ -z "$(since_mark)" ]; then
	expect "cannot mark and read the kernel log (/dev/kmsg, dmesg)" 1
	tap_finish
fi
before=$(netkit-badinput census)
expect "census before the test" $?
echo "# before: $before"

diag_run netkit-badinput table
expect "table: every malformed request answered as in mainline" $?
after=$(netkit-badinput census)
[ "$after" = "$before" ]
expect "table: census unchanged ($after)" $?

# A refused pair whose peer was to go into another namespace gives that
# namespace's reference back, not the requester's (a wrong one shows as a
# refcount warning in the kernel log, checked at the end).
diag_run netkit-badinput netns 10
expect "netns: 10 refused pairs with the peer for another namespace" $?

lo_before=$(ip -br link show lo)
if [ -n "$seed" ]; then
	out=$(netkit-badinput fuzz --count "$count" --time "$limit" --seed "$seed")
else
	out=$(netkit-badinput fuzz --count "$count" --time "$limit")
fi
rc=$?
printf '%s\n' "$out" | diag_lines
expect "fuzz: exit status 0" "$rc"
sent=$(printf '%s\n' "$out" | sed -n 's/^fuzz-sent=//p')
expect_ge "fuzz: messages sent" "$sent" "$count"
if [ "$count" -lt 10000 ]; then
	echo "# a reduced run of $count messages (the smoke form, or nkbad.count on the kernel command line)"
fi

# Links and programs are freed from a work item: give them a moment.
n=0
after=$(netkit-badinput census)
while [ "$after" != "$before" ] && [ $n -lt 50 ]; do
	sleep 0.2
	after=$(netkit-badinput census)
	n=$((n + 1))
done
[ "$after" = "$before" ]
expect "fuzz: no netkit device, nkbad program or netkit link left ($after)" $?
left=$(ours | tr '\n' ' ')
[ -z "$left" ]
expect "no nkb*/nkfz* device left behind${left:+ (left: $left)}" $?
lo_after=$(ip -br link show lo)
[ "$lo_after" = "$lo_before" ]
expect "lo as before the fuzzer ($lo_after)" $?

# A fresh pair still works: create, bring up, attach a program, see it.
netkit-pair nkbf1 nkbf0 l2 pass pass
expect "fresh pair: created" $?
ip link set nkbf1 up && ip link set nkbf0 up
expect "fresh pair: up" $?
netkit-attach nkbf1 primary prog
expect "fresh pair: program attached" $?
out=$(bpftool net show dev nkbf1)
expect_match "fresh pair: bpftool shows the program" \
	'^nkbf1\([0-9]+\) netkit/primary nk_pass prog_id [0-9]+ $' "$out"
ip link del nkbf1
expect "fresh pair: deleted" $?
absent nkbf1 && absent nkbf0
expect "fresh pair: both devices gone" $?

[ -n "$(since_mark)" ]
expect "kernel log: the start marker is still there" $?
found=$(splats)
[ -z "$found" ]
expect "kernel log: no WARNING/BUG/KASAN/... since the start" $?
[ -z "$found" ] || printf '%s\n' "$found" | sed 's/^/# /'

cleanup
tap_finish
