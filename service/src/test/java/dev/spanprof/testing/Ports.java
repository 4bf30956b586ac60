package dev.spanprof.testing;

import dev.spanprof.management.ManagementServer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.http.server.netty.NettyEmbeddedServer;

/** The ports a test context bound: each is a free one picked at start-up. */
public record Ports(int grpc, int http, int management) {

  public static Ports of(ApplicationContext context) {
    return new Ports(
        context.getBean(GrpcEmbeddedServer.class).getPort(),
        context.getBean(NettyEmbeddedServer.class).getPort(),
        context.getBean(ManagementServer.class).port());
  }

  public String httpUrl(String path) {
    return "http://localhost:" + http + path;
  }

  public String managementUrl(String path) {
    return "http://localhost:" + management + path;
  }
}
