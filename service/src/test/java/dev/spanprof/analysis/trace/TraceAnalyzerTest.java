package dev.spanprof.analysis.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.spanprof.analysis.pool.ChosenSegment;
import dev.spanprof.analysis.trace.TraceProfile.OperationTime;
import dev.spanprof.analysis.trace.TraceProfile.ResourceBusy;
import dev.spanprof.analysis.trace.TraceProfile.ServicePoolStateTime;
import dev.spanprof.analysis.trace.TraceProfile.StateTime;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tricky rules of semantics.md §2–3, each drawn as a timeline (1 column = 1 ns). */
class TraceAnalyzerTest {

  /**
   * Nesting on one thread is counted once, concurrency on two threads twice.
   * <pre>
   *   t1  |==========A==========|      A [0,10)
   *   t1      |====B====|              B [2,6), child of A
   *   t2          |=========C========| C [4,12), child of A
   *       0   2   4     6       10   12
   * </pre>
   */
  @Test
  void analyze_nestedAndConcurrent_resourceTimeBetweenUnionAndSum() {
    TraceBuilder trace = new TraceBuilder()
        .span("A", null, "1", 0, 10)
        .span("B", "A", "1", 2, 6)
        .span("C", "A", "2", 4, 12);

    TraceProfile profile = trace.analyze();

    assertThat(profile.spanTimeNs()).isEqualTo(22);
    assertThat(profile.ttxNs()).isEqualTo(12);
    assertThat(profile.ttcNs()).isEqualTo(12);
    assertThat(profile.resourceTimeNs()).isEqualTo(18);
    assertThat(profile.parallelism()).isEqualTo(1.5);
    assertThat(profile.resources()).containsExactlyInAnyOrder(
        new ResourceBusy("svc/i1/1", 10), new ResourceBusy("svc/i1/2", 8));
    assertThat(profile.operations()).containsExactlyInAnyOrder(
        new OperationTime("svc", "A", 6), new OperationTime("svc", "B", 4),
        new OperationTime("svc", "C", 8));
  }

  /**
   * Overlapping siblings on one thread are resolved by priority, then state name.
   * <pre>
   *   t1  |=====run (running, 100)=====|          [0,10)
   *   t1        |===db (wait.db, 50)=========|    [3,13)
   *   t1            |==net (wait.net, 50)==|      [5,12)
   *       0     3   5                 10 12 13
   * </pre>
   * [0,10): running wins on priority. [10,12): wait.db and wait.net tie at 50; "wait.db" sorts
   * first. [12,13): only db.
   */
  @Test
  void analyze_overlappingSiblings_priorityThenStateName() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "0", 0, 13)
        .span("run", "root", "1", 0, 10)
        .span("db", "root", "1", 3, 13, "db.system", "postgresql")
        .add("net", "root", "1", 5, 12, SpanKind.CLIENT);

    TraceProfile profile = trace.analyze();

    // Thread 0 runs root throughout, so running is also the dominant state everywhere.
    assertThat(profile.states()).containsExactlyInAnyOrder(
        new StateTime("running", 13 + 10, 13, 13), new StateTime("wait.db", 3, 3, 0));
    // In order of first appearance, not by name: the view sorts them.
    assertThat(profile.operations()).containsExactly(
        new OperationTime("svc", "root", 13), new OperationTime("svc", "run", 10),
        new OperationTime("svc", "db", 3));
    // Summed over the spans chosen in each (service, pool, state): root's 13 and run's 10.
    assertThat(profile.resourceTimeByServicePoolState()).containsExactly(
        new ServicePoolStateTime("svc", "svc/i1", "running", 13 + 10),
        new ServicePoolStateTime("svc", "svc/i1", "wait.db", 3));
  }

  /**
   * Same state on both siblings: the latest start wins, then the lower span id.
   * <pre>
   *   t1  |=====early=====|       [0,8)
   *   t1      |===late=======|    [2,10)
   *   t1      |===twin=======|    [2,10), id after late's
   * </pre>
   */
  @Test
  void analyze_sameStateSiblings_latestStartThenSpanId() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "0", 0, 10)
        .span("early", "root", "1", 0, 8)
        .span("late", "root", "1", 2, 10)
        .span("twin", "root", "1", 2, 10);

    TraceProfile profile = trace.analyze();

    assertThat(profile.operations()).containsExactlyInAnyOrder(
        new OperationTime("svc", "early", 2), new OperationTime("svc", "late", 8),
        new OperationTime("svc", "root", 10));
  }

  /**
   * A child that outlives its parent: on the thread it is chosen while active (it is the leaf);
   * for the critical path it is clipped to its parent.
   * <pre>
   *   t1  |====parent====|              [0,8)
   *   t1          |=====child=====|     [4,12)
   *       0       4      8        12
   * </pre>
   */
  @Test
  void analyze_childOutlivesParent_leafOnThreadClippedOnCriticalPath() {
    TraceBuilder trace = new TraceBuilder()
        .span("parent", null, "1", 0, 8)
        .span("child", "parent", "1", 4, 12);

    TraceProfile profile = trace.analyze();

    assertThat(profile.operations()).containsExactlyInAnyOrder(
        new OperationTime("svc", "child", 8), new OperationTime("svc", "parent", 4));
    assertThat(trace.result(profile, "parent").selfTimeNs()).isEqualTo(4);
    assertThat(trace.result(profile, "parent").criticalPathNs()).isEqualTo(4);
    assertThat(trace.result(profile, "child").criticalPathNs()).isEqualTo(4);
    assertThat(profile.criticalPathNs()).isEqualTo(8);
  }

  /**
   * Back-to-back children all stay on the critical path: a child ending exactly at the cursor is
   * eligible ({@code ≤}, not jaeger-ui's {@code <}).
   * <pre>
   *   root |==========root==========|   [0,10)
   *   a    |===a===|                    [0,4)
   *   b            |====b====|          [4,8)
   *   c                      |==c==|    [8,10)
   * </pre>
   */
  @Test
  void analyze_backToBackChildren_allOnCriticalPath() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "1", 0, 10)
        .span("a", "root", "2", 0, 4)
        .span("b", "root", "3", 4, 8)
        .span("c", "root", "4", 8, 10);

    TraceProfile profile = trace.analyze();

    assertThat(List.of("root", "a", "b", "c"))
        .extracting(name -> trace.result(profile, name).criticalPathNs())
        .containsExactly(0L, 4L, 4L, 2L);
    assertThat(trace.result(profile, "a").onCriticalPath()).isTrue();
  }

  /**
   * Children ending together: the longer is walked first, then the lower span id, compared
   * unsigned; each blocks the cursor, so the other is skipped. Listed in the opposite order.
   * <pre>
   *   root  |=========root=========|   [0,10)
   *   short           |==short==|      [5,8)
   *   long        |=====long====|      [2,8)
   *   x           |==x==|              [2,6) child of long, id 0x8000000000000001
   *   y           |==y==|              [2,6) child of long, id 7
   * </pre>
   */
  @Test
  void analyze_childrenEndingTogether_longerFirstThenLowerUnsignedSpanId() {
    TraceBuilder trace = new TraceBuilder()
        .id("x", 0x8000_0000_0000_0001L)
        .id("y", 7)
        .span("root", null, "1", 0, 10)
        .span("short", "root", "2", 5, 8)
        .span("long", "root", "3", 2, 8)
        .span("x", "long", "4", 2, 6)
        .span("y", "long", "5", 2, 6);

    TraceProfile profile = trace.analyze();

    assertThat(List.of("root", "short", "long", "x", "y"))
        .extracting(name -> trace.result(profile, name).criticalPathNs())
        .containsExactly(4L, 0L, 2L, 0L, 4L);
    assertThat(trace.result(profile, "short").onCriticalPath()).isFalse();
    assertThat(trace.result(profile, "x").onCriticalPath()).isFalse();
    assertThat(trace.result(profile, "y").onCriticalPath()).isTrue();
    assertThat(profile.criticalPathNs()).isEqualTo(10);
  }

  /**
   * Of overlapping children only those that end before the cursor block; a child entirely
   * outside its parent is dropped with its subtree.
   * <pre>
   *   root |=========root=========|          [0,10)
   *   slow |=======slow=======|              [0,8)
   *   fast     |=fast=|                      [2,5)   overlaps slow: skipped
   *   late                          |=late=| [12,15) outside root: dropped
   *   sub                             |sub|  [13,14) child of late
   * </pre>
   */
  @Test
  void analyze_overlappingAndOutsideChildren_skippedAndDropped() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "1", 0, 10)
        .span("slow", "root", "2", 0, 8)
        .span("fast", "root", "3", 2, 5)
        .span("late", "root", "4", 12, 15)
        .span("sub", "late", "4", 13, 14);

    TraceProfile profile = trace.analyze();

    assertThat(trace.result(profile, "root").criticalPathNs()).isEqualTo(2);
    assertThat(trace.result(profile, "slow").criticalPathNs()).isEqualTo(8);
    assertThat(trace.result(profile, "fast").onCriticalPath()).isFalse();
    assertThat(trace.result(profile, "late").onCriticalPath()).isFalse();
    assertThat(trace.result(profile, "sub").criticalPathNs()).isZero();
    // Self time clips children to the parent too: slow and fast cover [0,8) of root.
    assertThat(trace.result(profile, "root").selfTimeNs()).isEqualTo(2);
  }

  /**
   * A CONSUMER under a PRODUCER runs after the hand-off and does not block it.
   * <pre>
   *   send    |send|              PRODUCER [0,2)
   *   receive      |==receive==|  CONSUMER [1,6), child of send
   * </pre>
   */
  @Test
  void analyze_consumerOfProducer_getsNoCriticalTime() {
    TraceBuilder trace = new TraceBuilder()
        .add("send", null, "1", 0, 2, SpanKind.PRODUCER)
        .add("receive", "send", "2", 1, 6, SpanKind.CONSUMER);

    TraceProfile profile = trace.analyze();

    assertThat(trace.result(profile, "send").criticalPathNs()).isEqualTo(2);
    assertThat(trace.result(profile, "receive").criticalPathNs()).isZero();
    assertThat(trace.result(profile, "receive").onCriticalPath()).isFalse();
    // It still waits for nothing on its own thread: a producer is a wait.net span.
    assertThat(trace.result(profile, "send").state()).isEqualTo("wait.net");
  }

  /**
   * Orphans (parent not in the trace) and spans on a parent cycle are roots; the primary root is
   * the earliest, then the longest.
   * <pre>
   *   main    |=====main=====|      [0,8)
   *   orphan    |=orphan=|          [1,5), parent never arrived
   *   x           |==x==|           [3,7), parent y
   *   y             |=y=|           [4,6), parent x: a cycle
   * </pre>
   */
  @Test
  void analyze_orphansAndCycles_becomeRoots() {
    TraceBuilder trace = new TraceBuilder()
        .span("main", null, "1", 0, 8)
        .span("orphan", "missing", "2", 1, 5)
        .span("x", "y", "3", 3, 7)
        .span("y", "x", "4", 4, 6);

    TraceProfile profile = trace.analyze();

    assertThat(profile.criticalPathNs()).isEqualTo(8);
    assertThat(List.of("main", "orphan", "x", "y"))
        .extracting(name -> trace.result(profile, name).criticalPathNs())
        .containsExactly(8L, 4L, 4L, 2L);
    assertThat(trace.result(profile, "x").selfTimeNs()).isEqualTo(4);
  }

  /** Duplicate span ids: all count in the timeline; the first one builds the tree. */
  @Test
  void analyze_duplicateSpanIds_allCountFirstBuildsTree() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "1", 0, 10)
        .span("dup", "root", "2", 0, 4)
        .span("dup", "root", "3", 5, 9)
        .span("leaf", "dup", "2", 1, 3);

    TraceProfile profile = trace.analyze();

    assertThat(profile.spanCount()).isEqualTo(4);
    assertThat(profile.spanTimeNs()).isEqualTo(10 + 4 + 4 + 2);
    assertThat(profile.resources()).extracting(ResourceBusy::busyNs).containsExactly(10L, 4L, 4L);
    assertThat(profile.spans().get(1).selfTimeNs()).isEqualTo(2);
    assertThat(profile.spans().get(2).selfTimeNs()).isEqualTo(4);
    assertThat(profile.spans().get(2).criticalPathNs()).isZero();
    assertThat(trace.result(profile, "root").selfTimeNs()).isEqualTo(6);
  }

  /** A span ending before it starts is zero-length at its start, and kept. */
  @Test
  void analyze_endBeforeStart_zeroLengthAtStart() {
    TraceBuilder trace = new TraceBuilder()
        .span("root", null, "1", 0, 10)
        .span("backwards", "root", "2", 7, 3);

    TraceProfile profile = trace.analyze();

    assertThat(profile.spanCount()).isEqualTo(2);
    assertThat(profile.spanTimeNs()).isEqualTo(10);
    assertThat(profile.ttcNs()).isEqualTo(10);
    assertThat(trace.result(profile, "backwards").selfTimeNs()).isZero();
    assertThat(trace.result(profile, "root").selfTimeNs()).isEqualTo(10);
  }

  /**
   * Pool of 2 cores over [0,10): two running threads oversubscribe it, a waiting one waits
   * for what is left, an idle one occupies nothing.
   * <pre>
   *   alloc  |==========capacity 2==========|  [0,10)
   *   t1     |=====run1=====|                  [0,6)   running
   *   t2     |=====run2=====|                  [0,6)   running
   *   t3     |=====run3=====|                  [0,6)   running: 3 cores wanted, 2 there
   *   t4                 |====db====|          [4,8)   wait.db
   *   t5     |=============idle==============|  [0,10)  idle
   * </pre>
   * cpu = 2·6 = 12; wait.db gets what running leaves: [6,8) 1 core·2 = 2; idle = 20 − 14 = 6.
   */
  @Test
  void analyze_allocationSpan_utilizationAndAttribution() {
    TraceBuilder trace = new TraceBuilder()
        .span("alloc", null, "0", 0, 10, "spanprof.pool.capacity", 2L)
        .span("run1", "alloc", "1", 0, 6)
        .span("run2", "alloc", "2", 0, 6)
        .span("run3", "alloc", "3", 0, 6)
        .span("db", "alloc", "4", 4, 8, "db.system", "redis")
        .span("idle", "alloc", "5", 0, 10, "spanprof.state", "idle");

    TraceProfile profile = trace.analyze();

    assertThat(profile.pools()).singleElement().satisfies(pool -> {
      assertThat(pool.pool()).isEqualTo("svc/i1");
      assertThat(pool.availableNs()).isEqualTo(20);
      assertThat(pool.attributionNs()).containsOnly(
          entry("cpu", 12.0), entry("wait.db", 2.0), entry("idle", 6.0));
      assertThat(pool.utilization()).containsOnly(entry("application", 22.0 / 20), entry("idle", 0.0));
    });
    // The allocation span is capacity, not work: no timeline figure includes it.
    assertThat(profile.spanTimeNs()).isEqualTo(18 + 4 + 10);
    assertThat(profile.criticalPathNs()).isEqualTo(10);
  }

  /**
   * The chosen-span segments are the pool windows' input only: an analyzer told not to keep them
   * (no pool capacity configured) leaves them out and computes everything else the same.
   * <pre>
   *   t1  |=====A=====|        A [0,6)
   *   t1     |==B==|           B [2,4), child of A
   * </pre>
   */
  @Test
  void analyze_withoutSegments_sameProfileWithoutThem() {
    TraceBuilder trace = new TraceBuilder()
        .span("A", null, "1", 0, 6)
        .span("B", "A", "1", 2, 4);

    TraceProfile kept = trace.analyze();
    TraceProfile left = new TraceAnalyzer(SpanMapping.defaults(), false)
        .analyze(TraceBuilder.TRACE, trace.spans());

    assertThat(kept.segments()).extracting(ChosenSegment::fromNanos)
        .containsExactly(0L, 2L, 4L);
    assertThat(left.segments()).isEmpty();
    assertThat(left).isEqualTo(kept.withoutSegments());
  }
}
