package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.util.List;

/**
 * {@code spanprof.auth.*}: bearer tokens, one per line in each file (blank lines and lines
 * starting with # ignored). A file is read again when it changes, so tokens rotate without a
 * restart; an empty path leaves that kind of access open.
 */
@ConfigurationProperties(AuthConfiguration.PREFIX)
public final class AuthConfiguration {

  public static final String PREFIX = "spanprof.auth";

  private String writeTokensFile = "";
  private String readTokensFile = "";
  private List<String> writeSubjects = List.of();
  private List<String> readSubjects = List.of();

  /** Tokens that may send spans (OTLP over gRPC and HTTP). */
  public String getWriteTokensFile() {
    return writeTokensFile;
  }

  public void setWriteTokensFile(String writeTokensFile) {
    this.writeTokensFile = writeTokensFile == null ? "" : writeTokensFile;
  }

  /** Tokens that may read profiles (the query API over HTTP and gRPC, the UI's data). */
  public String getReadTokensFile() {
    return readTokensFile;
  }

  public void setReadTokensFile(String readTokensFile) {
    this.readTokensFile = readTokensFile == null ? "" : readTokensFile;
  }

  /**
   * With mutual TLS: client certificate subjects (RFC 2253, {@code CN=collector,O=example}) that
   * may send spans without a token.
   */
  public List<String> getWriteSubjects() {
    return writeSubjects;
  }

  /**
   * A YAML list of names, or one string (a system property, an environment variable) of names
   * separated by {@code ;}: never split at commas, which separate the parts of one name.
   */
  public void setWriteSubjects(Object writeSubjects) {
    this.writeSubjects = SubjectNames.split(writeSubjects, PREFIX + ".write-subjects");
  }

  /** With mutual TLS: client certificate subjects that may read profiles without a token. */
  public List<String> getReadSubjects() {
    return readSubjects;
  }

  /** As {@link #setWriteSubjects}. */
  public void setReadSubjects(Object readSubjects) {
    this.readSubjects = SubjectNames.split(readSubjects, PREFIX + ".read-subjects");
  }
}
