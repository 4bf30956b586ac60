package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.OtlpReceiver;
import dev.spanprof.testing.OtlpReceiver.Received;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingProfiles;
import io.micronaut.context.ApplicationContext;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What forwarding promises over every protocol: each golden case's spans reach the next hop with
 * every original field unchanged, in their original resource and scope, plus the contract's
 * attributes with the values of the golden profile. Subclasses pick the protocol and receiver.
 */
abstract class ForwardingContract {

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject RecordingProfiles analysed;
  final OtlpReceiver receiver;

  ForwardingContract(OtlpReceiver receiver) {
    this.receiver = receiver;
  }

  @AfterAll
  void stopReceiver() throws InterruptedException {
    receiver.close();
  }

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void goldenCase_forwardedUnchangedPlusTheProfileAttributes(String name) throws Exception {
    ExportTraceServiceRequest original = OtlpTestSpans.decodeJson(GoldenCases.otlpJson(name));
    JsonObject expected = JsonParser.parseString(
        new String(GoldenCases.expectedJson(name), StandardCharsets.UTF_8)).getAsJsonObject();
    TraceId traceId = TraceId.fromHex(expected.get("traceId").getAsString());
    ByteString traceBytes = ByteString.copyFrom(HexFormat.of().parseHex(traceId.toHex()));
    int spanCount = expected.get("spanCount").getAsInt();

    HttpResponse<String> posted = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(GoldenCases.otlpJson(name))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(posted.statusCode()).isEqualTo(200);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    List<Received> received = receiver.await(
        span -> span.span().getTraceId().equals(traceBytes), spanCount, Duration.ofSeconds(30));

    assertThat(received).hasSize(spanCount);
    Map<ByteString, JsonObject> expectedSpans = new HashMap<>();
    for (JsonElement span : expected.getAsJsonArray("spans")) {
      expectedSpans.put(ByteString.copyFrom(HexFormat.of().parseHex(
          span.getAsJsonObject().get("spanId").getAsString())), span.getAsJsonObject());
    }
    // A span whose parent never arrived is an orphan, and its trace not complete (semantics §2).
    boolean orphans = received.stream().map(span -> find(original, span.span().getSpanId()).span())
        .anyMatch(span -> !span.getParentSpanId().isEmpty()
            && !expectedSpans.containsKey(span.getParentSpanId()));
    int roots = 0;
    for (Received forwarded : received) {
      Origin origin = find(original, forwarded.span().getSpanId());
      Span sent = origin.span();
      // Every original field unchanged: the original attributes come first, then the added ones.
      Span withoutAdded = forwarded.span().toBuilder().clearAttributes()
          .addAllAttributes(forwarded.span().getAttributesList().subList(0, sent.getAttributesCount()))
          .build();
      assertThat(withoutAdded).isEqualTo(sent);
      assertThat(forwarded.resource().getResource()).isEqualTo(origin.resource().getResource());
      assertThat(forwarded.scope().getScope()).isEqualTo(origin.scope().getScope());

      Map<String, AnyValue> attributes = attributes(forwarded.span());
      JsonObject profile = expectedSpans.get(forwarded.span().getSpanId());
      assertThat(attributes.get("spanprof.resource").getStringValue())
          .isEqualTo(profile.get("resource").getAsString());
      assertThat(attributes.get("spanprof.state").getStringValue())
          .isEqualTo(profile.get("state").getAsString());
      assertThat(attributes.get("spanprof.self_time_ns").getIntValue())
          .isEqualTo(profile.get("selfTimeNs").getAsLong());
      assertThat(attributes.get("spanprof.critical_path_ns").getIntValue())
          .isEqualTo(profile.get("criticalPathNs").getAsLong());
      assertThat(attributes).containsKey("spanprof.on_critical_path");
      assertThat(attributes.get("spanprof.duration_percentile").getDoubleValue()).isBetween(0.0, 100.0);
      if (attributes.containsKey("spanprof.trace.span_time_ns")) {
        roots++;
        assertThat(attributes.get("spanprof.trace.span_time_ns").getIntValue())
            .isEqualTo(expected.get("spanTimeNs").getAsLong());
        assertThat(attributes.get("spanprof.trace.resource_time_ns").getIntValue())
            .isEqualTo(expected.get("resourceTimeNs").getAsLong());
        assertThat(attributes.get("spanprof.trace.ttx_ns").getIntValue())
            .isEqualTo(expected.get("ttxNs").getAsLong());
        assertThat(attributes.get("spanprof.trace.ttc_ns").getIntValue())
            .isEqualTo(expected.get("ttcNs").getAsLong());
        assertThat(attributes.get("spanprof.trace.parallelism").getDoubleValue())
            .isCloseTo(expected.get("parallelism").getAsDouble(), within(1e-12));
        assertThat(attributes.get("spanprof.trace.complete").getBoolValue())
            .isEqualTo(sent.getParentSpanId().isEmpty() && !orphans);
      }
    }
    assertThat(roots).as("trace attributes on the primary root only").isEqualTo(1);
  }

  /** The first value of each attribute key: an attribute the span had is never replaced. */
  static Map<String, AnyValue> attributes(Span span) {
    Map<String, AnyValue> values = new HashMap<>();
    for (KeyValue attribute : span.getAttributesList()) {
      values.putIfAbsent(attribute.getKey(), attribute.getValue());
    }
    return values;
  }

  private record Origin(ResourceSpans resource, ScopeSpans scope, Span span) {}

  private static Origin find(ExportTraceServiceRequest request, ByteString spanId) {
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          if (span.getSpanId().equals(spanId)) {
            return new Origin(resource, scope, span);
          }
        }
      }
    }
    throw new AssertionError("forwarded a span that was never sent: " + spanId);
  }
}
