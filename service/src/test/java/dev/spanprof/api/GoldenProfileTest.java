package dev.spanprof.api;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.golden.JsonMatch;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import io.micronaut.serde.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every golden case: the OTLP/JSON through the service's decoder and mapper, the analysis with the
 * default mapping, the JSON view — compared with the expected file field by field. Twice: with
 * the spans mapped at ingest by the analysis's own mapping, as in the service, and by another, so
 * that the analysis maps them itself.
 */
class GoldenProfileTest {

  private final SpanMapping mapping = SpanMapping.defaults();
  private final TraceAnalyzer analyzer = new TraceAnalyzer(mapping);

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void analyze_goldenCaseMappedAtIngest_matchesExpectedProfile(String name) throws Exception {
    assertMatchesExpected(name, OtlpTestSpans.fromJson(GoldenCases.otlpJson(name), mapping));
  }

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void analyze_goldenCaseMappedByTheAnalysis_matchesExpectedProfile(String name) throws Exception {
    assertMatchesExpected(name, OtlpTestSpans.fromJson(GoldenCases.otlpJson(name)));
  }

  private void assertMatchesExpected(String name, List<SpanRecord> spans) throws Exception {
    String actual = ObjectMapper.getDefault().writeValueAsString(
        TraceProfileView.of(analyzer.analyze(spans.get(0).traceId(), spans)));

    JsonMatch.assertMatches(
        new String(GoldenCases.expectedJson(name), StandardCharsets.UTF_8), actual);
  }
}
