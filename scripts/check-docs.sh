#!/usr/bin/env bash
# check-docs: the docs say what is true, and stay where they belong.
# Run by make check; needs nothing but the checkout (and make, for
# 'make -s help'). Fails, naming each problem, when:
#  - README.md, the front page, has more than README_MAX lines;
#  - its status table's series size (the count and each folder's) is not
#    patches/series' (its non-comment lines), or its Summary line is not
#    the one of the newest entry of selftests/results/default-set.md;
#  - another doc (selftests/README.md, bench/README.md, scripts/**/README.md,
#    README.md outside that table) states the series' patch count ("68
#    patches", "the 68-patch series"): the count goes stale there, the
#    table is checked;
#  - a reference doc (every *.md outside selftests/results/) has a dated
#    line (2026-12-05, 2026-12-0x): dated results live in the results
#    tree alone;
#  - a results file (selftests/results/*.md but its README.md) has a
#    "## " entry whose heading does not start with a date and name the
#    series' form, or entries that are not newest first;
#  - a target of the Makefile's .PHONY lists is not named in 'make help'
#    or not in README.md and the docs it links to;
#  - a relative link of a doc points to a file that does not exist.
# It prints what it checked.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

README_MAX=250
RESULTS=selftests/results
# The *.md files that may carry dates although they are not results:
# patches/TRAILERS.md cites the upstream mails a trailer was confirmed
# in, each with the mail's date, part of the citation.
DATED_OK="patches/TRAILERS.md"
DATE_RE='[0-9]{4}-[0-9]{2}-([0-9]{2}|[0-9]x)'
SUMMARY_RE='Summary: [0-9]+/[0-9]+ PASSED, [0-9]+ SKIPPED, [0-9]+ FAILED'

step check-docs
cd "$TOP"
problems=()
problem() { problems+=("$*"); }

# The docs: every Markdown file of the checkout that git tracks or would
# track (new ones included, ignored ones not); outside git, every one.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t docs < <(git ls-files -co --exclude-standard -- '*.md' | sort -u |
		while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done)
else
	mapfile -t docs < <(find . -name '*.md' -not -path './.git/*' | sed 's|^\./||' | sort)
fi
[ "${#docs[@]}" -gt 0 ] || die "no *.md files found in $TOP"
[ -f README.md ] || die "no README.md in $TOP"

# 1. The front page's length.
lines=$(wc -l <README.md)
[ "$lines" -le "$README_MAX" ] ||
	problem "README.md has $lines lines, more than $README_MAX: move reference text into the docs it links to (scripts/README.md, selftests/README.md, ...)"
msg "README.md: $lines lines (at most $README_MAX)"

# 2. The status table: the series' size.
mapfile -t series < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' patches/series)
folders=() sizes=()
declare -A size=()
for p in "${series[@]}"; do
	d=${p%%/*}
	[ -n "${size[$d]+set}" ] || folders+=("$d")
	size[$d]=$((${size[$d]:-0} + 1))
done
for d in "${folders[@]}"; do sizes+=("$d/ ${size[$d]}"); done
count=${#series[@]}
joined=$(IFS=,; echo "${sizes[*]}")
expected="$count patches: ${joined//,/, }"
row=$(grep -m 1 '^| the series |' README.md || true)
if [ -z "$row" ]; then
	problem "README.md has no status row '| the series | $expected (\`patches/series\`) |'"
else
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	stated=$(awk -F'|' '{ print $3 }' <<<"$row" | sed -E 's/^ +//; s/ *\(`patches\/series`\) *$//; s/ +$//')
	[ "$stated" = "$expected" ] ||
		problem "README.md's status table says the series is '$stated'; patches/series has $expected"
fi
msg "series: $expected (patches/series), as README.md's status table says"

# ... and the newest default-set Summary.
newest=$(awk '/^## /{ if (found) exit; if ($2 ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/) { found = 1; print; next } }
	found { print }' "$RESULTS/default-set.md")
newest_head=$(head -n 1 <<<"$newest")
newest_summary=$(tr -s ' \n' '  ' <<<"$newest" | grep -oE "$SUMMARY_RE" | head -n 1 || true)
row=$(grep -m 1 '^| the latest default-set run |' README.md || true)
stated=$(grep -oE "$SUMMARY_RE" <<<"$row" | head -n 1 || true)
if [ -z "$newest_summary" ]; then
	problem "$RESULTS/default-set.md: its newest entry ('${newest_head:-none}') has no '$SUMMARY_RE' line"
elif [ -z "$row" ] || [ -z "$stated" ]; then
	problem "README.md has no status row '| the latest default-set run | \`$newest_summary\` ... |'"
elif [ "$stated" != "$newest_summary" ]; then
	problem "README.md's status table says '$stated'; the newest entry of $RESULTS/default-set.md ('$newest_head') says '$newest_summary'"
fi
msg "default set: '$newest_summary' (${newest_head#\#\# }), as README.md's status table says"

# 3. The patch count nowhere else.
count_docs=(README.md selftests/README.md bench/README.md)
mapfile -t -O ${#count_docs[@]} count_docs < <(find scripts -name README.md | sort)
count_re="(^|[^0-9.])$count([ -][A-Za-z'-]+){0,2}[ -](patch|mail)"
n=0
for f in "${count_docs[@]}"; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	while IFS=: read -r ln text; do
		[ "$f" != README.md ] || [[ $text != "| the series |"* ]] || continue
		problem "$f:$ln: states the series' patch count ($count): '$text'; say 'the series' and leave the count to README.md's status table"
	done < <(grep -niE "$count_re" "$f" || true)
done
msg "patch count $count: stated in README.md's status table alone ($n docs read)"

# 4. No dates outside the results tree.
n=0
for f in "${docs[@]}"; do
	case $f in "$RESULTS"/* | "$DATED_OK") continue ;; esac
	n=$((n + 1))
	while IFS=: read -r ln text; do
		problem "$f:$ln: a dated line in a reference doc: '$text'; dated results go to $RESULTS/ (one file per kind, newest first)"
	done < <(grep -nE "$DATE_RE" "$f" || true)
done
msg "no dates in $n reference docs (outside $RESULTS/; exempt: $DATED_OK)"

# 5. The results files: entries headed by their date and the series' form,
# newest first.
mapfile -t result_files < <(find "$RESULTS" -maxdepth 1 -name '*.md' ! -name README.md | sort)
out=$(awk '
	function flush() { if (fname != "" && e == 0) print "P\t" fname ": no dated entry (\"## YYYY-MM-DD, the ... series: ...\")" }
	FNR == 1 { flush(); fname = FILENAME; prev = ""; e = 0; files++ }
	/^## / {
		e++; entries++
		if (!match($0, /^## [0-9][0-9][0-9][0-9]-[0-9][0-9]-([0-9][0-9]|[0-9]x)/)) {
			print "P\t" FILENAME ":" FNR ": an entry'"'"'s heading must start with its date: '"'"'" $0 "'"'"'"; next
		}
		date = substr($0, 4, 10)
		if ($0 !~ /series/)
			print "P\t" FILENAME ":" FNR ": an entry'"'"'s heading must name the form of the series it ran on: '"'"'" $0 "'"'"'"
		if (prev != "" && date > prev)
			print "P\t" FILENAME ":" FNR ": entry of " date " after one of " prev ": entries go newest first"
		prev = date
	}
	END { flush(); print "N\t" files + 0 "\t" entries + 0 }' "${result_files[@]}")
while IFS=$'\t' read -r kind a b; do
	case $kind in
	P) problem "$a" ;;
	N) files=$a entries=$b ;;
	esac
done <<<"$out"
msg "results: $files files in $RESULTS/, $entries entries, each headed by its date and series, newest first"

# 6. Every .PHONY target in make help and in the docs.
mapfile -t targets < <(awk '
	/^\.PHONY:/ { sub(/^\.PHONY:/, ""); on = 1 }
	on { line = $0; on = (line ~ /\\$/); sub(/\\$/, "", line); n = split(line, w, /[ \t]+/)
	     for (i = 1; i <= n; i++) if (w[i] != "") print w[i] }' Makefile | sort -u)
help=$(submake -s -C "$TOP" help 2>&1) || die "make -s help failed: $help"
# The docs README.md leads to: itself and the Markdown files it links to.
linked=(README.md)
while read -r l; do
	l=${l%%#*}
	[ -n "$l" ] || continue
	[ ! -d "$l" ] || l=${l%/}/README.md
	[[ $l == *.md ]] && [ -f "$l" ] && linked+=("$l")
done < <(grep -oE '\]\([^)]+\)' README.md | sed -E 's/^\]\(//; s/\)$//' | grep -vE '^[a-z]+:' || true)
mapfile -t linked < <(printf '%s\n' "${linked[@]}" | sort -u)
for t in "${targets[@]}"; do
	te=${t//./\\.}
	if [[ $t == *-* ]]; then
		grep -qE "(^|[^A-Za-z0-9_-])$te([^A-Za-z0-9_-]|$)" <<<"$help" ||
			problem "make help does not name the target '$t' (Makefile .PHONY)"
	else
		# A plain word (help, lint) counts only as a line's first word, not in prose.
		grep -qE "^[[:space:]]+$te([[:space:]]|,|$)" <<<"$help" ||
			problem "make help has no line for the target '$t' (Makefile .PHONY)"
	fi
	grep -qE "\`(make )?${te}[\` ]" "${linked[@]}" ||
		problem "the target '$t' (Makefile .PHONY) is named neither in README.md nor in a doc it links to (as \`make $t\`)"
done
msg "targets: the ${#targets[@]} of the Makefile's .PHONY lists in make help and in ${#linked[@]} docs (README.md and those it links to)"

# 7. Relative links point to files.
links=0
for f in "${docs[@]}"; do
	dir=$(dirname "$f")
	while IFS=: read -r ln l; do
		l=${l#](}
		l=${l%)}
		l=${l%% *}
		case $l in '' | '#'* | [a-z]*:*) continue ;; esac
		links=$((links + 1))
		[ -e "$dir/${l%%#*}" ] || problem "$f:$ln: the link '$l' points to nothing ($dir/${l%%#*})"
	done < <(grep -noE '\]\([^)]+\)' "$f" || true)
done
msg "links: $links relative links in ${#docs[@]} docs resolve"

if [ "${#problems[@]}" -gt 0 ]; then
	printf '  - %s\n' "${problems[@]}" >&2
	die "check-docs: ${#problems[@]} problem(s) in the docs (above)"
fi
step_done "README.md, its status table, dates, results, targets and links agree"
