#!/bin/bash
# objcmp.sh: does a source change alter what the compiler makes of one
# object? The evidence for a mutant argued equivalent because gcc emits
# the same code with and without it (selftests/mutate-equivalent.txt).
#
#   scripts/coverage/objcmp.sh KBUILD_OUT OBJECT SOURCE SED
#
# OBJECT (e.g. kernel/bpf/tcx.o) is compiled twice with the command line
# kbuild used for it in KBUILD_OUT (its .OBJECT.cmd; the build must be
# there, e.g. make kernel's $BUILD/kernel): once from the tree, once with
# the sed expression SED applied to a copy of SOURCE (a path in the tree:
# the object's .c file, or a header under include/ that it includes,
# which the copy then shadows). Both runs map the copy's path to the tree's (__FILE__ is the
# same), and the disassembly with relocations (objdump -dr) is compared,
# the serial numbers of __UNIQUE_ID symbols left out (__COUNTER__ moves
# with every macro that takes one). The compile only: objtool and the
# like, which kbuild runs after it, run on neither copy. Prints IDENTICAL or DIFFERENT with
# the diff; exit 0 for identical, 1 for different, 2 for an error
# (nothing changed by SED, no command line). Writes to a temporary
# directory only; the tree and KBUILD_OUT are left as they were.
set -euo pipefail

die() {
	echo "objcmp: $*" >&2
	exit 2
}

[ $# -eq 4 ] || die "usage: $0 KBUILD_OUT OBJECT SOURCE SED"
kbuild=$(readlink -f "$1") obj=$2 src=$3 expr=$4
tree=$(readlink -f "$kbuild/source") || die "$kbuild/source: not a kbuild output directory (O=)"
cmdfile=$kbuild/$(dirname "$obj")/.$(basename "$obj").cmd
[ -f "$cmdfile" ] || die "$cmdfile not found: build $obj in $kbuild first"
[ -f "$tree/$src" ] || die "$tree/$src not found"
# the command line: "cmd_OBJ := [ccache] gcc ... -o OBJ SRC; objtool ..."
cmd=$(awk -v k="cmd_$obj" '$1 == k && $2 == ":=" { sub(/^[^=]*:= /, ""); print; exit }' "$cmdfile")
[ -n "$cmd" ] || die "no cmd_$obj in $cmdfile"
cmd=$(sed -e 's/-Wp,-MMD,[^ ]* //' -e 's/^ccache //' <<<"$cmd")
# the compile alone: what follows the first ';' (objtool, recordmcount)
# works on kbuild's own object, which must stay as it is
cmd=${cmd%%;*}

work=$(mktemp -d /tmp/objcmp.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ovr/$(dirname "$src")"
cp "$tree/$src" "$work/ovr/$src"
sed -i -e "$expr" "$work/ovr/$src"
if cmp -s "$tree/$src" "$work/ovr/$src"; then
	die "the sed expression changed nothing in $src"
fi
diff -u "$tree/$src" "$work/ovr/$src" | tail -n +3 || true

orig=${cmd/-o $obj /-o $work/a.o }
mut=${cmd/-o $obj /-o $work/b.o }
map="-fmacro-prefix-map=$work/ovr/="
if [[ $src == *.c ]]; then
	mut=${mut/ $tree\/$src/ $map $work/ovr/$src}
else
	mut=${mut/-nostdinc /-nostdinc $map -I$work/ovr/include }
fi
if [ "$orig" = "$cmd" ] || [ "$mut" = "$orig" ]; then
	die "could not place the copy in the command line of $obj"
fi
(cd "$kbuild" && eval "$orig" && eval "$mut") >"$work/cc.log" 2>&1 ||
	{ tail -n 20 "$work/cc.log" >&2; die "the compile failed (above)"; }
for o in a b; do
	objdump -dr --no-show-raw-insn "$work/$o.o" | tail -n +4 |
		sed -E 's/(__UNIQUE_ID_[A-Za-z_]*)[0-9]+/\1N/g' >"$work/$o.dis"
done
if cmp -s "$work/a.dis" "$work/b.dis"; then
	echo "IDENTICAL: $obj, $(wc -l <"$work/a.dis") lines of disassembly"
	exit 0
fi
echo "DIFFERENT: $obj"
diff "$work/a.dis" "$work/b.dis" | head -n 60 || true
exit 1
