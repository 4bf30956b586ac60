package dev.spanprof.analysis.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.span.TraceId;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DistributionTest {

  private static final long[] BOUNDARIES = {2_000_000, 10_000_000, 100_000_000};
  private static final double[] QUANTILES = {0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1};

  enum Shape {
    UNIFORM(random -> () -> 1_000 + (long) (random.nextDouble() * 5_000_000_000L)),
    LOG_NORMAL(random -> () -> (long) Math.exp(13 + 2 * random.nextGaussian())),
    BIMODAL(random -> () -> random.nextBoolean()
        ? 200_000 + random.nextInt(50_000) : 900_000_000 + random.nextInt(200_000_000)),
    ONE_HUGE_OUTLIER(random -> {
      int[] calls = {0};
      return () -> ++calls[0] == 5_000 ? 7_200_000_000_000L : 1_000_000 + random.nextInt(1_000);
    });

    final java.util.function.Function<Random, LongSupplier> values;

    Shape(java.util.function.Function<Random, LongSupplier> values) {
      this.values = values;
    }
  }

  /** Every quantile is within the configured precision (2 digits: 1 %) of the sorted array's. */
  @ParameterizedTest
  @EnumSource(Shape.class)
  void quantiles_withinOnePercentOfTheExactQuantiles(Shape shape) {
    LongSupplier values = shape.values.apply(new Random(shape.ordinal()));
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    long[] sorted = new long[20_000];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = values.getAsLong();
      distribution.record(sorted[i], null, 0, 0, 0);
    }
    Arrays.sort(sorted);

    AbstractHistogram histogram = distribution.snapshot().cumulative();

    for (double q : QUANTILES) {
      long exact = sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
      long reported = histogram.getValueAtPercentile(q * 100);
      assertThat((double) Math.abs(reported - exact)).as("q%s: %d vs exact %d", q, reported, exact)
          .isLessThanOrEqualTo(0.01 * exact);
    }
    assertThat(histogram.getTotalCount()).isEqualTo(sorted.length);
  }

  /**
   * The seed's example: a request every 10 ms takes 1 ms, then the system stalls for 100 s.
   * Uncorrected, 99.99 % of the samples look like 1 ms; corrected for the requests the stall
   * held back, only about half do.
   */
  @Test
  void coordinatedOmission_seedExample_99_99PercentRawAbout50Corrected() {
    long tenMillis = 10_000_000L;
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, tenMillis, 0);
    for (int i = 0; i < 10_000; i++) {
      distribution.record(1_000_000, null, 0, 0, 0);
    }
    distribution.record(100_000_000_000L, null, 0, 0, 0);

    Distribution.Snapshot snapshot = distribution.snapshot();

    double rawGood = snapshot.cumulative().getPercentileAtOrBelowValue(1_000_000);
    double correctedGood = snapshot.cumulativeCorrected().getPercentileAtOrBelowValue(1_000_000);
    assertThat(rawGood).isCloseTo(99.99, org.assertj.core.data.Offset.offset(0.005));
    assertThat(correctedGood).isCloseTo(50.0, org.assertj.core.data.Offset.offset(0.5));
    assertThat(snapshot.cumulativeCorrected().getTotalCount()).isEqualTo(10_000 + 10_000);
  }

  /**
   * Replicas merge exactly: decode two replicas' compressed V2 encodings, add them, and every
   * quantile equals that of one histogram fed all the values.
   */
  @Test
  void merge_twoReplicasEncodings_equalOneHistogramOfAllValues() throws Exception {
    Distribution replicaA = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Distribution replicaB = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Distribution all = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Random random = new Random(3);
    for (int i = 0; i < 50_000; i++) {
      long value = (long) Math.exp(12 + 3 * random.nextDouble());
      (i % 3 == 0 ? replicaA : replicaB).record(value, null, 0, 0, 0);
      all.record(value, null, 0, 0, 0);
    }

    Histogram merged = decode(encode(replicaA.snapshot().cumulative()));
    merged.add(decode(encode(replicaB.snapshot().cumulative())));

    AbstractHistogram expected = all.snapshot().cumulative();
    assertThat(merged.getTotalCount()).isEqualTo(expected.getTotalCount());
    for (double q : QUANTILES) {
      assertThat(merged.getValueAtPercentile(q * 100)).isEqualTo(expected.getValueAtPercentile(q * 100));
    }
  }

  /**
   * Two analysis workers record into one series while the window advance flushes it: every value
   * is counted and nothing stalls (HdrHistogram's packed concurrent Recorder did, see
   * {@link Distribution}). The timeout only turns a stall into a failure; it measures nothing.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void record_twoWritersWhileFlushing_countsEveryValue() throws Exception {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    int perWriter = 300_000;
    Thread[] writers = new Thread[2];
    for (int w = 0; w < writers.length; w++) {
      writers[w] = new Thread(() -> {
        Random random = new Random();
        for (int i = 0; i < perWriter; i++) {
          distribution.record(spread(random), null, 0, 0, 0);
        }
      });
      writers[w].start();
    }
    while (writers[0].isAlive() || writers[1].isAlive()) {
      distribution.flush();
      // Lets the writers at the monitor: back-to-back flushes starved them on two cores (one
      // clean-clone run took 23 s instead of one).
      Thread.yield();
    }
    for (Thread writer : writers) {
      writer.join();
    }

    assertThat(distribution.snapshot().cumulative().getTotalCount()).isEqualTo(2L * perWriter);
  }

  /**
   * A span's three series made to share one lock, recorded into by one writer a span at a time
   * and by another one value at a time, while a reader flushes and reads: every series counts
   * every value, so the writers and the reader took the same lock. (Without it, HdrHistogram can
   * also loop forever in a writer: the timeout is kept on a thread of its own.)
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void recordEach_seriesSharingALock_writersAndAReaderAtOnce_countEveryValue() throws Exception {
    DistributionRegistry registry = new DistributionRegistry(2, 6, BOUNDARIES, 10,
        Duration.ofMinutes(15));
    Distribution selfTime = registry.series(key("self"), 0, 0);
    Distribution criticalPath = registry.series(key("critical"), 0, 0, selfTime);
    Distribution duration = registry.series(key("duration"), 0, 0, selfTime);
    int perWriter = 200_000;
    Thread bySpan = new Thread(() -> {
      Random random = new Random(1);
      for (int i = 0; i < perWriter; i++) {
        Distribution.recordEach(duration, spread(random), selfTime, spread(random),
            criticalPath, spread(random), null, 0, 0, 0, 0);
      }
    });
    Thread byValue = new Thread(() -> {
      Random random = new Random(2);
      for (int i = 0; i < perWriter; i++) {
        criticalPath.record(spread(random), null, 0, 0, 0);
      }
    });
    bySpan.setDaemon(true);
    byValue.setDaemon(true);
    bySpan.start();
    byValue.start();
    Distribution.Reader reader = registry.reader();
    while (bySpan.isAlive() || byValue.isAlive()) {
      duration.flush();
      criticalPath.read(reader);
      // Lets the writers at the lock, as in record_twoWritersWhileFlushing_countsEveryValue.
      Thread.yield();
    }
    bySpan.join();
    byValue.join();

    assertThat(duration.snapshot().cumulative().getTotalCount()).isEqualTo(perWriter);
    assertThat(selfTime.snapshot().cumulative().getTotalCount()).isEqualTo(perWriter);
    assertThat(criticalPath.snapshot().cumulative().getTotalCount()).isEqualTo(2L * perWriter);
  }

  /** recordEach records what record would, whether the three series share a lock or not. */
  @Test
  void recordEach_recordsAsRecordDoes_withOrWithoutASharedLock() {
    TraceId trace = new TraceId(1, 2);
    Distribution first = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Distribution[] shared = {first, new Distribution(2, 6, BOUNDARIES, 0, 0, true, first),
        new Distribution(2, 6, BOUNDARIES, 0, 0, true, first)};
    Distribution[] apart = {new Distribution(2, 6, BOUNDARIES, 0, 0),
        new Distribution(2, 6, BOUNDARIES, 0, 0), new Distribution(2, 6, BOUNDARIES, 0, 0)};
    Distribution[] oneByOne = {new Distribution(2, 6, BOUNDARIES, 0, 0),
        new Distribution(2, 6, BOUNDARIES, 0, 0), new Distribution(2, 6, BOUNDARIES, 0, 0)};
    long[][] values = {{1_000_000, 50_000_000, -5}, {3_000_000, 900_000_000, 7_000}};

    for (int span = 0; span < values.length; span++) {
      long[] v = values[span];
      long nowNanos = 100 + span;
      for (Distribution[] series : List.of(shared, apart)) {
        Distribution.recordEach(series[0], v[0], series[1], v[1], series[2], v[2], trace,
            span + 7, nowNanos, 1234 + span, 0);
      }
      for (int i = 0; i < 3; i++) {
        oneByOne[i].record(v[i], trace, span + 7, nowNanos, 1234 + span);
      }
    }

    for (Distribution[] series : List.of(shared, apart)) {
      for (int i = 0; i < 3; i++) {
        Distribution.Snapshot expected = oneByOne[i].snapshot();
        Distribution.Snapshot actual = series[i].snapshot();
        assertThat(actual.cumulative()).isEqualTo(expected.cumulative());
        assertThat(actual.sumNanos()).isEqualTo(expected.sumNanos());
        assertThat(actual.exemplars()).isEqualTo(expected.exemplars());
        assertThat(series[i].lastRecordNanos()).isEqualTo(101);
      }
    }
  }

  /** A value for the writer tests: 0 one time in ten, else log-uniform from e^5 to e^23 ns. */
  private static long spread(Random random) {
    return random.nextInt(10) == 0 ? 0 : (long) Math.exp(5 + 18 * random.nextDouble());
  }

  /**
   * A span's rank is the grid rank just under its exact rank: never above the share of values at
   * or below it, and at most one grid step (1 %, 0.1 % past 90, 0.01 % past 99) under it.
   */
  @Test
  void percentileRank_withinOneGridStepUnderTheExactRank() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Random random = new Random(5);
    long[] sorted = new long[100_000];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = (long) Math.pow(10, 4 + 6 * random.nextDouble());
      distribution.record(sorted[i], null, 0, 0, 0);
    }
    Arrays.sort(sorted);
    distribution.flush();
    AbstractHistogram histogram = distribution.snapshot().cumulative();

    double previous = 0;
    for (double q : new double[] {0.5, 10, 50, 89.5, 90, 95, 98.95, 99, 99.5, 99.9, 99.99, 100}) {
      long top = histogram.highestEquivalentValue(sorted[Math.max(0, (int) Math.ceil(q / 100 * sorted.length) - 1)]);
      long atOrBelow = Arrays.stream(sorted).filter(v -> histogram.highestEquivalentValue(v) <= top).count();
      double exact = 100.0 * atOrBelow / sorted.length;
      double step = exact < 90 ? 1 : exact < 99 ? 0.1 : 0.01;

      double rank = distribution.percentileRank(top);

      assertThat(rank).as("q%s", q).isLessThanOrEqualTo(exact).isGreaterThan(exact - step - 1e-9)
          .isGreaterThanOrEqualTo(previous);
      previous = rank;
    }
    assertThat(distribution.percentileRank(sorted[0] / 2)).isZero();
    assertThat(distribution.percentileRank(Long.MAX_VALUE)).isEqualTo(100);
  }

  /**
   * The window advance ranks against everything recorded, as a flush does, though it ranks the
   * completed slices' sum rather than a copy of the cumulative view: checked after each advance,
   * against a series with the same values that is only flushed.
   */
  @Test
  void advance_ranksAsAFlushDoes() {
    Distribution advanced = new Distribution(2, 3, BOUNDARIES, 0, 0);
    Distribution flushed = new Distribution(2, 3, BOUNDARIES, 0, 0);
    Random random = new Random(13);
    for (int slice = 0; slice < 6; slice++) {
      // Some slices stay packed, some move to dense counts part way.
      int count = random.nextInt(3 * Distribution.DENSE_AFTER_VALUES);
      for (int i = 0; i < count; i++) {
        long value = (long) Math.pow(10, 3 + 7 * random.nextDouble());
        advanced.record(value, null, 0, 0, 0);
        flushed.record(value, null, 0, 0, 0);
      }
      assertThat(advanced.percentileRank(Long.MAX_VALUE)).as("before advance %d", slice)
          .isEqualTo(slice == 0 ? 0 : 100);

      advanced.advance();
      flushed.flush();

      for (long probe = 1_000; probe < 20_000_000_000L; probe = probe * 3 / 2) {
        assertThat(advanced.percentileRank(probe)).as("slice %d, %d ns", slice, probe)
            .isEqualTo(flushed.percentileRank(probe));
      }
    }
  }

  /**
   * Over many advances, the window is exactly the histogram of the last slices' values and the
   * cumulative view that of all values: completed slices are added, kept encoded, and subtracted
   * when they leave the window.
   */
  @Test
  void window_afterManyAdvances_equalsTheLastSlicesExactly() {
    int slices = 4;
    Distribution distribution = new Distribution(2, slices, BOUNDARIES, 0, 0);
    Random random = new Random(11);
    List<long[]> recorded = new ArrayList<>();
    for (int slice = 0; slice < 25; slice++) {
      // Some slices stay packed, some move to a dense histogram part way.
      long[] values = new long[random.nextInt(3 * Distribution.DENSE_AFTER_VALUES)];
      for (int i = 0; i < values.length; i++) {
        values[i] = (long) Math.pow(10, 3 + 7 * random.nextDouble());
        distribution.record(values[i], null, 0, 0, 0);
      }
      recorded.add(values);
      Distribution.Snapshot snapshot = distribution.snapshot();

      PackedHistogram window = new PackedHistogram(2);
      PackedHistogram all = new PackedHistogram(2);
      for (int s = 0; s < recorded.size(); s++) {
        for (long value : recorded.get(s)) {
          all.recordValue(value);
          if (s > recorded.size() - 1 - slices) {
            window.recordValue(value);
          }
        }
      }
      assertThat(snapshot.window()).as("slice %d", slice).isEqualTo(window);
      assertThat(snapshot.cumulative()).as("slice %d", slice).isEqualTo(all);
      distribution.advance();
    }
  }

  /**
   * A young slice keeps 4 bytes a value, at most 8 KB before it moves to dense counts, and a
   * completing slice lets go of its arrays, young or dense: the next slice starts small again,
   * so a series busy once does not keep a busy slice's memory.
   */
  @Test
  void footprint_aSliceHoldsItsArraysOnlyUntilItCompletes() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0, false);
    Random random = new Random(2);
    long idle = distribution.footprintBytes();
    distribution.record(1_000_000, null, 0, 0, 0);
    long oneValue = distribution.footprintBytes() - idle;
    assertThat(oneValue).isBetween(1L, 16L + 4 * 8);
    for (int i = 1; i < Distribution.DENSE_AFTER_VALUES - 1; i++) {
      distribution.record(1_000_000 + random.nextInt(200_000), null, 0, 0, 0);
    }
    assertThat(distribution.footprintBytes() - idle)
        .isBetween(4L * (Distribution.DENSE_AFTER_VALUES - 1),
            16 + 4L * Distribution.DENSE_AFTER_VALUES);
    long total = Distribution.DENSE_AFTER_VALUES - 1;

    for (int slice = 0; slice < 2; slice++) {
      distribution.advance();
      long completed = distribution.footprintBytes();
      distribution.record(1_000_000, null, 0, 0, 0);
      assertThat(distribution.footprintBytes() - completed).as("slice %d", slice)
          .isEqualTo(oneValue);
      // Past the threshold: dense counts up to the highest index, about 7 KB.
      for (int i = 1; i < 3 * Distribution.DENSE_AFTER_VALUES; i++) {
        distribution.record(1_000_000 + random.nextInt(200_000), null, 0, 0, 0);
      }
      total += 3 * Distribution.DENSE_AFTER_VALUES;
      assertThat(distribution.footprintBytes() - completed).as("slice %d", slice)
          .isBetween(4 * 1024L, 9 * 1024L);
    }

    assertThat(distribution.snapshot().cumulative().getTotalCount()).isEqualTo(total);
  }

  /**
   * Three distinct durations, so that runs of ranks share one value (60 % of the values at 1 ms):
   * a duration is ranked at the highest of those ranks, and a duration between two recorded
   * ones at the lower one's.
   */
  @Test
  void percentileRank_ranksAmongEqualValuesAtTheHighest() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    long[] durationsNanos = {1_000_000, 2_000_000, 3_000_000};
    int[] counts = {600, 300, 100};
    for (int i = 0; i < durationsNanos.length; i++) {
      for (int n = 0; n < counts[i]; n++) {
        distribution.record(durationsNanos[i], null, 0, 0, 0);
      }
    }
    distribution.flush();
    AbstractHistogram histogram = distribution.snapshot().cumulative();

    assertThat(distribution.percentileRank(0)).isZero();
    assertThat(distribution.percentileRank(histogram.lowestEquivalentValue(1_000_000) - 1)).isZero();
    assertThat(distribution.percentileRank(histogram.highestEquivalentValue(1_000_000))).isEqualTo(60);
    assertThat(distribution.percentileRank(1_500_000)).isEqualTo(60);
    assertThat(distribution.percentileRank(histogram.highestEquivalentValue(2_000_000))).isEqualTo(90);
    assertThat(distribution.percentileRank(histogram.highestEquivalentValue(3_000_000))).isEqualTo(100);
  }

  @Test
  void percentileRank_seriesMadeWithoutRanks_answersZero() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0, false);
    distribution.record(1_000, null, 0, 0, 0);
    distribution.flush();

    assertThat(distribution.percentileRank(1_000_000)).isZero();
    assertThat(distribution.snapshot().cumulative().getTotalCount()).isEqualTo(1);
  }

  /**
   * Semantics.md §7: a value goes to the open slice of its arrival. With slice 10 current, one of
   * slice 9 goes to the slice before it and completes with it; one of slice 10 recorded after the
   * advance that opened 11 still goes to 10, and leaves the window with it.
   */
  @Test
  void recordByArrival_goesToTheOpenSliceOfItsArrival() {
    Distribution distribution = new Distribution(2, 3, BOUNDARIES, 0, 0, true, null, 10);
    distribution.record(1_000, null, 0, 0, 0, 9);
    distribution.record(2_000, null, 0, 0, 0, 10);
    distribution.advance(11);
    distribution.record(3_000, null, 0, 0, 0, 10);
    // Older than any open slice: the earliest open one takes it.
    distribution.record(4_000, null, 0, 0, 0, 3);
    distribution.advance(12);

    Distribution.Snapshot snapshot = distribution.snapshot();
    assertThat(snapshot.cumulative().getTotalCount()).isEqualTo(4);
    // Three slices: slice 10 completed, 11 and 12 open; slice 9 has left.
    assertThat(snapshot.window().getTotalCount()).isEqualTo(3);
    assertThat(snapshot.window().getMinValue())
        .isEqualTo(snapshot.window().lowestEquivalentValue(2_000));
    distribution.advance(13);
    assertThat(distribution.snapshot().window().getTotalCount()).isZero();
  }

  @Test
  void window_keepsTheLastSlicesOnly() {
    Distribution distribution = new Distribution(2, 3, BOUNDARIES, 0, 0);
    distribution.record(5_000, null, 0, 0, 0);
    for (int slice = 0; slice < 3; slice++) {
      distribution.advance();
    }
    distribution.record(7_000, null, 0, 0, 0);

    Distribution.Snapshot snapshot = distribution.snapshot();

    assertThat(snapshot.cumulative().getTotalCount()).isEqualTo(2);
    assertThat(snapshot.window().getTotalCount()).isEqualTo(1);
    assertThat(snapshot.window().getMaxValue()).isEqualTo(snapshot.window().highestEquivalentValue(7_000));
  }

  @Test
  void exemplars_onePerBucket() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    TraceId trace = new TraceId(1, 2);

    distribution.record(1_000_000, trace, 7, 0, 1234);
    distribution.record(50_000_000, trace, 8, 0, 1235);
    distribution.record(900_000_000, trace, 9, 0, 1236);

    List<Distribution.Exemplar> exemplars = distribution.snapshot().exemplars();
    assertThat(exemplars).hasSize(4);
    assertThat(exemplars.get(0).spanId()).isEqualTo(7);
    assertThat(exemplars.get(1)).isNull();
    assertThat(exemplars.get(2).spanId()).isEqualTo(8);
    assertThat(exemplars.get(3).spanId()).isEqualTo(9);
    assertThat(exemplars.get(3).traceId()).isEqualTo(trace);
  }

  @Test
  void exemplars_aValueAtABoundaryIsInThatBoundarysBucket_aValueAboveItInTheNext() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    TraceId trace = new TraceId(1, 2);

    distribution.record(2_000_000, trace, 1, 0, 0);
    distribution.record(2_000_001, trace, 2, 0, 0);
    distribution.record(100_000_000, trace, 3, 0, 0);
    distribution.record(100_000_001, trace, 4, 0, 0);

    assertThat(distribution.snapshot().exemplars())
        .extracting(exemplar -> exemplar == null ? null : exemplar.spanId())
        .containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void exemplars_eachValueLandsInTheFirstBucketNotBelowIt_forEveryNumberOfBuckets() {
    TraceId trace = new TraceId(1, 2);
    for (int bucketCount = 0; bucketCount <= 17; bucketCount++) {
      long[] boundaries = new long[bucketCount];
      for (int i = 0; i < bucketCount; i++) {
        boundaries[i] = (i + 1) * 1_000L;
      }
      for (long value = 0; value <= (bucketCount + 1) * 1_000L; value += 250) {
        for (long nearby = Math.max(0, value - 1); nearby <= value + 1; nearby++) {
          Distribution distribution = new Distribution(2, 6, boundaries, 0, 0);
          distribution.record(nearby, trace, 1, 0, 0);

          int expected = 0;
          while (expected < bucketCount && boundaries[expected] < nearby) {
            expected++;
          }
          List<Distribution.Exemplar> exemplars = distribution.snapshot().exemplars();
          assertThat(IntStream.range(0, exemplars.size()).filter(i -> exemplars.get(i) != null))
              .as("the bucket of %d among %d bounds", nearby, bucketCount)
              .containsExactly(expected);
        }
      }
    }
  }

  @Test
  void exemplars_aBucketsExemplarIsReplacedOnlyOnceItIsASecondOld() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    TraceId trace = new TraceId(1, 2);

    distribution.record(1_000_000, trace, 7, 0, 10_000);
    distribution.record(1_500_000, trace, 8, 0, 10_999);
    assertThat(distribution.snapshot().exemplars().get(0).spanId()).isEqualTo(7);

    distribution.record(1_900_000, trace, 9, 0, 11_000);
    Distribution.Exemplar exemplar = distribution.snapshot().exemplars().get(0);
    assertThat(exemplar.spanId()).isEqualTo(9);
    assertThat(exemplar.valueNanos()).isEqualTo(1_900_000);
  }

  @Test
  void registry_overflowSeriesAppearsExactlyAtTheLimit() {
    DistributionRegistry registry = new DistributionRegistry(2, 6, BOUNDARIES, 3,
        Duration.ofMinutes(15));

    for (int i = 0; i < 3; i++) {
      registry.series(key("op" + i), 0, 0).record(1000, null, 0, 0, 0);
    }
    assertThat(registry.all()).doesNotContainKey(DistributionRegistry.overflowKey(Kind.DURATION));
    assertThat(registry.overflowSamples(Kind.DURATION)).isZero();

    registry.series(key("op3"), 0, 0).record(1000, null, 0, 0, 0);

    assertThat(registry.all()).containsKey(DistributionRegistry.overflowKey(Kind.DURATION))
        .doesNotContainKey(key("op3"));
    assertThat(registry.overflowSamples(Kind.DURATION)).isEqualTo(1);
    // Existing series keep recording into themselves.
    assertThat(registry.series(key("op0"), 0, 0)).isSameAs(registry.all().get(key("op0")));
  }

  @Test
  void registry_idleSeriesExpire() {
    ManualTimeSource time = new ManualTimeSource();
    DistributionRegistry registry = new DistributionRegistry(2, 6, BOUNDARIES, 10,
        Duration.ofMinutes(15));
    registry.series(key("idle"), 0, time.nanoTime()).record(1000, null, 0, time.nanoTime(), 0);
    time.advance(Duration.ofMinutes(10));
    registry.series(key("busy"), 0, time.nanoTime()).record(1000, null, 0, time.nanoTime(), 0);

    time.advance(Duration.ofMinutes(5));
    registry.advance(time.nanoTime());

    assertThat(registry.all()).containsOnlyKeys(key("busy"));
  }

  /**
   * Memory per series for 1 000 values spread over four decades, all in its current slice: a
   * few KB, not the ~270 KB of a dense histogram.
   */
  @Test
  void footprint_aThousandValuesCostAFewKilobytes() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0);
    Random random = new Random(1);
    for (int i = 0; i < 1_000; i++) {
      distribution.record((long) Math.exp(11 + 9 * random.nextDouble()), null, 0, 0, 0);
    }
    distribution.flush();

    assertThat(distribution.footprintBytes()).isLessThan(8 * 1024);
  }

  /**
   * A series whose window is full of busy slices keeps its completed slices and their sum
   * encoded: the whole series takes less than one packed copy of its cumulative view, where it
   * once kept two such sums live besides the slice.
   */
  @Test
  void footprint_completedSlicesAreKeptEncoded() {
    Distribution distribution = new Distribution(2, 6, BOUNDARIES, 0, 0, false);
    Random random = new Random(3);
    for (int slice = 0; slice < 6; slice++) {
      for (int i = 0; i < 200; i++) {
        distribution.record((long) Math.pow(10, 4 + 6 * random.nextDouble()), null, 0, 0, 0);
      }
      distribution.advance();
    }

    Distribution.Snapshot snapshot = distribution.snapshot();
    assertThat(snapshot.cumulative().getTotalCount()).isEqualTo(1_200);
    assertThat(snapshot.window().getTotalCount()).isEqualTo(1_000);
    PackedHistogram packedCumulative = new PackedHistogram(2);
    packedCumulative.add(snapshot.cumulative());
    assertThat(distribution.footprintBytes())
        .isLessThan(packedCumulative.getEstimatedFootprintInBytes());
  }

  /**
   * A scrape reads every series through one reader: each read holds exactly that series' views
   * (raw and corrected, young and busy slices, completed ones), nothing of the series read before.
   */
  @Test
  void read_oneReaderForManySeries_eachReadIsThatSeriesAlone() {
    Random random = new Random(5);
    List<Distribution> series = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      // Every other series corrects; the first is busy enough to move to dense counts.
      Distribution distribution =
          new Distribution(2, 3, BOUNDARIES, s % 2 == 0 ? 0 : 50_000_000, 0);
      int values = s == 0 ? 3 * Distribution.DENSE_AFTER_VALUES : 300;
      for (int slice = 0; slice < 4; slice++) {
        for (int i = 0; i < values; i++) {
          distribution.record((long) Math.pow(10, 3 + 6 * random.nextDouble()), null, 0, 0, 0);
        }
        if (slice < 3) {
          distribution.advance();
        }
      }
      series.add(distribution);
    }

    Distribution.Reader reader = new Distribution.Reader(2);
    for (Distribution distribution : series) {
      Distribution.Snapshot copies = distribution.snapshot();
      Distribution.Snapshot read = distribution.read(reader);
      assertThat(read.cumulative()).isEqualTo(copies.cumulative());
      assertThat(read.window()).isEqualTo(copies.window());
      assertThat(read.window().getTotalCount()).isLessThan(read.cumulative().getTotalCount());
      assertThat(read.cumulativeCorrected()).isEqualTo(copies.cumulativeCorrected());
      assertThat(read.windowCorrected()).isEqualTo(copies.windowCorrected());
      assertThat(read.sumNanos()).isEqualTo(copies.sumNanos());
    }
    assertThat(series.get(1).read(reader).cumulativeCorrected().getTotalCount())
        .isGreaterThan(series.get(1).read(reader).cumulative().getTotalCount());
  }

  @Test
  void read_readerOfOtherDigits_isRefused() {
    Distribution distribution = new Distribution(2, 3, BOUNDARIES, 0, 0);
    assertThatThrownBy(() -> distribution.read(new Distribution.Reader(3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3 significant digits");
  }

  private static SeriesKey key(String operation) {
    return new SeriesKey(Kind.DURATION, List.of("service_name", "span_name"), List.of("svc", operation));
  }

  private static String encode(AbstractHistogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
  }

  private static Histogram decode(String base64) throws Exception {
    return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
  }
}
