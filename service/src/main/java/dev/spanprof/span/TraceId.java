package dev.spanprof.span;

/**
 * A 128-bit trace id as two longs (big-endian: {@code high} holds the first 8 bytes), usable as a
 * map key without holding a byte array.
 */
public record TraceId(long high, long low) {

  /** Parses 32 hex characters (either case). */
  public static TraceId fromHex(CharSequence hex) {
    if (hex.length() != 32) {
      throw new IllegalArgumentException(
          "trace id must be 32 hex characters, got " + hex.length() + ": '" + hex + "'");
    }
    return new TraceId(Ids.parseHexLong(hex, 0), Ids.parseHexLong(hex, 16));
  }

  /** The id of OTLP's 16 bytes, big-endian. */
  public static TraceId fromBytes(byte[] bytes) {
    if (bytes.length != 16) {
      throw new IllegalArgumentException("trace id must be 16 bytes, got " + bytes.length);
    }
    long high = 0;
    long low = 0;
    for (int i = 0; i < 8; i++) {
      high = (high << 8) | (bytes[i] & 0xFF);
      low = (low << 8) | (bytes[i + 8] & 0xFF);
    }
    return new TraceId(high, low);
  }

  /** 32 lower-case hex characters, as in OTLP/JSON and W3C trace context. */
  public String toHex() {
    return Ids.toHex(high) + Ids.toHex(low);
  }

  @Override
  public int hashCode() {
    // The low half is random for W3C trace ids; mixing in the high half keeps ids that were made
    // with a constant low half (some legacy 64-bit ids padded on the left) spread out too.
    return Long.hashCode(low * 0x9E3779B97F4A7C15L ^ high);
  }

  @Override
  public String toString() {
    return toHex();
  }
}
