package dev.spanprof.span;

/**
 * Where a span was read from, told as the span's steps get done: its analysis, and, when it is
 * forwarded, its forwarding (sent or given up). A log the span was read from (Kafka) moves its
 * committed position past a record only once each span of it is done; a span from a request
 * needs nothing told ({@link #NONE}).
 */
public interface SpanOrigin {

  /** A span from an OTLP request: forwarded, and nothing to tell. */
  SpanOrigin NONE = new Request();

  /**
   * Whether the span is forwarded; false for a span read again only to rebuild the windows,
   * which its earlier reader forwarded already.
   */
  boolean forwards();

  /**
   * Asked as the span's trace is about to be analysed: false when the span is no longer this
   * process's to analyse (the log partition it was read from was given up, and its next owner
   * reads it again). A trace is analysed only when every span's origin says yes; else each is
   * told {@link #abandon}.
   */
  boolean beginAnalysis();

  /** The span's trace is not analysed here (see {@link #beginAnalysis}): nothing more is told. */
  void abandon();

  /** One of the span's steps is done: its analysis, or its forwarding (sent or given up). */
  void stepDone();

  /** The span's analysis failed (counted as such): it will not be forwarded, nothing is left. */
  void failed();

  /** {@link #NONE}. */
  final class Request implements SpanOrigin {

    private Request() {}

    @Override
    public boolean forwards() {
      return true;
    }

    @Override
    public boolean beginAnalysis() {
      return true;
    }

    @Override
    public void abandon() {}

    @Override
    public void stepDone() {}

    @Override
    public void failed() {}
  }
}
