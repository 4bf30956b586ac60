package dev.spanprof.stages;

import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;

/** Told of every pool window that became final (the Prometheus meters listen). */
public interface PoolListener {

  void onFinal(PoolWindow window);
}
