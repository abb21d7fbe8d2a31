#!/usr/bin/env python3
"""Runs a command and prints `WALL_S CPU_S PEAK_MIB`: wall time, CPU seconds of
the command and every process it started, and the peak of the summed resident
memory of its whole process tree (sampled every 20 ms from /proc), which is
what a machine running a parallel batch must actually hold.

With `--pss`, a fourth number: the peak of the tree's summed proportional set
size (PSS, /proc/PID/smaps_rollup), which counts a page shared by several
processes (the libraries every worker maps) once in all, where the RSS sum
counts it once per process. With `--per-process FILE`, each process's own
peak RSS and PSS go to FILE, one line each.
Usage: measure.py [--pss] [--per-process FILE] COMMAND [ARG...]"""
import os
import subprocess
import sys
import time


def field_kib(path, name):
    try:
        with open(path) as text:
            for line in text:
                if line.startswith(name):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree(root):
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
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        pending += children.get(pid, [])
        found.append(pid)
    return found


def command_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as text:
            words = text.read().split("\0")
        return " ".join([os.path.basename(words[0])] + words[1:2])
    except OSError:
        return "?"


def main():
    args = sys.argv[1:]
    pss, per_process = False, None
    while args and args[0].startswith("--"):
        if args[0] == "--pss":
            pss, args = True, args[1:]
        elif args[0] == "--per-process":
            per_process, args = args[1], args[2:]
        else:
            sys.exit(f"measure.py: unknown option {args[0]}")
    start = time.monotonic()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    peak, peak_pss, each = 0, 0, {}
    while child.poll() is None:
        rss_sum = pss_sum = 0
        for pid in tree(child.pid):
            rss = field_kib(f"/proc/{pid}/status", "VmRSS:")
            share = field_kib(f"/proc/{pid}/smaps_rollup", "Pss:") if pss or per_process else 0
            rss_sum, pss_sum = rss_sum + rss, pss_sum + share
            if per_process and rss:
                name, old = each.get(pid, ("?", 0, 0))[0], each.get(pid, ("?", 0, 0))
                if name == "?":
                    name = command_of(pid)
                each[pid] = (name, max(old[1], rss), max(old[2], share))
        peak, peak_pss = max(peak, rss_sum), max(peak_pss, pss_sum)
        time.sleep(0.02)
    wall = time.monotonic() - start
    usage = os.times()
    cpu = usage.children_user + usage.children_system
    print(f"{wall:.2f} {cpu:.2f} {peak / 1024:.0f}" + (f" {peak_pss / 1024:.0f}" if pss else ""))
    if per_process:
        with open(per_process, "w") as out:
            for pid, (command, rss, share) in sorted(each.items()):
                out.write(f"{pid} {command}: peak RSS {rss / 1024:.0f} MiB, peak PSS {share / 1024:.0f} MiB\n")
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
