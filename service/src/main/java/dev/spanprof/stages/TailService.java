package dev.spanprof.stages;

import dev.spanprof.analysis.tail.TailBreakdown;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.analysis.tail.TailState;
import dev.spanprof.analysis.tail.TailWindow;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.config.TailConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.time.TimeSource;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Feeds every analysed trace into the {@link TailWindow}, in the slice of its arrival, cut in epoch
 * time (semantics.md §7); queries read it as of now.
 */
@Singleton
public final class TailService implements ProfileConsumer {

  private final TailWindow window;
  private final Duration length;
  private final TimeSource time;

  TailService(TailConfiguration configuration, RankingConfiguration ranking, TimeSource time) {
    Duration length =
        configuration.getWindow() == null ? ranking.getWindow() : configuration.getWindow();
    try {
      this.window = new TailWindow(length, configuration.getMaxRoots(),
          configuration.getMaxOperations());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + TailConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.length = length;
    this.time = time;
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    // A late fragment is no trace of its own (semantics.md §2): its root is no trace's root.
    if (!trace.fragment()) {
      window.add(profile, arrivalNanos);
    }
  }

  public List<TailRoot> roots() {
    return window.roots(time.epochNanos());
  }

  /** Empty when the root has no trace in the window; quantile in (0, 1). */
  public Optional<TailBreakdown> breakdown(Operation root, double quantile) {
    return window.breakdown(root, quantile, time.epochNanos());
  }

  /**
   * The additive state of the window ending at {@code asOfNanos}, of {@code root}'s traces or of
   * all with null; with {@code summed}, each root's slices added up into one
   * (TailWindow#summedState).
   */
  public TailState state(Operation root, long asOfNanos, boolean summed) {
    return summed ? window.summedState(asOfNanos, root) : window.state(asOfNanos, root);
  }

  /**
   * The replicas' states merged into a window of their own, to be asked as of {@link #nowNanos}
   * (semantics.md §7).
   *
   * @throws IllegalArgumentException when a state's slices are of another length
   */
  public TailWindow merge(List<TailState> states) {
    TailWindow fleet = new TailWindow(length, Integer.MAX_VALUE, Integer.MAX_VALUE);
    states.forEach(fleet::merge);
    return fleet;
  }

  public long sliceNanos() {
    return window.sliceNanos();
  }

  /** The time the window is read at. */
  public long nowNanos() {
    return time.epochNanos();
  }

  /** Traces left out because their root was beyond {@code spanprof.tail.max-roots}. */
  public long overflowTraces() {
    return window.overflowTraces();
  }

  /** Operations and states of traces summed under _overflow ({@code max-operations}). */
  public long overflowRows() {
    return window.overflowRows();
  }
}
