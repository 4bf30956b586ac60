/**
 * Where held spans keep their encoded bytes: large reused arrays ({@link
 * dev.spanprof.span.store.Slab}s) of a {@link dev.spanprof.span.store.SpanStore}, each
 * handed back when the last span placed in it is released.
 */
package dev.spanprof.span.store;
