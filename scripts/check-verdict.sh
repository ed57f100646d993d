#!/usr/bin/env bash
# check-verdict: every guest of the project is judged by scripts/verdict.sh,
# also when it hangs. Plants a guest that prints a kernel oops and then
# hangs, and runs it through the real boot step of each kind of guest -
# make qemu-test's (select-tests.sh, run-qemu.sh, verdict.sh), a Debian
# stage's (scripts/debian/stage.sh), the bench's (bench/host/run.sh) and
# make regress's (scripts/slow/regress-run.sh) - each of which must fail
# and name both the timeout and the oops. Then the same steps with a
# guest that finishes cleanly must pass, so that the failures above are
# the plant's and not the setup's. And a guest that finishes but fails
# with nothing else to show (a guest test's non-zero exit with no "not
# ok" line, the bench guest's exit status 2) fails qemu-test and the
# bench, naming the exit status. The bench's QEMU gets the guest's NIC
# (two virtio-net devices on one hub) when the kernel has virtio-net.
#
# make qemu-test's boot step is also run for ARCH=arm64 and ARCH=s390x
# (their QEMU, machine and ports; the oops in that architecture's words).
#
# The planted guest is a stand-in for qemu-system-x86_64 (and -aarch64,
# -s390x) first on PATH: it writes what FAKE_CONSOLE and FAKE_RESULT hold
# to the two ports QEMU would have opened (two -serial files, or a
# -serial file and a file -chardev), then hangs (FAKE_HANG=1) or exits. Everything
# lives in a temporary BUILD; no kernel is built or booted. The applied
# tree (make apply) is needed for select-tests.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

step check-verdict
[ -d "$TREE/tools/testing/selftests/bpf/prog_tests" ] || die "no applied tree in $TREE; run: make apply"
for c in mke2fs debugfs cpio; do
	command -v "$c" >/dev/null || die "$c not found; run: make deps"
done
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
fakebin=$work/bin
mkdir -p "$fakebin"
cat >"$fakebin/qemu-system-x86_64" <<'EOF'
#!/usr/bin/env bash
# A stand-in for QEMU: the console and the result port (-serial file:
# ports, or a file -chardev) get the planted text; its arguments, one a
# line, go to FAKE_ARGV when that is set.
[ -z "${FAKE_ARGV:-}" ] || printf '%s\n' "$@" >"$FAKE_ARGV"
ports=()
while [ $# -gt 0 ]; do
	case $1 in
	-serial) ports+=("${2#file:}"); shift ;;
	-chardev) [[ $2 != file,*path=* ]] || ports+=("${2##*path=}"); shift ;;
	esac
	shift
done
printf '%b' "${FAKE_CONSOLE:-}" >>"${ports[0]}"
printf '%b' "${FAKE_RESULT:-}" >>"${ports[1]}"
[ "${FAKE_HANG:-}" != 1 ] || exec sleep 600
EOF
chmod +x "$fakebin/qemu-system-x86_64"
ln -s qemu-system-x86_64 "$fakebin/qemu-system-aarch64"
ln -s qemu-system-x86_64 "$fakebin/qemu-system-s390x"

B=$work/build
K=$B/kernel
mkdir -p "$K/arch/x86/boot" "$K/arch/arm64/boot" "$K/arch/s390/boot" "$K/include/config" "$B/bench" "$B/guest" "$B/deb"
for i in x86/boot/bzImage arm64/boot/Image s390/boot/bzImage; do
	echo 'not a kernel' >"$K/arch/$i"
done
printf 'CONFIG_NETKIT=y\nCONFIG_NET_XGRESS=y\nCONFIG_PCI=y\nCONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_NET=y\n' >"$K/.config"
echo '6.1.0-check' >"$K/include/config/kernel.release"
echo 'not an initramfs' >"$B/initramfs.cpio"
echo 'not an initramfs' >"$B/bench/initramfs.cpio"
for t in netkit-pair netkit-attach; do install -m 0755 /dev/null "$B/guest/$t"; done
touch "$B/deb/linux-image-6.1.0-check_1_amd64.deb" "$B/deb/linux-headers-6.1.0-check_1_amd64.deb"
# A Debian system as the stage sees it: an ext4 image with kernels in /boot.
mkdir -p "$work/rootfs/boot"
for r in 6.1.0-99-cloud-amd64 6.1.0-check; do
	echo "not a kernel" >"$work/rootfs/boot/vmlinuz-$r"
	echo "not an initrd" >"$work/rootfs/boot/initrd.img-$r"
done
mke2fs -q -t ext4 -L netkit-root -d "$work/rootfs" "$work/rootfs.img" 8M >/dev/null

ts='[    3.141592]'
oops="$ts BUG: kernel NULL pointer dereference, address: 0000000000000000\n$ts Oops: 0000 [#1] PREEMPT SMP\n"
# The same fault in arm64's and s390's words (the second line is what
# each must be named by).
declare -A arch_oops=(
	[arm64]="$ts Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000\n$ts Internal error: Oops: 0000000096000005 [#1] PREEMPT SMP\n"
	[s390x]="$ts Unable to handle kernel pointer dereference in virtual kernel address space\n$ts Oops: 0004 ilc:3 [#1] SMP\n"
)
declare -A oops_name=([arm64]='Internal error: Oops: ' [s390x]='Oops: 0004 ilc:3')

# boot KIND HANG: the boot step of KIND with the planted guest; its output
# in $work/KIND-HANG.out, its exit status returned.
boot() {
	local kind=$1 hang=$2 out=$work/$1-$2.out rc=0 arch=x86_64 oops=$oops
	case $kind in qemu-test-*) arch=${kind#qemu-test-} oops=${arch_oops[$arch]} ;; esac
	local -a env=(PATH="$fakebin:$PATH" BUILD="$B" RUN_DIR="$work/run-$kind-$hang" FAKE_HANG="$hang"
		T="" GUEST_MODE=auto CUT="" KCONFIG=test DEBUG="" ACCEL=tcg QEMU_CPU=max TCG_OPTS="" SMP=2 MEM=2G ARCH="$arch")
	case $kind in
	qemu-test | qemu-test-*)
		if [ "$hang" = 1 ]; then
			env+=(FAKE_CONSOLE="\nnetkit-6.1 guest: Linux 6.1.0-check\n$oops")
		elif [ "$hang" = 2 ]; then
			env+=(FAKE_CONSOLE="\nnetkit-6.1 guest: Linux 6.1.0-check\nSummary: 1/1 PASSED, 0 SKIPPED, 0 FAILED\n"
				FAKE_RESULT="NETKIT_TEST_PROGS rc=0\nNETKIT_GUEST netkit_stats rc=1\nNETKIT_DONE\n")
		else
			env+=(FAKE_CONSOLE="\nnetkit-6.1 guest: Linux 6.1.0-check\nSummary: 1/1 PASSED, 0 SKIPPED, 0 FAILED\n"
				FAKE_RESULT="NETKIT_TEST_PROGS rc=0\nNETKIT_DONE\n")
		fi
		# shellcheck disable=SC2016 # expanded by the shell it runs
		env TIMEOUT=3 "${env[@]}" GUEST_TESTS="$([ "$hang" != 2 ] || echo netkit_stats)" TEST_ARGS='-t tc_netkit' bash -c \
			'"$TOP/scripts/select-tests.sh" && "$TOP/scripts/run-qemu.sh" && "$TOP/scripts/verdict.sh"' >"$out" 2>&1 || rc=$?
		;;
	debian)
		if [ "$hang" = 1 ]; then
			env+=(FAKE_RESULT="netkit-6.1 deb-install-test: stage install on 6.1.0-99-cloud-amd64\n"
				FAKE_CONSOLE="$oops")
		else
			local checks='' n=0 r
			while IFS= read -r r; do
				n=$((n + 1))
				checks+="ok $n - ${r//\\/}\n"
			done < <(sed -n 's/^install	//p' "$TOP/qemu/debian/expect" | sed 's/\.\*/ x /g')
			env+=(FAKE_RESULT="netkit-6.1 deb-install-test: stage install on 6.1.0-99-cloud-amd64\n${checks}1..$n\nNETKIT_STAGE install rc=0\n")
		fi
		# shellcheck disable=SC2016 # expanded by the shell it runs
		env STAGE_TIMEOUT=3 IMAGE="$work/rootfs.img" "${env[@]}" bash -c \
			'"$TOP/scripts/debian/stage.sh" install && "$TOP/scripts/verdict.sh" "$BUILD/deb-install/install"' >"$out" 2>&1 || rc=$?
		;;
	bench)
		if [ "$hang" = 1 ]; then
			env+=(FAKE_CONSOLE="\nnkbench guest: Linux 6.1.0-check\n$oops")
		elif [ "$hang" = 2 ]; then
			env+=(FAKE_CONSOLE="\nnkbench guest: Linux 6.1.0-check\nsh: 0: cannot open /bench/x.sh: No such file\n" FAKE_RESULT="NKBENCH_RESULT rc=2\n")
		else
			env+=(FAKE_CONSOLE="\nnkbench guest: Linux 6.1.0-check\nNKBENCH start\n" FAKE_RESULT="NKBENCH_RESULT rc=0\n")
		fi
		env BENCH=smoke BENCH_TIMEOUT=3 BENCH_OUT="$work/run-bench-$hang" FAKE_ARGV="$work/bench-$hang.argv" "${env[@]}" \
			"$TOP/bench/host/run.sh" >"$out" 2>&1 || rc=$?
		;;
	regress)
		if [ "$hang" = 1 ]; then
			env+=(FAKE_CONSOLE="\nnetkit-6.1 guest: Linux 6.1.0-check\n$oops")
		else
			env+=(FAKE_CONSOLE="\nnetkit-6.1 guest: Linux 6.1.0-check\nSummary: 1/1 PASSED, 0 SKIPPED, 0 FAILED\n"
				FAKE_RESULT="NETKIT_TEST_PROGS rc=0\nNETKIT_DONE\n")
		fi
		env REGRESS_TIMEOUT=3 BASE_BUILD="$B" "${env[@]}" BUILD="$work/regress-$hang" \
			"$TOP/scripts/slow/regress-run.sh" base >"$out" 2>&1 || rc=$?
		;;
	esac
	return "$rc"
}

failed=()
for kind in qemu-test qemu-test-arm64 qemu-test-s390x debian bench regress; do
	name='BUG: kernel NULL pointer dereference'
	case $kind in qemu-test-*) name=${oops_name[${kind#qemu-test-}]} ;; esac
	if boot "$kind" 1; then
		failed+=("$kind: the planted hang with an oops passed ($work/$kind-1.out)")
	elif ! grep -q 'timeout: ' "$work/$kind-1.out" || ! grep -qF "$name" "$work/$kind-1.out"; then
		failed+=("$kind: failed without naming both the timeout and the oops:"$'\n'"$(tail -n 20 "$work/$kind-1.out")")
	else
		msg "$kind: a hang after an oops fails, naming both ($(grep -c . "$work/$kind-1.out") lines of output)"
	fi
	case $kind in
	qemu-test | qemu-test-*) quiet='guest test netkit_stats failed (exit 1)' ;;
	bench) quiet='the bench guest exited with status 2' ;;
	*) quiet='' ;;
	esac
	if [ -n "$quiet" ]; then
		if boot "$kind" 2; then
			failed+=("$kind: a guest that failed quietly passed ($work/$kind-2.out)")
		elif ! grep -qF "$quiet" "$work/$kind-2.out"; then
			failed+=("$kind: a guest that failed quietly failed without saying so:"$'\n'"$(tail -n 20 "$work/$kind-2.out")")
		else
			msg "$kind: a guest that fails with nothing else to show fails, naming its exit status"
		fi
	fi
	if ! boot "$kind" 0; then
		failed+=("$kind: a clean planted run failed, so the check above proves nothing:"$'\n'"$(tail -n 20 "$work/$kind-0.out")")
	else
		msg "$kind: a clean run passes"
	fi
	# The bench's guest gets its NIC (the kernel has virtio-net): two
	# virtio-net devices on one QEMU hub, each its own -netdev.
	if [ "$kind" = bench ]; then
		nics=$(grep -c '^virtio-net-pci,netdev=nkphys[01],mac=' "$work/bench-0.argv" || true)
		ports=$(grep -c '^hubport,id=nkphys[01],hubid=0$' "$work/bench-0.argv" || true)
		if [ "$nics" != 2 ] || [ "$ports" != 2 ]; then
			failed+=("bench: QEMU got $nics virtio-net devices and $ports hub ports, not 2 and 2 ($work/bench-0.argv)")
		else
			msg "bench: QEMU gets the guest's NIC, two virtio-net devices on one hub"
		fi
	fi
done
if [ "${#failed[@]}" -ne 0 ]; then
	printf '  - %s\n' "${failed[@]}" >&2
	trap - EXIT
	die "check-verdict failed; outputs kept in $work"
fi
step_done "qemu-test (x86_64, arm64, s390x), a Debian stage, the bench and make regress: a hang after an oops fails each, naming both"
