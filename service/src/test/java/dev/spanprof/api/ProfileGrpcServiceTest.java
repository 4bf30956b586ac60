package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.RankingService;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import dev.spanprof.v1.GetDistributionRequest;
import dev.spanprof.v1.GetEdgesRequest;
import dev.spanprof.v1.GetPoolsRequest;
import dev.spanprof.v1.GetRankingRequest;
import dev.spanprof.v1.GetTraceProfileRequest;
import dev.spanprof.v1.ListTracesRequest;
import dev.spanprof.v1.ProfileServiceGrpc;
import dev.spanprof.v1.RankingSort;
import dev.spanprof.v1.TraceSummary;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import com.google.protobuf.util.JsonFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * spanprof.v1.ProfileService through a real gRPC channel, after the profiling-stats seed's trace
 * (a query fanning out to six threads on a 4-core pool) was posted and analysed.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.pools.capacity.worker/w1", value = "4")
class ProfileGrpcServiceTest {

  private static final String TRACE = "853aeb57d1ff375755dbfeff4c772fa0";

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject RankingService ranking;
  @Inject PoolService pools;
  private ManagedChannel channel;
  private ProfileServiceGrpc.ProfileServiceBlockingStub stub;

  @BeforeAll
  void analyseTheSeedTrace() throws Exception {
    TestTraffic.postGolden(context, "seed-profiling-dop");
    TestTraffic.complete(context, TraceId.fromHex(TRACE));
    ranking.refresh();
    time.setWallClock(Instant.ofEpochSecond(1_700_000_100));
    pools.finalizeDue();
    channel = NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc()).usePlaintext().build();
    stub = ProfileServiceGrpc.newBlockingStub(channel);
  }

  @AfterAll
  void disconnect() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void getTraceProfile_matchesTheGoldenProfile() {
    JsonObject expected = JsonParser.parseString(
        new String(GoldenCases.expectedJson("seed-profiling-dop"), StandardCharsets.UTF_8)).getAsJsonObject();

    dev.spanprof.v1.TraceProfile profile = stub.getTraceProfile(GetTraceProfileRequest.newBuilder()
        .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(TRACE))).build());

    assertThat(profile.getTraceId()).isEqualTo(TRACE);
    assertThat(profile.getSpanTimeNs()).isEqualTo(expected.get("spanTimeNs").getAsLong());
    assertThat(profile.getResourceTimeNs()).isEqualTo(expected.get("resourceTimeNs").getAsLong());
    assertThat(profile.getTtxNs()).isEqualTo(expected.get("ttxNs").getAsLong());
    assertThat(profile.getParallelism()).isEqualTo(expected.get("parallelism").getAsDouble());
    assertThat(profile.getSpansCount()).isEqualTo(expected.getAsJsonArray("spans").size());
    assertThat(profile.getStatesCount()).isEqualTo(expected.getAsJsonArray("states").size());
    assertThat(profile.getPools(0).getAttributionNsMap().get("wait.s3"))
        .isCloseTo(14183333333.333334, within(1e-3));
  }

  @Test
  void getTraceProfile_carriesThePicturesAndTheSummary() {
    dev.spanprof.v1.TraceProfile profile = stub.getTraceProfile(GetTraceProfileRequest.newBuilder()
        .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(TRACE))).build());

    assertThat(profile.getCriticalPathSegmentsList().stream()
        .mapToLong(segment -> segment.getEndNanos() - segment.getStartNanos()).sum())
        .isEqualTo(profile.getCriticalPathNs());
    assertThat(profile.getLanesList().stream()
        .mapToLong(lane -> lane.getEndNanos() - lane.getStartNanos()).sum())
        .isEqualTo(profile.getResourceTimeNs());
    assertThat(profile.getSpansList()).allSatisfy(span -> assertThat(span.getName()).isNotEmpty());
    assertThat(profile.getSummary().getTraceId()).isEqualTo(TRACE);
    assertThat(profile.getSummary().getTtcNs()).isEqualTo(profile.getTtcNs());
  }

  /** The spans' own attributes and resources, as the JSON API has them; found by attribute. */
  @Test
  void getTraceProfile_carriesTheSpansOwnData_andListTracesFindsItByAttribute()
      throws Exception {
    dev.spanprof.v1.TraceProfile profile = stub.getTraceProfile(GetTraceProfileRequest.newBuilder()
        .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(TRACE))).build());
    JsonObject json = JsonParser.parseString(HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/api/v1/traces/" + TRACE)))
            .build(), HttpResponse.BodyHandlers.ofString()).body()).getAsJsonObject();
    var byThread = stub.listTraces(ListTracesRequest.newBuilder()
        .putAttributes("thread.id", "t1").build());
    var byOtherThread = stub.listTraces(ListTracesRequest.newBuilder()
        .putAttributes("thread.id", "no-such-thread").build());

    assertThat(profile.getAttributesKept()).isTrue();
    for (int s = 0; s < profile.getSpansCount(); s++) {
      assertThat(JsonParser.parseString(JsonFormat.printer().print(
              profile.getSpans(s).getAttributes())))
          .isEqualTo(json.getAsJsonArray("spans").get(s).getAsJsonObject().get("attributes"));
    }
    assertThat(profile.getOtelResources(profile.getSpans(0).getOtelResource())
        .getFieldsMap().get("service.name").getStringValue()).isEqualTo(
            json.getAsJsonArray("spans").get(0).getAsJsonObject().get("service").getAsString());
    assertThat(byThread.getTracesList()).extracting(TraceSummary::getTraceId)
        .containsExactly(TRACE);
    assertThat(byOtherThread.getTracesList()).isEmpty();
  }

  @Test
  void listTraces_answersTheSummariesAndRefusesAMalformedOrder() {
    var list = stub.listTraces(ListTracesRequest.newBuilder().setOrder("slowest").build());
    StatusRuntimeException malformed = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.listTraces(ListTracesRequest.newBuilder().setOrder("oldest").build()));

    assertThat(list.getTracesList()).extracting(TraceSummary::getTraceId).containsExactly(TRACE);
    assertThat(list.getTraces(0).getCompletion()).isEqualTo("timeout");
    assertThat(malformed.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(malformed.getStatus().getDescription())
        .isEqualTo("order must be newest or slowest, got 'oldest'");
  }

  @Test
  void getTraceProfile_unknownOrMalformed_notFoundAndInvalidArgument() {
    StatusRuntimeException unknown = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getTraceProfile(GetTraceProfileRequest.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[16])).build()));
    StatusRuntimeException malformed = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getTraceProfile(GetTraceProfileRequest.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[3])).build()));

    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(malformed.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(malformed.getStatus().getDescription()).isEqualTo("trace id must be 16 bytes, got 3");
  }

  @Test
  void getRanking_queryDispatchesAndRanksFirst() {
    var first = stub.getRanking(GetRankingRequest.newBuilder().setTop(1).build()).getOperations(0);
    var bySelf = stub.getRanking(GetRankingRequest.newBuilder()
        .setTop(1).setSort(RankingSort.RANKING_SORT_SELF_TIME).build()).getOperations(0);

    assertThat(first.getService()).isEqualTo("worker");
    assertThat(first.getName()).isEqualTo("query");
    assertThat(first.getRank()).isEqualTo(1);
    assertThat(first.getFlagsList()).contains("dispatcher");
    assertThat(bySelf.getName()).isEqualTo("running");
  }

  @Test
  void getEdges_calleesOfTheQuery() {
    var edges = stub.getEdges(GetEdgesRequest.newBuilder().setService("worker").setOperation("query").build());

    assertThat(edges.getCallersCount()).isZero();
    assertThat(edges.getCalleesList()).extracting(neighbour -> neighbour.getName())
        .contains("running", "wait.s3", "wait.net");
    assertThat(edges.getCalleesList()).filteredOn(neighbour -> neighbour.getName().equals("running"))
        .singleElement().satisfies(running -> assertThat(running.getCount()).isEqualTo(7));
  }

  @Test
  void getPools_twoFinalWindowsOfTheConfiguredPool() {
    var answer = stub.getPools(GetPoolsRequest.newBuilder().setPool("worker/w1").build());

    assertThat(answer.getPoolsList()).singleElement().satisfies(pool -> {
      assertThat(pool.getWindowsCount()).isEqualTo(2);
      assertThat(pool.getWindows(0).getStartTimeUnixNano()).isEqualTo(1_700_000_000_000_000_000L);
      assertThat(pool.getWindows(0).getCapacity()).isEqualTo(4);
    });
    assertThat(stub.getPools(GetPoolsRequest.newBuilder().setPool("nope").build()).getPoolsCount()).isZero();
  }

  @Test
  void getDistribution_theQueryDurationWithItsEncodedHistogram() throws Exception {
    var distribution = stub.getDistribution(GetDistributionRequest.newBuilder()
        .setService("worker").setOperation("query").build());

    assertThat(distribution.getCumulative().getCount()).isEqualTo(1);
    assertThat(distribution.getCumulative().getMaxNs())
        .isCloseTo(20_000_000_000L, org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(distribution.getCumulative().getQuantilesList()).hasSize(4);
    assertThat(distribution.hasCumulativeCorrected()).isFalse();
    assertThat(org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(
        distribution.getWindow().getEncodedHistogram().asReadOnlyByteBuffer(), 0).getTotalCount())
        .isEqualTo(1);
    StatusRuntimeException unknown = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getDistribution(GetDistributionRequest.newBuilder()
            .setService("worker").setOperation("nope").build()));
    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void getRankingAndGetDistribution_unknownEnumOrNoOperation_invalidArgumentAsHttpGives400() {
    StatusRuntimeException sort = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getRanking(GetRankingRequest.newBuilder().setSortValue(7).build()));
    StatusRuntimeException kind = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getDistribution(GetDistributionRequest.newBuilder()
            .setService("worker").setOperation("query").setKindValue(9).build()));
    StatusRuntimeException empty = catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.getDistribution(GetDistributionRequest.getDefaultInstance()));

    assertThat(sort.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(sort.getStatus().getDescription()).endsWith("got 7");
    assertThat(kind.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(kind.getStatus().getDescription()).endsWith("got 9");
    assertThat(empty.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(empty.getStatus().getDescription())
        .isEqualTo("service and operation are both required");
  }
}
