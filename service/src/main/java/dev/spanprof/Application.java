package dev.spanprof;

import dev.spanprof.config.PipelineLifecycle;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

/** Starts spanprof: OTLP in on 4317 (gRPC) and 4318 (HTTP), metrics and health on 9464. */
public final class Application {

  private Application() {}

  public static void main(String[] args) {
    ApplicationContext context = Micronaut.run(Application.class, args);
    // Micronaut's own shutdown hook stops the servers, then closes the context. This one runs
    // beside it and drains at once: readiness goes down and requests still arriving get
    // UNAVAILABLE / 503 instead of waiting. The context's close waits for the drain to finish.
    PipelineLifecycle lifecycle = context.getBean(PipelineLifecycle.class);
    Runtime.getRuntime().addShutdownHook(new Thread(lifecycle::drain, "spanprof-drain"));
  }
}
