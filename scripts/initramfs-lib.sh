# shellcheck shell=bash
# What the test guest's and the bench guest's initramfs have in common
# (scripts/make-initramfs.sh, bench/host/initramfs.sh). Sourced.

# initramfs_host_tools: check for busybox-static and dash; sets $busybox
# and $dash: the host's, or a cross ARCH's from its sysroot (lib.sh's
# ARCH_SYSROOT, which make deps ARCH=<arch> fills).
initramfs_host_tools() {
	if [ -n "$ARCH_SYSROOT" ]; then
		busybox=$ARCH_SYSROOT/bin/busybox dash=$ARCH_SYSROOT/bin/dash
		[ -x "$busybox" ] || die "$busybox not found; run: make deps ARCH=$ARCH"
		[ -x "$dash" ] || die "$dash not found; run: make deps ARCH=$ARCH"
		if readelf -l "$busybox" | grep -q 'program interpreter'; then
			die "$busybox is dynamically linked; the sysroot needs busybox-static (make deps ARCH=$ARCH)"
		fi
		return 0
	fi
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] || die "busybox not found; install busybox-static (make deps)"
	if ldd "$busybox" >/dev/null 2>&1; then
		die "$busybox is dynamically linked; install busybox-static (make deps)"
	fi
	dash=$(command -v dash || true)
	[ -n "$dash" ] || die "dash not found (Debian's /bin/sh); install dash"
}

# busybox_applets: the applets of $busybox, one a line. A cross ARCH's
# busybox cannot run here: its applet names are read from the binary,
# where busybox keeps them as one string of NUL-terminated names that
# starts with "[" and "[[" and ends with an empty one.
busybox_applets() {
	if [ -z "$ARCH_SYSROOT" ]; then
		"$busybox" --list
		return
	fi
	python3 - "$busybox" <<-'PY'
		import sys
		b = open(sys.argv[1], 'rb').read()
		i = b.find(b'[\0[[\0')
		if i < 0:
		    sys.exit(sys.argv[1] + ': no applet names found')
		for w in b[i:].split(b'\0'):
		    if not w:
		        break
		    print(w.decode())
	PY
}

# initramfs_skeleton ROOT INIT [DIR...]: a fresh ROOT with INIT as /init,
# busybox's applets, Debian's dash as /bin/sh (Debian's busybox sh runs its
# own applets before anything in PATH, so system("ip ...") would get
# busybox's ip), /etc basics, and DIRs (relative to ROOT).
initramfs_skeleton() {
	local root=$1 init=$2 applet applets
	shift 2
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,var}
	for d in "$@"; do
		mkdir -p "$root/$d"
	done
	ln -s ../run "$root/var/run" # network_helpers opens /var/run/netns/<name>
	install -m 0755 "$init" "$root/init"
	install -m 0755 "$busybox" "$root/bin/busybox"
	applets=$(busybox_applets) || die "cannot list the applets of $busybox"
	for applet in $applets; do
		case $applet in busybox | ip | tc | sh) continue ;; esac
		ln -sf busybox "$root/bin/$applet"
	done
	install -m 0755 "$dash" "$root/bin/sh"
	[ -d "$ARCH_SYSROOT/etc/iproute2" ] && cp -a "$ARCH_SYSROOT/etc/iproute2" "$root/etc/"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
}

# initramfs_pack ROOT OUT: copy the shared libraries of every executable
# to the paths the dynamic loader looks for them, then write the cpio.
initramfs_pack() {
	local root=$1 out=$2
	if [ -n "$ARCH_SYSROOT" ]; then
		initramfs_sysroot_libs "$root"
	else
		find "$root" -type f -perm -u+x -print0 | while IFS= read -r -d '' elf; do
			ldd "$elf" 2>/dev/null | grep -oE '(/[^ ]+\.so[^ ]*)' || true
		done | sort -u | while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) >"$out"
}

# sysroot_file PATH: PATH in the sysroot with its symlinks resolved there
# (an absolute link, /sbin/ip -> /bin/ip, points into the sysroot, not
# at the host's file).
sysroot_file() {
	local p=$ARCH_SYSROOT$1 t n=0
	while [ -L "$p" ] && [ "$n" -lt 20 ]; do
		t=$(readlink "$p")
		case $t in
		/*) p=$ARCH_SYSROOT$t ;;
		*) p=$(dirname "$p")/$t ;;
		esac
		n=$((n + 1))
	done
	[ -f "$p" ] && printf '%s\n' "$p"
}

# initramfs_sysroot_libs ROOT: a cross ARCH's initramfs_pack - ldd cannot
# run the target's loader here. Every program and shared object in ROOT
# (ELF executables and libraries; not the BPF objects or modules) gets its
# loader (PT_INTERP) and the libraries its ELF NEEDED entries name, found
# next to it (urandom_read's liburandom_read.so, by its rpath ".") or in
# the sysroot's library directories, copied to the same path in ROOT, and
# theirs in turn. Each must be the target's machine; a soname the
# sysroot lacks stops the step with the package list to extend.
initramfs_sysroot_libs() {
	local root=$1 elf dir lib n interp found machine want info
	local -a queue needed missing=() dirs=("lib/$ARCH_TRIPLET" "usr/lib/$ARCH_TRIPLET" lib usr/lib)
	local -A seen=()
	want=$ARCH_ELF
	mapfile -d '' -t queue < <(find "$root" -type f ! -name '*.ko' ! -name '*.bpf.o' -print0)
	while [ "${#queue[@]}" -ne 0 ]; do
		elf=${queue[0]}
		queue=("${queue[@]:1}")
		info=$(readelf -h -l -d "$elf" 2>/dev/null) || continue
		grep -qE '^ *Type: +(EXEC|DYN)' <<<"$info" || continue
		machine=$(sed -n 's/^ *Machine: *//p' <<<"$info")
		[[ $machine == *"$want"* ]] || die "${elf#"$root"} in the initramfs is built for '$machine', not $ARCH"
		interp=$(sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p' <<<"$info")
		if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
			found=$(sysroot_file "$interp") ||
				die "the loader $interp of ${elf#"$root"} is not in $ARCH_SYSROOT; run: make deps ARCH=$ARCH"
			mkdir -p "$root$(dirname "$interp")"
			cp "$found" "$root$interp"
		fi
		mapfile -t needed < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$info")
		for n in ${needed[@]+"${needed[@]}"}; do
			[ -z "${seen[$n]+x}" ] || continue
			[ ! -e "$(dirname "$elf")/$n" ] || continue
			found=
			for dir in "${dirs[@]}"; do
				if [ -e "$ARCH_SYSROOT/$dir/$n" ] || [ -L "$ARCH_SYSROOT/$dir/$n" ]; then
					found=$dir/$n
					break
				fi
			done
			if [ -z "$found" ]; then
				missing+=("$n (needed by ${elf#"$root"})")
				continue
			fi
			seen[$n]=1
			lib=$root/$found
			if [ ! -e "$lib" ]; then
				mkdir -p "$(dirname "$lib")"
				cp "$(sysroot_file "/$found")" "$lib" ||
					die "$ARCH_SYSROOT/$found is a dangling link"
			fi
			queue+=("$lib")
		done
	done
	[ "${#missing[@]}" -eq 0 ] ||
		die "the $ARCH sysroot $ARCH_SYSROOT lacks: $(printf '%s\n' "${missing[@]}" | sort -u | paste -sd' '); add their packages to SYSROOT_PACKAGES in scripts/install-deps.sh and run: make deps ARCH=$ARCH"
}
