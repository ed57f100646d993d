# shellcheck shell=bash
# Common helpers for the netkit-6.1 pipeline scripts. Sourced, not executed.
#
# Every script gets its paths from the environment that the Makefile exports
# (TOP, NETKIT_CACHE, TREE, BUILD, ...); the defaults below only matter when a
# script is run by hand.

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${NETKIT_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/netkit-6.1}"
: "${TREE:=$NETKIT_CACHE/linux}"
: "${BUILD:=$NETKIT_CACHE/build}"
: "${LINUX_TARBALL:=/usr/src/linux-source-6.1.tar.xz}"
: "${RUN_DIR:=$BUILD/qemu-test}"
# shellcheck disable=SC2034 # used by the scripts that source this file
LOGDIR="$BUILD/logs"
# shellcheck disable=SC2034
STAMPS="$BUILD/stamps"

msg() { printf '    %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The target architecture, the Makefile's ARCH: x86_64 (the default, built
# and booted natively), arm64 or s390x (cross-built with Debian's cross
# tool chain, the userland from Debian's packages of that architecture
# unpacked into a sysroot, booted under qemu-system-aarch64 or
# qemu-system-s390x; s390x is big-endian). What differs per
# architecture is said here, once:
#   ARCH_KBUILD    kbuild's ARCH
#   ARCH_SRC       the tree's arch/ directory (SRCARCH)
#   ARCH_CROSS     CROSS_COMPILE (empty: native)
#   ARCH_TRIPLET   the GNU triplet, Debian's multiarch directory name
#   ARCH_DEB       Debian's architecture name
#   ARCH_IMAGE     the kernel image QEMU boots, relative to the build
#   ARCH_QEMU      the QEMU binary, ARCH_QEMU_PKG its Debian package
#   ARCH_CONSOLE   the guest's console device (console=)
#   ARCH_REPORT    the device the guest's /init reports on (the host's
#                  result file; netkit.report= on the command line)
#   ARCH_SYSROOT   where the target's Debian packages are unpacked (empty:
#                  the host's own files are the target's)
#   ARCH_ELF       what readelf -h says of the target's Machine
#   ARCH_QEMU_USER QEMU's user-mode emulator of the target (qemu-user),
#                  for a target of the other byte order: the host's
#                  bpftool (6.1's libbpf) cannot link or read its BPF
#                  objects, the target's can (empty: not needed)
: "${ARCH:=x86_64}"
# shellcheck disable=SC2034 # used by the scripts that source this file
case $ARCH in
x86_64)
	ARCH_KBUILD=x86_64 ARCH_SRC=x86 ARCH_CROSS='' ARCH_TRIPLET=x86_64-linux-gnu ARCH_DEB=amd64
	ARCH_IMAGE=arch/x86/boot/bzImage ARCH_QEMU=qemu-system-x86_64 ARCH_QEMU_PKG=qemu-system-x86
	ARCH_CONSOLE=ttyS0 ARCH_REPORT=/dev/ttyS1 ARCH_SYSROOT='' ARCH_ELF=X86-64 ARCH_QEMU_USER=''
	;;
arm64)
	ARCH_KBUILD=arm64 ARCH_SRC=arm64 ARCH_CROSS=aarch64-linux-gnu- ARCH_TRIPLET=aarch64-linux-gnu ARCH_DEB=arm64
	ARCH_IMAGE=arch/arm64/boot/Image ARCH_QEMU=qemu-system-aarch64 ARCH_QEMU_PKG=qemu-system-arm
	ARCH_CONSOLE=ttyAMA0 ARCH_REPORT=/dev/hvc0 ARCH_SYSROOT=$NETKIT_CACHE/arm64/sysroot ARCH_ELF=AArch64 ARCH_QEMU_USER=''
	;;
s390x)
	ARCH_KBUILD=s390 ARCH_SRC=s390 ARCH_CROSS=s390x-linux-gnu- ARCH_TRIPLET=s390x-linux-gnu ARCH_DEB=s390x
	ARCH_IMAGE=arch/s390/boot/bzImage ARCH_QEMU=qemu-system-s390x ARCH_QEMU_PKG=qemu-system-misc
	ARCH_CONSOLE=ttysclp0 ARCH_REPORT=/dev/hvc0 ARCH_SYSROOT=$NETKIT_CACHE/s390x/sysroot ARCH_ELF='IBM S/390'
	ARCH_QEMU_USER=qemu-s390x
	;;
*) die "ARCH must be x86_64, arm64 or s390x, not '$ARCH'" ;;
esac
# shellcheck disable=SC2034 # used by the scripts that source this file
ARCH_CC=${ARCH_CROSS}gcc

# step NAME: announce a pipeline step and start its log, $LOG
# ($LOGDIR/NAME.log); step_done prints the step's elapsed time.
step() {
	STEP_NAME=$1
	STEP_START=$(date +%s)
	LOG="$LOGDIR/$1.log"
	mkdir -p "$LOGDIR"
	: >"$LOG"
	printf '==> %s\n' "$STEP_NAME"
}
step_done() {
	local note=${1:-done}
	printf '==> %s: %s (%ss)\n' "$STEP_NAME" "$note" "$(($(date +%s) - STEP_START))"
}

# run_logged LOG CMD...: run CMD with all output appended to LOG. On failure
# print the last 40 lines and the log's path, then exit non-zero.
run_logged() {
	local log=$1 rc=0
	shift
	mkdir -p "$(dirname "$log")"
	printf '+ %s\n' "$*" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail_with_log "$log" "'$*'" "$rc"
}

# fail_with_log LOG WHAT RC: show the tail of LOG and stop.
fail_with_log() {
	printf '\n---- last 40 lines of %s ----\n' "$1" >&2
	tail -n 40 "$1" >&2
	printf -- '---- end of log ----\n' >&2
	die "$2 failed (exit $3); full log: $1"
}

# Stamps: a step records the hash of its inputs and skips itself when the
# hash is unchanged and its outputs still exist.
stamp_read() { cat "$STAMPS/$1" 2>/dev/null || true; }
stamp_write() {
	mkdir -p "$STAMPS"
	printf '%s\n' "$2" >"$STAMPS/$1"
}
stamp_clear() { rm -f "$STAMPS/$1"; }

# hash_of ARGS...: a short digest of strings and file contents (files are
# read when ARG names an existing file, otherwise the string itself is used).
# A file counts by its name and content, not its directory, so that another
# checkout of the project (CI's clone) finds the same stamps.
hash_of() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			printf 'file %s\n' "${a##*/}"
			cat -- "$a"
		else
			printf 'str %s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# submake ARGS...: make for the kernel's and tools' own Makefiles, in an
# environment without this project's make state and variables. Run from
# our Makefile, MAKELEVEL > 0 would make the selftests' lib.mk leave OUTPUT
# empty, and names like TREE or BUILD must not leak into kbuild. The names
# are the Makefile's NETKIT_EXPORTS, the one list of what it exports (run
# by hand, a script has only what its caller set); KBUILD_VARS
# (kbuild_setup) goes onto kbuild's command line, not into its
# environment.
submake() {
	local v unset=(-u MAKELEVEL -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u NETKIT_EXPORTS -u KBUILD_VARS)
	for v in ${NETKIT_EXPORTS:-}; do
		unset+=(-u "$v")
	done
	env "${unset[@]}" make "$@"
}

tree_git() { git -C "$TREE" "$@"; }

# kselftest's exit codes (tools/testing/selftests/kselftest.h), which the
# guest tests exit with (selftests/guest/lib.sh) and the verdict reads.
# shellcheck disable=SC2034
KSFT_PASS=0 KSFT_FAIL=1 KSFT_XFAIL=2 KSFT_XPASS=3 KSFT_SKIP=4

# run_status RUN_DIR: how the guest run in RUN_DIR ended, as
# scripts/run-qemu.sh recorded it (finished, timeout, boot-timeout);
# empty without a record.
run_status() { sed -n 's/^status=//p' "$1/qemu" 2>/dev/null || true; }

# module_list NAME: the modules of configs/NAME, one per line, without
# its comments and blank lines. debian_modules: the tests' list
# (configs/debian.modules); debian_boot_modules: those a Debian system
# needs to boot the package from its disk (configs/debian-boot.modules).
module_list() { grep -vE '^[[:space:]]*(#|$)' "$TOP/configs/$1"; }
debian_modules() { module_list debian.modules; }
debian_boot_modules() { module_list debian-boot.modules; }

# Commits made by the harness get a fixed identity and, with
# --committer-date-is-author-date, reproducible object ids.
export GIT_COMMITTER_NAME="netkit-6.1 harness"
export GIT_COMMITTER_EMAIL="netkit-6.1@localhost"

# run_progress LOG WHAT CMD...: like run_logged for long commands; prints a
# progress line with the elapsed time and the number of objects compiled so
# far (lines of the log that start with CC/LD/..., or match PROGRESS_RE)
# every $PROGRESS seconds.
run_progress() {
	local log=$1 what=$2 pid rc=0 t0 n
	shift 2
	mkdir -p "$(dirname "$log")"
	printf '+ %s\n' "$*" >>"$log"
	t0=$(date +%s)
	"$@" >>"$log" 2>&1 &
	pid=$!
	while ! wait_for "$pid" "${PROGRESS:-60}"; do
		n=$(grep -cE "${PROGRESS_RE:-^ +(CC|CLANG|LD|AR|BTF|GEN|BINARY|TEST-OBJ|SKEL)}" "$log" || true)
		msg "$what: $((($(date +%s) - t0) / 60))m$((($(date +%s) - t0) % 60))s, $n steps logged"
	done
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || fail_with_log "$log" "$what" "$rc"
}

# wait_for PID SECONDS: true once PID has exited, false if it still runs
# after SECONDS.
wait_for() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}

# debian_config FLAVOUR: the path of Debian's config for the tree's
# version and FLAVOUR (cloud-amd64, amd64, ...), from the installed
# package linux-config-<major>.<minor> (make deps installs it).
debian_config() {
	local version pkg dir config
	version=$(sed -nE 's/^(VERSION|PATCHLEVEL) = ([0-9]+)$/\2/p' "$TREE/Makefile" | paste -sd.)
	pkg=linux-config-$version
	dir=/usr/src/$pkg
	[ -d "$dir" ] || die "$dir not found: Debian's kernel configs are in the package $pkg; run: make deps"
	config=$dir/config.amd64_none_$1.xz
	[ -f "$config" ] || die "no flavour '$1' in $pkg: $(
		find "$dir" -name 'config.amd64_none_*' -printf '%f ' | sed 's/config.amd64_none_//g; s/\.xz//g')"
	printf '%s\n' "$config"
}

# kbuild_setup OUT: KMAKE, the make command line of every kernel build of
# the project (the kernel step, make deb, make check-configs) for output
# directory OUT, and the environment that makes its builds reproducible.
# Two builds of one OUT must use the same line, or kbuild rebuilds all.
kbuild_setup() {
	local pahole_flags
	export CCACHE_DIR=${CCACHE_DIR:-$NETKIT_CACHE/ccache}
	# The build's identity is fixed, so that a relink makes the same image: the
	# build number too, which kbuild otherwise counts up in .version on every
	# link - and which is in linux_banner, whose char array's length is in the
	# BTF: at #9 -> #10 the BTF changed and the selftests step recompiled its
	# 498 BPF objects for a comment change (measured 2026-12-04).
	export KBUILD_BUILD_USER=netkit KBUILD_BUILD_HOST=qemu KBUILD_BUILD_VERSION=1
	# x86_64's line is the native one; a cross build (ARCH=arm64) adds
	# CROSS_COMPILE and compiles with the target's gcc.
	KMAKE=(submake -C "$TREE" O="$1" ARCH="$ARCH_KBUILD")
	[ -z "$ARCH_CROSS" ] || KMAKE+=(CROSS_COMPILE="$ARCH_CROSS")
	KMAKE+=(CC="ccache $ARCH_CC" HOSTCC="ccache gcc")
	# KBUILD_VARS: more make variables for kbuild, as NAME=VALUE words
	# (make coverage: the GCOV_PROFILE_<object>.o=y of the objects it
	# profiles, so that no Makefile of the tree is edited).
	local kv
	read -r -a kv <<<"${KBUILD_VARS:-}"
	KMAKE+=("${kv[@]}")
	# Debian's kernel is released as what its config says (6.1.y-netkit),
	# without the "+" kbuild appends for a git tree past its tag.
	[ "${KCONFIG:-test}" != debian ] || KMAKE+=(LOCALVERSION=)
	# pahole's -j (which the tree's pahole-flags.sh passes to pahole >= 1.22)
	# encodes BTF in threads and numbers the types in a different order on
	# every link (measured with Debian's pahole 1.24). Without it, BTF only
	# changes when the types do, and the selftests step can see that a kernel
	# change left the BTF alone and rebuild nothing (scripts/build-selftests.sh).
	# It costs ~3 s per vmlinux link.
	if [ -x "$TREE/scripts/pahole-flags.sh" ] && command -v pahole >/dev/null; then
		pahole_flags=$(cd "$TREE" && PAHOLE=pahole scripts/pahole-flags.sh)
		pahole_flags=$(sed -E 's/(^| )-j( |$)/\1/; s/  +/ /g; s/^ | $//g' <<<"$pahole_flags")
		KMAKE+=(PAHOLE_FLAGS="$pahole_flags")
	fi
	KBUILD_BUILD_TIMESTAMP=$(git -C "$TREE" log -1 --format=%cD)
	export KBUILD_BUILD_TIMESTAMP
}

# Kernel trouble as printk formats it, for every scan of a console or a
# journal (lines with the printk timestamp: the console also carries test
# output, which could quote these words): oopses, WARN, KASAN/UBSAN
# reports, lockdep and RCU-lockdep splats, sleeping in atomic context,
# stalls and lockups, and a stack dump on its own (x86 writes "Call
# Trace:", arm64 "Call trace:"). scripts/verdict.sh uses these for every
# guest, and hands them on to what scans elsewhere (make mutate's guest).
# shellcheck disable=SC2034 # used by the scripts that source this file
KERNEL_SPLAT_RE='\[ *[0-9]+\.[0-9]+\] .*(Kernel panic - |BUG: |Oops: |WARNING: |-+\[ cut here \]-+|general protection fault|kernel BUG at|UBSAN: |KASAN: |rcu_.*detected stalls|soft lockup|hard LOCKUP|Call [Tt]race:|scheduling while atomic|INFO: task .* blocked for more than)'
# Modules refused or tainting for their signature or symbol versions.
# shellcheck disable=SC2034
MODULE_PROBLEM_RE='\[ *[0-9]+\.[0-9]+\] .*(module verification failed|disagrees about version of symbol|Unknown symbol|no symbol version for|Invalid module format)'

# kernel_splats FILE [RE]: the lines of FILE (read as text, CRs dropped)
# that match RE (default KERNEL_SPLAT_RE), with their line numbers.
kernel_splats() {
	tr -d '\r' <"$1" | grep -a -nE "${2:-$KERNEL_SPLAT_RE}" || true
}
