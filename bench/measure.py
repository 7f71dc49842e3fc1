#!/usr/bin/env python3
"""measure.py REPEAT ENTRIES LIST_MIB NAME CMD [NAME CMD]... - runs each
command REPEAT times, keeps the best wall time and the peak RSS, checks the
exit status is 0 (a benchmark of a failing run measures nothing), and prints
one row per command plus the ratio of the first command's rate to the
others'."""
import os
import shlex
import subprocess
import sys
import time


def run(cmd):
    start = time.perf_counter()
    p = subprocess.Popen(shlex.split(cmd), stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench: '{cmd}' exited {code}: {err[-500:]}")
    return wall, usage.ru_maxrss / 1024.0


def main():
    repeat, entries, size = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    pairs = list(zip(sys.argv[4::2], sys.argv[5::2]))
    rows = []
    for name, cmd in pairs:
        best, rss = None, 0.0
        for _ in range(repeat):
            wall, r = run(cmd)
            best = wall if best is None else min(best, wall)
            rss = max(rss, r)
        rows.append((name, best, rss))
    base = rows[0][1]
    for name, wall, rss in rows:
        rate = entries / wall if wall > 0 else 0
        ratio = wall / base if base > 0 else 0
        print(f"{entries:<9} {name:<8} {wall:12.3f} {rate:12.0f} "
              f"{rss:10.1f} {size:>10} {ratio:7.2f}x")


if __name__ == "__main__":
    main()
