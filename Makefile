# netkit for Linux 6.1 LTS: the pipeline from Debian's linux-source-6.1 to a
# test_progs verdict in QEMU.
#
#   deps -> tree -> apply -> kernel -> selftests -> initramfs -> qemu-test
#
# Every step is a script in scripts/ that skips itself when its inputs did
# not change. 'make help' lists the targets and variables.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

NETKIT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/netkit-6.1
TREE ?= $(NETKIT_CACHE)/linux
BUILD ?= $(NETKIT_CACHE)/build
LINUX_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
# CUT=netkit: the series up to its last netkit follow-up, without
# patches/tcx/ - the supported netkit-only cut. CUT=<patch> (tcx/0006):
# the series up to and including that patch, as make check-positions
# walks it. Every cut is applied and built in one tree and build of their
# own, so that the full series' build stays warm (the first cut unpacks
# and builds everything once more; the next ones build what differs).
# Its default set: the test_progs tests of the areas the cut has (tc_netkit
# and tc_redirect before tcx/) and the guest tests of those areas.
CUT ?=
ifneq ($(CUT),)
# The folders of patches/series (prereq/ netkit/ ...): CUT=<folder>/<patch>.
CUT_FOLDERS := $(sort $(dir $(shell sed 's/\#.*//' '$(TOP)/patches/series')))
ifeq ($(filter netkit $(addsuffix %,$(CUT_FOLDERS)),$(CUT)),)
$(error CUT must be netkit, a patch of patches/series (CUT=tcx/0006) or empty, not '$(CUT)')
endif
TREE := $(NETKIT_CACHE)/cut/linux
BUILD := $(NETKIT_CACHE)/cut/build
AM_TREE := $(NETKIT_CACHE)/cut/am-worktree
endif
# Targets that work on the whole series refuse a cut.
ifneq ($(CUT),)
WHOLE_SERIES_GOALS := check test check-bisect check-positions check-arches cover-letter mbox regress regress-base abi-report coverage mutate
ifneq ($(filter $(WHOLE_SERIES_GOALS),$(MAKECMDGOALS)),)
$(error make $(filter $(WHOLE_SERIES_GOALS),$(MAKECMDGOALS)) works on the whole series; run it without CUT=$(CUT))
endif
endif
# T: the filter of test_progs tests and guest tests (empty: the default
# set, 'make help' prints it); scripts/select-tests.sh resolves it once
# into the run's selection record. TEST_ARGS and GUEST_TESTS, when given,
# override what it selects for test_progs and for the guest. GUEST_MODE:
# auto runs the guest tests that a test_progs term of T brings along in
# their smoke form, full or smoke sets all.
T ?=
GUEST_MODE ?= auto
TIMEOUT ?= 900
BOOT_TIMEOUT ?= 60
ACCEL ?= tcg
QEMU_CPU ?= max
TCG_OPTS ?=
SMP ?= 2
MEM ?= 2G
JOBS ?= $(shell nproc)
EXTRA_CONFIGS ?=
CMDLINE ?=

# DEBUG=1: the same pipeline on a debug kernel (configs/debug.config:
# KASAN, lockdep, kmemleak, ...) in its own BUILD, so that the normal
# build stays warm. The guest panics on the first WARN and scans for
# leaks after the tests; the verdict wants KASAN and kmemleak active.
DEBUG ?=
ifeq ($(DEBUG),1)
ifneq ($(CUT),)
$(error DEBUG=1 and CUT= cannot be combined)
endif
BUILD := $(NETKIT_CACHE)/build-debug
EXTRA_CONFIGS += $(TOP)/configs/debug.config
CMDLINE += panic_on_warn=1 kmemleak=on
TIMEOUT := 3600
BOOT_TIMEOUT := 180
else ifneq ($(DEBUG),)
$(error DEBUG must be 1 or empty, not '$(DEBUG)')
endif

# KCONFIG=debian: the same pipeline on Debian's own kernel config (the
# cloud flavour of linux-config-6.1 + configs/debian.config, trimmed to
# configs/debian.modules), the modules that list names staying modules,
# which the guest loads with modprobe; in its own BUILD.
# Slow (a distribution kernel): not part of make test.
KCONFIG ?= test
# make deb and make deb-install-test are always Debian's config.
ifneq ($(filter deb deb-install-test,$(MAKECMDGOALS)),)
override KCONFIG := debian
endif
ifeq ($(KCONFIG),debian)
ifneq ($(CUT)$(DEBUG),)
$(error KCONFIG=debian cannot be combined with CUT= or DEBUG=)
endif
BUILD := $(NETKIT_CACHE)/build-debian
TIMEOUT := 1800
BOOT_TIMEOUT := 120
else ifneq ($(KCONFIG),test)
$(error KCONFIG must be test or debian, not '$(KCONFIG)')
endif

# ARCH: the target architecture. x86_64 (the default) builds and boots
# natively. arm64 and s390x cross-build the same test kernel (plus
# configs/<arch>.config), selftests and initramfs with Debian's cross tool
# chain and boot them under TCG: qemu-system-aarch64's virt machine (-cpu
# max) or qemu-system-s390x's s390-ccw-virtio (big-endian: the BPF objects
# are bpfeb). make deps ARCH=<arch> installs the tool chain, QEMU and the
# target's -dev packages and unpacks the target's userland (busybox, ip,
# tc, their libraries) into NETKIT_CACHE/<arch>/sysroot. It builds in a
# tree of its own, a worktree of TREE at the applied series (the selftests
# build in the tree; make apply still applies to TREE), and in a BUILD of
# its own. Only the pipeline and the test kernel: not with CUT=, DEBUG=
# or KCONFIG=debian.
ARCH ?= x86_64
SERIES_TREE := $(TREE)
ifeq ($(ARCH),x86_64)
else ifneq ($(filter $(ARCH),arm64 s390x),)
ifneq ($(CUT)$(DEBUG)$(filter-out test,$(KCONFIG)),)
$(error ARCH=$(ARCH) runs the whole series on the test config: not with CUT=, DEBUG= or KCONFIG=debian)
endif
ARCH_GOALS := help deps tree apply kernel selftests initramfs qemu-test lint clean
ifneq ($(filter-out $(ARCH_GOALS),$(MAKECMDGOALS)),)
$(error ARCH=$(ARCH) has the pipeline ($(ARCH_GOALS)); make $(filter-out $(ARCH_GOALS),$(MAKECMDGOALS)) is x86_64's)
endif
ARCH_TREE ?= $(NETKIT_CACHE)/$(ARCH)/linux
override TREE := $(ARCH_TREE)
BUILD := $(NETKIT_CACHE)/build-$(ARCH)
# aarch64 and s390x under TCG on an x86 host run slower than x86_64 does.
TIMEOUT := 1800
BOOT_TIMEOUT := 120
else
$(error ARCH must be x86_64, arm64 or s390x, not '$(ARCH)')
endif

# RUN_DIR, a run's directory (its selection record, console, the guest's
# reports and QEMU's record, judged by scripts/verdict.sh), defaults to
# BUILD/qemu-test in scripts/lib.sh, and is passed on only when given.

# What the scripts get from here, in one list: lib.sh's submake keeps
# every one of them out of the kernel's and the tools' own makes. They
# are exported at the end of this file, after the last of them is
# defined: GNU make's export of a variable not yet defined defines it,
# empty, and a later "?=" then leaves it empty (BASE_TREE, BASE_BUILD,
# REGRESS_TIMEOUT and BENCH_CLOCK were, exported from here).
NETKIT_EXPORTS := TOP NETKIT_CACHE TREE SERIES_TREE BUILD AM_TREE KCONFIG LINUX_TARBALL ARCH \
	T GUEST_MODE TIMEOUT BOOT_TIMEOUT ACCEL QEMU_CPU TCG_OPTS SMP MEM JOBS EXTRA_CONFIGS \
	CMDLINE DEBUG CUT BASE_TREE BASE_BUILD REGRESS_TIMEOUT BENCH BENCH_CLOCK
AM_TREE ?= $(NETKIT_CACHE)/am-worktree

.DEFAULT_GOAL := help
.PHONY: help deps tree apply kernel selftests initramfs qemu-test \
	check check-bisect test lint cover-letter mbox reset-tree clean distclean

help:
	@echo 'netkit for Linux 6.1 LTS'
	@echo
	@echo 'Pipeline (each step runs the ones before it):'
	@echo '  deps        install the Debian packages the pipeline needs (apt-get)'
	@echo '  tree        unpack $(LINUX_TARBALL) into TREE as a git tree, tag base-<version>'
	@echo '  apply       reset TREE to the base tag and git am patches/series'
	@echo '  kernel      configure (tinyconfig + the fragments of scripts/build-kernel.sh) and build it'
	@echo '  selftests   build test_progs and bpftool from the patched tree'
	@echo '  initramfs   pack busybox, /init, test_progs, bpftool and ip into a cpio'
	@echo '  qemu-test   resolve T into BUILD/qemu-test/selection, boot under QEMU, run what it'
	@echo '              selects, judge the run (scripts/verdict.sh BUILD/qemu-test judges it again)'
	@echo
	@echo 'Tests:'
	@echo '  check       host-side checks: series applies, mails well formed, checkpatch, uapi,'
	@echo '              cover letter current, mbox (git am) and quilt apply, lint, every guest'"'"'s'
	@echo '              verdict on a planted hang (check-verdict.sh), docs true to the tree (check-docs.sh)'
	@echo '  test        check, then qemu-test, then bench BENCH=smoke: the project'"'"'s whole test (CI)'
	@echo '  lint        shellcheck every script, check the guest tests'"'"' headers (part of check)'
	@echo '  check-bisect  build what each patch touches at every position of the series (slow)'
	@echo '  check-positions  qemu-test at each position of POSITIONS (default: followup/0011 on)'
	@echo '              whose kernel or selftests change, as CUT=<patch>: a table (slow)'
	@echo '  regress     selftests/regress.list on the unpatched base and on the series, the'
	@echo '              difference: "regress: N new failures" (slow; base in NETKIT_CACHE/base)'
	@echo '  regress-base  the base'"'"'s side of regress alone: its kernel (base-kernel), test_progs, initramfs'
	@echo '  abi-report  symbol CRCs of the base and the series on Debian'"'"'s MODVERSIONS config, export'
	@echo '              by export: what changes for out-of-tree modules (slow; BUILD/abi/report.txt)'
	@echo '  qemu-test DEBUG=1  the tests on a KASAN/lockdep/kmemleak kernel (slow; own BUILD)'
	@echo '  qemu-test KCONFIG=debian  the tests on Debian'"'"'s cloud config, the modules of'
	@echo '              configs/debian.modules loaded by modprobe (slow; own BUILD)'
	@echo '  deb         that kernel as Debian packages (bindeb-pkg), then the package booted and'
	@echo '              tested: vmlinuz and modules from the unpacked .deb (slow; BUILD/deb)'
	@echo '  deb-install-test  a Debian 12 system (mmdebstrap) installs the packages of deb with apt,'
	@echo '              boots them through initramfs-tools and systemd, checks netkit, on-demand'
	@echo '              modules and a DKMS module, removes and reinstalls them (slow; BUILD/deb-install)'
	@echo '  check-configs  build the series under a matrix of configs (Debian cloud, ingress/act'
	@echo '              n/m/y, BPF_SYSCALL=n, NETKIT=n, JUMP_LABEL, PREEMPT, allmodconfig W=1) (slow)'
	@echo '  check-arches  the series'"'"' objects, libbpf and bpftool compiled for i386, armhf, arm64,'
	@echo '              ppc64el and s390x with W=1: no warning the base does not have (slow: about'
	@echo '              25 min cold, 15 with ARCHES_BASE=lazy, seconds unchanged; ARCHES picks some;'
	@echo '              table in NETKIT_CACHE/arches/table.txt)'
	@echo '  coverage    qemu-test on a gcov kernel (T, default: the default set; run in COV_RUN_DIR, judged'
	@echo '              by verdict.sh), then lcov'"'"'s line and branch coverage: HTML and summary in'
	@echo '              COV_BUILD/coverage; unrun lines explained in selftests/coverage-unrun.txt (slow)'
	@echo '  mutate      mutation analysis: generated mutants (schemata, one kernel that first passes'
	@echo '              qemu-test'"'"'s verdict), each judged by its area'"'"'s tests in QEMU; a held-out'
	@echo '              sample from a new seed (selftests/results/mutate-seeds), its score with a 95 % CI;'
	@echo '              MUT_BUILD/mutate-report.md; needs make coverage'"'"'s data (slow); a stopped'
	@echo '              round committed in selftests/results/mutate-round-<seed>/ goes on, no coverage'
	@echo '  mutate MUTATE_DEBUG=1  the RCU, lock and reference mutants on a debug schemata kernel (slow)'
	@echo '  bench       netkit vs veth datapath benchmark in QEMU on the built kernel: tables,'
	@echo '              CSV and chart in BUILD/bench/<mode> (BENCH=smoke: one short round, N=10)'
	@echo '  bench-kernels  the bench on the unpatched base, the series and mainline 6.12, one'
	@echo '              table of their instructions per unit (slow; BUILD/bench/kernels); its'
	@echo '              other two kernels alone: base-kernel, mainline-kernel (cold builds)'
	@echo '  bench-on-base, bench-on-series, bench-on-mainline  one kernel'"'"'s run of bench-kernels alone'
	@echo
	@echo 'Posting:'
	@echo '  cover-letter  refresh the shortlog, diffstat and count in patches/0000-cover-letter.patch'
	@echo '  mbox        write the thread (cover letter + [PATCH netkit-6.1 n/N]) to BUILD/netkit-6.1.mbox,'
	@echo '              signed off by you (git config user.name/user.email; refuses without)'
	@echo
	@echo 'Housekeeping:'
	@echo '  help        this text: the targets, the variables with their values, the guest tests'
	@echo '  reset-tree  discard hand edits in TREE and return it to the applied series'
	@echo '  clean       remove build products (BUILD); keeps the unpacked tree'
	@echo '  distclean   clean, and remove the unpacked tree and ccache (NETKIT_CACHE)'
	@echo
	@echo 'Variables (current value):'
	@echo '  NETKIT_CACHE  $(NETKIT_CACHE)'
	@echo '  ARCH          $(ARCH)   (x86_64, arm64 or s390x: cross-built, booted under qemu-system-aarch64'
	@echo '                or -s390x; the pipeline only, in its own TREE and BUILD; make deps ARCH=<arch> first)'
	@echo '  TREE          $(TREE)'
	@echo '  BUILD         $(BUILD)   (logs in BUILD/logs)'
	@echo "  RUN_DIR       $$(. scripts/lib.sh && echo "$$RUN_DIR")   (the run: selection, console.log, result, qemu)"
	@echo '  T             $(T)   (filter: comma-separated test_progs -t terms, guest test names and'
	@echo '                areas; a test_progs term also selects the guest tests of its area, e.g.'
	@echo '                T=tc_netkit: tc_netkit_* and the netkit guest tests (of mprog_linkrace, which'
	@echo '                tests netkit and tcx, the netkit part); empty: the default set,'
	@echo "                test_progs -t $$(scripts/select-tests.sh --default) and every guest test)"
	@echo '  TEST_ARGS     $(TEST_ARGS)   (when given: the whole test_progs argument list instead of T'"'"'s)'
	@echo '  GUEST_TESTS   $(GUEST_TESTS)   (when given: the guest tests instead of T'"'"'s; empty for none)'
	@echo '  GUEST_MODE    $(GUEST_MODE)   (auto: guest tests that a test_progs term of T brings along run in'
	@echo '                their smoke form, the others in full; full or smoke: all in that form)'
	@echo '  TIMEOUT       $(TIMEOUT)s for the whole guest run; BOOT_TIMEOUT $(BOOT_TIMEOUT)s until /init'
	@echo '  ACCEL         $(ACCEL)   (tcg; kvm is opt-in and may hang, the timeouts still apply)'
	@echo '  QEMU_CPU      $(QEMU_CPU)   (CPU model under TCG)'
	@echo '  TCG_OPTS      $(TCG_OPTS)   (extra -accel tcg options, e.g. tb-size=512)'
	@echo '  SMP, MEM      $(SMP), $(MEM)'
	@echo '  JOBS          $(JOBS)'
	@echo '  EXTRA_CONFIGS $(EXTRA_CONFIGS)   (more config fragments)'
	@echo '  CMDLINE       $(CMDLINE)   (more kernel command line for the guest)'
	@echo '  DEBUG         $(DEBUG)   (1: debug kernel, configs/debug.config, in NETKIT_CACHE/build-debug)'
	@echo '  KCONFIG       $(KCONFIG)   (debian: Debian'"'"'s cloud config, tested modules as modules, in NETKIT_CACHE/build-debian)'
	@echo '  CUT           $(CUT)   (netkit: the series without patches/tcx/; a patch: up to it; in NETKIT_CACHE/cut)'
	@echo '  COV_BUILD     $(COV_BUILD)   (make coverage'"'"'s gcov build; its run in COV_RUN_DIR $(COV_RUN_DIR))'
	@echo '  MUT_BUILD     $(MUT_BUILD)   (make mutate'"'"'s build; its worktree MUT_TREE $(MUT_TREE))'
	@echo '  MUTATE_SEED, MUTATE_MAX, MUTATE_PER_BOOT  $(MUTATE_SEED), $(MUTATE_MAX), $(MUTATE_PER_BOOT)   (make mutate'"'"'s sample: empty seed = the next unused, mutants per boot)'
	@echo '  MUTATE_REUSE_SEED, MUTATE_DEBUG  $(MUTATE_REUSE_SEED), $(MUTATE_DEBUG)   (1: judge a used seed again, an "after" score; 1: the debug operators on a debug kernel)'
	@echo '  MUTATE_JOBS   $(MUTATE_JOBS)   (make mutate: guests at a time)'
	@echo '  BENCH         $(BENCH)   (full, smoke or kernels; empty: full; the modes, their'
	@echo '                BENCH_* overrides and defaults: bench/modes.sh)'
	@echo '  BENCH_CLOCK   $(BENCH_CLOCK)   (icount: guest clock = instructions, 1 vCPU; wall: host time;'
	@echo '                empty: icount)'
	@echo '  BENCH_KERNELS $(BENCH_KERNELS)   (make bench-kernels: base, series, mainline)'
	@echo '  BENCH_JOBS    $(BENCH_JOBS)   (make bench-kernels: guests at a time)'
	@echo
	@echo 'Guest tests (selftests/guest/<name>.sh; each declares its areas in a "# area: ..." line):'
	@scripts/select-tests.sh --list | sed 's/^/  /'

deps:
	@scripts/install-deps.sh
ifneq ($(ARCH),x86_64)
	@scripts/install-deps.sh $(ARCH)
endif

tree: deps
	@TREE='$(SERIES_TREE)' scripts/prepare-tree.sh

# Another ARCH's tree: a worktree of the series' tree at the applied series.
apply: tree
	@TREE='$(SERIES_TREE)' scripts/apply-series.sh
ifneq ($(ARCH),x86_64)
	@scripts/arch-tree.sh
endif

kernel: apply
	@scripts/build-kernel.sh

selftests: kernel
	@scripts/build-selftests.sh

initramfs: selftests
	@scripts/make-initramfs.sh

# qemu-test: T resolved once into the run's selection record, the guest
# run recorded, the run judged - also after a timeout, whose console may
# hold the oops that caused it. Every guest of the project boots through
# scripts/run-qemu.sh and is judged by scripts/verdict.sh.
qemu-test: initramfs
	@scripts/select-tests.sh
	@scripts/run-qemu.sh
	@scripts/verdict.sh

check: apply
	@scripts/series/check-series.sh
	@scripts/series/check-posting.sh
	@scripts/series/check-uapi.sh
	@scripts/lint.sh
	@scripts/check-verdict.sh
	@python3 scripts/coverage/mutate.py selftest
	@scripts/check-docs.sh

check-bisect: kernel
	@scripts/slow/check-bisect.sh

# make check-positions: make qemu-test at each position of POSITIONS
# (default followup/0011 to the end) whose kernel, libbpf or selftests
# change, as CUT=<patch> in the cut's tree: a table in
# BUILD/positions/table.md. Slow: not part of make test.
.PHONY: check-positions
check-positions: deps
	@scripts/slow/check-positions.sh

# make check-configs: the series built (not booted) under a matrix of
# configs; a table config -> result. Slow: not part of make test.
.PHONY: check-configs
check-configs: kernel
	@scripts/slow/check-configs.sh

# make check-arches: the series' objects (and libbpf, bpftool) compiled
# with W=1 for the other architectures Debian ships 6.1 for, with
# Debian's cross compilers, on the base tag and on refs/netkit/applied
# in a worktree of its own (it never applies: run make apply first), and
# a warning the base does not have fails it. ARCHES picks some,
# ARCHES_BASE=lazy builds the base only where the series has warnings.
# Slow: not part of make test.
.PHONY: check-arches
check-arches: tree
	@scripts/install-deps.sh arches
	@scripts/slow/check-arches.sh

# The project's whole test; the bench's smoke form (one short round, N=10,
# ~2.5 min under icount) keeps make bench from rotting.
test: check
	@$(MAKE) --no-print-directory qemu-test
	@$(MAKE) --no-print-directory bench BENCH=smoke

lint:
	@scripts/lint.sh

# make regress: the test_progs set of selftests/regress.list on the
# unpatched base (its own worktree, kernel, selftests and initramfs, same
# config fragments) and on the series, then the difference. Slow: not
# part of make test.
BASE_TREE ?= $(NETKIT_CACHE)/base/linux
BASE_BUILD ?= $(NETKIT_CACHE)/base/build
REGRESS_TIMEOUT ?= 3600
.PHONY: regress regress-base
regress-base: base-kernel
	@TREE='$(BASE_TREE)' BUILD='$(BASE_BUILD)' GUEST_HELPERS=no scripts/build-selftests.sh
	@TREE='$(BASE_TREE)' BUILD='$(BASE_BUILD)' GUEST_HELPERS=no scripts/make-initramfs.sh
regress: initramfs regress-base
	@scripts/slow/regress-run.sh base
	@scripts/slow/regress-run.sh patched
	@scripts/slow/regress-diff.sh

# make abi-report: the module ABI the series changes. The base tree of
# make regress and the applied series, both with Debian's config of the
# tree's version (ABI_FLAVOUR, default amd64), the objects of ABI_TARGETS
# built with genksyms, their CRCs compared (scripts/slow/check-abi.sh). Slow:
# not part of make test.
.PHONY: abi-report
abi-report: apply
	@scripts/prepare-base-tree.sh
	@scripts/slow/check-abi.sh

# The datapath benchmark: netkit against veth and the host's own path,
# in instructions per round trip, packet and byte, counted by a guest of
# its own (QEMU icount) on the pipeline's kernel; its loader and BPF
# programs built for that kernel, its initramfs with iperf3, sockperf and
# perf, results in BUILD/bench/BENCH. BENCH picks the mode (empty: full);
# the modes and every default are in bench/modes.sh.
BENCH ?=
BENCH_CLOCK ?=
.PHONY: bench
bench: kernel
	@scripts/install-deps.sh bench
	@bench/host/build.sh
	@bench/host/initramfs.sh
	@bench/host/run.sh
	@bench/host/report.sh

# make bench-kernels: the bench's kernels mode (RR, 64-byte UDP each way
# and stream, each topology alone) on the unpatched base (make regress's
# BASE_TREE and BASE_BUILD), the series and mainline 6.12 (Debian's
# linux-source-6.12 in MAINLINE_TREE, built in MAINLINE_BUILD from the
# series' config inputs and configs/mainline.config), then one table: each
# kernel's instructions per unit, series/base, series/mainline, over lo,
# the host path, the expectations (BUILD/bench/kernels). BENCH_KERNELS
# picks the kernels. Slow: not part of make test.
MAINLINE_TARBALL ?= /usr/src/linux-source-6.12.tar.xz
MAINLINE_TREE ?= $(NETKIT_CACHE)/mainline/linux
MAINLINE_BUILD ?= $(NETKIT_CACHE)/mainline/build
BENCH_KERNELS ?= base,series,mainline
# The three kernels are built alike: not with the debug or Debian config.
ifneq ($(filter bench-kernels,$(MAKECMDGOALS)),)
ifneq ($(DEBUG)$(filter-out test,$(KCONFIG)),)
$(error make bench-kernels compares the test kernels; run it without DEBUG= and KCONFIG=)
endif
endif
BENCH_KERNELS_OUT = $(BUILD)/bench/kernels
comma := ,
bench_kernels := $(subst $(comma), ,$(BENCH_KERNELS))
ifneq ($(filter-out base series mainline,$(bench_kernels)),)
$(error BENCH_KERNELS names base, series and mainline, not '$(filter-out base series mainline,$(bench_kernels))')
endif
# Each kernel's tree and build directory (series: the pipeline's).
kernel_env_base = TREE='$(BASE_TREE)' BUILD='$(BASE_BUILD)'
kernel_env_series =
kernel_env_mainline = TREE='$(MAINLINE_TREE)' BUILD='$(MAINLINE_BUILD)'
.PHONY: base-kernel mainline-kernel bench-kernels bench-on-base bench-on-series bench-on-mainline
# The unpatched base's kernel (also make regress's).
base-kernel: tree
	@scripts/prepare-base-tree.sh
	@$(kernel_env_base) scripts/build-kernel.sh
mainline-kernel: apply
	@$(kernel_env_mainline) LINUX_TARBALL='$(MAINLINE_TARBALL)' TREE_SERIES=6.12 scripts/prepare-tree.sh
	@$(kernel_env_mainline) SELFTESTS_CONFIG='$(TREE)/tools/testing/selftests/bpf/config' \
		EXTRA_CONFIGS='$(EXTRA_CONFIGS) $(TOP)/configs/mainline.config' scripts/build-kernel.sh
# The kernels are built one after the other; their guests then run
# BENCH_JOBS at a time (one vCPU each; under icount a guest's counts do
# not depend on what else the host runs), each one's output printed when
# it ends.
BENCH_JOBS ?= $(shell nproc)
bench-kernels: $(foreach k,$(bench_kernels),$(if $(filter series,$(k)),kernel,$(k)-kernel))
	@scripts/install-deps.sh bench
	@echo '==> bench-kernels: the guests of $(bench_kernels), $(BENCH_JOBS) at a time; each one'"'"'s steps below when it ends'
	@$(MAKE) --no-print-directory -j$(BENCH_JOBS) -Otarget $(addprefix bench-on-,$(bench_kernels))
	@BENCH_KERNELS='$(bench_kernels)' BENCH_OUT='$(BENCH_KERNELS_OUT)' bench/host/compare.sh
# One kernel's bench run of make bench-kernels.
$(addprefix bench-on-,base series mainline): bench-on-%:
	@$(kernel_env_$*) bench/host/build.sh
	@$(kernel_env_$*) bench/host/initramfs.sh
	@$(kernel_env_$*) BENCH=kernels BENCH_KERNEL=$* BENCH_OUT='$(BENCH_KERNELS_OUT)/$*' bench/host/run.sh
	@BENCH=kernels BENCH_KERNEL=$* BENCH_OUT='$(BENCH_KERNELS_OUT)/$*' bench/host/report.sh

# make deb: the KCONFIG=debian kernel as Debian packages (bindeb-pkg, in
# BUILD/deb), then the package tested rather than the build tree: its
# vmlinuz and modules, unpacked with dpkg-deb -x, booted with the test set
# that T selects. Slow: not part of make test.
DEB_DIR = $(BUILD)/deb
.PHONY: deb
deb: selftests
	@scripts/debian/build-deb.sh
	@MODULES_ROOT='$(DEB_DIR)/root' INITRAMFS_ROOT='$(DEB_DIR)/initramfs' \
		INITRAMFS='$(DEB_DIR)/initramfs.cpio' INITRAMFS_STAMP=deb-initramfs scripts/make-initramfs.sh
	@RUN_DIR='$(DEB_DIR)/run' scripts/select-tests.sh
	@RUN_DIR='$(DEB_DIR)/run' BZIMAGE='$(DEB_DIR)/vmlinuz' INITRAMFS='$(DEB_DIR)/initramfs.cpio' scripts/run-qemu.sh
	@scripts/verdict.sh '$(DEB_DIR)/run'

# make deb-install-test: what a Debian 12 user does with the packages of
# make deb. A Debian 12 system made with mmdebstrap from the machine's apt
# sources (qemu/debian/packages: systemd, udev, initramfs-tools, dkms and
# acpi-call-dkms, Debian's cloud kernel; a raw ext4 disk image cached in
# NETKIT_CACHE/debian12), then one QEMU boot per stage through the
# system's own initrd and systemd, a unit running qemu/debian/stage.sh:
# apt install of the image and headers packages on the stock kernel,
# the netkit kernel (modules on demand, netkit L3/L2 pairs with a BPF
# program, the DKMS-built module), apt remove, the stock kernel after it
# and the reinstall, the netkit kernel again. Slow: not part of make test.
# Each stage's run directory (scripts/debian/stage.sh STAGE [LABEL]).
DEB_INSTALL = $(BUILD)/deb-install
.PHONY: deb-install-test
deb-install-test: selftests
	@scripts/install-deps.sh debian
	@scripts/debian/build-deb.sh
	@scripts/debian/image.sh
	@scripts/debian/stage.sh install
	@scripts/verdict.sh '$(DEB_INSTALL)/install'
	@scripts/debian/stage.sh netkit
	@scripts/verdict.sh '$(DEB_INSTALL)/netkit'
	@scripts/debian/stage.sh remove
	@scripts/verdict.sh '$(DEB_INSTALL)/remove'
	@scripts/debian/stage.sh reinstall
	@scripts/verdict.sh '$(DEB_INSTALL)/reinstall'
	@scripts/debian/stage.sh netkit netkit-reinstalled
	@scripts/verdict.sh '$(DEB_INSTALL)/netkit-reinstalled'

# make coverage: a make qemu-test run on a gcov kernel, in a BUILD and run
# directory of its own. The test kernel with gcov for the objects of
# configs/coverage.objects (GCOV_PROFILE_<object>.o=y on kbuild's command
# line) in COV_BUILD, its selftests and initramfs; T resolved into
# COV_RUN_DIR/selection (default: the default set); the run with the
# counters sent out of the guest (scripts/coverage/run.sh:
# scripts/run-qemu.sh with qemu/gcov-dump), judged by scripts/verdict.sh
# as any run; then lcov's line and branch coverage: HTML report and
# summary in COV_BUILD/coverage; every unrun line of netkit.c, mprog.c and
# tcx.c explained in selftests/coverage-unrun.txt. Slow: not part of make
# test.
# make mutate: every mutant of scripts/coverage/mutate-gen.py compiled into one
# kernel (mutant schemata, a worktree MUT_TREE and build MUT_BUILD of their
# own), which first passes make qemu-test's run and verdict with no mutant
# selected (MUT_BUILD/qemu-test); a held-out sample of MUTATE_MAX drawn with
# MUTATE_SEED (default: the next seed that selftests/results/mutate-seeds
# has not used; a used one only with MUTATE_REUSE_SEED=1), stratified by
# file and operator, each judged by the tests of its area in QEMU,
# MUTATE_PER_BOOT per boot, MUTATE_JOBS guests at a time; the report in
# MUT_BUILD/mutate-report.md, the raw verdicts in
# selftests/results/mutate-verdicts-<seed>.tsv (-after.tsv for an after
# round). MUTATE_DEBUG=1: the debug
# operators (RCU, locks, references) on a debug schemata kernel
# (configs/debug.config, its own MUT_BUILD and MUT_TREE).
# Needs make coverage's data (of the default set). Slow: not part of make
# test.
COV_BUILD ?= $(NETKIT_CACHE)/build-coverage
COV_RUN_DIR ?= $(COV_BUILD)/qemu-test
MUTATE_DEBUG ?=
ifeq ($(MUTATE_DEBUG),1)
MUT_BUILD ?= $(NETKIT_CACHE)/build-mutate-debug
MUT_TREE ?= $(NETKIT_CACHE)/mutate-debug/linux
MUT_SEED_KBUILD := $(NETKIT_CACHE)/build-debug/kernel
else ifneq ($(MUTATE_DEBUG),)
$(error MUTATE_DEBUG must be 1 or empty, not '$(MUTATE_DEBUG)')
else
MUT_BUILD ?= $(NETKIT_CACHE)/build-mutate
MUT_TREE ?= $(NETKIT_CACHE)/mutate/linux
MUT_SEED_KBUILD := $(BUILD)/kernel
endif
MUTATE_SEED ?=
MUTATE_REUSE_SEED ?=
MUTATE_MAX ?= 300
MUTATE_PER_BOOT ?= 1
MUTATE_JOBS ?= $(shell nproc)
COVERAGE_EXPORTS := COV_BUILD COV_RUN_DIR MUT_BUILD MUT_TREE MUTATE_SEED MUTATE_MAX MUTATE_PER_BOOT MUTATE_JOBS \
	MUTATE_DEBUG MUTATE_REUSE_SEED
NETKIT_EXPORTS += $(COVERAGE_EXPORTS)
export $(COVERAGE_EXPORTS)
.PHONY: coverage mutate
ifneq ($(filter coverage mutate,$(MAKECMDGOALS)),)
ifneq ($(DEBUG)$(filter debian,$(KCONFIG)),)
$(error make coverage and make mutate use the test config; run them without DEBUG= and KCONFIG=)
endif
endif
coverage: apply
	@scripts/install-deps.sh coverage
	@BUILD='$(COV_BUILD)' scripts/coverage/kernel.sh
	@BUILD='$(COV_BUILD)' scripts/build-selftests.sh
	@BUILD='$(COV_BUILD)' scripts/make-initramfs.sh
	@BUILD='$(COV_BUILD)' RUN_DIR='$(COV_RUN_DIR)' scripts/select-tests.sh
	@BUILD='$(COV_BUILD)' RUN_DIR='$(COV_RUN_DIR)' scripts/coverage/run.sh
	@BUILD='$(COV_BUILD)' scripts/verdict.sh '$(COV_RUN_DIR)'
	@BUILD='$(COV_BUILD)' RUN_DIR='$(COV_RUN_DIR)' scripts/coverage/report.sh

# A held-out round that goes on (the registry says "judging" for a seed
# of this kernel kind and selftests/results/mutate-round-<seed>/ holds its
# sample and verdicts) needs no sample drawn, so no make coverage: only
# the coverage kernel's .config, which mutate-gen.py reads. A seed asked
# for, or an after round, draws a sample: make coverage first.
MUT_KIND := $(if $(filter 1,$(MUTATE_DEBUG)),debug,test)
MUT_JUDGING := $(shell awk -F'\t' -v k='$(MUT_KIND)' '!/^\#/ && $$3 == k && $$6 == "judging" { print $$1 }' \
	selftests/results/mutate-seeds 2>/dev/null)
MUT_GOING := $(if $(MUTATE_SEED)$(MUTATE_REUSE_SEED),,$(firstword $(foreach s,$(MUT_JUDGING),\
	$(if $(wildcard selftests/results/mutate-round-$(s)/sample.tsv),$(s)))))
mutate: $(if $(MUT_GOING),apply,coverage)
	$(if $(MUT_GOING),@echo "==> mutate: the held-out round of seed $(MUT_GOING) goes on (selftests/results/mutate-round-$(MUT_GOING)); no make coverage but its kernel's .config")
	$(if $(MUT_GOING),@CONFIG_ONLY=1 BUILD='$(COV_BUILD)' scripts/coverage/kernel.sh)
	@BUILD='$(MUT_BUILD)' SEED_KBUILD='$(MUT_SEED_KBUILD)' scripts/coverage/mutate-tree.sh
	@BUILD='$(MUT_BUILD)' scripts/coverage/mutate-run.sh

cover-letter: apply
	@scripts/series/cover-letter.sh

mbox: apply
	@scripts/series/make-mbox.sh

reset-tree:
	@scripts/reset-tree.sh

clean:
	rm -rf '$(BUILD)'
	@if [ -d '$(TREE)/.git' ]; then \
		echo "git -C $(TREE) clean tools/ (in-tree selftests, bpftool, libbpf builds)"; \
		git -C '$(TREE)' clean -q -f -d -x -- tools; \
	fi

distclean: clean
	@scripts/distclean.sh

# The exports of NETKIT_EXPORTS (above), here after every definition.
export $(NETKIT_EXPORTS)
# Only when given: unset, T decides (GUEST_TESTS= is "no guest test").
ifneq ($(origin TEST_ARGS),undefined)
NETKIT_EXPORTS += TEST_ARGS
export TEST_ARGS
endif
ifneq ($(origin RUN_DIR),undefined)
NETKIT_EXPORTS += RUN_DIR
export RUN_DIR
endif
ifneq ($(origin GUEST_TESTS),undefined)
NETKIT_EXPORTS += GUEST_TESTS
export GUEST_TESTS
endif
export NETKIT_EXPORTS
