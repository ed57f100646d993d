#!/usr/bin/env python3
"""mutate: the host side of make mutate (scripts/coverage/mutate-run.sh calls it).

    mutate.py sample  --mutants M --nobuild F --info I --seed S --max N > sample.tsv
    mutate.py tests   --tree TREE --area NAME=TERMS... > tests.tsv
    mutate.py plan    --sample S --results R --tests T --per-boot K --dir D
    mutate.py collect --sample S --results R --dir D --status STATUS --splat-re RE
    mutate.py report  --sample S --results R --equivalent E [--mutants M] [--title T]

sample: the mutants of one run. Every mutant of mutants.tsv (from
mutate-gen.py list) gets its area (the tests that judge it: the areas
that list its file in selftests/areas, a file of none every area) and a
class before any boot: nobuild (the schemata build refused it), notexec
(no line of it ran in make coverage: no line record with a count, or,
for lines without code, a function that never ran) or run. Then --max
of them are drawn with --seed: the series' own files (netkit.c, mprog.c,
tcx.c) first, the hunks in shared files at most a sixth; within each,
round robin over (file, operator), each group shuffled by the seed. The
same inputs give the same sample. --max all: every mutant.

tests: the tests of each area (one --area NAME=TERMS for each area of
selftests/areas, TERMS "test_progs terms;guest tests"), expanded from
the test_progs terms that scripts/select-tests.sh gives for T=<area>
into single tests (and tc_redirect into its subtests, by the RUN_TEST
lines of its source), then the guest tests; one a line: area, kind (tp,
guest), name.

plan: the next boot: up to --per-boot pending mutants (an __init one only
first, alone: it is selected on the command line) into D/plan, the tests
into D/tests in the order of the kills so far per second of the
baseline's time (cheap killers first), each with its limit (4x its
baseline time + 30 s). The mutants go the files in turn (so that a run
stopped halfway has judged some of each); with --slots N guests at a
time, guest --slot K takes every Nth of them from the Kth. Prints "CMDLINE TIMEOUT"
for the boot. With no baseline yet, the plan is the baseline: mutant 0,
every test.

collect: reads D/result (the guest's MUT lines) and D/console.log after
a boot that ended with --status (scripts/run-qemu.sh's record: finished,
timeout, boot-timeout) and appends the verdicts to the results file:
killed (by the first failing test), survived, timeout (a test's limit,
a hung task, a soft lockup or the run's limit), crash (a kernel panic
during a test: killed); a kill that never reached the mutant (hits 0) is
a flaky test or state left by another mutant: the mutant runs again
once. A survivor whose console shows a kernel warning is killed by it.
Kernel trouble is --splat-re, lib.sh's KERNEL_SPLAT_RE (scripts/verdict.sh's).

report: the tables (per file and operator, before any boot and after),
the score (killed of the mutants that build and ran), every survivor with
its line, and the equivalents that selftests/mutate-equivalent.txt argues.
An equivalence is keyed by the mutant's columns without its line plus
NTH, which of the mutants with those columns in its function it is
(counted over mutants.tsv in line order): the key survives line moves and
tells two equal constructs of one function apart.
"""

import argparse
import collections
import itertools
import math
import os
import random
import re
import subprocess
import sys

import lcov

CORE = ('drivers/net/netkit.c', 'kernel/bpf/mprog.c', 'kernel/bpf/tcx.c')
# Kernel trouble on the console: collect's --splat-re, the one copy of
# the pattern being scripts/lib.sh's KERNEL_SPLAT_RE.
TROUBLE = None


def area_of(path):
    """The areas whose tests judge a mutant of path (read_areas)."""
    return ' '.join(a for a, f in read_areas().items() if path in f.get('files', ())) or every_area()


def read_tsv(path):
    with open(path) as f:
        head = f.readline().rstrip('\n').split('\t')
        return [dict(zip(head, ln.rstrip('\n').split('\t'))) for ln in f if ln.strip()]


def write_tsv(rows, cols, out=sys.stdout):
    out.write('\t'.join(cols) + '\n')
    for r in rows:
        out.write('\t'.join(str(r.get(c, '')) for c in cols) + '\n')


def executed(info, path, first, last, func):
    for src, s in info.items():
        if not src.endswith('/' + path):
            continue
        counts = [s.lines[i] for i in range(first, last + 1) if i in s.lines]
        if counts:
            return any(c > 0 for c in counts)
        return s.functions[func] > 0
    return None


def cmd_sample(a):
    muts = read_tsv(a.mutants)
    nobuild = set()
    if os.path.exists(a.nobuild):
        with open(a.nobuild) as f:
            nobuild = {int(x.split()[0]) for x in f if x.strip() and not x.startswith('#')}
    info = lcov.read(a.info)
    for m in muts:
        m['area'] = area_of(m['file'])
        mid = int(m['id'])
        if mid in nobuild:
            m['class'] = 'nobuild'
            continue
        ex = executed(info, m['file'], int(m['line']), int(m['last']), m['function'])
        if ex is None:
            raise SystemExit(f"mutate: {m['file']} is not in the coverage data {a.info}")
        m['class'] = 'run' if ex else 'notexec'
    if a.max == 'all':
        chosen = muts
    else:
        total = int(a.max)
        rng = random.Random(int(a.seed))
        core = [m for m in muts if m['file'] in CORE]
        hunks = [m for m in muts if m['file'] not in CORE]
        n_h = min(len(hunks), total // 6)
        n_c = min(len(core), total - n_h)
        n_h = min(len(hunks), total - n_c)
        chosen = round_robin(core, n_c, rng) + round_robin(hunks, n_h, rng)
    chosen.sort(key=lambda m: int(m['id']))
    write_tsv(chosen, ['id', 'file', 'line', 'last', 'operator', 'function', 'init', 'area', 'class',
                       'original', 'mutated'])


def round_robin(muts, n, rng):
    groups = collections.OrderedDict()
    for m in sorted(muts, key=lambda m: (m['file'], m['operator'], int(m['id']))):
        groups.setdefault((m['file'], m['operator']), []).append(m)
    for g in groups.values():
        rng.shuffle(g)
    out = []
    while len(out) < n:
        for g in groups.values():
            if g and len(out) < n:
                out.append(g.pop())
    return out


# The areas: selftests/areas, their registry (its header says the
# format), read once: {area: {field: [word, ...]}} in its order.
AREAS = None


def read_areas():
    global AREAS
    if AREAS is None:
        AREAS = {}
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../selftests/areas')) as f:
            for ln in f:
                w = ln.split('#', 1)[0].split()
                if len(w) > 1:
                    AREAS.setdefault(w[0], {})[w[1]] = w[2:]
    return AREAS


def every_area():
    """The areas of a mutant in a file of no area's: every area, the last
    of the registry first - tcx's tests before netkit's, the order the
    verdicts so far (which test killed a shared mutant) were judged in."""
    return ' '.join(reversed(list(read_areas())))


def cmd_tests(a):
    out = []
    given = [x.split('=', 1) for x in a.area]
    if sorted(x[0] for x in given) != sorted(read_areas()) or min(len(x) for x in given) != 2:
        raise SystemExit(f"mutate: tests wants one --area NAME=TERMS for each area of selftests/areas "
                         f"({' '.join(read_areas())}), not {a.area}")
    for area, terms in given:
        tp_terms, guests = terms.split(';')
        tp_dir = os.path.join(a.tree, 'tools/testing/selftests/bpf/prog_tests')
        names = []
        for fn in sorted(os.listdir(tp_dir)):
            if fn.endswith('.c'):
                with open(os.path.join(tp_dir, fn)) as f:
                    src = f.read()
                for m in re.finditer(r'^void (?:serial_)?test_(\w+)\((?:void)?\)', src, re.M):
                    names.append((m.group(1), src))
        for term in tp_terms.split(','):
            term = term.strip()
            if not term:
                continue
            for name, src in names:
                if term in name:
                    subs = list(dict.fromkeys(re.findall(r'^\s*RUN_TEST\((\w+),', src, re.M)))
                    if subs:
                        out += [(area, 'tp', f'{name}/{s}') for s in subs]
                    else:
                        out.append((area, 'tp', name))
        out += [(area, 'guest', g) for g in guests.split()]
    seen = set()
    print('area\tkind\tname')
    for r in out:
        if r not in seen:
            seen.add(r)
            print('\t'.join(r))


def read_results(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for ln in f:
                if ln.startswith('#') or not ln.strip():
                    continue
                p = ln.rstrip('\n').split('\t')
                rows.append({'id': int(p[0]), 'verdict': p[1], 'by': p[2], 'hits': p[3],
                             'detail': p[4] if len(p) > 4 else ''})
    return rows


def tkey(t):
    return f"{t['area']}:{t['name']}"


def baseline(results):
    """{test: seconds} of the baseline run, or None."""
    times = {}
    for r in results:
        if r['id'] == 0 and r['verdict'] == 'test':
            times[r['by']] = float(r['detail'])
    if any(r['id'] == 0 and r['verdict'] == 'survived' for r in results):
        return times
    return None


def final(results):
    """The last verdict of each mutant (retries superseded)."""
    v = {}
    for r in results:
        if r['verdict'] != 'test':
            v[r['id']] = r
    return v


def cmd_plan(a):
    sample = read_tsv(a.sample)
    results = read_results(a.results)
    tests = read_tsv(a.tests)
    base = baseline(results)
    os.makedirs(a.dir, exist_ok=True)
    cmdline = 'rdinit=/mutate-init hung_task_panic=1 softlockup_panic=1'
    if base is None:
        plan = [('0', '0', every_area())]
        order = tests
        limits = {tkey(t): 1800 for t in tests}
    else:
        done = final(results)
        retries = collections.Counter(r['id'] for r in results if r['verdict'] == 'retry')
        # the files in turn (round robin, each in its sample order): a run
        # stopped halfway has judged some of every file
        by_file = collections.OrderedDict()
        for m in sample:
            if m['class'] == 'run':
                by_file.setdefault(m['file'], []).append(m)
        runs = [m for group in itertools.zip_longest(*by_file.values()) for m in group if m]
        pending = [m for i, m in enumerate(runs) if i % a.slots == a.slot and
                   (int(m['id']) not in done or done[int(m['id'])]['verdict'] == 'retry')]
        if not pending:
            print('done')
            return
        kills = collections.Counter(r['by'] for r in done.values() if r['verdict'] == 'killed')

        def score(t):
            return -(kills[tkey(t)] + 1) / (base.get(tkey(t), 60) + 1)
        order = sorted(tests, key=lambda t: (score(t), tkey(t)))
        limits = {tkey(t): int(math.ceil(4 * base.get(tkey(t), 60) + 30)) for t in tests}
        plan = []
        for m in pending:
            if m['init'] == '1':
                if not plan:
                    plan = [(m['id'], '1', m['area'])]
                    cmdline += f" netkit_mutant={m['id']}"
                break
            plan.append((m['id'], '0', m['area']))
            if len(plan) >= a.per_boot:
                break
        del retries
    with open(os.path.join(a.dir, 'plan'), 'w') as f:
        for p in plan:
            f.write(' '.join(p) + '\n')
    with open(os.path.join(a.dir, 'tests'), 'w') as f:
        for t in order:
            f.write(f"{t['area']} {t['kind']} {t['name']} {limits[tkey(t)]}\n")
    # the boot's limit: every planned mutant surviving every test
    per = {area: sum(limits[tkey(t)] for t in tests if t['area'] == area) for area in read_areas()}
    timeout = 120 + sum(sum(per[x] for x in p[2].split()) for p in plan)
    print(f'{cmdline}\t{timeout}')


def cmd_collect(a):
    global TROUBLE
    TROUBLE = re.compile(a.splat_re)
    results = read_results(a.results)
    sample = {m['id']: m for m in read_tsv(a.sample)} if a.sample else {}
    with open(os.path.join(a.dir, 'plan')) as f:
        plan = [ln.split()[0] for ln in f if ln.strip()]
    with open(os.path.join(a.dir, 'tests')) as f:
        order = [ln.split() for ln in f if ln.strip()]
    res = ''
    if os.path.exists(os.path.join(a.dir, 'result')):
        with open(os.path.join(a.dir, 'result'), errors='replace') as f:
            res = f.read()
    console = ''
    if os.path.exists(os.path.join(a.dir, 'console.log')):
        with open(os.path.join(a.dir, 'console.log'), errors='replace') as f:
            console = f.read().replace('\r', '')
    retried = collections.Counter(r['id'] for r in results if r['verdict'] == 'retry')
    out = []
    started = re.findall(r'^MUT (\d+) start$', res, re.M)
    for sid in started:
        mid = int(sid)
        tests_done = re.findall(rf'^MUT {sid} test (\S+) rc=(\d+) hits=(\d+) secs=([\d.]+)(.*)$', res, re.M)
        for name, rc, hits, secs, note in tests_done:
            if mid == 0:
                out.append((0, 'test', name, hits, secs))
        end = re.search(rf'^MUT {sid} (killed|survived)(?: (\S+))? hits=(\d+)$', res, re.M)
        seg = segment(console, sid)
        if end:
            verdict, by, hits = end.group(1), end.group(2) or '', end.group(3)
            detail = ''
            if verdict == 'killed':
                note = [t for t in tests_done if t[0] == by][-1][4].strip()
                if 'timeout' in note:
                    verdict, detail = 'timeout', f'{by} passed its limit'
                elif 'splat' in note:
                    detail = 'kernel warning: ' + first_trouble(seg)
                elif int(hits) == 0:
                    verdict = 'retry' if retried[mid] == 0 else 'killed'
                    detail = 'failed without reaching the mutant'
            elif verdict == 'survived':
                tr = first_trouble(seg)
                if tr:
                    verdict, by, detail = 'killed', 'kernel-log', 'kernel warning: ' + tr
                elif int(hits) == 0:
                    detail = 'not reached by its tests'
            if mid == 0 and verdict != 'survived':
                raise SystemExit(f'mutate: the baseline (no mutant) failed: {by} {detail}; '
                                 f'console {os.path.join(a.dir, "console.log")}')
            out.append((mid, verdict, by, hits, detail))
            continue
        # started, never finished: the kernel died or the run's limit hit
        running = None
        names_done = [t[0] for t in tests_done]
        area = (sample.get(sid, {}).get('area', every_area()) if mid else every_area()).split()
        for ar in area:
            for t in order:
                if t[0] == ar and f'{t[0]}:{t[2]}' not in names_done:
                    running = f'{t[0]}:{t[2]}'
                    break
            if running:
                break
        if re.search(r'blocked for more than|soft lockup|rcu_.*detected stalls', seg):
            verdict, detail = 'timeout', 'kernel hang: ' + first_trouble(seg)
        elif 'Kernel panic' in seg or 'Oops' in seg or 'BUG:' in seg:
            verdict, detail = 'crash', 'kernel panic: ' + first_trouble(seg)
        elif a.status in ('timeout', 'boot-timeout'):
            verdict, detail = 'timeout', f'the boot passed its limit ({a.status})'
        else:
            verdict, detail = 'crash', 'the guest stopped'
        if mid == 0:
            raise SystemExit(f'mutate: the baseline (no mutant) did not finish: {detail}; '
                             f'console {os.path.join(a.dir, "console.log")}')
        out.append((mid, verdict, running or '?', '?', detail))
    if not started:
        raise SystemExit(f'mutate: the guest started no mutant (plan {plan[:3]}...); '
                         f'console {os.path.join(a.dir, "console.log")}, result {os.path.join(a.dir, "result")}')
    # one write: guests that run at once append to the same file
    with open(a.results, 'a') as f:
        f.write(''.join('\t'.join(str(x) for x in r).replace('\n', ' ') + '\n' for r in out))
    for r in out:
        if r[1] != 'test':
            m = sample.get(str(r[0]), {})
            where = f"{m.get('file', '?').split('/')[-1]}:{m.get('line', '?')} {m.get('operator', '')}" if r[0] else 'baseline'
            print(f'    mutant {r[0]} ({where}): {r[1]}{" by " + r[2] if r[2] else ""}'
                  f'{" (" + r[4] + ")" if r[4] else ""}')


def segment(console, sid):
    m = re.search(rf'netkit-mutate: mutant {sid} start\n(.*?)(netkit-mutate: mutant {sid} (killed|survived)|\Z)',
                  console, re.S)
    return m.group(1) if m else ''


def first_trouble(seg):
    for ln in seg.splitlines():
        if TROUBLE.search(ln) and 'netkit-mutate:' not in ln:
            return re.sub(r'^.*?\] ', '', ln).strip()[:120]
    return ''


def read_equivalent(path):
    """FILE FUNCTION OPERATOR ORIGINAL MUTATED NTH WHY -> {key: WHY}."""
    eq = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for n, ln in enumerate(f, 1):
                if ln.startswith('#') or not ln.strip():
                    continue
                p = ln.rstrip('\n').split('\t')
                if len(p) != 7 or not p[5].isdigit():
                    sys.exit(f'{path}:{n}: want 7 tab-separated columns '
                             '(FILE FUNCTION OPERATOR ORIGINAL MUTATED NTH WHY)')
                eq[tuple(p[:6])] = p[6]
    return eq


def keys_of(mutants):
    """Each mutant's equivalence key: its columns without the line, and
    which of the mutants with those columns in its function it is (1 for
    the first in line order), so two equal constructs in one function
    (bpf_mprog_attach's BEFORE and AFTER branches) have different keys."""
    nth = collections.Counter()
    keys = {}
    for m in sorted(mutants, key=lambda m: (int(m['line']), int(m['id']))):
        k = (m['file'], m['function'], m['operator'], m['original'], m['mutated'])
        nth[k] += 1
        keys[m['id']] = k + (str(nth[k]),)
    return keys


def cmd_report(a):
    sample = read_tsv(a.sample)
    res = final(read_results(a.results))
    eq = read_equivalent(a.equivalent)
    keys = keys_of(read_tsv(a.mutants or os.path.join(os.path.dirname(a.sample), 'mutants.tsv')))
    rows = collections.OrderedDict()
    surv = []
    totals = collections.Counter()
    pending = 0
    for m in sample:
        mid = int(m['id'])
        if m['class'] != 'run':
            c = m['class']
        elif mid in res and res[mid]['verdict'] != 'retry':
            c = res[mid]['verdict']
        else:
            c = 'pending'
            pending += 1
        if c == 'crash':
            c = 'killed'
        key = (m['file'].split('/')[-1], m['operator'])
        rows.setdefault(key, collections.Counter())[c] += 1
        totals[c] += 1
        if c == 'survived':
            surv.append((m, res[mid], eq.get(keys[m['id']])))
    w = sys.stdout.write
    cols = ['killed', 'timeout', 'survived', 'nobuild', 'notexec', 'pending']
    w(f"{a.title}\n\n")
    w('| file | operator | mutants | ' + ' | '.join(cols) + ' | score |\n')
    w('|---|---|---:|' + '---:|' * len(cols) + '---:|\n')
    files = collections.OrderedDict()
    for (f, op), c in rows.items():
        files.setdefault(f, collections.Counter()).update(c)
        w(f'| {f} | {op} | {sum(c.values())} | ' + ' | '.join(str(c[x]) for x in cols) + f' | {score(c)} |\n')
    for f, c in files.items():
        w(f'| **{f}** | all | {sum(c.values())} | ' + ' | '.join(str(c[x]) for x in cols) + f' | {score(c)} |\n')
    w(f'| **all** | all | {sum(totals.values())} | ' + ' | '.join(str(totals[x]) for x in cols) +
      f' | {score(totals)} |\n\n')
    ran = totals['killed'] + totals['timeout'] + totals['survived']
    n_eq = sum(1 for s in surv if s[2])
    no_eq = collections.Counter(totals)
    no_eq['survived'] -= n_eq
    w(f"mutate: {sum(totals.values())} mutants: {totals['killed']} killed, {totals['timeout']} timed out, "
      f"{totals['survived']} survived ({n_eq} argued equivalent), {totals['nobuild']} do not build, "
      f"{totals['notexec']} not executed, {pending} pending; "
      f"score {score(totals)} of {ran} that build and ran, "
      f"{score(no_eq)} of the {ran - n_eq} not argued equivalent\n\n")
    if surv:
        w('Survivors (file:line operator: original -> mutated; killed by nothing'
          '; equivalence argument if any):\n\n')
        for m, r, e in surv:
            w(f"- {m['id']} {m['file']}:{m['line']} {m['function']} {m['operator']}: "
              f"`{m['original']}` -> `{m['mutated']}`"
              f"{' [' + r['detail'] + ']' if r['detail'] else ''}"
              f"{chr(10) + '  equivalent: ' + e if e else ''}\n")
    killers = collections.Counter(r['by'] for i, r in res.items() if i and r['verdict'] in ('killed', 'crash'))
    if killers:
        w('\nKills by test: ' + ', '.join(f'{k} {n}' for k, n in killers.most_common()) + '\n')


def score(c):
    k = c['killed'] + c['timeout']
    n = k + c['survived']
    return f'{100.0 * k / n:.1f} %' if n else '-'


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('sample')
    p.add_argument('--mutants', required=True)
    p.add_argument('--nobuild', required=True)
    p.add_argument('--info', required=True)
    p.add_argument('--seed', default='1')
    p.add_argument('--max', default='200')
    p = sub.add_parser('tests')
    p.add_argument('--tree', required=True)
    p.add_argument('--area', action='append', required=True, metavar='NAME=TERMS')
    p = sub.add_parser('plan')
    p.add_argument('--sample', required=True)
    p.add_argument('--results', required=True)
    p.add_argument('--tests', required=True)
    p.add_argument('--per-boot', type=int, default=10)
    p.add_argument('--dir', required=True)
    p.add_argument('--slot', type=int, default=0)
    p.add_argument('--slots', type=int, default=1)
    p = sub.add_parser('collect')
    p.add_argument('--sample')
    p.add_argument('--results', required=True)
    p.add_argument('--dir', required=True)
    p.add_argument('--status', required=True, choices=('finished', 'timeout', 'boot-timeout'))
    p.add_argument('--splat-re', required=True)
    p = sub.add_parser('report')
    p.add_argument('--sample', required=True)
    p.add_argument('--results', required=True)
    p.add_argument('--equivalent')
    p.add_argument('--mutants', help="mutants.tsv (default: the sample's directory)")
    p.add_argument('--title', default='make mutate')
    a = ap.parse_args()
    {'sample': cmd_sample, 'tests': cmd_tests, 'plan': cmd_plan, 'collect': cmd_collect,
     'report': cmd_report}[a.cmd](a)


if __name__ == '__main__':
    main()
