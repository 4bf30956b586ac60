/**
 * The replicas a query answers for (contract.md, "A fleet of replicas"): who they are, resolved at
 * each query, and asking all of them at once for their own share, each within the peer timeout.
 * What is asked and how the answers merge is the API's concern; this package only carries bytes.
 */
package dev.spanprof.fleet;
