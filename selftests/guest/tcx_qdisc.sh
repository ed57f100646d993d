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
# but at its own parent is refused; ingress finds every class id, clsact
# its two hooks' (RTM_GETTCLASS), and neither takes a qdisc under a
# class. What a tcx program drops carries the
# drop reason of its hook (TC_INGRESS, TC_EGRESS) in the kfree_skb event.
# While any device has a tcx program (tcx's static key on), a device with
# clsact and none of its own still runs its tc filters at both hooks
# (tcx's pass over no program gives TCX_NEXT, then tc), and their drops
# carry their hook's reason, and their TC_ACT_STOLEN and TC_ACT_TRAP keep
# the packet without a drop; and again once tcx is off. Shared filter
# blocks (ingress_block, egress_block) stay with the hook they were given
# to, in the dump and in what their filters drop. A packet socket on a
# device sees each frame it receives once, before the tcx ingress hook,
# also the ones a tcx program drops. Of two tcx
# programs on a hook, the one left when the other is released (a link)
# or detached (a program) runs on, also after RCU has freed what the
# release replaced (the test guests zero freed memory: run-qemu.sh).
# A hook's tcx entry goes with the last program, link or qdisc that
# needs it: a query's revision starts at 1 again. A clsact or an ingress
# qdisc added and deleted, a tcx link made and closed, a tcx program
# attached and detached, an attach or a link refused after the entry was
# made, hundreds of times each, leave no memory behind (each frees the
# tcx entries it made). Of the devices one deletion takes (a veth pair),
# each one's links go defunct and its programs are freed. A hook's verdict
# decides what the sender is told at egress (ENOBUFS for a drop, sent for
# a packet kept or redirected) and what netif_receive_skb() answers at
# ingress (NET_RX_DROP for a drop only), for tc filters and tcx alike;
# clsact counts each frame its filters see and each they drop; a filter
# that redirects at ingress by act_mirred consumes the frame (and a drop
# at the egress it was redirected to has that hook's reason), and a tcx
# program's redirect at either hook is done; a tcx program sees the
# frame from its Ethernet header on at either hook, also one forwarded
# from another device's ingress; a transmit queue that
# act_skbedit picks at egress is the one the frame goes out on; the class
# a filter or a tcx program (TCX_PASS) picks at egress is the frame's
# tc_index further on.
# clsact binds its two blocks for offload as ingress and egress blocks
# (netdevsim offloads at ingress only).
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
PIN_KEY=/sys/fs/bpf/tcx_qdisc_key
PIN_FIRST=/sys/fs/bpf/tcx_qdisc_first
PIN_SECOND=/sys/fs/bpf/tcx_qdisc_second
PIN_FAR=/sys/fs/bpf/tcx_qdisc_far
# the netdevsim device of the offload checks
NSIM_ID=71
NSIM=/sys/bus/netdevsim

setup() {
	ip netns add "$NS" &&
		ip link add tcq0 type veth peer name tcq1 &&
		pair_to_netns "$NS" tcq0 tcq1 10.97.0
}

cleanup() {
	ip link del tcq0 2>/dev/null
	ip link del tcd0 2>/dev/null
	ip link del tcdx 2>/dev/null
	ip link del tcdy 2>/dev/null
	ip link del tcdr 2>/dev/null
	ip link del tcdt 2>/dev/null
	ip link del tcdq 2>/dev/null
	ip link del tcdm 2>/dev/null
	ip link del tcdb0 2>/dev/null
	ip link del tcdz 2>/dev/null
	echo "$NSIM_ID" >"$NSIM/del_device" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -f "$PIN_PASS" "$PIN_DROP" "$PIN_EGRESS" "$PIN_KEY" "$PIN_FIRST" "$PIN_SECOND" \
		"$PIN_FAR"
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
# The classes the kernel finds (RTM_GETTCLASS): ingress has none of its
# own and finds every class id, minor 0 too; clsact finds its two hooks'
# (ffff:fff2, ffff:fff3) and no other.
classes() { # QDISC found|ENOENT MINOR...: what RTM_GETTCLASS of each ffff:MINOR gives
	_q=$1 _w=$2
	shift 2
	[ "$_w" = found ] || _w="No such file or directory"
	for _m in "$@"; do
		out=$(tcx-attach tcq0 class "$_m")
		expect_match "$_q: class ffff:$_m: $_w" "^class ffff:$_m: $_w\$" "$out"
	done
}
classes ingress found 0 1 fff1
# A class of either has no leaf to take a qdisc: grafting one under a
# class they find is refused (EOPNOTSUPP).
graft_refused() { # QDISC PARENT
	out=$(tc qdisc add dev tcq0 parent "$2" pfifo 2>&1)
	expect "$1: a qdisc under class $2 is refused" $((!$?))
	expect_match "$1: a qdisc under class $2: EOPNOTSUPP ($out)" 'Operation not supported' "$out"
}
graft_refused ingress ffff:1
tc_ok "ingress qdisc deleted under tcx" qdisc del dev tcq0 ingress
tc_ok "clsact added again" qdisc add dev tcq0 clsact
classes clsact found fff2 fff3
graft_refused clsact ffff:fff3
classes clsact ENOENT 0 fff1
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

# ---- tc filters beside tcx -------------------------------------------
# A fresh veth pair with clsact on tcd0 and no tcx program there; a tcx
# link on a dummy device turns tcx on for every device. A tc filter that
# drops (matchall, act_bpf returning TC_ACT_SHOT) at each of tcd0's hooks
# in turn, first with tcx on, then with it off again.
reach_d() { # the peer answers pings through tcd0
	ping -c 2 -W 1 10.96.0.2 >/dev/null 2>&1
}
# reach_d_again: the same, within three tries: after a drop, the peer's
# neighbour entry may have to be resolved again first.
reach_d_again() {
	reach_d || reach_d || reach_d
}
ip link add tcd0 type veth peer name tcd1 && pair_to_netns "$NS" tcd0 tcd1 10.96.0 &&
	ip link add tcdx type dummy && tcx-attach tcdx ingress pass link "$PIN_KEY"
expect "a veth pair tcd0/tcd1 into $NS, and a tcx link on a dummy device" $?
idx_d=$(cat /sys/class/net/tcd0/ifindex)

# At each hook in turn, a pass program, then a drop program after it;
# the first one goes (ingress: its link's pin removed; egress: a detach
# with BPF_F_BEFORE), and the drop must go on dropping.
for hook in ingress egress; do
	if [ "$hook" = ingress ]; then
		how="link"
		tcx-attach tcd0 ingress pass link "$PIN_FIRST" &&
			tcx-attach tcd0 ingress drop link "$PIN_SECOND"
	else
		how="program"
		tcx-attach tcd0 egress pass prog && tcx-attach tcd0 egress drop prog
	fi
	expect "$hook: a tcx pass $how, then a drop $how after it" $?
	reach_d
	expect "$hook: pass then drop: no ping" $((!$?))
	if [ "$hook" = ingress ]; then
		rm -f "$PIN_FIRST"
	else
		tcx-attach "$idx_d" egress detach-first
	fi
	expect "$hook: the first one released" $?
	sleep 1
	out=$(tcx-attach "$idx_d" "$hook" query)
	expect_match "$hook: one program left" '^1 programs$' "$out"
	reach_d
	expect "$hook: the drop program left alone still drops (after RCU had time to free)" $((!$?))
	if [ "$hook" = ingress ]; then
		rm -f "$PIN_SECOND"
	else
		tcx-attach "$idx_d" egress detach
	fi
	expect "$hook: the drop program released too" $?
	reach_d_again
	expect "$hook: ping through tcd0 with no tcx program there" $?
done

# A packet socket on tcd0 (as tcpdump; netkit-tap counts the IPv4
# frames tcd0 receives) sees each echo reply once with a tcx program at
# tcd0's ingress: the receive path hands it over before the tcx hook.
# So it sees them too when tcx then drops them.
tap_count() { # COMMAND...: the IPv4 frames tcd0 received while COMMAND ran
	start_ready /tmp/tcx_qdisc.tap netkit-tap tcd0 3
	"$@" >/dev/null 2>&1
	wait "$ready_pid" && cat /tmp/tcx_qdisc.tap
}
reach_d
tcx-attach tcd0 ingress pass link "$PIN_FIRST"
expect "tap: a tcx pass link at tcd0's ingress" $?
n=$(tap_count ping -c 2 -i 0.2 -W 1 10.96.0.2)
[ "$n" = 2 ]
expect "tap: two echo replies through a tcx pass program, each seen once ($n)" $?
tcx-attach tcd0 ingress drop link "$PIN_SECOND"
expect "tap: a tcx drop link after it" $?
n=$(tap_count ping -c 2 -i 0.2 -W 1 10.96.0.2)
[ "$n" = 2 ]
expect "tap: two echo replies the tcx program drops, each seen once ($n)" $?
rm -f "$PIN_FIRST" "$PIN_SECOND" /tmp/tcx_qdisc.tap /tmp/tcx_qdisc.tap.err
reach_d_again
expect "tap: ping again once both links are released" $?

tc_ok "clsact on tcd0, which has no tcx program" qdisc add dev tcd0 clsact
for tcx in on off; do
	if [ "$tcx" = off ]; then
		rm -f "$PIN_KEY" && [ "$(progs_left)" -eq 0 ]
		expect "tcx off: the dummy device's link released, no tcx program left" $?
	fi
	reach_d_again
	expect "tcx $tcx: ping through tcd0 with clsact" $?
	for hook in ingress egress; do
		reason=$(echo "TC_$hook" | tr '[:lower:]' '[:upper:]')
		tc_ok "tcx $tcx: a tc filter that drops at tcd0's $hook" \
			filter add dev tcd0 "$hook" pref 1 matchall action bpf bytecode '1,6 0 0 2'
		reach_d
		expect "tcx $tcx: the tc filter at $hook drops" $((!$?))
		r=$(drop_reasons reach_d)
		expect_match "tcx $tcx: the tc drop at $hook: drop reason $reason ($r)" "(^| )$reason " "$r"
		tc_ok "tcx $tcx: the $hook filter deleted" filter del dev tcd0 "$hook" pref 1
		reach_d_again
		expect "tcx $tcx: ping again without the $hook filter" $?
		# A filter's own verdicts (cls_bpf in direct-action mode, a
		# classic program returning TC_ACT_STOLEN 4, TC_ACT_TRAP 8):
		# the hook keeps the packet and goes no further; no drop.
		for code in 4:STOLEN 8:TRAP; do
			tc_ok "tcx $tcx: a tc filter at $hook that says TC_ACT_${code#*:}" \
				filter add dev tcd0 "$hook" pref 1 bpf da bytecode "1,6 0 0 ${code%%:*}"
			reach_d
			expect "tcx $tcx: TC_ACT_${code#*:} at $hook: the packet goes no further" $((!$?))
			r=$(drop_reasons reach_d)
			case " $r" in *" $reason "*) false ;; esac
			expect "tcx $tcx: TC_ACT_${code#*:} at $hook: no drop with reason $reason ($r)" $?
			tc_ok "tcx $tcx: the TC_ACT_${code#*:} filter deleted" filter del dev tcd0 "$hook" pref 1
		done
		reach_d_again
		expect "tcx $tcx: ping again without the $hook filters" $?
	done
done

# ---- what the sender and the receive path are told --------------------
# A hook's verdict also decides the answer of what handed it the packet:
# at egress dev_queue_xmit()'s (a sender's send(): a drop is ENOBUFS, a
# packet kept or redirected is sent), at ingress netif_receive_skb()'s
# (NET_RX_DROP, 1, for a drop only; its exit event's ret), for a tc
# filter's verdicts and a tcx program's alike. tcd0 still has clsact and
# no filter; tcdt is a tap device (its frames come in through
# netif_receive_skb()) with clsact, and a packet socket on it says whether
# a frame got past the hook. cBPF verdicts: 0 TC_ACT_OK, 2 TC_ACT_SHOT,
# 4 TC_ACT_STOLEN, 7 TC_ACT_REDIRECT (to no device), 8 TC_ACT_TRAP.
# inject_answer: one frame into tcdt, "delivered|not delivered ret=R".
inject_answer() {
	echo >"$TRACE/trace"
	echo 1 >"$TRACE/events/net/netif_receive_skb_exit/enable"
	got=$(tcx-attach tcdt inject)
	echo 0 >"$TRACE/events/net/netif_receive_skb_exit/enable"
	rets=$(sed -n 's/.*netif_receive_skb_exit: \(ret=[0-9-]*\).*/\1/p' "$TRACE/trace" |
		tr '\n' ' ')
	echo "$got ${rets% }"
}
# qstats DEV: "PACKETS BYTES DROPPED" of DEV's clsact qdisc, which counts
# what its filters see at either hook (the bytes past the link layer
# header at ingress) and what they drop.
qstats() {
	tc -s qdisc show dev "$1" ingress |
		sed -n 's/^ *Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\),.*/\2 \1 \3/p'
}
tcx-attach tcdt tap && ip link set tcdt up && tc qdisc add dev tcdt clsact
expect "a tap device tcdt, up, with clsact" $?
out=$(tcx-attach tcd0 send)
expect_match "egress, no filter: the sender is told sent ($out)" '^sent$' "$out"
out=$(inject_answer)
expect_match "ingress, no filter: delivered, ret 0 ($out)" '^delivered ret=0$' "$out"
for v in 0:sent:delivered:0 2:ENOBUFS:not.delivered:1 4:sent:not.delivered:0 \
	7:sent:not.delivered:0 8:sent:not.delivered:0; do
	code=${v%%:*} v=${v#*:} told=${v%%:*} v=${v#*:} fate=${v%%:*} ret=${v#*:}
	tc_ok "verdict $code: a tc filter at tcd0's egress" \
		filter add dev tcd0 egress pref 1 bpf da bytecode "1,6 0 0 $code"
	out=$(tcx-attach tcd0 send)
	expect_match "verdict $code at egress: the sender is told $told ($out)" "^$told\$" "$out"
	tc_ok "verdict $code: a tc filter at tcdt's ingress" \
		filter add dev tcdt ingress pref 1 bpf da bytecode "1,6 0 0 $code"
	q0=$(qstats tcdt)
	out=$(inject_answer)
	expect_match "verdict $code at ingress: $(echo "$fate" | tr . ' '), ret $ret ($out)" \
		"^$fate ret=$ret\$" "$out"
	# Only the injected frame (64 bytes) comes in through the tap device;
	# what the hook drops (ret 1) is counted as a drop.
	q1=$(qstats tcdt)
	# shellcheck disable=SC2086 # two word lists
	set -- $q0 $q1
	drop=0
	[ "$ret" != 1 ] || drop=1
	[ "$#" -eq 6 ] && [ $(($4 - $1)) -eq 1 ] && [ $(($5 - $2)) -eq 50 ] &&
		[ $(($6 - $3)) -eq "$drop" ]
	expect "verdict $code at ingress: tcdt's clsact counts the frame (1 packet, its 50 bytes past the Ethernet header) and a drop if it is one ($q0 -> $q1)" $?
	tc filter del dev tcd0 egress pref 1 && tc filter del dev tcdt ingress pref 1
	expect "verdict $code: both filters deleted" $?
done
# An action's TC_ACT_RECLASSIFY (act_bpf's; cls_bpf's own verdicts do not
# include it) runs the hook's filters again, until tcf_classify()'s loop
# limit makes it a drop.
tc_ok "a matchall filter at tcd0's egress, its action act_bpf's TC_ACT_RECLASSIFY" \
	filter add dev tcd0 egress pref 1 matchall action bpf bytecode "1,6 0 0 1"
out=$(tcx-attach tcd0 send)
expect_match "TC_ACT_RECLASSIFY at egress: the sender is told ENOBUFS ($out)" '^ENOBUFS$' "$out"
tc_ok "the same at tcdt's ingress" \
	filter add dev tcdt ingress pref 1 matchall action bpf bytecode "1,6 0 0 1"
q0=$(qstats tcdt)
out=$(inject_answer)
expect_match "TC_ACT_RECLASSIFY at ingress: not delivered, ret 1 ($out)" '^not delivered ret=1$' "$out"
q1=$(qstats tcdt)
# shellcheck disable=SC2086 # two word lists
set -- $q0 $q1
[ "$#" -eq 6 ] && [ $(($4 - $1)) -eq 1 ] && [ $(($6 - $3)) -eq 1 ]
expect "TC_ACT_RECLASSIFY at ingress: tcdt's clsact counts the frame once and its drop ($q0 -> $q1)" $?
tc filter del dev tcd0 egress pref 1 && tc filter del dev tcdt ingress pref 1
expect "both reclassifying filters deleted" $?
# A redirect out of another device sends the frame out of it once: tcdq,
# a dummy device with IPv6 off, sends nothing else. A filter action that
# takes the frame at ingress and hands it on itself answers
# TC_ACT_CONSUMED (act_mirred's redirect): the frame is gone from the
# receive path, not dropped (ret 0). A tcx program's redirect
# (bpf_redirect()'s answer, TCX_REDIRECT) is done too: at ingress as
# that, at egress with the sender told sent.
ip link add tcdq type dummy && echo 1 >/proc/sys/net/ipv6/conf/tcdq/disable_ipv6 &&
	ip link set tcdq up
expect "a dummy device tcdq, up, IPv6 off" $?
idx_q=$(cat /sys/class/net/tcdq/ifindex)
# sent_q COMMAND...: how many frames tcdq sent while COMMAND ran
sent_q() {
	q0=$(cat /sys/class/net/tcdq/statistics/tx_packets)
	"$@" >/dev/null
	echo $(($(cat /sys/class/net/tcdq/statistics/tx_packets) - q0))
}
tc_ok "a tc filter at tcdt's ingress, its action a mirred redirect out of tcdq" \
	filter add dev tcdt ingress pref 1 bpf bytecode "1,6 0 0 4294967295" \
	action mirred egress redirect dev tcdq
out=$(inject_answer)
expect_match "mirred redirect at ingress (TC_ACT_CONSUMED): not delivered, ret 0 ($out)" \
	'^not delivered ret=0$' "$out"
n=$(sent_q tcx-attach tcdt inject)
[ "$n" -eq 1 ]
expect "mirred redirect at ingress: the frame went out of tcdq once ($n)" $?
# A filter that drops it at tcdq's egress gives the drop its own hook's
# reason, TC_EGRESS, though the frame comes from tcdt's ingress hook,
# whose filter ran on it first (each hook sets its reason before its
# filters run, so that a reason left in the frame from an earlier hook
# is not taken for its own).
tc qdisc add dev tcdq clsact &&
	tc filter add dev tcdq egress pref 1 matchall action bpf bytecode '1,6 0 0 2'
expect "clsact on tcdq, a filter that drops at its egress" $?
q0=$(cat /sys/class/net/tcdq/statistics/tx_packets)
r=$(drop_reasons tcx-attach tcdt inject)
n=$(($(cat /sys/class/net/tcdq/statistics/tx_packets) - q0))
why=none
case " $r" in *" TC_EGRESS "*) why=TC_EGRESS ;; esac
case " $r" in *" TC_INGRESS "*) why=TC_INGRESS ;; esac
[ "$n" -eq 0 ] && [ "$why" = TC_EGRESS ]
expect "mirred redirect into a drop at tcdq's egress: not sent, the drop's reason TC_EGRESS ($n sent; drop reasons: $r)" $?
tc qdisc del dev tcdq clsact && tc filter del dev tcdt ingress pref 1
expect "tcdq's clsact and the mirred filter deleted" $?
tcx-attach tcdt ingress redirect "$idx_q"
expect "a tcx program at tcdt's ingress that redirects out of tcdq" $?
out=$(inject_answer)
expect_match "tcx redirect at ingress: not delivered, ret 0 ($out)" '^not delivered ret=0$' "$out"
n=$(sent_q tcx-attach tcdt inject)
[ "$n" -eq 1 ]
expect "tcx redirect at ingress: the frame went out of tcdq once ($n)" $?
tcx-attach tcd0 egress redirect "$idx_q"
expect "a tcx program at tcd0's egress that redirects out of tcdq" $?
out=$(tcx-attach tcd0 send)
expect_match "tcx redirect at egress: the sender is told sent ($out)" '^sent$' "$out"
n=$(sent_q tcx-attach tcd0 send)
[ "$n" -eq 1 ]
expect "tcx redirect at egress: the frame went out of tcdq once ($n)" $?
tcx-attach "$idx_d" egress detach
expect "tcd0's redirecting program detached (what tcd0 sends is its own again)" $?
# What a tcx program sees of a frame starts at its Ethernet header at
# either hook, also at egress for a frame that came in through another
# device (so with the link-layer header's length set by the receive
# path): a program that drops the frames of one ethertype, read at
# offset 12, drops the frames of that one (88b5: inject's and send's)
# and passes the others. At tcdq's egress: the frame that tcdt's ingress
# redirects there (a drop there has the reason TC_EGRESS), and a frame
# sent from tcdq itself (the sender told ENOBUFS for a drop).
tx_q() { cat /sys/class/net/tcdq/statistics/tx_packets; }
for t in 88b5 88b6; do
	if [ "$t" = 88b5 ]; then
		n_want=0 ans=ENOBUFS
	else
		n_want=1 ans=sent
	fi
	tcx-attach tcdq egress ethertype "$t"
	expect "a tcx program at tcdq's egress that drops ethertype $t" $?
	q0=$(tx_q)
	r=$(drop_reasons tcx-attach tcdt inject)
	n=$(($(tx_q) - q0))
	case " $r" in *" TC_EGRESS "*) why=TC_EGRESS ;; *) why=none ;; esac
	[ "$n" = "$n_want" ] && { [ "$n_want" = 1 ] || [ "$why" = TC_EGRESS ]; } &&
		{ [ "$n_want" = 0 ] || [ "$why" = none ]; }
	expect "ethertype $t dropped at tcdq's egress: a frame redirected there from tcdt's ingress went out $n_want times ($n; drop reasons: $r)" $?
	q0=$(tx_q)
	out=$(tcx-attach tcdq send)
	n=$(($(tx_q) - q0))
	[ "$n" = "$n_want" ] && [ "$out" = "$ans" ]
	expect "ethertype $t dropped at tcdq's egress: a frame sent from tcdq went out $n_want times, the sender told $ans ($n, $out)" $?
	tcx-attach "$idx_q" egress detach
	expect "tcdq's program detached" $?
done
tcx-attach "$(cat /sys/class/net/tcdt/ifindex)" ingress detach && ip link del tcdq
expect "tcdt's redirecting program detached, tcdq deleted" $?
# At tcdt's ingress: the frame injected into tcdt.
for t in 88b5 88b6; do
	if [ "$t" = 88b5 ]; then
		want='not delivered ret=1'
	else
		want='delivered ret=0'
	fi
	tcx-attach tcdt ingress ethertype "$t"
	expect "a tcx program at tcdt's ingress that drops ethertype $t" $?
	out=$(inject_answer)
	expect_match "ethertype $t dropped at tcdt's ingress: an 88b5 frame injected: $want ($out)" \
		"^$want\$" "$out"
	tcx-attach "$(cat /sys/class/net/tcdt/ifindex)" ingress detach
	expect "tcdt's program detached" $?
done
tcx-attach tcd0 egress drop prog && tcx-attach tcdt ingress drop prog
expect "a tcx drop program at tcd0's egress and tcdt's ingress" $?
out=$(tcx-attach tcd0 send)
expect_match "tcx drop at egress: the sender is told ENOBUFS ($out)" '^ENOBUFS$' "$out"
out=$(inject_answer)
expect_match "tcx drop at ingress: not delivered, ret 1 ($out)" '^not delivered ret=1$' "$out"
tcx-attach "$idx_d" egress detach && tcx-attach "$(cat /sys/class/net/tcdt/ifindex)" ingress detach
expect "both tcx programs detached" $?
out=$(tcx-attach tcd0 send)
expect_match "egress, the program gone: sent again ($out)" '^sent$' "$out"
ip link del tcdt
expect "the tap device deleted" $?

# ---- a transmit queue a filter picks ------------------------------------
# act_skbedit's queue_mapping at egress picks the transmit queue itself,
# and the hook's caller must take the skb's queue instead of choosing one.
# tcdm is a dummy device with four transmit queues and an mq root qdisc
# (a dummy device has none by itself), one pfifo_fast a queue, each a
# class of mq with its own counters; IPv6 is off there, so only the
# frames sent here go out through it.
# class_pkts DEV: the packets of each of DEV's mq classes, ":1=N :2=N ...".
class_pkts() {
	tc -s class show dev "$1" |
		awk '/^class mq /{c = $3; sub(/.*:/, ":", c)}
			/^ *Sent /{printf "%s%s=%s", sep, c, $4; sep = " "}'
}
ip link add tcdm numtxqueues 4 type dummy &&
	echo 1 >/proc/sys/net/ipv6/conf/tcdm/disable_ipv6 &&
	ip link set tcdm up && tc qdisc add dev tcdm root handle 1: mq &&
	tc qdisc add dev tcdm clsact
expect "a dummy device tcdm with four transmit queues, up, with mq and clsact" $?
for q in 1 2 3; do
	# (matchall cannot replace its filter: a new one each time)
	tc_ok "a matchall filter at tcdm's egress, its action skbedit queue_mapping $q" \
		filter add dev tcdm egress pref 1 matchall action skbedit queue_mapping "$q"
	before=$(class_pkts tcdm)
	tcx-attach tcdm send >/dev/null && tcx-attach tcdm send >/dev/null &&
		tcx-attach tcdm send >/dev/null
	expect "queue_mapping $q: three frames sent through tcdm" $?
	after=$(class_pkts tcdm)
	# the growth of each class: 3 for :q+1, 0 for the others
	want='' got=''
	for c in 1 2 3 4; do
		b=$(echo "$before" | tr ' ' '\n' | sed -n "s/^:$c=//p")
		a=$(echo "$after" | tr ' ' '\n' | sed -n "s/^:$c=//p")
		n=0
		[ "$c" -ne $((q + 1)) ] || n=3
		want="$want :$c+$n" got="$got :$c+$((${a:-0} - ${b:-0}))"
	done
	[ "$got" = "$want" ]
	expect "queue_mapping $q: the frames went out on queue $q only ($got; $before -> $after)" $?
	tc_ok "queue_mapping $q: the filter deleted" filter del dev tcdm egress pref 1
done
ip link del tcdm
expect "tcdm deleted" $?

# ---- the class a filter or a tcx program picks -------------------------
# The class of a filter that keeps the frame (TC_ACT_OK; a cls_bpf
# program that answers -1 takes the filter's classid) becomes the frame's
# tc_index, which the peer's programs see: a tcx program at tcd1's
# ingress (in $NS) drops the frames of tc_index 7. Pings through tcd0 go
# out with class 1:8 and are answered, with 1:7 they are lost at tcd1.
idx_p=$(ip netns exec "$NS" cat /sys/class/net/tcd1/ifindex)
ip netns exec "$NS" tcx-attach tcd1 ingress tcindex 7
expect "a tcx program at tcd1's ingress that drops the frames of tc_index 7" $?
tc_ok "a filter at tcd0's egress that keeps every frame in class 1:8" \
	filter add dev tcd0 egress pref 1 handle 1 bpf bytecode "1,6 0 0 4294967295" classid 1:8
reach_d_again
expect "class 1:8: the peer answers (tc_index 8 goes on)" $?
tc_ok "the filter's class now 1:7" \
	filter replace dev tcd0 egress pref 1 handle 1 bpf bytecode "1,6 0 0 4294967295" classid 1:7
reach_d
expect "class 1:7: the pings are lost at tcd1 (tc_index 7 dropped)" $((!$?))
# A tcx program's class does the same: one at tcd0's egress that sets
# skb->tc_classid and answers TCX_PASS. (At ingress TCX_PASS sets
# tc_index too; nothing after tcd1's ingress reads it, so that is not
# checked here.)
tc filter del dev tcd0 egress pref 1
expect "the filter deleted" $?
tcx-attach tcd0 egress classid 1:8
expect "a tcx program at tcd0's egress that puts every frame in class 1:8" $?
reach_d_again
expect "tcx class 1:8: the peer answers (tc_index 8 goes on)" $?
tcx-attach "$idx_d" egress detach && tcx-attach tcd0 egress classid 1:7
expect "tcd0's program now one of class 1:7" $?
reach_d
expect "tcx class 1:7: the pings are lost at tcd1 (tc_index 7 dropped)" $((!$?))
tcx-attach "$idx_d" egress detach &&
	ip netns exec "$NS" tcx-attach "$idx_p" ingress detach
expect "tcd0's and tcd1's programs detached" $?
reach_d_again
expect "the peer answers again" $?

# ---- what the hooks' filter blocks are bound as -----------------------
# clsact binds its ingress block for offload as a clsact ingress block and
# its egress block as an egress one (the ingress qdisc: as ingress too),
# and a driver decides by that what it offloads: netdevsim takes cls_bpf
# offload at ingress only. So a filter that must run in hardware
# (skip_sw) is taken at clsact's and ingress' ingress (in_hw in the dump)
# and refused at clsact's egress (EOPNOTSUPP: no block callback there).
[ -e /sys/kernel/debug/netdevsim ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "$NSIM_ID 1" >"$NSIM/new_device"
nsim=$(ls "$NSIM/devices/netdevsim$NSIM_ID/net/" 2>/dev/null)
[ -n "$nsim" ] && ethtool -K "$nsim" hw-tc-offload on &&
	echo Y >"/sys/kernel/debug/netdevsim/netdevsim$NSIM_ID/ports/0/bpf_tc_non_bound_accept"
expect "a netdevsim device ($nsim) with hw-tc-offload, taking unbound BPF programs" $?
skip_sw_filter() { # QDISC HOOK: a skip_sw cls_bpf filter at HOOK under QDISC
	tc qdisc add dev "$nsim" "$1" &&
		tc filter add dev "$nsim" "$2" protocol all pref 1 bpf skip_sw da \
			bytecode '1,6 0 0 0' 2>/tmp/tcx_qdisc.offload
	r=$?
	[ $r -eq 0 ] && tc filter show dev "$nsim" "$2" | grep -q ' in_hw' || r=1
	tc qdisc del dev "$nsim" "$1"
	return $r
}
skip_sw_filter clsact ingress
expect "clsact ingress: a skip_sw filter is offloaded ($(cat /tmp/tcx_qdisc.offload))" $?
skip_sw_filter clsact egress
expect "clsact egress: a skip_sw filter is refused" $((!$?))
grep -q 'Operation not supported' /tmp/tcx_qdisc.offload
expect "clsact egress: the refusal is EOPNOTSUPP ($(cat /tmp/tcx_qdisc.offload))" $?
skip_sw_filter ingress ingress
expect "ingress qdisc: a skip_sw filter is offloaded ($(cat /tmp/tcx_qdisc.offload))" $?
echo "$NSIM_ID" >"$NSIM/del_device" && [ ! -e "$NSIM/devices/netdevsim$NSIM_ID" ]
expect "the netdevsim device deleted" $?
rm -f /tmp/tcx_qdisc.offload

# ---- shared filter blocks ---------------------------------------------
# clsact and ingress take shared filter blocks by index (ingress_block,
# egress_block): each hook keeps the index it was given, the dump gives
# it back (none for a hook given none), and a filter added to the block
# acts at that hook only.
tc_ok "tcd0's clsact deleted" qdisc del dev tcd0 clsact
qshow() { # the qdisc line of tcd0's ffff: qdisc, as tc shows it
	tc qdisc show dev tcd0 parent ffff:fff1 | head -n 1
}
block_drops() { # BLOCK REASON WHAT: a drop filter in BLOCK drops, with REASON
	tc_ok "$3: a drop filter in block $1" \
		filter add block "$1" pref 1 matchall action bpf bytecode '1,6 0 0 2'
	r=$(drop_reasons reach_d)
	expect_match "$3: block $1's filter drops: drop reason $2 ($r)" "(^| )$2 " "$r"
	tc_ok "$3: block $1's filter deleted" filter del block "$1" pref 1
	reach_d_again
	expect "$3: ping again without block $1's filter" $?
}
# blocks QDISC-ARGS DUMP-REGEX BLOCK:REASON...: tcd0's qdisc added with
# QDISC-ARGS (its blocks, then its kind), its dump line matched against
# "qdisc KIND ffff: parent ffff:fff1 " and DUMP-REGEX, a drop filter in
# each BLOCK checked for REASON, the qdisc deleted again.
blocks() {
	_args=$1
	_kind=${_args##* }
	_what="$_kind with ${_args% *}"
	_re="^qdisc $_kind ffff: parent ffff:fff1 $2"
	shift 2
	# shellcheck disable=SC2086 # QDISC-ARGS are words for tc
	tc_ok "$_what" qdisc add dev tcd0 $_args
	out=$(qshow)
	expect_match "$_what: the dump ($out)" "$_re" "$out"
	for _b in "$@"; do
		block_drops "${_b%%:*}" "${_b#*:}" "$_what"
	done
	tc_ok "$_what deleted" qdisc del dev tcd0 "$_kind"
}
blocks "ingress_block 21 egress_block 22 clsact" 'ingress_block 21 egress_block 22 ?$' \
	21:TC_INGRESS 22:TC_EGRESS
blocks "egress_block 23 clsact" 'egress_block 23 ?$' 23:TC_EGRESS
blocks "ingress_block 24 clsact" 'ingress_block 24 ?$' 24:TC_INGRESS
blocks "ingress_block 25 ingress" 'ingress_block 25 (-+ ?)?$' 25:TC_INGRESS

# ---- a hook's tcx entry goes with its last user -----------------------
# A hook's tcx entry lives as long as a program, a link or a qdisc there
# needs it, and a query reports its revision (1 + the changes since it
# was made), or 1 when the hook has none. On a dummy device with nothing
# else, at each hook: a program attached and detached, a link made and
# released, each leaving the hook with revision 1 again; then a clsact
# qdisc, which keeps the entry through a program's attach and detach
# (revision 3) until it is deleted too.
ip link add tcdr type dummy
expect "a dummy device for the entry's lifetime" $?
idx_r=$(cat /sys/class/net/tcdr/ifindex)
rev() { # rev HOOK WHAT EXPECTED: the revision a query of tcdr's HOOK reports
	_i=0
	while _r=$(tcx-attach "$idx_r" "$1" query | sed -n 's/^revision //p') &&
		[ "$_r" != "$3" ] && [ $_i -lt 3 ]; do
		_i=$((_i + 1))
		sleep 1
	done
	[ "$_r" = "$3" ]
	expect "$1: $2: revision $3 (got ${_r:-nothing})" $?
}
for hook in ingress egress; do
	rev "$hook" "no entry yet" 1
	tcx-attach tcdr "$hook" pass prog
	expect "$hook: a program attached" $?
	rev "$hook" "a program" 2
	tcx-attach "$idx_r" "$hook" detach
	expect "$hook: the program detached" $?
	rev "$hook" "the entry went with its last program" 1
	tcx-attach tcdr "$hook" pass link "$PIN_FIRST"
	expect "$hook: a link made" $?
	rev "$hook" "a link" 2
	rm -f "$PIN_FIRST"
	rev "$hook" "the entry went with its last link" 1
	tc_ok "$hook: a clsact qdisc" qdisc add dev tcdr clsact
	tcx-attach tcdr "$hook" pass prog && tcx-attach "$idx_r" "$hook" detach
	expect "$hook: a program attached and detached under clsact" $?
	rev "$hook" "clsact keeps the entry" 3
	tc_ok "$hook: the clsact qdisc deleted" qdisc del dev tcdr clsact
	rev "$hook" "the entry went with the qdisc" 1
done
ip link del tcdr

# ---- every device of one deletion -------------------------------------
# One deletion can take several devices (a veth pair's two ends): the
# tcx links of each go defunct and its programs are freed, not only
# those of the device named. A link and a program at tcdb1's hooks; the
# pair deleted through tcdb0.
ip link add tcdb0 type veth peer name tcdb1 &&
	tcx-attach tcdb1 ingress pass link "$PIN_FAR" &&
	tcx-attach tcdb1 egress drop prog
expect "a veth pair tcdb0/tcdb1, a tcx link and a tcx program at tcdb1" $?
ip link del tcdb0
expect "the pair deleted through tcdb0" $?
out=$(tcx-attach fdinfo "$PIN_FAR")
expect_match "the other end's link is defunct (ifindex 0)" '^ifindex:	0$' "$out"
rm -f "$PIN_FAR"
[ "$(progs_left)" -eq 0 ]
expect "the other end's link and program freed" $?

# ---- a refused attach leaves the hook as it was ------------------------
# An attach refused on a hook that already has a program (a stale
# expected_revision: ESTALE) must leave that hook's entry, program and
# revision alone: only an entry the refused call made itself is freed.
# Fifty of them at tcdz's egress, which keeps its pass program; a second
# later (RCU has had its grace periods) the hook answers as before, and
# the program detaches as usual.
ip link add tcdz type dummy && tcx-attach tcdz egress pass prog
expect "a dummy device tcdz with a tcx program at egress" $?
idx_z=$(cat /sys/class/net/tcdz/ifindex)
before=$(tcx-attach "$idx_z" egress query | tr '\n' ' ')
out=$(tcx-attach tcdz cycles prog-fail 50)
expect "50 attaches refused at tcdz's egress ($out)" $?
sleep 1
after=$(tcx-attach "$idx_z" egress query | tr '\n' ' ')
[ "$after" = "$before" ]
expect "the hook unchanged by the refused attaches ($before-> $after)" $?
tcx-attach "$idx_z" egress detach
expect "its program detached" $?
out=$(tcx-attach "$idx_z" egress query | tr '\n' ' ')
expect_match "no program left, the entry gone ($out)" '^0 programs revision 1 $' "$out"
ip link del tcdz
expect "tcdz deleted" $?

# ---- tcx entries freed ------------------------------------------------
# What makes and frees a hook's tcx entry (a kmalloc), cycled on a dummy
# device that has nothing else: a clsact qdisc added and deleted (both
# hooks' entries), an ingress qdisc added and deleted (the ingress hook's),
# a tcx link made at ingress and closed (its release frees the entry), a
# program attached at egress and detached; and what fails after making
# the entry: a program attached and a link made with a stale
# expected_revision, a link made with no fd free (the link itself made
# and freed again). After a fifth more unmeasured cycles, 500: an entry
# left behind by each would leave that many more objects in use in its
# slab cache (1000 for clsact's two); the check allows no cache half of
# that (/proc/slabinfo, the cache that grew most, less the kernel threads
# added meanwhile; each cache shrunk first, so that a CPU's partly free
# slab does not count as in use, and kfree_rcu()'s batches handed to RCU
# first: a tcx entry is freed that way). And 200 times, a veth pair made
# with a program at one end's ingress and deleted (tcx-attach's "dev":
# tcx_uninstall() frees the entry): the check allows no cache 100 more.
ip link add tcdy type dummy
expect "a dummy device for the cycles" $?
for kind in clsact ingress link prog prog-fail link-fail link-nofd dev:200; do
	n=500
	case $kind in *:*) n=${kind#*:} kind=${kind%%:*} ;; esac
	cycles_ok "$kind" "$n" tcx-attach tcdy cycles "$kind" "$n"
done

cleanup
tap_finish
