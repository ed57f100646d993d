#!/bin/sh
# area: netkit tcx
# order: 40
# smoke: only changelink, the eight single-call BPF entry points, clsact and ingress (not RTM_NEWLINK, RTM_DELLINK, bpf_mprog full)
# netkit_faultinject: fail every allocation of netkit's kernel entry
# points in turn, through the thread's fail-nth, and check that a failed
# call returns ENOMEM/ENOBUFS and leaves nothing behind (no device, no
# program reference, no link, no policy change) and that the call after it
# works: RTM_NEWLINK with and without IFLA_NETKIT_PEER_INFO, changelink of
# the policies, RTM_DELLINK, BPF_PROG_ATTACH/DETACH/QUERY and
# BPF_LINK_CREATE/UPDATE/DETACH on netkit devices, and the attachment that
# fills bpf_mprog (then one more must fail with ERANGE, as in mainline),
# RTM_NEWQDISC of a clsact and of an ingress qdisc on a netkit device
# (whose tcx entries clsact_init() and ingress_init() allocate: the test
# is of the tcx area too), and where
# the kernel carries tcx, a tcx program's attach and link on a netkit
# device.
# netkit-faultinject does the calls and checks and lists the allocation sites
# that the fault injection stacks show; this script runs it once without
# fault injection, then with it, and checks that nothing is left.
#
# The fault injection needs CONFIG_FAULT_INJECTION, FAILSLAB,
# FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS (configs/faultinject.config);
# without them the test fails. For the run it sets failslab's and
# fail_page_alloc's ignore-gfp-wait to N (they ignore allocations that may
# sleep by default, i.e. nearly all of these), fail_page_alloc's
# min-order to 0 and verbose=2 for both, and makes printk keep the
# injection reports in the kernel log (netkit-faultinject reads them from
# /dev/kmsg): default_message_loglevel 7, which dump_stack() prints at, and
# console_loglevel at most 5, so that neither the stacks nor the notices
# go to the console (warnings and errors still do, and netkit-faultinject fails
# on any stack or report that no injected fault explains). Everything is
# restored at the end.
#
# NETKIT_FI_TIME caps the fault loops in seconds (default 300, 900 on a
# debug kernel, recognised by /sys/kernel/debug/kmemleak; ~20 s are used
# on the normal kernel, 180-250 s on the debug one); a loop stopped by the
# cap is a failure. The
# smoke form runs the entry points whose fault loops take
# ~1 s together: changelink, the eight single-call BPF ones and the
# clsact qdisc; the
# RTM_NEWLINK (~300 fault points each), RTM_DELLINK and bpf_mprog-full
# loops (~19 s) run only in the full test.
#
# The stacks are read right when other CPUs log meanwhile: first
# netkit-faultinject -S feeds its kernel log reader planted dumps (records of
# other CPUs amid them, cut short, without a caller, with a WARNING, a
# stray stack, ...) and checks what it makes of each; then the fault run
# has another process write to the kernel log all along.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), netkit-faultinject's own
# lines as diagnostics, and it exits KSFT_FAIL if any check failed, else
# KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
PRINTK=/proc/sys/kernel/printk
KNOBS="$FS/ignore-gfp-wait $FS/verbose $FS/times $FP/ignore-gfp-wait $FP/min-order $FP/verbose $FP/times"
if [ -e /sys/kernel/debug/kmemleak ]; then
	TIME=${NETKIT_FI_TIME:-900}
else
	TIME=${NETKIT_FI_TIME:-300}
fi

cleanup() {
	for d in nkfi1 nkfi2 nkfi3 nkfi4 nkfi5 nkfi6 nkfi7 nkfi8; do
		ip link del "$d" 2>/dev/null
	done
}
cleanup

# tcx's entry points where the kernel carries tcx (tcx-attach is built
# only then): -T, or their names in the smoke form's list.
tcx='' tcx_eps=''
if command -v tcx-attach >/dev/null; then
	tcx=-T tcx_eps=" tcx-prog-attach tcx-link-create"
else
	skip "fault injection into tcx's entry points (tcx-prog-attach, tcx-link-create)" \
		"this kernel does not carry tcx (no tcx-attach)"
fi
eps='' which="every entry point"
if [ -n "$smoke" ]; then
	eps="changelink prog-attach-primary prog-attach-peer prog-query prog-detach link-create-primary link-create-peer link-update link-detach clsact-add ingress-add$tcx_eps"
	which="the entry points of the smoke form"
	echo "# smoke form: $eps"
fi

# The kernel log reader on planted dumps, with no kernel involved.
diag_run netkit-faultinject -S
expect "the stack reader's self-test: planted dumps give their sites and problems" $?

# Every entry point once without fault injection: the calls and the
# checks work, and one program more than bpf_mprog holds gets ERANGE.
# shellcheck disable=SC2086 # a word list
diag_run netkit-faultinject -0 $tcx $eps
expect "entry points and checks without fault injection" $?

missing=
[ -e /proc/thread-self/fail-nth ] || missing=" /proc/thread-self/fail-nth"
for k in $KNOBS; do
	[ -e "$k" ] || missing="$missing $k"
done
if [ -n "$missing" ]; then
	expect "fault injection: this kernel lacks$missing (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS, see configs/faultinject.config)" 1
else
	saved=
	for k in $KNOBS; do
		saved="$saved $(cat "$k")"
	done
	saved_printk=$(tr -s '\t ' '  ' <"$PRINTK")
	restored=
	restore() {
		[ -z "$restored" ] || return 0
		restored=1
		# shellcheck disable=SC2086 # word lists
		set -- $saved
		for k in $KNOBS; do
			echo "$1" >"$k"
			shift
		done
		echo "$saved_printk" >"$PRINTK"
	}
	trap restore EXIT
	trap 'restore; exit "$KSFT_FAIL"' INT TERM

	# shellcheck disable=SC2086 # a word list
	set -- $saved_printk
	con=$1 levels="7 $3 $4"
	[ "$con" -le 5 ] || con=5
	set_up() {
		echo "$con $levels" >"$PRINTK" &&
			echo N >"$FS/ignore-gfp-wait" && echo N >"$FP/ignore-gfp-wait" &&
			echo 0 >"$FP/min-order" && echo 2 >"$FS/verbose" &&
			echo 2 >"$FP/verbose"
	}
	set_up
	expect "fault injection set up (ignore-gfp-wait N, min-order 0, verbose 2)" $?
	now=$(tr -s '\t ' '  ' <"$PRINTK")
	[ "$now" = "$con $levels" ]
	expect "printk levels '$now' (were '$saved_printk'): stacks at level 7, console below $con" $?

	# Meanwhile another process writes to the kernel log all along, as
	# other CPUs do (the linkwatch work logs for the pair that changelink
	# set up a moment before, say): its records land amid the dumps and
	# must not change what netkit-faultinject makes of them.
	(
		i=0
		while :; do
			i=$((i + 1))
			echo "<7>netkit_faultinject: a record amid the dumps $i" >/dev/kmsg
			usleep 500
		done
	) &
	writer=$!
	out=/tmp/netkit_faultinject.out
	rm -f "$out" "$out.rc"
	# its output kept in $out for the count below
	# shellcheck disable=SC2086 # a word list
	{
		netkit-faultinject -t "$TIME" $tcx $eps 2>&1
		echo $? >"$out.rc"
	} | tee "$out" | diag_lines
	kill "$writer"
	wait "$writer" 2>/dev/null
	amid=$(sed -n 's/^# stacks not attributed: .*; records of other CPUs read amid the dumps: \([0-9]*\);.*/\1/p' "$out")
	expect "fault injection into $which (netkit-faultinject, cap ${TIME} s), another process writing to the kernel log meanwhile: ${amid:-no} records of other CPUs read amid the dumps" "$(cat "$out.rc")"

	restore
	now=
	for k in $KNOBS; do
		now="$now $(cat "$k")"
	done
	[ "$now" = "$saved" ] && [ "$(tr -s '\t ' '  ' <"$PRINTK")" = "$saved_printk" ]
	expect "fault injection settings and printk levels restored ($saved_printk;$now)" $?
fi

# Nothing of the test is left: no netkit device, no nkfi program, no
# netkit link (netkit-faultinject lists what it finds).
diag_run netkit-faultinject -c
expect "nothing left behind" $?
cleanup
tap_finish
