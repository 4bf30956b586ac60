package dev.spanprof.testing;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** What both test receivers share: the requests they accepted, and waiting for spans in them. */
abstract class RecordingReceiver implements OtlpReceiver {

  private final List<ExportTraceServiceRequest> requests = new ArrayList<>();

  final synchronized void record(ExportTraceServiceRequest request) {
    requests.add(request);
    notifyAll();
  }

  public final synchronized List<ExportTraceServiceRequest> requests() {
    return List.copyOf(requests);
  }

  @Override
  public final synchronized List<Received> await(Predicate<Received> which, int count,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (Received.matching(requests, which).size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("only " + Received.matching(requests, which).size() + " of "
            + count + " spans arrived");
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return Received.matching(requests, which);
  }
}
