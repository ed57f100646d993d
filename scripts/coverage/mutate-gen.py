#!/usr/bin/env python3
"""mutate-gen: the mutants of make mutate, and their schemata.

    mutate-gen.py list --tree TREE --config .config [--base TAG] FILE[:added]... > mutants.tsv
    mutate-gen.py schemata --tree TREE --config .config --out WORKTREE
                  [--skip IDS] [--base TAG] FILE[:added]... > lines.tsv

The project's own small generator (Debian packages no mutation tool for C:
no Mull, Dextool, universalmutator, mutmut or cosmic-ray). It tokenises a
C file, finds the function bodies (preprocessor conditionals evaluated
against the build's .config: CONFIG_X terms and && or || chains of them;
other conditions keep every branch), splits them into statements and applies the operators below to
each statement, condition, return value and initialiser. A file named
FILE:added is mutated only in the statements that touch a line the series
adds (git diff TAG against the tree's HEAD).

Operators (the "operator" column; scripts/coverage/README.md has their
counts on the series). Run on the test kernel:
  stmt_delete     an expression statement (a call, an assignment) deleted;
                  not assertions and annotations (WARN_ON*, BUILD_BUG_ON,
                  ASSERT_RTNL, lockdep_*, might_sleep), nor the calls of
                  the debug operators below (they have their own)
  cond_negate     an if/while/for/do-while condition C replaced by !(C)
  cond_drop       one operand of a && or || chain dropped
  andor_swap      one && replaced by || or the other way round
  ternary_negate  the condition of C ? A : B negated (as C ? B : A)
  rel_offbyone    < <= > >= replaced by <= < >= >
  rel_direction   < <= > >= replaced by > >= < <=
  eq_negate       == replaced by != and the other way round
  not_drop        a ! removed (not one that negates a whole condition:
                  cond_negate is that mutant)
  bitnot_drop     a ~ removed
  bitwise_replace binary & <-> |, ^ -> |, << <-> >>
  assign_replace  a compound assignment's operator changed (+= <-> -=,
                  |= <-> &=, ^= -> |=, <<= <-> >>=, *= <-> /=), ++ <-> --
  errno_replace   an errno replaced by another (EINVAL -> EPERM, any
                  other -> EINVAL)
  const_replace   an integer literal (0 -> 1, 1 -> 0, n -> n + 1), true
                  <-> false
  enum_replace    a named constant replaced by its sibling: the pairs of
                  SIBLINGS first (BPF_F_BEFORE <-> BPF_F_AFTER, ...), else
                  the next member of its enum or of its block of #defines
                  in the headers of CONTEXT (NETKIT_*, TCX_*, IFLA_NETKIT_*,
                  GFP_*, IFF_*, ...)
  ret_replace     a return value replaced: by 0 (-EINVAL, or 1 for an
                  unsigned or enum type, when it is 0 already), a bool by
                  its negation, a pointer by NULL (ERR_PTR(-EINVAL) when it
                  is NULL already)
  var_replace     a local variable or parameter replaced by another of
                  the same declared type in scope (peer <-> dev, entry <->
                  entry_new, ...)
  member_replace  a struct member read replaced by another member of the
                  same type of that struct (nk->primary <-> nk->peer...;
                  the one declared before and the one after), the base's
                  type known from a variable, a member or a function's
                  return type of the file and the CONTEXT headers
  call_arg_drop   max/min(a, b) (and the _t forms) replaced by a or b
  minmax_swap     max <-> min (and the _t forms)
  arg_swap        two neighbouring arguments of a call swapped, when both
                  are variables of one type, or both literals or named
                  constants
  call_value_delete  a call whose value is used replaced by 0 (NULL)
  case_delete     a case label deleted: its value goes where a value of
                  no label goes (the switch's expression is switched, for
                  that value, to one that no label has)
Run on the debug kernel (the "kernel" column is "debug": KASAN,
lockdep, PROVE_RCU and kmemleak judge them, scripts/coverage/README.md):
  rcu_sync_delete synchronize_rcu(), synchronize_net(), tcx_entry_sync()
                  deleted
  rcu_lock_delete an rcu_read_lock() and its rcu_read_unlock()s of the
                  same function deleted together (one mutant)
  lock_delete     the same for rtnl_lock, spin_lock, mutex_lock and their
                  unlocks (with the same argument)
  ref_delete      bpf_prog_put, bpf_link_put, dev_put, dev_hold,
                  netdev_put, netdev_hold, bpf_prog_inc/add/sub deleted
  rcu_assign_plain  rcu_assign_pointer(p, v) replaced by p = v (no
                  release barrier: on x86 most likely equivalent)

Output of list: one mutant a line, tab-separated: id, file, line, last
(the lines of the changed text), operator, function, init (1: the function is __init, the mutant must be
selected on the kernel command line), original text, mutated text (the
changed fragment, with a little context, whitespace collapsed), kernel
(test or debug: which schemata kernel judges it), key (the mutant's full
identity: a hash of file, line, operator, original and mutated text and
the git blob of the file; what make mutate's verdicts are kept by). Ids
are numbered in file order, then source order, then operator order:
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
import hashlib
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
    """True/False for the conditions we can decide, None otherwise: a
    CONFIG_X term (defined, IS_ENABLED, IS_BUILTIN, negated or not), or
    a chain of them joined by && or || (not both), in parentheses or not.
    A chain with a term we cannot decide is still decided when another
    term settles it (false for &&, true for ||)."""
    expr = expr.strip()
    while expr.startswith('(') and expr.endswith(')') and _balanced(expr[1:-1]):
        expr = expr[1:-1].strip()
    for op, settles in (('||', True), ('&&', False)):
        parts = _split_top(expr, op)
        if len(parts) > 1:
            if any(_split_top(x, '&&' if op == '||' else '||')[1:] for x in parts):
                return None     # && and || mixed: not decided
            vals = [pp_cond(x, config) for x in parts]
            if settles in vals:
                return settles
            return None if None in vals else not settles
    m = re.fullmatch(r'(!?)\s*(?:defined\s*\(?\s*|IS_ENABLED\s*\(\s*|IS_BUILTIN\s*\(\s*)?(CONFIG_\w+)\s*\)?', expr)
    if m:
        val = config.get(m.group(2), 'n')
        on = val in ('y', 'm') if 'IS_BUILTIN' not in expr else val == 'y'
        return (not on) if m.group(1) else on
    return None


def _balanced(expr):
    depth = 0
    for ch in expr:
        depth += {'(': 1, ')': -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _split_top(expr, op):
    """expr split at op outside parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        ch = expr[i]
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        elif depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i].strip())
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    parts.append(expr[start:].strip())
    return parts


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
                       r'lockdep_\w+|might_sleep|fallthrough)$')
# The debug kernel's operators: deleting these calls (a statement of
# their own), and pairs of lock and unlock deleted together.
DEBUG_DELETE = {'synchronize_rcu': 'rcu_sync_delete', 'synchronize_rcu_expedited': 'rcu_sync_delete',
                'synchronize_net': 'rcu_sync_delete', 'tcx_entry_sync': 'rcu_sync_delete',
                'bpf_prog_put': 'ref_delete', 'bpf_link_put': 'ref_delete', 'dev_put': 'ref_delete',
                'dev_hold': 'ref_delete', 'netdev_put': 'ref_delete', 'netdev_hold': 'ref_delete',
                'bpf_prog_inc': 'ref_delete', 'bpf_prog_add': 'ref_delete', 'bpf_prog_sub': 'ref_delete'}
PAIRS = {'rcu_read_lock': ('rcu_read_unlock', 'rcu_lock_delete'),
         'rcu_read_lock_bh': ('rcu_read_unlock_bh', 'rcu_lock_delete'),
         'rtnl_lock': ('rtnl_unlock', 'lock_delete'), 'spin_lock': ('spin_unlock', 'lock_delete'),
         'spin_lock_bh': ('spin_unlock_bh', 'lock_delete'),
         'spin_lock_irqsave': ('spin_unlock_irqrestore', 'lock_delete'),
         'mutex_lock': ('mutex_unlock', 'lock_delete')}
UNLOCKS = {u for u, _ in PAIRS.values()}
DEBUG_OPS = {'rcu_sync_delete', 'rcu_lock_delete', 'lock_delete', 'ref_delete', 'rcu_assign_plain'}
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
MINMAX = {'max': 'min', 'min': 'max', 'max_t': 'min_t', 'min_t': 'max_t'}
REL = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}
REL_DIR = {'<': '>', '<=': '>=', '>': '<', '>=': '<='}
BITWISE = {'&': '|', '|': '&', '^': '|', '<<': '>>', '>>': '<<'}
COMPOUND = {'+=': '-=', '-=': '+=', '|=': '&=', '&=': '|=', '^=': '|=', '<<=': '>>=', '>>=': '<<=',
            '*=': '/=', '/=': '*=', '++': '--', '--': '++'}
ASSIGN = {'=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>='}
# values that are 0 already: ret_replace gives them another
ZERO = {'0', 'NULL', 'false', 'NETDEV_TX_OK', 'NET_XMIT_SUCCESS', 'NET_RX_SUCCESS', 'TC_ACT_OK',
        'NETKIT_PASS', 'TCX_PASS'}
# calls whose value call_value_delete leaves alone: not calls (sizeof),
# conversions and wrappers, assertions, and macros in capitals (but the
# error tests, which are real decisions)
NO_VALUE_DELETE = {'sizeof', 'typeof', '__typeof__', 'offsetof', 'container_of', 'likely', 'unlikely',
                   'nk_mut', 'u64_to_user_ptr', 'make_bpfptr', 'min', 'max', 'min_t', 'max_t'}
# macros that take the type of their argument: a 0 there does not build
TYPED_MACROS = {'kfree_rcu', 'rcu_dereference', 'rcu_dereference_rtnl', 'rtnl_dereference',
                'rcu_dereference_protected', 'rcu_access_pointer', 'rcu_assign_pointer', 'RCU_INIT_POINTER',
                'READ_ONCE', 'WRITE_ONCE', 'container_of', 'smp_load_acquire', 'smp_store_release'}
VALUE_MACROS = {'IS_ERR', 'IS_ERR_OR_NULL', 'PTR_ERR', 'PTR_ERR_OR_ZERO', 'READ_ONCE'}
# The headers whose enums, #define blocks, structs and inline functions
# the operators know (enum_replace's siblings, member_replace's members,
# the return types that member_replace follows), besides the file itself.
CONTEXT = ['include/uapi/linux/bpf.h', 'include/uapi/linux/if_link.h', 'include/uapi/linux/if.h',
           'include/uapi/linux/pkt_cls.h', 'include/uapi/linux/if_ether.h', 'include/linux/gfp_types.h',
           'include/linux/netdevice.h', 'include/linux/bpf.h', 'include/linux/bpf_mprog.h',
           'include/net/tcx.h', 'include/net/netkit.h', 'include/net/sch_generic.h',
           'include/net/dropreason.h', 'include/linux/skbuff.h', 'drivers/net/netkit.c']


class Context:
    """What the operators know beyond the function: named constants'
    siblings, structs' members, functions' return types."""

    def __init__(self):
        self.sibling = dict(SIBLING)
        self.structs = {}       # name: [(member, type)]
        self.rtypes = {}        # function: its return type


CTX = Context()


def const_families(text):
    """{name: next name}: the members of each enum, each #define block
    (consecutive object-like #defines of capital names sharing their first
    word), cyclic. Names starting with __ and *_MAX are left out."""
    fam = {}
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)

    def ring(names):
        names = [n for n in dict.fromkeys(names) if not n.startswith('__') and not n.endswith('_MAX')]
        if len(names) > 1:
            for x, y in zip(names, names[1:] + names[:1]):
                fam[x] = y
    block = []
    for ln in text.split('\n') + ['']:
        m = re.match(r'\s*#\s*define\s+([A-Z][A-Z0-9_]+)\s+\S', ln)
        if m and (not block or block[0].split('_')[0] == m.group(1).split('_')[0]):
            block.append(m.group(1))
            continue
        ring(block)
        block = [m.group(1)] if m else []
    for m in re.finditer(r'\benum\s*\w*\s*\{([^{}]*)\}', text):
        ring([x.group(1) for x in re.finditer(r'(?:^|,)\s*(?:#[^\n]*\n\s*)*([A-Z][A-Z0-9_]+)\b',
                                              m.group(1))])
    return fam


def struct_members(toks, o, c):
    """[(member, type)] of the struct body toks[o] '{' .. toks[c] '}':
    anonymous unions and structs flattened, named ones, function
    pointers, bitfields and arrays left out."""
    out, j, start = [], o + 1, o + 1
    while j < c:
        t = toks[j]
        if t.kind == 'pp':
            j += 1
            start = j
            continue
        if t.text in ('struct', 'union') and toks[j + 1].text == '{':
            cc = match_close(toks, j + 1)
            if toks[cc + 1].text == ';':
                out += struct_members(toks, j + 1, cc)
            e = find_at_depth0(toks, cc + 1, c, {';'})
            if e < 0:
                break
            j = start = e + 1
            continue
        if t.text == ';':
            texts = [x.text for x in toks[start:j]]
            if start < j and '(' not in texts and ':' not in texts and '[' not in texts:
                out += [(v[0], v[1]) for v in parse_decl_vars(toks, start, j) if v[1] not in ('struct', 'union')]
            j += 1
            start = j
            continue
        if t.text in ('(', '[', '{'):
            j = match_close(toks, j) + 1
            continue
        j += 1
    return out


def load_context(tree, config, extra):
    """CTX from the CONTEXT headers (and the mutated files) at REV."""
    for path in dict.fromkeys(CONTEXT + extra):
        r = subprocess.run(['git', '-C', tree, 'show', f'{REV}:{path}'], capture_output=True, text=True)
        if r.returncode:
            continue
        for k, v in const_families(r.stdout).items():
            CTX.sibling.setdefault(k, v)
        global SRC
        SRC = r.stdout
        try:
            toks = lex(r.stdout, config)
        except SystemExit:
            continue
        for i in range(len(toks) - 2):
            if toks[i].text == 'struct' and toks[i + 1].kind == 'ident' and toks[i + 2].text == '{':
                try:
                    c = match_close(toks, i + 2)
                    CTX.structs.setdefault(toks[i + 1].text, struct_members(toks, i + 2, c))
                except (ParseError, IndexError):
                    pass
        p = Parser(toks, set())
        try:
            p.functions()
        except ParseError:
            pass
        for name, rtype in p.rtypes.items():
            CTX.rtypes.setdefault(name, rtype)


class Site:
    """A place the schemata can switch: kind is cond (the inside of the
    parentheses of if/while/for/do-while), swexpr (a switch's), stmt (an
    expression statement with its ';'), ret (a return statement) or init
    (a declarator's initialiser).
    a..b: indices into the token list, inclusive."""

    def __init__(self, kind, a, b, func):
        self.kind, self.a, self.b, self.func = kind, a, b, func
        self.mutants = []
        self.cases = []         # a switch's expression (swexpr): its case labels' token ranges


class Func:
    def __init__(self, name, init, params, rtype=''):
        self.name, self.init = name, init
        self.vars = params      # [(name, type, decl_index, scope_end)]
        self.rtype = rtype      # the return type, as parse_decl_vars writes types


RTYPE_SKIP = {'static', 'inline', '__always_inline', '__init', '__exit', 'notrace', 'noinline', '__cold',
              '__must_check', 'INDIRECT_CALLABLE_SCOPE', '__maybe_unused', 'extern', '__bpf_kfunc',
              'noinstr', '__weak'}


def return_type(words):
    """A function's return type from the words of its header before its
    name: storage and attributes dropped, the stars at the end."""
    stars = words.count('*')
    base = ' '.join(w for w in words if w not in RTYPE_SKIP and w != '*')
    return (base + ' ' + '*' * stars).strip()


def ret_class(rtype):
    """void, ptr, bool, int (signed), uint (unsigned or an enum), or struct
    (by value: no ret_replace)."""
    if '*' in rtype:
        return 'ptr'
    w = rtype.split()
    if w == ['void']:
        return 'void'
    if 'bool' in w:
        return 'bool'
    if w and w[0] in ('struct', 'union'):
        return 'struct'
    if 'unsigned' in w or 'enum' in w or any(x in ('u8', 'u16', 'u32', 'u64', '__u32', '__u64', 'size_t',
                                                   'netdev_tx_t', 'gfp_t', 'netdev_features_t')
                                             for x in w):
        return 'uint'
    return 'int'


def open_before(toks, close_i):
    """Index of the ( that the ) at close_i closes, or -1."""
    d = 0
    for j in range(close_i, -1, -1):
        if toks[j].kind != 'punct':
            continue
        if toks[j].text == ')':
            d += 1
        elif toks[j].text == '(':
            d -= 1
            if d == 0:
                return j
    return -1


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
        self.rtypes = {}        # function name: return type
        self.switches = []      # the swexpr sites of the switches being parsed

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
                        rtype = return_type(header[:-1])
                        self.rtypes[name] = rtype
                        params = []
                        for pa, pb in self.split_commas(op + 1, i - 1):
                            for v in parse_decl_vars(toks, pa, pb):
                                # an array parameter is a pointer
                                typ = v[1][:-2].rstrip() + ' *' if v[1].endswith('[]') else v[1]
                                params.append((v[0], typ.replace('* *', '**'), v[2], close))
                        f = Func(name, init, params, rtype)
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
            else:
                site = self.add('swexpr', i + 2, c - 1, f)
                self.switches.append(site)
                try:
                    j = self.statement(c + 1, f, limit)
                finally:
                    self.switches.pop()
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
            self.add('cond', j + 2, c - 1, f)
            return c + 2
        if x in ('case', 'default'):
            j = find_at_depth0(toks, i, limit, {':'})
            if x == 'case' and self.switches and self.switches[-1] is not None and \
                    '...' not in [t.text for t in toks[i + 1:j]]:
                self.switches[-1].cases.append((i + 1, j - 1))
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
            return None         # a compile-time assertion
        if any(self.toks[j].kind == 'pp' for j in range(a, b + 1)):
            return None         # a preprocessor line inside: not switchable
        site = Site(kind, a, b, f)
        self.sites.append(site)
        return site


# ---------------------------------------------------------------- operators

class Mutant:
    def __init__(self, site, op, ra, rb, new, note=None, lines=None):
        # replace tokens ra..rb (inclusive; rb = ra - 1: insert before ra)
        self.site, self.op, self.ra, self.rb, self.new = site, op, ra, rb, new
        self.note = note
        self.lines = lines      # (first, last) when not those of ra..rb (case_delete, pairs)
        self.primary = None     # a twin: the same mutant at another site (lock pairs)
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


def operand_end(toks, j, limit):
    """The last token of the unary operand that starts at j (a name, a
    number or a parenthesis, with calls, indexing and member accesses)."""
    k = j
    while k < limit and toks[k].text in ('!', '~', '-', '*', '&'):
        k += 1
    if toks[k].text == '(':
        k = match_close(toks, k)
    while k + 1 <= limit:
        n = toks[k + 1].text
        if n in ('(', '['):
            k = match_close(toks, k + 1)
        elif n in ('->', '.') and k + 2 <= limit and toks[k + 2].kind == 'ident':
            k += 2
        else:
            break
    return k


def ternary_parts(toks, q, limit):
    """For the ? at q: the index of its : and of the last token of the
    else branch, or None."""
    d, nest, colon = 0, 0, None
    for k in range(q + 1, limit + 1):
        t = toks[k].text
        if toks[k].kind != 'punct':
            continue
        if t in '([{':
            d += 1
        elif t in ')]}':
            d -= 1
            if d < 0:
                return (colon, k - 1) if colon else None
        elif d == 0 and t == '?':
            nest += 1
        elif d == 0 and t == ':':
            if colon is None and nest == 0:
                colon = k
            elif nest:
                nest -= 1
            else:
                return colon, k - 1
        elif d == 0 and t in (',', ';') and colon is not None:
            return colon, k - 1
    return (colon, limit) if colon else None


def is_binary(toks, j):
    """Whether the & * - at j is a binary operator (not address-of, a
    dereference or a cast's)."""
    p = toks[j - 1]
    if p.kind in ('ident', 'number') and p.text not in STMT_KEYWORDS and p.text != 'return':
        return True
    if p.text in (')', ']'):
        if p.text == ')':
            o = open_before(toks, j - 1)
            inner = [t.text for t in toks[o + 1:j - 1]]
            if inner and (inner[-1] == '*' or inner[0] in TYPE_WORDS):
                return False    # a cast
        return True
    return False


def expr_type(f, toks, k):
    """The type of the expression that ends at token k (a variable, a
    member of one, a call of a function of the context), or None."""
    t = toks[k]
    if t.kind == 'ident':
        if k >= 2 and toks[k - 1].text in ('->', '.'):
            members = CTX.structs.get(struct_of(expr_type(f, toks, k - 2), toks[k - 1].text))
            return dict(members).get(t.text) if members else None
        v = var_at(f, t.text, k)
        return v[1] if v else None
    if t.text == ')':
        o = open_before(toks, k)
        if o > 0 and toks[o - 1].kind == 'ident' and (o < 2 or toks[o - 2].text not in ('->', '.')):
            return CTX.rtypes.get(toks[o - 1].text)
    return None


def struct_of(typ, access):
    if not typ:
        return None
    m = re.fullmatch(r'(?:const )?struct (\w+) \*' if access == '->' else r'(?:const )?struct (\w+)', typ)
    return m.group(1) if m else None


def const_kind(toks, pa, pb):
    """number or name when the argument toks[pa:pb] is one literal or
    named constant (not NULL, a pointer), else None."""
    if pb - pa != 1:
        return None
    if toks[pa].kind == 'number':
        return 'number'
    if re.fullmatch(r'[A-Z][A-Z0-9_]+', toks[pa].text) and toks[pa].text != 'NULL':
        return 'name'
    return None


def enclosing_call(toks, j, lo):
    """The name of the call whose argument list holds token j (searched
    back to lo), or None."""
    d = 0
    for k in range(j - 1, lo - 1, -1):
        t = toks[k].text
        if toks[k].kind != 'punct':
            continue
        if t in (')', ']', '}'):
            d += 1
        elif t in ('(', '[', '{'):
            if d == 0:
                return toks[k - 1].text if t == '(' and k > 0 and toks[k - 1].kind == 'ident' else None
            d -= 1
    return None


def operators(site, toks):
    a, b = site.a, site.b
    f = site.func
    out = []
    body_b = b - 1 if site.kind in ('stmt', 'ret') else b   # without ';'
    body_a = a + 1 if site.kind == 'ret' else a
    # stmt_delete, and the debug kernel's deletions
    if site.kind == 'stmt':
        first = toks[a]
        call = first.kind == 'ident' and toks[a + 1].text == '('
        whole = call and match_close(toks, a + 1) == b - 1
        if call and whole and first.text in DEBUG_DELETE:
            out.append(Mutant(site, DEBUG_DELETE[first.text], a, b, ';'))
        elif call and whole and first.text.startswith('rcu_read_'):
            pass                # alone no effect without lockdep: rcu_lock_delete (lock_pairs)
        elif not (call and NO_DELETE.match(first.text)):
            if call or find_at_depth0(toks, a, b, {'=', '+=', '-=', '|=', '&=', '++', '--', '^='}) >= 0:
                out.append(Mutant(site, 'stmt_delete', a, b, ';'))
        if call and whole and first.text == 'rcu_assign_pointer':
            parts = split_args(toks, a + 2, b - 1)
            if len(parts) == 2:
                out.append(Mutant(site, 'rcu_assign_plain', a, b,
                                  f'{src_of(toks, parts[0][0], parts[0][1] - 1)} = '
                                  f'{src_of(toks, parts[1][0], parts[1][1] - 1).strip()};'))
    # conditions
    if site.kind == 'cond':
        out.append(Mutant(site, 'cond_negate', a, b, None, 'negate'))
    # return values
    if site.kind == 'ret':
        x = short(src_of(toks, body_a, body_b))
        rc = ret_class(f.rtype)
        new = None
        if rc == 'bool' and x not in ('true', 'false'):
            new = f'!({x})'
        elif rc == 'ptr':
            new = 'ERR_PTR(-EINVAL)' if x in ZERO else 'NULL'
        elif rc == 'int':
            new = '-EINVAL' if x in ZERO else '0'
        elif rc == 'uint':
            new = '1' if x in ZERO else '0'
        if new:
            out.append(Mutant(site, 'ret_replace', body_a, body_b, new))
    # case labels
    if site.kind == 'swexpr':
        e = src_of(toks, a, b)
        for ca, cb in site.cases:
            out.append(Mutant(site, 'case_delete', a, b,
                              f'(({e}) == ({src_of(toks, ca, cb)}) ? (typeof({e}))0x5eed0bad : ({e}))',
                              note=src_of(toks, ca, cb), lines=(toks[ca].line, toks[cb].line)))
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
        if t.kind == 'punct':
            if t.text in REL:
                out.append(Mutant(site, 'rel_offbyone', j, j, REL[t.text]))
                out.append(Mutant(site, 'rel_direction', j, j, REL_DIR[t.text]))
            elif t.text in ('==', '!='):
                out.append(Mutant(site, 'eq_negate', j, j, '!=' if t.text == '==' else '=='))
            elif t.text == '!':
                whole = site.kind == 'cond' and j == a and operand_end(toks, j + 1, b) == b
                if not whole:
                    out.append(Mutant(site, 'not_drop', j, j, ''))
            elif t.text == '~':
                out.append(Mutant(site, 'bitnot_drop', j, j, ''))
            elif t.text in BITWISE and (t.text in ('<<', '>>') or is_binary(toks, j)):
                out.append(Mutant(site, 'bitwise_replace', j, j, BITWISE[t.text]))
            elif t.text in COMPOUND:
                out.append(Mutant(site, 'assign_replace', j, j, COMPOUND[t.text]))
            elif t.text == '?':
                tp = ternary_parts(toks, j, body_b)
                if tp and tp[0] > j + 1:        # not GNU's x ?: y
                    c, e = tp
                    out.append(Mutant(site, 'ternary_negate', j, e,
                                      f'? ({src_of(toks, c + 1, e).strip()}) : ({src_of(toks, j + 1, c - 1).strip()})'))
            continue
        if t.kind == 'ident' and t.text in ERRNOS and prev in ('-', '(', ',', '=', 'return'):
            out.append(Mutant(site, 'errno_replace', j, j, 'EPERM' if t.text == 'EINVAL' else 'EINVAL'))
        elif t.kind == 'ident' and t.text in CTX.sibling and prev not in ('.', '->') and nxt != '(':
            out.append(Mutant(site, 'enum_replace', j, j, CTX.sibling[t.text]))
        elif t.kind == 'ident' and t.text in ('true', 'false'):
            out.append(Mutant(site, 'const_replace', j, j, 'false' if t.text == 'true' else 'true'))
        elif t.kind == 'number' and prev != '[':
            v = int(re.match(r'0[xX][0-9a-fA-F]+|[0-9]+', t.text).group(), 0)
            nv = 1 if v == 0 else 0 if v == 1 else v + 1
            out.append(Mutant(site, 'const_replace', j, j, str(nv)))
        elif t.kind == 'ident' and nxt == '(' and t.text not in STMT_KEYWORDS:
            c = match_close(toks, j + 1)
            parts = split_args(toks, j + 2, c)
            if t.text in TWO_ARG:
                skip = TWO_ARG[t.text]
                if len(parts) == 2 + skip:
                    for pa, pb in parts[skip:]:
                        out.append(Mutant(site, 'call_arg_drop', j, c,
                                          '(' + src_of(toks, pa, pb - 1) + ')'))
                out.append(Mutant(site, 'minmax_swap', j, j, MINMAX[t.text]))
                continue
            # call_value_delete: a call whose value is used
            used = not (site.kind == 'stmt' and j == a)
            macro = re.fullmatch(r'[A-Z0-9_]+', t.text) and t.text not in VALUE_MACROS
            if used and not macro and t.text not in NO_VALUE_DELETE and not NO_DELETE.match(t.text) and \
                    prev not in ('.', '->', '&', '*') and c + 1 < len(toks) and \
                    toks[c + 1].text not in ('->', '.', '[') and toks[c + 1].text not in ASSIGN and \
                    enclosing_call(toks, j, a) not in TYPED_MACROS:
                out.append(Mutant(site, 'call_value_delete', j, c, '0'))
            # arg_swap: neighbours of one kind
            if t.text not in TWO_ARG and not NO_DELETE.match(t.text):
                for (pa, pb), (qa, qb) in zip(parts, parts[1:]):
                    if pb - pa != 1 or qb - qa != 1 or toks[pa].text == toks[qa].text:
                        continue
                    va, vb = var_at(f, toks[pa].text, pa), var_at(f, toks[qa].text, qa)
                    if (va and vb and va[1] == vb[1] and not va[1].endswith('[]')) or \
                            (const_kind(toks, pa, pb) and const_kind(toks, pa, pb) == const_kind(toks, qa, qb)):
                        out.append(Mutant(site, 'arg_swap', pa, qa, f'{toks[qa].text}, {toks[pa].text}'))
        elif t.kind == 'ident' and prev in ('.', '->') and nxt != '(' and nxt not in ASSIGN and \
                nxt not in ('++', '--'):
            members = CTX.structs.get(struct_of(expr_type(f, toks, j - 2), prev))
            if members:
                names = [mb[0] for mb in members]
                typ = dict(members).get(t.text)
                if typ and t.text in names:
                    same = [mb[0] for mb in members if mb[1] == typ]
                    k = same.index(t.text)
                    for alt in dict.fromkeys([same[k - 1] if k else None, same[k + 1] if k + 1 < len(same) else None]):
                        if alt and alt != t.text:
                            out.append(Mutant(site, 'member_replace', j, j, alt))
        elif t.kind == 'ident' and prev not in ('.', '->') and nxt != '(':
            mine = var_at(f, t.text, j)
            if mine is not None:
                for name, typ, ni, se in f.vars:
                    if name != t.text and typ == mine[1] and ni < j <= se and not typ.endswith('[]'):
                        out.append(Mutant(site, 'var_replace', j, j, name))
    return out


def lock_pairs(sites, toks):
    """The debug kernel's pair deletions: each lock statement of PAIRS
    (the call alone) with the unlocks of the same function and argument
    after it, up to the next such lock: one mutant, deleting all of them
    (a primary on the lock, twins on the unlocks)."""
    stmts = [s for s in sites if s.kind == 'stmt' and toks[s.a].kind == 'ident' and toks[s.a + 1].text == '('
             and match_close(toks, s.a + 1) == s.b - 1]
    for i, s in enumerate(stmts):
        name = toks[s.a].text
        if name not in PAIRS:
            continue
        unlock, op = PAIRS[name]
        arg = short(src_of(toks, s.a + 2, s.b - 2)) if s.b - 2 >= s.a + 2 else ''
        twins = []
        for u in stmts[i + 1:]:
            if u.func is not s.func:
                continue
            un = toks[u.a].text
            uarg = short(src_of(toks, u.a + 2, u.b - 2)) if u.b - 2 >= u.a + 2 else ''
            if un == name and uarg == arg:
                break
            if un == unlock and uarg == arg:
                twins.append(u)
        if not twins:
            continue
        m = Mutant(s, op, s.a, s.b, ';', lines=(toks[s.a].line, toks[twins[-1].b].line))
        m.unlock_text = src_of(toks, twins[-1].a, twins[-1].b)
        s.mutants.append(m)
        for u in twins:
            tw = Mutant(u, op, u.a, u.b, ';')
            tw.primary = m
            u.mutants.append(tw)


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
    if m.op == 'case_delete':
        return short(f'switch ({site_text(toks, site)}) case {m.note}:'), '(label deleted)'
    if m.op in ('stmt_delete', 'rcu_sync_delete', 'ref_delete'):
        return short(site_text(toks, site)), '(deleted)'
    if m.op in ('rcu_lock_delete', 'lock_delete'):
        return short(site_text(toks, site)) + ' ... ' + short(m.unlock_text), '(deleted)'
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

    # (once per translation unit: the headers' inline functions have
    # schemata too; the first hit of the selected mutant is marked on the
    # console, where make mutate sees it even when the kernel then dies)
    header = ('\n/* make mutate: mutation schemata, generated by scripts/coverage/mutate-gen.py */\n'
              '#ifndef NK_MUT_DEFINED\n'
              '#define NK_MUT_DEFINED\n'
              'extern int netkit_mutant;\n'
              'extern unsigned long netkit_mutant_hits;\n'
              'static __always_inline bool nk_mut(int id)\n'
              '{\n'
              '\tif (unlikely(READ_ONCE(netkit_mutant) == id)) {\n'
              '\t\tif (!READ_ONCE(netkit_mutant_hits))\n'
              '\t\t\tprintk_deferred(KERN_WARNING "netkit-mutate: mutant %d reached\\n", id);\n'
              '\t\tWRITE_ONCE(netkit_mutant_hits, READ_ONCE(netkit_mutant_hits) + 1);\n'
              '\t\treturn true;\n'
              '\t}\n'
              '\treturn false;\n'
              '}\n'
              '#endif\n')
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
        if s.kind in ('cond', 'init', 'swexpr'):
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


# ---------------------------------------------------------------- nobuild

def nobuild(log_text, lines, roots):
    """The mutants that a compiler log refuses: [(id or None, error)].
    Each error is mapped by its own place or, for an error inside a
    macro's expansion or a header, by the places of its notes ("in
    expansion of macro", "in definition of macro") and of the lines
    before it ("In function", "In file included from") that fall in a
    mutant's lines of the schemata files (lines: [(id, file, first,
    last)]). An error with no such place is (None, error)."""
    place = re.compile(r'(?:^|\s)(?:%s)/([^:\s]+):(\d+)(?::\d+)?[:,]' % '|'.join(re.escape(r) for r in roots))
    out, block, err = [], [], None

    def flush():
        if err is None:
            return
        ids = []
        for ln in [err] + block:
            for m in place.finditer(ln):
                f, n = m.group(1), int(m.group(2))
                ids += [i for i, lf, a, b in lines if lf == f and a <= n <= b]
        if ids:
            out.extend((i, err) for i in dict.fromkeys(ids))
        else:
            out.append((None, err))
    for ln in log_text.splitlines():
        if ': error: ' in ln:
            flush()
            err, block = ln, []
        elif err is not None and (': note: ' in ln or 'In function' in ln or 'included from' in ln
                                  or ln.startswith(' ')):
            block.append(ln)
        elif err is not None and ': warning: ' in ln:
            flush()
            err, block = None, []
    flush()
    return out


# ---------------------------------------------------------------- driver

DEFINE = '''
/* make mutate: the mutant selector of the schemata (scripts/coverage/mutate-gen.py):
 * netkit_mutant=ID on the command line, or
 * /sys/module/kernel/parameters/netkit_mutant at run time; the hits count
 * how often the selected mutant ran.
 */
#include <linux/moduleparam.h>
#include <linux/export.h>
int netkit_mutant;
unsigned long netkit_mutant_hits;
core_param(netkit_mutant, netkit_mutant, int, 0644);
core_param(netkit_mutant_hits, netkit_mutant_hits, ulong, 0644);
EXPORT_SYMBOL_GPL(netkit_mutant);
EXPORT_SYMBOL_GPL(netkit_mutant_hits);
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
        s.mutants = operators(s, toks)
    lock_pairs(p.sites, toks)
    for s in p.sites:
        lines = set(range(toks[s.a].line, toks[s.b].line + 1))
        if keep is not None and not lines & keep:
            continue
        if keep is not None:
            # only what changes an added line
            s.mutants = [m for m in s.mutants
                         if m.op in WHOLE_SITE or line_set(mutant_lines(toks, m)) & keep]
        sites.append(s)
    # a twin goes with its primary
    kept = {id(m) for s in sites for m in s.mutants if m.primary is None}
    for s in sites:
        s.mutants = [m for m in s.mutants if m.primary is None or id(m.primary) in kept]
    return path, src, toks, sites


# the operators that replace their whole site: their lines are the site's
WHOLE_SITE = {'cond_negate', 'stmt_delete', 'rcu_sync_delete', 'ref_delete', 'rcu_assign_plain'}


def line_set(lines):
    return set(range(lines[0], lines[1] + 1))


def mutant_lines(toks, m):
    """(first, last) line of what mutant m changes."""
    s = m.site
    if m.lines:
        return m.lines
    if m.op in WHOLE_SITE:
        return toks[s.a].line, toks[s.b].line
    return toks[max(m.ra, s.a)].line, toks[min(max(m.rb, m.ra), s.b)].line


def cmd_nobuild(argv):
    """nobuild --lines LINES --log LOG ROOT...: the mutants a build log
    refuses, "ID<TAB>error" (ID "none" for an error at no mutant's line)."""
    ap = argparse.ArgumentParser(prog='mutate-gen.py nobuild')
    ap.add_argument('--lines', required=True)
    ap.add_argument('--log', required=True)
    ap.add_argument('roots', nargs='+')
    a = ap.parse_args(argv)
    with open(a.lines) as f:
        lines = [(int(p[0]), p[1], int(p[2]), int(p[3])) for p in (ln.rstrip('\n').split('\t') for ln in f)
                 if p[0] != 'id']
    with open(a.log, errors='replace') as f:
        text = f.read()
    for i, e in nobuild(text, lines, [r.rstrip('/') for r in a.roots]):
        print(f"{'none' if i is None else i}\t{e}")


def main():
    if sys.argv[1:2] == ['nobuild']:
        return cmd_nobuild(sys.argv[2:])
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
    load_context(args.tree, config, [spec.partition(':')[0] for spec in args.files])
    nid = 0
    results = []
    for spec in args.files:
        path, src, toks, sites = mutants_of(args.tree, config, spec, base)
        for s in sites:
            for m in s.mutants:
                if m.primary is None:
                    nid += 1
                    m.id = nid
        for s in sites:
            for m in s.mutants:
                if m.primary is not None:
                    m.id = m.primary.id
        results.append((path, src, toks, sites))
    w = sys.stdout.write
    if args.cmd == 'list':
        w('id\tfile\tline\tlast\toperator\tfunction\tinit\toriginal\tmutated\tkernel\tkey\n')
        for path, src, toks, sites in results:
            global SRC
            SRC = src
            blob = subprocess.run(['git', '-C', args.tree, 'rev-parse', f'{REV}:{path}'],
                                  check=True, capture_output=True, text=True).stdout.strip()
            rows = []
            for s in sites:
                for m in s.mutants:
                    if m.primary is not None:
                        continue
                    o, n = fragment(toks, m)
                    l0, l1 = mutant_lines(toks, m)
                    kernel = 'debug' if m.op in DEBUG_OPS else 'test'
                    key = hashlib.sha256('\0'.join((path, str(l0), m.op, o, n, blob)).encode()).hexdigest()[:20]
                    rows.append((m.id, f'{m.id}\t{path}\t{l0}\t{l1}\t{m.op}\t{s.func.name}\t{int(s.func.init)}'
                                       f'\t{o}\t{n}\t{kernel}\t{key}\n'))
            for _, r in sorted(rows):
                w(r)
        return
    w('id\tfile\tfirst\tlast\n')
    for path, src, toks, sites in results:
        SRC = src
        text, where = render(path, src, toks, sites, skip)
        if not where and path != args.define:
            text = src          # no mutant: the file as it is (a header stays unchanged)
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
