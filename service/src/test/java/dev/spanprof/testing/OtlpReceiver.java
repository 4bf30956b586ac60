package dev.spanprof.testing;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** A next hop that keeps what it receives. */
public interface OtlpReceiver extends AutoCloseable {

  int port();

  /** The received spans {@code which} selects, once there are {@code count}; fails after the timeout. */
  List<Received> await(Predicate<Received> which, int count, Duration timeout)
      throws InterruptedException;

  @Override
  void close() throws InterruptedException;

  /** A received span with the resource and scope block it came in. */
  record Received(ResourceSpans resource, ScopeSpans scope, Span span) {

    static List<Received> matching(List<ExportTraceServiceRequest> requests, Predicate<Received> which) {
      List<Received> spans = new ArrayList<>();
      for (ExportTraceServiceRequest request : requests) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
          for (ScopeSpans scope : resource.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              Received received = new Received(resource, scope, span);
            if (which.test(received)) {
              spans.add(received);
            }
            }
          }
        }
      }
      return spans;
    }
  }
}
