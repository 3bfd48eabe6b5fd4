#!/usr/bin/env python3
"""CPU time per top-level test of one Go test binary, children included.

Runs a test binary built with `go test -c` (extra arguments are passed to
it, -test.v is added) and samples /proc every 0.1 s: the CPU time (user +
sys) of the binary and of every process it started, grouped by kind
(`self` for the test binary, `chroma` for the Chroma server, `node` for
other node processes, else the executable's name). Each top-level test is
charged what was used between its `=== RUN`/`=== CONT` line and the next
such line or its `--- PASS/FAIL/SKIP` line, so parallel tests share their
overlap unevenly; processes that live less than 0.1 s (GNU grep runs) may
be missed. Linux only; Python stdlib only.

usage:
  go test -race -c -o /tmp/p.test . &&
  CI=true scripts/testcpu.py /tmp/p.test -test.count=1 [-test.run RE]

It prints the total, then one line per test, costliest first.
"""
import collections
import os
import re
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def kind_of(pid):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return None
    if not argv or not argv[0]:
        return None
    head = b" ".join(argv[:3]).decode(errors="replace")
    if "node" in head:
        return "chroma" if "chroma" in head else "node"
    return os.path.basename(argv[0].decode(errors="replace"))


class Sampler:
    def __init__(self, root):
        self.root = root
        self.cpu = {}  # pid -> [kind, ticks]
        self.lock = threading.Lock()

    def scan(self):
        kids = collections.defaultdict(list)
        ticks = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                s = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            f = s[s.rindex(")") + 2:].split()
            kids[int(f[1])].append(int(d))
            ticks[int(d)] = int(f[11]) + int(f[12])
        with self.lock:
            if self.root in ticks:
                self.cpu[self.root] = ["self", ticks[self.root]]
            stack = [self.root]
            while stack:
                for c in kids.get(stack.pop(), []):
                    stack.append(c)
                    e = self.cpu.setdefault(c, [None, 0])
                    e[0] = e[0] or kind_of(c)
                    e[1] = max(e[1], ticks.get(c, 0))

    def totals(self):
        t = collections.Counter()
        with self.lock:
            for k, v in self.cpu.values():
                t[k or "?"] += v
        return t


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    p = subprocess.Popen(sys.argv[1:] + ["-test.v"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, bufsize=1)
    s = Sampler(p.pid)
    done = threading.Event()

    def poll():
        while not done.is_set():
            s.scan()
            time.sleep(0.1)

    th = threading.Thread(target=poll)
    th.start()
    per = collections.defaultdict(collections.Counter)
    last = collections.Counter()
    cur = "(start)"

    def charge(name):
        nonlocal last
        s.scan()
        t = s.totals()
        d = t.copy()
        d.subtract(last)
        last = t
        per[name].update(d)

    line_re = re.compile(r"^(?:=== (?:RUN|CONT|PAUSE)|--- (?:PASS|FAIL|SKIP):)\s+(\S+)")
    for line in p.stdout:
        m = line_re.match(line)
        if m:
            charge(cur)
            cur = m.group(1).split("/")[0]
        elif line.startswith(("FAIL", "panic:")):
            sys.stdout.write(line)
    p.wait()
    done.set()
    th.join()
    charge(cur)
    total = collections.Counter()
    for c in per.values():
        total.update(c)

    def fmt(c):
        return " ".join(f"{k}={v / TICK:.2f}" for k, v in c.most_common() if v)

    print(f"total {sum(total.values()) / TICK:.1f} CPU s: {fmt(total)} (exit {p.returncode})")
    for name, c in sorted(per.items(), key=lambda x: -sum(x[1].values())):
        print(f"{sum(c.values()) / TICK:7.2f}  {name:45s} {fmt(c)}")
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
