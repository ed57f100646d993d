"""lcov: the reader of make coverage's lcov tracefile, for
scripts/coverage/summary.py (line and branch coverage of the series)
and scripts/coverage/mutate.py (which mutants' code ran). Imported, not
run."""

import collections


class Source:
    """One source file of the tracefile, its sections summed (a source
    can stand in several, e.g. a header per object that inlines it):

    lines      {line: count}, the DA records: its keys are the lines
               with code, a line that never ran has count 0
    branches   {(line, block, branch): times taken}, the BRDA records
               (block and branch as lcov writes them; taken "-", the
               branch's block never ran, is 0)
    functions  {function: count}, the FNDA records
    starts     {function: its first line}, the FN records
    """

    def __init__(self):
        self.lines = collections.Counter()
        self.branches = collections.Counter()
        self.functions = collections.Counter()
        self.starts = {}


def read(path):
    """{source path as the tracefile names it: Source}"""
    sources = {}
    cur = None
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            ln = ln.strip()
            kind, _, rest = ln.partition(':')
            if ln.startswith('SF:'):
                cur = sources.setdefault(rest, Source())
                continue
            if ln == 'end_of_record':
                cur = None
                continue
            if kind not in ('DA', 'BRDA', 'FN', 'FNDA'):
                continue
            if cur is None:
                raise SystemExit(f'{path}:{n}: a {kind} record outside an SF section')
            if kind == 'DA':
                # DA:LINE,COUNT[,CHECKSUM]
                line, cnt = rest.split(',')[:2]
                cur.lines[int(line)] += int(cnt)
            elif kind == 'BRDA':
                line, block, branch, taken = rest.split(',')
                cur.branches[(int(line), block, branch)] += 0 if taken == '-' else int(taken)
            elif kind == 'FN':
                line, name = rest.split(',', 1)
                cur.starts.setdefault(name, int(line))
            else:
                cnt, name = rest.split(',', 1)
                cur.functions[name] += int(cnt)
    return sources
