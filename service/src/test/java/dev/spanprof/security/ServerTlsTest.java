package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.config.TlsConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files that cannot serve stop the start with a message naming the key. */
class ServerTlsTest {

  @TempDir static Path directory;
  private static Certificates certificates;

  @BeforeAll
  static void makeCertificates() throws Exception {
    certificates = new Certificates(directory);
  }

  @Test
  void start_keyOfAnotherCertificate_refusedNamingTheKeys() {
    TlsConfiguration configuration = configuration("server.crt", "client.key");

    assertThatThrownBy(() -> new ServerTls(configuration))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("spanprof.tls.cert-file and .key-file (")
        .hasMessageEndingWith("the key does not belong to the certificate");
  }

  @Test
  void start_missingFiles_refusedNamingTheKeyAndThePath() {
    TlsConfiguration missing = configuration("absent.crt", "server.key");
    TlsConfiguration badCa = configuration("server.crt", "server.key");
    badCa.setClientCaFile(certificates.file("absent-ca.crt").toString());

    assertThatThrownBy(() -> new ServerTls(missing))
        .hasMessage("spanprof.tls.cert-file: " + certificates.file("absent.crt") + " not found");
    assertThatThrownBy(() -> new ServerTls(badCa)).hasMessage(
        "spanprof.tls.client-ca-file: " + certificates.file("absent-ca.crt") + " not found");
  }

  private static TlsConfiguration configuration(String cert, String key) {
    TlsConfiguration configuration = new TlsConfiguration();
    configuration.setCertFile(certificates.file(cert).toString());
    configuration.setKeyFile(certificates.file(key).toString());
    return configuration;
  }
}
