package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.CheckoutLoad;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import dev.spanprof.v1.GetTailRequest;
import dev.spanprof.v1.ProfileServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * GET /api/v1/tail and ProfileService.GetTail after 100 checkouts whose query is 20 times slower
 * in one in ten: at q = 0.9 the slow ones are S, and db.query has all of the excess (semantics.md
 * §6: 220 against 49 ms on average, 171 ms of excess, all the query's).
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class TailControllerTest {

  private static final long MS = CheckoutLoad.MS;
  private final HttpClient http = HttpClient.newHttpClient();
  @Inject ApplicationContext context;
  private ManagedChannel channel;

  @BeforeAll
  void analyseTheCheckouts() throws Exception {
    assertThat(TestTraffic.postProtobuf(context, CheckoutLoad.request(100))).isEqualTo(200);
    TestTraffic.complete(context, CheckoutLoad.traceIds(100).toArray(TraceId[]::new));
    channel = NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc()).usePlaintext()
        .build();
  }

  @AfterAll
  void disconnect() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void roots_listTheCheckoutWithItsCountAndQuantiles() throws Exception {
    JsonArray roots = JsonParser.parseString(get("/api/v1/tail").body()).getAsJsonArray();

    assertThat(roots).hasSize(1);
    JsonObject root = roots.get(0).getAsJsonObject();
    assertThat(root.get("service").getAsString()).isEqualTo("shop");
    assertThat(root.get("operation").getAsString()).isEqualTo("GET /checkout");
    assertThat(root.get("traces").getAsLong()).isEqualTo(100);
    assertThat(root.get("p50Ns").getAsLong()).isBetween(30 * MS * 100 / 105, 30 * MS);
    assertThat(root.get("p99Ns").getAsLong()).isBetween(220 * MS * 100 / 105, 220 * MS);
  }

  @Test
  void breakdown_putsAllTheExcessOnTheSlowQuery() throws Exception {
    HttpResponse<String> response =
        get("/api/v1/tail?service=shop&operation=GET%20/checkout&quantile=0.9");
    JsonObject tail = JsonParser.parseString(response.body()).getAsJsonObject();

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(tail.get("slowTraces").getAsLong()).isEqualTo(10);
    assertThat(tail.get("allTraces").getAsLong()).isEqualTo(100);
    assertThat(tail.get("meanSlowNs").getAsDouble()).isEqualTo(220.0 * MS);
    assertThat(tail.get("meanAllNs").getAsDouble()).isCloseTo(49.0 * MS, within(1.0));
    JsonObject first = tail.getAsJsonArray("operations").get(0).getAsJsonObject();
    assertThat(first.get("operation").getAsString()).isEqualTo("db.query");
    assertThat(first.get("excessNs").getAsDouble()).isCloseTo(171.0 * MS, within(1.0));
    assertThat(tail.getAsJsonArray("states").get(0).getAsJsonObject().get("state").getAsString())
        .isEqualTo("wait.db");
  }

  @Test
  void breakdown_badParameters_400AndUnknownRoot_404() throws Exception {
    HttpResponse<String> quantile =
        get("/api/v1/tail?service=shop&operation=GET%20/checkout&quantile=1.5");
    HttpResponse<String> missing = get("/api/v1/tail?service=shop");
    HttpResponse<String> unknown = get("/api/v1/tail?service=shop&operation=nope");

    assertThat(quantile.statusCode()).isEqualTo(400);
    assertThat(quantile.body()).isEqualTo("{\"error\":\"quantile must be in (0, 1), got 1.5\"}");
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body()).contains("service and operation (of a root) are both required");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("no trace rooted at shop / nope in the tail window");
  }

  @Test
  void getTail_answersTheSameOverGrpc() {
    var stub = ProfileServiceGrpc.newBlockingStub(channel);

    var breakdown = stub.getTail(GetTailRequest.newBuilder().setService("shop")
        .setOperation("GET /checkout").build()).getBreakdown();
    var roots = stub.getTail(GetTailRequest.getDefaultInstance()).getRootsList();
    StatusRuntimeException unknown = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getTail(GetTailRequest.newBuilder().setService("shop").setOperation("nope")
            .build()));

    assertThat(breakdown.getQuantile()).isEqualTo(0.9);
    assertThat(breakdown.getSlowTraces()).isEqualTo(10);
    assertThat(breakdown.getOperations(0).getName()).isEqualTo("db.query");
    assertThat(breakdown.getOperations(0).getExcessNs()).isCloseTo(171.0 * MS, within(1.0));
    assertThat(roots).hasSize(1);
    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
