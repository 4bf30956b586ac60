package dev.spanprof.span;

/** The OTLP status codes, in OTLP's numbering ({@link #ordinal()} equals the OTLP enum value). */
public enum SpanStatus {
  UNSET,
  OK,
  ERROR;

  private static final SpanStatus[] BY_NUMBER = values();

  /** The status for an OTLP enum number; unknown numbers map to UNSET. */
  public static SpanStatus fromOtlp(int number) {
    return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : UNSET;
  }
}
