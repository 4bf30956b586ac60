package dev.spanprof.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A spanprof process of its own (its own JVM, as the jar runs), on loopback ports of its own,
 * started with the test's class path and {@code -D} properties; a test may kill it.
 */
public final class SpanprofProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Process process;
  private final BlockingQueue<String> log = new LinkedBlockingQueue<>();
  private final List<String> startLog = new ArrayList<>();
  private final int grpc;
  private final int http;
  private final int management;

  private SpanprofProcess(String name, String heap, Map<String, String> properties, int grpc,
      int http, int management) throws IOException {
    this.grpc = grpc;
    this.http = http;
    this.management = management;
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
        "-cp", System.getProperty("java.class.path"),
        "-Dgrpc.server.port=" + grpc,
        "-Dmicronaut.server.port=" + http,
        "-Dspanprof.management.port=" + management,
        "-Dspanprof.management.host=127.0.0.1"));
    properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
    command.add("dev.spanprof.Application");
    this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
    // With -Dspanprof.test.process-logs=DIR, each process's log is kept there too, to read
    // after a failure.
    String logs = System.getProperty("spanprof.test.process-logs");
    Path logFile = logs == null ? null : Path.of(logs, name + "-" + http + ".log");
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
          Writer copy = logFile == null ? Writer.nullWriter()
              : Files.newBufferedWriter(logFile, StandardOpenOption.CREATE,
                  StandardOpenOption.APPEND)) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          log.add(line);
          copy.write(line + "\n");
          copy.flush();
        }
      } catch (IOException ended) {
        // the process is gone
      }
    }, "spanprof-" + name + "-log");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a process on free ports, not waiting for it: {@link #awaitStarted} does, so that
   * several start at once.
   */
  public static SpanprofProcess start(String name, String heap, Map<String, String> properties)
      throws IOException {
    return start(name, heap, freePort(), properties);
  }

  /** As {@link #start(String, String, Map)}, on HTTP port {@code http} (its peers know it). */
  public static SpanprofProcess start(String name, String heap, int http,
      Map<String, String> properties) throws IOException {
    return new SpanprofProcess(name, heap, properties, freePort(), http, freePort());
  }

  /** Waits until it logged its start, or throws with what it logged. */
  public SpanprofProcess awaitStarted() throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (startLog.stream().noneMatch(line -> line.contains("front door:"))) {
      String line = log.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException("not started within " + START_TIMEOUT + "; it logged: "
            + startLog);
      }
      startLog.add(line);
    }
    return this;
  }

  /** What it logged up to and including its start line ({@link #awaitStarted}). */
  public List<String> startLog() {
    return List.copyOf(startLog);
  }

  public int httpPort() {
    return http;
  }

  public int managementPort() {
    return management;
  }

  /** The base URL of its HTTP port, as a peer names it. */
  public String httpBase() {
    return "http://127.0.0.1:" + http;
  }

  public String httpUrl(String path) {
    return httpBase() + path;
  }

  public String managementUrl(String path) {
    return "http://127.0.0.1:" + management + path;
  }

  public int grpcPort() {
    return grpc;
  }

  /** Kills it at once, as a crashed replica goes. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  /** A port free now; another process may take it before we do, rarely. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
