package dev.spanprof.assembly;

/** What became of one request's spans offered to the {@link TraceAssembler}: all or none. */
public enum OfferResult {
  /** Every span is buffered (or already handed on with its completed trace). */
  ACCEPTED,
  /** None was taken: the buffer is full and nothing more could be completed early. Retry later. */
  REFUSED_FULL,
  /** None was taken: the request alone has more spans than the buffer can ever hold. */
  REFUSED_TOO_LARGE
}
