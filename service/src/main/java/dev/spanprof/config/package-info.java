/**
 * Configuration: {@code spanprof.*}, one {@code @ConfigurationProperties} class per prefix, with
 * its defaults (those of what spanprof holds in memory scaled to the heap, {@link
 * dev.spanprof.config.HeapShare}) and checks. It depends on the core only; the wiring that turns
 * it into the pipeline is {@code dev.spanprof.wiring}.
 */
package dev.spanprof.config;
