#!/usr/bin/env python3
"""Runs a command and prints `WALL_S CPU_S PEAK_MIB`: wall time, CPU seconds of
the command and every process it started, and the peak of the summed resident
memory of its whole process tree (sampled every 20 ms from /proc), which is
what a machine running a parallel batch must actually hold.
Usage: measure.py COMMAND [ARG...]"""
import os
import subprocess
import sys
import time


def tree_rss_kib(root):
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(name))
        except OSError:
            continue
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        pending += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def main():
    start = time.monotonic()
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    peak = 0
    while child.poll() is None:
        peak = max(peak, tree_rss_kib(child.pid))
        time.sleep(0.02)
    wall = time.monotonic() - start
    usage = os.times()
    cpu = usage.children_user + usage.children_system
    print(f"{wall:.2f} {cpu:.2f} {peak / 1024:.0f}")
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
