package dev.spanprof.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The peers as configured: static URLs as given, {@code dns+} names resolved at each query. */
class PeersTest {

  @Test
  void staticUrls_asGiven_withoutATrailingSlash() {
    Peers.Resolved resolved =
        new Peers(List.of("http://10.0.0.5:4318/", "https://replica-2:4318")).resolve();

    assertThat(resolved.peers()).containsExactly(new Peers.Peer("http://10.0.0.5:4318", null),
        new Peers.Peer("https://replica-2:4318", null));
    assertThat(resolved.unresolved()).isEmpty();
  }

  @Test
  void dnsName_everyAddress_andForHttpsTheNameTheCertificateMustCarry() {
    Peers.Resolved resolved = new Peers(List.of("dns+https://localhost:4318")).resolve();

    assertThat(resolved.peers()).isNotEmpty().allSatisfy(peer -> {
      assertThat(peer.base()).matches("https://(127\\.\\d+\\.\\d+\\.\\d+|\\[[0-9a-f:]+\\]):4318");
      assertThat(peer.tlsName()).isEqualTo("localhost");
    });
    assertThat(new Peers(List.of("dns+http://localhost:4318")).resolve().peers())
        .allSatisfy(peer -> assertThat(peer.tlsName()).isNull());
  }

  @Test
  void aNameThatDoesNotResolve_namedAmongTheMissing() {
    Peers.Resolved resolved = new Peers(List.of("dns+http://no-such-peer.invalid:4318",
        "http://10.0.0.5:4318")).resolve();

    assertThat(resolved.peers()).extracting(Peers.Peer::base).containsExactly("http://10.0.0.5:4318");
    assertThat(resolved.unresolved())
        .containsExactly("dns+http://no-such-peer.invalid:4318 (does not resolve)");
  }
}
