package dev.spanprof.config;

import java.util.ArrayList;
import java.lang.reflect.Method;
import io.micronaut.context.annotation.ConfigurationProperties;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.domain.JavaClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

class ConfigurationTest {

  @Test
  void applicationYml_outsideTests_bindsTheContractPorts() {
    try (ApplicationContext context = ApplicationContext.builder().deduceEnvironment(false).build()) {
      Environment environment = context.getEnvironment().start();

      assertThat(environment.getProperty("grpc.server.port", Integer.class)).hasValue(4317);
      assertThat(environment.getProperty("micronaut.server.port", Integer.class)).hasValue(4318);
      assertThat(environment.getProperty("spanprof.management.port", Integer.class)).hasValue(9464);
    }
  }

  @Test
  void applicationYml_spanprofValues_equalTheBuiltInDefaults() {
    try (ApplicationContext context = ApplicationContext.builder().deduceEnvironment(false).build()) {
      Environment environment = context.getEnvironment().start();

      assertThat(environment.getProperty("spanprof.assembly.trace-timeout", Duration.class))
          .hasValue(AssemblyConfiguration.DEFAULT_TRACE_TIMEOUT);
      assertThat(environment.getProperty("spanprof.assembly.max-trace-age", Duration.class))
          .hasValue(AssemblyConfiguration.DEFAULT_MAX_TRACE_AGE);
      assertThat(environment.getProperty("spanprof.assembly.recent-trace-ids", Integer.class))
          .hasValue(AssemblyConfiguration.DEFAULT_RECENT_TRACE_IDS);
      assertThat(environment.getProperty("spanprof.assembly.sweep-interval", Duration.class))
          .hasValue(AssemblyConfiguration.DEFAULT_SWEEP_INTERVAL);
      assertThat(environment.getProperty("spanprof.analysis.workers", Integer.class))
          .hasValue(AnalysisConfiguration.DEFAULT_WORKERS);
      assertThat(environment.getProperty("spanprof.ingest.max-interned-strings", Integer.class))
          .hasValue(IngestConfiguration.DEFAULT_MAX_INTERNED_STRINGS);
      assertThat(environment.getProperty("spanprof.ingest.retry-after", Duration.class))
          .hasValue(IngestConfiguration.DEFAULT_RETRY_AFTER);
      assertThat(environment.getProperty("spanprof.ingest.grpc-threads", Integer.class))
          .hasValue(IngestConfiguration.DEFAULT_GRPC_THREADS);
      assertThat(environment.getProperty("spanprof.shutdown-timeout", Duration.class))
          .hasValue(SpanprofConfiguration.DEFAULT_SHUTDOWN_TIMEOUT);
      assertThat(environment.getProperty("spanprof.management.host", String.class))
          .hasValue(ManagementConfiguration.DEFAULT_HOST);
      for (String scaledWithTheHeap : List.of("spanprof.ingest.span-store-size",
          "spanprof.assembly.max-buffered-spans", "spanprof.assembly.max-spans-per-trace",
          "spanprof.analysis.max-queued-spans", "spanprof.export.queue-spans",
          "spanprof.metrics.max-series", "spanprof.query.recent-traces")) {
        assertThat(environment.getProperty(scaledWithTheHeap, String.class))
            .as("%s is left to its heap-scaled default", scaledWithTheHeap).isEmpty();
      }
      assertThat(environment.getProperty("spanprof.memory.limit-percentage", Integer.class))
          .hasValue(MemoryConfiguration.DEFAULT_LIMIT_PERCENTAGE);
      assertThat(environment.getProperty("spanprof.management.request-timeout", Duration.class))
          .hasValue(ManagementConfiguration.DEFAULT_REQUEST_TIMEOUT);
      assertThat(environment.getProperty("spanprof.management.idle-timeout", Duration.class))
          .hasValue(ManagementConfiguration.DEFAULT_IDLE_TIMEOUT);
      assertThat(environment.getProperty("spanprof.management.max-connections", Integer.class))
          .hasValue(ManagementConfiguration.DEFAULT_MAX_CONNECTIONS);
    }
  }

  @Test
  void context_maxMessageSize_readAsBytes() {
    try (ApplicationContext context = ApplicationContext.run(
        Map.of("spanprof.ingest.max-message-size", "2MB"), Environment.TEST)) {
      assertThat(context.getBean(IngestConfiguration.class).getMaxMessageSize())
          .isEqualTo(2 * 1024 * 1024);
    }
  }

  @Test
  void context_subjects_aStringIsNotSplitAtCommas_aListKeepsEachName() {
    try (ApplicationContext context = ApplicationContext.run(Map.of(
        "spanprof.auth.write-subjects", "CN=collector,O=example;CN=agent,O=example",
        "spanprof.auth.read-subjects", List.of("CN=reader,O=example")), Environment.TEST)) {
      AuthConfiguration auth = context.getBean(AuthConfiguration.class);
      assertThat(auth.getWriteSubjects())
          .containsExactly("CN=collector,O=example", "CN=agent,O=example");
      assertThat(auth.getReadSubjects()).containsExactly("CN=reader,O=example");
    }
  }

  @Test
  void context_spanStoreSize_readAsBytes_negativeRefused() {
    try (ApplicationContext context = ApplicationContext.run(
        Map.of("spanprof.ingest.span-store-size", "64MB"), Environment.TEST)) {
      assertThat(context.getBean(IngestConfiguration.class).getSpanStoreSize())
          .isEqualTo(64L * 1024 * 1024);
    }
    assertThatThrownBy(() -> new IngestConfiguration().setSpanStoreSize(-1))
        .hasMessage("spanprof.ingest.span-store-size must not be negative, was -1");
  }

  @Test
  void readme_documentsEverySpanprofKeyOfApplicationYml() throws Exception {
    Path root = repositoryRoot();
    String readme = Files.readString(root.resolve("docs/configuration.md"));
    Map<String, Object> yaml = new Yaml().load(
        Files.readString(root.resolve("service/src/main/resources/application.yml")));
    TreeSet<String> keys = new TreeSet<>();
    collectKeys("", yaml, keys);

    assertThat(keys.stream().filter(key -> key.startsWith("spanprof.")))
        .isNotEmpty()
        .allSatisfy(key -> assertThat(readme).contains("| `" + key + "` |"));
  }

  /**
   * Every property of every {@code @ConfigurationProperties} class (a setter, its own or
   * inherited) has its row in docs/configuration.md: a key added to the code cannot go
   * undocumented.
   */
  @Test
  void configurationDoc_documentsEveryConfigurationProperty() throws Exception {
    Path root = repositoryRoot();
    String doc = Files.readString(root.resolve("docs/configuration.md"));
    List<String> missing = new ArrayList<>();
    int classes = 0;
    for (JavaClass type : new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.spanprof.config")) {
      Class<?> reflected = type.reflect();
      ConfigurationProperties properties = reflected.getAnnotation(ConfigurationProperties.class);
      if (properties == null || reflected.getEnclosingClass() != null) {
        continue;
      }
      classes++;
      for (Method method : reflected.getMethods()) {
        if (method.getName().startsWith("set") && method.getParameterCount() == 1
            && method.getDeclaringClass() != Object.class) {
          String key = properties.value() + "." + kebab(method.getName().substring(3));
          if (!doc.contains("`" + key + "`")) {
            missing.add(key);
          }
        }
      }
    }
    assertThat(classes).isGreaterThan(10);
    assertThat(missing).as("keys docs/configuration.md does not document").isEmpty();
  }

  /** The repository's root: the first directory up with both README.md and pom.xml. */
  private static Path repositoryRoot() {
    Path root = Path.of("").toAbsolutePath();
    while (!Files.exists(root.resolve("README.md")) || !Files.exists(root.resolve("pom.xml"))) {
      root = root.getParent();
    }
    return root;
  }

  private static String kebab(String property) {
    return property.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  void configFile_mapKeysKeepTheirCase() throws Exception {
    // Pool ids and operation names are case-sensitive; Micronaut lowercases map keys by default.
    Path file = Files.createTempFile("spanprof-", ".yml");
    try {
      Files.writeString(file, String.join("\n",
          "spanprof:",
          "  pools:",
          "    capacity:",
          "      'Checkout/C1': 8",
          "  histogram:",
          "    expected-interval:",
          "      'Checkout/GetCart': 10ms",
          ""));
      System.setProperty("micronaut.config.files", file.toString());
      try (ApplicationContext context = ApplicationContext.run(Environment.TEST)) {
        assertThat(context.getBean(PoolsConfiguration.class).getCapacity())
            .containsExactly(Map.entry("Checkout/C1", 8.0));
        assertThat(context.getBean(HistogramConfiguration.class).getExpectedInterval())
            .containsExactly(Map.entry("Checkout/GetCart", Duration.ofMillis(10)));
      } finally {
        System.clearProperty("micronaut.config.files");
      }
    } finally {
      Files.delete(file);
    }
  }

  @Test
  void start_invalidAssemblyValue_failsNamingThePrefix() {
    assertThatThrownBy(() -> ApplicationContext.run(
            Map.of("spanprof.assembly.trace-timeout", "0s"), Environment.TEST).close())
        .hasStackTraceContaining("invalid spanprof.assembly configuration: traceTimeout must be positive");
  }

  @Test
  void analysisWorkers_zero_meansOnePerProcessor() {
    AnalysisConfiguration analysis = new AnalysisConfiguration();
    assertThat(analysis.effectiveWorkers()).isEqualTo(Runtime.getRuntime().availableProcessors());
    analysis.setWorkers(3);
    assertThat(analysis.effectiveWorkers()).isEqualTo(3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"spanprof.analysis.workers", "spanprof.ingest.grpc-threads"})
  void start_negativeThreadCount_failsNamingTheKey(String key) {
    assertThatThrownBy(() -> ApplicationContext.run(Map.of(key, "-1"), Environment.TEST).close())
        .hasStackTraceContaining(key + " must not be negative, was -1");
  }

  @Test
  void grpcThreads_zero_meansOnePerProcessor() {
    IngestConfiguration ingest = new IngestConfiguration();
    assertThat(ingest.effectiveGrpcThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
    ingest.setGrpcThreads(3);
    assertThat(ingest.effectiveGrpcThreads()).isEqualTo(3);
  }

  @Test
  void start_poolLatenessNotAboveTraceTimeout_failsNamingBothKeys() {
    assertThatThrownBy(() -> ApplicationContext.run(
            Map.of("spanprof.pools.lateness", "5s"), Environment.TEST).close())
        .hasStackTraceContaining(
            "spanprof.pools.lateness (PT5S) must exceed spanprof.assembly.trace-timeout (PT5S)");
  }

  @Test
  void heapShare_scalesBelowTheReferenceHeap_notAbove() {
    long mib = 1 << 20;
    assertThat(HeapShare.scaled(500_000, 512 * mib)).isEqualTo(125_000);
    assertThat(HeapShare.scaled(500_000, 2048 * mib)).isEqualTo(500_000);
    assertThat(HeapShare.scaled(500_000, 8192 * mib)).isEqualTo(500_000);
    assertThat(HeapShare.scaled(10, 1)).as("never 0").isEqualTo(1);
  }

  @Test
  void defaults_ofTheBoundsHeldInMemory_areTheirReferenceValuesScaledToThisHeap() {
    assertThat(new AssemblyConfiguration().getMaxBufferedSpans())
        .isEqualTo(HeapShare.scaled(AssemblyConfiguration.DEFAULT_MAX_BUFFERED_SPANS));
    assertThat(new AssemblyConfiguration().getMaxSpansPerTrace())
        .isEqualTo(HeapShare.scaled(AssemblyConfiguration.DEFAULT_MAX_SPANS_PER_TRACE));
    assertThat(new AnalysisConfiguration().getMaxQueuedSpans())
        .isEqualTo(HeapShare.scaled(AnalysisConfiguration.DEFAULT_MAX_QUEUED_SPANS));
    assertThat(new ExportConfiguration().getQueueSpans())
        .isEqualTo(HeapShare.scaled(ExportConfiguration.DEFAULT_QUEUE_SPANS));
    assertThat(new IngestConfiguration().getSpanStoreSize())
        .isEqualTo(HeapShare.scaled(IngestConfiguration.DEFAULT_SPAN_STORE_SIZE));
    assertThat(new MetricsConfiguration().getMaxSeries())
        .isEqualTo(HeapShare.scaled(MetricsConfiguration.DEFAULT_MAX_SERIES));
    assertThat(new QueryConfiguration().getRecentTraces())
        .isEqualTo(HeapShare.scaled(QueryConfiguration.DEFAULT_RECENT_TRACES));
    assertThat(new AssemblyConfiguration().getMaxSpansPerTrace())
        .as("a fragment fits both queues at any heap")
        .isLessThanOrEqualTo((int) new AnalysisConfiguration().getMaxQueuedSpans())
        .isLessThanOrEqualTo(new ExportConfiguration().getQueueSpans());
  }

  @Test
  void start_analysisQueueSmallerThanAFragment_failsNamingBothKeys() {
    assertThatThrownBy(() -> ApplicationContext.run(
            Map.of("spanprof.analysis.max-queued-spans", "999",
                "spanprof.assembly.max-spans-per-trace", "1000"), Environment.TEST).close())
        .hasStackTraceContaining("spanprof.analysis.max-queued-spans must hold the largest fragment "
            + "of a trace, spanprof.assembly.max-spans-per-trace=1000, was 999");
  }

  @Test
  void start_forwardingQueueSmallerThanAFragment_failsNamingBothKeys() {
    assertThatThrownBy(() -> ApplicationContext.run(
            Map.of("spanprof.export.endpoint", "http://localhost:4317",
                "spanprof.export.queue-spans", "500",
                "spanprof.assembly.max-spans-per-trace", "1000"), Environment.TEST).close())
        .hasStackTraceContaining("spanprof.export.queue-spans must hold the largest fragment "
            + "of a trace, spanprof.assembly.max-spans-per-trace=1000, was 500");
  }

  @SuppressWarnings("unchecked")
  private static void collectKeys(String prefix, Map<String, Object> node, TreeSet<String> keys) {
    node.forEach((name, value) -> {
      String key = prefix.isEmpty() ? name : prefix + "." + name;
      if (value instanceof Map<?, ?> child) {
        collectKeys(key, (Map<String, Object>) child, keys);
      } else {
        keys.add(key);
      }
    });
  }
}
