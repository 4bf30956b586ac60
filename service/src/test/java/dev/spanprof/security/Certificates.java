package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real certificates made by openssl for the TLS tests: a CA, a server certificate for localhost
 * it signed, a client certificate it signed, one signed by another CA, and one the CA signed that
 * expired in 2020. Keys are PKCS#8 PEM.
 */
final class Certificates {

  final Path directory;

  Certificates(Path directory) throws Exception {
    this.directory = directory;
    ca("ca");
    ca("other-ca");
    signed("server", "ca", "localhost");
    signed("client", "ca", "spanprof-test-client");
    signed("other-client", "ca", "other-client");
    signed("stranger", "other-ca", "stranger");
    signed("server-next", "ca", "localhost");
    expired("expired", "ca");
  }

  Path file(String name) {
    return directory.resolve(name);
  }

  private void ca(String name) throws Exception {
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=" + name, "-keyout", name + ".key", "-out", name + ".crt");
  }

  /** A key and a certificate for {@code subject}, signed by the CA {@code ca}. */
  private void signed(String name, String ca, String subject) throws Exception {
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + subject,
        "-keyout", name + ".key", "-out", name + ".csr");
    Files.writeString(directory.resolve(name + ".ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
        "-CAcreateserial", "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
  }

  /** A client certificate the CA signed, valid only on 1 January 2020 ({@code openssl ca}). */
  private void expired(String name, String ca) throws Exception {
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name,
        "-keyout", name + ".key", "-out", name + ".csr");
    Files.writeString(directory.resolve("ca.cnf"), "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\n"
        + "new_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n");
    Files.writeString(directory.resolve("index.txt"), "");
    Files.writeString(directory.resolve("serial"), "1000\n");
    openssl("ca", "-batch", "-config", "ca.cnf", "-cert", ca + ".crt", "-keyfile", ca + ".key",
        "-in", name + ".csr", "-out", name + ".crt", "-startdate", "20200101000000Z",
        "-enddate", "20200102000000Z", "-notext");
  }

  private void openssl(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(directory.toFile())
        .redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }
}
