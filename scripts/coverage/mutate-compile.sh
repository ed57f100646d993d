#!/usr/bin/env bash
# mutate-compile: do make mutate's schemata compile? Without a kernel
# build: writes every mutant of scripts/coverage/mutate-gen.py into a
# scratch copy of the mutated files (OUT, default $BUILD/mutate-compile;
# TREE is only read), then compiles each object that holds or includes
# them with the test kernel's own gcc command line (its .o.cmd in
# $BUILD/kernel, so the test kernel must have been built once), the
# scratch copy first on the include path, one object at a time at nice
# 19, into OUT. The compiler's errors are mapped to their mutants
# (mutate-gen.py nobuild) and listed in OUT/nobuild.tsv; the schemata
# build of make mutate would leave those out. Also OUT/mutants.tsv, the
# list (counts per file and operator: OUT/operators.md).
#
# The #if branches are those of $BUILD/kernel/.config (the test config;
# make mutate's list uses the coverage build's, the same fragments but
# gcov). Not part of any target: a check to run by hand after a change
# of the generator, in about a minute.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

OUT=${OUT:-$BUILD/mutate-compile}
KB=$BUILD/kernel
OBJECTS=$TOP/configs/coverage.objects
step mutate-compile
[ -f "$KB/.config" ] || die "$KB/.config not found: the test kernel must have been built (make kernel)"
applied=$(tree_git rev-parse -q --verify refs/netkit/applied) || die "$TREE has no applied series; run: make apply"
mapfile -t specs < <(awk '!/^[[:space:]]*(#|$)/ { f = $1; sub(/\.o$/, ".c", f); print ($2 == "added" ? f ":added" : f) }' "$OBJECTS")
specs+=(include/linux/bpf_mprog.h include/net/tcx.h include/net/netkit.h)
rm -rf "$OUT"
for s in "${specs[@]%:added}"; do
	mkdir -p "$OUT/$(dirname "$s")"
done
gen=$TOP/scripts/coverage/mutate-gen.py
python3 "$gen" list --tree "$TREE" --rev "$applied" --config "$KB/.config" "${specs[@]}" >"$OUT/mutants.tsv"
python3 "$gen" schemata --tree "$TREE" --rev "$applied" --config "$KB/.config" --out "$OUT" "${specs[@]}" \
	>"$OUT/schemata-lines.tsv"

# The objects: the mutated .c files', and every object whose dependencies
# name one of the mutated headers.
mapfile -t objs < <(
	for s in "${specs[@]%:added}"; do [[ $s == *.c ]] && echo "${s%.c}.o"; done
	cd "$KB" && find . -name '.*.o.cmd' -print0 |
		xargs -0 grep -l -e 'include/net/tcx.h' -e 'include/linux/bpf_mprog.h' -e 'include/net/netkit.h' |
		sed 's#^\./##; s#/\.\([^/]*\)\.o\.cmd$#/\1.o#'
)
mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
: >"$OUT/compile.log"
for o in "${objs[@]}"; do
	d=$(dirname "$o") b=$(basename "$o" .o)
	cmdfile=$KB/$d/.$b.o.cmd
	[ -f "$cmdfile" ] || die "$cmdfile not found: $o is not in the test kernel"
	cmd=$(sed -n '1s/^cmd_[^ ]* := //p' "$cmdfile")
	cmd=${cmd#ccache }
	src=$TREE/$d/$b.c
	[ ! -f "$OUT/$d/$b.c" ] || src=$OUT/$d/$b.c
	# no dependency file, the object into OUT, the scratch headers first,
	# the source's own directory for its "..." includes
	cmd=$(sed -E "s# -Wp,-MMD,[^ ]+##; s# -o $o # -o $OUT/$d/$b.o #; s# -nostdinc # -nostdinc -I$OUT/include -iquote $TREE/$d #; s#$TREE/$d/$b.c#$src#" <<<"$cmd")
	mkdir -p "$OUT/$d"
	rc=0
	(cd "$KB" && eval "nice -n 19 $cmd") >>"$OUT/compile.log" 2>&1 || rc=$?
	msg "$o: $([ "$rc" -eq 0 ] && echo compiles || echo "FAILS ($rc)")"
done
python3 "$gen" nobuild --lines "$OUT/schemata-lines.tsv" --log "$OUT/compile.log" "$OUT" "$TREE" |
	sort -u >"$OUT/nobuild.tsv"
python3 - "$OUT/mutants.tsv" >"$OUT/operators.md" <<'EOF'
import collections, sys
rows = [ln.rstrip('\n').split('\t') for ln in open(sys.argv[1])][1:]
files = list(dict.fromkeys(r[1] for r in rows))
c = collections.Counter((r[4], r[1]) for r in rows)
kind = {r[4]: r[9] for r in rows}
print('| operator | kernel | ' + ' | '.join(f.split('/')[-1] for f in files) + ' | all |')
print('|---|---|' + '---:|' * (len(files) + 1))
for o in sorted(kind, key=lambda o: (kind[o], o)):
    print(f'| {o} | {kind[o]} | ' + ' | '.join(str(c[(o, f)]) for f in files) + f' | {sum(c[(o, f)] for f in files)} |')
EOF
n=$(($(wc -l <"$OUT/mutants.tsv") - 1))
bad=$(cut -f1 "$OUT/nobuild.tsv" | sort -u | grep -vc '^none$' || true)
none=$(grep -c '^none' "$OUT/nobuild.tsv" || true)
[ "$none" -eq 0 ] || die "$none compiler errors at no mutant's lines (a generator bug?): $OUT/nobuild.tsv, $OUT/compile.log"
step_done "$n mutants, ${#objs[@]} objects; $bad do not compile ($OUT/nobuild.tsv); per operator: $OUT/operators.md"
