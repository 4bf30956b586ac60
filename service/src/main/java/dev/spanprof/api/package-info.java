/** The query API: recent trace profiles over JSON (and, later, gRPC ProfileService and the web UI). */
package dev.spanprof.api;
