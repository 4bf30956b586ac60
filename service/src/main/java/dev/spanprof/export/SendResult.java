package dev.spanprof.export;

import java.time.Duration;

/**
 * What the next hop made of one export request.
 *
 * @param outcome sent, worth retrying, or given up
 * @param rejectedSpans spans the next hop refused in a partial success
 * @param reason the failure's label ({@code unavailable}, {@code invalid_argument},
 *     {@code http_400}, {@code tls}, …), or "" when sent
 * @param retryAfter the delay the next hop asked for, or null
 * @param message what the next hop or the transport said
 */
record SendResult(
    Outcome outcome, long rejectedSpans, String reason, Duration retryAfter, String message) {

  enum Outcome { SENT, RETRY, FAILED }

  static SendResult sent(long rejectedSpans, String message) {
    return new SendResult(Outcome.SENT, rejectedSpans, "", null, message);
  }

  static SendResult retry(String reason, Duration retryAfter, String message) {
    return new SendResult(Outcome.RETRY, 0, reason, retryAfter, message);
  }

  static SendResult failed(String reason, String message) {
    return new SendResult(Outcome.FAILED, 0, reason, null, message);
  }
}
