package dev.spanprof.bench;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the generator's workload ({@link Workload}) to a Kafka topic as the Collector's Kafka
 * exporter writes it with {@code partition_traces_by_id}: one record per trace, keyed by the
 * trace id in hex, its value the trace's spans as an OTLP ExportTraceServiceRequest (lz4, as
 * deploy/otel-collector/kafka configures the exporter). For bench/kafka.sh.
 *
 * <pre>
 *   --bootstrap=HOST:PORT --topic=otlp_spans --partitions=6 (made when missing)
 *   --rate=SPANS_PER_SECOND (0: as fast as the broker takes them) --duration=60s | --spans=N
 *   --spans-per-trace=20
 * </pre>
 */
public final class KafkaLoad {

  private KafkaLoad() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = LoadGenerator.flags(args);
    String bootstrap = flags.getOrDefault("bootstrap", "localhost:9092");
    String topic = flags.getOrDefault("topic", "otlp_spans");
    int partitions = Integer.parseInt(flags.getOrDefault("partitions", "6"));
    long rate = Long.parseLong(flags.getOrDefault("rate", "0"));
    int spansPerTrace = Integer.parseInt(flags.getOrDefault("spans-per-trace", "20"));
    long spans = flags.containsKey("spans") ? Long.parseLong(flags.get("spans")) : Long.MAX_VALUE;
    Duration duration = LoadGenerator.parseDuration(flags.getOrDefault("duration", "0s"));
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
            .get(30, TimeUnit.SECONDS);
      }
    }
    Workload workload = new Workload(spansPerTrace, spansPerTrace);
    long written = 0;
    long startNanos = System.nanoTime();
    long endNanos = duration.isZero() ? Long.MAX_VALUE : startNanos + duration.toNanos();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, "5",
        ProducerConfig.BATCH_SIZE_CONFIG, "262144",
        ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      while (written < spans && System.nanoTime() < endNanos) {
        if (rate > 0) {
          long dueNanos = startNanos + written * 1_000_000_000L / rate;
          long aheadNanos = dueNanos - System.nanoTime();
          if (aheadNanos > 0) {
            TimeUnit.NANOSECONDS.sleep(aheadNanos);
          }
        }
        ExportTraceServiceRequest trace = workload.request(System.currentTimeMillis() * 1_000_000L);
        byte[] traceId = trace.getResourceSpans(0).getScopeSpans(0).getSpans(0).getTraceId()
            .toByteArray();
        producer.send(new ProducerRecord<>(topic, HexFormat.of().formatHex(traceId)
            .getBytes(StandardCharsets.US_ASCII), trace.toByteArray()));
        written += spansPerTrace;
      }
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    System.out.printf(Locale.ROOT, "wrote %d spans in %.1f s (%.0f spans/s)%n", written, seconds,
        written / seconds);
  }
}
