package dev.spanprof.stages;

import dev.spanprof.analysis.ranking.RankingSnapshot;

/** Told of every recomputed ranking (the Prometheus gauge listens). */
public interface RankingListener {

  void onRanking(RankingSnapshot snapshot, long overflowSpans);
}
