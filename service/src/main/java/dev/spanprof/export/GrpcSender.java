package dev.spanprof.export;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.ExportConfiguration.Compression;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptors;
import io.grpc.CompressorRegistry;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * OTLP/gRPC to the next hop. The request is encoded as gRPC sends it
 * ({@link ExportRequestMarshaller}). Retryable as the OTLP specification says: CANCELLED,
 * DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS, and RESOURCE_EXHAUSTED only
 * when it carries RetryInfo.
 */
final class GrpcSender implements OtlpSender {

  private static final Set<Status.Code> RETRYABLE = EnumSet.of(Status.Code.CANCELLED,
      Status.Code.DEADLINE_EXCEEDED, Status.Code.ABORTED, Status.Code.OUT_OF_RANGE,
      Status.Code.UNAVAILABLE, Status.Code.DATA_LOSS);

  /**
   * The buffers of the channels to the next hop, pooled in chunks of 1 MiB, the largest buffer
   * gRPC frames a request in. Micronaut sets {@code io.netty.allocator.maxOrder} to 3 for the
   * process (chunks of 64 KiB), which gRPC then takes too, and gRPC frames a compressed request
   * in buffers that double up to 1 MiB: every one past 64 KiB was allocated and freed outside
   * the pool, as a direct buffer of its own, about 5 % of spanprof's CPU at 50 000 spans/s
   * ({@code bench/profile-service.sh}). One arena and no per-thread caches: a few requests are
   * framed at a time, and the pool then holds little more than the requests in flight.
   */
  static final PooledByteBufAllocator NEXT_HOP_BUFFERS = new PooledByteBufAllocator(true, 0, 1,
      PooledByteBufAllocator.defaultPageSize(), 7, 0, 0, false);

  private final ManagedChannel channel;
  private final Channel intercepted;
  private final Duration timeout;
  private final Compression compression;

  GrpcSender(URI endpoint, ExportConfiguration configuration) {
    boolean tls = "https".equalsIgnoreCase(endpoint.getScheme()) && !configuration.isInsecure();
    ChannelCredentials credentials = tls ? credentials(configuration) : InsecureChannelCredentials.create();
    int port = endpoint.getPort() > 0 ? endpoint.getPort() : (tls ? 443 : 4317);
    this.compression = configuration.compressionValue();
    int level = configuration.compressionLevelValue();
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    if (compression != Compression.NONE) {
      compressors.register(Compressors.grpc(compression, level));
    }
    this.channel = NettyChannelBuilder.forAddress(endpoint.getHost(), port, credentials)
        .withOption(ChannelOption.ALLOCATOR, NEXT_HOP_BUFFERS)
        .compressorRegistry(compressors)
        .build();
    Metadata headers = new Metadata();
    configuration.getHeaders().forEach((name, value) ->
        headers.put(Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER), value));
    this.intercepted = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
    this.timeout = configuration.getTimeout();
  }

  private static ChannelCredentials credentials(ExportConfiguration configuration) {
    try {
      TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
      if (!configuration.getCaFile().isBlank()) {
        tls.trustManager(new File(configuration.getCaFile()));
      }
      if (!configuration.getCertFile().isBlank() && !configuration.getKeyFile().isBlank()) {
        tls.keyManager(new File(configuration.getCertFile()), new File(configuration.getKeyFile()));
      }
      return tls.build();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the TLS files of "
          + ExportConfiguration.PREFIX + " (ca-file, cert-file, key-file): " + e.getMessage(), e);
    }
  }

  @Override
  public SendResult send(ExportRequest request) {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    if (compression != Compression.NONE) {
      options = options.withCompression(compression.encoding());
    }
    try {
      ExportTraceServiceResponse response =
          ClientCalls.blockingUnaryCall(
              intercepted, ExportRequestMarshaller.TRACE_EXPORT, options, request);
      return SendResult.sent(response.getPartialSuccess().getRejectedSpans(),
          response.getPartialSuccess().getErrorMessage());
    } catch (StatusRuntimeException e) {
      Status status = e.getStatus();
      String reason = status.getCode().name().toLowerCase(Locale.ROOT);
      String message = status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription());
      String tlsProblem = Tls.handshakeProblem(e);
      if (tlsProblem != null) {
        return SendResult.failed("tls", tlsProblem);
      }
      Duration retryAfter = retryInfo(e);
      if (RETRYABLE.contains(status.getCode())
          || (status.getCode() == Status.Code.RESOURCE_EXHAUSTED && retryAfter != null)) {
        return SendResult.retry(reason, retryAfter, message);
      }
      return SendResult.failed(reason, message);
    }
  }

  /** grpc-java waits up to two minutes between reconnects; a retry should not. */
  @Override
  public void reconnectNow() {
    channel.resetConnectBackoff();
  }

  private static Duration retryInfo(StatusRuntimeException e) {
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status == null) {
      return null;
    }
    for (com.google.protobuf.Any detail : status.getDetailsList()) {
      if (detail.is(RetryInfo.class)) {
        try {
          com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
          return Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
        } catch (InvalidProtocolBufferException malformed) {
          return null;
        }
      }
    }
    return null;
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
