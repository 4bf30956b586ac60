package dev.spanprof.fleet;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The configured peers, as base URLs: {@code http://HOST:PORT} as given, {@code
 * dns+http://NAME:PORT} as every address NAME resolves to now (a Kubernetes headless Service
 * answers with one per ready pod), so replicas that come and go are found at the next query.
 */
final class Peers {

  private static final String DNS = "dns+";

  private final List<String> configured;

  Peers(List<String> configured) {
    this.configured = List.copyOf(configured);
  }

  boolean isEmpty() {
    return configured.isEmpty();
  }

  /**
   * @param bases the peers' base URLs, without a trailing slash
   * @param unresolved the {@code dns+} entries whose name resolved to nothing, each with why
   */
  record Resolved(List<String> bases, List<String> unresolved) {}

  Resolved resolve() {
    List<String> bases = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    for (String peer : configured) {
      String base = peer.endsWith("/") ? peer.substring(0, peer.length() - 1) : peer;
      if (!base.startsWith(DNS)) {
        bases.add(base);
        continue;
      }
      URI uri = URI.create(base.substring(DNS.length()));
      try {
        for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
          String host = address.getHostAddress();
          bases.add(uri.getScheme() + "://" + (host.contains(":") ? "[" + host + "]" : host)
              + (uri.getPort() < 0 ? "" : ":" + uri.getPort()));
        }
      } catch (UnknownHostException e) {
        unresolved.add(peer + " (does not resolve)");
      }
    }
    return new Resolved(bases.stream().distinct().toList(), unresolved);
  }
}
