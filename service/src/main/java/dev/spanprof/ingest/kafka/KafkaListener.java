package dev.spanprof.ingest.kafka;

/** What the Kafka ingest reports; the service binds it to Micrometer. */
public interface KafkaListener {

  /** A record that could not be decoded (or could never be taken), skipped. */
  void onInvalidRecord();

  /** Spans forwarded once more: their record's previous owner had forwarded them already. */
  void onReplayed(int spans);

  /** Spans read again from before the committed offset to rebuild the windows, not forwarded. */
  void onWindowRebuilt(int spans);

  /**
   * Spans given up with their partition before their trace was analysed here: its next owner
   * reads them again.
   */
  void onHandedOver(int spans);

  /** The records of {@code partition} not yet read. */
  void onLag(int partition, long records);

  /** {@code partition} is no longer this consumer's: its lag is no longer reported here. */
  void onUnassigned(int partition);
}
