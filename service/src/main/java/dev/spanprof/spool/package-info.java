/**
 * The spool: accepted requests on disk until their spans are forwarded, so that an outage longer
 * than memory holds, a restart or {@code kill -9} loses nothing acknowledged
 * ({@link dev.spanprof.spool.Spool}).
 */
package dev.spanprof.spool;
