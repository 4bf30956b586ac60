/**
 * The analysis stage: analyses each completed trace once and hands the trace with its profile to
 * every {@link dev.spanprof.profile.ProfileConsumer}: the metrics, the recent-profile store, the
 * ranking, pools and distributions, and the forwarder.
 */
package dev.spanprof.profile;
