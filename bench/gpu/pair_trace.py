#!/usr/bin/env python3
"""Summary of a GPU pair-aligner timeline (gpu_pair_bench --trace FILE).

Usage: pair_trace.py TRACE.tsv [TRACE2.tsv ...]

Per trace: when the device first and last worked, how long forward kernels ran (any of them), the time
before the first forward kernel and after the last, how many pair kernels ran at once (time-weighted),
per sub-batch the upload, forward and reverse windows, and per phase the summed launch time. Times in
ms after the event the call records first (device) or the call's start (host).
"""
import csv
import sys
from collections import defaultdict


def union_length(intervals):
    total, end = 0.0, None
    start = None
    for b, e in sorted(intervals):
        if end is None or b > end:
            if end is not None:
                total += end - start
            start, end = b, e
        else:
            end = max(end, e)
    if end is not None:
        total += end - start
    return total


def concurrency(intervals, until):
    """Time-weighted share of [0, until] with k intervals active, k = 0, 1, 2, ..."""
    points = []
    for b, e in intervals:
        points.append((b, 1))
        points.append((e, -1))
    points.sort()
    shares = defaultdict(float)
    active, last = 0, 0.0
    for t, d in points:
        shares[active] += t - last
        active += d
        last = t
    shares[active] += max(0.0, until - last)
    return {k: v / until for k, v in sorted(shares.items()) if until > 0}


def summarise(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    for r in rows:
        r["begin"] = float(r["begin_ms"])
        r["end"] = float(r["end_ms"])
    device = [r for r in rows if r["stream"] != "-2"]
    host = [r for r in rows if r["stream"] == "-2"]
    kernels = [r for r in device if r["what"] in ("forward", "reverse")]
    forward = [r for r in device if r["what"] == "forward"]
    reverse = [r for r in device if r["what"] == "reverse"]
    end = max(r["end"] for r in device)
    print(f"== {path}")
    for r in host:
        if r["what"] in ("lengths", "offsets", "sort", "check", "layout", "plan") or r["sub_batch"] in ("0", "1"):
            threads = f" ({r['jobs']} threads)" if r["jobs"] not in ("", "0") else ""
            print(f"  host {r['what']:8s} sub-batch {r['sub_batch']}: {r['begin']:.3f} .. {r['end']:.3f}{threads}")
    last_host = max(r["end"] for r in host) if host else 0
    print(f"  host done at {last_host:.3f} ms")
    first_forward = min(r["begin"] for r in forward)
    last_forward = max(r["end"] for r in forward)
    print(f"  device: first upload {min(r['begin'] for r in device if r['what'] == 'upload'):.3f}, "
          f"first forward {first_forward:.3f}, last forward ends {last_forward:.3f}, last work ends {end:.3f} ms")
    print(f"  any forward kernel running: {union_length([(r['begin'], r['end']) for r in forward]):.3f} ms; "
          f"any reverse: {union_length([(r['begin'], r['end']) for r in reverse]):.3f}; "
          f"any pair kernel: {union_length([(r['begin'], r['end']) for r in kernels]):.3f}")
    print(f"  tail after the last forward: {end - last_forward:.3f} ms")
    shares = concurrency([(r["begin"], r["end"]) for r in kernels], end)
    print("  pair kernels at once (share of the device's time): " +
          ", ".join(f"{k}: {v:.0%}" for k, v in shares.items()))
    parts = sorted({int(r["sub_batch"]) for r in device})
    for p in parts:
        mine = [r for r in device if int(r["sub_batch"]) == p]
        up = [r for r in mine if r["what"] == "upload"]
        fw = [r for r in mine if r["what"] == "forward"]
        rv = [r for r in mine if r["what"] in ("build", "reverse", "apply", "download")]
        line = f"  sub-batch {p}:"
        if up:
            line += f" upload {up[0]['begin']:.3f}..{up[0]['end']:.3f}"
        if fw:
            line += (f" forward {min(r['begin'] for r in fw):.3f}..{max(r['end'] for r in fw):.3f}"
                     f" ({len(fw)} launches, {sum(int(r['jobs']) for r in fw)} jobs)")
        if rv:
            line += f" reverse {min(r['begin'] for r in rv):.3f}..{max(r['end'] for r in rv):.3f}"
        print(line)
    by_shape = defaultdict(float)
    for r in kernels:
        by_shape[(r["what"], int(r["shape"]))] += r["end"] - r["begin"]
    print("  launch time summed (ms, overlapping): " +
          ", ".join(f"{w} {s}: {t:.2f}" for (w, s), t in sorted(by_shape.items())))


for path in sys.argv[1:]:
    summarise(path)
