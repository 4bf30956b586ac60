package dev.spanprof.ingest;

import dev.spanprof.span.SpanOrigin;

/** The origin of the spans of one record read from a log ({@link TraceIngest#exportRecord}). */
public interface LogRecordOrigin extends SpanOrigin {

  /** Told how many valid spans the record holds, before any of them is buffered. */
  void spans(int count);
}
