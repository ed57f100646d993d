#!/bin/sh
# area: netkit
# order: 35
# smoke: the peer-down race runs 2 s instead of 6
# netkit_devstate: the state of a pair's two devices, read at both ends.
#  - carrier: netkit_open() turns on the carrier of both ends once both
#    are up, netkit_close() of either end turns off both; checked at both
#    ends after every step of every order of opening and closing them, by
#    IFLA_CARRIER, IFF_LOWER_UP, /sys/class/net/X/carrier and the
#    operstate linkwatch sets (up, lowerlayerdown, down);
#  - the peer down: what the primary transmits reaches neither the peer
#    nor the primary's program, and is counted as a drop; while the peer
#    goes down and up, a frame that reaches netkit_xmit() with the peer
#    down (linkwatch has not yet given the primary the noop qdisc) is
#    dropped before the program runs (netkit-devstate peerdown: how many
#    met the peer down is printed);
#  - asymmetric pairs, the primary and the peer made with different
#    scrubbing and default policies: each end reports its own and its
#    peer's through netlink (IFLA_NETKIT_*), and traffic shows them: the
#    transmitting end's policy decides, and its scrubbing whether a
#    packet's mark and priority reach the other namespace; l2 and l3
#    mode as both ends report and show it (the flags, ARP, an address
#    set or refused); the peer's namespace in each end's link; a pair
#    made with one end's scrubbing and policy alone, and a changelink of
#    one end's policy or both, set those ends alone;
#  - the metadata that crosses a pair, as each end's program sees it:
#    within one namespace netkit scrubs nothing (mark, priority and a
#    transmit time kept, both ends scrubbing by default); across
#    namespaces the transmit time is cleared whatever the scrubbing, the
#    mark and priority where the transmitting end scrubs;
#  - what each end is set up with: the MTU range, the TSO limit, no
#    qdisc and the offload features, MTU and GSO size at their limits,
#    a frame's checksum left to the device taken by both ends, also in
#    an MPLS frame (it arrives still partial), no shared skbs (pktgen's
#    clone_skb refused, a dummy's taken);
#    its name's assign type (given: user; left to the kernel: enum, and
#    nk<N> for either end);
#  - what a listener of RTNLGRP_LINK hears of a pair made and deleted;
#  - what is made is freed: pairs refused after their peer was made,
#    links made and closed, refused their fd, hundreds of times, leave no
#    slab cache grown by half as many objects;
#  - headroom: IFLA_NETKIT_HEADROOM and TAILROOM of both ends as made
#    (each alone, and both);
#    an end in a bridge gets ndo_set_rx_headroom() calls, and both ends
#    then need the larger of what the bridge asks for that end and what
#    the other end asked for last (netkit_set_headroom()), from either
#    side, as ports join and leave (a vxlan port over IPv6 makes the
#    bridge ask for 84 bytes).
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed or the setup did not work, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NS=nkdevstate
# The peer-down race's seconds.
race_secs=6
[ -z "$smoke" ] || race_secs=2
# NET_SKB_PAD, the headroom an end falls back to when it leaves a
# bridge: max(32, L1_CACHE_BYTES), 64 on x86_64 and arm64; s390 defines
# its own, 32 (arch/s390/include/asm/cache.h), not its 256-byte cache
# line's.
case $(uname -m) in
s390x) pad=32 ;;
*) pad=64 ;;
esac

cleanup() {
	for d in nkc1 nkcd nkx1 nks1 nku1 nkn1 nkh1 nkg1 nkj1 nkt1 nko1 nki1 nkl1 nkvx nkbr; do
		ip link del "$d" 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
}

# show DEV [NETNS]: netkit-devstate's line for DEV.
show() {
	if [ -n "$2" ]; then
		ip netns exec "$2" netkit-devstate show "$1"
	else
		netkit-devstate show "$1"
	fi
}
# field LINE NAME: NAME's value in a show line.
field() {
	printf '%s\n' "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p;s/^$2=\([^ ]*\).*/\1/p" | head -n 1
}
# noipv6 DEV [NETNS]: no IPv6 on DEV, whose router solicitations and DAD
# would be counted as traffic.
noipv6() {
	if [ -n "$2" ]; then
		ip netns exec "$2" sh -c "echo 1 >/proc/sys/net/ipv6/conf/$1/disable_ipv6"
	else
		echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6"
	fi
}

cleanup
ip netns add "$NS" && ip -n "$NS" link set lo up
expect "a namespace for the peers" $?

# ---- carrier ---------------------------------------------------------
# Both ends in this namespace. The model: the carrier of both is on
# exactly when both are up; an end that is up shows IFF_LOWER_UP and
# carrier 1 in sysfs with it, operstate up, or lowerlayerdown without it
# (its iflink is the other end); an end that is down reports operstate
# down and has no sysfs carrier.
netkit-pair nkc1 nkc0 l3 pass pass
expect "a pair for the carrier checks (nkc1, peer nkc0)" $?
up_nkc1=0 up_nkc0=0

# observed DEV: "carrier=C lower_up=L sysfs=S operstate=O", waiting up to
# 5 s for the operstate to be the model's (linkwatch sets it later).
observed() {
	_i=0
	while :; do
		_l=$(show "$1")
		_s=$(cat "/sys/class/net/$1/carrier" 2>/dev/null) || _s=-
		_o="carrier=$(field "$_l" carrier) lower_up=$(field "$_l" lower_up) sysfs=$_s operstate=$(field "$_l" operstate)"
		if [ "$_o" = "$2" ] || [ "$_i" -ge 50 ]; then
			break
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	printf '%s\n' "$_o"
}
# model DEV UP: what the model expects of DEV, up or not.
model() {
	_c=$((up_nkc1 && up_nkc0))
	if [ "$2" = 1 ]; then
		if [ "$_c" = 1 ]; then
			echo "carrier=1 lower_up=1 sysfs=1 operstate=up"
		else
			echo "carrier=0 lower_up=0 sysfs=0 operstate=lowerlayerdown"
		fi
	else
		echo "carrier=$_c lower_up=0 sysfs=- operstate=down"
	fi
}
# step +DEV|-DEV: open or close DEV, then check both ends.
step() {
	_d=${1#?}
	case $1 in
	+*) ip link set "$_d" up && eval "up_$_d=1" ;;
	-*) ip link set "$_d" down && eval "up_$_d=0" ;;
	esac
	_rc=$?
	_what="$seq: $1"
	for _e in nkc1 nkc0; do
		_u=$(eval "echo \$up_$_e")
		_want=$(model "$_e" "$_u")
		_got=$(observed "$_e" "$_want")
		[ "$_rc" -eq 0 ] && [ "$_got" = "$_want" ]
		expect "carrier: after $_what, $_e: $_want" $?
		[ "$_got" = "$_want" ] || diag "got: $_got"
	done
}
for seq in '+nkc1 +nkc0 -nkc1 -nkc0' '+nkc1 +nkc0 -nkc0 -nkc1' \
	'+nkc0 +nkc1 -nkc1 -nkc0' '+nkc0 +nkc1 -nkc0 -nkc1' \
	'+nkc1 +nkc0 -nkc1 +nkc1 -nkc0 +nkc0 -nkc0 -nkc1'; do
	for s in $seq; do
		step "$s"
	done
done

# ---- what each end is set up with ------------------------------------
# netkit_setup(): the MTU range (68 to ETH_MAX_MTU, 65535), GSO_MAX_SIZE
# as the TSO limit (8 x 65535), no qdisc (IFF_NO_QUEUE) and mainline's
# offload features (ethtool -k), at both ends; an MTU and a GSO size at
# the limits are taken, one past them refused.
for e in nkc1 nkc0; do
	d=$(ip -d link show dev "$e")
	expect_match "$e: minmtu 68, maxmtu 65535" ' minmtu 68 maxmtu 65535( |$)' "$d"
	expect_match "$e: tso_max_size 524280, tso_max_segs 65535" \
		' tso_max_size 524280 tso_max_segs 65535( |$)' "$d"
	expect_match "$e: no qdisc" ' qdisc noqueue ' "$d"
	ip link set dev "$e" mtu 65535 && ! ip link set dev "$e" mtu 65536 2>/dev/null &&
		ip link set dev "$e" mtu 1500
	expect "$e: MTU 65535 taken, 65536 refused" $?
	ip link set dev "$e" gso_max_size 524280 &&
		! ip link set dev "$e" gso_max_size 524281 2>/dev/null &&
		ip link set dev "$e" gso_max_size 65536
	expect "$e: gso_max_size 524280 taken, 524281 refused" $?
	f=$(ethtool -k "$e")
	for feat in 'tx-scatter-gather' 'tx-scatter-gather-fraglist' 'tx-checksum-ip-generic' \
		'rx-checksumming' 'tx-checksum-sctp' 'highdma' 'tx-tcp-segmentation' \
		'tx-tcp6-segmentation' 'tx-udp-segmentation' 'tx-gre-segmentation' \
		'tx-udp_tnl-segmentation' 'rx-vlan-offload' 'tx-vlan-offload' \
		'rx-vlan-stag-hw-parse' 'tx-vlan-stag-hw-insert'; do
		expect_match "$e: ethtool -k $feat on" "^[[:space:]]*$feat: on" "$f"
	done
	expect_match "$e: ethtool -k tx-lockless on, fixed" '^[[:space:]]*tx-lockless: on \[fixed\]' "$f"
done

# Checksums left to the device: both ends offer NETIF_F_HW_CSUM, to MPLS
# frames too (their mpls_features, which the transmit path applies to an
# MPLS frame with NET_MPLS_GSO): a frame sent through either end with its
# checksum left to the device (a packet socket's virtio_net_hdr,
# NEEDS_CSUM) arrives at the other still partial, its checksum field as
# sent; one the end could not checksum would be checksummed in software
# before its ndo_start_xmit (netkit-devstate csum).
ip link set nkc1 up && ip link set nkc0 up
expect "nkc1/nkc0 up for the checksum frames" $?
out=$(netkit-devstate csum nkc1 nkc0 2>&1)
expect "netkit-devstate csum ran" $?
printf '%s\n' "$out" | diag_lines
for w in IPv4 MPLS; do
	for e in nkc1:nkc0 nkc0:nkc1; do
		expect_match "checksum left to ${e%:*}: a $w frame arrives at ${e#*:} still partial, its field as sent" \
			"^ok - csum: $w frame, checksum left to ${e%:*}: at ${e#*:} still partial" "$out"
	done
done
ip link set nkc1 down && ip link set nkc0 down
expect "nkc1/nkc0 down again" $?

# No shared skbs: a program may change the skb it is given, so netkit
# clears IFF_TX_SKB_SHARING (as veth does) and pktgen refuses to send
# one skb many times (clone_skb) through either end; a dummy device,
# which keeps the flag ether_setup() gives, takes it. pktgen takes only
# a device that is up, and what it kept is in its device file's
# "clone_skb: N".
PG=/proc/net/pktgen
ip link add nkcd type dummy && ip link set nkcd up && ip link set nkc1 up &&
	ip link set nkc0 up
expect "a dummy device nkcd, it and nkc1/nkc0 up" $?
for e in nkc1:refused nkc0:refused nkcd:taken; do
	d=${e%:*}
	echo "add_device $d" >"$PG/kpktgend_0" && [ -e "$PG/$d" ]
	expect "pktgen: $d added" $?
	echo "clone_skb 4" 2>/dev/null >"$PG/$d"
	got=refused
	! grep -q ' clone_skb: 4 ' "$PG/$d" || got=taken
	k=$(sed -n 's/.* \(clone_skb: [0-9]*\) .*/\1/p' "$PG/$d")
	[ -n "$k" ] && [ "$got" = "${e#*:}" ]
	expect "pktgen: clone_skb 4 on $d ${e#*:} (${k:-no device file})" $?
	echo rem_device_all >"$PG/kpktgend_0"
done
ip link del nkcd && ip link set nkc1 down && ip link set nkc0 down
expect "nkcd deleted, nkc1/nkc0 down again" $?

# Names: given in the request, both ends' name_assign_type is
# NET_NAME_USER (3); a peer left for the kernel to name (nk%d) has
# NET_NAME_ENUM (1).
netkit-pair nku1 - l3 pass pass
expect "a pair whose peer the kernel names (nku1)" $?
pn=$(ip -o link show | sed -n "s/^$(cat /sys/class/net/nku1/iflink): \([^:@]*\)[:@].*/\1/p")
for e in "nkc1 3" "nkc0 3" "nku1 3" "${pn:-?} 1"; do
	# shellcheck disable=SC2086 # the words of e, split on purpose
	set -- $e
	t=$(cat "/sys/class/net/$1/name_assign_type" 2>/dev/null)
	[ "$t" = "$2" ]
	expect "$1: name_assign_type $2 (got ${t:-none})" $?
done
ip link del nku1
# With neither name in the request, the kernel names both ends from
# netkit's own pattern, nk%d (not rtnetlink's default for a kind,
# netkit%d), each NET_NAME_ENUM.
before=$(cd /sys/class/net && echo *)
netkit-pair - - l3 pass pass
expect "a pair with neither name given" $?
names=''
for d in /sys/class/net/*; do
	d=${d##*/}
	case " $before " in *" $d "*) ;; *) names="$names$d " ;; esac
done
n=0 bad=''
for d in $names; do
	n=$((n + 1))
	case $d in nk[0-9]*) ;; *) bad="$bad $d" ;; esac
	[ "$(cat "/sys/class/net/$d/name_assign_type")" = 1 ] || bad="$bad $d(type)"
done
[ "$n" -eq 2 ] && [ -z "$bad" ]
expect "both ends named nk<N> by the kernel, NET_NAME_ENUM (new devices: $names)" $?
for d in $names; do
	ip link del "$d" 2>/dev/null
done

# ---- what a listener hears --------------------------------------------
# RTNLGRP_LINK while a pair is made and deleted (netkit-devstate notify):
# each end is announced (RTM_NEWLINK), the peer by netkit_new_link()
# itself, for no requester (nlmsg_pid 0; the primary by rtnetlink, which
# in 6.1 names no requester either); the deletion announces each end gone
# once (RTM_DELLINK), neither naming a peer any more (IFLA_LINK 0:
# netkit_del_link() cleared both).
out=$(netkit-devstate notify nkn1 nkn0)
expect "netkit-devstate notify ran" $?
printf '%s\n' "$out" | diag_lines
expect_match "the peer announced, for no requester" '^newlink peer count=[1-9][0-9]* pid=0 ' "$out"
expect_match "the primary announced" '^newlink primary count=[1-9][0-9]* ' "$out"
expect_match "the primary's deletion heard once, naming no peer" '^dellink primary count=1 link=0$' \
	"$out"
expect_match "the peer's deletion heard once, naming no peer" '^dellink peer count=1 link=0$' "$out"

# ---- the peer down ---------------------------------------------------
# nkx1 and nkx0 up, the peer with an address and IPv6, so that its
# close has notifiers to run while it holds rtnl.
netkit-pair nkx1 nkx0 l3 pass pass && noipv6 nkx1 &&
	ip link set nkx1 up && ip link set nkx0 up &&
	ip addr add 10.95.0.2/24 dev nkx0
expect "a pair for the peer-down checks (nkx1, peer nkx0)" $?
out=$(netkit-devstate peerdown nkx1 nkx0 "$race_secs" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v '^met=' | diag_lines
expect "netkit-devstate peerdown: its checks passed" "$rc"
met=$(printf '%s\n' "$out" | sed -n 's/^met=//p')
expect_ge "peer-down race: frames that met the peer down were dropped before the program" "$met" 1

# ---- asymmetric pairs ------------------------------------------------
# nki1 (primary, here) / nki0 (peer, in NS): l3, the primary drops by
# default and does not scrub, the peer passes and scrubs.
# nkl1 / nkl0: l2, the other way round, with static neighbours.
N=5
netkit-pair -S none:default nki1 nki0 l3 drop pass && noipv6 nki1 &&
	ip link set nki0 netns "$NS" && noipv6 nki0 "$NS" &&
	ip link set nki1 up && ip addr add 10.94.0.1/24 dev nki1 &&
	ip -n "$NS" link set nki0 up && ip -n "$NS" addr add 10.94.0.2/24 dev nki0
expect "an l3 pair, the primary drop/no scrub, the peer pass/scrub (nki1, peer nki0 in $NS)" $?
netkit-pair -S default:none nkl1 nkl0 l2 pass drop && noipv6 nkl1 &&
	ip link set nkl0 netns "$NS" && noipv6 nkl0 "$NS" &&
	ip link set nkl1 up && ip addr add 10.93.0.1/24 dev nkl1 &&
	ip -n "$NS" link set nkl0 up && ip -n "$NS" addr add 10.93.0.2/24 dev nkl0 &&
	ip neigh replace 10.93.0.2 lladdr "$(ip netns exec "$NS" cat /sys/class/net/nkl0/address)" \
		dev nkl1 nud permanent &&
	ip -n "$NS" neigh replace 10.93.0.1 lladdr "$(cat /sys/class/net/nkl1/address)" \
		dev nkl0 nud permanent
expect "an l2 pair, the primary pass/scrub, the peer drop/no scrub (nkl1, peer nkl0 in $NS)" $?

# What each end reports of itself and of its peer.
l=$(show nki1)
expect_match "nki1 (primary) reports l3, policy drop, peer_policy pass, scrub none, peer_scrub default" \
	'primary=1 mode=l3 policy=drop peer_policy=pass scrub=none peer_scrub=default ' "$l"
l=$(show nki0 "$NS")
expect_match "nki0 (peer) reports l3, policy pass, peer_policy drop, scrub default, peer_scrub none" \
	'primary=0 mode=l3 policy=pass peer_policy=drop scrub=default peer_scrub=none ' "$l"
l=$(show nkl1)
expect_match "nkl1 (primary) reports l2, policy pass, peer_policy drop, scrub default, peer_scrub none" \
	'primary=1 mode=l2 policy=pass peer_policy=drop scrub=default peer_scrub=none ' "$l"
l=$(show nkl0 "$NS")
expect_match "nkl0 (peer) reports l2, policy drop, peer_policy pass, scrub none, peer_scrub default" \
	'primary=0 mode=l2 policy=drop peer_policy=pass scrub=none peer_scrub=default ' "$l"

# One-sided requests: an attribute sent for one end only sets that end,
# the other keeps its default (pass, scrub default); a changelink with
# one end's policy changes that end alone, with both, each its own.
# one_sided WHAT DEV EXPECTED: DEV reports EXPECTED (policies, scrubbing)
one_sided() {
	expect_match "$1: $2 reports $3" " $3 " "$(show "$2")"
}
netkit-pair -S none: nko1 nko0 l3 drop -
expect "a pair with SCRUB and POLICY for the primary alone (nko1, peer nko0)" $?
one_sided "primary's attributes alone" nko1 \
	'policy=drop peer_policy=pass scrub=none peer_scrub=default'
one_sided "primary's attributes alone" nko0 \
	'policy=pass peer_policy=drop scrub=default peer_scrub=none'
ip link del nko1
netkit-pair -S :none nko1 nko0 l3 - drop
expect "a pair with PEER_SCRUB and PEER_POLICY alone (nko1, peer nko0)" $?
one_sided "peer's attributes alone" nko1 \
	'policy=pass peer_policy=drop scrub=default peer_scrub=none'
netkit-pair -c -P drop: nko1
expect "changelink: POLICY drop alone" $?
one_sided "changelink of POLICY alone" nko1 'policy=drop peer_policy=drop'
netkit-pair -c -P :pass nko1
expect "changelink: PEER_POLICY pass alone" $?
one_sided "changelink of PEER_POLICY alone" nko1 'policy=drop peer_policy=pass'
netkit-pair -c -P pass:drop nko1
expect "changelink: POLICY pass and PEER_POLICY drop" $?
one_sided "changelink of both, each its own" nko1 'policy=pass peer_policy=drop'
one_sided "changelink of both, each its own" nko0 'policy=drop peer_policy=pass'
ip link del nko1

# The policies, no program attached: the transmitting end's decides.
# xfer_line OUT DIRECTION: the counters of one direction.
xfer_line() { printf '%s\n' "$1" | grep "^$2: "; }
out=$(netkit-devstate xfer nki1 "$NS" 10.94.0.1 10.94.0.2 "$N")
expect "xfer across nki1/nki0 without programs" $?
printf '%s\n' "$out" | diag_lines
expect_match "nki1 (policy drop) -> nki0: all $N dropped at the primary, none received" \
	"^primary->peer: sent=$N tx=0 tx_dropped=$N rx_other=0\$" "$(xfer_line "$out" 'primary->peer')"
expect_match "nki0 (policy pass) -> nki1: all $N sent and received" \
	"^peer->primary: sent=$N tx=$N tx_dropped=0 rx_other=$N\$" "$(xfer_line "$out" 'peer->primary')"
out=$(netkit-devstate xfer nkl1 "$NS" 10.93.0.1 10.93.0.2 "$N")
expect "xfer across nkl1/nkl0 without programs" $?
printf '%s\n' "$out" | diag_lines
expect_match "nkl1 (policy pass) -> nkl0: all $N sent and received" \
	"^primary->peer: sent=$N tx=$N tx_dropped=0 rx_other=$N\$" "$(xfer_line "$out" 'primary->peer')"
expect_match "nkl0 (policy drop) -> nkl1: all $N dropped at the peer, none received" \
	"^peer->primary: sent=$N tx=0 tx_dropped=$N rx_other=0\$" "$(xfer_line "$out" 'peer->primary')"

# Scrubbing, with a recording program at each end's hook (it passes
# what it sees, so the policies no longer decide): across namespaces, an
# end that scrubs clears the mark and priority of what it transmits.
out=$(netkit-devstate xfer -r nki1 "$NS" 10.94.0.1 10.94.0.2 "$N")
expect "xfer across nki1/nki0 with recorders" $?
printf '%s\n' "$out" | diag_lines
expect_match "nki1 (scrub none) -> nki0: its program saw the $N packets with their mark and priority" \
	"^primary->peer: sent=$N tx=$N tx_dropped=0 rx_other=$N seen=$N mark_kept=$N priority_kept=$N\$" \
	"$(xfer_line "$out" 'primary->peer')"
expect_match "nki0 (scrub default) -> nki1: the peer's program saw the $N packets scrubbed" \
	"^peer->primary: sent=$N tx=$N tx_dropped=0 rx_other=$N seen=$N mark_kept=0 priority_kept=0\$" \
	"$(xfer_line "$out" 'peer->primary')"
out=$(netkit-devstate xfer -r nkl1 "$NS" 10.93.0.1 10.93.0.2 "$N")
expect "xfer across nkl1/nkl0 with recorders" $?
printf '%s\n' "$out" | diag_lines
expect_match "nkl1 (scrub default) -> nkl0: its program saw the $N packets scrubbed" \
	"^primary->peer: sent=$N tx=$N tx_dropped=0 rx_other=$N seen=$N mark_kept=0 priority_kept=0\$" \
	"$(xfer_line "$out" 'primary->peer')"
expect_match "nkl0 (scrub none) -> nkl1: the peer's program saw the $N packets with their mark and priority" \
	"^peer->primary: sent=$N tx=$N tx_dropped=0 rx_other=$N seen=$N mark_kept=$N priority_kept=$N\$" \
	"$(xfer_line "$out" 'peer->primary')"

# Frames with a mark, a priority and a transmit time into each end.
# frames_line OUT DIRECTION: one direction's line.
frames_line() { printf '%s\n' "$1" | grep "^$2: "; }
# frames_check WHAT DIRECTION MARK PRIORITY TSTAMP OUT: of the N frames
# sent that way, the recorder saw N, and that many kept each.
frames_check() {
	expect_match "$1" \
		"^$2: sent=$N seen=$N mark_kept=$3 priority_kept=$4 tstamp_kept=$5\$" \
		"$(frames_line "$6" "$2")"
}
# One namespace: both ends scrub by default, and nothing is scrubbed.
netkit-pair nks1 nks0 l2 pass pass && noipv6 nks1 && noipv6 nks0 &&
	ip link set nks1 up && ip link set nks0 up
expect "a pair with both ends in this namespace, both scrubbing by default (nks1, peer nks0)" $?
l=$(show nks1)
expect_match "nks1 reports scrub default, peer_scrub default" ' scrub=default peer_scrub=default ' "$l"
out=$(netkit-devstate frames nks1 - "$N")
expect "frames through nks1/nks0" $?
printf '%s\n' "$out" | diag_lines
frames_check "nks1 -> nks0, one namespace: mark, priority and tstamp kept" \
	'primary->peer' "$N" "$N" "$N" "$out"
frames_check "nks0 -> nks1, one namespace: mark, priority and tstamp kept" \
	'peer->primary' "$N" "$N" "$N" "$out"
# Across namespaces, the asymmetric pairs from both sides.
out=$(netkit-devstate frames nki1 "$NS" "$N")
expect "frames through nki1/nki0" $?
printf '%s\n' "$out" | diag_lines
frames_check "nki1 (scrub none) -> nki0 in $NS: mark and priority kept, tstamp cleared" \
	'primary->peer' "$N" "$N" 0 "$out"
frames_check "nki0 (scrub default) -> nki1: mark, priority and tstamp cleared" \
	'peer->primary' 0 0 0 "$out"
out=$(netkit-devstate frames nkl1 "$NS" "$N")
expect "frames through nkl1/nkl0" $?
printf '%s\n' "$out" | diag_lines
frames_check "nkl1 (scrub default) -> nkl0 in $NS: mark, priority and tstamp cleared" \
	'primary->peer' 0 0 0 "$out"
frames_check "nkl0 (scrub none) -> nkl1: mark and priority kept, tstamp cleared" \
	'peer->primary' "$N" "$N" 0 "$out"

# The mode, at both ends: l3 devices do no ARP (IFF_NOARP, 0x80) and
# refuse an address; l2 devices do ARP and take one. The flags as a
# whole: UP, BROADCAST and MULTICAST (0x1003), and NOARP in l3 (0x1083).
# in_ns NETNS CMD...: CMD in NETNS, or here for NETNS "".
in_ns() {
	_n=$1
	shift
	if [ -n "$_n" ]; then ip netns exec "$_n" "$@"; else "$@"; fi
}
for e in "nki1 l3 - 98" "nki0 l3 $NS 99" "nkl1 l2 - 98" "nkl0 l2 $NS 99"; do
	# shellcheck disable=SC2086 # the words of e, split on purpose
	set -- $e
	ns=$3
	[ "$ns" != - ] || ns=
	flags=$(in_ns "$ns" cat "/sys/class/net/$1/flags")
	old=$(in_ns "$ns" cat "/sys/class/net/$1/address")
	in_ns "$ns" ip link set "$1" address "02:00:5e:10:00:$4" 2>/dev/null
	set_rc=$?
	now=$(in_ns "$ns" cat "/sys/class/net/$1/address")
	setting="is refused"
	[ "$set_rc" -ne 0 ] || setting=works
	if [ "$2" = l3 ]; then
		[ $((flags & 0x80)) -ne 0 ] && [ "$set_rc" -ne 0 ]
	else
		[ $((flags & 0x80)) -eq 0 ] && [ "$set_rc" -eq 0 ]
	fi
	expect "$1 ($2): NOARP $((flags & 0x80 ? 1 : 0)), setting an address $setting" $?
	if [ "$2" = l3 ]; then want=0x1083 addr=$old; else want=0x1003 addr=02:00:5e:10:00:$4; fi
	[ $((flags)) -eq $((want)) ]
	expect "$1 ($2): flags $want (got $flags)" $?
	[ "$now" = "$addr" ]
	expect "$1 ($2): address $addr afterwards (got $now)" $?
done
# The peer's namespace, in what each end says of its link: IFLA_LINK_NETNSID
# for the pairs split across namespaces, none for a pair in one.
for e in "nki1 -" "nkl1 -" "nki0 $NS" "nkl0 $NS"; do
	# shellcheck disable=SC2086 # the words of e, split on purpose
	set -- $e
	ns=$2
	[ "$ns" != - ] || ns=
	expect_match "$1: its peer's namespace in the link (link-netns)" ' link-netns(id)? ' \
		"$(in_ns "$ns" ip -d link show dev "$1")"
done
! ip -d link show dev nks1 | grep -qE ' link-netns(id)? '
expect "nks1 (peer in the same namespace): no link-netns" $?

# ---- headroom --------------------------------------------------------
# hr DEV: DEV's IFLA_NETKIT_HEADROOM (its needed_headroom).
hr() { field "$(show "$1")" headroom; }
# both_hr WHAT P Q N: both ends report headroom N.
both_hr() {
	_p=$(hr "$2") _q=$(hr "$3")
	[ "$_p" = "$4" ] && [ "$_q" = "$4" ]
	expect "headroom: $1: $2 and $3 need $4 (got $_p, $_q)" $?
}
netkit-pair -H 48 -T 16 nkh1 nkh0 l2 pass pass &&
	netkit-pair -H 48 nkg1 nkg0 l2 pass pass &&
	netkit-pair -H 128 nkj1 nkj0 l2 pass pass
expect "three l2 pairs made with IFLA_NETKIT_HEADROOM 48, 48 and 128" $?
l=$(show nkh1)
expect_match "nkh1 (primary) as made: headroom 48, tailroom 16" ' headroom=48 tailroom=16$' "$l"
l=$(show nkh0)
expect_match "nkh0 (peer) as made: headroom 48, tailroom 16" ' headroom=48 tailroom=16$' "$l"
l=$(show nkg0)
expect_match "nkg0 (peer), made without a tailroom: headroom 48, tailroom 0" ' headroom=48 tailroom=0$' "$l"
netkit-pair -T 16 nkt1 nkt0 l2 pass pass
expect "an l2 pair made with IFLA_NETKIT_TAILROOM 16 alone" $?
for e in nkt1 nkt0; do
	expect_match "$e, made without a headroom: headroom 0, tailroom 16" ' headroom=0 tailroom=16$' \
		"$(show "$e")"
done
ip link del nkt1

ip link add nkbr type bridge &&
	ip link add nkvx type vxlan id 42 remote 2001:db8::1 dstport 4789
expect "a bridge and a vxlan device over IPv6 (needed headroom 84)" $?

# The primary joins first: the bridge asks it for 0, its peer made for 48.
ip link set nkh1 master nkbr
expect "nkh1 (primary) joins the empty bridge" $?
both_hr "the primary in an empty bridge: the peer's 48 is the larger" nkh1 nkh0 48
ip link set nkvx master nkbr
expect "the vxlan device joins the bridge" $?
both_hr "the bridge asks the primary for 84: both ends" nkh1 nkh0 84
ip link set nkvx nomaster
both_hr "the vxlan port gone, the bridge asks for 0 again: the peer's 48" nkh1 nkh0 48
ip link set nkh1 nomaster
both_hr "the primary left the bridge: its default, NET_SKB_PAD $pad, against the peer's 48" \
	nkh1 nkh0 $((pad > 48 ? pad : 48))

# The peer joins first (a fresh pair): what the primary was made with counts.
ip link set nkg0 master nkbr
expect "nkg0 (peer) joins the empty bridge" $?
both_hr "the peer in an empty bridge: the primary's 48 is the larger" nkg1 nkg0 48
ip link set nkvx master nkbr
both_hr "the bridge asks the peer for 84: both ends" nkg1 nkg0 84
ip link set nkvx nomaster
both_hr "the vxlan port gone: the primary's 48" nkg1 nkg0 48
ip link set nkg0 nomaster
both_hr "the peer left the bridge: NET_SKB_PAD $pad against the primary's 48" \
	nkg1 nkg0 $((pad > 48 ? pad : 48))

# A pair made with more than the bridge asks for keeps its own.
ip link set nkvx master nkbr && ip link set nkj0 master nkbr
expect "the vxlan device, then nkj0 (peer of a pair made with 128), join the bridge" $?
both_hr "the bridge asks the peer for 84, the primary was made with 128" nkj1 nkj0 128
ip link set nkj0 nomaster
both_hr "the peer left: NET_SKB_PAD $pad against the primary's 128" nkj1 nkj0 \
	$((pad > 128 ? pad : 128))
ip link set nkj1 master nkbr
expect "nkj1 (the primary) joins the bridge" $?
both_hr "the bridge asks the primary for 84, the peer now has NET_SKB_PAD $pad" nkj1 nkj0 \
	$((pad > 84 ? pad : 84))

# A pair deleted with an end still in the bridge: netkit_del_link()
# clears both peer pointers before the bridge lets the port go and
# resets its headroom (netkit_set_headroom() without a peer).
ip link del nkj1 && [ ! -e /sys/class/net/nkbr/brif/nkj1 ] &&
	[ -e /sys/class/net/nkbr/brif/nkvx ]
expect "nkj1 deleted while a bridge port: the bridge lost that port, kept the vxlan one" $?

# ---- what is made is freed --------------------------------------------
# Cycles of what makes and frees netkit's objects (netkit-devstate
# cycles): a pair made and deleted (200 times: both net_devices), a pair
# refused once its peer was made (its peer named lo), a netkit link made
# and closed, a link refused its fd (no fd free), 500 times each (the
# kernel threads the workqueues add meanwhile are taken off: a kworker
# takes a struct pid, a task_struct, ...). After a fifth more unmeasured,
# an object left behind by each cycle would leave that many more in use
# in its slab cache; the check allows no cache half of that
# (/proc/slabinfo, the cache that grew most).
for kind in pair:200 pair-fail link link-nofd; do
	cycles=500
	case $kind in *:*) cycles=${kind#*:} kind=${kind%%:*} ;; esac
	cycles_ok "$kind" "$cycles" netkit-devstate cycles "$kind" "$cycles"
done

cleanup
! ip link show nkc1 >/dev/null 2>&1 && ! ip link show nkbr >/dev/null 2>&1 &&
	! ip netns list | grep -qw "$NS"
expect "cleanup removed the pairs, the bridge and the namespace" $?
tap_finish
