package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.bench.DecodeOnlySink;
import dev.spanprof.bench.Workload;
import dev.spanprof.export.PassThroughForwarder.Forwarded;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pass-through answers each export once its next hop has taken every span of it, whether it
 * forwards the request encoded again or the bytes it received.
 */
class PassThroughForwarderTest {

  private static final int SPANS = 60;
  private static final ExportTraceServiceRequest REQUEST =
      new Workload(20, SPANS).request(1_700_000_000_000_000_000L);

  private ManagedChannel channel;

  @AfterEach
  void closeChannel() throws InterruptedException {
    if (channel != null) { // null when the forwarder did not start
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @EnumSource(Forwarded.class)
  void gzippedExports_reachTheNextHopWhole(Forwarded forwarded) throws Exception {
    try (DecodeOnlySink sink = new DecodeOnlySink(0);
        PassThroughForwarder forwarder =
            new PassThroughForwarder(0, "localhost", sink.port(), forwarded)) {
      TraceServiceGrpc.TraceServiceBlockingStub stub = stub(forwarder);
      stub.export(REQUEST);
      stub.export(REQUEST);

      assertThat(forwarder.receivedSpans()).isEqualTo(2 * SPANS);
      assertThat(forwarder.forwardedSpans()).isEqualTo(2 * SPANS);
      assertThat(sink.spans()).isEqualTo(2 * SPANS);
      assertThat(sink.requests()).isEqualTo(2);
      assertThat(sink.bytes()).isEqualTo(2L * REQUEST.getSerializedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Forwarded.class)
  void nextHopDown_senderIsToldToRetry(Forwarded forwarded) throws Exception {
    try (Socket down = boundNotListening();
        PassThroughForwarder forwarder =
            new PassThroughForwarder(0, "127.0.0.1", down.getLocalPort(), forwarded)) {
      assertThatThrownBy(() -> stub(forwarder).export(REQUEST))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(e.getStatus().getDescription())
                .startsWith("the next hop answered UNAVAILABLE");
          });
      assertThat(forwarder.receivedSpans()).isEqualTo(SPANS);
      assertThat(forwarder.forwardedSpans()).isZero();
    }
  }

  /**
   * A port that refuses connections and stays taken: a port freed by a closed server could be the
   * one the forwarder's own server binds next, which would then forward to itself until the
   * deadline.
   */
  private static Socket boundNotListening() throws IOException {
    Socket socket = new Socket();
    socket.setReuseAddress(false);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return socket;
  }

  private TraceServiceGrpc.TraceServiceBlockingStub stub(PassThroughForwarder forwarder) {
    channel = NettyChannelBuilder.forAddress("localhost", forwarder.port()).usePlaintext().build();
    return TraceServiceGrpc.newBlockingStub(channel).withCompression("gzip");
  }
}
