#!/usr/bin/env python3
"""mutate: the host side of make mutate (scripts/coverage/mutate-run.sh calls it).

    mutate.py seed    --registry R [--seed S] [--reuse 1] --identity I --kernel K --max N --date D
    mutate.py sample  --mutants M --nobuild F --info I --seed S --max N --kernel K --strata T > sample.tsv
    mutate.py tests   --tree TREE --area NAME=TERMS... > tests.tsv
    mutate.py plan    --sample S --results R --tests T --per-boot K --dir D [--cmdline C]
    mutate.py collect --sample S --results R --dir D --status STATUS --splat-re RE
    mutate.py report  --sample S --results R --strata T --seed S --phase P [--verdicts V] ...
    mutate.py seed-done --registry R --seed S --score TEXT
    mutate.py carry   --prev R --name N --mutants M --tests T
    mutate.py manifest CPIO
    mutate.py selftest

seed: the seed of a run. selftests/results/mutate-seeds is the registry
of the seeds drawn so far; no seed (MUTATE_SEED empty) is the next one
it has not used, registered then. A used seed is refused, unless its
held-out round is still being judged on the same identity (a stopped run
going on), or with --reuse 1 (MUTATE_REUSE_SEED=1): then its verdicts are
an "after" score, the held-out one being the registry's. seed-done writes
a finished held-out round's score there.

sample: the mutants of one run. Every mutant of mutants.tsv (from
mutate-gen.py list) of the kernel (--kernel: test, or debug for the
operators the debug kernel judges) gets its area (the tests that judge it:
the areas that list its file in selftests/areas, a file of none every
area) and a class before any boot: nobuild (the schemata build refused
it), notexec (no line of it ran in make coverage: no line record with a
count, or, for lines without code, a function that never ran) or run.
Then --max of the run ones are drawn with --seed, stratified by file and
operator: one from each stratum, the rest in proportion to the strata's
sizes (largest remainder), each stratum's draw uniform. Each drawn
mutant carries its stratum and weight N_h / n_h; --strata gets the
population per stratum (run, notexec, nobuild, sampled), what the
report weights back with. The same inputs give the same sample.

tests: the tests of each area (one --area NAME=TERMS for each area of
selftests/areas, TERMS "test_progs terms;guest tests"), expanded from
the test_progs terms that scripts/select-tests.sh gives for T=<area>
into single tests (and tc_redirect into its subtests, by the RUN_TEST
lines of its source), then the guest tests; one a line: area, kind (tp,
guest), name.

plan: the next boot: a mutant to judge again (retry, confirm,
survived-shared) alone, else up to --per-boot new ones (an __init one
only first, alone: it is selected on the command line) into D/plan, the
tests into D/tests in the order of the kills so far per second of the
baseline's time (cheap killers first), each with its limit (4x its
baseline time + 30 s). The mutants go the files in turn (so that a run
stopped halfway has judged some of each); with --slots N guests at a
time, guest --slot K takes every Nth of them from the Kth. Prints
"CMDLINE TIMEOUT" for the boot. With no baseline yet, the plan is the
baseline: mutant 0, every test.

collect: reads D/result (the guest's MUT lines) and D/console.log after
a boot that ended with --status (scripts/run-qemu.sh's record: finished,
timeout, boot-timeout) and appends each mutant's verdict of that boot to
the results file (judge() has the rules): a kill of any kind - a failed
test, a timeout, kernel trouble on the console, a panic, a guest that
stopped - counts only when the mutant was reached in that boot (its hit
counter, or the kernel's "netkit-mutate: mutant ID reached" mark on the
console, which a dying guest leaves too); without a hit it is a retry
(a stop without panic and hit is a harness fault), alone, and after
three such the mutant is unjudged. A kill by a race test, or after
another mutant of the same boot, is confirmed by a boot of its own; a
survivor of a shared boot is judged again in a boot of its own. Each
row: id, verdict, test, hits, detail, boot id (D/boot-id), place in the
plan, alone, the mutant's key. Kernel trouble is --splat-re, lib.sh's
KERNEL_SPLAT_RE (scripts/verdict.sh's).

report: the headline - HELD OUT or AFTER - the population's estimated
score with its 95 % interval (estimate() says how), the tables per file
and operator (population, sampled, verdicts), every survivor with its
line, and the equivalents that selftests/mutate-equivalent.txt argues;
--verdicts writes every verdict row of the sample (the file committed
beside the report). An equivalence is keyed by the mutant's columns
without its line plus NTH, which of the mutants with those columns in its
function it is (counted over mutants.tsv in line order): the key survives
line moves and tells two equal constructs of one function apart.

carry: with MUTATE_REUSE_SEED=1, the final kills of an earlier results
file of the same kernel (or of the committed verdicts of the seed, on a
machine that has no such file) whose mutant has the same key and whose
killing test is still there.

manifest: what an initramfs (a newc cpio) holds, one line a file (its
mode, the sha256 of its content, its path, sorted by path), without what
differs between two builds of the same inputs: the times, the inode
numbers, and the signature a module carries (the test kernel signs
bpf_testmod.ko with a key kbuild makes at random for each build). The
identity of a round hashes it in place of the cpio, so that a round
stopped on one machine goes on on another that built the same inputs.

selftest: the verdict rules, the sampling, the estimator and the seed
registry on hand-made inputs (scripts/coverage/mutate_selftest.py); make
check runs it.
"""

import argparse
import collections
import itertools
import math
import os
import random
import re
import sys

import lcov

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


def write_tsv(rows, cols, out=None):
    out = out or sys.stdout
    out.write('\t'.join(cols) + '\n')
    for r in rows:
        out.write('\t'.join(str(r.get(c, '')) for c in cols) + '\n')


def executed(info, path, first, last, func):
    """Whether a line of first..last ran. Lines gcc gives no record
    (a case label, a return folded into the code around it) take the
    function's count, or, for a function inlined everywhere (no function
    record: the headers' inline functions, __always_inline), the count
    of the nearest line before them that has a record."""
    for src, s in info.items():
        if not src.endswith('/' + path):
            continue
        counts = [s.lines[i] for i in range(first, last + 1) if i in s.lines]
        if counts:
            return any(c > 0 for c in counts)
        if func in s.functions:
            return s.functions[func] > 0
        before = [i for i in s.lines if i < first]
        return bool(before) and s.lines[max(before)] > 0
    return None


def classify(a):
    """The mutants of --kernel from mutants.tsv, each with its area and
    class (nobuild, notexec, run)."""
    muts = [m for m in read_tsv(a.mutants) if m.get('kernel', 'test') == a.kernel]
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
        if ex is None and m['file'].endswith('.h'):
            ex = True           # a header make coverage has no record of: judged in QEMU
        if ex is None:
            raise SystemExit(f"mutate: {m['file']} is not in the coverage data {a.info}")
        m['class'] = 'run' if ex else 'notexec'
    return muts


def stratum(m):
    return f"{m['file']}|{m['operator']}"


def allocate(sizes, n):
    """Stratified allocation of n draws over strata of the given sizes
    ({stratum: N_h}): one for each stratum first (when n allows), the
    rest proportional to N_h by largest remainder, never more than N_h."""
    alloc = {h: 0 for h in sizes}
    n = min(n, sum(sizes.values()))
    if n >= len(sizes):
        for h in sizes:
            alloc[h] = 1
    left = n - sum(alloc.values())
    while left > 0:
        room = {h: sizes[h] - alloc[h] for h in sizes if sizes[h] > alloc[h]}
        total = sum(sizes[h] for h in room)
        quota = {h: left * sizes[h] / total for h in room}
        give = {h: min(room[h], int(quota[h])) for h in room}
        if sum(give.values()) == 0:
            # the remainders: largest first (ties by name: deterministic)
            for h in sorted(room, key=lambda h: (-(quota[h] - int(quota[h])), h))[:left]:
                give[h] = 1
        for h, g in give.items():
            alloc[h] += g
        left = n - sum(alloc.values())
    return alloc


def cmd_sample(a):
    muts = classify(a)
    run = [m for m in muts if m['class'] == 'run']
    sizes = collections.Counter(stratum(m) for m in run)
    if a.max == 'all':
        alloc = dict(sizes)
    else:
        alloc = allocate(sizes, int(a.max))
    rng = random.Random(f'make mutate {a.seed}')
    chosen = []
    for h in sorted(sizes):
        group = sorted((m for m in run if stratum(m) == h), key=lambda m: int(m['id']))
        for m in rng.sample(group, alloc[h]):
            m['stratum'] = h
            m['weight'] = f'{sizes[h] / alloc[h]:.6g}'
            chosen.append(m)
    chosen.sort(key=lambda m: int(m['id']))
    write_tsv(chosen, ['id', 'file', 'line', 'last', 'operator', 'function', 'init', 'area', 'class',
                       'original', 'mutated', 'kernel', 'key', 'stratum', 'weight'])
    if a.strata:
        rows = collections.OrderedDict()
        for m in sorted(muts, key=lambda m: (m['file'], m['operator'])):
            r = rows.setdefault(stratum(m), {'stratum': stratum(m), 'population': 0, 'run': 0, 'notexec': 0,
                                             'nobuild': 0, 'sampled': alloc.get(stratum(m), 0)})
            r['population'] += 1
            r[m['class']] += 1
        with open(a.strata, 'w') as f:
            write_tsv(rows.values(), ['stratum', 'population', 'run', 'notexec', 'nobuild', 'sampled'], f)


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


RESULT_COLS = ('id', 'verdict', 'by', 'hits', 'detail', 'boot', 'pos', 'alone', 'key')
# The verdicts of the results file. Final: a kill (killed, timeout,
# crash: each only when the mutant was reached in that boot), survived
# (in a boot of its own), unjudged (failed three times without reaching
# the mutant). Not final, the mutant runs again alone: retry (a failure
# or stop without a hit: a flaky test, another mutant's leftovers or the
# harness), confirm (a kill that a second boot must repeat: by a race
# test, or after another mutant in the same boot), survived-shared (a
# survivor of a boot with other mutants).
KILLS = ('killed', 'timeout', 'crash')
FINAL = KILLS + ('survived', 'unjudged')
AGAIN = ('retry', 'confirm', 'survived-shared')
# the tests whose kill needs a second boot: they race on purpose
RACE_RE = re.compile(r'race|stress')


def read_records(path, cols):
    """The rows of a headerless tab-separated file (none if it is absent),
    as dicts of cols; '#' lines and blank lines skipped, missing fields empty."""
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for ln in f:
                if ln.startswith('#') or not ln.strip():
                    continue
                p = ln.rstrip('\n').split('\t')
                rows.append(dict(zip(cols, p + [''] * (len(cols) - len(p)))))
    return rows


def read_results(path):
    rows = read_records(path, RESULT_COLS)
    for r in rows:
        r['id'] = int(r['id'])
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
    """The last verdict of each mutant (earlier ones superseded)."""
    v = {}
    for r in results:
        if r['verdict'] != 'test':
            v[r['id']] = r
    return v


def history(results, mid):
    return [r for r in results if r['id'] == mid and r['verdict'] != 'test']


def cmd_plan(a):
    sample = read_tsv(a.sample)
    results = read_results(a.results)
    tests = read_tsv(a.tests)
    base = baseline(results)
    os.makedirs(a.dir, exist_ok=True)
    cmdline = 'rdinit=/mutate-init hung_task_panic=1 softlockup_panic=1'
    if a.cmdline:
        cmdline += ' ' + a.cmdline
    if base is None:
        plan = [('0', '0', every_area())]
        order = tests
        limits = {tkey(t): 1800 for t in tests}
    else:
        done = final(results)
        # the files in turn (round robin, each in its sample order): a run
        # stopped halfway has judged some of every file
        by_file = collections.OrderedDict()
        for m in sample:
            if m['class'] == 'run':
                by_file.setdefault(m['file'], []).append(m)
        runs = [m for group in itertools.zip_longest(*by_file.values()) for m in group if m]
        mine = [m for i, m in enumerate(runs) if i % a.slots == a.slot]
        # a mutant to judge again runs alone (a boot of its own), first
        again = [m for m in mine if int(m['id']) in done and done[int(m['id'])]['verdict'] in AGAIN]
        fresh = [m for m in mine if int(m['id']) not in done]
        if not again and not fresh:
            print('done')
            return
        kills = collections.Counter(r['by'] for r in done.values() if r['verdict'] in KILLS)

        def score(t):
            return -(kills[tkey(t)] + 1) / (base.get(tkey(t), 60) + 1)
        order = sorted(tests, key=lambda t: (score(t), tkey(t)))
        limits = {tkey(t): int(math.ceil(4 * base.get(tkey(t), 60) + 30)) for t in tests}
        plan = []
        if again:
            m = again[0]
            plan = [(m['id'], m['init'], m['area'])]
            if m['init'] == '1':
                cmdline += f" netkit_mutant={m['id']}"
        else:
            for m in fresh:
                if m['init'] == '1':
                    if not plan:
                        plan = [(m['id'], '1', m['area'])]
                        cmdline += f" netkit_mutant={m['id']}"
                    break
                plan.append((m['id'], '0', m['area']))
                if len(plan) >= a.per_boot:
                    break
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


def judge(kind, detail, by, hit, pos, alone, hist):
    """A mutant's verdict of one boot from what happened to it there:
    kind is the raw outcome (killed, timeout, crash, stop, survived),
    hit whether its code ran in that boot, pos its place in the boot's
    plan, alone whether the plan held only it, hist its earlier rows.
    Returns (verdict, detail)."""
    last = hist[-1]['verdict'] if hist else None
    unreached = sum(1 for r in hist if r['verdict'] == 'retry')
    if kind == 'survived':
        if last == 'confirm':
            detail = f"the kill by {hist[-1]['by']} (boot {hist[-1]['boot']}) did not repeat" + \
                (f'; {detail}' if detail else '')
        if alone:
            return 'survived', detail
        return 'survived-shared', detail + ('; ' if detail else '') + 'to be judged again in a boot of its own'
    if not hit:
        # a failure, a timeout, a panic or a stop that never reached the
        # mutant is not its kill
        why = {'stop': 'the guest stopped without a panic and without reaching the mutant (a harness fault)'}.get(
            kind, f'{kind} without reaching the mutant')
        if unreached >= 2:
            return 'unjudged', f'{why}, the third time'
        return 'retry', why + (f' ({detail})' if detail else '')
    verdict = 'crash' if kind == 'stop' else kind
    if last == 'confirm':
        return verdict, detail + ('; ' if detail else '') + f"confirmed (first in boot {hist[-1]['boot']})"
    if by == 'kernel:kmemleak':
        detail = 'kmemleak: unreferenced objects after its tests'
    if RACE_RE.search(by or ''):
        return 'confirm', f'{verdict} by a race test: {detail}' if detail else f'{verdict} by a race test'
    if pos > 0:
        return 'confirm', f'{verdict} after another mutant in the boot' + (f': {detail}' if detail else '')
    return verdict, detail


def cmd_collect(a):
    global TROUBLE
    TROUBLE = re.compile(a.splat_re)
    results = read_results(a.results)
    sample = {m['id']: m for m in read_tsv(a.sample)} if a.sample else {}
    with open(os.path.join(a.dir, 'plan')) as f:
        planned = [ln.split() for ln in f if ln.strip()]
    plan = [p[0] for p in planned]
    with open(os.path.join(a.dir, 'tests')) as f:
        order = [ln.split() for ln in f if ln.strip()]
    boot = os.path.basename(os.path.normpath(a.dir))
    if os.path.exists(os.path.join(a.dir, 'boot-id')):
        with open(os.path.join(a.dir, 'boot-id')) as f:
            boot = f.read().strip() or boot
    res = ''
    if os.path.exists(os.path.join(a.dir, 'result')):
        with open(os.path.join(a.dir, 'result'), errors='replace') as f:
            res = f.read()
    console = ''
    if os.path.exists(os.path.join(a.dir, 'console.log')):
        with open(os.path.join(a.dir, 'console.log'), errors='replace') as f:
            console = f.read().replace('\r', '')
    out = []
    started = re.findall(r'^MUT (\d+) start$', res, re.M)
    alone = len(plan) == 1
    if not started and len(planned) == 1 and planned[0][1:2] == ['1'] and \
            not re.search(r'netkit-6.1 guest: mutant driver', console):
        # an __init mutant (selected on the command line) whose kernel
        # died before /init: judged by the whole console
        started = [plan[0]]
        console = f'netkit-mutate: mutant {plan[0]} start\n' + console
    for pos, sid in enumerate(started):
        mid = int(sid)
        key = sample.get(sid, {}).get('key', '')
        tests_done = re.findall(rf'^MUT {sid} test (\S+) rc=(\d+) hits=(\d+) secs=([\d.]+)(.*)$', res, re.M)
        for name, rc, hits, secs, note in tests_done:
            if mid == 0:
                out.append((0, 'test', name, hits, secs, boot, pos, int(alone), ''))
        end = re.search(rf'^MUT {sid} (killed|survived)(?: (\S+))? hits=(\d+)$', res, re.M)
        seg = segment(console, sid)
        # reached in this boot: the guest's counter, or the kernel's mark
        # of the first hit on the console (there even when the guest died)
        marked = re.search(rf'netkit-mutate: mutant {sid} reached', seg) is not None
        hits_seen = max([int(t[2]) for t in tests_done] + [int(end.group(3)) if end else 0])
        hit = hits_seen > 0 or marked
        hits = str(hits_seen) if hits_seen or not marked else 'marked'
        if end:
            kind, by, detail = end.group(1), end.group(2) or '', ''
            if kind == 'killed':
                note = [t for t in tests_done if t[0] == by][-1][4].strip()
                if 'timeout' in note:
                    kind, detail = 'timeout', f'{by} passed its limit'
                elif 'splat' in note:
                    detail = 'kernel warning: ' + first_trouble(seg)
            else:
                tr = first_trouble(seg)
                if tr:
                    kind, by, detail = 'killed', 'kernel-log', 'kernel warning: ' + tr
                elif not hit:
                    detail = 'not reached by its tests'
            if mid == 0:
                if kind != 'survived':
                    raise SystemExit(f'mutate: the baseline (no mutant) failed: {by} {detail}; '
                                     f'console {os.path.join(a.dir, "console.log")}')
                out.append((0, 'survived', '', hits, '', boot, pos, int(alone), ''))
                continue
            verdict, detail = judge(kind, detail, by, hit, pos, alone, history(results, mid))
            out.append((mid, verdict, by, hits, detail, boot, pos, int(alone), key))
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
            kind, detail = 'timeout', 'kernel hang: ' + first_trouble(seg)
        elif 'Kernel panic' in seg or 'Oops' in seg or 'BUG:' in seg:
            kind, detail = 'crash', 'kernel panic: ' + first_trouble(seg)
        elif a.status in ('timeout', 'boot-timeout'):
            kind, detail = 'timeout', f'the boot passed its limit ({a.status})'
        else:
            kind, detail = 'stop', 'the guest stopped without a panic'
        if mid == 0:
            raise SystemExit(f'mutate: the baseline (no mutant) did not finish: {detail}; '
                             f'console {os.path.join(a.dir, "console.log")}')
        verdict, detail = judge(kind, detail, running or '?', hit, pos, alone, history(results, mid))
        out.append((mid, verdict, running or '?', hits, detail, boot, pos, int(alone), key))
    if not started and a.status == 'boot-timeout' and plan and plan[0] != '0' and \
            planned[0][1:2] != ['1']:
        # the kernel did not reach /init within the boot's limit, before any
        # mutant was selected (an INIT one is judged above): a slow boot, not
        # the mutant's doing; its first mutant runs again (three times at most)
        mid = int(plan[0])
        verdict, detail = judge('stop', 'the boot passed its limit before /init', '?', False, 0, alone,
                                history(results, mid))
        out.append((mid, verdict, '?', '0', detail, boot, 0, int(alone), sample.get(plan[0], {}).get('key', '')))
    elif not started:
        raise SystemExit(f'mutate: the guest started no mutant (plan {plan[:3]}...); '
                         f'console {os.path.join(a.dir, "console.log")}, result {os.path.join(a.dir, "result")}')
    # one write: guests that run at once append to the same file
    with open(a.results, 'a') as f:
        f.write(''.join('\t'.join(str(x).replace('\t', ' ') for x in r).replace('\n', ' ') + '\n' for r in out))
    for r in out:
        if r[1] != 'test':
            m = sample.get(str(r[0]), {})
            where = (f"{m.get('file', '?').split('/')[-1]}:{m.get('line', '?')} {m.get('operator', '')}"
                     if r[0] else 'baseline')
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


Z95 = 1.959964


def wilson(p, n, z=Z95):
    """Wilson's score interval of a proportion p observed on n."""
    if n <= 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def estimate(strata, judged):
    """The stratified estimate of the population's score.

    strata: {stratum: (N_run, N_notexec)}, the population of the kernel's
    mutants that build, by file and operator; judged: {stratum: [1 for a
    kill, 0 for a survivor, ...]}, the sample's final verdicts.
    p_run = sum_h W_h * k_h / n_h with W_h = N_h / N over the strata with a
    verdict: the share of the executed mutants that the tests kill. The
    population's score counts the mutants never executed as survivors:
    p = p_run * N_run / (N_run + N_notexec). The 95 % interval: Wilson's
    on p_run with Kish's effective sample size n_eff = (sum w)^2 / sum w^2
    (w = N_h / n_h of each judged mutant), scaled the same way; it claims
    no gain from the stratification and no finite-population correction,
    so it is on the wide side. Returns a dict."""
    n_run = sum(v[0] for v in strata.values())
    n_not = sum(v[1] for v in strata.values())
    covered = {h: v for h, v in judged.items() if v and strata.get(h, (0, 0))[0]}
    n_cov = sum(strata[h][0] for h in covered)
    if not n_cov:
        return {'n_run': n_run, 'n_notexec': n_not, 'judged': 0}
    p_run = sum(strata[h][0] / n_cov * sum(v) / len(v) for h, v in covered.items())
    w = [strata[h][0] / len(v) for h, v in covered.items() for _ in v]
    n_eff = sum(w) ** 2 / sum(x * x for x in w)
    # every executed mutant of every stratum judged (the debug kind's 46):
    # a census, whose score has no sampling error
    census = n_cov == n_run and all(len(v) == strata[h][0] for h, v in covered.items())
    lo, hi = (p_run, p_run) if census else wilson(p_run, n_eff)
    f = n_run / (n_run + n_not) if n_run + n_not else 1.0
    return {'n_run': n_run, 'n_notexec': n_not, 'judged': len(w), 'n_eff': n_eff, 'p_run': p_run,
            'run_ci': (lo, hi), 'p': p_run * f, 'ci': (lo * f, hi * f), 'uncovered': n_run - n_cov,
            'census': census}


def pct(x):
    return f'{100.0 * x:.1f} %'


def read_strata(path):
    rows = read_tsv(path)
    return {r['stratum']: (int(r['run']), int(r['notexec'])) for r in rows}, rows


def cmd_report(a):
    sample = read_tsv(a.sample)
    results = read_results(a.results)
    res = final(results)
    eq = read_equivalent(a.equivalent)
    keys = keys_of(read_tsv(a.mutants or os.path.join(os.path.dirname(a.sample), 'mutants.tsv')))
    strata, srows = read_strata(a.strata)
    rows = collections.OrderedDict()
    surv = []
    totals = collections.Counter()
    judged, judged_eq = collections.defaultdict(list), collections.defaultdict(list)
    for m in sample:
        mid = int(m['id'])
        v = res[mid]['verdict'] if mid in res else 'pending'
        c = 'pending' if v in AGAIN else v
        c = 'killed' if c == 'crash' else c
        key = (m['file'].split('/')[-1], m['operator'])
        rows.setdefault(key, collections.Counter())[c] += 1
        totals[c] += 1
        if c in ('killed', 'timeout', 'survived'):
            e = eq.get(keys.get(m['id'])) if c == 'survived' else None
            judged[m['stratum']].append(0 if c == 'survived' else 1)
            if not e:
                judged_eq[m['stratum']].append(0 if c == 'survived' else 1)
            if c == 'survived':
                surv.append((m, res[mid], e))
    est = estimate(strata, judged)
    est_eq = estimate(strata, judged_eq)
    w = sys.stdout.write
    w(f'{a.title}\n\n')
    phase = 'HELD OUT' if a.phase == 'held-out' else 'AFTER'
    pending = totals['pending']
    unj = (f"; {totals['unjudged']} unjudged (failed three times without reaching the mutant), left out"
           if totals['unjudged'] else '')
    if est.get('census'):
        head = (f"{pct(est['p'])} of the {est['n_run'] + est['n_notexec']} {a.kernel}-kernel mutants that "
                f"build: every executed one judged ({est['judged']}, a census: no sampling error)")
    elif est.get('judged'):
        head = (f"{pct(est['p'])} (95 % CI {pct(est['ci'][0])} - {pct(est['ci'][1])}) of the "
                f"{est['n_run'] + est['n_notexec']} {a.kernel}-kernel mutants that build, estimated from "
                f"{est['judged']} judged of a stratified sample (n_eff {est['n_eff']:.0f})")
    else:
        head = 'no verdict yet'
    w(f'**{phase}** score, seed {a.seed}: {head}'
      f"{'; ' + str(pending) + ' of the sample still pending: not final' if pending else ''}{unj}\n\n")
    if a.phase == 'held-out':
        w('Held out: this seed had never been drawn, and no test was written for its sample before '
          'these verdicts (selftests/results/mutate-seeds).\n\n')
    else:
        w(f'After: the seed was drawn before (MUTATE_REUSE_SEED=1) and the tests may have been fitted to '
          f'its sample since; the held-out score of this seed: {a.held_out or "none recorded"}.\n\n')
    if est.get('judged'):
        w(f"- executed mutants killed: {pct(est['p_run'])} (95 % CI {pct(est['run_ci'][0])} - "
          f"{pct(est['run_ci'][1])}) of {est['n_run']}; never executed by make coverage: {est['n_notexec']} "
          f"(counted as survivors in the score above)\n")
        if est.get('uncovered'):
            w(f"- {est['uncovered']} executed mutants are in strata with no verdict yet: left out of the "
              f"estimate\n")
        if est_eq.get('judged') and est_eq['judged'] != est['judged']:
            w(f"- without the {est['judged'] - est_eq['judged']} survivors argued equivalent "
              f"(selftests/mutate-equivalent.txt): {pct(est_eq['p'])} (95 % CI {pct(est_eq['ci'][0])} - "
              f"{pct(est_eq['ci'][1])})\n")
        if est.get('census'):
            w('- a census: the sample holds every executed mutant, so the score is counted, not estimated '
              '(the interval above has no width)\n\n')
        else:
            w('- estimator: stratified by file and operator, each stratum weighted by its share of the '
              "population (W_h = N_h / N); the interval is Wilson's score interval on the weighted proportion "
              "with Kish's effective sample size (no stratification gain, no finite-population correction "
              'claimed)\n\n')
    cols = ['killed', 'timeout', 'survived', 'unjudged', 'pending']
    pop = collections.Counter()
    for r in srows:
        f, op = r['stratum'].split('|')
        pop[(f.split('/')[-1], op)] += int(r['population'])
    w('| file | operator | population | sampled | ' + ' | '.join(cols) + ' | sample score |\n')
    w('|---|---|---:|---:|' + '---:|' * len(cols) + '---:|\n')
    files = collections.OrderedDict()
    for (f, op), c in sorted(rows.items()):
        files.setdefault(f, collections.Counter()).update(c)
        w(f'| {f} | {op} | {pop[(f, op)]} | {sum(c.values())} | ' + ' | '.join(str(c[x]) for x in cols) +
          f' | {score(c)} |\n')
    for f, c in files.items():
        fpop = sum(n for (ff, _), n in pop.items() if ff == f)
        w(f'| **{f}** | all | {fpop} | {sum(c.values())} | ' + ' | '.join(str(c[x]) for x in cols) +
          f' | {score(c)} |\n')
    ops = collections.defaultdict(collections.Counter)
    for (_, op), c in rows.items():
        ops[op].update(c)
    for op, c in sorted(ops.items()):
        opop = sum(n for (_, o), n in pop.items() if o == op)
        w(f'| all | **{op}** | {opop} | {sum(c.values())} | ' + ' | '.join(str(c[x]) for x in cols) +
          f' | {score(c)} |\n')
    w(f'| **all** | all | {sum(pop.values())} | {sum(totals.values())} | ' +
      ' | '.join(str(totals[x]) for x in cols) + f' | {score(totals)} |\n\n')
    n_nb = sum(int(r['nobuild']) for r in srows)
    w(f"mutate: {phase.lower()} seed {a.seed}: {sum(totals.values())} sampled of {est.get('n_run', 0)} executed "
      f"({est.get('n_notexec', 0)} never executed, {n_nb} do not build): {totals['killed']} killed, "
      f"{totals['timeout']} timed out, {totals['survived']} survived "
      f"({sum(1 for x in surv if x[2])} argued equivalent), {totals['unjudged']} unjudged, "
      f"{totals['pending']} pending; score {pct(est['p']) if est.get('judged') else '-'}"
      f"{' [' + pct(est['ci'][0]) + ', ' + pct(est['ci'][1]) + ']' if est.get('judged') else ''}\n\n")
    if surv:
        w('Survivors (file:line operator: original -> mutated; equivalence argument if any):\n\n')
        for m, r, e in surv:
            w(f"- {m['id']} {m['file']}:{m['line']} {m['function']} {m['operator']}: "
              f"`{m['original']}` -> `{m['mutated']}`"
              f"{' [' + r['detail'] + ']' if r['detail'] else ''}"
              f"{chr(10) + '  equivalent: ' + e if e else ''}\n")
    killers = collections.Counter(r['by'] for i, r in res.items() if i and r['verdict'] in KILLS)
    if killers:
        w('\nKills by test: ' + ', '.join(f'{k} {n}' for k, n in killers.most_common()) + '\n')
    if a.verdicts:
        export_verdicts(a, sample, results)
    if a.registry and a.phase == 'held-out' and not pending and est.get('judged'):
        # the round is over: its score is the seed's held-out score, once
        rows = read_seeds(a.registry)
        for r in rows:
            if r['seed'] == a.seed and r['held_out'] == 'judging':
                r['held_out'] = (f"{pct(est['p'])} [{pct(est['ci'][0])}, {pct(est['ci'][1])}] "
                                 f"({est['judged']} judged)")
                write_seeds(a.registry, rows)


def export_verdicts(a, sample, results):
    """Every verdict row of the sample's mutants, in the order the boots
    gave them, with what a reader needs to check it: the file committed
    beside the report."""
    by_id = {int(m['id']): m for m in sample}
    cols = ['id', 'key', 'file', 'line', 'operator', 'kernel', 'verdict', 'test', 'hits', 'boot', 'pos',
            'alone', 'detail']
    with open(a.verdicts, 'w') as f:
        f.write(f'# make mutate verdicts, seed {a.seed}, {a.phase}: {a.title}\n'
                '# one row per mutant and boot (a mutant judged again has several; the last is its verdict);\n'
                '# test: the killing test (or the one running when the guest died); hits: the selected\n'
                "# mutant's hits in that boot ('marked': the kernel's first-hit mark on the console);\n"
                "# pos: its place in the boot's plan; alone: 1 when the boot ran it only\n")
        rows = []
        for r in results:
            m = by_id.get(r['id'])
            if m is None or r['verdict'] == 'test':
                continue
            rows.append({'id': r['id'], 'key': m.get('key', ''), 'file': m['file'], 'line': m['line'],
                         'operator': m['operator'], 'kernel': m.get('kernel', 'test'), 'verdict': r['verdict'],
                         'test': r['by'], 'hits': r['hits'], 'boot': r['boot'], 'pos': r['pos'],
                         'alone': r['alone'], 'detail': r['detail']})
        write_tsv(rows, cols, f)


def score(c):
    k = c['killed'] + c['timeout']
    n = k + c['survived']
    return f'{100.0 * k / n:.1f} %' if n else '-'


# ---------------------------------------------------------------- seeds

SEED_COLS = ['seed', 'drawn', 'kernel', 'max', 'identity', 'held_out', 'note']


def read_seeds(path):
    return read_records(path, SEED_COLS)


def write_seeds(path, rows):
    with open(path) as f:
        head = [ln for ln in f if ln.startswith('#')]
    with open(path + '.new', 'w') as f:
        f.write(''.join(head))
        for r in rows:
            f.write('\t'.join(r[c] for c in SEED_COLS) + '\n')
    os.replace(path + '.new', path)


def round_judged(registry, seed):
    """Whether the round of seed kept beside the registry
    (mutate-round-SEED/results.tsv) has a verdict of a mutant (the
    baseline's rows, id 0, are none)."""
    path = os.path.join(os.path.dirname(registry), f'mutate-round-{seed}', 'results.tsv')
    if not os.path.exists(path):
        return False
    return any(r['id'] != 0 and r['verdict'] != 'test' for r in read_results(path))


def cmd_seed(a):
    """The seed of this run and its phase: "SEED held-out" for a seed no
    run has drawn (registered now) or one whose held-out round is still
    being judged on the same identity (kernel, initramfs, tests; with no
    --seed, such a round is taken up again first), "SEED after" for a used
    seed with --reuse; a used seed without it is refused."""
    rows = read_seeds(a.registry)
    used = {r['seed']: r for r in rows}
    seed = a.seed.strip()
    if not seed:
        # a held-out round stopped on this identity goes on; one stopped
        # on another (the kernel or the tests changed) can no longer
        # finish held out: it is marked abandoned, and a new seed drawn
        same = [r for r in rows if r['held_out'] == 'judging' and r['kernel'] == a.kernel]
        going = [r for r in same if r['identity'] == a.identity and r['max'] == a.max]
        if going:
            print(f"{going[-1]['seed']} held-out")
            return
        # a round with no mutant judged yet (it stopped in its gate or
        # baseline) has shown nobody anything: it takes the new identity
        # and draws its sample again, still held out
        fresh = [r for r in same if r['max'] == a.max and not round_judged(a.registry, r['seed'])]
        if fresh:
            r = fresh[-1]
            r['identity'] = a.identity
            r['note'] = (r['note'] + '; ' if r['note'] else '') + \
                f'the kernel or tests changed before any mutant was judged: drawn again ({a.date})'
            write_seeds(a.registry, rows)
            print(f"{r['seed']} held-out")
            return
        for r in same:
            r['held_out'] = 'abandoned'
            r['note'] = (r['note'] + '; ' if r['note'] else '') + \
                f'the kernel or tests changed before its round finished ({a.date})'
        seed = str(max([int(r['seed']) for r in rows if r['seed'].isdigit()] + [0]) + 1)
    if not seed.isdigit():
        raise SystemExit(f'mutate: MUTATE_SEED must be a number, not {seed!r}')
    r = used.get(seed)
    if r is None:
        rows.append({'seed': seed, 'drawn': a.date, 'kernel': a.kernel, 'max': a.max, 'identity': a.identity,
                     'held_out': 'judging', 'note': ''})
        write_seeds(a.registry, rows)
        print(f'{seed} held-out')
    elif r['held_out'] == 'judging' and r['identity'] == a.identity and r['kernel'] == a.kernel \
            and r['max'] == a.max:
        print(f'{seed} held-out')
    elif a.reuse == '1':
        print(f'{seed} after')
    else:
        raise SystemExit(f"mutate: seed {seed} was drawn on {r['drawn']} ({r['held_out']}): its sample is no "
                         f"longer held out. Leave MUTATE_SEED empty for the next unused seed, or set "
                         f"MUTATE_REUSE_SEED=1 to judge it again as an 'after' score")


def cmd_seed_done(a):
    """Record a finished held-out round's score in the registry (once)."""
    rows = read_seeds(a.registry)
    for r in rows:
        if r['seed'] == a.seed and r['held_out'] == 'judging':
            r['held_out'] = a.score
            write_seeds(a.registry, rows)
            return
    raise SystemExit(f'mutate: seed {a.seed} has no held-out round being judged in {a.registry}')


def read_prev(path):
    """The rows of an earlier round for carry: a results file of the cache,
    or the raw verdicts committed beside the report (export_verdicts: a
    header row under its '#' lines, the killing test in 'test'), which is
    what a new machine has of a finished round."""
    with open(path) as f:
        first = f.readline()
    if not first.startswith('# make mutate verdicts, seed'):
        return read_results(path)
    rows = []
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith('#') and ln.strip()]
    head = lines[0].rstrip('\n').split('\t') if lines else []
    for ln in lines[1:]:
        v = dict(zip(head, ln.rstrip('\n').split('\t')))
        r = {c: v.get(c, '') for c in RESULT_COLS}
        r['by'] = v.get('test', '')
        r['id'] = int(r['id'])
        rows.append(r)
    return rows


def cmd_carry(a):
    """Kills of an earlier round of the same kernel carried into a new one
    (MUTATE_REUSE_SEED=1 only): a row counts when the mutant's key (file,
    line, operator, original and mutated text, the file's blob) is the
    same, its kill is final (reached, confirmed) and its killing test is
    still among the tests. The earlier round is a results file or a
    committed verdicts file (read_prev). Prints the rows."""
    keys = {m['id']: m['key'] for m in read_tsv(a.mutants)}
    tests = {tkey(t) for t in read_tsv(a.tests)}
    for r in final(read_prev(a.prev)).values():
        if r['id'] and r['verdict'] in KILLS and r['key'] and keys.get(str(r['id'])) == r['key'] \
                and r['by'] in tests:
            r['detail'] = (r['detail'] + '; ' if r['detail'] else '') + f'carried over from {a.name}'
            print('\t'.join(str(r[c]) for c in RESULT_COLS))


# ---------------------------------------------------------------- manifest

MODULE_SIG_MAGIC = b'~Module signature appended~\n'


def unsigned(data):
    """A module's content without its appended signature (struct
    module_signature: 12 bytes, the last four the signature's length,
    big-endian, then the magic string)."""
    if not data.endswith(MODULE_SIG_MAGIC):
        return data
    end = len(data) - len(MODULE_SIG_MAGIC)
    sig_len = int.from_bytes(data[end - 4:end], 'big')
    return data[:end - 12 - sig_len]


def manifest(raw):
    """[(path, mode, sha256)] of a newc cpio archive's entries."""
    import hashlib
    out, off = [], 0
    while True:
        head = raw[off:off + 110]
        if len(head) < 110 or head[:6] not in (b'070701', b'070702'):
            raise SystemExit(f'mutate: not a newc cpio archive at byte {off}')
        f = [int(head[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        name = raw[off + 110:off + 110 + namesize - 1].decode('utf-8', 'replace')
        off += (110 + namesize + 3) & ~3
        data = raw[off:off + size]
        off += (size + 3) & ~3
        if name == 'TRAILER!!!':
            return sorted(out)
        out.append((name, f'{mode:o}', hashlib.sha256(unsigned(data)).hexdigest()))


def cmd_manifest(a):
    with open(a.cpio, 'rb') as f:
        for name, mode, sha in manifest(f.read()):
            print(f'{mode} {sha} {name}')


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('sample')
    p.add_argument('--mutants', required=True)
    p.add_argument('--nobuild', required=True)
    p.add_argument('--info', required=True)
    p.add_argument('--seed', required=True)
    p.add_argument('--max', default='300')
    p.add_argument('--kernel', default='test', choices=('test', 'debug'))
    p.add_argument('--strata', help='where to write the population per stratum')
    p = sub.add_parser('tests')
    p.add_argument('--tree', required=True)
    p.add_argument('--area', action='append', required=True, metavar='NAME=TERMS')
    p = sub.add_parser('plan')
    p.add_argument('--sample', required=True)
    p.add_argument('--results', required=True)
    p.add_argument('--tests', required=True)
    p.add_argument('--per-boot', type=int, default=1)
    p.add_argument('--dir', required=True)
    p.add_argument('--slot', type=int, default=0)
    p.add_argument('--slots', type=int, default=1)
    p.add_argument('--cmdline', default='', help='more kernel parameters (the debug kernel: kmemleak=on)')
    p = sub.add_parser('collect')
    p.add_argument('--sample')
    p.add_argument('--results', required=True)
    p.add_argument('--dir', required=True)
    p.add_argument('--status', required=True, choices=('finished', 'timeout', 'boot-timeout'))
    p.add_argument('--splat-re', required=True)
    p = sub.add_parser('report')
    p.add_argument('--sample', required=True)
    p.add_argument('--results', required=True)
    p.add_argument('--strata', required=True)
    p.add_argument('--seed', required=True)
    p.add_argument('--phase', required=True, choices=('held-out', 'after'))
    p.add_argument('--kernel', default='test', choices=('test', 'debug'))
    p.add_argument('--held-out', default='', help="the seed's held-out score (registry), for an after report")
    p.add_argument('--verdicts', help='where to write the raw verdicts')
    p.add_argument('--registry', help="the seed registry: a finished held-out round's score goes there")
    p.add_argument('--equivalent')
    p.add_argument('--mutants', help="mutants.tsv (default: the sample's directory)")
    p.add_argument('--title', default='make mutate')
    p = sub.add_parser('seed')
    p.add_argument('--registry', required=True)
    p.add_argument('--seed', default='')
    p.add_argument('--reuse', default='')
    p.add_argument('--identity', required=True)
    p.add_argument('--kernel', default='test', choices=('test', 'debug'))
    p.add_argument('--max', required=True)
    p.add_argument('--date', required=True)
    p = sub.add_parser('seed-done')
    p.add_argument('--registry', required=True)
    p.add_argument('--seed', required=True)
    p.add_argument('--score', required=True)
    p = sub.add_parser('carry')
    p.add_argument('--prev', required=True)
    p.add_argument('--name', required=True)
    p.add_argument('--mutants', required=True)
    p.add_argument('--tests', required=True)
    p = sub.add_parser('manifest')
    p.add_argument('cpio')
    p = sub.add_parser('selftest')
    p.add_argument('-v', '--verbose', action='store_true', help='every check, not only the failed ones')
    a = ap.parse_args()
    if a.cmd == 'selftest':
        import mutate_selftest
        sys.exit(mutate_selftest.run(a.verbose))
    {'sample': cmd_sample, 'tests': cmd_tests, 'plan': cmd_plan, 'collect': cmd_collect,
     'report': cmd_report, 'seed': cmd_seed, 'seed-done': cmd_seed_done, 'carry': cmd_carry,
     'manifest': cmd_manifest}[a.cmd](a)


if __name__ == '__main__':
    main()
