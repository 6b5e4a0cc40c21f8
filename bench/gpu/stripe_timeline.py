#!/usr/bin/env python3
"""Summarise a long-pair stripe timeline (bench/gpu_long_pair_bench --timeline FILE).

usage: bench/gpu/stripe_timeline.py FILE

Per launch of each work: its stripes, how long it took (the last stripe's end), when the last stripe
started its work, the gap between consecutive stripes' starts (mean and median), how long a stripe
works (from its start to its end, median) and waits (from being taken to its start, median), and how
many stripes work and how many wait at a quarter, half and three quarters of the launch. A banded
pass lasts about its chain of stripe starts plus one stripe's work (docs/long_alignment.md, "Left").
"""
import statistics
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    launches = defaultdict(list)
    with open(sys.argv[1]) as timeline:
        for line in timeline:
            work, launch, _, taken, started, ended = line.rstrip("\n").split("\t")
            launches[(work, int(launch))].append((int(taken), int(started), int(ended)))
    print("work\tlaunch\tstripes\tms\tlast_start_ms\tstart_gap_us_mean\tstart_gap_us_median\t"
          "work_ms_median\twait_ms_median\tworking_25_50_75\twaiting_25_50_75")
    for (work, launch), stripes in launches.items():
        starts = [started for _, started, _ in stripes]
        end = max(ended for _, _, ended in stripes)
        gaps = [b - a for a, b in zip(starts, starts[1:])] or [0]
        counts = []
        for state in ("working", "waiting"):
            row = []
            for fraction in (0.25, 0.5, 0.75):
                t = fraction * end
                if state == "working":
                    row.append(sum(1 for _, s, e in stripes if s <= t < e))
                else:
                    row.append(sum(1 for k, s, _ in stripes if k <= t < s))
            counts.append("/".join(map(str, row)))
        print(f"{work}\t{launch}\t{len(stripes)}\t{end / 1e6:.1f}\t{max(starts) / 1e6:.1f}\t"
              f"{statistics.mean(gaps) / 1e3:.1f}\t{statistics.median(gaps) / 1e3:.1f}\t"
              f"{statistics.median(e - s for _, s, e in stripes) / 1e6:.2f}\t"
              f"{statistics.median(s - k for k, s, _ in stripes) / 1e6:.2f}\t{counts[0]}\t{counts[1]}")


if __name__ == "__main__":
    main()
