#!/usr/bin/env python3
"""Allocation per span from a service's -Xlog:gc*=info log (ParallelGC: eden used before each
collection, summed), two ways:

  whole life: every collection since start, divided by the spans the server accepted, and
              received (accepted + refused), since start (its spanprof_received_spans_total and
              spanprof_refused_spans_total);
  steady:     the allocation rate over the 60 s before the log's last 5 s (the load generator's
              measured run, when it ends just before the service is stopped), divided by the
              run's accepted and received spans per second (the generator's own figures).

usage: gc-allocation.py GC_LOG ACCEPTED_SINCE_START REFUSED_SINCE_START ACCEPTED_PER_S REFUSED_IN_RUN RUN_SECONDS
"""
import re
import sys

log = sys.argv[1]
accepted_total, refused_total = int(sys.argv[2]), int(sys.argv[3])
accepted_per_s = float(sys.argv[4])
received_per_s = accepted_per_s + int(sys.argv[5]) / float(sys.argv[6])

collections = []  # (uptime s, eden bytes used before the collection)
pauses = []  # (uptime s, young or full, ms)
seen = set()
last = 0.0
for line in open(log):
    uptime = re.match(r'\[(\d+\.\d+)s\]', line)
    if not uptime:
        continue
    last = float(uptime.group(1))
    eden = re.search(r'GC\((\d+)\).*Eden: (\d+)K\(', line)
    if eden and eden.group(1) not in seen:
        seen.add(eden.group(1))
        collections.append((last, int(eden.group(2)) * 1024))
    pause = re.search(r'GC\(\d+\) Pause (Young|Full).* (\d+\.\d+)ms$', line)
    if pause:
        pauses.append((last, pause.group(1), float(pause.group(2))))


def summary(selected_pauses):
    full = sum(1 for _, kind, _ in selected_pauses if kind == 'Full')
    return '%d full collections, pauses %.1f s' % (full, sum(ms for _, _, ms in selected_pauses) / 1000)


total = sum(eden for _, eden in collections)
print('whole life: %.2f GB, %.0f B per accepted span, %.0f B per received span, %s'
      % (total / 1e9, total / accepted_total, total / (accepted_total + refused_total),
         summary(pauses)))
low, high = last - 65, last - 5
window = [c for c in collections if low <= c[0] <= high]
# The first collection's eden was filled before the window: the rate is over the ones after it.
rate = sum(eden for _, eden in window[1:]) / (window[-1][0] - window[0][0])
print('steady, %.0f-%.0f s: %.0f MB/s, %.0f B per accepted span, %.0f B per received span, %s'
      % (low, high, rate / 1e6, rate / accepted_per_s, rate / received_per_s,
         summary([p for p in pauses if low <= p[0] <= high])))
