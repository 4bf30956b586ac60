package dev.spanprof.security;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The access an HTTP controller's routes need. A route without it needs a read token, so a route
 * added later is closed until it says otherwise ({@link RouteAccess}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Guarded {
  Access value();
}
