package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.util.JsonFormat;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.CheckoutLoad;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import dev.spanprof.v1.DistributionKind;
import dev.spanprof.v1.DistributionState;
import dev.spanprof.v1.GetStateRequest;
import dev.spanprof.v1.OperationKey;
import dev.spanprof.v1.ProfileServiceGrpc;
import dev.spanprof.v1.State;
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
 * GET /api/v1/state?scope=local and ProfileService.GetState after 100 checkouts: the same
 * versioned state as protobuf, as its JSON mirror and over gRPC, narrowed to the parts asked.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class StateControllerTest {

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
  void protobuf_holdsTheRankingAndTailOfEveryCheckout() throws Exception {
    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(
            Ports.of(context).httpUrl("/api/v1/state?scope=local&part=ranking&part=tail")))
        .header("Accept", "application/x-protobuf").build(), HttpResponse.BodyHandlers.ofByteArray());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
        assertThat(type).startsWith("application/x-protobuf"));
    State state = State.parseFrom(response.body());
    assertThat(state.getVersion()).isEqualTo(1);
    assertThat(state.getOperationsList()).contains(
        OperationKey.newBuilder().setService("shop").setName("GET /checkout").build());
    long checkouts = state.getRanking().getSlicesList().stream()
        .flatMap(slice -> slice.getRootsList().stream())
        .flatMap(root -> root.getOperationsList().stream())
        .filter(sums -> state.getOperations(sums.getOperation()).getName().equals("GET /checkout"))
        .mapToLong(sums -> sums.getCount()).sum();
    assertThat(checkouts).isEqualTo(100);
    long tailTraces = state.getTail().getRootsList().stream()
        .flatMap(root -> root.getSlicesList().stream())
        .flatMap(slice -> slice.getBucketsList().stream())
        .mapToLong(bucket -> bucket.getCount()).sum();
    assertThat(tailTraces).isEqualTo(100);
    assertThat(state.getTracesList()).isEmpty();
    assertThat(state.getDistributionsList()).isEmpty();
  }

  @Test
  void json_mirrorsTheProtobuf_oneSliceWhenSummed() throws Exception {
    HttpResponse<String> response = get("/api/v1/state?scope=local&part=ranking&summed=true");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonObject json = JsonParser.parseString(response.body()).getAsJsonObject();
    assertThat(json.get("version").getAsInt()).isEqualTo(1);
    assertThat(json.getAsJsonObject("ranking").getAsJsonArray("slices")).hasSize(1);
    State.Builder parsed = State.newBuilder();
    JsonFormat.parser().merge(response.body(), parsed);
    assertThat(parsed.getRanking().getSlices(0).getRootsCount()).isEqualTo(1);
  }

  @Test
  void distributionAndTraces_ofOneOperationAndTheListsFilter() throws Exception {
    JsonObject json = JsonParser.parseString(get("/api/v1/state?scope=local&part=distribution"
        + "&part=traces&service=shop&operation=GET%20/checkout&order=slowest&limit=3").body())
        .getAsJsonObject();

    assertThat(json.getAsJsonArray("distributions")).singleElement().satisfies(distribution ->
        assertThat(distribution.getAsJsonObject().get("cumulative").getAsString()).isNotEmpty());
    assertThat(json.getAsJsonArray("traces")).hasSize(3);
    assertThat(json.has("ranking")).isFalse();
  }

  @Test
  void distributions_withoutAnOperation_everyOperationsOfEveryKind() {
    State state = ProfileServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .getState(GetStateRequest.newBuilder().addParts("distribution").build());

    assertThat(state.getDistributionsList())
        .filteredOn(distribution -> state.getOperations(distribution.getOperation()).getName()
            .equals("GET /checkout"))
        .extracting(DistributionState::getKind)
        .containsExactlyInAnyOrder(DistributionKind.DISTRIBUTION_KIND_DURATION,
            DistributionKind.DISTRIBUTION_KIND_SELF_TIME,
            DistributionKind.DISTRIBUTION_KIND_CRITICAL_PATH);
  }

  @Test
  void grpc_answersTheSameState() {
    State state = ProfileServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .getState(GetStateRequest.newBuilder().addParts("tail").build());

    assertThat(state.getVersion()).isEqualTo(1);
    assertThat(state.getTail().getRootsCount()).isEqualTo(1);
    assertThat(state.hasRanking()).isFalse();
  }

  @Test
  void withoutScopeLocal_orAnUnknownPart_refusedWithAMessage() throws Exception {
    HttpResponse<String> noScope = get("/api/v1/state");
    assertThat(noScope.statusCode()).isEqualTo(400);
    assertThat(noScope.body()).contains("scope=local");
    HttpResponse<String> unknown = get("/api/v1/state?scope=local&part=everything");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(unknown.body()).contains("part must be one of");
    StatusRuntimeException refused = catchThrowableOfType(() -> ProfileServiceGrpc
        .newBlockingStub(channel).getState(GetStateRequest.newBuilder().addParts("x").build()),
        StatusRuntimeException.class);
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
