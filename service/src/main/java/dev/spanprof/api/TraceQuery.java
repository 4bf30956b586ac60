package dev.spanprof.api;

import dev.spanprof.assembly.Completion;
import dev.spanprof.span.Operation;
import io.micronaut.http.HttpParameters;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

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
 * @param offset how many of the matching traces, in order, to pass over: the page
 * @param minStartNanos the earliest trace start, epoch nanoseconds
 * @param maxStartNanos the latest trace start, epoch nanoseconds
 * @param attributes attributes some span of the trace, or its resource, has, each key with the
 *     text of its value; only traces whose original spans are still kept can match
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
    int limit,
    int offset,
    long minStartNanos,
    long maxStartNanos,
    Map<String, String> attributes) {

  static final int DEFAULT_LIMIT = 50;
  /** The query parameters that name an attribute to match: {@code attr.http.route=/cart}. */
  static final String ATTRIBUTE_PREFIX = "attr.";

  /**
   * The query the parameters of {@code GET /api/v1/traces} ask for, as HTTP gives them (the first
   * value of each); others are not read. Throws with a message fit for a 400 answer.
   */
  static TraceQuery parse(Map<String, String> parameters) {
    Map<String, String> attributes = new TreeMap<>();
    parameters.forEach((name, value) -> {
      if (name.startsWith(ATTRIBUTE_PREFIX)) {
        attributes.put(name.substring(ATTRIBUTE_PREFIX.length()), value);
      }
    });
    return of(parameters.get("service"), parameters.get("operation"),
        parameters.get("containsService"), parameters.get("containsOperation"),
        number("minTtcNs", parameters.get("minTtcNs"), 0),
        number("maxTtcNs", parameters.get("maxTtcNs"), Long.MAX_VALUE),
        fraction("minParallelism", parameters.get("minParallelism"), 0),
        fraction("maxParallelism", parameters.get("maxParallelism"), Double.POSITIVE_INFINITY),
        parameters.get("completion"), parameters.get("error"), parameters.get("order"),
        count("limit", parameters.get("limit"), DEFAULT_LIMIT))
        .narrowed(count("offset", parameters.get("offset"), 0),
            number("minStartNs", parameters.get("minStartNs"), Long.MIN_VALUE),
            number("maxStartNs", parameters.get("maxStartNs"), Long.MAX_VALUE), attributes);
  }

  /** The first value of each of a request's query parameters. */
  static Map<String, String> firstValues(HttpParameters parameters) {
    Map<String, String> first = new HashMap<>();
    for (String name : parameters.names()) {
      first.put(name, parameters.get(name));
    }
    return first;
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
        limit, 0, Long.MIN_VALUE, Long.MAX_VALUE, Map.of());
  }

  /**
   * This query narrowed to a page, a range of trace starts and attributes (the parameters named
   * {@code attr.KEY}); throws with a message fit for a 400 answer.
   */
  TraceQuery narrowed(int offset, long minStartNanos, long maxStartNanos,
      Map<String, String> attributes) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must not be negative, got " + offset);
    }
    for (String key : attributes.keySet()) {
      if (key.isEmpty()) {
        throw new IllegalArgumentException("an attribute filter needs a key: attr.KEY=VALUE");
      }
    }
    return new TraceQuery(service, operation, contains, minTtcNs, maxTtcNs, minParallelism,
        maxParallelism, completion, error, slowest, limit, offset, minStartNanos, maxStartNanos,
        Map.copyOf(attributes));
  }

  /**
   * The same query from its first match, for {@code offset + limit} of them: what each replica
   * is asked, so that the page can be cut from their merged answers.
   */
  TraceQuery fromFirst() {
    return new TraceQuery(service, operation, contains, minTtcNs, maxTtcNs, minParallelism,
        maxParallelism, completion, error, slowest, (int) Math.min(Integer.MAX_VALUE,
        (long) offset + limit), 0, minStartNanos, maxStartNanos, attributes);
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
    if (offset > 0) {
      query.append("&offset=").append(offset);
    }
    if (minStartNanos != Long.MIN_VALUE) {
      query.append("&minStartNs=").append(minStartNanos);
    }
    if (maxStartNanos != Long.MAX_VALUE) {
      query.append("&maxStartNs=").append(maxStartNanos);
    }
    attributes.forEach((key, value) -> append(query, ATTRIBUTE_PREFIX + key, value));
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
        && summary.startNanos() >= minStartNanos && summary.startNanos() <= maxStartNanos
        && (contains == null || operations.contains(contains));
  }

  /**
   * Whether a kept trace has the attributes asked for; its original spans (null when no longer
   * kept) are read only when some are.
   */
  boolean matchesAttributes(Supplier<OriginalSpans> originals) {
    if (attributes.isEmpty()) {
      return true;
    }
    OriginalSpans spans = originals.get();
    return spans != null && spans.hasAttributes(attributes);
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

  /** A number of rows: an integer that fits an int. */
  private static int count(String name, String value, int absent) {
    long count = number(name, value, absent);
    if (count != (int) count) {
      throw new IllegalArgumentException(name + " must be at most " + Integer.MAX_VALUE
          + ", got " + value);
    }
    return (int) count;
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
