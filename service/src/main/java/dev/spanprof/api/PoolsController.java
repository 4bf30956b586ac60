package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.stages.PoolService;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/pools}: the recent final windows of every pool with a configured capacity
 * (window times in Unix epoch nanoseconds, like span times).
 */
@Controller("/api/v1/pools")
final class PoolsController {

  private final PoolService pools;

  PoolsController(PoolService pools) {
    this.pools = pools;
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  List<Pool> pools() {
    return pools.recent().entrySet().stream()
        .map(entry -> new Pool(entry.getKey(), entry.getValue().stream().map(Window::of).toList()))
        .toList();
  }

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Pool(String pool, List<Window> windows) {}

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Window(
      long startNanos,
      long endNanos,
      double capacity,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs) {

    static Window of(PoolWindow window) {
      return new Window(window.startNanos(), window.endNanos(), window.figures().capacity(),
          window.figures().availableNs(), window.figures().utilization(),
          window.figures().attributionNs());
    }
  }
}
