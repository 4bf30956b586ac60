package dev.spanprof.management;

import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.config.ManagementTlsConfiguration;
import dev.spanprof.ingest.IngestGate;
import dev.spanprof.ingest.MemoryGuard;
import dev.spanprof.metrics.DistributionExport;
import dev.spanprof.security.Access;
import dev.spanprof.security.AuthDecision;
import dev.spanprof.security.BearerTokens;
import dev.spanprof.security.HttpRefusals;
import dev.spanprof.security.ServerTls;
import dev.spanprof.security.TlsHandshakeFailures;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslContext;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import jakarta.annotation.PreDestroy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;

/**
 * Serves {@code GET /metrics}, {@code /health}, {@code /health/liveness} and
 * {@code /health/readiness} on the management port (default 9464).
 *
 * <p>A listener of its own rather than Micronaut's management endpoints, for two reasons: the
 * paths are exactly those Prometheus and Kubernetes expect (Micronaut serves Prometheus at
 * {@code /prometheus} and its {@code /metrics} is JSON), and its lifecycle is ours — it keeps
 * answering, with readiness DOWN, while the pipeline drains at shutdown, after the OTLP servers
 * have stopped taking spans.
 *
 * <p>Readiness is UP from the moment the OTLP servers have started until the ingest gate closes
 * at shutdown, but for while the heap is over its limit ({@link MemoryGuard}); DOWN says why.
 * Liveness is UP while this listener answers.
 *
 * <p>Built on Netty so that no client can hold it: one event loop accepts, reads and answers the
 * health probes without blocking; a request must arrive whole within the request timeout of its
 * first byte, a connection may idle only so long between requests, and only so many are open at
 * once ({@link ConnectionLimits}, {@code spanprof.management.*}); {@code /metrics} is rendered on
 * a thread of its own, a scrape at a time with a few waiting, so a slow scrape never delays a
 * probe.
 *
 * <p>{@code /metrics} names services and operations and, in OpenMetrics, exemplar trace ids: with
 * {@code spanprof.management.read-tokens-file} set it needs one of those bearer tokens (what
 * Prometheus's {@code authorization} sends), and with {@code spanprof.management.tls.*} the
 * listener serves TLS only (Prometheus's {@code tls_config}). The health probes carry no data and
 * stay open to the kubelet.
 *
 * <p>{@code /metrics} speaks the Prometheus text format, or OpenMetrics when the scraper's
 * {@code Accept} header asks for {@code application/openmetrics-text} (needed for exemplars). It
 * serves Micrometer's meters and the HdrHistogram distributions ({@link DistributionExport}).
 * OpenMetrics names a counter's family without {@code _total}, so the contract's counters
 * {@code spanprof_self_time_seconds_total} and {@code spanprof_critical_path_seconds_total}
 * would share a family name with the histograms of the same names; in OpenMetrics they are left
 * out (the histograms' {@code _sum} carries the same totals). The Prometheus text format keeps
 * both.
 */
@Context
public final class ManagementServer implements ApplicationEventListener<ServerStartupEvent> {

  /** Scrapes that may wait while one is rendered; beyond them a scrape gets 503. */
  private static final int WAITING_SCRAPES = 4;
  private static final int MAX_HEADER_BYTES = 8192;
  private static final String OPENMETRICS = "application/openmetrics-text";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";

  private final EventLoopGroup loop;
  private final ExecutorService scrapes;
  private final Channel listener;
  private final PrometheusMeterRegistry registry;
  private final DistributionExport distributions;
  private final IngestGate gate;
  private final MemoryGuard memory;
  private final BearerTokens tokens;
  @Nullable private final ServerTls tls;
  private final AtomicInteger connections = new AtomicInteger();
  private volatile boolean started;

  ManagementServer(
      ManagementConfiguration configuration,
      PrometheusMeterRegistry registry,
      DistributionExport distributions,
      IngestGate gate,
      MemoryGuard memory,
      ManagementTlsConfiguration tlsFiles,
      BearerTokens tokens) throws IOException {
    this.registry = registry;
    this.distributions = distributions;
    this.gate = gate;
    this.memory = memory;
    this.tokens = tokens;
    this.tls = tlsFiles.isEnabled() ? new ServerTls(tlsFiles) : null;
    SslContext tlsContext = tls == null ? null : tlsContext(tls);
    TlsHandshakeFailures tlsFailures =
        tls == null ? null : new TlsHandshakeFailures("management", registry);
    this.loop = new MultiThreadIoEventLoopGroup(1, daemon("spanprof-management"),
        NioIoHandler.newFactory());
    this.scrapes = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(WAITING_SCRAPES), daemon("spanprof-management-scrape"));
    try {
      this.listener = new ServerBootstrap()
          .group(loop)
          .channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
              if (tlsContext != null) {
                channel.pipeline().addLast(tlsContext.newHandler(channel.alloc()), tlsFailures);
              }
              channel.pipeline()
                  .addLast(new ConnectionLimits(configuration.getRequestTimeout(),
                      configuration.getIdleTimeout(), configuration.getMaxConnections(),
                      connections))
                  .addLast(new HttpServerCodec(4096, MAX_HEADER_BYTES, 8192))
                  .addLast(new HttpObjectAggregator(8192))
                  .addLast(new Requests());
            }
          })
          .bind(new InetSocketAddress(configuration.getHost(), configuration.getPort()))
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      scrapes.shutdownNow();
      if (tls != null) {
        tls.close();
      }
      throw new IOException("cannot listen on " + configuration.getHost() + ":"
          + configuration.getPort() + " (" + ManagementConfiguration.PREFIX + ".host, .port): "
          + e.getMessage(), e);
    }
  }

  /** The bound port: the configured one, or the one picked when configured as 0. */
  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    started = true;
  }

  @PreDestroy
  void stop() {
    listener.close().syncUninterruptibly();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    scrapes.shutdownNow();
    if (tls != null) {
      tls.close();
    }
  }

  /** Whether the listener serves TLS ({@code spanprof.management.tls.*}). */
  public boolean servesTls() {
    return tls != null;
  }

  private static SslContext tlsContext(ServerTls tls) {
    try {
      return tls.httpContext();
    } catch (SSLException e) {
      tls.close();
      throw new IllegalStateException("cannot set up TLS on the management port: "
          + e.getMessage(), e);
    }
  }

  /** Answers each whole request: probes at once on the event loop, scrapes on their thread. */
  private final class Requests extends SimpleChannelInboundHandler<FullHttpRequest> {

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      ctx.pipeline().get(ConnectionLimits.class).requestReceived();
      boolean head = HttpMethod.HEAD.equals(request.method());
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      if (!request.decoderResult().isSuccess()) {
        respond(ctx, HttpResponseStatus.BAD_REQUEST, TEXT, "malformed request\n", head, false);
        return;
      }
      if (!HttpMethod.GET.equals(request.method()) && !head) {
        FullHttpResponse response = response(HttpResponseStatus.METHOD_NOT_ALLOWED, TEXT,
            "use GET\n", head);
        response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        send(ctx, response, keepAlive);
        return;
      }
      String path = new QueryStringDecoder(request.uri()).path();
      switch (path) {
        case "/metrics" -> {
          AuthDecision decision = tokens.check(
              request.headers().get(HttpHeaderNames.AUTHORIZATION), () -> null, Access.METRICS,
              "management");
          if (decision.allowed()) {
            scrape(ctx, request.headers().get(HttpHeaderNames.ACCEPT), head, keepAlive);
          } else {
            refuse(ctx, decision, head, keepAlive);
          }
        }
        case "/health", "/health/readiness" -> health(ctx, readiness(), head, keepAlive);
        case "/health/liveness" -> health(ctx, null, head, keepAlive);
        default -> respond(ctx, HttpResponseStatus.NOT_FOUND, TEXT,
            "not found; try /metrics, /health, /health/liveness or /health/readiness\n", head,
            keepAlive);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // a reset connection, say: nothing to answer
    }

    private void scrape(ChannelHandlerContext ctx, String accept, boolean head,
        boolean keepAlive) {
      try {
        scrapes.execute(() -> {
          FullHttpResponse response;
          try {
            response = metrics(accept, head);
          } catch (IOException | RuntimeException e) {
            response = response(HttpResponseStatus.INTERNAL_SERVER_ERROR, TEXT,
                "cannot render the metrics: " + e + "\n", head);
          }
          send(ctx, response, keepAlive);
        });
      } catch (RejectedExecutionException busy) {
        respond(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, TEXT,
            "scrapes are already waiting; try again\n", head, keepAlive);
      }
    }
  }

  private FullHttpResponse metrics(String accept, boolean head) throws IOException {
    MetricSnapshots meters = registry.getPrometheusRegistry().scrape();
    MetricSnapshots histograms = distributions.collect();
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
    String contentType;
    if (accept != null && accept.contains(OPENMETRICS)) {
      List<MetricSnapshot> families = new ArrayList<>();
      for (MetricSnapshot family : meters) {
        if (!DistributionExport.OPEN_METRICS_CONFLICTS.contains(family.getMetadata().getName())) {
          families.add(family);
        }
      }
      histograms.forEach(families::add);
      new OpenMetricsTextFormatWriter(false, false).write(body, new MetricSnapshots(families));
      contentType = OpenMetricsTextFormatWriter.CONTENT_TYPE;
    } else {
      PrometheusTextFormatWriter writer = new PrometheusTextFormatWriter(false);
      writer.write(body, meters);
      writer.write(body, histograms);
      contentType = PROMETHEUS_TEXT;
    }
    return response(HttpResponseStatus.OK, contentType, body.toByteArray(), head);
  }

  /** Why spanprof takes no spans now, or null when it does. */
  private String readiness() {
    if (!started) {
      return "starting";
    }
    if (!gate.isOpen()) {
      return "shutting down";
    }
    return memory.isOver() ? "heap over spanprof.memory.limit-percentage" : null;
  }

  /** 401 with the bearer challenge, as the HTTP port answers ({@link HttpRefusals}). */
  private static void refuse(ChannelHandlerContext ctx, AuthDecision decision, boolean head,
      boolean keepAlive) {
    FullHttpResponse response = response(
        HttpResponseStatus.valueOf(HttpRefusals.status(decision).getCode()), TEXT,
        decision.message() + "\n", head);
    String challenge = HttpRefusals.challenge(decision);
    if (challenge != null) {
      response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, challenge);
    }
    send(ctx, response, keepAlive);
  }

  private static void health(ChannelHandlerContext ctx, String down, boolean head,
      boolean keepAlive) {
    respond(ctx, down == null ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
        "application/json", down == null ? "{\"status\":\"UP\"}"
            : "{\"status\":\"DOWN\",\"reason\":\"" + down + "\"}", head, keepAlive);
  }

  private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status,
      String contentType, String body, boolean head, boolean keepAlive) {
    send(ctx, response(status, contentType, body, head), keepAlive);
  }

  private static FullHttpResponse response(HttpResponseStatus status, String contentType,
      String body, boolean head) {
    return response(status, contentType, body.getBytes(StandardCharsets.UTF_8), head);
  }

  /** A response with its length; for HEAD, the length without the body. */
  private static FullHttpResponse response(HttpResponseStatus status, String contentType,
      byte[] body, boolean head) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return response;
  }

  /** Writes the response (from any thread), then lets the connection idle or closes it. */
  private static void send(ChannelHandlerContext ctx, FullHttpResponse response,
      boolean keepAlive) {
    if (!keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    ChannelFuture written = ctx.writeAndFlush(response);
    if (keepAlive) {
      written.addListener(done -> {
        ConnectionLimits limits = ctx.pipeline().get(ConnectionLimits.class);
        if (limits != null) {
          limits.answered(ctx);
        }
      });
    } else {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private static ThreadFactory daemon(String name) {
    return task -> {
      Thread thread = new Thread(task, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
