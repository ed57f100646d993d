#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/host/compare.py: one table of the bench's kernels mode on several kernels.

    compare.py OUTDIR KERNEL...

Reads OUTDIR/KERNEL/bench-units.csv (bench/host/report.py's instructions per
unit of each kernel's run, make bench-kernels: base, series, mainline),
the run before each (OUTDIR/KERNEL-previous/bench-units.csv), the runs'
start lines and host load, and the per-function profiles where the run
had them (bench-profile.csv), and writes to OUTDIR:

    bench.md             per unit (RR round trip, 64-byte UDP packet out and
                         in, stream byte and TCP segment): each
                         topology's instructions on
                         each kernel, series/base and series/mainline, over
                         lo per kernel; the host path (netkit-phys and
                         veth-phys against host-phys); the expectations
                         of bench/README.md with their measured values; the
                         two consecutive runs of each kernel; the profile
                         differences between the kernels
    bench-kernels.csv    topology, metric, one column per kernel, the ratios

Every number comes from the kernels' own reports; a cell a kernel does not
have (netkit on the base) stays "-". Exit status 1 when a kernel's run has
no instruction table.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import (EXPECTATIONS, RUNS_LIMIT, TOPOS, expectations_md, kv, profile_diff_md,  # noqa: E402
                    read_units)
from report import UNITS as REPORT_UNITS  # noqa: E402

# The instruction units of report.py (not its receive rounds) the tables
# compare, with the decimals each shows.
DIGITS = {"rr_instr": 1, "udp_instr": 1, "udprev_instr": 1, "tcp1_instr": 4, "tcp1_seg_instr": 1}
UNITS = [(m, REPORT_UNITS[m][0], REPORT_UNITS[m][1], d) for m, d in DIGITS.items()]
# The expectations (report.py's EXPECTATIONS) name the units by metric.
LABEL = {m: label for m, label, _, _ in UNITS}


def start_of(kdir):
    try:
        with open(os.path.join(kdir, "console.log"), errors="replace") as f:
            for ln in f:
                if ln.startswith("NKBENCH start"):
                    return kv(ln)
    except OSError:
        pass
    return {}


def load_of(kdir):
    try:
        with open(os.path.join(kdir, "host-load.txt")) as f:
            return kv(f.read())
    except OSError:
        return {}


def profile_of(kdir):
    """{(topology, workload): {symbol: instructions per unit}}"""
    out = {}
    try:
        with open(os.path.join(kdir, "bench-profile.csv"), newline="") as f:
            for r in csv.DictReader(f):
                out.setdefault((r["topology"], r["workload"]), {})[r["symbol"]] = \
                    float(r["instr_per_unit"])
    except (OSError, KeyError, ValueError):
        pass
    return out


def num(v, digits):
    return "-" if v is None else f"{v:,.{digits}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def rx(v):
    return "-" if v is None else f"{v:.4f}"


def main():
    outdir, kernels = sys.argv[1], sys.argv[2:]
    runs = {k: read_units(os.path.join(outdir, k, "bench-units.csv")) for k in kernels}
    prev = {k: read_units(os.path.join(outdir, f"{k}-previous", "bench-units.csv")) for k in kernels}
    starts = {k: start_of(os.path.join(outdir, k)) for k in kernels}
    loads = {k: load_of(os.path.join(outdir, k)) for k in kernels}
    profiles = {k: profile_of(os.path.join(outdir, k)) for k in kernels}
    problems = [f"{k}: no instruction table ({os.path.join(outdir, k, 'bench-units.csv')})"
                for k in kernels if not runs[k]]
    if problems:
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        return 1
    topos = [t for t in TOPOS if any((t, "rr_instr") in runs[k] for k in kernels)]

    def val(k, t, m):
        return runs.get(k, {}).get((t, m))

    def over_lo(k, t, m):
        v, lo = val(k, t, m), val(k, "lo", m)
        return None if v is None or lo is None else v - lo

    def noise(k, t, m):
        """|run 2 - run 1| of a cell, instructions; None without a run before."""
        a, b = prev.get(k, {}).get((t, m)), val(k, t, m)
        return None if a is None or b is None else abs(b - a)

    has = {k: k in kernels for k in ("base", "series", "mainline")}
    md = ["# The bench on several kernels (make bench-kernels)\n"]
    # The runs' clock and vCPUs as their start lines say (bench/modes.sh
    # has the defaults; BENCH_* may have changed them).
    def same(key):
        vals = sorted({starts[k].get(key, "?") for k in kernels})
        return vals[0] if len(vals) == 1 else "differing (" + ", ".join(
            f"{k} {starts[k].get(key, '?')}" for k in kernels) + ")"
    md.append("Each kernel booted with the same bench initramfs workloads (iperf3, sockperf, "
              "nkbench and the BPF programs built for that kernel), QEMU `-icount "
              f"shift={same('icount_shift')},sleep=off,align=off`, {same('cpus')} vCPU(s), "
              f"topologies {'alone' if same('isolate') == 'yes' else 'isolate=' + same('isolate')} "
              "(set up, measured, torn down one after the other). Instructions per unit as "
              "each kernel's report counts them; \"over lo\" is the topology minus loopback "
              "on the same kernel.\n")
    md.append("| kernel | release | topologies | host time of the guest run | host load before / after "
              "| parameters |")
    md.append("|---|---|---|---|---|---|")
    for k in kernels:
        s, ld = starts[k], loads[k]
        md.append(f"| {k} | {s.get('kernel', '?')} | {len(s.get('topos', '').split(','))} | "
                  f"{ld.get('wall_s', '?')} s | {ld.get('host_load_before', '?').replace(',', ' ')} / "
                  f"{ld.get('host_load_after', '?').replace(',', ' ')} | rounds {s.get('rounds', '?')}, "
                  f"RR {s.get('rr_duration', '?')} s, UDP {s.get('udp_duration', '?')} s, "
                  f"stream {s.get('duration', '?')} s (+{s.get('omit', '?')}, window "
                  f"{s.get('tcp_window', 'auto')}) |")
    md.append("")

    rows = []
    for m, label, unit, digits in UNITS:
        md.append(f"## {label}: {unit}\n")
        hdr = "| topology | " + " | ".join(kernels)
        if has["base"] and has["series"]:
            hdr += " | series/base"
        if has["mainline"] and has["series"]:
            hdr += " | series/mainline"
        hdr += " | " + " | ".join(f"over lo: {k}" for k in kernels) + " |"
        md.append(hdr)
        md.append("|---" * (hdr.count("|") - 1) + "|")
        for t in topos:
            cells = [num(val(k, t, m), digits) for k in kernels]
            row = {"topology": t, "metric": m, **{k: val(k, t, m) for k in kernels}}
            if has["base"] and has["series"]:
                row["series/base"] = ratio(val("series", t, m), val("base", t, m))
                cells.append(rx(row["series/base"]))
            if has["mainline"] and has["series"]:
                row["series/mainline"] = ratio(val("series", t, m), val("mainline", t, m))
                cells.append(rx(row["series/mainline"]))
            for k in kernels:
                o = over_lo(k, t, m)
                row[f"over_lo_{k}"] = o
                cells.append("0" if t == "lo" and o is not None else
                             ("-" if o is None else f"{o:+,.{digits}f}"))
            md.append(f"| {t} | " + " | ".join(cells) + " |")
            rows.append(row)
        md.append("")
    fields = ["topology", "metric"] + kernels
    if has["base"] and has["series"]:
        fields.append("series/base")
    if has["mainline"] and has["series"]:
        fields.append("series/mainline")
    fields += [f"over_lo_{k}" for k in kernels]
    with open(os.path.join(outdir, "bench-kernels.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else
                            (round(r[k], 6) if isinstance(r[k], float) else r[k])) for k in fields})

    # The host path.
    md.append("## The host path: a pod's path against the host's own (host-phys)\n")
    md.append("Over the node's NIC (virtio-net): each pod path / host-phys. netkit-phys-route is "
              "netkit-phys with the bench's first program (bpf_redirect_neigh() without a next "
              "hop: a route lookup per packet); netkit-phys-headroom is netkit-phys with the pod's "
              "headroom set for the NIC (IFLA_NETKIT_HEADROOM; not on 6.12); netkit-vphys is the "
              "first netkit-phys, over the "
              "veth stand-in for the NIC, against its host path veth-pair (the same code as the "
              "stand-in's host path).\n")
    md.append("| kernel | unit | netkit-phys / host-phys | netkit-phys-headroom / host-phys "
              "| netkit-phys-route / host-phys | veth-phys / host-phys | veth-phys-clsact / host-phys "
              "| netkit-vphys / veth-pair |")
    md.append("|---|---|---|---|---|---|---|---|")
    for k in kernels:
        for m, label, _, _ in UNITS:
            h = val(k, "host-phys", m)
            md.append(f"| {k} | {label} | " + " | ".join(
                rx(ratio(val(k, t, m), h)) for t in ("netkit-phys", "netkit-phys-headroom",
                                                     "netkit-phys-route", "veth-phys",
                                                     "veth-phys-clsact"))
                + f" | {rx(ratio(val(k, 'netkit-vphys', m), val(k, 'veth-pair', m)))} |")
    md.append("")

    # Expectations: report.py's table, its make bench-kernels rows.
    checks = []
    for e in EXPECTATIONS:
        if "kernels" not in e["on"]:
            continue
        bound, metrics = e["bound"], [m for m, _ in e["measures"]]
        if e["check"] == "base" and has["base"] and has["series"]:
            for t in e["topos"]:
                rs = [(LABEL[m], ratio(val("series", t, m), val("base", t, m))) for m in metrics]
                rs = [(lab, r) for lab, r in rs if r is not None]
                if not rs:
                    continue
                worst = max(r for _, r in rs)
                checks.append((e["what"].format(t=t, bound=bound), worst <= bound,
                               ", ".join(f"{lab} {r:.4f}x" for lab, r in rs)))
        elif e["check"] == "mainline" and has["mainline"] and has["series"]:
            for t in e["topos"]:
                parts, ok, any_cell = [], True, False
                for m in metrics:
                    label, digits = LABEL[m], DIGITS[m]
                    s, mm = over_lo("series", t, m), over_lo("mainline", t, m)
                    if s is None or mm is None:
                        continue
                    any_cell = True
                    # the two-run noise of the four cells the difference is made of
                    slack = sum(n for n in (noise("series", t, m), noise("mainline", t, m),
                                            noise("series", "lo", m), noise("mainline", "lo", m))
                                if n is not None)
                    met = s <= mm + slack
                    ok = ok and met
                    parts.append(f"{label} {s:+,.{digits}f} vs {mm:+,.{digits}f}"
                                 + (f" ({s / mm:.3f}x)" if mm > 0 and s > 0 else "")
                                 + (f", noise {slack:,.{digits}f}" if slack else "")
                                 + ("" if met else " **over**"))
                if any_cell:
                    checks.append((e["what"].format(t=t), ok, "; ".join(parts)))
        elif e["check"] == "le":
            for k in ("series", "mainline"):
                if k not in kernels:
                    continue
                for m in metrics:
                    a, b = val(k, e["a"], m), val(k, e["b"], m)
                    if a is None or b is None:
                        continue
                    d = 0 if DIGITS[m] == 1 else DIGITS[m]
                    checks.append((e["what"].format(bound=bound, label=LABEL[m]) + f", on {k}",
                                   a <= bound * b, f"{a:,.{d}f} vs {b:,.{d}f} ({a / b:.4f}x)"))
    expectations_md(md, checks)

    # Two consecutive runs of each kernel.
    md.append("## Two consecutive runs of each kernel\n")
    md.append(f"Each kernel's run against its run before (KERNEL-previous), every cell of the "
              f"tables above; limit {RUNS_LIMIT} %.\n")
    md.append("| kernel | cells | largest difference | where | host load (this run) |")
    md.append("|---|---|---|---|---|")
    worst_all = None
    for k in kernels:
        if not prev[k]:
            md.append(f"| {k} | 0 | - (no run before) | | |")
            continue
        diffs = [(100 * (v - prev[k][key]) / prev[k][key], key) for key, v in runs[k].items()
                 if key in prev[k] and prev[k][key] and key[1] in dict((u[0], 1) for u in UNITS)]
        if not diffs:
            md.append(f"| {k} | 0 | - | | |")
            continue
        d, (t, m) = max(diffs, key=lambda x: abs(x[0]))
        if worst_all is None or abs(d) > abs(worst_all[0]):
            worst_all = (d, k, t, m)
        md.append(f"| {k} | {len(diffs)} | {d:+.3f} % | {t}, {m} | "
                  f"{loads[k].get('host_load_before', '?').replace(',', ' ')} |")
    md.append("")
    if worst_all:
        md.append(f"**Largest difference between two runs: {abs(worst_all[0]):.3f} %** "
                  f"({worst_all[1]}, {worst_all[2]}, {worst_all[3]}); "
                  f"{'within' if abs(worst_all[0]) <= RUNS_LIMIT else 'NOT within'} {RUNS_LIMIT} %.\n")

    # Profiles: where two kernels differ on the same topology and workload.
    pairs = [(a, b) for a, b in (("series", "base"), ("series", "mainline")) if a in kernels and b in kernels]
    for a, b in pairs:
        for key in sorted(set(profiles[a]) & set(profiles[b]),
                          key=lambda x: (x[1], TOPOS.index(x[0]) if x[0] in TOPOS else 99)):
            profile_diff_md(md, f"Profile {a} - {b}: {key[0]}, {key[1]}", a, b,
                            profiles[a][key], profiles[b][key], 20)

    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
