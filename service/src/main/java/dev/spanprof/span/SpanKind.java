package dev.spanprof.span;

/** The OTLP span kinds, in OTLP's numbering ({@link #ordinal()} equals the OTLP enum value). */
public enum SpanKind {
  UNSPECIFIED,
  INTERNAL,
  SERVER,
  CLIENT,
  PRODUCER,
  CONSUMER;

  private static final SpanKind[] BY_NUMBER = values();

  /** The kind for an OTLP enum number; numbers this version does not know map to UNSPECIFIED. */
  public static SpanKind fromOtlp(int number) {
    return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : UNSPECIFIED;
  }
}
