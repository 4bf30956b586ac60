package dev.spanprof.ingest;

import io.grpc.protobuf.services.HealthStatusManager;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

/**
 * Whether spanprof takes new spans. Closed once at shutdown, before the buffered traces are
 * completed, so that nothing arrives behind the drain. Readiness on the management port and the
 * gRPC health service ({@code grpc.health.v1.Health}, NOT_SERVING) report it.
 */
@Singleton
public final class IngestGate {

  private final HealthStatusManager grpcHealth;
  private volatile boolean open = true;

  IngestGate(@Nullable HealthStatusManager grpcHealth) {
    this.grpcHealth = grpcHealth;
  }

  public boolean isOpen() {
    return open;
  }

  public void close() {
    open = false;
    if (grpcHealth != null) {
      grpcHealth.enterTerminalState();
    }
  }
}
