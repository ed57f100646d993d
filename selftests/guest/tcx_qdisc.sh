#!/bin/sh
# area: tcx
# order: 70
# tcx_qdisc: tcx programs and the ingress/clsact qdiscs share a device's
# hooks (patches/tcx/). With tcx programs and links attached, adding,
# replacing and deleting the qdiscs must neither fail nor detach or disturb
# the tcx programs (e420bed02507, dc644b540a2d, 1cb6f0bae504,
# a0671125d4f5); deleting the device must leave the links defunct and free
# every program once the last reference is gone (079082c60aff). bpftool
# must show the tcx programs in mainline's format (57c61da8bff4,
# e16e6c6df475), and a tcx link's fdinfo its device and attach type (the
# device gone once it is deleted). Leaks and splats are the debug
# kernel's verdict (make qemu-test DEBUG=1); here a program that outlives
# its last reference fails the test. A clsact qdisc asked for anywhere
# but at its own parent is refused. What a tcx program drops carries the
# drop reason of its hook (TC_INGRESS, TC_EGRESS) in the kfree_skb event.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed or the setup did not work, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NS=tcxq
PIN_PASS=/sys/fs/bpf/tcx_qdisc_pass
PIN_DROP=/sys/fs/bpf/tcx_qdisc_drop
PIN_EGRESS=/sys/fs/bpf/tcx_qdisc_egress

setup() {
	ip netns add "$NS" &&
		ip link add tcq0 type veth peer name tcq1 &&
		pair_to_netns "$NS" tcq0 tcq1 10.97.0
}

cleanup() {
	ip link del tcq0 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -f "$PIN_PASS" "$PIN_DROP" "$PIN_EGRESS"
}

reaches() { # the peer answers pings (both directions cross tcq0)
	ping -c 2 -W 1 10.97.0.2 >/dev/null 2>&1
}

# tc_ok DESCRIPTION ARGS...: a tc command that must succeed.
tc_ok() {
	d=$1
	shift
	tc "$@"
	expect "$d" $?
}

# drop_reasons COMMAND...: the reasons of the kfree_skb events (the
# packets the kernel dropped, and why) while COMMAND runs, one line.
TRACE=/sys/kernel/tracing
[ -e "$TRACE/trace" ] || mount -t tracefs tracefs "$TRACE"
drop_reasons() {
	echo >"$TRACE/trace"
	echo 1 >"$TRACE/events/skb/kfree_skb/enable"
	"$@" >/dev/null 2>&1
	echo 0 >"$TRACE/events/skb/kfree_skb/enable"
	sed -n 's/.*reason: \([A-Z_]*\).*/\1/p' "$TRACE/trace" | sort -u | tr '\n' ' '
}

# progs_left: how many tcx_pass/tcx_drop programs the kernel still has,
# after waiting up to 5 s for the deferred frees.
progs_left() {
	i=0
	while :; do
		n=$(bpftool prog show | grep -cE ' name tcx_(pass|drop) ')
		[ "$n" -eq 0 ] || [ "$i" -ge 25 ] && break
		sleep 0.2
		i=$((i + 1))
	done
	echo "$n"
}

if ! setup; then
	expect "setting up a veth pair into $NS" 1
	cleanup
	tap_finish
fi
idx=$(cat /sys/class/net/tcq0/ifindex)
reaches
expect "baseline: ping through tcq0" $?

# clsact only ever sits at its own parent: asked for as the root qdisc
# (which tc will not even send) the kernel refuses it, EOPNOTSUPP as in
# mainline, and the device keeps its root qdisc.
root=$(tc qdisc show dev tcq0 root)
out=$(tcx-attach tcq0 clsact-root)
expect "clsact as the root qdisc is refused" $((!$?))
expect_match "clsact as the root qdisc: EOPNOTSUPP" 'Operation not supported$' "$out"
[ "$(tc qdisc show dev tcq0 root)" = "$root" ]
expect "the root qdisc is unchanged ($root)" $?

# A pass program as a link at ingress and one as a plain attachment at
# egress: traffic flows through both hooks.
tcx-attach tcq0 ingress pass link "$PIN_PASS"
expect "tcx link at ingress" $?
tcx-attach tcq0 egress pass prog
expect "tcx program at egress" $?
reaches
expect "ping with tcx pass programs on both hooks" $?

out=$(bpftool net show dev tcq0)
expect_match "net show: tcx ingress program with its link" \
	"^tcq0\\($idx\\) tcx/ingress tcx_pass prog_id [0-9]+ link_id [0-9]+ \$" "$out"
expect_match "net show: tcx egress program without a link" \
	"^tcq0\\($idx\\) tcx/egress tcx_pass prog_id [0-9]+ \$" "$out"
out=$(bpftool link show pinned "$PIN_PASS")
expect_match "link show: tcx link type" '^[0-9]+: tcx  prog [0-9]+' "$out"
expect_match "link show: device and attach type" \
	"^	ifindex tcq0\\($idx\\)  attach_type tcx_ingress" "$out"

# The links' fdinfo: the device's ifindex and the attach type, by number
# (uapi: BPF_TCX_INGRESS 46, BPF_TCX_EGRESS 47) and by name.
out=$(tcx-attach fdinfo "$PIN_PASS")
expect "fdinfo of the ingress link" $?
expect_match "fdinfo: the ingress link's device" "^ifindex:	$idx\$" "$out"
expect_match "fdinfo: the ingress link's attach type" '^attach_type:	46 \(ingress\)$' "$out"
tcx-attach tcq0 egress pass link "$PIN_EGRESS"
expect "a tcx link at egress next to the program" $?
out=$(tcx-attach fdinfo "$PIN_EGRESS")
expect_match "fdinfo: the egress link's device" "^ifindex:	$idx\$" "$out"
expect_match "fdinfo: the egress link's attach type" '^attach_type:	47 \(egress\)$' "$out"
# BPF_LINK_UPDATE with BPF_F_REPLACE: refused when the old program named
# is not the link's (EPERM, as in mainline), done when it is.
out=$(tcx-attach replace "$PIN_EGRESS")
expect "tcx-attach replace ran" $?
expect_match "link update, old program not the link's: EPERM" \
	'^old program not the link.s: Operation not permitted$' "$out"
expect_match "link update, old program the link's: updated" \
	'^old program the link.s: updated$' "$out"
rm -f "$PIN_EGRESS"

# The qdiscs come and go under the tcx programs.
tc_ok "clsact added next to tcx" qdisc add dev tcq0 clsact
tc_ok "matchall filter at clsact ingress" filter add dev tcq0 ingress matchall classid 1:1
reaches
expect "ping with tcx and clsact both on ingress" $?

tcx-attach tcq0 ingress drop link "$PIN_DROP"
expect "tcx drop link appended at ingress" $?
reaches
expect "tcx drop at ingress drops before clsact" $((!$?))
r=$(drop_reasons reaches)
expect_match "tcx drop at ingress: drop reason TC_INGRESS ($r)" '(^| )TC_INGRESS ' "$r"

tc_ok "clsact deleted under tcx" qdisc del dev tcq0 clsact
reaches
expect "tcx drop still in place after clsact delete" $((!$?))
tc_ok "ingress qdisc added under tcx" qdisc add dev tcq0 ingress
tc_ok "ingress qdisc deleted under tcx" qdisc del dev tcq0 ingress
tc_ok "clsact added again" qdisc add dev tcq0 clsact
tc_ok "clsact replaced by clsact" qdisc replace dev tcq0 clsact
# Replacing clsact by ingress is refused (different kind, same handle);
# that refusal rolls back in mainline's order (a0671125d4f5).
tc qdisc replace dev tcq0 ingress 2>/dev/null
expect "clsact cannot be replaced by ingress" $((!$?))
reaches
expect "tcx drop still in place after the qdisc changes" $((!$?))
tc_ok "clsact deleted again" qdisc del dev tcq0 clsact
out=$(bpftool net show dev tcq0)
n=$(printf '%s\n' "$out" | grep -c "^tcq0($idx) tcx/")
expect "all three tcx programs still attached ($n)" $((n != 3))

rm -f "$PIN_DROP"
expect "the drop link's pin removed" $?
i=0
until reaches || [ "$i" -ge 5 ]; do
	i=$((i + 1))
done
reaches
expect "ping again once the drop link is released" $?

# A drop at egress, appended after the pass program there, and detached
# again (the hook's last program).
tcx-attach tcq0 egress drop prog
expect "tcx drop appended at egress" $?
r=$(drop_reasons reaches)
expect_match "tcx drop at egress: drop reason TC_EGRESS ($r)" '(^| )TC_EGRESS ' "$r"
tcx-attach "$idx" egress detach
expect "the egress drop detached" $?
reaches
expect "ping again without the egress drop" $?

# Deleting the device with a tcx link and a tcx program attached: the link
# stays, defunct, and everything is freed with its last reference.
ip link del tcq0
expect "device deleted with tcx link and program attached" $?
out=$(bpftool link show pinned "$PIN_PASS")
expect "link show of the defunct tcx link exits 0" $?
expect_match "defunct tcx link shows its device as detached" \
	"^	ifindex \\(detached\\)  attach_type tcx_ingress" "$out"
out=$(tcx-attach "$idx" ingress detach 2>&1)
expect_match "detach from the deleted device's ifindex: ENODEV" 'BPF_PROG_DETACH: No such device$' "$out"
out=$(tcx-attach "$idx" ingress query 2>&1)
expect_match "query of the deleted device's ifindex: ENODEV" 'BPF_PROG_QUERY: No such device$' "$out"
out=$(tcx-attach fdinfo "$PIN_PASS")
expect_match "fdinfo of the defunct link: ifindex 0" '^ifindex:	0$' "$out"
expect_match "fdinfo of the defunct link: still ingress" '^attach_type:	46 \(ingress\)$' "$out"
n=$(progs_left)
expect "the egress program is freed with the device, the link's stays ($n left)" $((n != 1))
rm -f "$PIN_PASS"
n=$(progs_left)
expect "no tcx program left after the last link reference ($n left)" $((n != 0))

cleanup
tap_finish
