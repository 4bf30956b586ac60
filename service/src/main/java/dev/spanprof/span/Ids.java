package dev.spanprof.span;

/** Hex and byte conversions for 64-bit halves of trace and span ids. */
public final class Ids {

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Ids() {}

  /** 16 lower-case hex characters. */
  public static String toHex(long id) {
    char[] text = new char[16];
    for (int i = 15; i >= 0; i--) {
      text[i] = HEX[(int) (id & 0xF)];
      id >>>= 4;
    }
    return new String(text);
  }

  /** Parses 16 hex characters of {@code hex} starting at {@code offset}. */
  public static long parseHexLong(CharSequence hex, int offset) {
    long value = 0;
    for (int i = offset; i < offset + 16; i++) {
      int digit = Character.digit(hex.charAt(i), 16);
      if (digit < 0) {
        throw new IllegalArgumentException(
            "not a hex digit at position " + i + " of '" + hex + "'");
      }
      value = (value << 4) | digit;
    }
    return value;
  }
}
