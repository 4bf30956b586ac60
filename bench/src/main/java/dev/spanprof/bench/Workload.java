package dev.spanprof.bench;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Realistic OTLP traffic: each span about 450 bytes encoded (10 attributes: HTTP, DB and thread
 * attributes as instrumentation libraries write them), one resource of 9 attributes per
 * request, traces of {@code spansPerTrace} spans (a server root, then clients and internal
 * children on a few threads), {@code spansPerRequest} spans per request.
 */
public final class Workload {

  private static final String[] SERVICES = {"checkout", "cart", "payment", "inventory", "shipping"};
  private static final String[] OPERATIONS = {"GET /cart", "POST /checkout", "SELECT orders",
      "charge", "reserve", "GET /inventory/{id}", "publish order.created", "render"};

  // The attributes every span has alike, built once: the generator shares the cores it measures.
  private static final KeyValue METHOD = string("http.request.method", "GET");
  private static final KeyValue SERVER_ADDRESS = string("server.address", "orders.internal.example.com");
  private static final KeyValue SERVER_PORT = integer("server.port", 8443);
  private static final KeyValue STATUS_CODE = integer("http.response.status_code", 200);
  private static final KeyValue PROTOCOL_VERSION = string("network.protocol.version", "1.1");
  private static final KeyValue USER_AGENT = string("user_agent.original", "okhttp/4.12.0");
  private static final KeyValue CODE_FUNCTION =
      string("code.function", "com.example.orders.OrderController.get");
  private static final Status UNSET = Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_UNSET).build();
  private static final Status ERROR = Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).build();
  private static final int THREADS = 4;
  private static final KeyValue[] THREAD_IDS = new KeyValue[THREADS];
  private static final KeyValue[] THREAD_NAMES = new KeyValue[THREADS];

  static {
    for (int t = 0; t < THREADS; t++) {
      THREAD_IDS[t] = integer("thread.id", 1 + t);
      THREAD_NAMES[t] = string("thread.name", "http-nio-8080-exec-" + (1 + t));
    }
  }

  private final int spansPerTrace;
  private final int spansPerRequest;

  public Workload(int spansPerTrace, int spansPerRequest) {
    this.spansPerTrace = spansPerTrace;
    this.spansPerRequest = spansPerRequest;
  }

  /** One export request of fresh traces, starting at {@code startNanos} (Unix epoch). */
  public ExportTraceServiceRequest request(long startNanos) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String service = SERVICES[random.nextInt(SERVICES.length)];
    ScopeSpans.Builder scope = ScopeSpans.newBuilder()
        .setScope(InstrumentationScope.newBuilder().setName("io.opentelemetry.okhttp-3.0").setVersion("2.9.0"));
    int made = 0;
    while (made < spansPerRequest) {
      byte[] traceId = new byte[16];
      random.nextBytes(traceId);
      ByteString traceIdBytes = ByteString.copyFrom(traceId);
      long rootId = random.nextLong() | 1;
      ByteString rootSpanId = id(rootId);
      int inTrace = Math.min(spansPerTrace, spansPerRequest - made);
      long traceStart = startNanos + random.nextInt(1_000_000);
      long traceLength = 5_000_000 + random.nextInt(50_000_000);
      for (int i = 0; i < inTrace; i++) {
        long spanId = i == 0 ? rootId : random.nextLong() | 1;
        long start = i == 0 ? traceStart : traceStart + random.nextLong(traceLength / 2);
        long end = i == 0 ? traceStart + traceLength : start + random.nextLong(traceLength / 4) + 1_000;
        Span.Builder span = Span.newBuilder()
            .setTraceId(traceIdBytes)
            .setSpanId(i == 0 ? rootSpanId : id(spanId))
            .setName(OPERATIONS[i == 0 ? 0 : random.nextInt(OPERATIONS.length)])
            .setKind(i == 0 ? Span.SpanKind.SPAN_KIND_SERVER
                : i % 3 == 0 ? Span.SpanKind.SPAN_KIND_CLIENT : Span.SpanKind.SPAN_KIND_INTERNAL)
            .setStartTimeUnixNano(start)
            .setEndTimeUnixNano(end)
            .setStatus(random.nextInt(50) == 0 ? ERROR : UNSET)
            .addAttributes(METHOD)
            .addAttributes(string("url.path", "/api/v2/orders/" + random.nextInt(100_000)))
            .addAttributes(SERVER_ADDRESS)
            .addAttributes(SERVER_PORT)
            .addAttributes(STATUS_CODE)
            .addAttributes(PROTOCOL_VERSION)
            .addAttributes(USER_AGENT)
            .addAttributes(THREAD_IDS[i % THREADS])
            .addAttributes(THREAD_NAMES[i % THREADS])
            .addAttributes(CODE_FUNCTION);
        if (i > 0) {
          span.setParentSpanId(rootSpanId);
        }
        scope.addSpans(span);
        made++;
      }
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder()
            .setResource(Resource.newBuilder()
                .addAttributes(string("service.name", service))
                .addAttributes(string("service.instance.id", service + "-7d9f8b6c5-x2x9q"))
                .addAttributes(string("service.version", "1.42.0"))
                .addAttributes(string("deployment.environment", "production"))
                .addAttributes(string("host.name", "ip-10-0-12-34.eu-west-1.compute.internal"))
                .addAttributes(string("k8s.namespace.name", "shop"))
                .addAttributes(string("k8s.pod.name", service + "-7d9f8b6c5-x2x9q"))
                .addAttributes(string("telemetry.sdk.language", "java"))
                .addAttributes(string("telemetry.sdk.version", "1.42.1")))
            .addScopeSpans(scope))
        .build();
  }

  private static ByteString id(long value) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putLong(value).array());
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }

  private static KeyValue integer(String key, long value) {
    return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setIntValue(value)).build();
  }
}
