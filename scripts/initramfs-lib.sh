# shellcheck shell=bash
# What the test guest's and the bench guest's initramfs have in common
# (scripts/make-initramfs.sh, bench/host/initramfs.sh). Sourced.

# initramfs_host_tools: check for busybox-static and dash; sets $busybox
# and $dash.
initramfs_host_tools() {
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] || die "busybox not found; install busybox-static (make deps)"
	if ldd "$busybox" >/dev/null 2>&1; then
		die "$busybox is dynamically linked; install busybox-static (make deps)"
	fi
	dash=$(command -v dash || true)
	[ -n "$dash" ] || die "dash not found (Debian's /bin/sh); install dash"
}

# initramfs_skeleton ROOT INIT [DIR...]: a fresh ROOT with INIT as /init,
# busybox's applets, Debian's dash as /bin/sh (Debian's busybox sh runs its
# own applets before anything in PATH, so system("ip ...") would get
# busybox's ip), /etc basics, and DIRs (relative to ROOT).
initramfs_skeleton() {
	local root=$1 init=$2 applet
	shift 2
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,var}
	for d in "$@"; do
		mkdir -p "$root/$d"
	done
	ln -s ../run "$root/var/run" # network_helpers opens /var/run/netns/<name>
	install -m 0755 "$init" "$root/init"
	install -m 0755 "$busybox" "$root/bin/busybox"
	for applet in $("$busybox" --list); do
		case $applet in busybox | ip | tc | sh) continue ;; esac
		ln -sf busybox "$root/bin/$applet"
	done
	install -m 0755 "$dash" "$root/bin/sh"
	[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$root/etc/"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
}

# initramfs_pack ROOT OUT: copy the shared libraries of every executable
# to the paths the dynamic loader looks for them, then write the cpio.
initramfs_pack() {
	local root=$1 out=$2
	find "$root" -type f -perm -u+x -print0 | while IFS= read -r -d '' elf; do
		ldd "$elf" 2>/dev/null | grep -oE '(/[^ ]+\.so[^ ]*)' || true
	done | sort -u | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) >"$out"
}
