#!/bin/sh
# bench-guest: the datapath benchmark, run by the bench guest's /init.
#
# Sets up every topology at once, each in network namespaces of its own
# (IPv4 only, BPF JIT on), checks that it passes traffic, then measures in
# rounds: in every round every workload on every topology, the topology
# order rotated from round to round, so that drift hits all of them alike.
# Then tears the topologies down and runs the scale curve with nkbench.
# With ISOLATE=yes each topology is alone instead: set up, measured (and
# profiled after its last round), torn down, then the next one, so that
# nothing one topology attaches (a tcx link, a clsact qdisc, the static
# keys they turn on) is on another's path.
#
# Topologies ("host" is the initial namespace, "pod" a namespace nb-*):
#   lo             client and server in one netns over loopback
#   veth-pair      host <-> pod over one veth pair
#   netkit-pair    host <-> pod over one netkit pair (L3, pass/pass, no programs)
#   veth-routed    pod A -> host -> pod B, two veth pairs, host routing
#   netkit-routed  pod A -> host -> pod B, two netkit pairs, host routing
#   veth-bpf       pod A -> pod B, two veth pairs, tc ingress program on each
#                  host-side veth: bpf_redirect_peer() into the other pod
#   netkit-bpf     pod A -> pod B, two netkit pairs, program on each pair's
#                  peer hook (netkit bpf link): bpf_redirect() to the other
#                  pair's primary
#   veth-phys      pod <-> "remote" over the node's physical device, a real
#                  NIC (virtio-net, nic0; its wire, a QEMU hub, leads only
#                  to the remote host's NIC, nicr, in a netns of its own):
#                  out with bpf_redirect_neigh() to the next hop the program
#                  knows at tcx ingress of the pod's host-side veth, in with
#                  bpf_redirect_peer() at tcx ingress of the NIC
#   veth-phys-clsact  veth-phys with the same programs at clsact ingress
#                  (cls_bpf, direct action) instead of tcx: what a kernel
#                  without tcx runs
#   netkit-phys    the same with a netkit pair: out with bpf_redirect_neigh()
#                  from the peer hook (the pod's own xmit), in with
#                  bpf_redirect_peer() at tcx ingress of the NIC
#   netkit-phys-headroom  netkit-phys with the pod device's headroom
#                  set to what the NIC puts in front of a packet (its
#                  Ethernet header and virtio_net's 12-byte header), as an
#                  agent sets it where the kernel has IFLA_NETKIT_HEADROOM:
#                  the pod's sockets then leave room enough, and
#                  bpf_redirect_neigh() no longer reallocates every packet
#                  that has less than the NIC's LL_RESERVED_SPACE
#   netkit-phys-route  netkit-phys with the bench's first program:
#                  bpf_redirect_neigh() without a next hop, the helper
#                  looks the route up for every packet
#   host-phys      an application in the host namespace talks to the remote
#                  through the same NIC: no pod, no program (what
#                  netkit-phys is measured against)
#   netkit-vphys   the first netkit-phys: the route lookup per packet, and
#                  a veth pair as the stand-in for the physical device
#                  (its far end the remote's NIC); its host path is
#                  veth-pair, the same code
# The NIC serves one topology at a time (ISOLATE=yes).
# bench/topologies lists them with what each needs of the kernel.
# Every device, lo included, has MTU 1500, so no topology gets a larger
# MSS than another. The NICs keep what virtio-net negotiates with QEMU's
# hub (no checksum or segmentation offload: the hub takes no virtio-net
# header; without scatter-gather the kernel turns GSO off on them, GRO
# stays on); the counters record their features.
# Workloads: tcp1 and tcp4 (iperf3 -J, 1 and 4 streams), rr (sockperf
# ping-pong over TCP, round trip), udp (nkbench udp: one flow of UDP_SIZE-
# byte datagrams, client to server, then server to client, sender and
# receiver on vCPU 0, no datagram dropped). tcp1 and rr run client and server on
# vCPU 0: under TCG a wakeup across vCPUs waits up to a guest tick (4 ms
# at HZ=250), which would drown the datapath in emulator scheduling; on one
# vCPU the whole path (sender, devices, stack, receiver) runs serially and
# its cost is what the numbers show. tcp4 runs unpinned on both vCPUs.
#
# Output on the console, one line per fact, parsed by the host
# (bench/host/report.sh):
#   NKBENCH start key=value...
#   NKBENCH ready topo=T                      the topology passes traffic
#   NKBENCH result round=R topo=T wl=W ...    the tools' numbers
#   NKBENCH error topo=T [wl=W round=R] what=...
#   NKBENCH profile topo=T wl=W softnet_processed=N top=SYM:PCT,...
# Under CLOCK=icount (QEMU -icount shift=ICOUNT,sleep=off) the guest clock
# counts executed instructions: every interval the tools time is an
# instruction count (2^ICOUNT ns each), and the result lines carry the
# receive rounds (softnet processed) and CPU 0's idle ticks of the run.
#   NKBENCH scale kind=K n=N ...              (printed by nkbench)
#   NKBENCH done rc=RC failed=...
# The tools' raw output goes to the second serial port, /dev/ttyS1 (the
# host's bench/raw.log), where /init also reports the exit status.
#
# Parameters come from /etc/nkbench/params, every one of them (the host's
# bench/modes.sh has the defaults and says what each means; the guest has
# none): MODE, LABEL (the kernel's name in the results), ROUNDS, DURATION
# (seconds per stream run), OMIT (seconds iperf3 omits first),
# RR_DURATION, UDP_DURATION, UDP_SIZE, SCALE_N, TOPOS, WORKLOADS, ISOLATE,
# PROFILE (topologies to profile with perf after their measured rounds),
# PROFILE_WORKLOADS (the workloads they run under perf),
# PROFILE_PERIOD (perf's cpu-clock period in ns), CLOCK (icount or wall),
# ICOUNT (the shift), NIC_MAC0 and NIC_MAC1 (the MACs of the node's NIC and
# the remote's), NIC_TXTIMER (their transmit timer, ns of the guest clock),
# TCP_WINDOW (the streams' socket buffers, iperf3 -w; empty: autotuned),
# NIC_STREAM_RUNS (the runs of each stream over the NIC).

# shellcheck source=/dev/null
. /etc/nkbench/params
missing=""
for p in MODE LABEL ROUNDS DURATION OMIT RR_DURATION UDP_DURATION UDP_SIZE SCALE_N TOPOS \
	WORKLOADS ISOLATE PROFILE PROFILE_WORKLOADS PROFILE_PERIOD CLOCK ICOUNT NIC_MAC0 NIC_MAC1 NIC_TXTIMER \
	TCP_WINDOW NIC_STREAM_RUNS; do
	eval "[ -n \"\${$p+set}\" ]" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "NKBENCH error topo=params what=/etc/nkbench/params does not set$missing"
	exit 1
fi

B=/bench
PIN=/sys/fs/bpf/nkbench
RAW=/dev/ttyS1
OUT=/tmp/nkbench.out
IPERF_PORT=5201
# iperf3's -w for every stream (the client's send buffer, the server's
# receive buffer), measured and profiled alike
WIN=""
[ -z "$TCP_WINDOW" ] || WIN="-w $TCP_WINDOW"
SOCKPERF_PORT=11111
UDP_PORT=12222
UDP_WINDOW=32
failed=""
pids=""

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "nkbench: $*"; }

# raw TAG FILE: the raw output of a tool, framed, on the raw port
raw() {
	{
		echo "=== $1"
		cat "$2"
		echo "=== end"
	} >"$RAW" 2>/dev/null
}

# fail TOPO WHAT [FILE]: record a failure of TOPO; show FILE's tail
fail() {
	echo "NKBENCH error topo=$1 what=$2"
	[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 15 "$3" | sed 's/^/    | /'
	case " $failed " in *" $1 "*) ;; *) failed="$failed $1" ;; esac
}

# netns NAME: a namespace with lo up and no IPv6
netns() {
	ip netns add "$1" &&
		ip netns exec "$1" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 &&
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' &&
		ip -n "$1" link set lo up
}

mac_of() { cat "/sys/class/net/$1/address"; }

devices() {
	for d in /sys/class/net/*; do printf '%s ' "${d##*/}"; done
}

# nic_of MAC: the name of the device with that MAC (empty: none)
nic_of() {
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && echo "${d##*/}" && return
	done
}

# The host forwards nothing in the BPF topologies: IP ForwDatagrams of the
# initial namespace, read around every measurement.
forwarded() { awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { print $7 }' /proc/net/snmp; }

# ---- topologies -------------------------------------------------------------
# topo_ends TOPO: sets CLI (client netns, "-" = initial) SRV (server netns),
# ADDR (server address), CADDR (client address) and ONNIC (1 when the
# topology's packets cross the NIC).
topo_ends() {
	case $1 in
	lo) CLI=nb-lo SRV=nb-lo ADDR=127.0.0.1 CADDR=127.0.0.1 ;;
	veth-pair) CLI=- SRV=nb-vp ADDR=10.10.0.2 CADDR=10.10.0.1 ;;
	netkit-pair) CLI=- SRV=nb-np ADDR=10.11.0.2 CADDR=10.11.0.1 ;;
	veth-routed) CLI=nb-vra SRV=nb-vrb ADDR=10.20.2.2 CADDR=10.20.1.2 ;;
	netkit-routed) CLI=nb-nra SRV=nb-nrb ADDR=10.21.2.2 CADDR=10.21.1.2 ;;
	veth-bpf) CLI=nb-vba SRV=nb-vbb ADDR=10.30.2.2 CADDR=10.30.1.2 ;;
	netkit-bpf) CLI=nb-nba SRV=nb-nbb ADDR=10.31.2.2 CADDR=10.31.1.2 ;;
	veth-phys) CLI=nb-vy SRV=nb-vyr ADDR=10.60.0.2 CADDR=10.60.1.2 ;;
	veth-phys-clsact) CLI=nb-vc SRV=nb-vcr ADDR=10.63.0.2 CADDR=10.63.1.2 ;;
	netkit-phys) CLI=nb-ny SRV=nb-nyr ADDR=10.61.0.2 CADDR=10.61.1.2 ;;
	netkit-phys-headroom) CLI=nb-nh SRV=nb-nhr ADDR=10.65.0.2 CADDR=10.65.1.2 ;;
	netkit-phys-route) CLI=nb-nz SRV=nb-nzr ADDR=10.64.0.2 CADDR=10.64.1.2 ;;
	host-phys) CLI=- SRV=nb-hyr ADDR=10.62.0.2 CADDR=10.62.0.1 ;;
	netkit-vphys) CLI=nb-nx SRV=nb-nxr ADDR=10.51.0.2 CADDR=10.51.1.2 ;;
	*) return 1 ;;
	esac
	case $1 in
	veth-phys* | netkit-phys* | host-phys) ONNIC=1 ;;
	*) ONNIC="" ;;
	esac
}

# in NS CMD...: run CMD in NS ("-" = the initial namespace)
in_ns() {
	ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# veth_pod NS HOSTDEV PODDEV: a veth pair, PODDEV moved into the new NS
veth_pod() {
	netns "$1" &&
		ip link add "$2" mtu 1500 type veth peer name "$3" mtu 1500 netns "$1" &&
		ip link set "$2" up && ip -n "$1" link set "$3" up
}

# netkit_pod NS PRIMARY PEER: a netkit pair (L3, pass/pass), PEER in NS
netkit_pod() {
	# shellcheck disable=SC2086 # $4, the headroom, is no word or one
	netns "$1" && nkbench netkit-pair "$2" "$3" $4 &&
		ip link set "$3" netns "$1" &&
		ip link set "$2" mtu 1500 up && ip -n "$1" link set "$3" mtu 1500 up
}

setup_lo() {
	netns nb-lo && ip -n nb-lo link set lo mtu 1500
}

setup_veth_pair() {
	veth_pod nb-vp vp-h vp-p &&
		ip addr add 10.10.0.1/24 dev vp-h &&
		ip -n nb-vp addr add 10.10.0.2/24 dev vp-p
}

setup_netkit_pair() {
	netkit_pod nb-np np-h np-p &&
		ip addr add 10.11.0.1/24 dev np-h &&
		ip -n nb-np addr add 10.11.0.2/24 dev np-p
}

setup_veth_routed() {
	veth_pod nb-vra vra-h vra-p && veth_pod nb-vrb vrb-h vrb-p &&
		ip addr add 10.20.1.1/24 dev vra-h &&
		ip addr add 10.20.2.1/24 dev vrb-h &&
		ip -n nb-vra addr add 10.20.1.2/24 dev vra-p &&
		ip -n nb-vrb addr add 10.20.2.2/24 dev vrb-p &&
		ip -n nb-vra route add default via 10.20.1.1 &&
		ip -n nb-vrb route add default via 10.20.2.1
}

# netkit L3: no MAC, no ARP; the host routes each pod's /32 to its primary.
setup_netkit_routed() {
	netkit_pod nb-nra nra-h nra-p && netkit_pod nb-nrb nrb-h nrb-p &&
		ip -n nb-nra addr add 10.21.1.2/32 dev nra-p &&
		ip -n nb-nrb addr add 10.21.2.2/32 dev nrb-p &&
		ip -n nb-nra route add default dev nra-p &&
		ip -n nb-nrb route add default dev nrb-p &&
		ip route add 10.21.1.2/32 dev nra-h &&
		ip route add 10.21.2.2/32 dev nrb-h
}

# The pods' gateway is the host-side veth's MAC (a permanent neighbour, as
# Cilium sets it up), so the redirected packets arrive as PACKET_HOST; the
# host side has no address and no route to the pods.
setup_veth_bpf() {
	veth_pod nb-vba vba-h vba-p && veth_pod nb-vbb vbb-h vbb-p &&
		ip -n nb-vba addr add 10.30.1.2/32 dev vba-p &&
		ip -n nb-vbb addr add 10.30.2.2/32 dev vbb-p &&
		ip -n nb-vba route add 169.254.0.1/32 dev vba-p &&
		ip -n nb-vbb route add 169.254.0.1/32 dev vbb-p &&
		ip -n nb-vba neigh add 169.254.0.1 lladdr "$(mac_of vba-h)" dev vba-p nud permanent &&
		ip -n nb-vbb neigh add 169.254.0.1 lladdr "$(mac_of vbb-h)" dev vbb-p nud permanent &&
		ip -n nb-vba route add default via 169.254.0.1 dev vba-p &&
		ip -n nb-vbb route add default via 169.254.0.1 dev vbb-p &&
		nkbench tc-attach "$B/veth_redirect_peer.bpf.o" vba-h vbb-h &&
		nkbench tc-attach "$B/veth_redirect_peer.bpf.o" vbb-h vba-h
}

setup_netkit_bpf() {
	netkit_pod nb-nba nba-h nba-p && netkit_pod nb-nbb nbb-h nbb-p &&
		ip -n nb-nba addr add 10.31.1.2/32 dev nba-p &&
		ip -n nb-nbb addr add 10.31.2.2/32 dev nbb-p &&
		ip -n nb-nba route add default dev nba-p &&
		ip -n nb-nbb route add default dev nbb-p &&
		mkdir -p "$PIN" &&
		nkbench netkit-attach "$B/netkit_redirect.bpf.o" nba-h nbb-h "$PIN/nba" &&
		nkbench netkit-attach "$B/netkit_redirect.bpf.o" nbb-h nba-h "$PIN/nbb"
}

# phys_remote NS HOSTDEV REMDEV NET: the veth stand-in for the node's
# physical device and the remote host behind it (netkit-vphys): a veth
# pair, HOSTDEV in the initial namespace with NET.1/24, REMDEV in the
# remote's namespace NS with NET.2/24; the remote routes the pods' NET's
# next /24 back via NET.1.
phys_remote() {
	netns "$1" &&
		ip link add "$2" mtu 1500 type veth peer name "$3" mtu 1500 netns "$1" &&
		ip link set "$2" up && ip -n "$1" link set "$3" up &&
		ip addr add "$4.0.1/24" dev "$2" &&
		ip -n "$1" addr add "$4.0.2/24" dev "$3" &&
		ip -n "$1" route add "$4.1.0/24" via "$4.0.1"
}

# phys_nic NS NET: the node's physical device, the real NIC nic0, in the
# initial namespace with NET.0.1/24, and the remote host behind its wire:
# the other NIC, nicr, moved into the remote's namespace NS with
# NET.0.2/24; the remote routes the pods' NET.1.0/24 back via NET.0.1.
# (teardown brings nicr back and both down.)
phys_nic() {
	if [ -z "$NIC" ]; then
		# shellcheck disable=SC2153 # NIC_MAC1 is /etc/nkbench/params'
		echo "no NIC: the guest has no virtio-net devices with MACs $NIC_MAC0 and $NIC_MAC1"
		return 1
	fi
	netns "$1" &&
		ip link set nicr netns "$1" &&
		ip link set nic0 mtu 1500 up && ip -n "$1" link set nicr mtu 1500 up &&
		ip addr add "$2.0.1/24" dev nic0 &&
		ip -n "$1" addr add "$2.0.2/24" dev nicr &&
		ip -n "$1" route add "$2.1.0/24" via "$2.0.1"
}

# veth_phys_pod NS PODDEV HOSTDEV NET: veth-phys' pod, NET.1.2/32, its
# gateway a permanent neighbour with the host-side MAC (as in veth-bpf).
veth_phys_pod() {
	veth_pod "$1" "$3" "$2" &&
		ip -n "$1" addr add "$4.1.2/32" dev "$2" &&
		ip -n "$1" route add 169.254.0.1/32 dev "$2" &&
		ip -n "$1" neigh add 169.254.0.1 lladdr "$(mac_of "$3")" dev "$2" nud permanent &&
		ip -n "$1" route add default via 169.254.0.1 dev "$2"
}

# The pod leaves through bpf_redirect_neigh() to the next hop the program
# knows (the remote, on the NIC's link) at tcx ingress of its host-side
# veth; the remote's packets for it come in at tcx ingress of the NIC,
# bpf_redirect_peer() into the pod's veth. The host has no route to the
# pod: its stack only answers the remote's ARP.
setup_veth_phys() {
	mkdir -p "$PIN" &&
		phys_nic nb-vyr 10.60 && veth_phys_pod nb-vy vy-p vy-h 10.60 &&
		nkbench tcx-attach "$B/redirect_neigh_nh.bpf.o" vy-h nic0 "$PIN/vy-out" 10.60.0.2 &&
		nkbench tcx-attach "$B/veth_redirect_peer.bpf.o" nic0 vy-h "$PIN/vy-in"
}

# veth-phys as a kernel without tcx runs it: the same programs at clsact
# ingress (cls_bpf, direct action) of the pod's host-side veth and of the
# NIC.
setup_veth_phys_clsact() {
	phys_nic nb-vcr 10.63 && veth_phys_pod nb-vc vc-p vc-h 10.63 &&
		nkbench tc-attach "$B/redirect_neigh_nh.bpf.o" vc-h nic0 10.63.0.2 &&
		nkbench tc-attach "$B/veth_redirect_peer.bpf.o" nic0 vc-h
}

# netkit_phys_pod NS PRIMARY PEER NET [HEADROOM]: a netkit pod, NET.1.2/32,
# the default route its device (L3); with HEADROOM, the pair's
# needed_headroom.
netkit_phys_pod() {
	netkit_pod "$1" "$2" "$3" "${5:-}" &&
		ip -n "$1" addr add "$4.1.2/32" dev "$3" &&
		ip -n "$1" route add default dev "$3"
}

# The pod leaves through bpf_redirect_neigh() from the peer hook, in its
# own device's xmit, to the next hop the program knows; inbound as in
# veth-phys, bpf_redirect_peer() into the netkit primary lands in its
# peer, the pod's device.
setup_netkit_phys() {
	mkdir -p "$PIN" &&
		phys_nic nb-nyr 10.61 && netkit_phys_pod nb-ny ny-h ny-p 10.61 &&
		nkbench netkit-attach "$B/redirect_neigh_nh.bpf.o" ny-h nic0 "$PIN/ny-out" 10.61.0.2 &&
		nkbench tcx-attach "$B/veth_redirect_peer.bpf.o" nic0 ny-h "$PIN/ny-in"
}

# netkit-phys with the pod's headroom for the NIC, as an agent sets it: the
# NIC's hard_header_len (ETH_HLEN 14) and needed_headroom (virtio_net's
# header, 12 bytes with VIRTIO_NET_F_MRG_RXBUF or VERSION_1) - neither is
# in rtnetlink's answers, so an agent knows them of the driver. An L3
# netkit device has no link-layer header of its own, so the pod's sockets
# reserve LL_RESERVED_SPACE(pod device) = 16 + (26 & ~15) = 32 bytes, what
# bpf_out_neigh_v4() asks for the NIC, ((14 + 12) & ~15) + 16; without it
# 16, and every packet is reallocated at the redirect.
NIC_HEADROOM=26
setup_netkit_phys_headroom() {
	mkdir -p "$PIN" &&
		phys_nic nb-nhr 10.65 && netkit_phys_pod nb-nh nh-h nh-p 10.65 $NIC_HEADROOM &&
		nkbench netkit-attach "$B/redirect_neigh_nh.bpf.o" nh-h nic0 "$PIN/nh-out" 10.65.0.2 &&
		nkbench tcx-attach "$B/veth_redirect_peer.bpf.o" nic0 nh-h "$PIN/nh-in"
}

# netkit-phys with the bench's first program: bpf_redirect_neigh() with no
# next hop, the helper's route lookup in the host namespace per packet.
setup_netkit_phys_route() {
	mkdir -p "$PIN" &&
		phys_nic nb-nzr 10.64 && netkit_phys_pod nb-nz nz-h nz-p 10.64 &&
		nkbench netkit-attach "$B/redirect_neigh.bpf.o" nz-h nic0 "$PIN/nz-out" &&
		nkbench tcx-attach "$B/veth_redirect_peer.bpf.o" nic0 nz-h "$PIN/nz-in"
}

# The host's own application (the client in the initial namespace) and the
# remote behind the same NIC: no pod, no program.
setup_host_phys() {
	phys_nic nb-hyr 10.62
}

# The first netkit-phys, as the bench had it before the NIC: the route
# lookup per packet, a veth pair as the stand-in for the physical device.
setup_netkit_vphys() {
	mkdir -p "$PIN" &&
		netkit_pod nb-nx nx-h nx-p && phys_remote nb-nxr nxe-h nxe-r 10.51 &&
		ip -n nb-nx addr add 10.51.1.2/32 dev nx-p &&
		ip -n nb-nx route add default dev nx-p &&
		nkbench netkit-attach "$B/redirect_neigh.bpf.o" nx-h nxe-h "$PIN/nx-out" &&
		nkbench tcx-attach "$B/veth_redirect_peer.bpf.o" nxe-h nx-h "$PIN/nx-in"
}

# Servers: iperf3 and sockperf in the server namespace, bound to ADDR;
# wait (bounded) until both listen.
start_servers() {
	topo_ends "$1"
	# (every server namespace is a netns of its own: ip execs the server,
	# so $! is the server's pid)
	ip netns exec "$SRV" iperf3 -s -4 -B "$ADDR" -p $IPERF_PORT >/dev/null 2>&1 &
	pids="$pids $!"
	ip netns exec "$SRV" taskset 1 sockperf server --tcp -i "$ADDR" -p $SOCKPERF_PORT >/dev/null 2>&1 &
	pids="$pids $!"
	ss_i=0
	while [ $ss_i -lt 100 ]; do
		ss_n=$(ip netns exec "$SRV" cat /proc/net/tcp |
			awk '$4 == "0A" && ($2 ~ /:1451$/ || $2 ~ /:2B67$/)' | wc -l)
		[ "$ss_n" -ge 2 ] && return 0
		sleep 0.2
		ss_i=$((ss_i + 1))
	done
	return 1
}

setup_topo() {
	st0=$(now)
	if ! case $1 in
		lo) setup_lo ;;
		veth-pair) setup_veth_pair ;;
		netkit-pair) setup_netkit_pair ;;
		veth-routed) setup_veth_routed ;;
		netkit-routed) setup_netkit_routed ;;
		veth-bpf) setup_veth_bpf ;;
		netkit-bpf) setup_netkit_bpf ;;
		veth-phys) setup_veth_phys ;;
		veth-phys-clsact) setup_veth_phys_clsact ;;
		netkit-phys) setup_netkit_phys ;;
		netkit-phys-headroom) setup_netkit_phys_headroom ;;
		netkit-phys-route) setup_netkit_phys_route ;;
		host-phys) setup_host_phys ;;
		netkit-vphys) setup_netkit_vphys ;;
		esac >"$OUT" 2>&1; then
		fail "$1" setup "$OUT"
		return 1
	fi
	# what the setup's tools said (nkbench netkit-pair: the headroom read back)
	[ ! -s "$OUT" ] || raw "setup topo=$1" "$OUT"
	if ! start_servers "$1"; then
		fail "$1" "servers did not start"
		return 1
	fi
	topo_ends "$1"
	ok=""
	for _ in 1 2 3; do
		if in_ns "$CLI" ping -c 1 -W 3 "$ADDR" >"$OUT" 2>&1; then
			ok=1
			break
		fi
	done
	if [ -z "$ok" ]; then
		fail "$1" "no traffic: ping $ADDR from ${CLI} failed" "$OUT"
		return 1
	fi
	echo "NKBENCH ready topo=$1 setup_s=$(since "$st0")"
}

# ---- workloads --------------------------------------------------------------
# softnet: receive rounds the CPUs made so far (/proc/net/softnet_stat's
# first column, softnet_data.processed: one per __netif_receive_skb_core()
# pass, a bpf_redirect_peer()'s another_round included)
softnet() {
	sn=0
	while read -r x _; do sn=$((sn + 0x$x)); done </proc/net/softnet_stat
	echo $sn
}

# idle0: CPU 0's idle ticks so far (/proc/stat, USER_HZ); under icount an
# idle CPU 0 would let the guest clock jump to the next timer
idle0() { awk '$1 == "cpu0" { print $5 + $6; exit }' /proc/stat; }

# nic_stat COUNTER: the node's NIC's counter (0 without a NIC)
nic_stat() {
	if [ -n "$NIC" ]; then cat "/sys/class/net/nic0/statistics/$1"; else echo 0; fi
}

# outsegs NS: TCP segments NS sent so far (/proc/net/snmp's Tcp OutSegs:
# one per MSS-sized segment, whatever GSO packs them in)
outsegs() {
	# shellcheck disable=SC2016 # awk's program
	in_ns "$1" awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $12 }' /proc/net/snmp
}

# ofo NS: TCP segments NS has received out of order so far
# (/proc/net/netstat's TcpExt TCPOFOQueue)
ofo() {
	# shellcheck disable=SC2016 # awk's program
	in_ns "$1" awk '$1 == "TcpExt:" { if (!c) { for (i = 2; i <= NF; i++) if ($i == "TCPOFOQueue") c = i }
		else { print $c; exit } }' /proc/net/netstat
}

# mark: remember the counters before a measurement; marked: their deltas,
# the node's NIC's packets each way among them (0 on the topologies
# without it)
mark() {
	f0=$(forwarded)
	sn0=$(softnet)
	id0=$(idle0)
	tx0=$(nic_stat tx_packets)
	rx0=$(nic_stat rx_packets)
}
marked() {
	echo "host_fwd=$(($(forwarded) - f0)) softnet=$(($(softnet) - sn0)) idle_ticks=$(($(idle0) - id0))" \
		"nic_tx=$(($(nic_stat tx_packets) - tx0)) nic_rx=$(($(nic_stat rx_packets) - rx0))"
}

# json_num FILE SECTION KEY: the first "KEY" after "SECTION" in iperf3's
# pretty-printed JSON
json_num() {
	awk -v s="\"$2\":" -v k="\"$3\":" '
		index($0, s) { f = 1 }
		f && index($0, k) { v = $0; sub(/.*:[ \t]*/, "", v); sub(/,.*/, "", v); print v; exit }' "$1"
}

# stream TOPO ROUND STREAMS: iperf3 with STREAMS parallel streams, over
# the NIC NIC_STREAM_RUNS times in a row (run=1.. on the result lines;
# the report takes the median run): a stream over the NIC does not cost
# the same per byte twice, even in the same guest
stream() {
	topo_ends "$1"
	runs=1
	[ -z "$ONNIC" ] || runs=$NIC_STREAM_RUNS
	run=1
	while [ $run -le "$runs" ]; do
		stream_run "$1" "$2" "$3" $run || return 0
		run=$((run + 1))
	done
}

# stream_run TOPO ROUND STREAMS RUN: one iperf3 run; false when it failed
stream_run() {
	w=tcp$3
	pin=""
	[ "$3" -eq 1 ] && pin="-A 0,0"
	sg0=$(outsegs "$CLI")
	ofo0=$(ofo "$SRV")
	mark
	rc=0
	for attempt in 1 2; do
		rc=0
		# shellcheck disable=SC2086 # $pin, $WIN: none or two words
		in_ns "$CLI" timeout $((DURATION + OMIT + 30)) iperf3 -4 -c "$ADDR" -p $IPERF_PORT \
			-t "$DURATION" -O "$OMIT" -P "$3" $pin $WIN -J --connect-timeout 5000 >"$OUT" 2>&1 || rc=$?
		raw "iperf3 round=$2 topo=$1 wl=$w run=$4 attempt=$attempt rc=$rc" "$OUT"
		[ $rc -eq 0 ] && break
		# iperf3's server can still be busy with the last test: once more
		sleep 1
	done
	bps=$(json_num "$OUT" sum_received bits_per_second)
	bytes=$(json_num "$OUT" sum_received bytes)
	secs=$(json_num "$OUT" sum_received seconds)
	retr=$(json_num "$OUT" sum_sent retransmits)
	# (the client's TCP segments over the whole run, the omitted seconds
	# and the control connection's few included; report.py sets them
	# against the bytes of all of iperf3's intervals in the raw JSON)
	segs=$(($(outsegs "$CLI") - sg0))
	# (the server's segments that came out of order: with retransmits, the
	# sign of a stream in loss recovery, whose cost is not the path's)
	ofos=$(($(ofo "$SRV") - ofo0))
	case $bps in
	'' | 0 | 0.0 | *[!0-9.e+]*)
		fail "$1" "iperf3 $w round $2 run $4: rc=$rc, no throughput" "$OUT"
		return 1
		;;
	esac
	echo "NKBENCH result round=$2 topo=$1 wl=$w run=$4 bps=$bps bytes=${bytes:-NA} seconds=${secs:-NA}" \
		"retransmits=${retr:-NA} ofo=$ofos segs=$segs $(marked)"
}

# rr TOPO ROUND
rr() {
	topo_ends "$1"
	mark
	rc=0
	in_ns "$CLI" timeout $((RR_DURATION + 30)) taskset 1 sockperf ping-pong --tcp -i "$ADDR" \
		-p $SOCKPERF_PORT -t "$RR_DURATION" --full-rtt >"$OUT.esc" 2>&1 || rc=$?
	# sockperf colours its output
	tr -d '\033' <"$OUT.esc" | sed 's/\[[0-9;]*m//g' >"$OUT"
	raw "sockperf round=$2 topo=$1 wl=rr rc=$rc" "$OUT"
	vd=$(grep 'Valid Duration' "$OUT" | tail -n 1)
	runtime=$(echo "$vd" | sed -n 's/.*RunTime=\([0-9.]*\).*/\1/p')
	recv=$(echo "$vd" | sed -n 's/.*ReceivedMessages=\([0-9]*\).*/\1/p')
	p50=$(sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p' "$OUT" | tail -n 1)
	p99=$(sed -n 's/.*percentile 99\.000 = *\([0-9.]*\).*/\1/p' "$OUT" | tail -n 1)
	avg=$(sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p' "$OUT" | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "$runtime" ] || [ -z "$recv" ] || [ "$recv" = 0 ] ||
		[ -z "$p50" ] || [ -z "$p99" ]; then
		fail "$1" "sockperf rr round $2: rc=$rc, no result" "$OUT"
		return
	fi
	echo "NKBENCH result round=$2 topo=$1 wl=rr runtime_s=$runtime recv_msgs=$recv avg_rtt_us=$avg" \
		"p50_rtt_us=$p50 p99_rtt_us=$p99 $(marked)"
}

# udp TOPO ROUND: UDP_SIZE-byte datagrams for UDP_DURATION seconds, client
# to server (wl=udp), then server to client (wl=udp-rev)
udp() {
	topo_ends "$1"
	for dir in udp udp-rev; do
		if [ $dir = udp ]; then
			set -- "$1" "$2" "$CLI" "$SRV" "$ADDR"
		else
			set -- "$1" "$2" "$SRV" "$CLI" "$CADDR"
		fi
		mark
		rc=0
		timeout $((${UDP_DURATION%.*} + 30)) nkbench udp "$3" "$4" "$5" $UDP_PORT "$UDP_SIZE" \
			"$UDP_DURATION" $UDP_WINDOW >"$OUT" 2>&1 || rc=$?
		raw "nkbench udp round=$2 topo=$1 wl=$dir rc=$rc" "$OUT"
		line=$(grep '^NKBENCH udp ' "$OUT")
		if [ $rc -ne 0 ] || [ -z "$line" ]; then
			fail "$1" "nkbench $dir round $2: rc=$rc, no result" "$OUT"
			continue
		fi
		echo "NKBENCH result round=$2 topo=$1 wl=$dir ${line#NKBENCH udp } size=$UDP_SIZE $(marked)"
	done
}

# rotate K WORDS...: WORDS rotated left by K (run in $(...))
rotate() {
	k=$(($1 % ($# - 1)))
	shift
	i=0
	for x in "$@"; do
		[ $i -ge "$k" ] && printf ' %s' "$x"
		i=$((i + 1))
	done
	i=0
	for x in "$@"; do
		[ $i -lt "$k" ] && printf ' %s' "$x"
		i=$((i + 1))
	done
}

# ---- profile -----------------------------------------------------------------
# profile TOPO: where the guest's CPUs spend one run of each workload on
# TOPO (perf record -a, cpu-clock sampling; TCG has no PMU).
# Runs after the measured rounds, so it disturbs none of them; prints the
# top symbols on the console and perf's report (with sample counts) on the
# raw port. Under CLOCK=icount the cpu-clock hrtimer runs on the guest
# clock, so a sample falls every PROFILE_PERIOD instructions (2^ICOUNT ns
# each): the report is an instruction profile; the workloads
# (PROFILE_WORKLOADS) are rr, udp (client to server) and tcp1, whose
# per-unit counts the rounds measured (tcp1: per TCP segment, the client
# namespace's OutSegs over the profiled run its units). The
# line carries the samples and the guest ns perf record ran, whose ratio
# shows the sampling is in guest time.
profile() {
	topo_ends "$1"
	pre=""
	[ "$CLI" = - ] || pre="ip netns exec $CLI"
	wls=$PROFILE_WORKLOADS
	ev="-F 997"
	[ -n "$PROFILE_PERIOD" ] && ev="-c $PROFILE_PERIOD"
	for w in $wls; do
		case $w in
		tcp1) cmd="$pre iperf3 -4 -c $ADDR -p $IPERF_PORT -t $DURATION -P 1 -A 0,0 $WIN" ;;
		tcp4) cmd="$pre iperf3 -4 -c $ADDR -p $IPERF_PORT -t $DURATION -P 4 $WIN" ;;
		rr) cmd="$pre taskset 1 sockperf ping-pong --tcp -i $ADDR -p $SOCKPERF_PORT -t $RR_DURATION" ;;
		udp) cmd="nkbench udp $CLI $SRV $ADDR $UDP_PORT $UDP_SIZE $UDP_DURATION $UDP_WINDOW" ;;
		esac
		s0=$(softnet)
		sg0=$(outsegs "$CLI")
		rm -f /tmp/perf.data
		pt0=$(nkbench now)
		# shellcheck disable=SC2086 # command lines
		if ! timeout $((DURATION + RR_DURATION + 60)) perf record -q -a -e cpu-clock $ev \
			-o /tmp/perf.data -- $cmd >"$OUT" 2>&1; then
			fail "$1" "perf record of $w failed" "$OUT"
			continue
		fi
		pt1=$(nkbench now)
		s1=$(softnet)
		# the units the profiled run moved: round trips, datagrams
		units=$(tr -d '\033' <"$OUT" | sed -n 's/.*ReceivedMessages=\([0-9]*\).*/\1/p; s/^NKBENCH udp packets=\([0-9]*\).*/\1/p' | tail -n 1)
		[ "$w" != tcp1 ] || units=$(($(outsegs "$CLI") - sg0))
		timeout 600 perf report -i /tmp/perf.data --stdio --no-children --sort sym -n \
			--percent-limit 0.01 2>&1 | grep -v '^ *$' >"$OUT.rep"
		raw "perf topo=$1 wl=$w" "$OUT.rep"
		# (perf's header rounds the total: the symbols' counts summed)
		samples=$(awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$OUT.rep")
		# The idle loop's share, and the busy symbols' shares of the busy
		# time (the idle vCPU would dilute them).
		top=$(awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); sym[++n] = $NF; pct[n] = p
				if ($NF ~ /^(__cpuidle_text_start|default_idle|native_safe_halt|cpu_idle_poll|poll_idle|mwait_idle|acpi_idle_do_entry|arch_cpu_idle)/) idle += p }
			END { printf "idle_pct=%.1f top=", idle
				for (i = 1; i <= n && k < 12; i++) {
					if (sym[i] ~ /^(__cpuidle_text_start|default_idle|native_safe_halt|cpu_idle_poll|poll_idle|mwait_idle|acpi_idle_do_entry|arch_cpu_idle)/) continue
					printf "%s%s:%.1f", (k++ ? "," : ""), sym[i], 100 * pct[i] / (100 - idle) } }' "$OUT.rep")
		echo "NKBENCH profile topo=$1 wl=$w softnet_processed=$((s1 - s0)) samples=${samples:-NA}" \
			"period=${PROFILE_PERIOD:-NA} record_ns=$((pt1 - pt0)) units=${units:-NA} $top"
	done
}

# ---- counters and teardown ----------------------------------------------------
# counters [TOPO]: the devices' and the stack's counters on the raw port
counters() {
	{
		echo "--- ip -s link, ip -s neigh (initial namespace)"
		ip -s link
		ip -s neigh
		for ns in $(ip netns list | cut -d' ' -f1); do
			echo "--- ip -s link, ip -s neigh (netns $ns)"
			ip -n "$ns" -s link
			ip -n "$ns" -s neigh
		done
		echo "--- /proc/net/snmp (initial namespace)"
		cat /proc/net/snmp
		echo "--- /proc/net/softnet_stat"
		cat /proc/net/softnet_stat
		if [ -n "$NIC" ]; then
			echo "--- the NIC: /proc/interrupts, virtio features, ethtool -i -k -S nic0"
			cat /proc/interrupts
			for v in /sys/bus/virtio/devices/*; do
				echo "$v: $(cat "$v/device" "$v/features" | tr '\n' ' ')"
			done
			ethtool -i nic0
			ethtool -k nic0
			ethtool -S nic0
		fi
	} >"$OUT" 2>&1
	raw "counters${1:+ topo=$1}" "$OUT"
}

# teardown: stop the servers, release the pinned links, delete every
# device and namespace the topologies made; fails when a device is left
teardown() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=""
	rm -rf "$PIN"
	for d in vp-h np-h vra-h vrb-h nra-h nrb-h vba-h vbb-h nba-h nbb-h vy-h vc-h ny-h nh-h \
		nz-h nx-h nxe-h; do
		[ -e "/sys/class/net/$d" ] && ip link del "$d"
	done
	# The remote's NIC back to the initial namespace (moving closes it),
	# the node's down, its addresses and neighbours gone: the next
	# topology finds both as the first did.
	for ns in $(ip netns list | cut -d' ' -f1); do
		ip -n "$ns" link show nicr >/dev/null 2>&1 && ip -n "$ns" link set nicr netns 1
		ip netns del "$ns"
	done
	if [ -n "$NIC" ]; then
		# (veth-phys-clsact's qdisc and filter would outlive it: the
		# next topology's packets from the remote would go to its gone pod)
		nkbench tc-detach nic0
		ip addr flush dev nic0
		ip link set nic0 down
	fi
	left=$(devices)
	if [ "$left" != "$DEVS0" ]; then
		fail teardown "devices left behind: $left"
	else
		echo "NKBENCH teardown ok"
	fi
}

# measure TOPO ROUND WL: one workload on one topology
measure() {
	case $3 in
	tcp1) stream "$1" "$2" 1 ;;
	tcp4) stream "$1" "$2" 4 ;;
	rr) rr "$1" "$2" ;;
	udp) udp "$1" "$2" ;;
	*) fail "$1" "unknown workload $3" ;;
	esac
}

# profiled TOPO: true when TOPO is to be profiled
profiled() {
	case " $PROFILE " in *" $1 "*) command -v perf >/dev/null ;; *) false ;; esac
}

# ---- main ---------------------------------------------------------------------
# The scale curve's kinds: veth, and netkit where nkbench was built for a
# kernel that has it.
kinds=veth
if nkbench has netkit; then kinds="veth netkit"; fi
T0=$(now)
# The NICs by their MACs: the node's is nic0, the remote's nicr.
NIC=""
if [ -n "$NIC_MAC0" ]; then
	n0=$(nic_of "$NIC_MAC0")
	n1=$(nic_of "$NIC_MAC1")
	if [ -n "$n0" ] && [ -n "$n1" ] && ip link set "$n0" name nic0 && ip link set "$n1" name nicr; then
		NIC=nic0
	else
		say "no NIC with MAC $NIC_MAC0 and $NIC_MAC1 (devices: $(devices)): the topologies over it fail"
	fi
fi
DEVS0=$(devices)
echo 1 >/proc/sys/net/ipv4/ip_forward
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
echo 1 >/proc/sys/net/core/bpf_jit_enable
# perf would lower its sample rate when the samples take more than 25 %
# of the time (under icount: of the instructions); keep the period
[ -z "$PROFILE" ] || echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
# shellcheck disable=SC2086 # word lists, joined with commas
echo "NKBENCH start mode=$MODE label=$LABEL clock=$CLOCK icount_shift=${ICOUNT:-none} rounds=$ROUNDS" \
	"duration=$DURATION omit=$OMIT tcp_window=${TCP_WINDOW:-auto} nic_stream_runs=$NIC_STREAM_RUNS udp_duration=$UDP_DURATION udp_size=$UDP_SIZE" \
	"profile_period=${PROFILE_PERIOD:-none} isolate=$ISOLATE" \
	"rr_duration=$RR_DURATION scale_n=$(echo $SCALE_N | tr ' ' ,)" \
	"topos=$(echo $TOPOS | tr ' ' ,) workloads=$(echo $WORKLOADS | tr ' ' ,)" \
	"profile=$(echo $PROFILE | tr ' ' ,) scale_kinds=$(echo $kinds | tr ' ' ,)" \
	"cpus=$(nproc) jit=$(cat /proc/sys/net/core/bpf_jit_enable) kernel=$(uname -r)" \
	"nic=$([ -n "$NIC" ] && basename "$(readlink /sys/class/net/nic0/device/driver)" || echo none)" \
	"nic_txtimer_ns=${NIC_TXTIMER:-none}" \
	"clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

known=""
for t in $TOPOS; do
	if topo_ends "$t"; then
		known="$known $t"
	else
		fail "$t" "unknown topology"
	fi
done

if [ "$ISOLATE" = yes ]; then
	# Each topology alone: set up, every workload, its profile after its
	# last round, its counters, torn down; the guest idles a second after
	# each teardown so that the namespaces' deferred cleanup is done
	# before the next topology is set up.
	r=1
	while [ $r -le "$ROUNDS" ]; do
		tr0=$(now)
		# shellcheck disable=SC2086 # word lists
		order=$(rotate $((r - 1)) $known)
		for t in $order; do
			if setup_topo "$t"; then
				for wl in $WORKLOADS; do measure "$t" $r "$wl"; done
				if [ $r -eq "$ROUNDS" ] && profiled "$t"; then profile "$t"; fi
				counters "$t"
			fi
			teardown
			sleep 1
		done
		say "round $r/$ROUNDS done in $(since "$tr0")s (order:$order, each alone)"
		r=$((r + 1))
	done
else
	ready=""
	for t in $known; do
		setup_topo "$t" && ready="$ready $t"
	done
	say "topologies ready:$ready ($(since "$T0")s)"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		tr0=$(now)
		# shellcheck disable=SC2086 # word lists
		order=$(rotate $((r - 1)) $ready)
		for wl in $WORKLOADS; do
			for t in $order; do measure "$t" $r "$wl"; done
		done
		say "round $r/$ROUNDS done in $(since "$tr0")s (order:$order)"
		r=$((r + 1))
	done
	if [ -n "$PROFILE" ]; then
		tp0=$(now)
		for t in $ready; do
			if profiled "$t"; then profile "$t"; fi
		done
		say "profiles done in $(since "$tp0")s"
	fi
	counters
	teardown
fi
say "throughput and latency done ($(since "$T0")s)"

for n in $SCALE_N; do
	for kind in $kinds; do
		ts=$(now)
		obj=$B/veth_redirect_peer.bpf.o
		[ "$kind" = netkit ] && obj=$B/netkit_redirect.bpf.o
		if timeout $((120 + n / 2)) nkbench scale "$kind" "$n" "$obj" >"$OUT" 2>&1; then
			grep '^NKBENCH scale' "$OUT"
			say "scale $kind n=$n: $(since "$ts")s"
		else
			fail "scale-$kind" "nkbench scale $kind $n failed" "$OUT"
		fi
	done
done

rc=0
[ -z "$failed" ] || rc=1
# shellcheck disable=SC2086 # trims the list
echo "NKBENCH done rc=$rc failed=$(echo $failed | tr ' ' ,) elapsed_s=$(since "$T0")"
exit $rc
