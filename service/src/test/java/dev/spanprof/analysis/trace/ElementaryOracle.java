package dev.spanprof.analysis.trace;

import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.StateClass;
import dev.spanprof.span.StateDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * semantics.md §2–3 computed the slow, obvious way, as the reference for {@link TraceAnalyzer}:
 * cut time at every span boundary and, in each elementary segment, look at every span. Quadratic
 * and then some — fine for the dozen spans a property test generates.
 */
final class ElementaryOracle {

  final Map<String, Long> busy = new TreeMap<>();
  final Map<String, Long> stateResource = new TreeMap<>();
  final Map<String, Long> stateInclusive = new TreeMap<>();
  final Map<String, Long> stateExclusive = new TreeMap<>();
  final Map<String, Long> operationTime = new TreeMap<>();
  /** Resource time by the chosen span's service, pool and state, keyed "service|pool|state". */
  final Map<String, Long> servicePoolStateTime = new TreeMap<>();
  long spanTime;
  long ttx;
  long ttc;
  long resourceTime;
  final long[] selfTime;
  final long[] critical;
  /** Per allocation span index: attribution and utilization, as the analyzer names them. */
  final Map<Integer, Map<String, Double>> attribution = new HashMap<>();
  final Map<Integer, Map<String, Double>> utilization = new HashMap<>();
  int primaryRoot = -1;

  private final List<SpanRecord> spans;
  private final SpanMapping mapping;
  private final int n;
  private final long[] start;
  private final long[] end;
  private final boolean[] allocation;
  private final int[] parent;

  ElementaryOracle(List<SpanRecord> spans, SpanMapping mapping) {
    this.spans = spans;
    this.mapping = mapping;
    this.n = spans.size();
    start = new long[n];
    end = new long[n];
    allocation = new boolean[n];
    parent = new int[n];
    selfTime = new long[n];
    critical = new long[n];
    for (int i = 0; i < n; i++) {
      start[i] = spans.get(i).startNanos();
      end[i] = Math.max(start[i], spans.get(i).endNanos());
      double capacity = mapping.capacity(spans.get(i));
      allocation[i] = capacity > 0 && !Double.isInfinite(capacity);
    }
    buildTree();
    timeline();
    selfTimes();
    criticalPath();
    pools();
  }

  private boolean first(int i) {
    for (int j = 0; j < i; j++) {
      if (spans.get(j).spanId() == spans.get(i).spanId()) {
        return false;
      }
    }
    return true;
  }

  private void buildTree() {
    for (int i = 0; i < n; i++) {
      parent[i] = -1;
      if (!first(i) || spans.get(i).parentSpanId() == 0) {
        continue;
      }
      for (int j = 0; j < n; j++) {
        if (j != i && first(j) && spans.get(j).spanId() == spans.get(i).parentSpanId()) {
          parent[i] = j;
        }
      }
    }
    boolean[] onCycle = new boolean[n];
    for (int i = 0; i < n; i++) {
      int at = parent[i];
      for (int step = 0; step < n && at >= 0; step++) {
        if (at == i) {
          onCycle[i] = true;
          break;
        }
        at = parent[at];
      }
    }
    for (int i = 0; i < n; i++) {
      if (onCycle[i]) {
        parent[i] = -1;
      }
    }
  }

  private boolean isAncestor(int ancestor, int of) {
    for (int at = parent[of]; at >= 0; at = parent[at]) {
      if (at == ancestor) {
        return true;
      }
    }
    return false;
  }

  private String resource(int i) {
    return mapping.resourceId(spans.get(i));
  }

  private StateDefinition state(int i) {
    return mapping.states().get(mapping.state(spans.get(i)));
  }

  /** The chosen span of resource r over [t, ...): -1 when the resource is idle. */
  int chosen(String r, long t) {
    List<Integer> active = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!allocation[i] && resource(i).equals(r) && start[i] <= t && t < end[i]) {
        active.add(i);
      }
    }
    int best = -1;
    for (int candidate : active) {
      boolean leaf = true;
      for (int other : active) {
        if (other != candidate && isAncestor(candidate, other)) {
          leaf = false;
        }
      }
      if (leaf && (best < 0 || better(candidate, best))) {
        best = candidate;
      }
    }
    return best;
  }

  private boolean better(int a, int b) {
    StateDefinition sa = state(a);
    StateDefinition sb = state(b);
    if (sa.priority() != sb.priority()) {
      return sa.priority() > sb.priority();
    }
    if (!sa.name().equals(sb.name())) {
      return sa.name().compareTo(sb.name()) < 0;
    }
    if (start[a] != start[b]) {
      return start[a] > start[b];
    }
    return Long.compareUnsigned(spans.get(a).spanId(), spans.get(b).spanId()) < 0;
  }

  private List<Long> boundaries() {
    TreeSet<Long> times = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      times.add(start[i]);
      times.add(end[i]);
    }
    return new ArrayList<>(times);
  }

  private void timeline() {
    long minStart = Long.MAX_VALUE;
    long maxEnd = Long.MIN_VALUE;
    TreeSet<String> resources = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      if (!allocation[i]) {
        spanTime += end[i] - start[i];
        minStart = Math.min(minStart, start[i]);
        maxEnd = Math.max(maxEnd, end[i]);
        resources.add(resource(i));
      }
    }
    ttc = minStart == Long.MAX_VALUE ? 0 : maxEnd - minStart;
    List<Long> times = boundaries();
    for (int k = 0; k + 1 < times.size(); k++) {
      long t = times.get(k);
      long length = times.get(k + 1) - t;
      TreeSet<String> present = new TreeSet<>();
      StateDefinition dominant = null;
      for (String r : resources) {
        int c = chosen(r, t);
        if (c < 0) {
          continue;
        }
        StateDefinition s = state(c);
        busy.merge(r, length, Long::sum);
        resourceTime += length;
        stateResource.merge(s.name(), length, Long::sum);
        operationTime.merge(spans.get(c).serviceName() + "/" + spans.get(c).name(), length, Long::sum);
        servicePoolStateTime.merge(spans.get(c).serviceName() + "|"
            + mapping.poolId(spans.get(c)) + "|" + s.name(), length, Long::sum);
        present.add(s.name());
        if (dominant == null || s.priority() > dominant.priority()
            || (s.priority() == dominant.priority() && s.name().compareTo(dominant.name()) < 0)) {
          dominant = s;
        }
      }
      if (dominant != null) {
        ttx += length;
        stateExclusive.merge(dominant.name(), length, Long::sum);
        for (String s : present) {
          stateInclusive.merge(s, length, Long::sum);
        }
      }
    }
  }

  private void selfTimes() {
    List<Long> times = boundaries();
    for (int i = 0; i < n; i++) {
      long covered = 0;
      for (int k = 0; k + 1 < times.size(); k++) {
        long t = times.get(k);
        if (t < start[i] || t >= end[i]) {
          continue;
        }
        for (int c = 0; c < n; c++) {
          if (parent[c] == i && start[c] <= t && t < end[c]) {
            covered += times.get(k + 1) - t;
            break;
          }
        }
      }
      selfTime[i] = end[i] - start[i] - covered;
    }
  }

  private void criticalPath() {
    List<Integer> roots = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (first(i) && parent[i] < 0) {
        roots.add(i);
      }
    }
    roots.sort((a, b) -> start[a] != start[b] ? Long.compare(start[a], start[b])
        : end[a] - start[a] != end[b] - start[b] ? Long.compare(end[b] - start[b], end[a] - start[a])
        : Long.compareUnsigned(spans.get(a).spanId(), spans.get(b).spanId()));
    for (int root : roots) {
      walk(root, start[root], end[root]);
    }
    primaryRoot = roots.isEmpty() ? -1 : roots.get(0);
  }

  /** semantics.md §2 Walk, recursively, as written. */
  private void walk(int s, long lo, long hi) {
    List<long[]> children = new ArrayList<>(); // {clipped start, clipped end, index}
    for (int c = 0; c < n; c++) {
      if (parent[c] != s) {
        continue;
      }
      if (spans.get(s).kind() == SpanKind.PRODUCER && spans.get(c).kind() == SpanKind.CONSUMER) {
        continue;
      }
      long from = Math.max(start[c], lo);
      long to = Math.min(end[c], hi);
      if (to > from) {
        children.add(new long[] {from, to, c});
      }
    }
    children.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1])
        : a[0] != b[0] ? Long.compare(a[0], b[0])
        : Long.compareUnsigned(spans.get((int) a[2]).spanId(), spans.get((int) b[2]).spanId()));
    long cursor = hi;
    for (long[] child : children) {
      if (child[1] > cursor) {
        continue;
      }
      critical[s] += cursor - child[1];
      walk((int) child[2], child[0], child[1]);
      cursor = child[0];
    }
    critical[s] += cursor - lo;
  }

  private void pools() {
    List<Long> times = boundaries();
    for (int a = 0; a < n; a++) {
      if (!allocation[a]) {
        continue;
      }
      String pool = mapping.poolId(spans.get(a));
      double r = mapping.capacity(spans.get(a));
      TreeSet<String> resources = new TreeSet<>();
      for (int i = 0; i < n; i++) {
        if (!allocation[i]) {
          resources.add(resource(i));
        }
      }
      Map<String, Double> attributed = new TreeMap<>();
      Map<String, Double> occupied = new TreeMap<>();
      attributed.put("cpu", 0.0);
      attributed.put("idle", 0.0);
      for (int k = 0; k + 1 < times.size(); k++) {
        long t = times.get(k);
        if (t < start[a] || t >= end[a]) {
          continue;
        }
        double dt = times.get(k + 1) - t;
        double running = 0;
        Map<String, Double> waiting = new TreeMap<>();
        for (String res : resources) {
          int c = chosen(res, t);
          if (c < 0 || !mapping.poolId(spans.get(c)).equals(pool)) {
            continue;
          }
          StateDefinition s = state(c);
          double cores = mapping.cores(spans.get(c));
          if (s.stateClass() == StateClass.IDLE) {
            continue;
          }
          occupied.merge(mapping.category(spans.get(c), s), cores * dt, Double::sum);
          if (s.stateClass() == StateClass.CPU) {
            running += cores;
          } else {
            waiting.merge(s.name(), cores, Double::sum);
          }
        }
        double used = Math.min(running, r);
        attributed.merge("cpu", used * dt, Double::sum);
        double unused = r - used;
        double w = waiting.values().stream().mapToDouble(Double::doubleValue).sum();
        for (Map.Entry<String, Double> k2 : waiting.entrySet()) {
          attributed.merge(k2.getKey(), w <= unused ? k2.getValue() * dt : k2.getValue() * unused / w * dt,
              Double::sum);
        }
        if (w <= unused) {
          attributed.merge("idle", (unused - w) * dt, Double::sum);
        }
      }
      double available = r * (end[a] - start[a]);
      Map<String, Double> shares = new TreeMap<>();
      double sum = 0;
      for (Map.Entry<String, Double> category : occupied.entrySet()) {
        double share = available == 0 ? 0 : category.getValue() / available;
        shares.put(category.getKey(), share);
        sum += share;
      }
      shares.put("idle", Math.max(0, 1 - sum));
      attribution.put(a, attributed);
      utilization.put(a, shares);
    }
  }
}
