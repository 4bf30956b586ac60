package dev.spanprof.otlp;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;

/**
 * Decodes and encodes OTLP/JSON trace export requests.
 *
 * <p>OTLP/JSON is the protobuf JSON mapping with one deviation: trace and span ids are hex, not
 * base64. Enums as integers, 64-bit integers as strings or numbers and unknown fields (ignored)
 * are already what {@link JsonFormat}'s parser accepts, so this decoder only rewrites the ids of
 * spans and span links to base64 and lets {@link JsonFormat} do the rest. Both lowerCamelCase (as
 * OTLP specifies) and the original snake_case field names are accepted. Encoding is the reverse:
 * {@link JsonFormat}'s printer, then span and link ids from base64 to hex.
 */
public final class OtlpJson {

  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();

  /** Turns one id's text into another's; says why when it cannot. */
  @FunctionalInterface
  private interface IdRewrite {
    String apply(String path, String id) throws InvalidOtlpException;
  }

  /** OTLP/JSON of {@code request}, ids in hex. */
  public static byte[] encode(ExportTraceServiceRequest request) {
    try {
      JsonObject json = JsonParser.parseString(PRINTER.print(request)).getAsJsonObject();
      rewriteIds(json, (path, id) -> HexFormat.of().formatHex(Base64.getDecoder().decode(id)));
      return json.toString().getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException | InvalidOtlpException e) {
      // Printing a message without Any fields, and converting valid base64, cannot fail.
      throw new IllegalStateException("cannot encode OTLP/JSON", e);
    }
  }

  public ExportTraceServiceRequest decode(byte[] body) throws InvalidOtlpException {
    JsonElement root;
    try {
      root = JsonParser.parseString(new String(body, StandardCharsets.UTF_8));
    } catch (JsonParseException e) {
      throw new InvalidOtlpException("the body is not valid JSON: " + rootMessage(e), e);
    }
    if (!root.isJsonObject()) {
      throw new InvalidOtlpException(
          "the body must be a JSON object (an OTLP ExportTraceServiceRequest), got "
              + (root.isJsonNull() ? "nothing" : root.getClass().getSimpleName()));
    }
    rewriteIds(root.getAsJsonObject(), OtlpJson::hexToBase64);
    requireTypes(root.getAsJsonObject(), ExportTraceServiceRequest.getDescriptor(), "");
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    try {
      PARSER.merge(root.toString(), request);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new InvalidOtlpException(
          "the body is not an OTLP/JSON ExportTraceServiceRequest: " + rootMessage(e), e);
    }
    return request.build();
  }

  private static void rewriteIds(JsonObject request, IdRewrite rewrite) throws InvalidOtlpException {
    JsonArray resourceSpans = array(request, "resourceSpans", "resource_spans");
    for (int r = 0; r < resourceSpans.size(); r++) {
      JsonArray scopeSpans = array(object(resourceSpans.get(r)), "scopeSpans", "scope_spans");
      for (int s = 0; s < scopeSpans.size(); s++) {
        JsonArray spans = array(object(scopeSpans.get(s)), "spans");
        for (int i = 0; i < spans.size(); i++) {
          JsonObject span = object(spans.get(i));
          String path = "resourceSpans[" + r + "].scopeSpans[" + s + "].spans[" + i + "].";
          rewrite(span, path, rewrite, "traceId", "trace_id");
          rewrite(span, path, rewrite, "spanId", "span_id");
          rewrite(span, path, rewrite, "parentSpanId", "parent_span_id");
          JsonArray links = array(span, "links");
          for (int l = 0; l < links.size(); l++) {
            JsonObject link = object(links.get(l));
            rewrite(link, path + "links[" + l + "].", rewrite, "traceId", "trace_id");
            rewrite(link, path + "links[" + l + "].", rewrite, "spanId", "span_id");
          }
        }
      }
    }
  }

  /**
   * Refuses what {@link JsonFormat}'s parser would take silently: a number where a string field
   * is ({@code "name": 42} becomes "42" there), or an enum number beyond 32 bits. Walks the
   * members the message's descriptor knows; the parser checks the rest.
   */
  private static void requireTypes(JsonObject message, Descriptor type, String path)
      throws InvalidOtlpException {
    for (Map.Entry<String, JsonElement> member : message.entrySet()) {
      FieldDescriptor field = type.findFieldByName(member.getKey());
      if (field == null) {
        field = jsonNamed(type, member.getKey());
      }
      JsonElement value = member.getValue();
      if (field == null || value.isJsonNull()) {
        continue;
      }
      String at = path + member.getKey();
      if (field.isRepeated() && value.isJsonArray()) {
        JsonArray values = value.getAsJsonArray();
        for (int i = 0; i < values.size(); i++) {
          requireType(values.get(i), field, at + "[" + i + "]");
        }
      } else {
        requireType(value, field, at);
      }
    }
  }

  private static void requireType(JsonElement value, FieldDescriptor field, String path)
      throws InvalidOtlpException {
    switch (field.getJavaType()) {
      case MESSAGE -> {
        if (value.isJsonObject()) {
          requireTypes(value.getAsJsonObject(), field.getMessageType(), path + ".");
        }
      }
      case STRING, BYTE_STRING -> {
        if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
          throw new InvalidOtlpException(path + " must be a JSON string, got " + value);
        }
      }
      case ENUM -> {
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isNumber()) {
          try {
            value.getAsBigDecimal().intValueExact();
          } catch (ArithmeticException notAnInt32) {
            throw new InvalidOtlpException(path + " must be an enum number of 32 bits, got "
                + value);
          }
        }
      }
      default -> {
        // numbers and booleans: the parser checks them
      }
    }
  }

  private static FieldDescriptor jsonNamed(Descriptor type, String jsonName) {
    for (FieldDescriptor field : type.getFields()) {
      if (field.getJsonName().equals(jsonName)) {
        return field;
      }
    }
    return null;
  }

  private static void rewrite(JsonObject owner, String path, IdRewrite rewrite, String... names)
      throws InvalidOtlpException {
    for (String name : names) {
      JsonElement element = owner.get(name);
      if (element == null || element.isJsonNull()) {
        continue;
      }
      if (!element.isJsonPrimitive() || !element.getAsJsonPrimitive().isString()) {
        throw new InvalidOtlpException(path + name + " must be a hex string, got " + element);
      }
      owner.add(name, new JsonPrimitive(rewrite.apply(path + name, element.getAsString())));
    }
  }

  private static String hexToBase64(String path, String hex) throws InvalidOtlpException {
    byte[] bytes = new byte[hex.length() / 2];
    for (int i = 0; i < bytes.length; i++) {
      int high = Character.digit(hex.charAt(2 * i), 16);
      int low = Character.digit(hex.charAt(2 * i + 1), 16);
      if (high < 0 || low < 0) {
        bytes = null;
        break;
      }
      bytes[i] = (byte) (high << 4 | low);
    }
    if (bytes == null || hex.length() % 2 != 0) {
      throw new InvalidOtlpException(
          path + " must be hex (OTLP/JSON encodes ids as hex, not base64), got '" + hex + "'");
    }
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** The named member as an array; absent or null is an empty array. */
  private static JsonArray array(JsonObject owner, String... names) throws InvalidOtlpException {
    for (String name : names) {
      JsonElement element = owner.get(name);
      if (element == null || element.isJsonNull()) {
        continue;
      }
      if (!element.isJsonArray()) {
        throw new InvalidOtlpException(name + " must be an array, got " + element);
      }
      return element.getAsJsonArray();
    }
    return new JsonArray();
  }

  private static JsonObject object(JsonElement element) throws InvalidOtlpException {
    if (!element.isJsonObject()) {
      throw new InvalidOtlpException("expected a JSON object, got " + element);
    }
    return element.getAsJsonObject();
  }

  private static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() != null ? root.getMessage() : root.toString();
  }
}
