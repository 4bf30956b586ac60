/**
 * The analysis stage and the stages after it: {@link dev.spanprof.stages.AnalysisStage} analyses
 * each completed trace once and hands the trace with its profile to one {@link
 * dev.spanprof.stages.ProfileConsumer} (the ordered composite built in {@code
 * wiring.AnalysisPipeline}); the windows across traces (ranking, tail, pools, distributions) are
 * kept here, the metrics, recent profiles and forwarding in their own packages.
 */
package dev.spanprof.stages;
