package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.config.AuthConfiguration;
import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.testing.Meters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokensTest {

  private static final Supplier<X500Principal> NO_CERTIFICATE = () -> null;

  @TempDir Path directory;
  private final ManualTimeSource time = new ManualTimeSource();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void check_eachKindNeedsItsOwnToken() throws Exception {
    BearerTokens tokens = tokens("# writers\nw1\n\nw2\n", "r1\n");

    assertThat(tokens.check("Bearer w1", NO_CERTIFICATE, Access.WRITE, "http").allowed()).isTrue();
    assertThat(tokens.check("bearer w2", NO_CERTIFICATE, Access.WRITE, "http").allowed()).isTrue();
    assertThat(tokens.check("Bearer r1", NO_CERTIFICATE, Access.READ, "grpc").allowed()).isTrue();
    assertThat(tokens.check(null, NO_CERTIFICATE, Access.WRITE, "http"))
        .extracting(AuthDecision::outcome, AuthDecision::reason)
        .containsExactly(AuthDecision.Outcome.UNAUTHENTICATED, "missing");
    assertThat(tokens.check("Basic dzE=", NO_CERTIFICATE, Access.WRITE, "http").reason()).isEqualTo("missing");
    assertThat(tokens.check("Bearer w3", NO_CERTIFICATE, Access.WRITE, "http"))
        .extracting(AuthDecision::outcome, AuthDecision::reason)
        .containsExactly(AuthDecision.Outcome.UNAUTHENTICATED, "invalid");
    AuthDecision wrongKind = tokens.check("Bearer w1", NO_CERTIFICATE, Access.READ, "grpc");
    assertThat(wrongKind.outcome()).isEqualTo(AuthDecision.Outcome.FORBIDDEN);
    assertThat(wrongKind.message()).isEqualTo("this token may not read profiles")
        .doesNotContain("w1");
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.auth.refused", "transport", "http", "reason", "missing"))
        .isEqualTo(2);
    assertThat(meters.count("spanprof.auth.refused", "transport", "grpc", "reason", "wrong_kind"))
        .isEqualTo(1);
  }

  @Test
  void check_withoutAFile_leavesThatKindOpen() throws Exception {
    BearerTokens tokens = tokens("w1\n", null);

    assertThat(tokens.check(null, NO_CERTIFICATE, Access.READ, "http").allowed()).isTrue();
    assertThat(tokens.check(null, NO_CERTIFICATE, Access.WRITE, "http").allowed()).isFalse();
  }

  @Test
  void rotation_theRewrittenFileCountsWithinASecond() throws Exception {
    BearerTokens tokens = tokens("old\n", null);
    Path file = directory.resolve("write");

    Files.writeString(file, "old\nnew\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
    assertThat(tokens.check("Bearer new", NO_CERTIFICATE, Access.WRITE, "http").allowed())
        .as("looked at again at most once a second").isFalse();
    time.advance(Duration.ofSeconds(2));
    assertThat(tokens.check("Bearer new", NO_CERTIFICATE, Access.WRITE, "http").allowed()).isTrue();
    assertThat(tokens.check("Bearer old", NO_CERTIFICATE, Access.WRITE, "http").allowed()).isTrue();

    Files.writeString(file, "new\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    time.advance(Duration.ofSeconds(2));
    assertThat(tokens.check("Bearer old", NO_CERTIFICATE, Access.WRITE, "http").allowed()).isFalse();

  }

  @Test
  void rotation_anEmptiedOrDeletedFile_failsClosedUntilItHoldsATokenAgain() throws Exception {
    BearerTokens tokens = tokens("w1\n", "r1\n");
    Path file = directory.resolve("read");
    Meters meters = new Meters(registry);
    assertThat(meters.gauge("spanprof.auth.tokens", "kind", "read")).isEqualTo(1);

    Files.writeString(file, "");
    time.advance(Duration.ofSeconds(2));
    assertThat(tokens.check("Bearer r1", NO_CERTIFICATE, Access.READ, "http").allowed())
        .as("emptied: revoked").isFalse();
    assertThat(meters.gauge("spanprof.auth.tokens", "kind", "read")).isZero();

    Files.writeString(file, "r2\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
    time.advance(Duration.ofSeconds(2));
    assertThat(tokens.check("Bearer r2", NO_CERTIFICATE, Access.READ, "http").allowed()).isTrue();

    Files.delete(file);
    time.advance(Duration.ofSeconds(2));
    assertThat(tokens.check("Bearer r2", NO_CERTIFICATE, Access.READ, "http").allowed())
        .as("gone: no token of its kind is valid").isFalse();
    assertThat(meters.gauge("spanprof.auth.tokens", "kind", "read")).isZero();
    assertThat(tokens.check("Bearer w1", NO_CERTIFICATE, Access.WRITE, "http").allowed())
        .as("the other kind keeps its file").isTrue();
  }

  @Test
  void start_unreadableOrEmptyFile_saysWhichKey() throws Exception {
    AuthConfiguration missing = new AuthConfiguration();
    missing.setWriteTokensFile(directory.resolve("absent").toString());
    AuthConfiguration empty = new AuthConfiguration();
    Files.writeString(directory.resolve("empty"), "# none yet\n");
    empty.setReadTokensFile(directory.resolve("empty").toString());

    assertThatThrownBy(
        () -> new BearerTokens(missing, new ManagementConfiguration(), time, registry))
        .hasMessageStartingWith("spanprof.auth.write-tokens-file: cannot read the tokens file");
    assertThatThrownBy(
        () -> new BearerTokens(empty, new ManagementConfiguration(), time, registry))
        .hasMessageEndingWith("holds no token");
  }

  @Test
  void check_metricsNeedTheirOwnTokens_otherKindsAreNoneOfThem() throws Exception {
    AuthConfiguration auth = new AuthConfiguration();
    auth.setReadTokensFile(Files.writeString(directory.resolve("read"), "r1\n").toString());
    ManagementConfiguration management = new ManagementConfiguration();
    management.setReadTokensFile(
        Files.writeString(directory.resolve("metrics"), "m1\n").toString());
    BearerTokens tokens = new BearerTokens(auth, management, time, registry);

    assertThat(tokens.check("Bearer m1", NO_CERTIFICATE, Access.METRICS, "management").allowed())
        .isTrue();
    assertThat(tokens.check("Bearer r1", NO_CERTIFICATE, Access.METRICS, "management").reason())
        .isEqualTo("invalid");
    assertThat(tokens.check("Bearer m1", NO_CERTIFICATE, Access.READ, "http").allowed())
        .isFalse();
    assertThat(new Meters(registry).gauge("spanprof.auth.tokens", "kind", "metrics")).isEqualTo(1);
  }

  @Test
  void subjects_aFlatStringSplitsAtSemicolonsNeverAtCommas() throws Exception {
    AuthConfiguration flat = new AuthConfiguration();
    flat.setWriteSubjects("CN=collector,O=example; CN=agent\\;1,O=example");
    AuthConfiguration listed = new AuthConfiguration();
    listed.setWriteSubjects(java.util.List.of("CN=collector,O=example"));
    Files.writeString(directory.resolve("write"), "w1\n");
    flat.setWriteTokensFile(directory.resolve("write").toString());
    BearerTokens tokens = new BearerTokens(flat, new ManagementConfiguration(), time, registry);

    assertThat(flat.getWriteSubjects())
        .containsExactly("CN=collector,O=example", "CN=agent\\;1,O=example");
    assertThat(listed.getWriteSubjects()).containsExactly("CN=collector,O=example");
    assertThat(tokens.check(null, () -> new X500Principal("CN=collector, O=example"),
        Access.WRITE, "grpc").allowed()).isTrue();
    assertThat(tokens.check(null, () -> new X500Principal("CN=collector"), Access.WRITE, "grpc")
        .allowed()).as("a part of a listed name is no listed name").isFalse();
    assertThat(tokens.check(null, () -> new X500Principal("O=example"), Access.WRITE, "grpc")
        .allowed()).isFalse();
  }

  private BearerTokens tokens(String write, String read) throws Exception {
    AuthConfiguration configuration = new AuthConfiguration();
    if (write != null) {
      configuration.setWriteTokensFile(Files.writeString(directory.resolve("write"), write)
          .toString());
    }
    if (read != null) {
      configuration.setReadTokensFile(Files.writeString(directory.resolve("read"), read)
          .toString());
    }
    return new BearerTokens(configuration, new ManagementConfiguration(), time, registry);
  }
}
