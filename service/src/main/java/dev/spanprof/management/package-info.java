/** The management listener: Prometheus metrics and Kubernetes health probes on their own port. */
package dev.spanprof.management;
