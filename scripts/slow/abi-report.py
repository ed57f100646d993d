#!/usr/bin/env python3
"""abi-report: compare the symbol CRCs of two MODVERSIONS builds.

Reads, for every object of the given kbuild targets, the '#SYMVER <name>
<crc>' lines that kbuild's genksyms step appends to the object's .cmd file
(what modpost puts into Module.symvers) and the .symtypes file that
KBUILD_SYMTYPES=1 writes next to it (the type definitions each CRC covers),
in the base build and in the patched one. Prints, per directory and per
object, how many exports changed their CRC; the exports that did not; the
type definitions that differ; and, for every changed export, which of
those definitions its CRC covers. Writes every export with both CRCs and
the definitions its CRC covers to a TSV.

Usage: abi-report.py BASE_OUT PATCHED_OUT TSV TARGET...
  TARGET: a directory ('net/core/', all objects below it) or an object
  ('drivers/net/tun.o'), relative to the build directories.
Exit status 0 when the report is complete; 1 when a changed CRC has no
cause in the .symtypes (the report would be missing something), 2 on
usage errors.
"""

import difflib
import os
import re
import sys

REF = re.compile(r"^[sutEe]#\S+$")
KIND = {"s": "struct", "u": "union", "e": "enum", "t": "typedef",
        "E": "enum constant"}


def cmd_files(out, target):
    """The .cmd files of the objects of one target in one build."""
    if target.endswith("/"):
        top = os.path.join(out, target)
        found = []
        for d, _, files in os.walk(top):
            for f in files:
                if f.startswith(".") and f.endswith(".o.cmd"):
                    found.append(os.path.join(d, f))
        return found
    d, f = os.path.split(target)
    p = os.path.join(out, d, "." + f + ".cmd")
    return [p] if os.path.exists(p) else []


def obj_name(out, cmd):
    rel = os.path.relpath(cmd, out)
    d, f = os.path.split(rel)
    return os.path.join(d, f[1:-len(".cmd")])


def read_crcs(cmd):
    crcs = {}
    with open(cmd, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("#SYMVER "):
                _, name, crc = line.split()
                crcs[name] = crc
    return crcs


def read_symtypes(path):
    """{entry: tokens}: 's#net_device' -> [...], 'register_netdev' -> [...]"""
    types = {}
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            toks = line.split()
            if not toks:
                continue
            if toks[0] == "override":
                toks = toks[1:]
            types[toks[0]] = toks[1:]
    return types


def reach(types, start):
    """Every type entry the CRC of entry 'start' covers."""
    seen, todo = set(), [start]
    while todo:
        e = todo.pop()
        for t in types.get(e, ()):
            if REF.match(t) and t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def describe(entry, old, new, width=160):
    """A short diff of two definitions, token by token."""
    if old is None:
        return "only with the series"
    if new is None:
        return "only without the series"
    parts = []
    sm = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in sm.get_opcodes():
        if op == "equal":
            continue
        if a2 > a1:
            parts.append("-[" + " ".join(old[a1:a2]) + "]")
        if b2 > b1:
            parts.append("+[" + " ".join(new[b1:b2]) + "]")
    s = " ".join(parts)
    return s if len(s) <= width else s[:width - 3] + "..."


def pretty(entry):
    if "#" in entry:
        k, n = entry.split("#", 1)
        return "%s %s" % (KIND.get(k, k), n)
    return entry


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    base_out, new_out, tsv = argv[1], argv[2], argv[3]
    targets = argv[4:]

    objs = {}  # object -> {"base": crcs, "new": crcs}
    for side, out in (("base", base_out), ("new", new_out)):
        for t in targets:
            for cmd in cmd_files(out, t):
                crcs = read_crcs(cmd)
                if crcs:
                    objs.setdefault(obj_name(out, cmd), {})[side] = crcs

    rows = []  # (obj, sym, base crc, new crc, causes)
    per_obj = []
    unexplained = []
    inconsistent = []
    diff_types = {}   # entry -> set(objects) where its definition differs
    diff_desc = {}    # entry -> first description
    cause_count = {}  # entry -> changed exports whose CRC covers it
    only_one_side = []
    for obj in sorted(objs):
        base = objs[obj].get("base", {})
        new = objs[obj].get("new", {})
        stem = obj[:-2] if obj.endswith(".o") else obj
        bt = read_symtypes(os.path.join(base_out, stem + ".symtypes"))
        nt = read_symtypes(os.path.join(new_out, stem + ".symtypes"))
        differ = set()
        if bt is not None and nt is not None:
            for e in set(bt) | set(nt):
                if "#" in e and bt.get(e) != nt.get(e):
                    differ.add(e)
                    diff_types.setdefault(e, set()).add(obj)
                    diff_desc.setdefault(e, describe(e, bt.get(e), nt.get(e)))
        changed = 0
        syms = sorted(set(base) | set(new))
        for s in syms:
            if s not in base or s not in new:
                only_one_side.append((obj, s, "base" if s in base else "series"))
                rows.append((obj, s, base.get(s, "-"), new.get(s, "-"), "export on one side only"))
                continue
            causes = set()
            if bt is not None and nt is not None:
                if bt.get(s) != nt.get(s):
                    causes.add("(its own declaration)")
                causes |= (reach(bt, s) | reach(nt, s)) & differ
            if base[s] != new[s]:
                changed += 1
                if not causes:
                    unexplained.append((obj, s))
                for c in causes:
                    cause_count[c] = cause_count.get(c, 0) + 1
            elif causes:
                inconsistent.append((obj, s, sorted(causes)))
            rows.append((obj, s, base[s], new[s], " ".join(sorted(causes))))
        both = [s for s in syms if s in base and s in new]
        per_obj.append((obj, len(both), changed, bt is not None and nt is not None))

    with open(tsv, "w", encoding="utf-8") as fh:
        fh.write("object\texport\tcrc_base\tcrc_series\tcovers\n")
        for r in rows:
            fh.write("\t".join(r) + "\n")

    total = sum(n for _, n, _, _ in per_obj)
    changed = sum(c for _, _, c, _ in per_obj)
    # By directory (at most two levels: net/core, net, mm, drivers/net).
    dirs = {}
    for o, n, c, _ in per_obj:
        d = "/".join(os.path.dirname(o).split("/")[:2])
        k = dirs.setdefault(d, [0, 0, 0])
        k[0] += 1
        k[1] += n
        k[2] += c
    w = max([len(d) for d in dirs] + [9])
    print("%-*s %8s %8s %8s %10s" % (w, "directory", "objects", "exports", "changed", "unchanged"))
    for d in sorted(dirs):
        k = dirs[d]
        print("%-*s %8d %8d %8d %10d" % (w, d, k[0], k[1], k[2], k[1] - k[2]))
    print("%-*s %8d %8d %8d %10d" % (w, "total", len(per_obj), total, changed, total - changed))
    print()
    w = max([len(o) for o, _, _, _ in per_obj] + [6])
    print("%-*s %8s %8s %10s" % (w, "object", "exports", "changed", "unchanged"))
    for o, n, c, st in per_obj:
        print("%-*s %8d %8d %10d%s" % (w, o, n, c, n - c, "" if st else "  (no .symtypes)"))
    print("%-*s %8d %8d %10d" % (w, "total", total, changed, total - changed))
    print()
    print("%d objects export symbols; %d of %d exports (%.1f%%) change their CRC, "
          "%d keep it." % (len(per_obj), changed, total,
                           100.0 * changed / total if total else 0, total - changed))
    print()
    print("Exports whose CRC does not change:")
    keep = [(o, s) for (o, s, b, n, _) in rows if b == n and b != "-"]
    by_obj = {}
    for o, s in keep:
        by_obj.setdefault(o, []).append(s)
    for o in sorted(by_obj):
        print("  %s: %s" % (o, " ".join(by_obj[o])))
    if not keep:
        print("  none")
    print()
    print("Type definitions that differ between the two builds (genksyms "
          ".symtypes; 'objects': in how many of the objects above):")
    for e in sorted(diff_types, key=lambda e: (-len(diff_types[e]), e)):
        print("  %-34s %3d objects  %s" % (pretty(e), len(diff_types[e]), diff_desc[e]))
    print()
    print("What the changed CRCs cover (of the %d changed exports, how many "
          "have the definition in their CRC):" % changed)
    for e in sorted(cause_count, key=lambda e: (-cause_count[e], e)):
        print("  %-34s %5d" % (pretty(e), cause_count[e]))
    if only_one_side:
        print()
        print("Exports on one side only:")
        for o, s, side in only_one_side:
            print("  %s: %s (%s)" % (o, s, side))
    rc = 0
    if inconsistent:
        print()
        print("Exports whose CRC did not change although a differing definition is in it:")
        for o, s, c in inconsistent:
            print("  %s: %s (%s)" % (o, s, " ".join(c)))
    if unexplained:
        print()
        print("Exports whose CRC changed without a differing definition in their "
              ".symtypes (the report misses their cause):")
        for o, s in unexplained:
            print("  %s: %s" % (o, s))
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
