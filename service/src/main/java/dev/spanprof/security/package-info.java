/**
 * Who may send spans and who may read profiles: bearer tokens from files that can be rotated
 * ({@link dev.spanprof.security.BearerTokens}). The receivers and the query API each ask it for
 * the access they need.
 */
package dev.spanprof.security;
