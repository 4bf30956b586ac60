package dev.spanprof.ui;

import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Every answer on the HTTP port says what a browser may do with it: load scripts, styles and
 * data only from spanprof itself, never be framed (clickjacking), never sniff a type, send no
 * referrer. Styles may be inline: the pages colour their legends through style attributes.
 */
@ServerFilter("/**")
final class SecurityHeaders {

  static final String CONTENT_SECURITY_POLICY = "default-src 'self'; "
      + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; "
      + "base-uri 'self'; form-action 'self'";

  @ResponseFilter
  void addHeaders(MutableHttpResponse<?> response) {
    response.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .header("X-Frame-Options", "DENY")
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer");
  }
}
