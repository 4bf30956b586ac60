package dev.spanprof.ingest;

/** How spans arrived; the {@code transport} label of the ingest metrics. */
public enum Transport {
  GRPC("grpc"),
  HTTP("http"),
  /** Read from a Kafka topic ({@code spanprof.kafka.*}). */
  KAFKA("kafka");

  private final String label;

  Transport(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
