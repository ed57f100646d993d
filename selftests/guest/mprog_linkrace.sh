#!/bin/sh
# area: netkit tcx
# order: 90
# smoke: 1 s per case instead of 3
# mprog_linkrace: the last reference of a link, pin, device, netns or
# qdisc dropped while a bpf_mprog operation holds a reference on it with
# rtnl held (mprog-linkrace.c). On 6.1 before ab5d47bd41b1
# (prereq/0001) a relative attach's put of its anchor link could be the
# last, run the link's release inline and take rtnl a second time: the
# task deadlocked on itself. Both vCPUs race for a few seconds per case;
# a thread that stops making progress is reported within seconds, with
# its kernel stack, and the guest's remaining tests are skipped (whatever
# holds rtnl would hang them too). One case races a pair's delete with
# frames sent out of its primary (devdel-xmit): the delete clears the
# peer pointers before it closes the devices, and a frame sent in between
# must be dropped, not followed to a peer that is gone. Another detaches
# a program while a frame is still in the one before it
# (detach-inflight): a detach that returns before the frames running the
# old program list are done lets the next attach rewrite that list under
# the frame, which then runs a program twice.
#
# The netkit cases run when the netkit area is selected, the tcx cases
# with tcx (guest lib.sh's in_areas). Env: NETKIT_LINKRACE_SECONDS (per
# case, default 3, 1 in the smoke form), NETKIT_LINKRACE_HANG (seconds
# without progress that count as a hang; default 5, or 30 on a
# debug kernel), NETKIT_LINKRACE_SEED, NETKIT_LINKRACE_CASES (a comma
# list of mprog-linkrace -l's cases; default all). On the kernel command
# line (make qemu-test CMDLINE='NETKIT_LINKRACE_SEED=...') they reach the
# guest's environment.
#
# Runs in the test guest as root; its output is a TAP stream, one numbered
# "ok"/"not ok" line per check (guest lib.sh), mprog-linkrace's own lines
# as diagnostics, and it exits KSFT_FAIL if any check failed, else
# KSFT_PASS. A wedged kernel is a failed check; the test then leaves
# guest lib.sh's wedged marker, so that /init runs no further test.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ -n "$smoke" ]; then
	seconds=${NETKIT_LINKRACE_SECONDS:-1}
else
	seconds=${NETKIT_LINKRACE_SECONDS:-3}
fi
if [ -e /sys/kernel/debug/kmemleak ]; then
	hang=${NETKIT_LINKRACE_HANG:-30}
else
	hang=${NETKIT_LINKRACE_HANG:-5}
fi
# The kinds of the areas selected; tcx's where the kernel carries tcx (its
# helper is built then).
kinds=
in_areas netkit && kinds=netkit
if in_areas tcx; then
	if command -v tcx-attach >/dev/null; then
		kinds=${kinds:+$kinds,}tcx
	else
		skip "mprog-linkrace: the tcx cases" "this kernel does not carry tcx (no tcx-attach)"
	fi
fi
if [ -z "$kinds" ]; then
	expect "a kind to race in the areas selected ($areas) on this kernel" 1
	tap_finish
fi
echo "# kinds: $kinds; $seconds s per case; a hang after $hang s without progress"

cpus=$(nproc)
[ "$cpus" -ge 2 ]
expect "two CPUs for the two racing threads ($cpus online)" $?

splat='WARNING:|BUG:|Oops|refcount_t|unregister_netdevice: waiting|KASAN|INFO: task .* blocked|possible recursive locking|circular locking'
marker="mprog_linkrace: start $$ $(cut -d' ' -f1 /proc/uptime)"
echo "$marker" >/dev/kmsg

# mprog-linkrace's exit status when a thread made no progress: it leaves
# that thread behind, stuck in the kernel (mprog-linkrace.c).
LINKRACE_WEDGED=3
set -- -k "$kinds" -d "$seconds" -H "$hang"
[ -n "${NETKIT_LINKRACE_SEED:-}" ] && set -- "$@" -s "$NETKIT_LINKRACE_SEED"
[ -n "${NETKIT_LINKRACE_CASES:-}" ] && set -- "$@" -c "$NETKIT_LINKRACE_CASES"
diag_run mprog-linkrace "$@"
rc=$?
if [ "$rc" -eq "$LINKRACE_WEDGED" ]; then
	expect "mprog-linkrace: the kernel kept making progress" 1
	wedged "a mprog-linkrace thread is stuck in the kernel"
	tap_finish
fi
expect "mprog-linkrace: all its checks passed" "$rc"

expect_no_splat "$marker" "$splat" "no kernel warning, lockdep report or splat in dmesg during the run"
tap_finish
