package dev.spanprof.export;

import java.time.Duration;

/**
 * What forwarding reports; the service binds it to Micrometer. At every instant, of the spans
 * handed to forwarding: exported + failed (by reason) + queued (waiting or in flight) = handed.
 */
public interface ExportListener {

  void onExported(long spans);

  /** Spans given up: {@code queue_full}, {@code retries_exhausted}, {@code shutdown},
   *  {@code rejected} (partial success), {@code tls}, or the next hop's status. */
  void onFailed(String reason, long spans);

  void onRetry(String reason);

  /**
   * Spans forwarded with their invalid UTF-8 repaired, after the next hop refused them as sent;
   * counted in {@link #onExported} too.
   */
  void onRepaired(long spans);

  /** How long one request to the next hop took. */
  void onRequest(Duration latency);
}
