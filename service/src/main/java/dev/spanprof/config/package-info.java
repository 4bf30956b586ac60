/**
 * Configuration ({@code spanprof.*}, one {@code @ConfigurationProperties} class per prefix) and the
 * Micronaut wiring that turns it into the pure core objects of {@code assembly}.
 */
package dev.spanprof.config;
