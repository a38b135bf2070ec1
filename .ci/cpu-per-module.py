#!/usr/bin/env python3
"""CPU seconds per Maven module of a build, for the table in README.md ("Building and testing").

    python3 .ci/cpu-per-module.py sample SAMPLES &   # while the build runs; kill it afterwards
    python3 .ci/cpu-per-module.py report SAMPLES ROOT

`sample` reads every process's CPU time (user + system) and working directory from /proc every
two seconds and keeps the largest value seen per process in SAMPLES. `report` adds them up per
working directory below ROOT (the clone the build runs in): surefire runs a module's tests in the
module's folder, and the processes the tests start (Spark, Flink, Kafka, PostgreSQL) inherit it;
Maven's own JVM runs in ROOT. Processes shorter than two seconds are missed. Linux only.
"""
import os
import sys
import time
from collections import Counter


def sample(out):
    best = {}
    tick = os.sysconf("SC_CLK_TCK")
    while True:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    stat = f.read()
                cwd = os.readlink("/proc/%s/cwd" % pid)
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            seconds = (int(fields[11]) + int(fields[12])) / tick
            key = (pid, fields[19], cwd)  # the start time tells a reused pid apart
            if best.get(key, -1) < seconds:
                best[key] = seconds
        with open(out + ".tmp", "w") as f:
            for (pid, start, cwd), seconds in best.items():
                f.write("%.2f\t%s\t%s\t%s\n" % (seconds, pid, start, cwd))
        os.replace(out + ".tmp", out)
        time.sleep(2)


def report(samples, root):
    root = os.path.realpath(root)
    per_module = Counter()
    with open(samples) as f:
        for line in f:
            seconds, _, _, cwd = line.rstrip("\n").split("\t", 3)
            if cwd == root or cwd.startswith(root + "/"):
                per_module[os.path.relpath(cwd, root)] += float(seconds)
    for module, seconds in per_module.most_common():
        print("%8.1f  %s" % (seconds, "(Maven itself)" if module == "." else module))
    print("%8.1f  in all" % sum(per_module.values()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
