#!/usr/bin/env bash
# debian-verdict STAGE [LABEL]: judge one boot of make deb-install-test
# (scripts/debian/stage.sh) from its report (the stage's "ok"/"not ok"
# lines, the kernel's journal, "NETKIT_STAGE <stage> rc=<n>") and its
# console. Fails on: no final status or a non-zero one, any "not ok", a
# check of the stage's list below missing from the report, and kernel
# trouble (lib.sh's KERNEL_SPLAT_RE, MODULE_PROBLEM_RE) on the console or
# in the journal - but for the one line every out-of-tree module not
# signed by the kernel's own key gets, "module verification failed", for
# the DKMS module.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

STAGE=${1:-}
LABEL=${2:-$STAGE}
WORK=$BUILD/deb-install
DKMS_MOD=acpi_call

# Checks each stage must have reported (a stage that skipped a block of
# its checks fails here, not silently).
case $STAGE in
install | reinstall)
	required=("booted kernel" "systemctl --failed lists no unit" "apt install ./linux-image-"
		"initrd.img-.* has virtio_blk.ko" "dkms built and installed" "modinfo -k .* vermagic") ;;
netkit)
	required=("booted kernel .*-netkit" "systemctl --failed lists no unit" "virtio_blk loaded as a module"
		"veth loaded on demand" "sch_ingress loaded on demand" "cls_bpf loaded on demand"
		"ping .* through the l3 pair" "ping .* through the l2 pair" "nk_pass .* ran for the packets"
		"modprobe $DKMS_MOD" "the kernel took $DKMS_MOD's symbol versions"
		"systemctl --failed lists no unit after the checks") ;;
remove)
	required=("booted kernel" "systemctl --failed lists no unit" "apt remove linux-image-"
		"/boot/vmlinuz-.* removed" "dkms lists no module for") ;;
*) die "usage: debian-verdict.sh install|netkit|remove|reinstall [LABEL]" ;;
esac

step "deb-install-$LABEL-verdict"
report=$WORK/report-$LABEL.log
console=$WORK/console-$LABEL.log
{ [ -f "$report" ] && [ -f "$console" ]; } || die "no report of stage $STAGE in $WORK; run: make deb-install-test"
text=$(tr -d '\r' <"$report")
problems=()

rc=$(sed -n "s/^NETKIT_STAGE $STAGE rc=\([0-9]*\).*/\1/p" <<<"$text" | tail -n 1)
if [ -z "$rc" ]; then
	problems+=("the stage reported no final status (it did not run to its end; see $console)")
elif [ "$rc" -ne 0 ]; then
	problems+=("the stage's checks failed (rc=$rc)")
fi
# The failed checks with the lines they print under them ("  got: ...").
notok=$(awk '/^not ok/ { p = 1; print; next } p && /^  / { print; next } { p = 0 }' <<<"$text")
[ -z "$notok" ] || problems+=("failed checks:"$'\n'"$notok")
for r in "${required[@]}"; do
	grep -aqE "^ok - $r" <<<"$text" || grep -aqE "^not ok - $r" <<<"$text" ||
		problems+=("the report has no check '$r'")
done
nok=$(grep -ac '^ok - ' <<<"$text" || true)
[ "$nok" -gt 0 ] || problems+=("no check passed")

journal=$WORK/journal-$LABEL.log
sed -n '/^NETKIT_JOURNAL_BEGIN/,/^NETKIT_JOURNAL_END/p' <<<"$text" >"$journal"
for f in "$console" "$journal"; do
	splat=$(kernel_splats "$f")
	[ -z "$splat" ] || problems+=("kernel trouble in $f:"$'\n'"$(head -n 20 <<<"$splat")")
	modp=$(kernel_splats "$f" "$MODULE_PROBLEM_RE" | grep -av "$DKMS_MOD: module verification failed" || true)
	[ -z "$modp" ] || problems+=("module loading problems in $f:"$'\n'"$(head -n 10 <<<"$modp")")
done

if [ "${#problems[@]}" -ne 0 ]; then
	printf '  - %s\n' "${problems[@]}" >&2
	die "deb-install-test, stage $LABEL failed; report: $report, console: $console"
fi
step_done "PASS ($nok checks; $(cat "$WORK/boot-$LABEL" 2>/dev/null || echo "boot time unknown"))"
