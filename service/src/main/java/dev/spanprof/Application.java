package dev.spanprof;

import dev.spanprof.wiring.PipelineLifecycle;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Starts spanprof: OTLP in on 4317 (gRPC) and 4318 (HTTP), metrics and health on 9464. */
public final class Application {

  private Application() {}

  public static void main(String[] args) {
    List<String> jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();
    if (!jvmOptions.contains("-XX:+ExitOnOutOfMemoryError")
        && !jvmOptions.contains("-XX:+CrashOnOutOfMemoryError")) {
      // A thread that ran out of heap dies alone: the rest would answer UP without it.
      LoggerFactory.getLogger(Application.class).warn("started without "
          + "-XX:+ExitOnOutOfMemoryError: an OutOfMemoryError would leave spanprof running "
          + "without the thread it killed; the image and manifests set it");
    }
    ApplicationContext context = Micronaut.run(Application.class, args);
    // Micronaut's own shutdown hook stops the servers, then closes the context. This one runs
    // beside it and drains at once: readiness goes down and requests still arriving get
    // UNAVAILABLE / 503 instead of waiting. The context's close waits for the drain to finish.
    PipelineLifecycle lifecycle = context.getBean(PipelineLifecycle.class);
    Runtime.getRuntime().addShutdownHook(new Thread(lifecycle::drain, "spanprof-drain"));
  }
}
