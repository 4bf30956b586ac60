/**
 * Collections the analysis shares, knowing nothing of spans: index sorts and heaps over
 * primitive keys, reusable scratch arrays, and slots cleared in constant time.
 */
package dev.spanprof.analysis.internal;
