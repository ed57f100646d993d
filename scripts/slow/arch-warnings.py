#!/usr/bin/env python3
"""arch-warnings: the compiler's warnings of a build log, normalised so
that two builds of different trees compare (make check-arches).

  arch-warnings.py extract LOG CWD PREFIX=LABEL...
      The warnings of the compiles in LOG (a kbuild or tools build with
      its quiet "  CC  <object>" lines; make -Otarget keeps each
      compile's output together), one per line, tab-separated: the
      object, the file, the function (gcc's "In function" context,
      inlined callers after "<"), the flag, the text with every number
      made N, and the warning as shown. A path is made relative to the
      first PREFIX it starts with and shown as LABEL/rest (relative
      paths are taken from CWD first), so the trees' and the output
      directories' own paths drop out. An "error: ... [-Werror=flag]"
      (libbpf's -Werror) counts as a warning of -Wflag. Warnings outside
      a compile of an object (kbuild's checksyscalls) are not counted.

  arch-warnings.py new BASE SERIES
      The warnings of SERIES (an extract) that BASE does not have: for
      each file a multiset of (function, flag, text): line numbers and
      other numbers (frame sizes) do not count, a warning that SERIES has
      more often than BASE does is new as many times.
"""

import collections
import os
import re
import sys

WARNING = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)? "
    r"(?P<kind>warning|error): (?P<text>.*?)(?: \[(?P<flag>-W[^\]]+)\])?$")
UNIT = re.compile(r"^ +(?P<kind>[A-Z][A-Z0-9_-]*(?: \[M\])?) +(?P<target>\S+)$")
FUNCTION = re.compile(r"In (?:member )?function '(?P<name>[^']+)'")
INLINED = re.compile(r"^ +inlined from '(?P<name>[^']+)'")
TOP_LEVEL = re.compile(r": At top level:$")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
QUOTES = str.maketrans("\u2018\u2019", "''")


def normal_path(path, cwd, prefixes):
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    path = os.path.normpath(path)
    for prefix, label in prefixes:
        if path == prefix or path.startswith(prefix + "/"):
            rest = path[len(prefix):].lstrip("/")
            return f"{label}/{rest}" if label else rest
    return path


def extract(log, cwd, prefix_args):
    prefixes = []
    for arg in prefix_args:
        prefix, _, label = arg.partition("=")
        prefixes.append((os.path.normpath(prefix), label))
    unit = None
    context = []
    with open(log, encoding="utf-8", errors="replace") as f:
        for raw in f:
            # gcc quotes as the locale says (kbuild unexports LC_ALL).
            line = ANSI.sub("", raw.rstrip("\n")).translate(QUOTES)
            m = UNIT.match(line)
            if m:
                # A compile's output starts here (make -Otarget).
                unit = None
                if m.group("kind") in ("CC", "CC [M]"):
                    unit = normal_path(m.group("target"), cwd, prefixes)
                context = []
                continue
            m = FUNCTION.search(line)
            if m and not WARNING.match(line):
                context = [m.group("name")]
                continue
            m = INLINED.match(line)
            if m:
                context.append(m.group("name"))
                continue
            if TOP_LEVEL.search(line):
                context = []
                continue
            m = WARNING.match(line)
            if not m or unit is None:
                continue
            flag = m.group("flag") or ""
            if m.group("kind") == "error":
                if not flag.startswith("-Werror="):
                    continue
                flag = "-W" + flag[len("-Werror="):]
            path = normal_path(m.group("file"), cwd, prefixes)
            text = m.group("text")
            func = "<".join(context)
            shown = f"{path}:{m.group('line')}: warning: {text}"
            if flag:
                shown += f" [{flag}]"
            if func:
                shown += f" (in {func})"
            fields = [unit, path, func, flag, re.sub(r"\d+", "N", text), shown]
            print("\t".join(x.replace("\t", " ") for x in fields))


def read_extract(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def new(base, series):
    have = collections.Counter(tuple(w[1:5]) for w in read_extract(base))
    for w in read_extract(series):
        key = tuple(w[1:5])
        if have[key] > 0:
            have[key] -= 1
        else:
            print(f"{w[0]}: {w[5]}")


def main(argv):
    if len(argv) >= 3 and argv[1] == "extract":
        extract(argv[2], argv[3], argv[4:])
    elif len(argv) == 4 and argv[1] == "new":
        new(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
