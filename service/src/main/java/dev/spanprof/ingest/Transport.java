package dev.spanprof.ingest;

/** How spans arrived; the {@code transport} label of the ingest metrics. */
public enum Transport {
  GRPC("grpc"),
  HTTP("http");

  private final String label;

  Transport(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
