package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import java.util.List;

/** Sees the spans of every accepted request at once, before assembly (pass-through forwarding). */
public interface AcceptedSpansConsumer {

  void onAccepted(List<SpanRecord> spans);
}
