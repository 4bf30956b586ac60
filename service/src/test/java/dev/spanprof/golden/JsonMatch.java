package dev.spanprof.golden;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.math.BigDecimal;
import java.util.Map;

/**
 * Compares a JSON document with an expected one field by field: every expected key (the actual
 * document may have more: fields are only ever added to the golden shape), the same array
 * lengths, equal strings and booleans, integers exactly, other numbers within 1e-9 relative.
 */
public final class JsonMatch {

  private static final double RELATIVE = 1e-9;

  private JsonMatch() {}

  public static void assertMatches(String expected, String actual) {
    match(JsonParser.parseString(expected), JsonParser.parseString(actual), "$");
  }

  private static void match(JsonElement expected, JsonElement actual, String path) {
    if (expected.isJsonObject()) {
      assertThat(actual.isJsonObject()).as(path + " is an object").isTrue();
      JsonObject e = expected.getAsJsonObject();
      JsonObject a = actual.getAsJsonObject();
      assertThat(a.keySet()).as(path + " keys").containsAll(e.keySet());
      for (Map.Entry<String, JsonElement> entry : e.entrySet()) {
        match(entry.getValue(), a.get(entry.getKey()), path + "." + entry.getKey());
      }
    } else if (expected.isJsonArray()) {
      assertThat(actual.isJsonArray()).as(path + " is an array").isTrue();
      JsonArray e = expected.getAsJsonArray();
      JsonArray a = actual.getAsJsonArray();
      assertThat(a.size()).as(path + " length").isEqualTo(e.size());
      for (int i = 0; i < e.size(); i++) {
        match(e.get(i), a.get(i), path + "[" + i + "]");
      }
    } else if (expected.isJsonPrimitive() && expected.getAsJsonPrimitive().isNumber()) {
      assertThat(actual.isJsonPrimitive() && actual.getAsJsonPrimitive().isNumber())
          .as(path + " is a number").isTrue();
      BigDecimal e = expected.getAsBigDecimal();
      BigDecimal a = actual.getAsBigDecimal();
      if (isWhole(e) && isWhole(a)) {
        assertThat(a.toBigIntegerExact()).as(path).isEqualTo(e.toBigIntegerExact());
      } else {
        double tolerance = RELATIVE * Math.max(1, Math.abs(e.doubleValue()));
        assertThat(a.doubleValue()).as(path).isCloseTo(e.doubleValue(),
            org.assertj.core.data.Offset.offset(tolerance));
      }
    } else {
      assertThat(actual).as(path).isEqualTo(expected);
    }
  }

  private static boolean isWhole(BigDecimal value) {
    return value.signum() == 0 || value.stripTrailingZeros().scale() <= 0;
  }
}
