#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/host/report.py: turn the bench guest's console into tables and a chart.

    report.py CONSOLE RAW OUTDIR

Reads the NKBENCH lines that bench/guest/bench-guest.sh (and nkbench) printed on
the console and the exit status /init wrote to the raw port, and writes to
OUTDIR:

    bench.md           the tables: median/min/max per topology and workload,
                       ratios netkit/veth and topology/lo, the scale table,
                       the expectation check
    bench-rounds.csv   every measured value, one per round (a stream over
                       the NIC run more than once: its median run's)
    bench-summary.csv  median/min/max per topology, workload and metric
    bench-ratios.csv   the ratios
    bench-scale.csv    the scale curve
    bench-units.csv    under -icount: instructions per unit (RR round trip,
                       UDP datagram each way, stream byte and TCP segment)
                       and receive
                       rounds per unit, per topology (median of the rounds);
                       OUTDIR-previous/bench-units.csv is the run before,
                       compared cell by cell in bench.md
    bench-profile.csv  under -icount: instructions per unit per function
                       of the profiled runs (perf cpu-clock samples x
                       period / units)
    bench.png/.svg     the chart (gnuplot; bench.gp and the .dat files in
                       OUTDIR/chart)

Every number comes from the guest's lines, which carry the tools' own
output (iperf3 -J's sum_received.bits_per_second, sockperf's Valid Duration
counts and percentiles, nkbench's clocks and /proc/meminfo); a value that
is missing stays missing. Exit status: 0 when every topology and workload
has a result in every round, the scale runs are complete and the guest
exited 0; 1 otherwise, with the reasons on stderr. Kernel trouble on the
console is scripts/verdict.sh's to judge (its bench mode, which
bench/host/run.sh runs before the report).
"""
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys


def read_topologies():
    """bench/topologies: the names in the tables' order, and each one's
    path and hooks."""
    topos, paths = [], {}
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "topologies")) as f:
        for ln in f:
            if ln.startswith("#") or len(ln.split()) < 3:
                continue
            name, _, path = ln.split(None, 2)
            topos.append(name)
            paths[name] = path.strip()
    return topos, paths


TOPOS, PATHS = read_topologies()
PAIRS = [("netkit-pair", "veth-pair"), ("netkit-routed", "veth-routed"),
         ("netkit-bpf", "veth-bpf"), ("netkit-phys", "veth-phys"), ("netkit-phys", "host-phys"),
         ("netkit-phys-headroom", "host-phys"), ("netkit-phys-route", "netkit-phys"), ("netkit-vphys", "veth-pair")]
# metric: (label, unit, workload, better)
METRICS = {
    "tcp1_gbps": ("TCP stream, 1 stream", "Gbit/s", "tcp1", "higher"),
    "tcp4_gbps": ("TCP stream, 4 streams", "Gbit/s", "tcp4", "higher"),
    "rr_tps": ("TCP_RR transactions", "1/s", "rr", "higher"),
    "rr_p50_us": ("TCP_RR RTT p50", "us", "rr", "lower"),
    "rr_p99_us": ("TCP_RR RTT p99", "us", "rr", "lower"),
    "udp_pps": ("UDP 64 B, client to server", "packets/s", "udp", "higher"),
    "udprev_pps": ("UDP 64 B, server to client", "packets/s", "udp", "higher"),
}
# Under -icount: what one unit costs, from the tools' own counts and the
# guest clock (2^shift ns per instruction).
# metric: (label, unit, workload, unit count)
UNITS = {
    "rr_instr": ("RR", "instructions per round trip", "rr"),
    "udp_instr": ("UDP 64 B out", "instructions per packet", "udp"),
    "udprev_instr": ("UDP 64 B in", "instructions per packet", "udp"),
    "tcp1_instr": ("stream", "instructions per byte", "tcp1"),
    "tcp1_seg_instr": ("stream segment", "instructions per TCP segment", "tcp1"),
    "rr_softnet": ("RR", "receive rounds per round trip", "rr"),
    "udp_softnet": ("UDP out", "receive rounds per packet", "udp"),
    "udprev_softnet": ("UDP in", "receive rounds per packet", "udp"),
    "tcp1_softnet": ("stream", "receive rounds per TCP segment", "tcp1"),
}
# What differs between the topologies: the devices' xmit, tc, the BPF
# programs and redirects, the backlog hop, loopback, forwarding.
DATAPATH_SYMS = re.compile(
    r"^(veth_|netkit_|loopback_|sch_handle_|tcf_|cls_bpf_|bpf_prog_|skb_do_redirect|"
    r"__bpf_redirect|bpf_redirect|skb_scrub_packet|__dev_forward_skb|dev_forward_skb|"
    r"__netif_receive_skb|netif_receive_skb|enqueue_to_backlog|process_backlog|__netif_rx|"
    r"netif_rx|__dev_queue_xmit|dev_hard_start_xmit|eth_type_trans|ip_forward|"
    r"ip_route_input|ip_rcv|fib_|neigh_|ip_finish_output2|__napi_poll|net_rx_action)")
IDLE_SYMS = re.compile(r"^(__cpuidle_text_start|default_idle|native_safe_halt|cpu_idle_poll|"
                       r"poll_idle|mwait_idle|acpi_idle_do_entry|arch_cpu_idle)")
# The expectations of bench/README.md (which says at length what each
# means), the one table of them: report.py checks a run's, by the wall
# clock ("wall": the ratios of the rounds' medians, the scale curve) or
# under -icount ("icount": instructions per unit); compare.py those of
# make bench-kernels' kernels against each other ("kernels"). A row:
# where it is checked ("on"); how ("check", below); the topologies, or
# scale kinds, it sets against each other (a, b; "topos": each of those
# on its own); the bound; the measured quantities, (metric, label) with
# the label report.py's table gives it (None: the metric's own, METRICS'
# or UNITS'; compare.py's table always names the units by their own);
# the expectation as the tables say it ({bound}, {label}, {t}, {n}
# filled in). The checks:
#   ratio>=, ratio<=  a's median / b's against the bound, with the
#                     ratios of the same round ("medians": and the two
#                     medians)
#   scale             a's cost per pair <= bound x b's, at the largest N
#   le                a <= bound x b
#   adds              what a adds over lo <= bound x what b adds
#   base              each of topos on the series <= bound x on the
#                     base, every unit
#   mainline          each of topos' cost over lo on the series <=
#                     mainline's, within the two runs' noise
# Each renderer keeps the table's order: the row both check comes last.
PER_UNIT = (("rr_instr", None), ("udp_instr", None), ("udprev_instr", None), ("tcp1_instr", None),
            ("tcp1_seg_instr", None))
EXPECTATIONS = (
    # The bench's first expectations, by the wall clock (under TCG a run
    # often cannot tell the two apart).
    {"on": ("wall",), "check": "ratio>=", "a": "netkit-bpf", "b": "veth-bpf", "bound": 1.15,
     "measures": (("tcp1_gbps", None), ("tcp4_gbps", None)),
     "what": "netkit-bpf >= {bound}x veth-bpf, {label}"},
    {"on": ("wall",), "check": "ratio<=", "a": "netkit-bpf", "b": "veth-bpf", "bound": 1.0,
     "measures": (("rr_p99_us", None),), "medians": True,
     "what": "netkit-bpf p99 RTT <= veth-bpf's"},
    {"on": ("wall",), "check": "ratio>=", "a": "netkit-pair", "b": "lo", "bound": 0.95,
     "measures": (("tcp1_gbps", None), ("tcp4_gbps", None)),
     "what": "netkit-pair >= {bound}x lo, {label}"},
    {"on": ("wall",), "check": "scale", "a": "netkit", "b": "veth", "bound": 1.0,
     "measures": (("create_ms_per_pair", "create time"), ("attach_ms_per_pair", "attach time"),
                  ("delete_ms_per_pair", "delete time"),
                  ("slab_percpu_kb_per_pair", "slab+percpu memory")),
     "what": "netkit {label} per pair <= veth's (N={n})"},
    # The path netkit was built for saves veth's backlog round on the way
    # out; the way in is the same code but for the peer lookup.
    {"on": ("icount",), "check": "le", "a": "netkit-phys", "b": "veth-phys", "bound": 0.9,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet out")),
     "what": "netkit-phys (bpf_redirect_neigh out) <= {bound}x veth-phys, {label}"},
    {"on": ("icount",), "check": "le", "a": "netkit-phys", "b": "veth-phys", "bound": 1.0,
     "measures": (("udprev_instr", "per 64 B packet in"),),
     "what": "netkit-phys inbound (bpf_redirect_peer) <= veth-phys, {label}"},
    # A netkit pair is cheaper than a veth pair.
    {"on": ("icount",), "check": "adds", "a": "netkit-pair", "b": "veth-pair", "bound": 0.8,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet")),
     "what": "netkit-pair adds <= {bound}x what veth-pair adds over lo, {label}"},
    # netkit's program-driven redirect against veth's at tc ingress.
    {"on": ("icount",), "check": "le", "a": "netkit-bpf", "b": "veth-bpf", "bound": 1.0,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet")),
     "what": "netkit-bpf <= veth-bpf, {label}"},
    # The paths of those who use neither netkit nor tcx: the series must
    # cost them what the base does.
    {"on": ("kernels",), "check": "base", "bound": 1.005,
     "topos": ("lo", "veth-pair", "veth-routed", "veth-bpf", "veth-phys-clsact", "host-phys"),
     "measures": PER_UNIT,
     "what": "everyone else pays nothing: {t} on the series <= {bound}x the base, per unit"},
    # The port adds no cost of its own to netkit's paths.
    {"on": ("kernels",), "check": "mainline", "bound": None,
     "topos": ("netkit-pair", "netkit-routed", "netkit-bpf", "netkit-phys", "netkit-phys-route",
               "netkit-vphys"),
     "measures": PER_UNIT,
     "what": "as cheap as mainline: {t}'s cost over lo on the series <= mainline 6.12's "
             "(within the two runs' noise)"},
    # The claim made for netkit: a pod's traffic as fast as the host's own,
    # over the node's NIC; and over the veth stand-in, against its host
    # path (veth-pair, the same code as the stand-in's).
    {"on": ("icount", "kernels"), "check": "le", "a": "netkit-phys", "b": "host-phys", "bound": 1.02,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet out"),
                  ("udprev_instr", "per 64 B packet in"), ("tcp1_instr", "per stream byte"),
                  ("tcp1_seg_instr", "per stream TCP segment")),
     "what": "netkit-phys <= {bound}x host-phys, {label}"},
    # The same with the pod's headroom set for the NIC, as an agent does
    # where the kernel has IFLA_NETKIT_HEADROOM (not 6.12).
    {"on": ("icount", "kernels"), "check": "le", "a": "netkit-phys-headroom", "b": "host-phys",
     "bound": 1.02,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet out"),
                  ("udprev_instr", "per 64 B packet in"), ("tcp1_instr", "per stream byte"),
                  ("tcp1_seg_instr", "per stream TCP segment")),
     "what": "netkit-phys-headroom <= {bound}x host-phys, {label}"},
    {"on": ("icount", "kernels"), "check": "le", "a": "netkit-vphys", "b": "veth-pair", "bound": 1.02,
     "measures": (("rr_instr", "per RR round trip"), ("udp_instr", "per 64 B packet out"),
                  ("udprev_instr", "per 64 B packet in"), ("tcp1_instr", "per stream byte")),
     "what": "netkit-vphys <= {bound}x veth-pair (the stand-in's host path), {label}"},
)
# Two consecutive runs (icount, kernels) agree within this, per cell, in %.
RUNS_LIMIT = 1.0
# The start line's parameters that change a count: two runs compared
# cell by cell must share them.
RUN_PARAMS = ("icount_shift", "duration", "omit", "tcp_window", "nic_stream_runs", "rr_duration", "udp_duration",
              "udp_size")


def kv(s):
    return dict(re.findall(r"(\w+)=(\S+)", s))


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def parse(console_path, raw_path):
    with open(console_path, errors="replace") as f:
        lines = [ln.rstrip("\r\n").replace("\r", "") for ln in f]
    d = {"start": {}, "ready": set(), "rounds": {}, "streams": {}, "errors": [], "scale": [],
         "done": None, "teardown": False,
         "profile": []}
    for ln in lines:
        if not ln.startswith("NKBENCH "):
            continue
        rest = ln[len("NKBENCH "):]
        word = rest.split(" ", 1)[0]
        a = kv(rest)
        if word == "start":
            d["start"] = a
        elif word == "ready":
            d["ready"].add(a.get("topo"))
        elif word == "result":
            r, t, w = int(a["round"]), a["topo"], a["wl"]
            vals = {}
            # guest ns per instruction: 2^shift (icount only)
            shift = d["start"].get("icount_shift", "none")
            ins = 2 ** int(shift) if shift.isdigit() else None
            sn = fnum(a.get("softnet"))
            key = w.replace("-", "")
            if w in ("tcp1", "tcp4"):
                bps = fnum(a.get("bps"))
                if bps is not None:
                    vals[f"{w}_gbps"] = bps / 1e9
                by, sec = fnum(a.get("bytes")), fnum(a.get("seconds"))
                if ins and by and sec:
                    vals[f"{w}_instr"] = sec * 1e9 / ins / by
                vals[f"{w}_retransmits"] = fnum(a.get("retransmits"))
                vals[f"{w}_ofo"] = fnum(a.get("ofo"))
                # per TCP segment: below, with the bytes of all of
                # iperf3's intervals from the raw JSON
                vals[f"{w}_segs"] = fnum(a.get("segs"))
                if sn is not None:
                    vals[f"{w}_softnet_total"] = sn
            elif w == "rr":
                rt, n = fnum(a.get("runtime_s")), fnum(a.get("recv_msgs"))
                if rt and n:
                    vals["rr_tps"] = n / rt
                    if ins:
                        vals["rr_instr"] = rt * 1e9 / ins / n
                    # the counters span the whole sockperf run, warm-up
                    # included; per round trip of the valid duration
                    if sn is not None:
                        vals["rr_softnet"] = sn / n
                avg = fnum(a.get("avg_rtt_us"))
                if rt and n and avg:
                    # the share of the valid duration the round trips
                    # fill: an idle jump of the clock would leave a gap
                    vals["rr_fill"] = avg * 1e-6 * n / rt
                vals["rr_p50_us"] = fnum(a.get("p50_rtt_us"))
                vals["rr_p99_us"] = fnum(a.get("p99_rtt_us"))
            elif w in ("udp", "udp-rev"):
                pk, ns = fnum(a.get("packets")), fnum(a.get("elapsed_ns"))
                if pk and ns:
                    vals[f"{key}_pps"] = pk * 1e9 / ns
                    if ins:
                        vals[f"{key}_instr"] = ns / ins / pk
                    if sn is not None:
                        vals[f"{key}_softnet"] = sn / pk
            vals[f"{key}_host_fwd"] = fnum(a.get("host_fwd"))
            vals[f"{key}_nic_tx"] = fnum(a.get("nic_tx"))
            vals[f"{key}_nic_rx"] = fnum(a.get("nic_rx"))
            vals[f"{key}_idle_ticks"] = fnum(a.get("idle_ticks"))
            vals = {k: v for k, v in vals.items() if v is not None}
            if w in ("tcp1", "tcp4"):
                # each run of the stream apart (more than one over the
                # NIC): the round's value is the median run's, below
                d["streams"].setdefault((t, r, w), {})[int(a.get("run", "1"))] = vals
            else:
                d["rounds"].setdefault((t, r), {}).update(vals)
        elif word == "error":
            m = re.match(r"error topo=(\S+) what=(.*)", rest)
            d["errors"].append((m.group(1), m.group(2)) if m else ("?", rest))
        elif word == "scale":
            d["scale"].append(a)
        elif word == "profile":
            d["profile"].append(a)
        elif word == "teardown":
            d["teardown"] = True
        elif word == "done":
            d["done"] = a
    d["perf"] = {}
    d["iperf3_bytes"] = iperf3_bytes(raw_path)
    # Per TCP segment: the run's segments (the client's Tcp OutSegs over
    # the whole iperf3 run) against the bytes of all its intervals, the
    # omitted ones included; the measured interval's count per byte times
    # the bytes per segment.
    for (t, r, w), runs in d["streams"].items():
        for run, vals in runs.items():
            segs, total = vals.get(f"{w}_segs"), d["iperf3_bytes"].get((r, t, w, run))
            if segs and total:
                vals[f"{w}_bytes_per_seg"] = total / segs
                if f"{w}_instr" in vals:
                    vals[f"{w}_seg_instr"] = vals[f"{w}_instr"] * total / segs
                if vals.get(f"{w}_softnet_total") is not None:
                    vals[f"{w}_softnet"] = vals[f"{w}_softnet_total"] / segs
        # the round's stream: its median run (the lower middle one of an
        # even count) by instructions per byte, or by throughput on the
        # wall clock, with every value of that run, so that per byte,
        # per segment and the counters stay one run's
        by = f"{w}_instr" if all(f"{w}_instr" in v for v in runs.values()) else f"{w}_gbps"
        order = sorted(runs, key=lambda k: runs[k].get(by, 0))
        med = order[(len(order) - 1) // 2]
        d["rounds"].setdefault((t, r), {}).update(runs[med], **{f"{w}_runs": len(runs)})
    if os.path.exists(raw_path):
        block = None
        with open(raw_path, errors="replace") as f:
            for ln in f:
                ln = ln.strip()
                m = re.match(r"=== perf topo=(\S+) wl=(\S+)", ln)
                if m:
                    block = d["perf"].setdefault((m.group(1), m.group(2)),
                                                 {"idle": 0.0, "datapath": 0.0, "syms": {}})
                    continue
                if ln.startswith("=== "):
                    block = None
                    continue
                m = re.match(r"([0-9.]+)%\s+(?:(\d+)\s+)?\[.\]\s+(\S+)", ln)
                if block is not None and m:
                    pct, sym = float(m.group(1)), m.group(3)
                    if m.group(2) is not None:
                        block["syms"][sym] = block["syms"].get(sym, 0) + int(m.group(2))
                    if IDLE_SYMS.match(sym):
                        block["idle"] += pct
                    elif DATAPATH_SYMS.match(sym):
                        block["datapath"] += pct
    return d


def iperf3_bytes(raw_path):
    """{(round, topology, workload, run): the bytes of all the intervals
    of iperf3's JSON (the omitted ones included)} of the raw port's iperf3
    blocks, each run's last attempt that exited 0."""
    out = {}
    if not os.path.exists(raw_path):
        return out
    key, buf = None, []
    with open(raw_path, errors="replace") as f:
        for ln in f:
            ln = ln.rstrip("\r\n")
            m = re.match(r"=== iperf3 round=(\d+) topo=(\S+) wl=(\S+)(?: run=(\d+))? attempt=\d+ rc=(\d+)", ln)
            if m:
                key = (int(m.group(1)), m.group(2), m.group(3), int(m.group(4) or 1)) \
                    if m.group(5) == "0" else None
                buf = []
                continue
            if ln.startswith("=== "):
                if key:
                    try:
                        j = json.loads("\n".join(buf))
                        out[key] = sum(iv["sum"]["bytes"] for iv in j.get("intervals", []))
                    except (ValueError, KeyError, TypeError):
                        pass
                key = None
                continue
            if key:
                buf.append(ln)
    return out


def summarize(d, topos, rounds, metrics=METRICS):
    out = {}
    for t in topos:
        for m in metrics:
            vals = [d["rounds"].get((t, r), {}).get(m) for r in range(1, rounds + 1)]
            vals = [v for v in vals if v is not None]
            if vals:
                out[(t, m)] = {"n": len(vals), "median": statistics.median(vals),
                               "min": min(vals), "max": max(vals)}
    return out


def ratios(d, summ, rounds):
    """(a, b, metric) -> ratio of medians and the range of per-round ratios."""
    out = []
    comps = PAIRS + [(t, "lo") for t in TOPOS if t != "lo"]
    for a, b in comps:
        for m in METRICS:
            if (a, m) not in summ or (b, m) not in summ or not summ[(b, m)]["median"]:
                continue
            per_round = []
            for r in range(1, rounds + 1):
                va = d["rounds"].get((a, r), {}).get(m)
                vb = d["rounds"].get((b, r), {}).get(m)
                if va is not None and vb:
                    per_round.append(va / vb)
            out.append({"a": a, "b": b, "metric": m,
                        "ratio": summ[(a, m)]["median"] / summ[(b, m)]["median"],
                        "rmed": statistics.median(per_round) if per_round else None,
                        "rmin": min(per_round) if per_round else None,
                        "rmax": max(per_round) if per_round else None,
                        "kind": "netkit/veth" if b != "lo" else "topology/lo"})
    return out


def scale_rows(d):
    rows = []
    for a in d["scale"]:
        n = int(a["n"])
        g = {k: fnum(v) for k, v in a.items() if k not in ("kind", "n")}
        dev = g["dev_slab_kb"] + g["dev_percpu_kb"]
        att = g["att_slab_kb"] + g["att_percpu_kb"]
        rows.append({
            "kind": a["kind"], "n": n,
            "create_ms": g["create_ms"], "load_ms": g["load_ms"],
            "attach_ms": g["attach_ms"], "delete_ms": g["delete_ms"],
            "create_ms_per_pair": g["create_ms"] / n,
            "attach_ms_per_pair": g["attach_ms"] / n,
                        "delete_ms_per_pair": g["delete_ms"] / n,
            "dev_slab_percpu_kb_per_pair": dev / n,
            "att_slab_percpu_kb_per_pair": att / n,
            "slab_percpu_kb_per_pair": (dev + att) / n,
            "slab_kb_per_pair": (g["dev_slab_kb"] + g["att_slab_kb"]) / n,
            "percpu_kb_per_pair": (g["dev_percpu_kb"] + g["att_percpu_kb"]) / n,
            "memfree_kb_per_pair": (g["dev_memfree_kb"] + g["att_memfree_kb"]) / n,
            "vmalloc_kb_per_pair": (g["dev_vmalloc_kb"] + g["att_vmalloc_kb"]) / n,
            "left_slab_percpu_kb": g["left_slab_kb"] + g["left_percpu_kb"],
        })
    return sorted(rows, key=lambda r: (r["n"], r["kind"] != "veth"))


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else
                            (round(r[k], 6) if isinstance(r[k], float) else r[k]))
                        for k in fields})


def host_load(outdir):
    try:
        with open(os.path.join(outdir, "host-load.txt")) as f:
            a = kv(f.read())
        return (f"; host load average {a['host_load_before'].replace(',', ' ')} before, "
                f"{a['host_load_after'].replace(',', ' ')} after ({a['host_cpus']} CPUs)")
    except (OSError, KeyError):
        return ""


def rx(v):
    return "-" if v is None else f"{v:.3f}x"


def expectations(summ, rats, srows):
    """The wall clock's rows of EXPECTATIONS: (what, met, measured)."""
    def rat(a, b, m):
        for r in rats:
            if (r["a"], r["b"], r["metric"]) == (a, b, m):
                return r["ratio"]
        return None

    def paired(a, b, m):
        for r in rats:
            if (r["a"], r["b"], r["metric"]) == (a, b, m) and r["rmed"] is not None:
                return f" (same-round ratios: median {r['rmed']:.3f}, {r['rmin']:.3f}..{r['rmax']:.3f})"
        return ""

    checks = []
    for e in EXPECTATIONS:
        if "wall" not in e["on"]:
            continue
        a, b, bound = e["a"], e["b"], e["bound"]
        if e["check"] == "scale":
            if not srows:
                continue
            nmax = max(r["n"] for r in srows)
            by = {r["kind"]: r for r in srows if r["n"] == nmax}
            if a not in by or b not in by:
                continue
            for k, label in e["measures"]:
                va, vb = by[a][k], by[b][k]
                checks.append((e["what"].format(label=label, n=nmax), va <= bound * vb,
                               f"{fmt(va)} vs {fmt(vb)} ({rx(va / vb if vb else None)})"))
            continue
        for m, label in e["measures"]:
            v = rat(a, b, m)
            ok = v is not None and (v >= bound if e["check"] == "ratio>=" else v <= bound)
            medians = (f" ({fmt(summ[(a, m)]['median'])} vs {fmt(summ[(b, m)]['median'])} {METRICS[m][1]})"
                       if e.get("medians") and v is not None else "")
            checks.append((e["what"].format(bound=bound, label=label or METRICS[m][0]), ok,
                           rx(v) + medians + paired(a, b, m)))
    return checks


def expectations_icount(us):
    """The -icount rows of EXPECTATIONS, those whose topologies this run
    has: (what, met, measured)."""
    def med(t, m):
        s = us.get((t, m))
        return s["median"] if s else None

    checks = []
    for e in EXPECTATIONS:
        if "icount" not in e["on"]:
            continue
        bound = e["bound"]
        for m, label in e["measures"]:
            what = e["what"].format(bound=bound, label=label or UNITS[m][0])
            if e["check"] == "adds":
                lo, n, v = med("lo", m), med(e["a"], m), med(e["b"], m)
                ok = None not in (lo, n, v) and (n - lo) <= bound * (v - lo)
                measured = (f"{n - lo:+.0f} vs {v - lo:+.0f} ({(n - lo) / (v - lo):.3f}x)"
                            if None not in (lo, n, v) and v != lo else "-")
            else:
                a, b = med(e["a"], m), med(e["b"], m)
                ok = a is not None and b is not None and a <= bound * b
                measured = f"{fmt(a, 5)} vs {fmt(b, 5)} ({a / b:.3f}x)" if a and b else "-"
            checks.append((what, ok, measured))
    return [c for c in checks if c[2] != "-"]


def expectations_md(md, checks):
    """Appends to md the table of checks, (what, met, measured) each;
    nothing without any."""
    if not checks:
        return
    md.append("## Expectations\n")
    md.append("| expectation | measured | |")
    md.append("|---|---|---|")
    for what, ok, measured in checks:
        md.append(f"| {what} | {measured} | {'met' if ok else '**not met**'} |")
    md.append("")


def chart(outdir, summ, srows, topos):
    """The chart; a panel without data is left empty (multiplot next)."""
    def has(metrics):
        return any((t, m) in summ for t in topos for m in metrics)
    skip = {"tput": not has(("tcp1_gbps", "tcp4_gbps")), "rr": not has(("rr_tps",)),
            "scale": not srows}


    cdir = os.path.join(outdir, "chart")
    os.makedirs(cdir, exist_ok=True)

    def val(t, m, k):
        s = summ.get((t, m))
        return "NaN" if s is None else f"{s[k]:.6g}"

    with open(os.path.join(cdir, "tput.dat"), "w") as f:
        f.write("# topo tcp1(med min max) tcp4(med min max) Gbit/s\n")
        for t in topos:
            f.write(" ".join([t] + [val(t, m, k) for m in ("tcp1_gbps", "tcp4_gbps")
                                    for k in ("median", "min", "max")]) + "\n")
    with open(os.path.join(cdir, "rr.dat"), "w") as f:
        f.write("# topo tps(med min max) p50(med min max) p99(med min max)\n")
        for t in topos:
            f.write(" ".join([t] + [val(t, m, k) for m in ("rr_tps", "rr_p50_us", "rr_p99_us")
                                    for k in ("median", "min", "max")]) + "\n")
    for kind in ("veth", "netkit"):
        with open(os.path.join(cdir, f"scale-{kind}.dat"), "w") as f:
            f.write("# n create(ms/pair) load(ms, once) attach delete (ms/pair) slab+percpu memfree (kB/pair)\n")
            for r in srows:
                if r["kind"] == kind:
                    f.write(f"{r['n']} {r['create_ms_per_pair']:.6g} {r['load_ms']:.6g} "
                            f"{r['attach_ms_per_pair']:.6g} {r['delete_ms_per_pair']:.6g} "
                            f"{r['slab_percpu_kb_per_pair']:.6g} {r['memfree_kb_per_pair']:.6g}\n")
    gp = os.path.join(cdir, "bench.gp")
    tput = """set title "TCP stream throughput"
set ylabel "Gbit/s"
plot """ + ", ".join(
        x for x, m in (("'tput.dat' using 2:3:4:xtic(1) title '1 stream'", "tcp1_gbps"),
                       ("'tput.dat' using 5:6:7:xtic(1) title '4 streams'", "tcp4_gbps"))
        if has((m,))) + "\n"
    rr = """set title "TCP request/response"
set ylabel "transactions/s"
plot 'rr.dat' using 2:3:4:xtic(1) title 'sockperf ping-pong'
set title "TCP request/response round trip"
set ylabel "us"
plot 'rr.dat' using 5:6:7:xtic(1) title 'p50', '' using 8:9:10 title 'p99'
"""
    scale = """set title "time per pair: create (up) and delete"
set ylabel "ms per pair"
plot 'scale-veth.dat' using 1:2 title 'veth create' lw 2, \\
     'scale-netkit.dat' using 1:2 title 'netkit create' lw 2, \\
     'scale-veth.dat' using 1:5 title 'veth delete' dt 2 lw 2, \\
     'scale-netkit.dat' using 1:5 title 'netkit delete' dt 2 lw 2
set title "time per pair: attach the program"
plot 'scale-veth.dat' using 1:4 title 'veth attach (clsact+tc)' lw 2, \\
     'scale-netkit.dat' using 1:4 title 'netkit attach (bpf link)' lw 2
set title "memory per pair (devices + attachment)"
set ylabel "kB per pair"
plot 'scale-veth.dat' using 1:6 title 'veth slab+percpu' lw 2, \\
     'scale-netkit.dat' using 1:6 title 'netkit slab+percpu' lw 2, \\
     'scale-veth.dat' using 1:7 title 'veth MemFree delta' dt 2 lw 2, \\
     'scale-netkit.dat' using 1:7 title 'netkit MemFree delta' dt 2 lw 2
"""
    # A panel without data is left empty.
    if skip["tput"]:
        tput = "set multiplot next\n"
    if skip["rr"]:
        rr = "set multiplot next\n" * 2
    if skip["scale"]:
        scale = "set multiplot next\n" * 3
    with open(gp, "w") as f:
        f.write(f"""# gnuplot script written by bench/host/report.py
cd '{cdir}'
do for [term in "pngcairo svg"] {{
if (term eq "pngcairo") {{
    set terminal pngcairo size 1800,1000 font ",10"
    set output '{outdir}/bench.png'
}} else {{
    set terminal svg size 1800,1000 dynamic font ",10"
    set output '{outdir}/bench.svg'
}}
set multiplot layout 2,3 title "netkit vs veth datapaths (TCG guest; median, whiskers min..max)"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set xtics rotate by -30 nomirror
set key top right
set grid ytics
set yrange [0:*]
{tput}{rr}set style data linespoints
unset xtics
set xtics nomirror
set logscale x
set xlabel "pairs"
{scale}unset multiplot
unset logscale x
unset xlabel
unset ylabel
set style data histograms
set xtics rotate by -30 nomirror
}}
""")
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return "gnuplot not found (scripts/install-deps.sh bench installs gnuplot-nox)"
    p = subprocess.run([gnuplot, gp], capture_output=True, text=True)
    if p.returncode != 0:
        return f"gnuplot failed (exit {p.returncode}): {p.stderr.strip()[-500:]}"
    return None


def read_units(path):
    """{(topology, metric): value} of a bench-units.csv, {} without one."""
    try:
        with open(path, newline="") as f:
            return {(r["topology"], r["metric"]): float(r["value"]) for r in csv.DictReader(f)}
    except (OSError, KeyError, ValueError):
        return {}


def units_md(d, usumm, topos, outdir, mode):
    """The instruction table, the comparison with the run before, the
    receive rounds; returns (markdown lines, rows for bench-units.csv,
    the largest difference to the run before or None)."""
    md, rows = [], []
    shift = d["start"].get("icount_shift", "0")
    md.append("## Instructions per unit (QEMU -icount, guest clock = instructions)\n")
    md.append(f"QEMU ran the guest with `-icount shift={shift},sleep=off,align=off`: the guest "
              f"clock advances 2^{shift} ns per executed guest instruction and never with host "
              "time, so an interval the guest's tools time is an instruction count: "
              f"instructions per unit = guest ns x 2^-{shift} / count, with the guest ns and the "
              "count from the tools: RR = sockperf's valid-duration RunTime / ReceivedMessages "
              "(one round trip each, client and server on vCPU 0); UDP = nkbench udp's "
              "CLOCK_MONOTONIC interval / datagrams (64 B, one flow, sender and receiver on "
              "vCPU 0, none lost; out = client to server, in = server to client); stream = "
              "iperf3's sum_received seconds / bytes (1 stream, both ends on vCPU 0); stream "
              "TCP segment = that x the bytes per segment of the whole iperf3 run (all its "
              "intervals' bytes / the client's Tcp OutSegs; a segment is one MSS-sized "
              "packet on the wire whatever GSO and GRO pack it in). Every "
              "instruction the guest executes in the interval counts (applications, stack, "
              "scheduler, timer ticks): \"over lo\" subtracts the same workload over loopback, "
              "the limit a device pair that cost nothing would reach. Median of the rounds.\n")
    cols = [("rr_instr", "RR instr/round trip"), ("udp_instr", "UDP out instr/packet"),
            ("udprev_instr", "UDP in instr/packet"), ("tcp1_instr", "stream instr/byte"),
            ("tcp1_seg_instr", "stream instr/TCP segment")]
    hdr = "| topology | " + " | ".join(f"{c} | over lo" for _, c in cols) + " | UDP out pps (guest) |"
    md.append(hdr)
    md.append("|---" * (2 * len(cols) + 2) + "|")
    for t in topos:
        cells = []
        for m, _ in cols:
            s = usumm.get((t, m))
            lo = usumm.get(("lo", m))
            if not s:
                cells += ["-", "-"]
                continue
            digits = 4 if m == "tcp1_instr" else 1
            cells.append(f"{s['median']:.{digits}f}")
            cells.append("0" if t == "lo" else
                         (f"{s['median'] - lo['median']:+.{digits}f}" if lo else "-"))
        pps = usumm.get((t, "udp_pps"))
        cells.append(f"{pps['median']:,.0f}" if pps else "-")
        md.append(f"| {t} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("Receive rounds (softnet `processed`, one per `__netif_receive_skb_core()` pass: "
              "a backlog round, and again for each `bpf_redirect_peer()` another_round) per unit, "
              "next to the path and hooks:\n")
    md.append("| topology | path and hooks | rounds per RR round trip | per UDP packet out "
              "| per UDP packet in | per stream TCP segment (GRO: below 1) |")
    md.append("|---|---|---|---|---|---|")
    for t in topos:
        cells = [PATHS.get(t, "?")]
        for m in ("rr_softnet", "udp_softnet", "udprev_softnet", "tcp1_softnet"):
            s = usumm.get((t, m))
            cells.append(f"{s['median']:.2f}" if s else "-")
        md.append(f"| {t} | " + " | ".join(cells) + " |")
    md.append("")
    for (t, m), s in sorted(usumm.items(), key=lambda x: (TOPOS.index(x[0][0]), x[0][1])):
        if m in UNITS or m.endswith("_pps"):
            rows.append({"topology": t, "metric": m, "value": s["median"], "min": s["min"],
                         "max": s["max"], "rounds": s["n"]})
    # Within this run: the rounds' spread.
    spread = [(100 * (s["max"] - s["min"]) / s["median"], t, m) for (t, m), s in usumm.items()
              if m in cols_keys(cols) and s["n"] > 1 and s["median"]]
    if spread:
        w = max(spread)
        md.append(f"Largest spread between the rounds of this run: {w[0]:.3f} % ({w[1]}, {w[2]}).\n")
    prev_dir = outdir + "-previous"
    prev = read_units(os.path.join(prev_dir, "bench-units.csv"))
    worst = None
    if prev:
        pstart = ""
        try:
            with open(os.path.join(prev_dir, "start.txt")) as f:
                pstart = f.read().strip()
        except OSError:
            pass
        pa = kv(pstart)
        md.append("### Two consecutive runs\n")
        md.append(f"Run 1: the run before (kernel {pa.get('kernel', '?')}, clock "
                  f"{pa.get('clock', '?')}, shift {pa.get('icount_shift', '?')}"
                  f"{host_load(prev_dir)}); run 2: this run{host_load(outdir)}. "
                  "Difference = (run 2 - run 1) / run 1.\n")
        # (a run before this guest reported its window measured autotuned)
        start = d["start"]
        differ = [f"{k} {pa.get(k, 'auto' if k == 'tcp_window' else '?')} -> "
                  f"{start.get(k, '?')}" for k in RUN_PARAMS
                  if pa and pa.get(k, "auto" if k == "tcp_window" else None) != start.get(k)]
        if differ:
            md.append("The two runs were not run alike (" + ", ".join(differ) +
                      "): their differences are not the runs' noise.\n")
        md.append("| topology | " + " | ".join(f"{c}: run 1 | run 2 | diff %" for _, c in cols) + " |")
        md.append("|---" * (3 * len(cols) + 1) + "|")
        for t in topos:
            cells = []
            for m, _ in cols:
                a, s = prev.get((t, m)), usumm.get((t, m))
                if a is None or not s:
                    cells += ["-" if a is None else f"{a:.4g}", "-" if not s else f"{s['median']:.4g}", "-"]
                    continue
                diff = 100 * (s["median"] - a) / a
                if worst is None or abs(diff) > abs(worst[0]):
                    worst = (diff, t, m)
                cells += [f"{a:.6g}", f"{s['median']:.6g}", f"{diff:+.3f}"]
            md.append(f"| {t} | " + " | ".join(cells) + " |")
        md.append("")
        if worst:
            md.append(f"**Largest cell-to-cell difference between the two runs: {abs(worst[0]):.3f} %** "
                      f"({worst[1]}, {worst[2]}); "
                      f"{'within' if abs(worst[0]) <= RUNS_LIMIT else 'NOT within'} {RUNS_LIMIT:g} %.\n")
    return md, rows, worst


def cols_keys(cols):
    return {m for m, _ in cols}


def profile_diff_md(md, title, a, b, pa, pb, top):
    """Appends to md the table of two profiles' difference ({symbol:
    instructions per unit} each, named a and b): the total, the top
    functions by the size of their difference, the rest summed."""
    ta, tb = sum(pa.values()), sum(pb.values())
    delta = sorted(((pa.get(x, 0) - pb.get(x, 0), x) for x in set(pa) | set(pb)),
                   key=lambda x: (-abs(x[0]), x[1]))
    md.append(f"### {title}: {ta - tb:+.0f} instructions per unit ({ta:.0f} vs {tb:.0f})\n")
    md.append(f"| function | {a} | {b} | delta |")
    md.append("|---|---|---|---|")
    for dv, x in delta[:top]:
        md.append(f"| {x} | {pa.get(x, 0):.1f} | {pb.get(x, 0):.1f} | {dv:+.1f} |")
    rest = sum(dv for dv, _ in delta[top:])
    md.append(f"| (the other {max(len(delta) - top, 0)} functions) | | | {rest:+.1f} |")
    md.append("")


def profile_md(d, usumm, period, shift):
    """Per-function instructions per unit of the profiled runs, and the
    netkit - veth deltas. Returns (markdown lines, csv rows)."""
    md, rows = [], []
    prof = {(a.get("topo"), a.get("wl")): a for a in d["profile"]}
    per = {}
    for (t, w), blk in d["perf"].items():
        a = prof.get((t, w), {})
        units = fnum(a.get("units"))
        if not blk.get("syms") or not units or not period:
            continue
        # the idle loop's samples are clock jumps, not instructions
        busy = {sym: n for sym, n in blk["syms"].items() if not IDLE_SYMS.match(sym)}
        total = sum(busy.values())
        m = {"rr": "rr_instr", "udp": "udp_instr", "tcp1": "tcp1_seg_instr"}.get(w)
        meas = usumm.get((t, m)) if m else None
        if not total or not meas:
            continue
        # a function's share of the busy samples x the rounds' count
        per[(t, w)] = {sym: n / total * meas["median"] for sym, n in busy.items()}
        raw_per = total * period / 2 ** shift / units
        prof.setdefault((t, w), {})["raw_per"] = raw_per
        for sym, v in per[(t, w)].items():
            rows.append({"topology": t, "workload": w, "symbol": sym,
                         "samples": blk["syms"][sym], "instr_per_unit": v})
    if not per:
        return md, rows
    md.append("## Instruction profile: per function, per unit (perf cpu-clock under -icount)\n")
    md.append(f"perf samples cpu-clock every {period:g} ns of guest time, under -icount every "
              f"{period / 2 ** shift:g} instructions, one unmeasured run of the workload after "
              "the rounds. A function's instructions per unit = its share of the busy samples x "
              "the rounds' instructions per unit (the idle loop's samples are clock jumps, not "
              "instructions, and are left out). The samples are in guest time: the same run "
              "gives the same sample counts in every topology whatever the host does, and "
              "busy samples x period / the profiled run's units (sockperf's ReceivedMessages, "
              "nkbench's datagrams, tcp1's TCP segments: the client's OutSegs) comes out a little above the rounds' count: the sampling's "
              "own interrupts, the tools' start, and for RR the warm-up and cool-down round "
              "trips sockperf leaves out of its valid duration. cpu-clock is an hrtimer "
              "interrupt, not an NMI: a sample due while interrupts are off lands where they "
              "are enabled again (finish_task_switch, the callers of spin_unlock_irqrestore, "
              "net_rx_action), and a fixed period samples a loop of ~28,000 instructions at "
              "few phases: in the RR profiles the TCP and scheduler functions move by "
              "hundreds of instructions from topology to topology without a change in their "
              "code path; the 64-byte UDP profiles, a shorter and simpler loop, show the "
              "datapath's own functions.\n")
    md.append("| topology | workload | busy samples | idle samples | busy samples x period / units "
              "| rounds' instr/unit | receive rounds |")
    md.append("|---|---|---|---|---|---|---|")
    for (t, w), syms in sorted(per.items(), key=lambda x: (x[0][1], TOPOS.index(x[0][0]))):
        a = prof.get((t, w), {})
        n = sum(v for k, v in d["perf"][(t, w)]["syms"].items() if not IDLE_SYMS.match(k))
        n_all = sum(d["perf"][(t, w)]["syms"].values())
        md.append(f"| {t} | {w} | {n} | {n_all - n} | {a['raw_per']:.0f} | {sum(syms.values()):.0f} "
                  f"| {a.get('softnet_processed', '-')} |")
    md.append("")
    for a, b in PAIRS:
        for w in ("rr", "udp", "tcp1"):
            if (a, w) not in per or (b, w) not in per:
                continue
            profile_diff_md(md, f"{a} - {b}, {w}", a, b, per[(a, w)], per[(b, w)], 25)
    return md, rows


def main():
    console, raw, outdir = sys.argv[1:4]
    outdir = os.path.abspath(outdir)
    os.makedirs(outdir, exist_ok=True)
    d = parse(console, raw)
    problems = []
    start = d["start"]
    if not start:
        problems.append("the guest printed no 'NKBENCH start' line (it did not run the bench)")
    rounds = int(start.get("rounds", 0) or 0)
    asked = [t for t in start.get("topos", "").split(",") if t]
    topos = [t for t in TOPOS if t in asked]
    workloads = [w for w in start.get("workloads", "").split(",") if w]
    summ = summarize(d, topos, rounds)
    icount = start.get("clock") == "icount"
    usumm = summarize(d, topos, rounds, list(UNITS) + ["udp_pps", "udprev_pps"]) if icount else {}
    rats = ratios(d, summ, rounds)
    srows = scale_rows(d)

    # Completeness: every topology that was asked for passes traffic and
    # has a result for every workload in every round.
    failed = {}
    for t, what in d["errors"]:
        failed.setdefault(t, []).append(what)
    for t in asked:
        if t in failed:
            continue
        if t not in TOPOS:
            failed.setdefault(t, []).append("unknown topology")
        elif t not in d["ready"]:
            failed.setdefault(t, []).append("never became ready")
    for t in topos:
        for m, (label, _, w, _) in METRICS.items():
            got = summ.get((t, m), {}).get("n", 0)
            if w in workloads and got < rounds and t not in failed:
                failed.setdefault(t, []).append(f"{label}: {got} of {rounds} rounds")
    scale_n = [int(n) for n in start.get("scale_n", "").split(",") if n]
    for n in scale_n:
        for kind in start.get("scale_kinds", "veth,netkit").split(","):
            if not any(r["n"] == n and r["kind"] == kind for r in srows):
                failed.setdefault(f"scale-{kind}", []).append(f"no result for N={n}")
    for t, whats in failed.items():
        problems.append(f"{t} failed: " + "; ".join(whats))
    if d["done"] is None:
        problems.append("the guest did not finish the bench (no 'NKBENCH done' line)")
    # The guest's exit status and kernel trouble are scripts/verdict.sh's
    # (mode bench), which judged the run before this report reads it.

    # CSV
    rows = []
    for (t, r), vals in sorted(d["rounds"].items(), key=lambda x: (TOPOS.index(x[0][0]), x[0][1])):
        for m, v in sorted(vals.items()):
            rows.append({"topology": t, "round": r, "metric": m, "value": v})
    write_csv(os.path.join(outdir, "bench-rounds.csv"), rows,
              ["topology", "round", "metric", "value"])
    srows_csv = [{"topology": t, "metric": m, "unit": METRICS[m][1], **s}
                 for (t, m), s in summ.items()]
    write_csv(os.path.join(outdir, "bench-summary.csv"), srows_csv,
              ["topology", "metric", "unit", "n", "median", "min", "max"])
    write_csv(os.path.join(outdir, "bench-ratios.csv"), rats,
              ["kind", "a", "b", "metric", "ratio", "rmed", "rmin", "rmax"])
    scale_fields = ["kind", "n", "create_ms", "load_ms", "attach_ms", "delete_ms",
                    "create_ms_per_pair", "attach_ms_per_pair",
                    "delete_ms_per_pair", "dev_slab_percpu_kb_per_pair",
                    "att_slab_percpu_kb_per_pair", "slab_percpu_kb_per_pair",
                    "slab_kb_per_pair", "percpu_kb_per_pair", "vmalloc_kb_per_pair",
                    "memfree_kb_per_pair", "left_slab_percpu_kb"]
    write_csv(os.path.join(outdir, "bench-scale.csv"), srows, scale_fields)

    # Markdown
    md = []
    md.append(f"# netkit datapath bench ({start.get('mode', '?')}"
              f"{', ' + start['label'] if start.get('label') else ''})\n")
    md.append(f"Kernel {start.get('kernel', '?')}, {start.get('cpus', '?')} vCPUs under QEMU, "
              f"BPF JIT {'on' if start.get('jit') == '1' else start.get('jit', '?')}; "
              f"{rounds} rounds, " + ("each topology alone (set up, measured, torn down); "
                                      if start.get("isolate") == "yes" else
                                      "topologies interleaved (order rotated every round); ") +
              f"iperf3 {start.get('duration', '?')} s (+{start.get('omit', '?')} s omitted), "
              f"sockperf ping-pong {start.get('rr_duration', '?')} s; 1-stream and "
              "request/response runs with client and server on vCPU 0, 4 streams on both; "
              f"guest clocksource {start.get('clocksource', '?')}; guest run "
              f"{d['done'].get('elapsed_s', '?') if d['done'] else '?'} s{host_load(outdir)}; "
              f"clock {start.get('clock', 'wall')}"
              f"{', -icount shift=' + start['icount_shift'] if icount else ''}; "
              f"UDP {start.get('udp_size', '?')} B for {start.get('udp_duration', '?')} s. " +
              ("Under -icount the guest clock counts instructions: the instruction table is the result; "
               "the rates below are per second of that clock." if start.get("clock") == "icount" else
               "Absolute numbers under TCG mean little: the ratios are the result.") + "\n")
    worst = None
    if icount:
        umd, urows, worst = units_md(d, usumm, topos, outdir, start.get("mode", "full"))
        md.extend(umd)
        write_csv(os.path.join(outdir, "bench-units.csv"), urows,
                  ["topology", "metric", "value", "min", "max", "rounds"])
        # An idle vCPU lets the clock jump to the next timer: time without
        # instructions. nkbench udp and iperf3 time exactly the interval
        # the counters span: CPU 0's idle ticks there must be 0. sockperf
        # sleeps before and after its valid duration (the same in every
        # topology): there the round trips must fill the valid duration.
        idle = {t: sum(v for (tt, _), vals in d["rounds"].items() if tt == t
                       for k, v in vals.items()
                       if k in ("tcp1_idle_ticks", "udp_idle_ticks", "udprev_idle_ticks") and v)
                for t in topos}
        rr_idle = sorted({int(vals["rr_idle_ticks"]) for (tt, _), vals in d["rounds"].items()
                          if vals.get("rr_idle_ticks") is not None})
        fills = [vals["rr_fill"] for vals in d["rounds"].values() if vals.get("rr_fill")]
        busy = [t for t, v in idle.items() if v]
        md.append("CPU 0's idle ticks (USER_HZ) during the stream and UDP measurements (under "
                  "-icount an idle vCPU lets the clock jump to the next timer, time without "
                  "instructions; must be 0): " +
                  ", ".join(f"{t} {int(v)}" for t, v in idle.items()) + ". "
                  f"Around the RR runs (sockperf's sleeps outside its valid duration): "
                  f"{', '.join(map(str, rr_idle)) or '-'} ticks; within its valid duration the "
                  "round trips (avg RTT x ReceivedMessages) fill "
                  + (f"{100 * min(fills):.2f}..{100 * max(fills):.2f} %" if fills else "-") +
                  " of the RunTime.\n")
        if busy:
            problems.append("CPU 0 idled during the measurements of " + ", ".join(busy) +
                            ": those counts are not instructions only")
        # A stream in loss recovery (retransmits, or segments the server
        # took out of order) measures TCP's recovery, not the path, and
        # not the same way twice (bench/README.md, "The streams' window").
        # (every run of a stream, not only the median one)
        lossy = [f"{tt} round {r}{f' run {k}' if len(runs) > 1 else ''} "
                 f"({int(vals.get(w + '_retransmits') or 0)} retransmits, "
                 f"{int(vals.get(w + '_ofo') or 0)} out of order)"
                 for (tt, r, w), runs in sorted(d["streams"].items()) for k, vals in sorted(runs.items())
                 if vals.get(w + "_retransmits") or vals.get(w + "_ofo")]
        # the runs of the streams over the NIC: the spread the median
        # takes out
        spread = [f"{tt} " + " ".join(f"{runs[k]['tcp1_instr']:.4f}" for k in sorted(runs)) +
                  f" ({100 * (max(v) - min(v)) / min(v):.2f} %)"
                  for (tt, r, w), runs in sorted(d["streams"].items(), key=lambda x: TOPOS.index(x[0][0]))
                  if w == "tcp1" and len(runs) > 1 and all("tcp1_instr" in v for v in runs.values())
                  for v in [[runs[k]["tcp1_instr"] for k in runs]]]
        if spread:
            md.append(f"Streams over the NIC, {start.get('nic_stream_runs', '?')} runs each, one after "
                      "the other (instructions per byte of each run; the tables take the median run; "
                      "in brackets the spread, max - min over min): " + ", ".join(spread) + ".\n")
        md.append("Streams in loss recovery (a retransmit, or a segment the server took out of "
                  f"order; window {start.get('tcp_window', '?')}; must be none): "
                  f"{', '.join(lossy) or 'none'}.\n")
        if lossy:
            problems.append("streams in loss recovery: " + ", ".join(lossy) +
                            ": their cost per byte is TCP's recovery, not the path's")
        if fills and min(fills) < 0.98:
            problems.append(f"the RR round trips fill only {100 * min(fills):.2f} % of sockperf's "
                            "valid duration: the clock jumped")
        pmd, prows = profile_md(d, usumm, fnum(start.get("profile_period")) or 0,
                                int(start.get("icount_shift", "0") or 0))
        md.extend(pmd)
        if prows:
            write_csv(os.path.join(outdir, "bench-profile.csv"), prows,
                      ["topology", "workload", "symbol", "samples", "instr_per_unit"])
    md.append("## Throughput and latency (median, min, max over the rounds)\n")
    hdr = "| topology | " + " | ".join(f"{METRICS[m][0]} ({METRICS[m][1]})" for m in METRICS) + " |"
    md.append(hdr)
    md.append("|---" * (len(METRICS) + 1) + "|")
    for t in topos:
        cells = []
        for m in METRICS:
            s = summ.get((t, m))
            cells.append("-" if not s else
                         f"{fmt(s['median'])} ({fmt(s['min'])}..{fmt(s['max'])})")
        md.append(f"| {t} | " + " | ".join(cells) + " |")
    md.append("")
    for kind, title in (("netkit/veth", "Ratios netkit/veth (ratio of the medians; in brackets "
                         "the ratios of the same round: median, min..max)"),
                        ("topology/lo", "Ratios topology/lo (ratio of the medians; in brackets "
                         "the ratios of the same round: median, min..max)")):
        md.append(f"## {title}\n")
        md.append("| ratio | " + " | ".join(
            f"{METRICS[m][0]} ({METRICS[m][3]} is better)" for m in METRICS) + " |")
        md.append("|---" * (len(METRICS) + 1) + "|")
        pairs = sorted({(r["a"], r["b"]) for r in rats if r["kind"] == kind},
                       key=lambda p: TOPOS.index(p[0]))
        for a, b in pairs:
            cells = []
            for m in METRICS:
                r = next((x for x in rats if (x["a"], x["b"], x["metric"]) == (a, b, m)), None)
                cells.append("-" if not r else
                             f"{r['ratio']:.3f} ({fmt(r['rmed'])}; {fmt(r['rmin'])}..{fmt(r['rmax'])})")
            md.append(f"| {a} / {b} | " + " | ".join(cells) + " |")
        md.append("")
    if srows:
        md.append("## Scale: cost per pair (one program, loaded once, attached to every pair; "
                  "veth: clsact qdisc + tc filter, netkit: bpf link)\n")
        md.append("| kind | N | create+up ms/pair | attach ms/pair | delete ms/pair "
                  "| slab+percpu kB/pair (devices + attachment) | slab kB/pair | percpu kB/pair "
                  "| MemFree delta kB/pair | program load ms (once) |")
        md.append("|---" * 10 + "|")
        for r in srows:
            md.append(f"| {r['kind']} | {r['n']} | {fmt(r['create_ms_per_pair'])} | "
                      f"{fmt(r['attach_ms_per_pair'])} | "
                      f"{fmt(r['delete_ms_per_pair'])} | {fmt(r['slab_percpu_kb_per_pair'])} "
                      f"({fmt(r['dev_slab_percpu_kb_per_pair'])} + {fmt(r['att_slab_percpu_kb_per_pair'])}) | "
                      f"{fmt(r['slab_kb_per_pair'])} | {fmt(r['percpu_kb_per_pair'])} | "
                      f"{fmt(r['memfree_kb_per_pair'])} | {fmt(r['load_ms'])} |")
        md.append("")
        md.append("| netkit/veth | N | create | attach | delete | slab+percpu | MemFree delta |")
        md.append("|---" * 7 + "|")
        for n in sorted({r["n"] for r in srows}):
            by = {r["kind"]: r for r in srows if r["n"] == n}
            if "veth" not in by or "netkit" not in by:
                continue
            cells = []
            for k in ("create_ms_per_pair", "attach_ms_per_pair",
                      "delete_ms_per_pair", "slab_percpu_kb_per_pair", "memfree_kb_per_pair"):
                ve, nk = by["veth"][k], by["netkit"][k]
                cells.append(f"{nk / ve:.3f}" if ve else "-")
            md.append(f"| ratio | {n} | " + " | ".join(cells) + " |")
        md.append("")
    expectations_md(md, expectations_icount(usumm) if icount else
                    expectations(summ, rats, srows) if summ else [])
    fwd = {t: sum(d["rounds"].get((t, r), {}).get(f"{w}_host_fwd", 0) or 0
                  for r in range(1, rounds + 1) for w in ("tcp1", "tcp4", "rr", "udp", "udprev"))
           for t in topos}
    md.append("Datagrams the host's IPv4 stack forwarded during the measurements "
              "(the BPF topologies must show 0): " +
              ", ".join(f"{t} {int(v)}" for t, v in fwd.items()) + ".\n")
    if d["profile"]:
        md.append("## Where the guest's CPUs spend the time (perf, cpu-clock, all CPUs; "
                  "one unmeasured run after the rounds)\n")
        md.append("Device datapath: the symbols that differ between the topologies (device "
                  "xmit, tc and cls_bpf, the BPF program, redirects, the backlog hop, "
                  "netif_receive, IP receive and forwarding), summed over perf's report "
                  "(symbols >= 0.1 %), as a share of the busy samples.\n")
        md.append("| topology | workload | netif_receive rounds | idle % | device datapath % of busy "
                  "| top symbols (% of the busy samples) |")
        md.append("|---|---|---|---|---|---|")
        for a in d["profile"]:
            top = ", ".join(f"{x.rsplit(':', 1)[0]} {x.rsplit(':', 1)[1]}"
                            for x in a.get("top", "").split(",") if ":" in x)
            pb = d["perf"].get((a.get("topo"), a.get("wl")))
            dp = (f"{100 * pb['datapath'] / (100 - pb['idle']):.1f}"
                  if pb and pb["idle"] < 100 else "-")
            md.append(f"| {a.get('topo')} | {a.get('wl')} | {a.get('softnet_processed', '-')} | "
                      f"{a.get('idle_pct', '-')} | {dp} | {top} |")
        md.append("")
    if problems:
        md.append("## Problems\n")
        md.extend(f"- {p}" for p in problems)
        md.append("")
    err = chart(outdir, summ, srows, topos)
    if err:
        problems.append(err)
    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    for p in problems:
        print(f"  - {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
