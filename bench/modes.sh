# shellcheck shell=bash
# The bench's modes: the one place that says what a bench run does by
# default. Sourced by bench/host/run.sh, which writes what it sets
# into the guest's /etc/nkbench/params, and by bench/host/report.sh
# (MODE, for the result directory); the guest (bench/guest/bench-guest.sh) has
# no defaults of its own, it gets every value in /etc/nkbench/params and
# refuses to run without one. The Makefile leaves BENCH and BENCH_CLOCK
# empty unless given, so that the defaults below are the only ones.
#
# bench_mode: from BENCH (full, smoke or kernels; default full) and
# BENCH_CLOCK (icount or wall; default icount) set MODE, CLOCK and the
# parameters below, each overridden by the BENCH_* variable of its name
# when that is set:
#   ROUNDS          rounds; every workload on every topology in each
#   DURATION OMIT   seconds of each iperf3 stream, after OMIT seconds it leaves out
#   TCP_WINDOW      the streams' socket buffers, iperf3 -w (the client's
#                   send buffer, the server's receive buffer; 256K in every
#                   mode; empty: the kernel's autotuning): a data centre's
#                   bandwidth-delay product, below the remote NIC's receive
#                   ring, so that no stream runs into the reordering and
#                   spurious retransmits that autotuning's ever larger
#                   window meets there (bench/README.md)
#   NIC_STREAM_RUNS the runs of each stream over the NIC, one after the
#                   other (kernels: 5, the report takes the median run; 1
#                   elsewhere): a stream over the NIC does not cost the
#                   same per byte twice, even in the same guest (up to
#                   2.5 % apart on 6.12, 0.3 % on the series,
#                   bench/README.md, "The runs of a stream over the NIC")
#   RR_DURATION     seconds of each sockperf ping-pong
#   UDP_DURATION    seconds of each UDP run, each way
#   UDP_SIZE        the UDP runs' datagram size, 64 bytes (not a knob: the
#                   reports' tables say "64 B")
#   WORKLOADS       tcp1 tcp4 rr udp (tcp4 only on the wall clock)
#   ISOLATE         yes: each topology alone (set up, measured, torn down,
#                   one after the other; the default of every mode: the
#                   guest has one NIC for the topologies over the physical
#                   device); no: all set up at once, the topologies
#                   interleaved in each round (at most one of them on the
#                   NIC)
#   PROFILE         topologies profiled with perf after their last round
#   PROFILE_WORKLOADS  the workloads each profiled topology runs under perf
#                   (icount: rr udp, whose units the profile is per; tcp1
#                   too when asked, per TCP segment; wall: tcp1 tcp4 rr)
#   PROFILE_PERIOD  perf's cpu-clock period in ns (icount: instructions)
#   SCALE_N         pair counts of the scale curve (empty: none)
#   TIMEOUT         seconds for the whole guest run
#   APPEND          more kernel arguments (tsc=reliable: under TCG the
#                   vCPUs' TSCs fail the kernel's sync check, and every
#                   clock read of the stack would be an HPET access,
#                   emulated MMIO under QEMU's global lock)
#   ICOUNT_SHIFT SEED SMP   icount only: -icount shift (2^shift ns per
#                   instruction), the guest's fixed random seed and RTC
#                   (random: the host's) and vCPUs (1: see bench/README.md)
# TOPOS, the topologies, defaults to every topology of bench/topologies
# that the kernel has (bench_topologies); the smoke mode's to six of them
# (MODE_TOPOS, those the kernel has): the two pairs, netkit with its
# program, and over the NIC netkit-phys, host-phys and veth-phys-clsact
# (whose teardown the next topology on the NIC depends on) - every
# topology alone with its own NIC setup costs about a minute under TCG,
# and make test's bench must stay short.
#
# Modes (icount): smoke is make test's (one round, short runs); full is
# two rounds, the profiles, the scale curve; kernels is make
# bench-kernels' run on each of its kernels: one round, the profiles of
# the paths its expectations are about (those the kernel has), from which
# bench/host/compare.py shows where two kernels differ. In every mode each
# topology is alone: the NIC serves one topology at a time, what one
# topology attaches (a tcx link, a clsact qdisc, their static keys) is not
# on the path of another, and every kernel runs each in the same state.

# shellcheck disable=SC2034 # the parameters are read by the scripts that source this file
bench_mode() {
	MODE=${BENCH:-full}
	CLOCK=${BENCH_CLOCK:-icount}
	local d_rounds d_duration d_omit d_rr d_udp d_workloads d_isolate=yes d_profile=""
	local d_period=50000 d_scale d_timeout d_topos="" d_pwl="rr udp" d_nicruns=1
	case $MODE/$CLOCK in
	full/wall)
		d_rounds=5 d_duration=5 d_omit=1 d_rr=5 d_udp=2 d_scale="10 100 1000" d_timeout=1800
		d_profile="lo netkit-pair veth-bpf netkit-bpf" d_workloads="tcp1 tcp4 rr udp" d_period=""
		d_pwl="tcp1 tcp4 rr"
		;;
	smoke/wall)
		d_rounds=1 d_duration=1 d_omit=0 d_rr=1 d_udp=0.5 d_scale="10" d_timeout=300
		d_workloads="tcp1 tcp4 rr udp" d_period="" d_pwl="tcp1 tcp4 rr"
		;;
	full/icount)
		d_rounds=2 d_duration=2 d_omit=1 d_rr=2 d_udp=1 d_scale="10 100 1000" d_timeout=3600
		d_profile="lo veth-pair netkit-pair veth-bpf netkit-bpf veth-phys netkit-phys netkit-phys-headroom host-phys"
		d_workloads="tcp1 rr udp"
		;;
	smoke/icount)
		d_rounds=1 d_duration=1 d_omit=0 d_rr=1 d_udp=0.2 d_scale="10" d_timeout=900
		d_workloads="tcp1 rr udp"
		d_topos="veth-pair netkit-pair netkit-bpf veth-phys-clsact netkit-phys host-phys"
		;;
	kernels/icount)
		# 4 s streams: the per-byte cells over the NIC, where the ACKs'
		# batching varies most, from twice as many bytes as full's.
		d_rounds=1 d_duration=4 d_omit=1 d_rr=2 d_udp=1 d_scale="" d_timeout=7200 d_nicruns=5
		d_workloads="tcp1 rr udp"
		d_profile="lo veth-pair veth-bpf netkit-pair netkit-bpf netkit-phys netkit-phys-headroom host-phys"
		;;
	kernels/wall) die "BENCH=kernels compares instruction counts: it needs BENCH_CLOCK=icount" ;;
	*/wall | */icount) die "BENCH must be full, smoke or kernels, not '$MODE'" ;;
	*) die "BENCH_CLOCK must be icount or wall, not '$CLOCK'" ;;
	esac
	ROUNDS=${BENCH_ROUNDS:-$d_rounds}
	DURATION=${BENCH_DURATION:-$d_duration}
	TCP_WINDOW=${BENCH_TCP_WINDOW-256K}
	NIC_STREAM_RUNS=${BENCH_NIC_STREAM_RUNS:-$d_nicruns}
	OMIT=${BENCH_OMIT:-$d_omit}
	RR_DURATION=${BENCH_RR_DURATION:-$d_rr}
	UDP_DURATION=${BENCH_UDP_DURATION:-$d_udp}
	UDP_SIZE=64
	WORKLOADS=${BENCH_WORKLOADS:-$d_workloads}
	MODE_TOPOS=$d_topos
	ISOLATE=${BENCH_ISOLATE:-$d_isolate}
	PROFILE=${BENCH_PROFILE-$d_profile}
	PROFILE_WORKLOADS=${BENCH_PROFILE_WORKLOADS:-$d_pwl}
	PROFILE_PERIOD=${BENCH_PROFILE_PERIOD-$d_period}
	SCALE_N=${BENCH_SCALE_N-$d_scale}
	TIMEOUT=${BENCH_TIMEOUT:-$d_timeout}
	APPEND=${BENCH_APPEND-tsc=reliable}
	ICOUNT_SHIFT="" SEED="" SMP_GUEST=${SMP:-2}
	if [ "$CLOCK" = icount ]; then
		ICOUNT_SHIFT=${BENCH_ICOUNT_SHIFT:-0}
		SEED=${BENCH_SEED:-1}
		[ "$SEED" != random ] || SEED=""
		SMP_GUEST=${BENCH_SMP:-1}
	fi
	local v
	for v in ROUNDS DURATION OMIT RR_DURATION TIMEOUT NIC_STREAM_RUNS; do
		[[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a number, not '${!v}'"
	done
	[ "$ROUNDS" -ge 1 ] || die "BENCH_ROUNDS must be at least 1"
	[ "$NIC_STREAM_RUNS" -ge 1 ] || die "BENCH_NIC_STREAM_RUNS must be at least 1"
	[[ $TCP_WINDOW =~ ^([1-9][0-9]*[KM]?)?$ ]] ||
		die "BENCH_TCP_WINDOW must be a size for iperf3 -w (256K, 1M, 65536) or empty, not '$TCP_WINDOW'"
	[[ $UDP_DURATION =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_UDP_DURATION must be a number, not '$UDP_DURATION'"
	[[ $PROFILE_PERIOD =~ ^[0-9]*$ ]] || die "BENCH_PROFILE_PERIOD must be a number, not '$PROFILE_PERIOD'"
	case $ISOLATE in yes | no) ;; *) die "BENCH_ISOLATE must be yes or no, not '$ISOLATE'" ;; esac
	for v in $PROFILE_WORKLOADS; do
		case $CLOCK/$v in
		icount/tcp1 | icount/rr | icount/udp | wall/tcp1 | wall/tcp4 | wall/rr) ;;
		*) die "BENCH_PROFILE_WORKLOADS: '$v' is no workload the $CLOCK clock profiles (icount: tcp1 rr udp; wall: tcp1 tcp4 rr)" ;;
		esac
	done
}

# bench_topologies HAVE: the topologies of bench/topologies whose needs
# are all in HAVE (words: netkit, tcx, nic), in the file's order.
bench_topologies() {
	awk -v have=" $1 " '
		/^#/ || NF < 3 { next }
		{ n = split($2, need, ","); ok = 1
		  for (i = 1; i <= n; i++) if (need[i] != "-" && index(have, " " need[i] " ") == 0) ok = 0
		  if (ok) printf "%s%s", (k++ ? " " : ""), $1 }
		END { print "" }' "$TOP/bench/topologies"
}

# bench_topology_needs TOPO: what TOPO needs ("-", "netkit", "netkit,tcx",
# "tcx,nic", ...), empty for an unknown topology.
bench_topology_needs() {
	awk -v t="$1" '!/^#/ && $1 == t { print $2 }' "$TOP/bench/topologies"
}
