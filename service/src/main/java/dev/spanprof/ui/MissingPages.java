package dev.spanprof.ui;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * A browser asking for a path nothing serves gets a page in the UI's style that says so, still a
 * 404; API clients, and the API's own 404s (an unknown trace), keep their JSON answers.
 */
@ServerFilter("/**")
final class MissingPages {

  private final UiPages pages;

  MissingPages(UiPages pages) {
    this.pages = pages;
  }

  @ResponseFilter
  @Nullable
  HttpResponse<?> styled(HttpRequest<?> request, HttpResponse<?> response) {
    String accept = request.getHeaders().get(HttpHeaders.ACCEPT);
    String path = request.getPath();
    if (response.getStatus() != HttpStatus.NOT_FOUND || accept == null
        || !accept.contains(MediaType.TEXT_HTML) || path.startsWith("/api/")) {
      return null;
    }
    return HttpResponse.notFound(pages.missingPage(path)).contentType(MediaType.TEXT_HTML_TYPE);
  }
}
