/**
 * The analysis stage: analyses each completed trace once and hands the trace with its profile to
 * every {@link dev.spanprof.profile.ProfileConsumer} (metrics, the recent-profile store, and
 * later the forwarder).
 */
package dev.spanprof.profile;
