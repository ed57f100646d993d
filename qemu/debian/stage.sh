#!/bin/sh
# stage.sh STAGE: one boot of make deb-install-test in the Debian 12
# guest (scripts/debian/stage.sh puts it, the packages and the project's
# guest tools on the payload disk; /usr/local/sbin/netkit-stage runs it
# after multi-user.target with its output on the second serial port).
#
#   install    on Debian's stock kernel: apt install the netkit image and
#              headers packages (maintainer scripts, initramfs-tools, DKMS)
#   netkit     on the netkit kernel: modules loaded on demand, netkit pairs
#              (L3, L2) with a BPF program between two namespaces, the
#              DKMS module
#   remove     on the stock kernel: apt remove both packages
#   reinstall  on the stock kernel after the removal: apt install again
#
# Every stage first checks the boot itself (release, root disk, no failed
# unit). The report is a TAP stream (selftests/guest/lib.sh): its header,
# one numbered "ok"/"not ok" line per check with "# ..." lines under a
# failed one, the plan; then the kernel's journal for the host's splat
# scan between NETKIT_JOURNAL_BEGIN and NETKIT_JOURNAL_END, and last
# "NETKIT_STAGE <stage> rc=<n>", n kselftest's exit code. Those, and the
# stage's first line, which the host waits for, are the host's markers,
# left as they are (lines of no TAP kind, which TAP readers pass over).
# shellcheck source=../../selftests/guest/lib.sh
. ./lib.sh
stagedir=$(pwd)
PATH=$stagedir/bin:$PATH
export DEBIAN_FRONTEND=noninteractive

stage=$1
rel=$(cat release)      # the netkit package's release, 6.1.<n>-netkit
stock=$(cat stock)      # Debian's kernel in the image
dkms_mod=acpi_call      # the module of the DKMS package in the image
dkms_pkg=acpi-call
plant=$(cat plant 2>/dev/null)

echo "netkit-6.1 deb-install-test: stage $stage on $(uname -r)${plant:+ (planted: $plant)}"

# A planted failure (NETKIT_PLANT on the host), to show that the checks
# can fail.
case $plant in
failing-unit)
	# A unit that fails during the boot's checks, as a broken service would.
	systemd-run --unit=netkit-planted-failure --quiet /bin/false
	sleep 2
	;;
initrd-without-virtio_blk)
	# An initramfs-tools hook that drops the root disk's driver from every
	# initrd built from now on.
	mkdir -p /etc/initramfs-tools/hooks
	# shellcheck disable=SC2016 # the hook expands them
	printf '#!/bin/sh\n[ "$1" = prereqs ] && exit 0\nfind "$DESTDIR" -name virtio_blk.ko -delete\n' \
		>/etc/initramfs-tools/hooks/zz-netkit-planted
	chmod +x /etc/initramfs-tools/hooks/zz-netkit-planted
	;;
failing-postinst)
	# A kernel postinst hook that fails, as a broken hook of another
	# package would: the image package's postinst runs
	# /etc/kernel/postinst.d, so dpkg cannot configure it.
	mkdir -p /etc/kernel/postinst.d
	# shellcheck disable=SC2016 # the hook expands it
	printf '#!/bin/sh\necho "zz-netkit-planted: failing on purpose for kernel $1" >&2\nexit 1\n' \
		>/etc/kernel/postinst.d/zz-netkit-planted
	chmod +x /etc/kernel/postinst.d/zz-netkit-planted
	;;
esac

# boot_checks RELEASE: the system booted RELEASE through its initrd from
# the virtio disk and systemd reached multi-user.target with no failed
# unit.
boot_checks() {
	r=$(uname -r)
	[ "$r" = "$1" ]
	expect "booted kernel $r (expected $1)" $?
	expect_match "root is the virtio disk netkit-root, ext4, read-write" '^/dev/vd[a-z] ext4 netkit-root rw' \
		"$(findmnt -n -o SOURCE,FSTYPE,LABEL,OPTIONS / | tr -s ' ' | sed 's/,.*//')"
	expect_match "systemd reached multi-user.target" '^active$' "$(systemctl is-active multi-user.target)"
	failed=$(systemctl --failed --plain --no-legend)
	[ -z "$failed" ]
	expect "systemctl --failed lists no unit" $?
	[ -z "$failed" ] || printf '%s\n' "$failed" | sed 's/^/# failed: /'
	echo "# the stage started $(cut -d' ' -f1 /proc/uptime) s after the kernel"
}

# apt_run DESCRIPTION ARGS...: apt-get ARGS, its whole output in the
# report as it comes (what a user sees), its exit status as a check;
# when it failed, the output's error lines again under the check, where
# the host's verdict shows them.
apt_run() {
	_d=$1
	shift
	echo "# apt-get $*"
	apt_get "$@" </dev/null 2>&1 | tee "$stagedir/apt-out" | sed 's/^/# | /'
	_rc=$(cat "$stagedir/apt-rc" 2>/dev/null || echo 1)
	expect "$_d (exit status $_rc)" "$_rc"
	[ "$_rc" -eq 0 ] ||
		grep -iE 'error|fail|^E: ' "$stagedir/apt-out" | tail -n 15 | sed 's/^/# apt: /'
}
# apt_get ARGS...: apt-get, its status kept in a file (it runs on the
# left of a pipe).
apt_get() {
	_rc=0
	apt-get -y -o Dpkg::Use-Pty=0 "$@" || _rc=$?
	echo "$_rc" >"$stagedir/apt-rc"
}

# installed_checks: what the image and headers packages leave behind.
installed_checks() {
	for p in "linux-image-$rel" "linux-headers-$rel"; do
		expect_match "dpkg: $p installed" '^install ok installed$' \
			"$(dpkg-query -W -f='${Status}' "$p" 2>&1)"
	done
	for f in "vmlinuz-$rel" "initrd.img-$rel" "config-$rel" "System.map-$rel"; do
		[ -s "/boot/$f" ]
		expect "/boot/$f present" $?
	done
	echo "# /boot: $(find /boot -maxdepth 1 ! -type d -printf '%f ')"
	initrd=$(lsinitramfs "/boot/initrd.img-$rel" 2>&1)
	for m in virtio_blk virtio_pci; do
		expect_match "initrd.img-$rel has $m.ko (a module, as Debian builds it)" "/$m\\.ko\$" "$initrd"
	done
	[ -e "/lib/modules/$rel/build/Makefile" ]
	expect "/lib/modules/$rel/build resolves to the headers package ($(readlink "/lib/modules/$rel/build"))" $?
	st=$(dkms status -k "$rel" 2>&1)
	echo "# dkms status -k $rel: $st"
	expect_match "dkms built and installed $dkms_pkg for $rel" "^$dkms_pkg/.*$rel.*: installed" "$st"
	expect_match "modinfo -k $rel $dkms_mod: vermagic $rel" "^$rel " \
		"$(modinfo -k "$rel" -F vermagic "$dkms_mod" 2>&1)"
	[ -s "/boot/vmlinuz-$stock" ] && [ -s "/boot/initrd.img-$stock" ]
	expect "Debian's kernel $stock and its initrd still in /boot" $?
}

# modloaded NAME: NAME is a loaded module (not built in).
modloaded() {
	grep -q "^$1 " /proc/modules
}

on_demand_checks() {
	echo "# modules at the start of the checks: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
	for m in virtio_blk virtio_pci autofs4; do
		modloaded "$m"
		expect "$m loaded as a module (initrd's udev, systemd)" $?
	done
	conf=$(grep -rhsE '^[^#]*(veth|sch_ingress|cls_bpf)' /etc/modules /etc/modules-load.d /usr/lib/modules-load.d /run/modules-load.d)
	[ -z "$conf" ]
	expect "no modules-load.d or /etc/modules entry names veth, sch_ingress, cls_bpf" $?
	for m in veth sch_ingress cls_bpf; do
		! modloaded "$m"
		expect "$m not loaded before its first use" $?
	done
	echo "# the kernel's module loader: $(cat /proc/sys/kernel/modprobe) ($(kmod --version | head -n 1))"
	# Debian's iproute2: each command needs one module, which the kernel
	# asks modprobe for (request_module), none loaded by this script.
	ip netns add vea && ip netns add veb &&
		ip link add vd0 type veth peer name vd1
	expect "ip link add ... type veth" $?
	modloaded veth
	expect "veth loaded on demand" $?
	ip link set vd0 netns vea && ip link set vd1 netns veb &&
		ip -n vea addr add 10.203.0.1/24 dev vd0 && ip -n vea link set vd0 up &&
		ip -n veb addr add 10.203.0.2/24 dev vd1 && ip -n veb link set vd1 up
	expect "veth pair between namespaces vea and veb" $?
	ip -n veb link set lo up
	tc -n veb qdisc add dev vd1 clsact
	expect "tc qdisc add ... clsact" $?
	modloaded sch_ingress
	expect "sch_ingress loaded on demand (clsact)" $?
	# A classic BPF filter that matches every packet (ret #-1).
	tc -n veb filter add dev vd1 ingress bpf bytecode '1,6 0 0 4294967295,' classid 1:1
	expect "tc filter add ... bpf bytecode (cls_bpf)" $?
	modloaded cls_bpf
	expect "cls_bpf loaded on demand" $?
	expect_match "tc shows the bpf filter" 'bpf' "$(tc -n veb filter show dev vd1 ingress)"
	ip netns exec vea ping -c 3 -i 0.2 -W 2 10.203.0.2 >/dev/null
	expect "ping through the veth pair with the cls_bpf filter" $?
	ip netns del vea
	ip netns del veb
}

# netkit_pair MODE NSA NSB PREFIX: a netkit pair (the project's static
# netkit-pair: iproute2 6.1 cannot create netkit devices), primary in
# NSA with the default policy drop, peer in NSB. Nothing crosses it until
# nk_pass (the project's netkit-attach, BPF_PROG_ATTACH; it returns
# NETKIT_NEXT, which then decides instead of the policy) is attached to
# the primary; then ping from NSA to NSB works and the program ran for
# its packets.
netkit_pair() {
	mode=$1 a=$2 b=$3 pfx=$4 p=nk$1p q=nk$1q
	ip netns add "$a" && ip netns add "$b" &&
		netkit-pair "$p" "$q" "$mode" drop pass &&
		ip link set "$p" netns "$a" && ip link set "$q" netns "$b" &&
		ip -n "$a" addr add "$pfx.1/24" dev "$p" && ip -n "$a" link set "$p" up &&
		ip -n "$b" addr add "$pfx.2/24" dev "$q" && ip -n "$b" link set "$q" up &&
		ip -n "$a" link set lo up && ip -n "$b" link set lo up
	expect "netkit pair in $mode mode, $p in $a, $q in $b" $?
	# iproute2 6.1 knows no netkit attributes: it shows the kind. The
	# mode shows in the link layer: both are Ethernet devices (netkit's
	# setup is ether_setup() with NOARP); in l2 mode the device has a
	# random address of its own and ARP, in l3 mode neither.
	info=$(ip -n "$a" -d link show "$p" | tr '\n' ' ')
	if [ "$mode" = l3 ]; then
		expect_match "ip -d link shows $p as netkit, NOARP, link/ether 00:00:00:00:00:00 (l3)" \
			'<[^>]*NOARP[^>]*>.* link/ether 00:00:00:00:00:00 .* netkit ' "$info"
	else
		mac=$(printf '%s\n' "$info" | sed -n 's|.* link/ether \([0-9a-f:]*\) .*|\1|p')
		flags=$(printf '%s\n' "$info" | sed -n 's/^[^<]*<\([^>]*\)>.*/\1/p')
		rc=0
		{ [ -n "$mac" ] && [ "$mac" != 00:00:00:00:00:00 ] &&
			case ",$flags," in *,NOARP,*) false ;; *) true ;; esac &&
			printf '%s\n' "$info" | grep -q ' netkit '; } || rc=1
		expect "ip -d link shows $p as netkit with ARP and an address of its own, ${mac:-none} (l2)" "$rc"
		[ "$rc" -eq 0 ] || echo "# got: $info"
	fi
	! ip netns exec "$a" ping -c 1 -W 1 "$pfx.2" >/dev/null
	expect "no traffic through $p without a program (policy drop)" $?
	ip netns exec "$a" netkit-attach "$p" primary prog
	expect "BPF program nk_pass attached to $p (primary)" $?
	id=$(bpftool prog show name nk_pass | sed -n 's/^\([0-9]*\): .*/\1/p' | tail -n 1)
	before=$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/.* run_cnt \([0-9]*\).*/\1/p')
	ip netns exec "$a" ping -c 5 -i 0.2 -W 2 "$pfx.2" >/dev/null
	expect "ping $a -> $b through the $mode pair" $?
	after=$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/.* run_cnt \([0-9]*\).*/\1/p')
	expect_ge "nk_pass (prog $id) ran for the packets the primary sent (bpftool run_cnt)" \
		"$((${after:-0} - ${before:-0}))" 5
	ip netns del "$a"
	ip netns del "$b"
}

netkit_checks() {
	sysctl -q -w kernel.bpf_stats_enabled=1
	netkit_pair l3 nka nkb 10.201.0
	netkit_pair l2 nkc nkd 10.202.0
	sysctl -q -w kernel.bpf_stats_enabled=0
}

dkms_checks() {
	expect_match "modinfo $dkms_mod: vermagic $rel" "^$rel " "$(modinfo -F vermagic "$dkms_mod" 2>&1)"
	echo "# $(modinfo -n "$dkms_mod" 2>&1)"
	modprobe "$dkms_mod"
	expect "modprobe $dkms_mod (DKMS-built)" $?
	modloaded "$dkms_mod"
	expect "$dkms_mod loaded" $?
	[ -e /proc/acpi/call ]
	expect "$dkms_mod works: /proc/acpi/call" $?
	bad=$(dmesg | grep -E "$dkms_mod: (disagrees about version of symbol|Unknown symbol|no symbol version)")
	[ -z "$bad" ]
	expect "the kernel took $dkms_mod's symbol versions" $?
	[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/# dmesg: /'
	echo "# the kernel on $dkms_mod: $(dmesg | grep -E "$dkms_mod|taints kernel" | sed 's/^\[[^]]*\] //' | tr '\n' ';')"
	echo "# tainted: $(cat /proc/sys/kernel/tainted)"
}

case $stage in
install | reinstall)
	boot_checks "$stock"
	[ ! -e "/boot/vmlinuz-$rel" ]
	expect "no netkit kernel installed yet" $?
	apt_run "apt install ./linux-image-$rel ./linux-headers-$rel" \
		install "./$(cat image_deb)" "./$(cat headers_deb)"
	installed_checks
	;;
netkit)
	boot_checks "$rel"
	on_demand_checks
	netkit_checks
	dkms_checks
	failed=$(systemctl --failed --plain --no-legend)
	[ -z "$failed" ]
	expect "systemctl --failed lists no unit after the checks" $?
	;;
remove)
	boot_checks "$stock"
	apt_run "apt remove linux-image-$rel linux-headers-$rel" \
		remove "linux-image-$rel" "linux-headers-$rel"
	for f in "vmlinuz-$rel" "initrd.img-$rel" "config-$rel" "System.map-$rel"; do
		[ ! -e "/boot/$f" ]
		expect "/boot/$f removed" $?
	done
	echo "# /boot: $(find /boot -maxdepth 1 ! -type d -printf '%f ')"
	echo "# left in /lib/modules/$rel: $(find "/lib/modules/$rel" 2>/dev/null | head -n 20 | tr '\n' ' ')"
	st=$(dkms status 2>&1)
	echo "# dkms status: $st"
	! printf '%s\n' "$st" | grep -q "$rel"
	expect "dkms lists no module for $rel" $?
	[ ! -e "/lib/modules/$rel/updates/dkms/$dkms_mod.ko" ]
	expect "the DKMS-built $dkms_mod.ko for $rel removed" $?
	[ -s "/boot/vmlinuz-$stock" ] && [ -s "/boot/initrd.img-$stock" ]
	expect "Debian's kernel $stock and its initrd still in /boot" $?
	;;
*)
	expect "unknown stage $stage" 1
	;;
esac
tap_end

# The kernel's messages of this boot, for the host's splat scan.
echo "NETKIT_JOURNAL_BEGIN"
journalctl -b -k -o short-monotonic --no-pager 2>&1
echo "NETKIT_JOURNAL_END"
echo "# journal, priority err and worse (not judged): "
journalctl -b -p err -o short-monotonic --no-pager 2>&1 | grep -v '^-- ' | head -n 30 | sed 's/^/#   /'
echo "NETKIT_STAGE $stage rc=$ksft_rc"
exit "$ksft_rc"
