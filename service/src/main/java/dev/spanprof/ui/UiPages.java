package dev.spanprof.ui;

import dev.spanprof.config.UiConfiguration;
import dev.spanprof.security.Access;
import dev.spanprof.security.Guarded;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.webjars.WebJarVersionLocator;

/**
 * The UI's pages at the paths of contract.md ("Web UI") and uPlot, its chart library, from its
 * WebJar. Every page links relatively (its {@code <base href>} is the UI's root), so the UI works
 * behind a reverse proxy's sub-path; the modules and styles are static resources under
 * {@code /ui/}, and a page is the shell {@code ui/page.html} naming its module.
 */
@Controller
@Guarded(Access.OPEN)
final class UiPages {

  /** The library's files the pages load: all that is served of the WebJar. */
  private static final Map<String, MediaType> LIBRARY_FILES = Map.of(
      "uPlot.esm.js", MediaType.of("text/javascript"),
      "uPlot.min.css", MediaType.of("text/css"));

  /** Every page is the one shell, differing in its module, its title and its depth. */
  private static final String SHELL = new String(read("ui/page.html"), StandardCharsets.UTF_8);

  private final Map<String, byte[]> pages;
  private final String traceLink;
  private final WebJarVersionLocator webJars = new WebJarVersionLocator();

  UiPages(UiConfiguration configuration) {
    String traceLink = configuration.getTraceLink();
    this.pages = Map.of(
        "index", page("index", "Overview", "./", traceLink),
        "traces", page("traces", "Traces", "./", traceLink),
        "trace", page("trace", "Trace", "../", traceLink),
        "operation", page("operation", "Operation", "./", traceLink),
        "pools", page("pools", "Pools", "./", traceLink),
        "graph", page("graph", "Call graph", "./", traceLink));
    this.traceLink = traceLink;
  }

  @Get(produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> overview() {
    return page("index");
  }

  @Get(uri = "/traces", produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> traces() {
    return page("traces");
  }

  @Get(uri = "/traces/{traceId}", produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> trace(@PathVariable String traceId) {
    return page("trace");
  }

  @Get(uri = "/operations", produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> operation() {
    return page("operation");
  }

  @Get(uri = "/pools", produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> pools() {
    return page("pools");
  }

  @Get(uri = "/graph", produces = MediaType.TEXT_HTML)
  HttpResponse<byte[]> graph() {
    return page("graph");
  }

  @Get(uri = "/lib/uplot/{file}")
  HttpResponse<?> library(@PathVariable String file) {
    MediaType type = LIBRARY_FILES.get(file);
    String path = type == null ? null : webJars.fullPath("uplot", "dist/" + file);
    if (path == null) {
      return HttpResponse.status(HttpStatus.NOT_FOUND).contentType(MediaType.TEXT_PLAIN_TYPE)
          .body("no library file " + file);
    }
    return HttpResponse.ok(read(path)).contentType(type)
        .header("Cache-Control", "public, max-age=86400");
  }

  /**
   * The page for a path nothing serves ({@link MissingPages}), its base as deep as the path, so
   * that it works under any prefix.
   */
  byte[] missingPage(String path) {
    int depth = (int) path.chars().filter(c -> c == '/').count() - 1;
    return page("missing", "Not found", depth <= 0 ? "./" : "../".repeat(depth), traceLink);
  }

  private HttpResponse<byte[]> page(String name) {
    return HttpResponse.ok(pages.get(name)).header("Cache-Control", "no-cache");
  }

  /**
   * The shell for {@code module}; the trace link's template goes in an attribute, escaped.
   *
   * @param module the page's script, {@code ui/{module}.js}
   * @param base the UI's root relative to the page's path: {@code ../} below {@code /traces/}
   */
  private static byte[] page(String module, String title, String base, String traceLink) {
    String link = traceLink.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    return SHELL.replace("{module}", module).replace("{title}", title).replace("{base}", base)
        .replace("{traceLink}", link).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] read(String resource) {
    try (InputStream in = UiPages.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
