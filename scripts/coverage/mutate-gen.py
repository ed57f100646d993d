#!/usr/bin/env python3
"""mutate-gen: the mutants of make mutate, and their schemata.

    mutate-gen.py list --tree TREE --config .config [--base TAG] FILE[:added]... > mutants.tsv
    mutate-gen.py schemata --tree TREE --config .config --out WORKTREE
                  [--skip IDS] [--base TAG] FILE[:added]... > lines.tsv

The project's own small generator (Debian packages no mutation tool for C:
no Mull, Dextool, universalmutator, mutmut or cosmic-ray). It tokenises a
C file, finds the function bodies (preprocessor conditionals evaluated
against the build's .config, CONFIG_X only; other conditions keep every
branch), splits them into statements and applies the operators below to
each statement, condition, return value and initialiser. A file named
FILE:added is mutated only in the statements that touch a line the series
adds (git diff TAG against the tree's HEAD).

Operators (the "operator" column):
  stmt_delete     an expression statement (a call, an assignment) deleted;
                  not assertions and annotations (WARN_ON*, BUILD_BUG_ON,
                  ASSERT_RTNL, lockdep_*, might_sleep) nor the RCU
                  read-side markers (rcu_read_lock/unlock: no effect
                  without lockdep on the test kernel)
  cond_negate     an if/while/for condition C replaced by !(C)
  cond_drop       one operand of a && or || chain dropped
  andor_swap      one && replaced by || or the other way round
  rel_offbyone    < <= > >= replaced by <= < >= >
  errno_replace   an errno replaced by another (EINVAL -> EPERM, any
                  other -> EINVAL)
  const_replace   an integer literal (0 -> 1, 1 -> 0, n -> n + 1), true
                  <-> false, or a constant by its sibling (BPF_F_BEFORE
                  <-> BPF_F_AFTER, NETKIT_PASS <-> NETKIT_DROP, ...)
  var_replace     a local variable or parameter replaced by another of
                  the same declared type in scope (peer <-> dev, entry <->
                  entry_new, ...)
  call_arg_drop   max/min(a, b) (and the _t forms) replaced by a or b

Output of list: one mutant a line, tab-separated: id, file, line, last
(the lines of the changed text), operator, function, init (1: the function is __init, the mutant must be
selected on the kernel command line), original text, mutated text (the
changed fragment, with a little context, whitespace collapsed). Ids are
numbered in file order, then source order, then operator order:
deterministic for the same sources.

Schemata: every mutant is compiled into the tree at once. A site (a
statement, a condition, an initialiser) becomes a chain on the mutant
selector:  if (nk_mut(17)) { <mutant 17> } else if (nk_mut(18)) {
<mutant 18> } else { <original> }  (for conditions and initialisers the
same as a ?: chain). nk_mut(id) is true when the kernel parameter
netkit_mutant (/sys/module/kernel/parameters/netkit_mutant, or
netkit_mutant=ID on the command line) is id, and then counts a hit in
netkit_mutant_hits: the guest sees whether a test reached the mutant.
Each mutant's text is on lines of its own; the lines output (id, file,
first line, last line in the schemata file) map a compiler error back to
its mutant, which --skip then leaves out.
"""

import argparse
import re
import subprocess
import sys

import serieslines

# ---------------------------------------------------------------- lexer

TOKEN_RE = re.compile(r'''
    (?P<ws>[ \t\r\n\f\v]+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\.\.\.|[{}()\[\];,.:?~!%^&*+\-=<>/|#])
''', re.S | re.X)


class Tok:
    __slots__ = ('kind', 'text', 'start', 'end', 'line')

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = kind, text, start, end, line

    def __repr__(self):
        return f'{self.text}@{self.line}'


def lex(src, config):
    """Significant tokens of src; preprocessor lines become 'pp' tokens,
    tokens of inactive #if branches are dropped."""
    toks = []
    pos, line, n = 0, 1, len(src)
    bol = True            # at the beginning of a line (for '#')
    stack = []            # per #if: [active, taken]
    active = True
    while pos < n:
        if bol:
            m = re.match(r'[ \t]*#', src[pos:pos + 200])
            if m:
                # a preprocessor line with its continuations
                end = pos
                while True:
                    nl = src.find('\n', end)
                    if nl < 0:
                        nl = n
                    if src[end:nl].rstrip().endswith('\\') and nl < n:
                        end = nl + 1
                        continue
                    break
                text = src[pos:nl]
                active = pp_directive(text, stack, config)
                toks.append(Tok('pp', text, pos, nl, line))
                line += text.count('\n')
                pos = nl
                continue
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise SystemExit(f'mutate-gen: cannot tokenise at line {line}: {src[pos:pos + 20]!r}')
        kind = m.lastgroup
        text = m.group()
        if kind == 'ws':
            nlc = text.count('\n')
            if nlc:
                bol = True
            line += nlc
            pos = m.end()
            continue
        bol = False
        if kind == 'comment':
            line += text.count('\n')
            pos = m.end()
            continue
        if active:
            toks.append(Tok(kind, text, pos, m.end(), line))
        line += text.count('\n')
        pos = m.end()
    return toks


def pp_cond(expr, config):
    """True/False for the conditions we can decide, None otherwise."""
    expr = expr.strip()
    m = re.fullmatch(r'(!?)\s*(?:defined\s*\(?\s*|IS_ENABLED\s*\(\s*|IS_BUILTIN\s*\(\s*)?(CONFIG_\w+)\s*\)?', expr)
    if m:
        val = config.get(m.group(2), 'n')
        on = val in ('y', 'm') if 'IS_BUILTIN' not in expr else val == 'y'
        return (not on) if m.group(1) else on
    return None


def pp_directive(text, stack, config):
    """Update the #if stack for one directive; returns whether code is
    active after it."""
    body = re.sub(r'\\\n', ' ', text).strip()[1:].strip()
    word = re.match(r'\w*', body).group()
    rest = body[len(word):]
    rest = re.sub(r'/\*.*?\*/|//.*', '', rest).strip()
    outer = all(s[0] is not False for s in stack)
    if word in ('if', 'ifdef', 'ifndef'):
        if word == 'ifdef':
            c = pp_cond('defined(' + rest + ')', config) if rest.startswith('CONFIG_') else None
        elif word == 'ifndef':
            c = pp_cond('!defined(' + rest + ')', config) if rest.startswith('CONFIG_') else None
        else:
            c = pp_cond(rest, config)
        # None: unknown, keep the branch (active), and every other one
        stack.append([c, c is True])
    elif word == 'elif':
        top = stack[-1]
        if top[1]:
            top[0] = False
        else:
            c = pp_cond(rest, config)
            top[0] = c
            top[1] = c is True
    elif word == 'else':
        top = stack[-1]
        if top[0] is None:
            top[0] = None
        else:
            top[0] = not top[1]
            top[1] = True
    elif word == 'endif':
        stack.pop()
    return all(s[0] is not False for s in stack)


def read_config(path):
    cfg = {}
    with open(path) as f:
        for ln in f:
            m = re.match(r'(CONFIG_\w+)=(.*)', ln)
            if m:
                cfg[m.group(1)] = m.group(2).strip('"')
    return cfg


# ---------------------------------------------------------------- parser

TYPE_WORDS = {'int', 'bool', 'char', 'short', 'long', 'unsigned', 'signed', 'void',
              'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'size_t',
              '__u8', '__u16', '__u32', '__u64', 'struct', 'enum', 'union', 'const',
              'static', 'volatile', 'netdev_tx_t', 'gfp_t', 'bpfptr_t', 'sockptr_t',
              'netdev_features_t', 'ssize_t', 'loff_t', 'pid_t', 'uid_t', 'umode_t'}
STMT_KEYWORDS = {'if', 'else', 'while', 'for', 'do', 'switch', 'case', 'default',
                 'return', 'goto', 'break', 'continue', 'sizeof', 'typeof'}
NO_DELETE = re.compile(r'^(WARN_ON|WARN_ON_ONCE|WARN|WARN_ONCE|BUILD_BUG_ON\w*|BUG_ON|ASSERT_RTNL|'
                       r'lockdep_\w+|might_sleep|rcu_read_lock|rcu_read_unlock|'
                       r'rcu_read_lock_bh|rcu_read_unlock_bh|fallthrough)$')
ERRNOS = {'EPERM', 'ENOENT', 'ESRCH', 'EINTR', 'EIO', 'ENXIO', 'E2BIG', 'EBADF', 'EAGAIN',
          'ENOMEM', 'EACCES', 'EFAULT', 'EBUSY', 'EEXIST', 'ENODEV', 'EINVAL', 'ENOSPC',
          'ERANGE', 'EOPNOTSUPP', 'ENOTSUPP', 'ESTALE', 'ENOLINK', 'EMSGSIZE', 'ENOTCONN',
          'EADDRNOTAVAIL', 'ENOBUFS', 'EPROTO', 'ENOTSOCK', 'ELOOP', 'ENOTDIR', 'ENOTEMPTY'}
SIBLINGS = [('BPF_F_BEFORE', 'BPF_F_AFTER'), ('BPF_F_ID', 'BPF_F_LINK'),
            ('NETKIT_PASS', 'NETKIT_DROP'), ('NETKIT_NEXT', 'NETKIT_PASS'),
            ('NETKIT_L2', 'NETKIT_L3'), ('BPF_NETKIT_PRIMARY', 'BPF_NETKIT_PEER'),
            ('BPF_TCX_INGRESS', 'BPF_TCX_EGRESS'), ('NET_XMIT_SUCCESS', 'NET_XMIT_DROP'),
            ('NET_RX_SUCCESS', 'NET_RX_DROP'), ('NET_NAME_USER', 'NET_NAME_ENUM'),
            ('TC_ACT_SHOT', 'TC_ACT_OK'), ('TC_ACT_UNSPEC', 'TC_ACT_OK'),
            ('TCX_NEXT', 'TCX_PASS'), ('BPF_LINK_TYPE_NETKIT', 'BPF_LINK_TYPE_TCX'),
            ('BPF_PROG_TYPE_SCHED_CLS', 'BPF_PROG_TYPE_UNSPEC'),
            ('NETKIT_SCRUB_NONE', 'NETKIT_SCRUB_DEFAULT'),
            ('SKB_DROP_REASON_TC_INGRESS', 'SKB_DROP_REASON_TC_EGRESS')]
SIBLING = {}
for a, b in SIBLINGS:
    SIBLING.setdefault(a, b)
    SIBLING.setdefault(b, a)
NO_MUTATE = re.compile(r'^(BUILD_BUG_ON\w*|static_assert)$')
TWO_ARG = {'max': 0, 'min': 0, 'max_t': 1, 'min_t': 1}
REL = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}


class Site:
    """A place the schemata can switch: kind is cond (the inside of the
    parentheses of if/while/for), stmt (an expression statement with its
    ';'), ret (a return statement) or init (a declarator's initialiser).
    a..b: indices into the token list, inclusive."""

    def __init__(self, kind, a, b, func):
        self.kind, self.a, self.b, self.func = kind, a, b, func
        self.mutants = []


class Func:
    def __init__(self, name, init, params):
        self.name, self.init = name, init
        self.vars = params      # [(name, type, decl_index, scope_end)]


def match_close(toks, i):
    """Index of the bracket closing the one at i."""
    pairs = {'(': ')', '[': ']', '{': '}'}
    o, c = toks[i].text, pairs[toks[i].text]
    d = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind == 'punct':
            if t == o:
                d += 1
            elif t == c:
                d -= 1
                if d == 0:
                    return j
    raise ParseError(f'unbalanced {o} at line {toks[i].line}')


def find_at_depth0(toks, i, end, texts):
    """First index in [i, end) whose token text is in texts at bracket
    depth 0 (relative to i), or -1."""
    d = 0
    for j in range(i, end):
        t = toks[j]
        if d == 0 and t.text in texts:
            return j
        if t.kind == 'punct':
            if t.text in '([{':
                d += 1
            elif t.text in ')]}':
                d -= 1
    return -1


def parse_decl_vars(toks, a, b):
    """The declarators of a declaration toks[a..b) (without ';'):
    [(name, type, name_index, init_range or None)]. The type is the base
    type of the first declarator (qualifiers but static, __rcu and
    __maybe_unused kept) plus the declarator's stars, "[]" for arrays."""
    parts = split_args(toks, a, b)
    base, out = None, []
    for pa, pb in parts:
        eq = find_at_depth0(toks, pa, pb, {'='})
        he = eq if eq >= 0 else pb
        arr = find_at_depth0(toks, pa, he, {'['})
        if arr >= 0:
            he = arr
        idents = [j for j in range(pa, he) if toks[j].kind == 'ident']
        if not idents or (toks[he - 1].text == ')' if he > pa else False):
            return out if base is not None else []
        nm = idents[-1]
        if base is None:
            words = [toks[j].text for j in range(pa, nm)
                     if toks[j].text not in ('*', 'static', '__rcu', '__maybe_unused')]
            base = ' '.join(words)
        stars = sum(1 for j in range(pa, nm) if toks[j].text == '*')
        typ = (base + ' ' + '*' * stars).strip() + ('[]' if arr >= 0 else '')
        init = None
        if eq >= 0 and eq + 1 < pb and toks[eq + 1].text != '{':
            init = (eq + 1, pb - 1)
        out.append((toks[nm].text, typ, nm, init))
    return out


def is_decl_start(toks, i):
    t = toks[i]
    if t.kind != 'ident' or t.text in STMT_KEYWORDS:
        return False
    if t.text in TYPE_WORDS:
        return True
    n = toks[i + 1]
    if n.kind == 'ident' and n.text not in STMT_KEYWORDS:
        return True
    if n.text == '*' and toks[i + 2].kind == 'ident' and toks[i + 3].text in (';', ',', '=', '['):
        # "type *name" (a multiplication statement would not end there)
        return True
    return False


class ParseError(Exception):
    pass


class Parser:
    def __init__(self, toks, only=None):
        self.toks = toks
        self.only = only        # a set of lines: only functions touching them
        self.sites = []
        self.funcs = []

    def functions(self):
        toks = self.toks
        i, n = 0, len(toks)
        while i < n:
            t = toks[i]
            if t.kind == 'punct' and t.text == '{':
                prev = toks[i - 1] if i else None
                close = match_close(toks, i)
                if prev is not None and prev.text == ')':
                    op = self.open_of(i - 1)
                    if op > 0 and toks[op - 1].kind == 'ident':
                        name = toks[op - 1].text
                        # the header: back to the previous ; } or pp line
                        h = op - 1
                        while h > 0 and toks[h - 1].text not in (';', '}') and toks[h - 1].kind != 'pp':
                            h -= 1
                        header = [x.text for x in toks[h:op]]
                        init = '__init' in header
                        params = []
                        for pa, pb in self.split_commas(op + 1, i - 1):
                            for v in parse_decl_vars(toks, pa, pb):
                                # an array parameter is a pointer
                                typ = v[1][:-2].rstrip() + ' *' if v[1].endswith('[]') else v[1]
                                params.append((v[0], typ.replace('* *', '**'), v[2], close))
                        f = Func(name, init, params)
                        lines = set(range(toks[i].line, toks[close].line + 1))
                        if self.only is None:
                            self.funcs.append(f)
                            self.block(i, f)
                        elif lines & self.only:
                            # a shared file: only the functions the series
                            # touches, and one that cannot be parsed is
                            # left out with a note
                            n_sites = len(self.sites)
                            try:
                                self.block(i, f)
                                self.funcs.append(f)
                            except ParseError as e:
                                del self.sites[n_sites:]
                                print(f'mutate-gen: {name} left out: {e}', file=sys.stderr)
                i = close + 1
                continue
            i += 1

    def open_of(self, close_i):
        d = 0
        for j in range(close_i, -1, -1):
            t = self.toks[j].text
            if self.toks[j].kind != 'punct':
                continue
            if t == ')':
                d += 1
            elif t == '(':
                d -= 1
                if d == 0:
                    return j
        return -1

    def split_commas(self, a, b):
        toks = self.toks
        parts, d, s = [], 0, a
        for j in range(a, b):
            t = toks[j].text
            if toks[j].kind == 'punct':
                if t in '([{':
                    d += 1
                elif t in ')]}':
                    d -= 1
                elif t == ',' and d == 0:
                    parts.append((s, j))
                    s = j + 1
        if s < b:
            parts.append((s, b))
        return parts

    def block(self, i, f):
        """Statements of the block opening at i; returns the index of its }."""
        close = match_close(self.toks, i)
        j = i + 1
        while j < close:
            j = self.statement(j, f, close)
        return close

    def statement(self, i, f, limit):
        toks = self.toks
        t = toks[i]
        if t.kind == 'pp':
            return i + 1
        x = t.text
        if x == '{':
            return self.block(i, f) + 1
        if x == ';':
            return i + 1
        if x in ('if', 'while', 'switch') and toks[i + 1].text == '(':
            c = match_close(toks, i + 1)
            if x != 'switch':
                self.add('cond', i + 2, c - 1, f)
            j = self.statement(c + 1, f, limit)
            if x == 'if' and j < limit and toks[j].text == 'else':
                j = self.statement(j + 1, f, limit)
            return j
        if x == 'for' and toks[i + 1].text == '(':
            c = match_close(toks, i + 1)
            s1 = find_at_depth0(toks, i + 2, c, {';'})
            s2 = find_at_depth0(toks, s1 + 1, c, {';'})
            if s1 >= 0 and s2 > s1 + 1:
                self.add('cond', s1 + 1, s2 - 1, f)
            return self.statement(c + 1, f, limit)
        if x == 'do':
            j = self.statement(i + 1, f, limit)
            # while ( ... ) ;
            c = match_close(toks, j + 1)
            return c + 2
        if x in ('case', 'default'):
            j = find_at_depth0(toks, i, limit, {':'})
            return j + 1
        if t.kind == 'ident' and toks[i + 1].text == ':' and x not in STMT_KEYWORDS:
            return i + 2            # a label
        if x == 'return':
            e = find_at_depth0(toks, i, limit, {';'})
            if e > i + 1:
                self.add('ret', i, e, f)
            return e + 1
        if x in ('goto', 'break', 'continue'):
            return find_at_depth0(toks, i, limit, {';'}) + 1
        if t.kind == 'ident' and toks[i + 1].text == '(' and x not in STMT_KEYWORDS:
            c = match_close(toks, i + 1)
            if toks[c + 1].text != ';' and toks[c + 1].kind != 'punct' or toks[c + 1].text == '{':
                # a loop macro: bpf_mprog_foreach_prog(...) { ... }
                return self.statement(c + 1, f, limit)
        e = find_at_depth0(toks, i, limit, {';'})
        if e < 0:
            raise ParseError(f'no end of the statement at line {t.line} in {f.name}')
        if is_decl_start(toks, i):
            scope_end = self.scope_end(i)
            static = toks[i].text == 'static'
            for name, typ, ni, init in parse_decl_vars(toks, i, e):
                f.vars.append((name, typ, ni, scope_end))
                # (a static's initialiser must stay a constant)
                if init and not static:
                    self.add('init', init[0], init[1], f)
            return e + 1
        self.add('stmt', i, e, f)
        return e + 1

    def scope_end(self, i):
        """The index of the } that closes the block holding token i."""
        d = 0
        for j in range(i, len(self.toks)):
            t = self.toks[j]
            if t.kind == 'punct':
                if t.text == '{':
                    d += 1
                elif t.text == '}':
                    if d == 0:
                        return j
                    d -= 1
        return len(self.toks)

    def add(self, kind, a, b, f):
        if kind == 'stmt' and NO_MUTATE.match(self.toks[a].text):
            return              # a compile-time assertion
        if any(self.toks[j].kind == 'pp' for j in range(a, b + 1)):
            return              # a preprocessor line inside: not switchable
        self.sites.append(Site(kind, a, b, f))


# ---------------------------------------------------------------- operators

class Mutant:
    def __init__(self, site, op, ra, rb, new, note=None):
        # replace tokens ra..rb (inclusive; rb = ra - 1: insert before ra)
        self.site, self.op, self.ra, self.rb, self.new = site, op, ra, rb, new
        self.note = note
        self.id = None


def logical_groups(toks, a, b):
    """Ranges (lo, hi) - the whole of a..b and every parenthesised region
    inside - whose top level holds && or ||, with the operator indices."""
    groups = []

    def scan(lo, hi):
        ops, d = [], 0
        for j in range(lo, hi + 1):
            t = toks[j]
            if t.kind == 'punct':
                if t.text in '([{':
                    if d == 0 and t.text == '(':
                        scan(j + 1, match_close(toks, j) - 1)
                    d += 1
                elif t.text in ')]}':
                    d -= 1
                elif d == 0 and t.text in ('&&', '||'):
                    ops.append(j)
                elif d == 0 and t.text == '?':
                    return      # a ?: at top level: leave the group alone
        if ops:
            groups.append((lo, hi, ops))
    scan(a, b)
    return groups


def operators(site, toks):
    a, b = site.a, site.b
    f = site.func
    out = []
    body_b = b - 1 if site.kind in ('stmt', 'ret') else b   # without ';'
    body_a = a + 1 if site.kind == 'ret' else a
    # stmt_delete
    if site.kind == 'stmt':
        first = toks[a]
        call = first.kind == 'ident' and toks[a + 1].text == '('
        if not (call and NO_DELETE.match(first.text)):
            if call or find_at_depth0(toks, a, b, {'=', '+=', '-=', '|=', '&=', '++', '--', '^='}) >= 0:
                out.append(Mutant(site, 'stmt_delete', a, b, ';'))
    # conditions
    if site.kind == 'cond':
        out.append(Mutant(site, 'cond_negate', a, b, None, 'negate'))
    for lo, hi, ops in logical_groups(toks, body_a, body_b):
        bounds = [lo] + [o + 1 for o in ops]
        ends = [o - 1 for o in ops] + [hi]
        for k in range(len(bounds)):
            # drop operand k with the operator next to it
            if k == 0:
                out.append(Mutant(site, 'cond_drop', bounds[0], ops[0], ''))
            else:
                out.append(Mutant(site, 'cond_drop', ops[k - 1], ends[k], ''))
        for o in ops:
            out.append(Mutant(site, 'andor_swap', o, o, '||' if toks[o].text == '&&' else '&&'))
    # token operators
    for j in range(body_a, body_b + 1):
        t = toks[j]
        prev = toks[j - 1].text if j > 0 else ''
        nxt = toks[j + 1].text if j + 1 < len(toks) else ''
        if t.kind == 'punct' and t.text in REL:
            out.append(Mutant(site, 'rel_offbyone', j, j, REL[t.text]))
        elif t.kind == 'ident' and t.text in ERRNOS and prev in ('-', '(', ',', '=', 'return'):
            out.append(Mutant(site, 'errno_replace', j, j, 'EPERM' if t.text == 'EINVAL' else 'EINVAL'))
        elif t.kind == 'ident' and t.text in SIBLING and prev not in ('.', '->'):
            out.append(Mutant(site, 'const_replace', j, j, SIBLING[t.text]))
        elif t.kind == 'ident' and t.text in ('true', 'false'):
            out.append(Mutant(site, 'const_replace', j, j, 'false' if t.text == 'true' else 'true'))
        elif t.kind == 'number' and prev != '[':
            v = int(re.match(r'0[xX][0-9a-fA-F]+|[0-9]+', t.text).group(), 0)
            nv = 1 if v == 0 else 0 if v == 1 else v + 1
            out.append(Mutant(site, 'const_replace', j, j, str(nv)))
        elif t.kind == 'ident' and t.text in TWO_ARG and nxt == '(':
            c = match_close(toks, j + 1)
            parts = split_args(toks, j + 2, c)
            skip = TWO_ARG[t.text]
            if len(parts) == 2 + skip:
                for pa, pb in parts[skip:]:
                    out.append(Mutant(site, 'call_arg_drop', j, c,
                                      '(' + src_of(toks, pa, pb - 1) + ')'))
        elif t.kind == 'ident' and prev not in ('.', '->') and nxt != '(':
            mine = var_at(f, t.text, j)
            if mine is not None:
                for name, typ, ni, se in f.vars:
                    if name != t.text and typ == mine[1] and ni < j <= se and not typ.endswith('[]'):
                        out.append(Mutant(site, 'var_replace', j, j, name))
    return out


SRC = None


def src_of(toks, a, b):
    return SRC[toks[a].start:toks[b].end]


def split_args(toks, a, c):
    parts, d, s = [], 0, a
    for j in range(a, c):
        t = toks[j].text
        if toks[j].kind == 'punct':
            if t in '([{':
                d += 1
            elif t in ')]}':
                d -= 1
            elif t == ',' and d == 0:
                parts.append((s, j))
                s = j + 1
    parts.append((s, c))
    return parts


def var_at(f, name, j):
    """The variable name refers to at token j (the innermost declaration
    before j whose scope holds j), or None."""
    best = None
    for v in f.vars:
        if v[0] == name and v[2] < j <= v[3]:
            if best is None or v[2] > best[2]:
                best = v
    return best


# ---------------------------------------------------------------- rendering

def site_text(toks, site, m=None):
    """The site's source text, with mutant m applied."""
    a, b = site.a, site.b
    if m is None:
        return SRC[toks[a].start:toks[b].end]
    if m.op == 'cond_negate':
        return '!(' + SRC[toks[a].start:toks[b].end] + ')'
    pre = SRC[toks[a].start:toks[m.ra].start] if m.ra > a else ''
    post = SRC[toks[m.rb].end:toks[b].end] if m.rb < b else ''
    return pre + m.new + post


def short(text):
    return re.sub(r'\s+', ' ', text).strip()


def fragment(toks, m):
    """original -> mutated, the changed tokens with a little context."""
    site = m.site
    if m.op == 'cond_negate':
        o = short(site_text(toks, site))
        return o, '!(' + o + ')'
    if m.op == 'stmt_delete':
        return short(site_text(toks, site)), '(deleted)'
    lo = max(site.a, m.ra - 3)
    hi = min(site.b, m.rb + 3)
    o = SRC[toks[lo].start:toks[hi].end]
    pre = SRC[toks[lo].start:toks[m.ra].start] if m.ra > lo else ''
    post = SRC[toks[m.rb].end:toks[hi].end] if m.rb < hi else ''
    return short(o), short(pre + m.new + post)


def render(path, src, toks, sites, skip):
    """The schemata file; and [(id, first line, last line)]."""
    out, pos = [], 0
    where = []
    line = [1]

    def emit(s):
        out.append(s)
        line[0] += s.count('\n')

    header = ('\n/* make mutate: mutation schemata, generated by scripts/coverage/mutate-gen.py */\n'
              'extern int netkit_mutant;\n'
              'extern unsigned long netkit_mutant_hits;\n'
              'static __always_inline bool nk_mut(int id)\n'
              '{\n'
              '\tif (unlikely(READ_ONCE(netkit_mutant) == id)) {\n'
              '\t\tWRITE_ONCE(netkit_mutant_hits, READ_ONCE(netkit_mutant_hits) + 1);\n'
              '\t\treturn true;\n'
              '\t}\n'
              '\treturn false;\n'
              '}\n')
    # after the last #include of the file's head
    # the #includes of the file's head: before its first line of code
    # (syscall.c includes bpf_types.h again inside initialisers)
    first = next((t.start for t in toks if t.kind != 'pp'), len(src))
    inc = [t for t in toks if t.kind == 'pp' and re.match(r'\s*#\s*include', t.text) and t.start < first]
    hpos = inc[-1].end if inc else 0
    for s in sorted(sites, key=lambda s: toks[s.a].start):
        ms = [m for m in s.mutants if m.id not in skip]
        if not ms:
            continue
        st, en = toks[s.a].start, toks[s.b].end
        if pos <= hpos < st:
            emit(src[pos:hpos] + header)
            pos = hpos
        emit(src[pos:st])
        orig = src[st:en]
        if s.kind in ('cond', 'init'):
            # a condition's alternatives as truth values: a pointer and
            # its negation are then of one type
            b = '!!' if s.kind == 'cond' else ''
            emit('(')
            for m in ms:
                emit(f'nk_mut({m.id}) ? {b}(\n')
                l0 = line[0]
                emit(site_text(toks, s, m))
                where.append((m.id, l0, line[0]))
                emit('\n) : ')
            emit(f'{b}(' + orig + '))')
        else:
            emit('{ ')
            for m in ms:
                emit(f'if (nk_mut({m.id})) {{\n')
                l0 = line[0]
                emit(site_text(toks, s, m))
                where.append((m.id, l0, line[0]))
                emit('\n} else ')
            emit('{ ' + orig + ' } }')
        pos = en
    if pos <= hpos:
        emit(src[pos:hpos] + header)
        pos = hpos
    emit(src[pos:])
    return ''.join(out), where


# ---------------------------------------------------------------- driver

DEFINE = '''
/* make mutate: the mutant selector of the schemata (scripts/coverage/mutate-gen.py):
 * netkit_mutant=ID on the command line, or
 * /sys/module/kernel/parameters/netkit_mutant at run time; the hits count
 * how often the selected mutant ran.
 */
#include <linux/moduleparam.h>
int netkit_mutant;
unsigned long netkit_mutant_hits;
core_param(netkit_mutant, netkit_mutant, int, 0644);
core_param(netkit_mutant_hits, netkit_mutant_hits, ulong, 0644);
'''

REV = 'HEAD'


def mutants_of(tree, config, spec, base):
    global SRC
    path, _, mode = spec.partition(':')
    # the file as committed: the worktree's copy may hold the schemata
    src = subprocess.run(['git', '-C', tree, 'show', f'{REV}:{path}'],
                         check=True, capture_output=True, text=True).stdout
    SRC = src
    toks = lex(src, config)
    keep = serieslines.added_lines(tree, base, REV, path) if mode == 'added' else None
    p = Parser(toks, keep)
    try:
        p.functions()
    except ParseError as e:
        raise SystemExit(f'mutate-gen: {path}: {e}')
    sites = []
    for s in p.sites:
        lines = set(range(toks[s.a].line, toks[s.b].line + 1))
        if keep is not None and not lines & keep:
            continue
        s.mutants = operators(s, toks)
        if keep is not None:
            # only what changes an added line
            s.mutants = [m for m in s.mutants
                         if m.op in ('cond_negate', 'stmt_delete') or
                         set(range(toks[max(m.ra, s.a)].line, toks[min(max(m.rb, m.ra), s.b)].line + 1)) & keep]
        sites.append(s)
    return path, src, toks, sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cmd', choices=['list', 'schemata'])
    ap.add_argument('--tree', required=True)
    ap.add_argument('--config', required=True)
    ap.add_argument('--base', default=None)
    ap.add_argument('--out')
    ap.add_argument('--rev', default='HEAD', help='the commit whose files are mutated')
    ap.add_argument('--skip', default='')
    ap.add_argument('--define', default='kernel/bpf/mprog.c',
                    help='the file that defines the selector (one always built with the others)')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    global REV
    REV = args.rev
    config = read_config(args.config)
    skip = {int(x) for x in re.split(r'[\s,]+', args.skip.strip()) if x}
    base = args.base
    if base is None:
        base = subprocess.run(['git', '-C', args.tree, 'describe', '--tags', '--abbrev=0', '--match', 'base-*', REV],
                              check=True, capture_output=True, text=True).stdout.strip()
    nid = 0
    results = []
    for spec in args.files:
        path, src, toks, sites = mutants_of(args.tree, config, spec, base)
        for s in sites:
            for m in s.mutants:
                nid += 1
                m.id = nid
        results.append((path, src, toks, sites))
    w = sys.stdout.write
    if args.cmd == 'list':
        w('id\tfile\tline\tlast\toperator\tfunction\tinit\toriginal\tmutated\n')
        for path, src, toks, sites in results:
            global SRC
            SRC = src
            for s in sites:
                for m in s.mutants:
                    o, n = fragment(toks, m)
                    if m.op in ('cond_negate', 'stmt_delete'):
                        l0, l1 = toks[s.a].line, toks[s.b].line
                    else:
                        l0 = toks[max(m.ra, s.a)].line
                        l1 = toks[min(max(m.rb, m.ra), s.b)].line
                    w(f'{m.id}\t{path}\t{l0}\t{l1}\t{m.op}\t{s.func.name}\t{int(s.func.init)}\t{o}\t{n}\n')
        return
    w('id\tfile\tfirst\tlast\n')
    for path, src, toks, sites in results:
        SRC = src
        text, where = render(path, src, toks, sites, skip)
        if path == args.define:
            text += DEFINE
        # written only when changed: kbuild rebuilds by mtime
        target = f'{args.out}/{path}'
        try:
            with open(target) as fh:
                same = fh.read() == text
        except FileNotFoundError:
            same = False
        if not same:
            with open(target, 'w') as fh:
                fh.write(text)
        for mid, l0, l1 in where:
            w(f'{mid}\t{path}\t{l0}\t{l1}\n')


if __name__ == '__main__':
    main()
