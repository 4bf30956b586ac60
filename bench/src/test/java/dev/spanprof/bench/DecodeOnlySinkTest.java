package dev.spanprof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Both kinds of sink answer a gzipped export as a next hop must, and count what they took. */
class DecodeOnlySinkTest {

  private static final int SPANS = 60;
  private static final ExportTraceServiceRequest REQUEST =
      new Workload(20, SPANS).request(1_700_000_000_000_000_000L);

  private ManagedChannel channel;

  @AfterEach
  void closeChannel() throws InterruptedException {
    if (channel != null) { // null when the sink did not start
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void decodingSink_gzippedExports_countsTheirSpansAndBytes() throws Exception {
    try (DecodeOnlySink sink = new DecodeOnlySink(0)) {
      exportTwice(sink);

      assertThat(sink.spans()).isEqualTo(2 * SPANS);
      assertThat(sink.requests()).isEqualTo(2);
      assertThat(sink.bytes()).isEqualTo(2L * REQUEST.getSerializedSize());
    }
  }

  @Test
  void undecodedSink_gzippedExports_readsEveryByteButParsesNoSpan() throws Exception {
    try (DecodeOnlySink sink = DecodeOnlySink.undecoded(0)) {
      exportTwice(sink);

      assertThat(sink.spans()).isZero();
      assertThat(sink.requests()).isEqualTo(2);
      assertThat(sink.bytes()).isEqualTo(2L * REQUEST.getSerializedSize());
    }
  }

  /** Two exports, gzipped as spanprof forwards them; each must be answered without an error. */
  private void exportTwice(DecodeOnlySink sink) {
    channel = NettyChannelBuilder.forAddress("localhost", sink.port()).usePlaintext().build();
    TraceServiceGrpc.TraceServiceBlockingStub stub =
        TraceServiceGrpc.newBlockingStub(channel).withCompression("gzip");
    stub.export(REQUEST);
    stub.export(REQUEST);
  }
}
