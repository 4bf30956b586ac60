package dev.spanprof.span;

/**
 * An operation: a service and a span name, as the ranking, the counters and the profile's
 * operation figures key them.
 *
 * <p>Hash and equality are written out rather than generated: they run several times per span,
 * and the names are shared strings, so equality is usually settled by identity.
 */
public record Operation(String service, String name) {

  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof Operation that
        && (service == that.service || service.equals(that.service))
        && (name == that.name || name.equals(that.name));
  }

  @Override
  public int hashCode() {
    return 31 * service.hashCode() + name.hashCode();
  }
}
