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
   * One peer to ask.
   *
   * @param base its base URL, without a trailing slash
   * @param tlsName for {@code dns+https}, the name its certificate must carry (it is reached by
   *     address); null: the URL's host
   */
  record Peer(String base, String tlsName) {}

  /**
   * @param peers the peers, each once
   * @param unresolved the {@code dns+} entries whose name resolved to nothing, each with why
   */
  record Resolved(List<Peer> peers, List<String> unresolved) {}

  Resolved resolve() {
    List<Peer> peers = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    for (String peer : configured) {
      String base = peer.endsWith("/") ? peer.substring(0, peer.length() - 1) : peer;
      if (!base.startsWith(DNS)) {
        peers.add(new Peer(base, null));
        continue;
      }
      URI uri = URI.create(base.substring(DNS.length()));
      String tlsName = uri.getScheme().equals("https") ? uri.getHost() : null;
      try {
        for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
          String host = address.getHostAddress();
          peers.add(new Peer(uri.getScheme() + "://"
              + (host.contains(":") ? "[" + host + "]" : host)
              + (uri.getPort() < 0 ? "" : ":" + uri.getPort()), tlsName));
        }
      } catch (UnknownHostException e) {
        unresolved.add(peer + " (does not resolve)");
      }
    }
    return new Resolved(peers.stream().distinct().toList(), unresolved);
  }
}
