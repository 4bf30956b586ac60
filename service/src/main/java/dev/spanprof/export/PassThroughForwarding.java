package dev.spanprof.export;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.config.ExportConfiguration.Mode;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.Slab;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * Pass-through mode ({@code spanprof.export.mode=passthrough}): the spans of each accepted
 * request, as they came, handed to the {@link Forwarder} before their trace is analysed. A request
 * the queue has no room for is refused at ingest ({@link #hasRoomFor}), so nothing acknowledged is
 * dropped.
 */
@Singleton
public final class PassThroughForwarding implements AcceptedSpansConsumer {

  private final Forwarder forwarder;

  PassThroughForwarding(Forwarder forwarder) {
    this.forwarder = forwarder;
  }

  @Override
  public void onAccepted(List<SpanRecord> spans) {
    if (forwarder.forwards(Mode.PASSTHROUGH)) {
      List<ExportEntry> entries = new ArrayList<>(spans.size());
      for (SpanRecord span : spans) {
        entries.add(ExportEntry.asReceived(span));
      }
      Slab.retain(entries, ExportEntry::slab);
      forwarder.enqueue(entries);
    }
  }

  /** Whether the queue has room for a request of {@code spans}; ingest refuses it otherwise. */
  @Override
  public boolean hasRoomFor(int spans) {
    return !mayRefuse() || forwarder.hasRoomFor(0, spans);
  }

  @Override
  public boolean mayRefuse() {
    return forwarder.forwards(Mode.PASSTHROUGH);
  }
}
