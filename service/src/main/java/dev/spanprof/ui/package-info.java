/**
 * The web UI on the HTTP port: its pages and its one library. The pages are plain HTML, CSS and
 * JavaScript modules under {@code resources/ui}, drawing what the JSON API answers; nothing here
 * reads spanprof's state.
 */
package dev.spanprof.ui;
