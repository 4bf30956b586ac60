/**
 * Pools, semantics.md §3: utilization and CPU attribution swept over chosen segments
 * ({@link dev.spanprof.analysis.pool.PoolSweep}), per allocation span or per time window of a
 * pool with a configured capacity ({@link dev.spanprof.analysis.pool.PoolWindows}).
 */
package dev.spanprof.analysis.pool;
