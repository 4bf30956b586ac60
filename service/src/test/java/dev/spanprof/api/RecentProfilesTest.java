package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.pool.ChosenSegment;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.StateClass;
import dev.spanprof.span.TraceId;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class RecentProfilesTest {

  @Test
  void get_keptTrace_answersWithItsProfileWithoutSegments() {
    RecentProfiles recent = recentProfiles(3);
    TraceId id = new TraceId(1, 2);

    keep(recent, id, 5);

    assertThat(recent.get(id)).hasValueSatisfying(profile -> {
      assertThat(profile.spanCount()).isEqualTo(5);
      assertThat(profile.segments()).isEmpty();
    });
    assertThat(recent.get(new TraceId(1, 3))).isEmpty();
  }

  @Test
  void get_idsSharingTheirLowHalf_tellsThemApart() {
    RecentProfiles recent = recentProfiles(3);
    TraceId first = new TraceId(1, 7);
    TraceId second = new TraceId(2, 7);

    keep(recent, first, 1);
    keep(recent, second, 2);

    assertThat(recent.get(first)).map(TraceProfile::spanCount).hasValue(1);
    assertThat(recent.get(second)).map(TraceProfile::spanCount).hasValue(2);
    assertThat(recent.get(new TraceId(3, 7))).isEmpty();
  }

  @Test
  void get_moreAnalysesThanKept_forgetsTheOldestFirst() {
    RecentProfiles recent = recentProfiles(3);
    for (long low = 1; low <= 5; low++) {
      TraceId id = new TraceId(0, low);
      keep(recent, id, (int) low);
    }

    assertThat(recent.get(new TraceId(0, 1))).isEmpty();
    assertThat(recent.get(new TraceId(0, 2))).isEmpty();
    for (long low = 3; low <= 5; low++) {
      assertThat(recent.get(new TraceId(0, low))).map(TraceProfile::spanCount).hasValue((int) low);
    }
  }

  /** A late fragment never replaces what was analysed before (semantics.md §2). */
  @Test
  void get_traceAnalysedAgain_answersWithItsLargestFragmentListingTheOthers() {
    RecentProfiles recent = recentProfiles(5);
    TraceId id = new TraceId(4, 4);
    TraceId other = new TraceId(5, 5);
    TraceId tied = new TraceId(6, 6);

    keep(recent, id, 22);
    keep(recent, other, 9);
    keep(recent, id, 1);
    keep(recent, tied, 3);
    keep(recent, tied, 3);

    assertThat(recent.get(id)).map(TraceProfile::spanCount).hasValue(22);
    assertThat(recent.find(id)).hasValueSatisfying(found -> {
      assertThat(found.summary().spanCount()).isEqualTo(22);
      assertThat(found.summary().fragments())
          .containsExactly(new TraceSummary.Fragment(1, "timeout"));
    });
    assertThat(recent.get(other)).map(TraceProfile::spanCount).hasValue(9);
    assertThat(recent.find(tied)).hasValueSatisfying(found ->
        assertThat(found.others()).singleElement().isNotSameAs(found.shown()));
  }

  @Test
  void search_traceWithALateFragment_listedOnceAsItsLargestFragment() {
    RecentProfiles recent = recentProfiles(10);
    TraceId checkout = new TraceId(0, 1);
    analyse(recent, checkout, "checkout", 40, Completion.TIMEOUT);
    analyse(recent, new TraceId(0, 2), "GET /b", 10, Completion.TIMEOUT);
    List<SpanRecord> late = new TraceBuilder().span("consume", "producer", "t3", 500, 600).spans();
    recent.accept(new CompletedTrace(checkout, late, Completion.TIMEOUT, true, 0),
        new TraceAnalyzer(SpanMapping.defaults()).analyze(checkout, late), 0);

    List<TraceSummary> rows = recent.search(query(null, null, null, null));

    assertThat(rows).extracting(TraceSummary::traceId)
        .containsExactly(new TraceId(0, 2).toHex(), checkout.toHex());
    assertThat(rows.get(1).rootOperation()).isEqualTo("checkout");
    assertThat(rows.get(1).spanCount()).isEqualTo(2);
    assertThat(rows.get(1).fragments()).containsExactly(new TraceSummary.Fragment(1, "timeout"));
  }

  @Test
  void search_errorFilter_andCountsOfErrorsAndOrphans() {
    RecentProfiles recent = recentProfiles(10);
    TraceId failed = new TraceId(0, 1);
    List<SpanRecord> spans = new TraceBuilder().span("pay", null, "t1", 0, 100)
        .failed("bank", "pay", "t1", 10, 50)
        .span("audit", "missing-parent", "t2", 20, 30)
        .spans();
    recent.accept(new CompletedTrace(failed, spans, Completion.TIMEOUT, false, 0),
        new TraceAnalyzer(SpanMapping.defaults()).analyze(failed, spans), 0);
    analyse(recent, new TraceId(0, 2), "GET /b", 10, Completion.TIMEOUT);

    List<TraceSummary> errors = recent.search(parse("error", "true"));
    List<TraceSummary> clean = recent.search(parse("error", "false"));

    assertThat(errors).singleElement().satisfies(row -> {
      assertThat(row.traceId()).isEqualTo(failed.toHex());
      assertThat(row.errorCount()).isEqualTo(1);
      assertThat(row.orphanCount()).isEqualTo(1);
      assertThat(row.complete()).as("an orphan's parent never arrived").isFalse();
    });
    assertThat(clean).extracting(TraceSummary::rootOperation).containsExactly("GET /b");
  }

  @Test
  void search_byDefault_listsTheNewestFirstUpToTheLimit() {
    RecentProfiles recent = recentProfiles(10);
    for (long low = 1; low <= 4; low++) {
      analyse(recent, new TraceId(0, low), "GET /" + low, 10 * low, Completion.TIMEOUT);
    }

    assertThat(recent.search(query(null, null, null, null)))
        .extracting(TraceSummary::rootOperation)
        .containsExactly("GET /4", "GET /3", "GET /2", "GET /1");
    assertThat(recent.search(query(null, null, null, "2")))
        .extracting(TraceSummary::rootOperation).containsExactly("GET /4", "GET /3");
  }

  @Test
  void search_slowest_ordersByTtcDescending() {
    RecentProfiles recent = recentProfiles(10);
    long[] ttcs = {30, 10, 50, 20};
    for (int k = 0; k < ttcs.length; k++) {
      analyse(recent, new TraceId(0, k + 1), "GET /" + k, ttcs[k], Completion.TIMEOUT);
    }

    assertThat(recent.search(query(null, null, "slowest", "3")))
        .extracting(TraceSummary::ttcNs).containsExactly(50L, 30L, 20L);
  }

  @Test
  void search_filters_matchRootOperationTtcCompletionAndContainedOperation() {
    RecentProfiles recent = recentProfiles(10);
    analyse(recent, new TraceId(0, 1), "GET /a", 10, Completion.TIMEOUT);
    analyse(recent, new TraceId(0, 2), "GET /a", 40, Completion.EVICTED);
    analyse(recent, new TraceId(0, 3), "GET /b", 40, Completion.TIMEOUT);

    assertThat(recent.search(query("GET /a", null, null, null)))
        .extracting(TraceSummary::traceId)
        .containsExactly(new TraceId(0, 2).toHex(), new TraceId(0, 1).toHex());
    assertThat(recent.search(query(null, "20", null, null)))
        .extracting(TraceSummary::rootOperation).containsExactly("GET /b", "GET /a");
    assertThat(recent.search(parse("completion", "evicted"))).extracting(TraceSummary::ttcNs).containsExactly(40L);
    assertThat(recent.search(parse("containsService", "svc", "containsOperation", "child"))).hasSize(3);
    assertThat(recent.search(parse("containsService", "svc", "containsOperation", "GET /b"))).extracting(TraceSummary::rootOperation)
        .containsExactly("GET /b");
  }

  @Test
  void search_offset_turnsThePagesOfTheSameOrder() {
    RecentProfiles recent = recentProfiles(10);
    for (long low = 1; low <= 5; low++) {
      analyse(recent, new TraceId(0, low), "GET /" + low, 10 * low, Completion.TIMEOUT);
    }

    assertThat(recent.search(parse("limit", "2", "offset", "2")))
        .extracting(TraceSummary::rootOperation).containsExactly("GET /3", "GET /2");
    assertThat(recent.search(parse("order", "slowest", "limit", "2", "offset", "3")))
        .extracting(TraceSummary::ttcNs).containsExactly(20L, 10L);
    assertThat(recent.search(parse("offset", "5"))).isEmpty();
    assertThatThrownBy(() -> parse("offset", "-1"))
        .hasMessage("offset must not be negative, got -1");
    assertThatThrownBy(() -> parse("offset", "4294967296"))
        .hasMessage("offset must be at most 2147483647, got 4294967296");
    assertThat(parse("offset", String.valueOf(Integer.MAX_VALUE), "limit", "50").fromFirst()
        .limit()).as("no overflow").isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void search_startRange_keepsTheTracesThatStartedInIt() {
    RecentProfiles recent = recentProfiles(10);
    for (long low = 1; low <= 3; low++) {
      List<SpanRecord> spans = new TraceBuilder().span("GET /" + low, null, "t1", low * 1000,
          low * 1000 + 10).spans();
      TraceId id = new TraceId(0, low);
      recent.accept(new CompletedTrace(id, spans, Completion.TIMEOUT, false, 0),
          new TraceAnalyzer(SpanMapping.defaults()).analyze(id, spans), 0);
    }

    assertThat(recent.search(parse("minStartNs", "2000", "maxStartNs", "3000")))
        .extracting(TraceSummary::startNanos).containsExactly(3000L, 2000L);
    assertThat(recent.search(parse("maxStartNs", "1999")))
        .extracting(TraceSummary::startNanos).containsExactly(1000L);
  }

  /**
   * The original spans stay within their budget, the oldest trace's going first; its profile is
   * still answered, without them.
   */
  @Test
  void originals_overTheirBudget_goOldestFirstAndTheProfileStays() {
    List<SpanRecord> spans = new TraceBuilder().span("GET /a", null, "t1", 0, 10).spans();
    OriginalSpanLog probe = new OriginalSpanLog(1 << 20);
    probe.append(spans);
    long entryBytes = probe.append(spans);
    QueryConfiguration configuration = new QueryConfiguration();
    configuration.setRecentTraces(10);
    configuration.setRecentTraceBytes(2 * entryBytes);
    RecentProfiles recent = new RecentProfiles(configuration);
    for (long low = 1; low <= 3; low++) {
      TraceId id = new TraceId(0, low);
      recent.accept(new CompletedTrace(id, spans, Completion.TIMEOUT, false, 0),
          new TraceAnalyzer(SpanMapping.defaults()).analyze(id, spans), 0);
    }

    assertThat(recent.find(new TraceId(0, 1))).hasValueSatisfying(found ->
        assertThat(recent.originals(found)).isNull());
    assertThat(recent.find(new TraceId(0, 2))).hasValueSatisfying(found ->
        assertThat(recent.originals(found)).isNotNull());
    assertThat(recent.find(new TraceId(0, 3))).hasValueSatisfying(found ->
        assertThat(recent.originals(found)).isNotNull());
  }

  /** What a replica is asked is the query it was given: the peers read it back whole. */
  @Test
  void toQueryString_readsBackAsTheSameQuery() {
    TraceQuery query = parse("service", "shop", "operation", "GET /a&b", "error", "true",
        "offset", "40", "limit", "20", "minStartNs", "1000", "maxStartNs", "2000",
        "attr.http.route", "/api/checkout?x=1", "attr.k8s.pod.name", "pod 1", "order", "slowest");

    Map<String, String> asked = new HashMap<>();
    for (String parameter : query.toQueryString().split("&")) {
      String[] nameAndValue = parameter.split("=", 2);
      asked.put(URLDecoder.decode(nameAndValue[0], StandardCharsets.UTF_8),
          URLDecoder.decode(nameAndValue[1], StandardCharsets.UTF_8));
    }

    assertThat(TraceQuery.parse(asked)).isEqualTo(query);
    assertThat(TraceQuery.parse(asked).fromFirst().limit()).isEqualTo(60);
  }

  @Test
  void summary_carriesTheRootAndTheTraceFigures() {
    RecentProfiles recent = recentProfiles(10);
    analyse(recent, new TraceId(0, 1), "GET /a", 40, Completion.TIMEOUT);
    analyse(recent, new TraceId(0, 2), "GET /b", 40, Completion.EVICTED);

    List<TraceSummary> rows = recent.search(query(null, null, null, null));

    TraceSummary evicted = rows.get(0);
    TraceSummary whole = rows.get(1);
    assertThat(whole.rootService()).isEqualTo("svc");
    assertThat(whole.rootOperation()).isEqualTo("GET /a");
    assertThat(whole.startNanos()).isEqualTo(100);
    assertThat(whole.ttcNs()).isEqualTo(40);
    assertThat(whole.ttxNs()).isEqualTo(40);
    assertThat(whole.criticalPathNs()).isEqualTo(40);
    assertThat(whole.spanCount()).isEqualTo(2);
    assertThat(whole.completion()).isEqualTo("timeout");
    assertThat(whole.complete()).isTrue();
    assertThat(evicted.completion()).isEqualTo("evicted");
    assertThat(evicted.complete()).isFalse();
  }

  @Test
  void parse_malformedFilters_explainWhatIsWrong() {
    assertThatThrownBy(() -> query(null, null, "fastest", null))
        .hasMessage("order must be newest or slowest, got 'fastest'");
    assertThatThrownBy(() -> query(null, null, null, "0"))
        .hasMessage("limit must be at least 1, got 0");
    assertThatThrownBy(() -> query(null, "ten", null, null))
        .hasMessage("minTtcNs must be an integer, got 'ten'");
    assertThatThrownBy(() -> parse("containsService", "svc")).hasMessageContaining("containsService and containsOperation");
    assertThatThrownBy(() -> parse("completion", "bogus")).hasMessage("completion must be one of [timeout, max_age, "
            + "evicted, span_limit, shutdown], got 'bogus'");
    assertThatThrownBy(() -> parse("error", "maybe")).hasMessage("error must be true or false, got 'maybe'");
  }

  private static TraceQuery query(String operation, String minTtcNs, String order, String limit) {
    Map<String, String> parameters = new HashMap<>();
    parameters.put("operation", operation);
    parameters.put("minTtcNs", minTtcNs);
    parameters.put("order", order);
    parameters.put("limit", limit);
    parameters.values().removeIf(Objects::isNull);
    return TraceQuery.parse(parameters);
  }

  /** The query of these parameters: name, value, name, value… */
  private static TraceQuery parse(String... namesAndValues) {
    Map<String, String> parameters = new HashMap<>();
    for (int k = 0; k < namesAndValues.length; k += 2) {
      parameters.put(namesAndValues[k], namesAndValues[k + 1]);
    }
    return TraceQuery.parse(parameters);
  }

  /** Hands {@code recent} the analysis of a root {@code operation} of {@code ttcNs} and a child. */
  private static void analyse(RecentProfiles recent, TraceId id, String operation, long ttcNs,
      Completion completion) {
    List<SpanRecord> spans = new TraceBuilder()
        .span(operation, null, "t1", 100, 100 + ttcNs)
        .span("child", operation, "t2", 100, 100 + ttcNs / 2)
        .spans();
    TraceProfile profile = new TraceAnalyzer(SpanMapping.defaults()).analyze(id, spans);
    recent.accept(new CompletedTrace(id, spans, completion, false, 0), profile, 0);
  }

  private static RecentProfiles recentProfiles(int capacity) {
    QueryConfiguration configuration = new QueryConfiguration();
    configuration.setRecentTraces(capacity);
    return new RecentProfiles(configuration);
  }

  /** Hands {@code recent} an analysis of {@code id} with {@code spanCount} spans. */
  private static void keep(RecentProfiles recent, TraceId id, int spanCount) {
    recent.accept(
        new CompletedTrace(id, List.of(), Completion.TIMEOUT, false, 0), profile(id, spanCount), 0);
  }

  private static TraceProfile profile(TraceId id, int spanCount) {
    ChosenSegment segment = new ChosenSegment("pool", "running", StateClass.CPU, "cpu", 1, 0, 10);
    return new TraceProfile(id, spanCount, 0, 0, 0, 0, 0, 0, 0, List.of(), List.of(), List.of(),
        List.of(), List.of(), List.of(), List.of(), List.of(segment), -1, null, null, 0);
  }
}
