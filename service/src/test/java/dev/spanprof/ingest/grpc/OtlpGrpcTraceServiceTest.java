package dev.spanprof.ingest.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.github.luben.zstd.ZstdOutputStream;
import com.google.protobuf.ByteString;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import io.grpc.CallOptions;
import io.grpc.Codec;
import io.grpc.Compressor;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** OTLP/gRPC against the running server: statuses for bad input, partial success, health. */
@MicronautTest
@Property(name = "test.sink", value = "recording")
@Property(name = "test.time", value = "manual")
class OtlpGrpcTraceServiceTest {

  /** Export with a request marshaller that sends any bytes, as a broken client would. */
  private static final MethodDescriptor<byte[], ExportTraceServiceResponse> RAW_EXPORT =
      TraceServiceGrpc.getExportMethod().toBuilder(
              new MethodDescriptor.Marshaller<byte[]>() {
                @Override
                public InputStream stream(byte[] value) {
                  return new ByteArrayInputStream(value);
                }

                @Override
                public byte[] parse(InputStream stream) {
                  throw new UnsupportedOperationException();
                }
              },
              io.grpc.protobuf.ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
          .build();

  /** zstd as the Collector's OTLP exporter sends it with {@code compression: zstd}. */
  private static final Compressor ZSTD = new Compressor() {
    @Override
    public String getMessageEncoding() {
      return "zstd";
    }

    @Override
    public OutputStream compress(OutputStream out) throws IOException {
      return new ZstdOutputStream(out, 1);
    }
  };

  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;
  private ManagedChannel channel;

  @BeforeEach
  void connect() {
    channel = connect(ZSTD);
  }

  /** A channel that compresses with gzip and with the given compressor. */
  private ManagedChannel connect(Compressor compressor) {
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    compressors.register(new Codec.Gzip());
    compressors.register(compressor);
    return NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc())
        .usePlaintext()
        .maxInboundMessageSize(64 * 1024 * 1024)
        .compressorRegistry(compressors)
        .build();
  }

  @AfterEach
  void disconnect() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void export_validRequest_ok() {
    ExportTraceServiceResponse response = TraceServiceGrpc.newBlockingStub(channel)
        .export(Otlp.request("shop", Otlp.span(new TraceId(1, 1), 1), Otlp.span(new TraceId(1, 1), 2)));

    assertThat(response).isEqualTo(ExportTraceServiceResponse.getDefaultInstance());
  }

  @Test
  void export_garbage_invalidArgumentWithMessageAndCounted() {
    double before = rejected("malformed");

    StatusRuntimeException error = rawExport(new byte[] {(byte) 0xff, (byte) 0xff, 1, 2});

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(error.getStatus().getDescription())
        .startsWith("the body is not a valid OTLP ExportTraceServiceRequest protobuf");
    assertThat(rejected("malformed") - before).isEqualTo(1);
    export_validRequest_ok();
  }

  @Test
  void export_truncated_invalidArgument() {
    byte[] whole = Otlp.request("shop", Otlp.span(new TraceId(2, 2), 1)).toByteArray();

    StatusRuntimeException error = rawExport(Arrays.copyOf(whole, whole.length / 2));

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(error.getStatus().getDescription()).contains("truncated");
  }

  @Test
  void export_20MiB_resourceExhaustedWithMessageAndCounted_notLoggedWithAStackTrace() {
    double before = rejected("too_large");
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler recorder = new Handler() {
      @Override
      public void publish(LogRecord record) {
        logged.add(record); // only what the logger's filter lets through
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    GrpcServerLimits.GRPC_STREAM_LOG.addHandler(recorder);

    StatusRuntimeException error;
    try {
      error = rawExport(new byte[20 * 1024 * 1024]);
      export_validRequest_ok();
    } finally {
      GrpcServerLimits.GRPC_STREAM_LOG.removeHandler(recorder);
    }
    assertThat(logged).as("what the log would print").isEmpty();

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(error.getStatus().getDescription()).contains("exceeds maximum size 16777216");
    // Counted when the trailers' write completes; the same connection's next call comes after.
    export_validRequest_ok();
    assertThat(rejected("too_large") - before).isEqualTo(1);
  }

  @Test
  void export_threeByteTraceId_partialSuccess() {
    double before = new Meters(registry)
        .count("spanprof.refused.spans", "transport", "grpc", "reason", "invalid");
    ExportTraceServiceRequest request = Otlp.request("shop",
        Otlp.span(new TraceId(3, 3), 1).setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3})),
        Otlp.span(new TraceId(3, 3), 2));

    ExportTraceServiceResponse response = TraceServiceGrpc.newBlockingStub(channel).export(request);

    assertThat(response.getPartialSuccess().getRejectedSpans()).isEqualTo(1);
    assertThat(response.getPartialSuccess().getErrorMessage())
        .contains("traceId has 3 bytes, expected 16");
    assertThat(new Meters(registry)
        .count("spanprof.refused.spans", "transport", "grpc", "reason", "invalid") - before)
        .isEqualTo(1);
  }

  @Test
  void export_zstdCompressed_ok_andEverySpanReceived() {
    Meters meters = new Meters(registry);
    double before = meters.count("spanprof.received.spans", "transport", "grpc");

    ExportTraceServiceResponse response = TraceServiceGrpc.newBlockingStub(channel)
        .withCompression("zstd")
        .export(Otlp.request("shop", Otlp.span(new TraceId(7, 7), 1), Otlp.span(new TraceId(7, 7), 2)));

    assertThat(response).isEqualTo(ExportTraceServiceResponse.getDefaultInstance());
    assertThat(meters.count("spanprof.received.spans", "transport", "grpc") - before).isEqualTo(2);
  }

  @Test
  void export_zstdExpandingPast16MiB_resourceExhaustedWithMessageAndCounted() {
    assertCompressedBombRefused("zstd");
  }

  @Test
  void export_gzipExpandingPast16MiB_resourceExhaustedWithMessageAndCounted() {
    assertCompressedBombRefused("gzip");
  }

  @Test
  void export_zstdEncodingButPlainBytes_invalidArgumentWithMessageAndCounted() {
    double before = rejected("malformed");
    byte[] plain = Otlp.request("shop", Otlp.span(new TraceId(8, 8), 1)).toByteArray();

    StatusRuntimeException error = exportMislabelled("zstd", plain);

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(error.getStatus().getDescription())
        .startsWith("the request's compressed bytes do not decompress");
    assertThat(rejected("malformed") - before).isEqualTo(1);
    export_validRequest_ok();
  }

  @Test
  void export_unknownEncoding_unimplementedAndCounted() {
    double before = rejected("unsupported_media_type");
    byte[] plain = Otlp.request("shop", Otlp.span(new TraceId(9, 9), 1)).toByteArray();

    StatusRuntimeException error = exportMislabelled("br", plain);

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(error.getStatus().getDescription()).contains("br");
    assertThat(rejected("unsupported_media_type") - before).isEqualTo(1);
  }

  /** Sends the bytes as they are, named {@code encoding}, as a broken or unknown client would. */
  private StatusRuntimeException exportMislabelled(String encoding, byte[] body) {
    ManagedChannel mislabelling = connect(new Compressor() {
      @Override
      public String getMessageEncoding() {
        return encoding;
      }

      @Override
      public OutputStream compress(OutputStream out) {
        return out;
      }
    });
    try {
      StatusRuntimeException error = catchThrowableOfType(StatusRuntimeException.class,
          () -> ClientCalls.blockingUnaryCall(
              mislabelling, RAW_EXPORT, CallOptions.DEFAULT.withCompression(encoding), body));
      // A refusal gRPC makes itself is counted when its trailers' write completes, which the
      // client may see first. The connection's event loop finishes that write before it reads
      // the next call on the same connection, so once this answers the count is in.
      HealthGrpc.newBlockingStub(mislabelling).check(HealthCheckRequest.getDefaultInstance());
      return error;
    } finally {
      mislabelling.shutdownNow();
    }
  }

  /**
   * gRPC finds the limit broken only while the message is decompressed, after the call has
   * started: the refusal must still be RESOURCE_EXHAUSTED, named and counted.
   */
  private void assertCompressedBombRefused(String encoding) {
    double before = rejected("too_large");

    StatusRuntimeException error = catchThrowableOfType(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(channel, RAW_EXPORT, CallOptions.DEFAULT.withCompression(encoding),
            new byte[20 * 1024 * 1024]));

    assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(error.getStatus().getDescription()).contains("exceeds maximum size 16777216");
    assertThat(rejected("too_large") - before).isEqualTo(1);
    export_validRequest_ok();
  }

  @Test
  void health_overall_serving() {
    HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
        .check(HealthCheckRequest.getDefaultInstance());

    assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  private StatusRuntimeException rawExport(byte[] body) {
    return catchThrowableOfType(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(channel, RAW_EXPORT, CallOptions.DEFAULT, body));
  }

  private double rejected(String reason) {
    return new Meters(registry)
        .count("spanprof.rejected.requests", "transport", "grpc", "reason", reason);
  }
}
