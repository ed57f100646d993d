"""mutate_selftest: make mutate's host logic checked on hand-made inputs,
without a kernel or a boot (`python3 scripts/coverage/mutate.py selftest [-v]`,
part of make check). It covers:

  - collect's verdict rules (fake plan, tests, result and console files
    in a temporary boot directory): a kill of each kind counts only with
    a hit in that boot; a failure, timeout, splat, panic or stop without
    one is a retry, the third an unjudged; a stop without panic and hit
    is a harness fault; a kill by a race test or after another mutant of
    the boot is confirmed by a boot of its own, and a survivor of a shared
    boot judged again alone; plan then plans those alone;
  - the sample: stratified by file and operator (every stratum drawn,
    the rest proportional), deterministic per seed, different across
    seeds, weights N_h / n_h, the debug kernel's mutants apart;
  - the estimator and Wilson's interval against numbers worked by hand;
  - the seed registry: the next unused seed, a used one refused, a
    stopped held-out round resumed, MUTATE_REUSE_SEED's "after",
    seed-done;
  - carry-over keyed by the mutant's full key and the killing test;
  - the report's held-out/after headline and the raw verdicts file;
  - the generator on a small C file in a scratch git repository: the
    operators of each kind, and the schemata's twins for lock pairs.
Imported by mutate.py; prints one line per check and returns 0 when all
pass."""

import argparse
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile

import mutate as M

SPLAT = (r'\[ *[0-9]+\.[0-9]+\] .*(Kernel panic - |BUG: |Oops: |WARNING: |KASAN: |'
         r'rcu_.*detected stalls|soft lockup|INFO: task .* blocked for more than)')
FAILED = []
PASSED = []
VERBOSE = [False]


def say(text):
    if VERBOSE[0]:
        print(text)


def check(name, cond, more=''):
    if VERBOSE[0] or not cond:
        print(f"  {'ok  ' if cond else 'FAIL'} {name}{': ' + more if more and not cond else ''}")
    (PASSED if cond else FAILED).append(name)


SAMPLE_COLS = ['id', 'file', 'line', 'last', 'operator', 'function', 'init', 'area', 'class', 'original',
               'mutated', 'kernel', 'key', 'stratum', 'weight']


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def boot(tmp, name, plan, result, console, status='finished', results=None):
    """One fake boot: its directory, then collect; returns the rows it
    added to the results file."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, 'plan'), ''.join(f'{i} 0 netkit\n' for i in plan))
    write(os.path.join(d, 'tests'), 'netkit tp tc_netkit_basic 60\nnetkit guest mprog_linkrace 60\n'
          'netkit guest netkit_stats 60\n')
    write(os.path.join(d, 'result'), result)
    write(os.path.join(d, 'console.log'), console)
    write(os.path.join(d, 'boot-id'), name)
    before = len(M.read_results(results))
    a = argparse.Namespace(sample=os.path.join(tmp, 'sample.tsv'), results=results, dir=d, status=status,
                           splat_re=SPLAT)
    with contextlib.redirect_stdout(io.StringIO()):
        M.cmd_collect(a)
    return M.read_results(results)[before:]


def con(*lines):
    return ''.join(f'[   {10 + i}.000000] {ln}\n' for i, ln in enumerate(lines))


def test_collect(tmp):
    say('collect: the verdict rules')
    muts = [{'id': str(i), 'file': 'drivers/net/netkit.c', 'line': str(10 * i), 'last': str(10 * i),
             'operator': 'stmt_delete', 'function': 'f', 'init': '0', 'area': 'netkit', 'class': 'run',
             'original': 'x;', 'mutated': '(deleted)', 'kernel': 'test', 'key': f'k{i}',
             'stratum': 'drivers/net/netkit.c|stmt_delete', 'weight': '1'} for i in range(1, 20)]
    with open(os.path.join(tmp, 'sample.tsv'), 'w') as f:
        M.write_tsv(muts, SAMPLE_COLS, f)
    res = os.path.join(tmp, 'results.tsv')
    write(res, '# test\n')

    def last(mid):
        return M.final(M.read_results(res)).get(mid, {}).get('verdict')
    # 1: killed with a hit, first in its boot
    r = boot(tmp, 'b1', [1], 'MUT 1 start\nMUT 1 test netkit:tc_netkit_basic rc=1 hits=3 secs=2.0\n'
             'MUT 1 killed netkit:tc_netkit_basic hits=3\nMUT_END\n', con('netkit-mutate: mutant 1 start'),
             results=res)
    check('a failure with hits, first in the boot: killed', r[0]['verdict'] == 'killed' and r[0]['boot'] == 'b1'
          and r[0]['key'] == 'k1', str(r))
    # 2: a failure without a hit: retry, retry, unjudged
    for n, want in enumerate(['retry', 'retry', 'unjudged']):
        r = boot(tmp, f'b2-{n}', [2], 'MUT 2 start\nMUT 2 test netkit:tc_netkit_basic rc=1 hits=0 secs=2.0\n'
                 'MUT 2 killed netkit:tc_netkit_basic hits=0\nMUT_END\n', con('netkit-mutate: mutant 2 start'),
                 results=res)
        check(f'a failure without a hit, time {n + 1}: {want}', r[0]['verdict'] == want, str(r))
    # 3: a timeout without a hit is no kill (classed after the hit check)
    r = boot(tmp, 'b3', [3], 'MUT 3 start\nMUT 3 test netkit:tc_netkit_basic rc=124 hits=0 secs=60.0 timeout\n'
             'MUT 3 killed netkit:tc_netkit_basic hits=0\nMUT_END\n', con('netkit-mutate: mutant 3 start'),
             results=res)
    check('a timeout without a hit: retry', r[0]['verdict'] == 'retry', str(r))
    r = boot(tmp, 'b3b', [3], 'MUT 3 start\nMUT 3 test netkit:tc_netkit_basic rc=124 hits=5 secs=60.0 timeout\n'
             'MUT 3 killed netkit:tc_netkit_basic hits=5\nMUT_END\n', con('netkit-mutate: mutant 3 start'),
             results=res)
    check('a timeout with a hit: timeout', r[0]['verdict'] == 'timeout', str(r))
    # 4: a splat: with a hit a kill, without one a retry
    r = boot(tmp, 'b4', [4], 'MUT 4 start\nMUT 4 test netkit:tc_netkit_basic rc=125 hits=1 secs=2.0 splat\n'
             'MUT 4 killed netkit:tc_netkit_basic hits=1\nMUT_END\n',
             con('netkit-mutate: mutant 4 start', 'WARNING: CPU: 0 PID: 1 at drivers/net/netkit.c:99'),
             results=res)
    check('a splat with a hit: killed, the warning in the detail',
          r[0]['verdict'] == 'killed' and 'WARNING' in r[0]['detail'], str(r))
    r = boot(tmp, 'b4b', [5], 'MUT 5 start\nMUT 5 test netkit:tc_netkit_basic rc=0 hits=0 secs=2.0\n'
             'MUT 5 test netkit:mprog_linkrace rc=0 hits=0 secs=2.0\nMUT 5 test netkit:netkit_stats rc=0 hits=0 '
             'secs=2.0\nMUT 5 survived hits=0\nMUT_END\n',
             con('netkit-mutate: mutant 5 start', 'WARNING: CPU: 0 PID: 1 at net/core/dev.c:1',
                 'netkit-mutate: mutant 5 survived'), results=res)
    check('a survivor with kernel trouble but no hit: retry', r[0]['verdict'] == 'retry', str(r))
    # 5: the guest died: a panic after the kernel's mark is a crash, before it a retry
    r = boot(tmp, 'b5', [6], 'MUT 6 start\n',
             con('netkit-mutate: mutant 6 start', 'netkit-mutate: mutant 6 reached',
                 'BUG: kernel NULL pointer dereference', 'Kernel panic - not syncing: Fatal exception'),
             results=res)
    check('a panic with the first-hit mark: crash', r[0]['verdict'] == 'crash' and r[0]['hits'] == 'marked',
          str(r))
    r = boot(tmp, 'b5b', [7], 'MUT 7 start\n',
             con('netkit-mutate: mutant 7 start', 'Kernel panic - not syncing: Fatal exception'), results=res)
    check('a panic without a hit: retry', r[0]['verdict'] == 'retry', str(r))
    # 6: a stop without a panic
    r = boot(tmp, 'b6', [8], 'MUT 8 start\n', con('netkit-mutate: mutant 8 start'), results=res)
    check('a stop without panic or hit: retry, a harness fault',
          r[0]['verdict'] == 'retry' and 'harness fault' in r[0]['detail'], str(r))
    r = boot(tmp, 'b6b', [9], 'MUT 9 start\n',
             con('netkit-mutate: mutant 9 start', 'netkit-mutate: mutant 9 reached'), results=res)
    check('a stop after the mutant was reached: crash', r[0]['verdict'] == 'crash', str(r))
    r = boot(tmp, 'b6c', [10], 'MUT 10 start\nMUT 10 test netkit:tc_netkit_basic rc=0 hits=0 secs=2.0\n',
             con('netkit-mutate: mutant 10 start'), status='timeout', results=res)
    check('the boot limit without a hit: retry', r[0]['verdict'] == 'retry', str(r))
    r = boot(tmp, 'b6e', [17], '', con('Linux version 6.1'), status='boot-timeout', results=res)
    check('a boot that did not reach /init in its limit: retry, a harness fault',
          len(r) == 1 and r[0]['id'] == 17 and r[0]['verdict'] == 'retry' and 'before /init' in r[0]['detail'],
          str(r))
    # an __init mutant whose kernel died before /init
    d = os.path.join(tmp, 'b6d')
    os.makedirs(d)
    write(os.path.join(d, 'plan'), '16 1 netkit\n')
    write(os.path.join(d, 'tests'), 'netkit tp tc_netkit_basic 60\n')
    write(os.path.join(d, 'result'), '')
    write(os.path.join(d, 'console.log'), con('netkit-mutate: mutant 16 reached', 'BUG: unable to handle page fault',
                                              'Kernel panic - not syncing: Fatal exception'))
    with contextlib.redirect_stdout(io.StringIO()):
        M.cmd_collect(argparse.Namespace(sample=os.path.join(tmp, 'sample.tsv'), results=res, dir=d,
                                         status='finished', splat_re=SPLAT))
    check('an __init mutant that panics the boot after its mark: crash', last(16) == 'crash')
    # 7: a race test's kill is confirmed by a second boot
    race = ('MUT {0} start\nMUT {0} test netkit:mprog_linkrace rc=1 hits=2 secs=2.0\n'
            'MUT {0} killed netkit:mprog_linkrace hits=2\nMUT_END\n')
    r = boot(tmp, 'b7', [11], race.format(11), con('netkit-mutate: mutant 11 start'), results=res)
    check('a kill by a race test: confirm', r[0]['verdict'] == 'confirm', str(r))
    r = boot(tmp, 'b7b', [11], race.format(11), con('netkit-mutate: mutant 11 start'), results=res)
    check('... killed again in a second boot: killed, confirmed',
          r[0]['verdict'] == 'killed' and 'confirmed' in r[0]['detail'], str(r))
    boot(tmp, 'b7c', [12], race.format(12), con('netkit-mutate: mutant 12 start'), results=res)
    r = boot(tmp, 'b7d', [12], 'MUT 12 start\nMUT 12 test netkit:tc_netkit_basic rc=0 hits=1 secs=2.0\n'
             'MUT 12 test netkit:mprog_linkrace rc=0 hits=1 secs=2.0\nMUT 12 test netkit:netkit_stats rc=0 '
             'hits=1 secs=2.0\nMUT 12 survived hits=1\nMUT_END\n', con('netkit-mutate: mutant 12 start'),
             results=res)
    check('... not repeated in a boot of its own: survived', r[0]['verdict'] == 'survived'
          and 'did not repeat' in r[0]['detail'], str(r))
    # 8: a shared boot: the survivor is judged again, the kill after it confirmed
    surv = ('MUT {0} start\nMUT {0} test netkit:tc_netkit_basic rc=0 hits=1 secs=2.0\n'
            'MUT {0} test netkit:mprog_linkrace rc=0 hits=1 secs=2.0\nMUT {0} test netkit:netkit_stats rc=0 '
            'hits=1 secs=2.0\nMUT {0} survived hits=1\n')
    r = boot(tmp, 'b8', [13, 14, 15], surv.format(13) + 'MUT 14 start\nMUT 14 test netkit:tc_netkit_basic rc=1 '
             'hits=4 secs=2.0\nMUT 14 killed netkit:tc_netkit_basic hits=4\nMUT_END\n',
             con('netkit-mutate: mutant 13 start', 'netkit-mutate: mutant 13 survived',
                 'netkit-mutate: mutant 14 start'), results=res)
    check('a survivor of a shared boot: survived-shared', r[0]['verdict'] == 'survived-shared', str(r))
    check('a kill after another mutant of the boot: confirm', r[1]['verdict'] == 'confirm' and r[1]['pos'] == '1',
          str(r))
    check('the mutant after the kill did not run', len(r) == 2, str(r))
    # plan: the ones to judge again go alone
    write(os.path.join(tmp, 'tests.tsv'), 'area\tkind\tname\nnetkit\ttp\ttc_netkit_basic\n'
          'netkit\tguest\tmprog_linkrace\nnetkit\tguest\tnetkit_stats\n')
    with open(res, 'a') as f:
        f.write('0\ttest\tnetkit:tc_netkit_basic\t0\t3.0\n0\ttest\tnetkit:mprog_linkrace\t0\t3.0\n'
                '0\ttest\tnetkit:netkit_stats\t0\t3.0\n0\tsurvived\t\t0\t\n')
    pd = os.path.join(tmp, 'plan')
    with contextlib.redirect_stdout(io.StringIO()) as out:
        M.cmd_plan(argparse.Namespace(sample=os.path.join(tmp, 'sample.tsv'), results=res,
                                      tests=os.path.join(tmp, 'tests.tsv'), per_boot=10, dir=pd, slot=0, slots=1,
                                      cmdline='kmemleak=on'))
    with open(os.path.join(pd, 'plan')) as f:
        plan = f.read().split('\n')[:-1]
    check('plan: a mutant to judge again runs alone', len(plan) == 1 and plan[0].split()[0] in
          ('2', '3', '5', '7', '8', '10', '13', '14', '17'), str(plan))
    check('plan: the extra kernel parameters', 'kmemleak=on' in out.getvalue(), out.getvalue())
    check('unjudged and final verdicts stay', last(2) == 'unjudged' and last(1) == 'killed')


def test_sample(tmp):
    say('sample: stratified, weighted, deterministic per seed')
    rows = []
    n = 0
    for f, op, k in [('drivers/net/netkit.c', 'stmt_delete', 120), ('drivers/net/netkit.c', 'ret_replace', 30),
                     ('kernel/bpf/mprog.c', 'var_replace', 200), ('kernel/bpf/mprog.c', 'not_drop', 2),
                     ('kernel/bpf/tcx.c', 'ref_delete', 6)]:
        for i in range(k):
            n += 1
            rows.append({'id': str(n), 'file': f, 'line': str(i + 1), 'last': str(i + 1), 'operator': op,
                         'function': 'fn', 'init': '0', 'original': 'a', 'mutated': 'b',
                         'kernel': 'debug' if op == 'ref_delete' else 'test', 'key': f'key{n}'})
    mpath = os.path.join(tmp, 'mutants.tsv')
    with open(mpath, 'w') as fh:
        M.write_tsv(rows, ['id', 'file', 'line', 'last', 'operator', 'function', 'init', 'original', 'mutated',
                           'kernel', 'key'], fh)
    # coverage: every line of netkit.c and mprog.c ran but netkit.c's 1-10
    info = os.path.join(tmp, 'series.info')
    with open(info, 'w') as fh:
        for f in ('drivers/net/netkit.c', 'kernel/bpf/mprog.c', 'kernel/bpf/tcx.c'):
            fh.write(f'SF:/x/{f}\nFN:1,fn\nFNDA:1,fn\n')
            for i in range(1, 201):
                fh.write(f'DA:{i},{0 if f.endswith("netkit.c") and i <= 10 else 1}\n')
            fh.write('end_of_record\n')
    write(os.path.join(tmp, 'nobuild.tsv'), '# id\terror\n3\tx.c:1: error\n')

    def draw(seed, kernel='test', mx='40'):
        st = os.path.join(tmp, f'strata-{seed}-{kernel}.tsv')
        a = argparse.Namespace(mutants=mpath, nobuild=os.path.join(tmp, 'nobuild.tsv'), info=info, seed=seed,
                               max=mx, kernel=kernel, strata=st)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            M.cmd_sample(a)
        out.seek(0)
        lines = out.getvalue().splitlines()
        head = lines[0].split('\t')
        return [dict(zip(head, ln.split('\t'))) for ln in lines[1:]], M.read_tsv(st)
    s1, st1 = draw('7')
    s1b, _ = draw('7')
    s2, _ = draw('8')
    check('40 drawn', len(s1) == 40, str(len(s1)))
    check('the same seed draws the same sample', [m['id'] for m in s1] == [m['id'] for m in s1b])
    check('another seed draws another sample', [m['id'] for m in s1] != [m['id'] for m in s2])
    per = {}
    for m in s1:
        per[m['stratum']] = per.get(m['stratum'], 0) + 1
    check('every stratum drawn', len(per) == 4 and per['kernel/bpf/mprog.c|not_drop'] >= 1, str(per))
    check('proportional: var_replace (200) gets about twice stmt_delete (107 run)',
          abs(per['kernel/bpf/mprog.c|var_replace'] - 2 * per['drivers/net/netkit.c|stmt_delete']) <= 2, str(per))
    w = {m['stratum']: float(m['weight']) * per[m['stratum']] for m in s1}
    st = {r['stratum']: r for r in st1}
    check('weights add up to each stratum\'s executed mutants',
          all(abs(w[h] - int(st[h]['run'])) < 1e-3 for h in w), str(w))
    check('never-executed and non-building mutants are classed, not drawn',
          st['drivers/net/netkit.c|stmt_delete']['notexec'] == '9' and
          st['drivers/net/netkit.c|stmt_delete']['nobuild'] == '1' and
          all(m['class'] == 'run' for m in s1), str(st['drivers/net/netkit.c|stmt_delete']))
    # lines without a record: the function's count, or, with no function
    # record (inlined everywhere), the nearest line before with a record
    lpath = os.path.join(tmp, 'fallback.info')
    write(lpath, 'SF:/x/a.c\nFN:1,f\nFNDA:0,f\nDA:1,0\nDA:10,5\nDA:12,0\nDA:20,7\nend_of_record\n')
    inf = M.lcov.read(lpath)
    got = [M.executed(inf, 'a.c', 3, 3, 'f'), M.executed(inf, 'a.c', 11, 11, 'inl'),
           M.executed(inf, 'a.c', 13, 14, 'inl'), M.executed(inf, 'a.c', 10, 12, 'inl')]
    check('a line without a record: the function\'s count, else the nearest line before',
          got == [False, True, False, True], str(got))
    d, _ = draw('7', 'debug', '300')
    check('the debug kernel\'s mutants apart, all of them when fewer than --max',
          len(d) == 6 and all(m['operator'] == 'ref_delete' for m in d) and
          all(m['operator'] != 'ref_delete' for m in s1))


def test_estimate():
    say('estimate: the stratified score and its interval')
    lo, hi = M.wilson(0.5, 100)
    check("Wilson's interval of 50/100 is 40.4 % - 59.6 %", abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3,
          f'{lo} {hi}')
    lo, hi = M.wilson(1.0, 20)
    check("... of 20/20 is 83.9 % - 100 %", abs(lo - 0.8389) < 1e-3 and hi == 1.0, f'{lo} {hi}')
    # stratum A: 900 executed, 10 judged, 9 killed; B: 100 executed, 10
    # judged, 5 killed; 250 never executed
    e = M.estimate({'A': (900, 200), 'B': (100, 50)}, {'A': [1] * 9 + [0], 'B': [1] * 5 + [0] * 5})
    check('p_run = 0.9 * 0.9 + 0.1 * 0.5 = 0.86', abs(e['p_run'] - 0.86) < 1e-9, str(e))
    check('p = 0.86 * 1000 / 1250 = 0.688', abs(e['p'] - 0.688) < 1e-9, str(e))
    # weights 90 (x10) and 10 (x10): n_eff = 1000^2 / (10 * 8100 + 10 * 100) = 12.195
    check("Kish's n_eff = 12.2", abs(e['n_eff'] - 1000 ** 2 / 82000) < 1e-9, str(e['n_eff']))
    check('the interval holds the estimate', e['ci'][0] < e['p'] < e['ci'][1], str(e['ci']))
    e = M.estimate({'A': (900, 0), 'B': (100, 0)}, {'A': [1, 1]})
    check('a stratum without verdicts is left out and reported', e['uncovered'] == 100 and e['p_run'] == 1.0,
          str(e))
    check('... and a sample is no census', not e['census'], str(e))
    # every executed mutant judged: A 3 of 3, B 2 of 2, 1 never executed
    e = M.estimate({'A': (3, 1), 'B': (2, 0)}, {'A': [1, 1, 0], 'B': [1, 1]})
    check('a census: the score is counted (4 of 6), its interval has no width',
          e['census'] and abs(e['p'] - 4 / 6) < 1e-9 and e['ci'] == (e['p'], e['p']), str(e))


def test_seeds(tmp):
    say('seed registry: held out, refused, resumed, after')
    reg = os.path.join(tmp, 'mutate-seeds')
    write(reg, '# registry\n1\t2026-12-05\ttest\t200\t-\tfitted\tthe tests were fitted to it\n')

    def seed(s='', reuse='', ident='I1', mx='300'):
        a = argparse.Namespace(registry=reg, seed=s, reuse=reuse, identity=ident, kernel='test', max=mx,
                               date='2026-12-06')
        with contextlib.redirect_stdout(io.StringIO()) as out:
            try:
                M.cmd_seed(a)
            except SystemExit as e:
                return 'refused: ' + str(e)
        return out.getvalue().strip()
    check('no seed: the next unused one, held out', seed() == '2 held-out')
    check('the same seed, same identity, not finished: resumed', seed('2') == '2 held-out')
    check('no seed, a round of this identity not finished: it goes on', seed() == '2 held-out')
    check('the same seed with other tests: refused', seed('2', ident='I2').startswith('refused'))
    check('a fitted seed: refused', seed('1').startswith('refused'))
    check('... with MUTATE_REUSE_SEED=1: after', seed('1', reuse='1') == '1 after')
    M.cmd_seed_done(argparse.Namespace(registry=reg, seed='2', score='90.0 % [85.0 %, 93.0 %]'))
    check('a finished held-out round is recorded once, then refused',
          seed('2').startswith('refused') and '90.0 %' in read(reg))
    check('the next one after that is 3', seed() == '3 held-out')
    check('no seed, the tests changed before any mutant of 3 was judged: 3 drawn again on them',
          seed(ident='I8') == '3 held-out' and '3\t2026-12-06\ttest\t300\tI8\tjudging' in read(reg))
    rd = os.path.join(tmp, 'mutate-round-3')
    os.makedirs(rd)
    write(os.path.join(rd, 'results.tsv'), '# r\n0\ttest\tnetkit:t1\t0\t1.0\tb\t0\t1\t\n'
          '0\tsurvived\t\t0\t\tb\t0\t1\t\n')
    check('... a round with the baseline only is no judged round',
          seed(ident='I7') == '3 held-out' and '\tI7\tjudging' in read(reg))
    write(os.path.join(rd, 'results.tsv'), '# r\n0\tsurvived\t\t0\t\tb\t0\t1\t\n'
          '7\tkilled\tnetkit:t1\t3\t\tb\t0\t1\tK\n')
    check('no seed, the tests changed after 3 judged a mutant: 3 abandoned, 4 drawn',
          seed(ident='I9') == '4 held-out' and '3\t2026-12-06\ttest\t300\tI7\tabandoned' in read(reg))
    check('the registry keeps its header', read(reg).startswith('# registry'))


def test_carry(tmp):
    say('carry: by the mutant\'s key and the killing test')
    mpath = os.path.join(tmp, 'carry-mutants.tsv')
    write(mpath, 'id\tkey\n1\tA\n2\tB-new\n3\tC\n4\tD\n')
    tpath = os.path.join(tmp, 'carry-tests.tsv')
    write(tpath, 'area\tkind\tname\nnetkit\ttp\tt1\n')
    prev = os.path.join(tmp, 'prev.tsv')
    write(prev, '# x\n1\tkilled\tnetkit:t1\t3\t\tb\t0\t1\tA\n2\tkilled\tnetkit:t1\t3\t\tb\t0\t1\tB\n'
          '3\tkilled\tnetkit:gone\t3\t\tb\t0\t1\tC\n4\tconfirm\tnetkit:t1\t3\t\tb\t0\t1\tD\n')
    with contextlib.redirect_stdout(io.StringIO()) as out:
        M.cmd_carry(argparse.Namespace(prev=prev, name='prev', mutants=mpath, tests=tpath))
    ids = [ln.split('\t')[0] for ln in out.getvalue().splitlines()]
    check('only the kill with the same key, a final verdict and its test still there', ids == ['1'], str(ids))
    # the same round as committed verdicts (a new machine's only copy)
    ver = os.path.join(tmp, 'mutate-verdicts-9.tsv')
    write(ver, '# make mutate verdicts, seed 9, held-out: t\n# one row per mutant and boot\n'
          'id\tkey\tfile\tline\toperator\tkernel\tverdict\ttest\thits\tboot\tpos\talone\tdetail\n'
          '1\tA\tf\t1\to\ttest\tsurvived\t\t3\tb0\t0\t1\t\n'
          '1\tA\tf\t1\to\ttest\tkilled\tnetkit:t1\t3\tb1\t0\t1\t\n'
          '2\tB\tf\t2\to\ttest\tkilled\tnetkit:t1\t3\tb1\t1\t0\t\n'
          '3\tC\tf\t3\to\ttest\tcrash\tnetkit:t1\t1\tb1\t2\t0\tsplat\n'
          '4\tD\tf\t4\to\ttest\tkilled\tnetkit:t1\t3\tb1\t3\t0\t\n'
          '4\tD\tf\t4\to\ttest\tsurvived\t\t3\tb2\t0\t1\t\n')
    write(mpath, 'id\tkey\n1\tA\n2\tB-new\n3\tC\n4\tD\n')
    with contextlib.redirect_stdout(io.StringIO()) as out:
        M.cmd_carry(argparse.Namespace(prev=ver, name='mutate-verdicts-9', mutants=mpath, tests=tpath))
    rows = [ln.split('\t') for ln in out.getvalue().splitlines()]
    check('from committed verdicts: the last verdict of each, kills with the same key and test',
          [(r[0], r[1], r[2]) for r in rows] == [('1', 'killed', 'netkit:t1'), ('3', 'crash', 'netkit:t1')],
          str(rows))
    check('a carried row has the results columns and says where it came from',
          all(len(r) == len(M.RESULT_COLS) and 'carried over from mutate-verdicts-9' in r[4] for r in rows),
          str(rows))


def test_report(tmp):
    say('report: the headline and the raw verdicts')
    res = os.path.join(tmp, 'rep-results.tsv')
    muts = []
    with open(res, 'w') as f:
        for i in range(1, 11):
            muts.append({'id': str(i), 'file': 'kernel/bpf/mprog.c', 'line': str(i), 'last': str(i),
                         'operator': 'eq_negate', 'function': 'fn', 'init': '0', 'area': 'netkit tcx',
                         'class': 'run', 'original': '==', 'mutated': '!=', 'kernel': 'test', 'key': f'k{i}',
                         'stratum': 'kernel/bpf/mprog.c|eq_negate', 'weight': '2'})
            f.write(f"{i}\t{'survived' if i == 10 else 'killed'}\ttcx:tc_opts\t1\t\tboot-{i}\t0\t1\tk{i}\n")
    sp = os.path.join(tmp, 'rep-sample.tsv')
    with open(sp, 'w') as f:
        M.write_tsv(muts, SAMPLE_COLS, f)
    st = os.path.join(tmp, 'rep-strata.tsv')
    write(st, 'stratum\tpopulation\trun\tnotexec\tnobuild\tsampled\nkernel/bpf/mprog.c|eq_negate\t21\t20\t1\t0\t10\n')
    v = os.path.join(tmp, 'verdicts.tsv')
    for phase, word in (('held-out', '**HELD OUT**'), ('after', '**AFTER**')):
        a = argparse.Namespace(sample=sp, results=res, strata=st, seed='5', phase=phase, kernel='test',
                               held_out='88.0 %', verdicts=v, equivalent=None, mutants=sp, title='t',
                               registry=None)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            M.cmd_report(a)
        txt = out.getvalue()
        check(f'{phase}: the headline says {word} and the population score 85.7 % (0.9 * 20 / 21)',
              word in txt and '85.7 %' in txt and '95 % CI' in txt, txt[:400])
    check('the tables: a row per file and a row per operator over all files, with the population',
          '| **mprog.c** | all | 21 | 10 | 9 | 0 | 1 |' in txt and '| all | **eq_negate** | 21 | 10 | 9 | 0 | 1 |' in txt,
          txt)
    with open(v) as f:
        rows = [ln for ln in f if not ln.startswith('#')]
    check('the raw verdicts: a row per verdict with key, file, line, operator, test, hits, boot',
          len(rows) == 11 and rows[0].startswith('id\tkey\tfile\tline\toperator') and
          rows[10].split('\t')[6] == 'survived' and rows[1].split('\t')[9] == 'boot-1', rows[1])


C_SRC = r'''
#include <linux/kernel.h>

enum color { RED, GREEN, BLUE };

struct pair {
	int a;
	int b;
	long c;
};

static int f(struct pair *p, int x, int y)
{
	int r = 0;

	rcu_read_lock();
	if (x == y && !p)
		r = max(x, y);
	r |= ~x;
	switch (x) {
	case RED:
		r = p->a;
		break;
	default:
		break;
	}
	do {
		r++;
	} while (r < 3);
	rcu_read_unlock();
	synchronize_rcu();
	g(x, y);
	return x > 1 ? h(y) : RED;
}
'''


def test_generator(tmp):
    say('mutate-gen: the operators on a small C file')
    repo = os.path.join(tmp, 'repo')
    os.makedirs(os.path.join(repo, 'drivers/net'))
    write(os.path.join(repo, 'drivers/net/x.c'), C_SRC)
    write(os.path.join(tmp, 'config'), 'CONFIG_X=y\n')
    git = ['git', '-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t']
    subprocess.run(git + ['init', '-q'], check=True)
    subprocess.run(git + ['add', '.'], check=True)
    subprocess.run(git + ['commit', '-q', '-m', 'x'], check=True)
    subprocess.run(git + ['tag', 'base-x'], check=True)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mutate-gen.py')
    out = subprocess.run([sys.executable, gen, 'list', '--tree', repo, '--config', os.path.join(tmp, 'config'),
                          '--base', 'base-x', 'drivers/net/x.c'], check=True, capture_output=True, text=True).stdout
    rows = [ln.split('\t') for ln in out.splitlines()]
    head, rows = rows[0], rows[1:]
    ops = {}
    for r in rows:
        ops.setdefault(r[4], []).append(r)
    check('the list has kernel and key columns', head[-2:] == ['kernel', 'key'] and
          len({r[10] for r in rows}) == len(rows))
    for op in ('eq_negate', 'not_drop', 'bitnot_drop', 'assign_replace', 'minmax_swap', 'case_delete',
               'ternary_negate', 'ret_replace', 'enum_replace', 'member_replace', 'arg_swap', 'call_value_delete',
               'rel_direction', 'rcu_lock_delete', 'rcu_sync_delete', 'cond_negate'):
        check(f'{op} generated', op in ops, ' '.join(sorted(ops)))
    cn = [r for r in ops.get('cond_negate', []) if 'r < 3' in r[7]]
    check('a do-while condition is a condition', len(cn) == 1)
    check('enum_replace: RED -> GREEN', any(r[8].endswith('GREEN') or 'GREEN' in r[8]
                                            for r in ops.get('enum_replace', [])))
    check('member_replace: p->a -> p->b', any('p->b' in r[8] for r in ops.get('member_replace', [])))
    lk = ops.get('rcu_lock_delete', [[]])[0]
    check('rcu_lock_delete: one mutant from the lock to its unlock, on the debug kernel',
          len(ops.get('rcu_lock_delete', [])) == 1 and lk[9] == 'debug' and int(lk[3]) > int(lk[2]), str(lk))
    sd = [r for r in ops.get('stmt_delete', []) if 'rcu' in r[7] or 'synchronize' in r[7]]
    check('no plain stmt_delete of RCU calls', not sd, str(sd))
    os.makedirs(os.path.join(tmp, 'out/drivers/net'))
    lines = subprocess.run([sys.executable, gen, 'schemata', '--tree', repo, '--config',
                            os.path.join(tmp, 'config'), '--base', 'base-x', '--out', os.path.join(tmp, 'out'),
                            '--define', 'none', 'drivers/net/x.c'],
                           check=True, capture_output=True, text=True).stdout.splitlines()[1:]
    ids = [ln.split('\t')[0] for ln in lines]
    check('the schemata: the lock pair is one id at two places', ids.count(lk[0]) == 2, str(lk[0]))
    with open(os.path.join(tmp, 'out/drivers/net/x.c')) as f:
        sch = f.read()
    check('the schemata: the first-hit mark and the guard', 'netkit-mutate: mutant %d reached' in sch and
          '#ifndef NK_MUT_DEFINED' in sch)
    # nobuild: an error in a header, mapped through the macro note
    mg = load_gen(gen)
    cfg = {'CONFIG_X': 'y', 'CONFIG_M': 'm'}
    conds = [('defined(CONFIG_X) && defined(CONFIG_M)', True), ('defined(CONFIG_X) && defined(CONFIG_NO)', False),
             ('(defined(CONFIG_NO) || IS_ENABLED(CONFIG_M))', True), ('defined(CONFIG_NO) && FOO > 1', False),
             ('defined(CONFIG_X) && FOO > 1', None), ('defined(CONFIG_X) || FOO', True),
             ('defined(CONFIG_X) && defined(CONFIG_M) || FOO', None), ('!defined(CONFIG_X)', False)]
    got = [(c, mg.pp_cond(c, cfg)) for c, _ in conds]
    check('#if: chains of CONFIG_ terms decided by && and ||, the undecidable kept',
          got == conds, str([g for g, c in zip(got, conds) if g != c]))
    log = ('/t/include/linux/rcupdate.h:10:5: error: invalid type argument\n'
           '/t/include/linux/rcupdate.h:9:1: note: in definition of macro \u2018kfree_rcu\u2019\n'
           '/m/drivers/net/x.c:40:2: note: in expansion of macro \u2018kfree_rcu\u2019\n'
           '/m/drivers/net/y.c:7:1: error: a stray error\n')
    got = mg.nobuild(log, [(5, 'drivers/net/x.c', 39, 41)], ['/m', '/t'])
    check('nobuild: a header error mapped to its mutant by the macro note, a stray one to none',
          [g[0] for g in got] == [5, None], str(got))


def newc(entries):
    """A newc cpio archive of [(name, mode, mtime, ino, data)]."""
    out = b''
    for name, mode, mtime, ino, data in entries + [('TRAILER!!!', 0, 0, 0, b'')]:
        nb = name.encode() + b'\0'
        head = b'070701' + b''.join(b'%08X' % v for v in (ino, mode, 0, 0, 1, mtime, len(data), 0, 0, 0, 0,
                                                          len(nb), 0))
        out += head + nb + b'\0' * (-(110 + len(nb)) % 4) + data + b'\0' * (-len(data) % 4)
    return out


def test_manifest():
    body = b'\x7fELF module body'

    def signed(sig):
        return body + sig + bytes([0, 0, 2, 0, 0, 0, 0, 0]) + len(sig).to_bytes(4, 'big') + M.MODULE_SIG_MAGIC
    check('manifest: a module without its signature', M.unsigned(signed(b'key one sig')) == body)
    check('manifest: a file that is no signed module is whole', M.unsigned(body) == body)
    one = M.manifest(newc([('init', 0o100755, 11, 1, b'#!/bin/sh\n'), ('m.ko', 0o100644, 12, 2,
                                                                          signed(b'sig A'))]))
    two = M.manifest(newc([('m.ko', 0o100644, 99, 7, signed(b'another sig B')),
                                ('init', 0o100755, 98, 8, b'#!/bin/sh\n')]))
    check('manifest: other times, inodes, order and module keys: the same', one == two, f'{one} {two}')
    three = M.manifest(newc([('init', 0o100755, 11, 1, b'#!/bin/sh -e\n'), ('m.ko', 0o100644, 12, 2,
                                                                             signed(b'sig A'))]))
    check('manifest: another content: another manifest', one != three)
    four = M.manifest(newc([('init', 0o100700, 11, 1, b'#!/bin/sh\n'), ('m.ko', 0o100644, 12, 2,
                                                                          signed(b'sig A'))]))
    check('manifest: another mode: another manifest', one != four)
    five = M.manifest(newc([('init', 0o100755, 11, 1, b'#!/bin/sh\n'), ('m.ko', 0o100644, 12, 2,
                                                                          body + b'x' + signed(b'sig A')[len(body):])]))
    check('manifest: another module body under the signature: another manifest', one != five)


def load_gen(path):
    spec = importlib.util.spec_from_file_location('mutate_gen', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(verbose=False):
    VERBOSE[0] = verbose
    with tempfile.TemporaryDirectory(prefix='mutate-selftest.') as tmp:
        test_collect(tmp)
        test_sample(tmp)
        test_estimate()
        test_seeds(tmp)
        test_carry(tmp)
        test_manifest()
        test_report(tmp)
        test_generator(tmp)
    fail = f", {len(FAILED)} FAIL: {', '.join(FAILED)}" if FAILED else ''
    print(f'mutate selftest: {len(PASSED)} checks pass{fail} '
          '(verdict rules, sample, estimator, seed registry, carry-over, manifest, report, generator)')
    return 1 if FAILED else 0
