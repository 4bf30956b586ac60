package dev.spanprof.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka broker, KRaft mode, one node that is broker and controller, in a JVM of its own
 * (so that a test can stop it, kill it and start it again on the same ports and data), from the
 * jars of the {@code kafka-broker} module (its class path file: the system property {@code
 * spanprof.test.kafka-broker-classpath}, which the build sets).
 */
public final class KafkaBroker implements AutoCloseable {

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path directory;
  private final String classPath;
  private final int brokerPort;
  private final int controllerPort;
  private Process process;

  private KafkaBroker(Path directory) throws IOException {
    String classPathFile = System.getProperty("spanprof.test.kafka-broker-classpath");
    if (classPathFile == null) {
      throw new IllegalStateException("spanprof.test.kafka-broker-classpath is not set: run the "
          + "tests through Maven, which builds the kafka-broker module first");
    }
    this.classPath = Files.readString(Path.of(classPathFile)).trim();
    this.directory = directory;
    this.brokerPort = SpanprofProcess.freePort();
    this.controllerPort = SpanprofProcess.freePort();
  }

  /** Formats a new broker's storage under {@code directory}, starts it and waits until it is up. */
  public static KafkaBroker start(Path directory) throws IOException, InterruptedException {
    KafkaBroker broker = new KafkaBroker(directory);
    broker.format();
    broker.startAgain();
    return broker;
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** Starts the stopped broker again, on its ports and data, and waits until it answers. */
  public void startAgain() throws IOException, InterruptedException {
    process = java("kafka.Kafka", properties().toString(), directory.resolve("broker.log"));
    awaitReady();
  }

  /** Stops it as an operator would (SIGTERM), waiting for it to end. */
  public void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private void format() throws IOException, InterruptedException {
    Path config = properties();
    Process format = java("kafka.tools.StorageTool", null, directory.resolve("format.log"),
        "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString());
    if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
      format.destroyForcibly();
      throw new IllegalStateException("formatting the broker's storage failed: "
          + Files.readString(directory.resolve("format.log")));
    }
  }

  /** The broker's configuration, written once under the directory. */
  private Path properties() throws IOException {
    Path file = directory.resolve("server.properties");
    if (Files.exists(file)) {
      return file;
    }
    Properties properties = new Properties();
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", "1");
    properties.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    properties.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:"
        + controllerPort);
    properties.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", "PLAINTEXT");
    properties.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
    properties.put("log.dirs", directory.resolve("data").toString());
    properties.put("offsets.topic.replication.factor", "1");
    properties.put("offsets.topic.num.partitions", "3");
    properties.put("transaction.state.log.replication.factor", "1");
    properties.put("transaction.state.log.min.isr", "1");
    properties.put("group.initial.rebalance.delay.ms", "0");
    try (var out = Files.newBufferedWriter(file)) {
      properties.store(out, "spanprof test broker");
    }
    return file;
  }

  private Process java(String main, String argument, Path log, String... arguments)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", classPath, main));
    if (argument != null) {
      command.add(argument);
    }
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
  }

  /** Waits until the broker answers a metadata request, or throws. */
  private void awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the broker exited with " + process.exitValue());
      }
      try (Admin admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
          AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000",
          AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000"))) {
        admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
        return;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
          | RuntimeException e) {
        last = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("the broker did not answer within " + READY_TIMEOUT, last);
  }
}
