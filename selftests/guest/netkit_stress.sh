#!/bin/sh
# area: netkit
# order: 60
# smoke: 200 iterations instead of 1000
# netkit_stress: netkit-stress on both vCPUs at once - netkit pairs made
# and deleted (L2/L3, pass/drop, peer in another netns given by
# IFLA_NET_NS_FD or moved there), programs and links attached, detached
# and updated at every position with expected revisions, devices and
# netns deleted under attached links (which must turn defunct: update
# ENOLINK, detach and close fine), while UDP traffic crosses another
# netkit pair. Every result is checked against what mainline's code
# returns; see netkit-stress.c.
#
# Env: NETKIT_STRESS_ITERATIONS (required iterations, default 1000, 200
# in the smoke form),
# NETKIT_STRESS_CAP (time cap in seconds; default 60, or 480 on a debug
# kernel, recognised by /sys/kernel/debug/kmemleak), NETKIT_STRESS_SEED.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), and it exits KSFT_FAIL if
# any check failed, else KSFT_PASS.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# Five checks, whatever happens: the CPUs, netkit-stress, the BPF object
# lists and expect_no_splat's two.
tap_plan 5

if [ -n "$smoke" ]; then
	iterations=${NETKIT_STRESS_ITERATIONS:-200}
	echo "# smoke form: $iterations iterations (the full test runs 1000)"
else
	iterations=${NETKIT_STRESS_ITERATIONS:-1000}
fi
if [ -e /sys/kernel/debug/kmemleak ]; then
	kernel=debug
	cap=${NETKIT_STRESS_CAP:-480}
else
	kernel=normal
	cap=${NETKIT_STRESS_CAP:-60}
fi
echo "# $kernel kernel: $iterations iterations required, time cap $cap s"

cpus=$(nproc)
[ "$cpus" -ge 2 ]
expect "two CPUs for the two workers ($cpus online)" $?

# The BPF object lists must be as before (bpftool checks what the program
# checked with GET_NEXT_ID; the program checks its namespaces for devices
# left behind), and the kernel must log no warning or splat meanwhile.
bpf_count() { bpftool "$1" show | grep -c '^[0-9]*: '; }
splat='WARNING:|BUG:|Oops|refcount_t|unregister_netdevice: waiting|KASAN|INFO: task .* blocked|kmemleak: .*new suspected'
marker="netkit_stress: start $$ $(cut -d' ' -f1 /proc/uptime)"
progs0=$(bpf_count prog)
links0=$(bpf_count link)
echo "$marker" >/dev/kmsg

set -- -n "$iterations" -t "$cap"
[ -n "${NETKIT_STRESS_SEED:-}" ] && set -- "$@" -s "$NETKIT_STRESS_SEED"
diag_run netkit-stress "$@"
expect "netkit-stress: all its checks passed" $?

[ "$(bpf_count prog)" = "$progs0" ] && [ "$(bpf_count link)" = "$links0" ]
expect "bpftool: as many programs ($progs0) and links ($links0) as before" $?
expect_no_splat "$marker" "$splat" "no kernel warning, BUG or splat in dmesg during the run"
tap_finish
