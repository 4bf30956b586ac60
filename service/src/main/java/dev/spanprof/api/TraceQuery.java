package dev.spanprof.api;

import dev.spanprof.assembly.Completion;
import dev.spanprof.span.Operation;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What {@code GET /api/v1/traces} asks for: which recent traces, in which order, how many.
 * Absent filters match everything.
 *
 * @param service the root span's service
 * @param operation the root span's name
 * @param contains an operation some span of the trace has
 * @param completion a completion label ({@code timeout}, {@code evicted}, …)
 * @param error true: traces with an ERROR span only; false: without; null: either
 * @param slowest longest TTC first, else newest first
 */
record TraceQuery(
    String service,
    String operation,
    Operation contains,
    long minTtcNs,
    long maxTtcNs,
    double minParallelism,
    double maxParallelism,
    String completion,
    Boolean error,
    boolean slowest,
    int limit) {

  static final int DEFAULT_LIMIT = 50;

  /**
   * Parses the query parameters, as HTTP gives them; throws with a message fit for a 400 answer.
   */
  static TraceQuery parse(String service, String operation, String containsService,
      String containsOperation, String minTtcNs, String maxTtcNs, String minParallelism,
      String maxParallelism, String completion, String error, String order, String limit) {
    return of(service, operation, containsService, containsOperation,
        number("minTtcNs", minTtcNs, 0), number("maxTtcNs", maxTtcNs, Long.MAX_VALUE),
        fraction("minParallelism", minParallelism, 0),
        fraction("maxParallelism", maxParallelism, Double.POSITIVE_INFINITY), completion, error,
        order, (int) number("limit", limit, DEFAULT_LIMIT));
  }

  /**
   * The query from typed bounds (gRPC's fields) and the named choices, checked; null means not
   * given. Throws with a message fit for a 400 answer or INVALID_ARGUMENT.
   */
  static TraceQuery of(String service, String operation, String containsService,
      String containsOperation, long minTtcNs, long maxTtcNs, double minParallelism,
      double maxParallelism, String completion, String error, String order, int limit) {
    if ((containsService == null) != (containsOperation == null)) {
      throw new IllegalArgumentException(
          "containsService and containsOperation go together: give both or neither");
    }
    String orderName = order == null ? "newest" : order.toLowerCase(Locale.ROOT);
    if (!orderName.equals("newest") && !orderName.equals("slowest")) {
      throw new IllegalArgumentException("order must be newest or slowest, got '" + order + "'");
    }
    String completionLabel = completion == null ? null : completion.toLowerCase(Locale.ROOT);
    if (completionLabel != null && Arrays.stream(Completion.values())
        .noneMatch(known -> known.label().equals(completionLabel))) {
      throw new IllegalArgumentException("completion must be one of " + Arrays.stream(
          Completion.values()).map(Completion::label).toList() + ", got '" + completion + "'");
    }
    String errorName = error == null ? null : error.toLowerCase(Locale.ROOT);
    if (errorName != null && !errorName.equals("true") && !errorName.equals("false")) {
      throw new IllegalArgumentException("error must be true or false, got '" + error + "'");
    }
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return new TraceQuery(service, operation,
        containsService == null ? null : new Operation(containsService, containsOperation),
        minTtcNs, maxTtcNs, minParallelism, maxParallelism, completionLabel,
        errorName == null ? null : Boolean.valueOf(errorName), orderName.equals("slowest"),
        limit);
  }

  /** The query as {@link #parse} reads it, for asking the peers (without a leading {@code &}). */
  String toQueryString() {
    StringBuilder query = new StringBuilder("order=").append(slowest ? "slowest" : "newest")
        .append("&limit=").append(limit)
        .append("&minTtcNs=").append(minTtcNs)
        .append("&maxTtcNs=").append(maxTtcNs)
        .append("&minParallelism=").append(minParallelism);
    if (maxParallelism != Double.POSITIVE_INFINITY) {
      query.append("&maxParallelism=").append(maxParallelism);
    }
    append(query, "service", service);
    append(query, "operation", operation);
    if (contains != null) {
      append(query, "containsService", contains.service());
      append(query, "containsOperation", contains.name());
    }
    append(query, "completion", completion);
    append(query, "error", error == null ? null : error.toString());
    return query.toString();
  }

  private static void append(StringBuilder query, String name, String value) {
    if (value != null) {
      query.append('&').append(name).append('=').append(Fleet.encode(value));
    }
  }

  /** Whether a kept trace, of these distinct operations, matches. */
  boolean matches(TraceSummary summary, List<Operation> operations) {
    return (service == null || service.equals(summary.rootService()))
        && (operation == null || operation.equals(summary.rootOperation()))
        && summary.ttcNs() >= minTtcNs && summary.ttcNs() <= maxTtcNs
        && summary.parallelism() >= minParallelism && summary.parallelism() <= maxParallelism
        && (completion == null || completion.equals(summary.completion()))
        && (error == null || error == (summary.errorCount() > 0))
        && (contains == null || operations.contains(contains));
  }

  private static long number(String name, String value, long absent) {
    if (value == null) {
      return absent;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'");
    }
  }

  private static double fraction(String name, String value, double absent) {
    if (value == null) {
      return absent;
    }
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, got '" + value + "'");
    }
  }
}
