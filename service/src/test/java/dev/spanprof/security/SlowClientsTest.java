package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import jakarta.inject.Inject;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * 500 idle connections and a client that has sent one byte of its request on each port, and
 * normal traffic still gets through.
 */
@MicronautTest
@Property(name = "spanprof.ingest.max-connections", value = "600")
class SlowClientsTest {

  private static final int IDLE = 500;
  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;

  @Test
  void idleAndSlowClients_doNotStopNormalTraffic() throws Exception {
    Ports ports = Ports.of(context);
    Meters meters = new Meters(registry);
    double grpcBefore = meters.count("spanprof.received.spans", "transport", "grpc");
    double httpBefore = meters.count("spanprof.received.spans", "transport", "http");
    List<Socket> held = new ArrayList<>();
    try {
      for (int port : new int[] {ports.grpc(), ports.http()}) {
        for (int i = 0; i < IDLE; i++) {
          held.add(new Socket("localhost", port));
        }
        Socket slow = new Socket("localhost", port);
        slow.getOutputStream().write('P');
        slow.getOutputStream().flush();
        held.add(slow);
      }

      assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder()
          .setEndpoint("http://localhost:" + ports.grpc()).build())).isTrue();
      assertThat(FrontDoorTest.export(OtlpHttpSpanExporter.builder()
          .setEndpoint(ports.httpUrl("/v1/traces")).build())).isTrue();
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
    assertThat(meters.count("spanprof.received.spans", "transport", "grpc") - grpcBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - httpBefore)
        .isEqualTo(1);
  }
}
