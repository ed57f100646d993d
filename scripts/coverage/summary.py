#!/usr/bin/env python3
"""coverage-summary: line and branch coverage of the series from an lcov
tracefile (scripts/coverage/report.sh).

    coverage-summary.py --tree TREE --info series.info --objects coverage.objects
                        --unrun selftests/coverage-unrun.txt --new unrun-new.txt

Prints a Markdown summary: per file of configs/coverage.objects its lines
and branches run ("all": every line with code; "added": only the lines the
series adds, from git diff base-<version> refs/netkit/applied), then the
series' headers (inline functions, summed over the objects that use
them). Then checks the unrun lines of the files in UNRUN_REQUIRED against
the explanations file: every unrun line must fall in an entry

    FILE:LINE[-LAST] <TAB> TEXT <TAB> CLASS <TAB> REASON

whose TEXT is the stripped source of LINE (so an entry that the code
moved away from is found), CLASS one of unreachable, fault, test. Exits 1
if a line is unexplained (written to --new, as entries to complete), an
entry's text changed, or an "unreachable" entry's lines ran; a "fault" or
"test" entry whose lines ran (a race of the suite can reach them) is a
note.
"""

import argparse
import collections
import re
import subprocess
import sys

import lcov
import serieslines

UNRUN_REQUIRED = ('drivers/net/netkit.c', 'kernel/bpf/mprog.c', 'kernel/bpf/tcx.c')
CLASSES = ('unreachable', 'fault', 'test')
HEADERS = ('include/linux/bpf_mprog.h', 'include/net/tcx.h', 'include/net/netkit.h')


def added_lines(tree, path):
    base = subprocess.run(['git', '-C', tree, 'describe', '--tags', '--abbrev=0', '--match', 'base-*',
                           'refs/netkit/applied'], check=True, capture_output=True, text=True).stdout.strip()
    return serieslines.added_lines(tree, base, 'refs/netkit/applied', path)


def pct(a, b):
    return f'{100.0 * a / b:.1f} %' if b else '-'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tree', required=True)
    ap.add_argument('--info', required=True)
    ap.add_argument('--objects', required=True)
    ap.add_argument('--unrun', required=True)
    ap.add_argument('--new', required=True)
    a = ap.parse_args()
    info = lcov.read(a.info)
    rows = []
    with open(a.objects) as f:
        for ln in f:
            if ln.strip() and not ln.lstrip().startswith('#'):
                o, mode = ln.split()[:2]
                rows.append((o[:-2] + '.c', mode))
    rows += [(h, 'inline') for h in HEADERS]
    w = sys.stdout.write
    w('| file | counted | lines run | lines | line coverage | branches taken | branches | branch coverage |\n')
    w('|---|---|---:|---:|---:|---:|---:|---:|\n')
    unrun = {}
    for path, mode in rows:
        src = f'{a.tree}/{path}'
        d = info.get(src)
        if d is None:
            w(f'| {path} | {mode} | no data | | | | | |\n')
            continue
        lines = set(d.lines)
        if mode == 'added':
            lines &= added_lines(a.tree, path)
        hit = sum(1 for i in lines if d.lines[i] > 0)
        br = [k for k in d.branches if k[0] in lines]
        taken = sum(1 for k in br if d.branches[k] > 0)
        label = {'all': 'every line', 'added': 'lines the series adds',
                 'inline': 'inline functions, all objects'}[mode]
        w(f'| {path} | {label} | {hit} | {len(lines)} | {pct(hit, len(lines))} | '
          f'{taken} | {len(br)} | {pct(taken, len(br))} |\n')
        if path in UNRUN_REQUIRED:
            unrun[path] = sorted(i for i in lines if d.lines[i] == 0)
    # the explanations
    entries = []
    with open(a.unrun) as f:
        for n, ln in enumerate(f, 1):
            if not ln.strip() or ln.startswith('#'):
                continue
            p = ln.rstrip('\n').split('\t')
            m = re.fullmatch(r'(\S+):(\d+)(?:-(\d+))?', p[0])
            if len(p) != 4 or not m or p[2] not in CLASSES:
                raise SystemExit(f'{a.unrun}:{n}: not "FILE:LINE[-LAST]<TAB>TEXT<TAB>CLASS<TAB>REASON" '
                                 f'with CLASS one of {", ".join(CLASSES)}')
            first = int(m.group(2))
            entries.append({'file': m.group(1), 'first': first, 'last': int(m.group(3) or first),
                            'text': p[1], 'class': p[2], 'reason': p[3], 'n': n, 'used': False})
    problems, new, notes = [], [], []
    source = {}
    by_class = collections.Counter()
    for path, lines in unrun.items():
        with open(f'{a.tree}/{path}') as f:
            source[path] = [''] + [x.strip() for x in f]
        for i in lines:
            e = next((e for e in entries if e['file'] == path and e['first'] <= i <= e['last']), None)
            if e is None:
                new.append(f'{path}:{i}\t{source[path][i]}\t?\t?')
                continue
            e['used'] = True
            by_class[e['class']] += 1
    for e in entries:
        src = source.get(e['file'])
        if src is None:
            problems.append(f"{a.unrun}:{e['n']}: {e['file']} is not a file whose unrun lines are explained")
        elif src[e['first']] != e['text']:
            problems.append(f"{a.unrun}:{e['n']}: {e['file']}:{e['first']} is now '{src[e['first']]}', "
                            f"the entry says '{e['text']}' (the code moved?)")
        elif not e['used'] and e['class'] == 'unreachable':
            problems.append(f"{a.unrun}:{e['n']}: {e['file']}:{e['first']}-{e['last']} ran: "
                            f"not unreachable after all")
        elif not e['used']:
            # a missing test's or fault path's lines that a race of the
            # suite reached this time: said, not fatal
            notes.append(f"{a.unrun}:{e['n']}: {e['file']}:{e['first']}-{e['last']} ran this time "
                         f"({e['class']}): the entry may be stale")
    total = sum(len(v) for v in unrun.values())
    w(f'\nUnrun lines of {", ".join(p.split("/")[-1] for p in UNRUN_REQUIRED)}: {total}; explained in '
      f'selftests/coverage-unrun.txt: ' + ', '.join(f'{c} {by_class[c]}' for c in CLASSES) +
      f'; unexplained {len(new)}\n')
    with open(a.new, 'w') as f:
        f.write(''.join(x + '\n' for x in new))
    for p in notes:
        w(f'note: {p}\n')
    for p in problems:
        w(f'problem: {p}\n')
    sys.exit(1 if new or problems else 0)


if __name__ == '__main__':
    main()
