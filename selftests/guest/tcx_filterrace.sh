#!/bin/sh
# area: tcx
# order: 75
# smoke: the race runs 4 s instead of 10
# tcx_filterrace: a tc filter add racing the deletion of its device keeps
# the device's clsact qdisc alive through dev_shutdown(): tc_new_tfilter()
# takes its reference on the qdisc without rtnl (__tcf_qdisc_find(...,
# false)) and then waits for rtnl, which RTM_DELLINK holds. tcx_uninstall()
# then finds the tcx entry still active (miniq_active) and must clear its
# programs and leave the entry to the qdisc (kernel/bpf/tcx.c,
# bpf_mprog_clear_all()), which frees it when the add drops the last
# reference. tcx-filterrace runs the rounds (a dummy device with clsact and
# a tcx program, filters added on one CPU while the other deletes it) and
# checks the answers and that nothing is left; this script counts, from
# the trace, the rounds in which the race met: the clsact qdisc of the
# round's device destroyed after tcx_uninstall() of that device (a kprobe
# event on tcx_uninstall, the qdisc_destroy tracepoint, one global
# clock), and wants at least one. The kernel log must show no splat.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

secs=10
[ -z "$smoke" ] || secs=4
TRACE=/sys/kernel/tracing
MARK="tcx_filterrace start $$"
echo "$MARK" >/dev/kmsg

[ -e "$TRACE/trace" ] || mount -t tracefs tracefs "$TRACE"
clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$TRACE/trace_clock")
trace_on() {
	# shellcheck disable=SC2016 # $arg1 is the kprobe event's, not ours
	echo global >"$TRACE/trace_clock" &&
		echo 'p:tfr/tcx_uninstall tcx_uninstall dev=+0($arg1):string' >>"$TRACE/kprobe_events" &&
		echo 'kind == "clsact"' >"$TRACE/events/qdisc/qdisc_destroy/filter" &&
		: >"$TRACE/trace" &&
		echo 1 >"$TRACE/events/tfr/tcx_uninstall/enable" &&
		echo 1 >"$TRACE/events/qdisc/qdisc_destroy/enable"
}
trace_off() {
	echo 0 >"$TRACE/events/tfr/tcx_uninstall/enable" 2>/dev/null
	echo 0 >"$TRACE/events/qdisc/qdisc_destroy/enable"
	echo 0 >"$TRACE/events/qdisc/qdisc_destroy/filter"
	echo '-:tfr/tcx_uninstall' >>"$TRACE/kprobe_events" 2>/dev/null
	echo "${clock:-local}" >"$TRACE/trace_clock"
}
trace_on
expect "the trace: a kprobe event on tcx_uninstall, clsact's qdisc_destroy events, the global clock" $?

out=/tmp/tcx_filterrace.out
tcx-filterrace "$secs" >"$out" 2>&1
rc=$?
diag_lines <"$out"
expect "tcx-filterrace: its checks passed" "$rc"
rounds=$(sed -n 's/^# \([0-9]*\) rounds .*/\1/p' "$out")
rm -f "$out"

# Per round's device, in the trace's order: a clsact qdisc destroyed
# before the device's tcx_uninstall() is dev_shutdown()'s (the usual
# order); one destroyed after it was kept alive by a filter add, and
# tcx_uninstall() found its entry active.
echo 0 >"$TRACE/events/tfr/tcx_uninstall/enable" 2>/dev/null
echo 0 >"$TRACE/events/qdisc/qdisc_destroy/enable"
counts=$(awk '
	/ tcx_uninstall: / && match($0, /dev="tfr[0-9]+"/) {
		un[substr($0, RSTART + 5, RLENGTH - 6)] = 1
	}
	/ qdisc_destroy: / && / kind=clsact / && match($0, /dev=tfr[0-9]+ /) {
		d = substr($0, RSTART + 4, RLENGTH - 5)
		if (d in un) met++; else before++
	}
	END { print met + 0, before + 0 }' "$TRACE/trace")
lost=$(grep -c 'LOST' "$TRACE/trace")
trace_off
: >"$TRACE/trace"
met=${counts% *} before=${counts#* }
diag "tcx_filterrace: $rounds rounds; clsact destroyed before tcx_uninstall (by dev_shutdown) in $before, after it (kept alive by a filter add: tcx_uninstall cleared an active entry) in $met; $lost lost-event lines"
[ -n "$rounds" ] && [ "$((met + before))" -eq "$rounds" ]
expect "the trace shows one clsact destroy for each of the $rounds rounds ($met + $before)" $?
expect_ge "rounds in which a filter add kept clsact alive past tcx_uninstall" "$met" 1

expect_no_splat "$MARK" 'BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|refcount_t' \
	"no kernel splat during the race"
tap_finish
