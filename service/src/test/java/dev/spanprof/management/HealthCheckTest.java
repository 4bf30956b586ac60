package dev.spanprof.management;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The container image's health check against the real management listener. */
@MicronautTest
class HealthCheckTest {

  @Inject ManagementServer server;

  @Test
  void healthy_whileServing() {
    assertThat(HealthCheck.healthy(readiness(server))).isTrue();
  }

  @Test
  void unhealthy_beforeTheOtlpServersStart() {
    try (ApplicationContext notStarted = ApplicationContext.run(Map.of(), Environment.TEST)) {
      assertThat(HealthCheck.healthy(readiness(notStarted.getBean(ManagementServer.class)))).isFalse();
    }
  }

  @Test
  void unhealthy_whenNothingListens() {
    ManagementServer stopped;
    try (ApplicationContext context = ApplicationContext.run(Map.of(), Environment.TEST)) {
      stopped = context.getBean(ManagementServer.class);
    }
    assertThat(HealthCheck.healthy(readiness(stopped))).isFalse();
  }

  private static URI readiness(ManagementServer server) {
    return URI.create("http://127.0.0.1:" + server.port() + "/health/readiness");
  }
}
