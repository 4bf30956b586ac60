/**
 * The query API: recent trace profiles, the call ranking, distributions and pools, as JSON under
 * {@code /api/v1/} on the HTTP port and over gRPC {@code spanprof.v1.ProfileService}.
 */
package dev.spanprof.api;
