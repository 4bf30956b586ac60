package dev.spanprof.ingest;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.OtlpJson;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Counts the spans of an OTLP/JSON {@code ExportTraceServiceRequest} without decoding them: one
 * streaming pass that builds nothing, reads the names of the request's, its ResourceSpans' and
 * their ScopeSpans' fields, and steps over every other value, the spans included. Ingest reads
 * this much of a JSON request it refuses because the buffer is full, as {@link OtlpSpanCount}
 * does for protobuf: {@link OtlpJson}'s decode builds a JSON tree and then the protobuf message.
 * Field names are matched as the decode accepts them, in lowerCamelCase or snake_case; a field
 * given twice counts twice.
 */
final class OtlpJsonSpanCount {

  private OtlpJsonSpanCount() {}

  /**
   * The spans in {@code body}.
   *
   * @throws InvalidOtlpException when the body is not JSON, or the request, a ResourceSpans or a
   *     ScopeSpans is not shaped as OTLP has it (an object, its lists arrays or null), or more
   *     follows the request
   */
  static int of(byte[] body) throws InvalidOtlpException {
    try (JsonReader reader = new JsonReader(new InputStreamReader(
        new ByteArrayInputStream(body), StandardCharsets.UTF_8))) {
      reader.setStrictness(Strictness.LENIENT); // as the decode's parser reads
      int spans =
          inLists(reader, "resourceSpans", "resource_spans", OtlpJsonSpanCount::resourceSpans);
      if (reader.peek() != JsonToken.END_DOCUMENT) {
        // The decode's parser refuses such a body too.
        throw new InvalidOtlpException("the body is not an OTLP/JSON request: more after it");
      }
      return spans;
    } catch (IOException | IllegalStateException e) {
      // JsonReader says "expected X but was Y" with an IllegalStateException.
      throw new InvalidOtlpException("the body is not an OTLP/JSON request: " + e.getMessage(), e);
    }
  }

  /** What is counted in one element of a list. */
  @FunctionalInterface
  private interface Counter {
    int count(JsonReader reader) throws IOException;
  }

  /**
   * The sum of {@code counter} over the elements of the lists named {@code name} (or {@code
   * snakeName}) in the object the reader is at; every other field stepped over.
   */
  private static int inLists(JsonReader reader, String name, String snakeName, Counter counter)
      throws IOException {
    int sum = 0;
    reader.beginObject();
    while (reader.hasNext()) {
      String field = reader.nextName();
      if (field.equals(name) || field.equals(snakeName)) {
        sum += inEach(reader, counter);
      } else {
        reader.skipValue();
      }
    }
    reader.endObject();
    return sum;
  }

  /** The sum of {@code counter} over the elements of the array (or null) the reader is at. */
  private static int inEach(JsonReader reader, Counter counter) throws IOException {
    if (reader.peek() == JsonToken.NULL) {
      reader.nextNull();
      return 0;
    }
    int sum = 0;
    reader.beginArray();
    while (reader.hasNext()) {
      sum += counter.count(reader);
    }
    reader.endArray();
    return sum;
  }

  private static int resourceSpans(JsonReader reader) throws IOException {
    return inLists(reader, "scopeSpans", "scope_spans", OtlpJsonSpanCount::scopeSpans);
  }

  private static int scopeSpans(JsonReader reader) throws IOException {
    return inLists(reader, "spans", "spans", OtlpJsonSpanCount::oneSpan);
  }

  private static int oneSpan(JsonReader reader) throws IOException {
    reader.skipValue();
    return 1;
  }
}
