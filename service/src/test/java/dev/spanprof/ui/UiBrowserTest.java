package dev.spanprof.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.RankingService;
import dev.spanprof.testing.CheckoutLoad;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingProfiles;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web UI in real headless Chromium: spanprof started, the golden cases and a generated
 * 10 000-span trace sent over OTLP and analysed, then each page opened and checked as a person
 * would check it, against the JSON API. Screenshots go to target/ui-screenshots.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.pools.capacity.worker/w1", value = "4")
@Property(name = "spanprof.histogram.expected-interval.worker/query", value = "1s")
class UiBrowserTest {

  /** The generated trace: a root fanning out to 100 threads of 100 spans each, less one. */
  private static final TraceId LARGE = TraceId.fromHex("5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e");
  private static final int LARGE_SPANS = 10_000;
  private static final int CHECKOUTS = 100;
  /** A checkout whose payment fails at the bank and whose audit span's parent never arrives. */
  private static final TraceId FAILED = TraceId.fromHex("e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7");
  /** A span name longer than the waterfall once cut names at. */
  private static final String LONG_NAME = "inventory.InventoryService/ReserveStock";
  /** A trace whose consumer span arrives after it was analysed: a late fragment. */
  private static final TraceId LATE = TraceId.fromHex("1a7e1a7e1a7e1a7e1a7e1a7e1a7e1a7e");

  @TempDir static Path browserProfile;
  private final HttpClient http = HttpClient.newHttpClient();
  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject RankingService ranking;
  @Inject PoolService pools;
  private ChromeDriver browser;
  private String root;

  @BeforeAll
  void analyseTracesAndStartTheBrowser() throws Exception {
    assertThat(TestTraffic.postProtobuf(context, Otlp.request("shop",
        Otlp.span(LATE, 1).setName("publish").setStartTimeUnixNano(1000).setEndTimeUnixNano(5000),
        child(LATE, 2, 1, "enqueue", 2000, 4000)))).isEqualTo(200);
    TestTraffic.complete(context, LATE);
    List<TraceId> traces = new ArrayList<>();
    for (String name : GoldenCases.names()) {
      TestTraffic.postGolden(context, name);
      traces.add(TraceId.fromHex(expected(name).get("traceId").getAsString()));
    }
    assertThat(TestTraffic.postProtobuf(context, Otlp.request("batch", largeTrace())))
        .isEqualTo(200);
    traces.add(LARGE);
    assertThat(TestTraffic.postProtobuf(context, CheckoutLoad.request(CHECKOUTS))).isEqualTo(200);
    traces.addAll(CheckoutLoad.traceIds(CHECKOUTS));
    assertThat(TestTraffic.postProtobuf(context, failedCheckout())).isEqualTo(200);
    traces.add(FAILED);
    // The late consumer span arrives after its trace was analysed, with the other traces.
    assertThat(TestTraffic.postProtobuf(context, Otlp.request("consumer",
        child(LATE, 3, 1, "consume", 9000, 12000)))).isEqualTo(200);
    TestTraffic.complete(context, traces.toArray(TraceId[]::new));
    context.getBean(RecordingProfiles.class).awaitAnalyses(LATE, 2, Duration.ofSeconds(30));
    ranking.refresh();
    time.setWallClock(Instant.ofEpochSecond(1_700_000_100));
    pools.finalizeDue();
    root = Ports.of(context).httpUrl("/");
    browser = Chromium.start(1400, 1000, browserProfile);
  }

  @AfterAll
  void stopTheBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void overview_showsTheCountersAndTheRankingInTheApisOrder() throws Exception {
    open("");
    waitFor(By.cssSelector("#ranking-table tbody tr"));

    assertThat(browser.findElement(By.id("status")).getText())
        .contains("received spans").contains("buffered / limit");
    assertThat(rankingRows()).isEqualTo(apiRanking("involvement"));
    Chromium.screenshot(browser, "overview");

    browser.findElement(By.cssSelector("[data-sort='critical_path']")).click();
    waitFor(By.cssSelector("#ranking-table[data-sort='critical_path'] tbody tr"));

    assertThat(rankingRows()).isEqualTo(apiRanking("critical_path"));
    String slowest = apiArray("/api/v1/traces?order=slowest&limit=1").get(0).getAsJsonObject()
        .get("traceId").getAsString();
    assertThat(browser.findElement(By.cssSelector("#slowest tbody tr")).getText())
        .startsWith(slowest);
  }

  /**
   * The README's example (seed case 3, two components overlapping): over its root's traces the
   * critical-path shares sum to 100 %, none above; over all traces the rows shown sum to at most
   * 100 %.
   */
  @Test
  void overview_criticalPathSharesSumToAtMostOneHundredPercent() throws Exception {
    JsonObject summary = api("/api/v1/traces/"
        + expected("seed-time-case3-overlap").get("traceId").getAsString())
        .getAsJsonObject("summary");
    String rootChoice = summary.get("rootService").getAsString() + "\t"
        + summary.get("rootOperation").getAsString();
    open("?sort=critical_path&root=" + java.net.URLEncoder.encode(rootChoice,
        StandardCharsets.UTF_8));
    waitFor(By.cssSelector("#ranking-table[data-sort='critical_path'] tbody tr"));

    List<Double> shares = browser.findElements(By.cssSelector("#ranking-table [data-share]"))
        .stream().map(cell -> Double.parseDouble(cell.getAttribute("data-share"))).toList();
    assertThat(shares).isNotEmpty().allSatisfy(share -> assertThat(share).isBetween(0.0, 1.0));
    assertThat(shares.stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(browser.findElement(By.id("ranking-scope")).getText())
        .contains("the traces whose root is " + summary.get("rootService").getAsString());
    Chromium.screenshot(browser, "overview-root");

    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("root")))
        .selectByValue("");
    waitFor(By.cssSelector("#ranking-table[data-root=''] tbody tr"));
    double all = browser.findElements(By.cssSelector("#ranking-table [data-share]")).stream()
        .mapToDouble(cell -> Double.parseDouble(cell.getAttribute("data-share"))).sum();
    assertThat(all).isLessThanOrEqualTo(1.0 + 1e-9);
  }

  /** A late fragment never hides its trace: one row, and the trace opens whole. */
  @Test
  void lateFragment_listedOnceAndTheTraceOpensWhole() throws Exception {
    open("traces?service=shop&operation=publish");
    waitFor(By.id("traces-table"));

    List<WebElement> rows = browser.findElements(By.xpath(
        "//table[@id='traces-table']//tr[td/a[text()='" + LATE.toHex() + "']]"));
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getText()).contains("+1 fragment");
    rows.get(0).findElement(By.tagName("a")).click();
    waitFor(By.id("lanes"));
    new WebDriverWait(browser, Duration.ofSeconds(30)).until(driver ->
        driver.findElement(By.tagName("body")).getDomAttribute("data-render-ms") != null);

    assertThat(browser.findElements(By.cssSelector("#waterfall .span-row"))).hasSize(2);
    assertThat(browser.findElement(By.id("fragments")).getText())
        .contains("1 more span(s) arrived after it was analysed");
  }

  /** Errors and orphans marked where a person looks: the waterfall, the lanes, the detail. */
  @Test
  void trace_errorSpansAndOrphansMarked() throws Exception {
    JsonObject profile = api("/api/v1/traces/" + FAILED.toHex());
    openTrace(FAILED.toHex());

    assertThat(browser.findElements(By.cssSelector("#waterfall [data-error]")))
        .hasSize(profile.get("errorCount").getAsInt()).hasSize(1);
    assertThat(browser.findElements(By.cssSelector("#waterfall [data-orphan]")))
        .hasSize(profile.get("orphanCount").getAsInt()).hasSize(1);
    assertThat(browser.findElements(By.cssSelector("#lanes rect.lane-error"))).isNotEmpty();
    assertThat(browser.findElement(By.id("figures")).getText()).contains("errors\n1");
    String bank = browser.findElement(By.cssSelector("#waterfall [data-error]"))
        .getAttribute("data-error");
    browser.findElement(By.cssSelector("#waterfall .span-row[data-span='" + bank + "'] text"))
        .click();
    assertThat(waitFor(By.id("span-attributes")).getText())
        .contains("status ERROR: 503 Service Unavailable");
    Chromium.screenshot(browser, "trace-errors");
  }

  /** The span's own data in the detail panel: its attributes, its exception, its resource. */
  @Test
  void trace_detailShowsTheSpansOwnAttributesEventsAndResource() throws Exception {
    openTrace(FAILED.toHex());
    String bank = browser.findElement(By.cssSelector("#waterfall [data-error]"))
        .getAttribute("data-error");

    browser.findElement(By.cssSelector("#waterfall .span-row[data-span='" + bank + "'] text"))
        .click();

    assertThat(waitFor(By.id("span-own-attributes")).getText())
        .contains("http.route /bank/pay").contains("thread.id t2");
    assertThat(browser.findElement(By.id("span-events")).getText())
        .contains("+5.50 ms exception");
    assertThat(browser.findElement(By.cssSelector("#span-events pre"))
        .getAttribute("textContent"))
        .as("the stack trace as it was, line by line")
        .isEqualTo("java.io.IOException: 503\n\tat Bank.pay(Bank.java:42)");
    assertThat(browser.findElement(By.id("span-resource")).getText())
        .contains("service.name shop");
    Chromium.screenshot(browser, "trace-detail");
  }

  /**
   * An attribute typed into the list's form finds exactly the traces one of whose spans carries
   * it: the checkouts' database spans and the fanout case's; pages of a chosen size turn through them in the API's
   * order.
   */
  @Test
  void traces_byAttribute_listExactlyTheTracesThatCarryItAPageAtATime() throws Exception {
    open("traces");
    WebElement form = waitFor(By.id("filters"));
    form.findElement(By.name("attr")).sendKeys("db.system=postgresql");
    form.findElement(By.cssSelector("button[type=submit]")).click();
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.urlContains("attr=db.system"));
    waitFor(By.id("traces-table"));
    Set<String> listed = new HashSet<>(listedTraces());
    open("traces?attr=db.system%3Dpostgresql&rows=40&page=2");
    waitFor(By.id("traces-table"));
    List<String> secondPage = listedTraces();
    List<String> apiSecondPage = new ArrayList<>();
    apiArray("/api/v1/traces?attr.db.system=postgresql&limit=40&offset=40")
        .forEach(row -> apiSecondPage.add(row.getAsJsonObject().get("traceId").getAsString()));

    Set<String> carriers = CheckoutLoad.traceIds(CHECKOUTS).stream().map(TraceId::toHex)
        .collect(Collectors.toCollection(HashSet::new));
    carriers.add(expected("fanout-self-time").get("traceId").getAsString());
    assertThat(listed).isEqualTo(carriers);
    assertThat(secondPage).hasSize(40).isEqualTo(apiSecondPage);
    assertThat(browser.findElement(By.id("pager")).getText()).contains("rows 41–80");
    assertThat(browser.findElement(By.id("next-page")).getAttribute("href")).contains("page=3");
    assertThat(browser.findElement(By.id("previous-page")).getAttribute("href"))
        .doesNotContain("page=");
  }

  /**
   * A custom time range lists exactly the traces that started in it, as the API does for the
   * same bounds: the traces of the first second after the epoch, not the checkouts of 2023.
   */
  @Test
  void traces_inACustomTimeRange_listWhatStartedInIt() throws Exception {
    open("traces?range=custom&from=1970-01-01T00%3A00%3A00&to=1970-01-01T00%3A00%3A01&rows=500");
    waitFor(By.id("traces-table"));
    List<String> listed = listedTraces();
    // The page reads the times in the browser's time zone.
    long fromMs = (Long) browser.executeScript(
        "return new Date('1970-01-01T00:00:00').getTime()");
    long toMs = (Long) browser.executeScript("return new Date('1970-01-01T00:00:01').getTime()");
    List<String> inRange = new ArrayList<>();
    apiArray("/api/v1/traces?limit=500&minStartNs=" + fromMs * 1_000_000 + "&maxStartNs="
        + toMs * 1_000_000)
        .forEach(row -> inRange.add(row.getAsJsonObject().get("traceId").getAsString()));

    assertThat(browser.findElement(By.id("range")).getAttribute("value")).isEqualTo("custom");
    assertThat(listed).isEqualTo(inRange).contains(FAILED.toHex())
        .doesNotContainAnyElementsOf(CheckoutLoad.traceIds(CHECKOUTS).stream()
            .map(TraceId::toHex).toList());
  }

  private List<String> listedTraces() {
    return browser.findElements(By.cssSelector("#traces-table tbody tr")).stream()
        .map(row -> row.findElement(By.cssSelector("a[href^='traces/']")).getText()).toList();
  }

  @Test
  void traces_filteredByRoot_listTheTraceWithItsTtc() throws Exception {
    JsonObject fanout = expected("fanout-self-time");
    open("traces?service=gateway&operation=GET+%2Forder&order=slowest");
    waitFor(By.id("traces-table"));

    WebElement row = browser.findElement(By.xpath("//table[@id='traces-table']//tr[td/a[text()='"
        + fanout.get("traceId").getAsString() + "']]"));
    assertThat(row.findElement(By.cssSelector("[data-ns]")).getAttribute("data-ns"))
        .isEqualTo(fanout.get("ttcNs").getAsString());
    assertThat(browser.findElements(By.cssSelector("#traces-table tbody tr")))
        .allSatisfy(r -> assertThat(r.getText()).contains("GET /order"));
    Chromium.screenshot(browser, "traces");

    row.findElement(By.tagName("a")).click();
    waitFor(By.id("lanes"));
    assertThat(browser.getCurrentUrl()).endsWith("/traces/" + fanout.get("traceId").getAsString());
  }

  @Test
  void traces_filteredByAnOperationInside_andAMaximumTtc_listWhatTheApiFinds() throws Exception {
    open("traces");
    WebElement form = waitFor(By.id("filters"));
    form.findElement(By.name("containsService")).sendKeys("shop");
    form.findElement(By.name("containsOperation")).sendKeys("bank");
    form.findElement(By.name("maxTtcMs")).sendKeys("20");
    form.findElement(By.cssSelector("button[type=submit]")).click();
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.urlContains("containsOperation=bank"));
    waitFor(By.id("traces-table"));

    assertThat(browser.getCurrentUrl()).contains("maxTtcMs=20");
    List<String> listed = browser.findElements(By.cssSelector("#traces-table tbody tr"))
        .stream().map(row -> row.findElement(By.cssSelector("a[href^='traces/']")).getText())
        .toList();
    List<String> found = new ArrayList<>();
    apiArray("/api/v1/traces?containsService=shop&containsOperation=bank&maxTtcNs=20000000"
        + "&limit=200")
        .forEach(row -> found.add(row.getAsJsonObject().get("traceId").getAsString()));
    assertThat(listed).isEqualTo(found).contains(FAILED.toHex());
  }

  /**
   * A trace's pictures against its golden profile: one lane row per resource, each state's
   * segments as long as its resource time, the highlighted path as long as criticalPathNs.
   */
  @ParameterizedTest
  @ValueSource(strings = {"seed-time-case3-overlap", "fanout-self-time", "seed-profiling-dop"})
  void trace_picturesAddUpToTheProfile(String name) throws Exception {
    JsonObject expected = expected(name);
    openTrace(expected.get("traceId").getAsString());

    List<String> labels = browser.findElements(By.cssSelector("#lanes text.row-label")).stream()
        .map(label -> label.getAttribute("data-resource")).toList();
    List<String> resources = new ArrayList<>();
    expected.getAsJsonArray("resources")
        .forEach(r -> resources.add(r.getAsJsonObject().get("resource").getAsString()));
    assertThat(labels).isEqualTo(resources);

    Map<String, Long> drawnByState = new HashMap<>();
    for (WebElement lane : browser.findElements(By.cssSelector("#lanes rect.lane"))) {
      drawnByState.merge(lane.getAttribute("data-state"), length(lane), Long::sum);
    }
    Map<String, Long> expectedByState = new HashMap<>();
    for (JsonElement state : expected.getAsJsonArray("states")) {
      expectedByState.put(state.getAsJsonObject().get("state").getAsString(),
          state.getAsJsonObject().get("resourceNs").getAsLong());
    }
    assertThat(drawnByState).isEqualTo(expectedByState);

    long pathNs = browser.findElements(By.cssSelector("#waterfall rect.cp")).stream()
        .mapToLong(UiBrowserTest::length).sum();
    assertThat(pathNs).isEqualTo(expected.get("criticalPathNs").getAsLong());
    assertThat(browser.findElements(By.cssSelector("#waterfall .span-row")))
        .hasSize(expected.getAsJsonArray("spans").size());
    Chromium.screenshot(browser, "trace-" + name);
  }

  @Test
  void trace_clickingASpanShowsWhatSpanprofAddsAndFoldingHidesItsSubtree() throws Exception {
    JsonObject fanout = expected("fanout-self-time");
    openTrace(fanout.get("traceId").getAsString());
    String parent = browser.findElement(By.cssSelector("#waterfall [data-toggle]"))
        .getAttribute("data-toggle");
    int rows = browser.findElements(By.cssSelector("#waterfall .span-row")).size();

    browser.findElement(By.cssSelector(
        "#waterfall .span-row[data-span='" + parent + "'] rect.span-bar")).click();
    String detail = waitFor(By.id("span-attributes")).getText();
    JsonObject span = spanOf(fanout, parent);
    assertThat(detail).contains("spanprof.state " + span.get("state").getAsString())
        .contains("spanprof.self_time_ns " + span.get("selfTimeNs").getAsString())
        .contains("spanprof.critical_path_ns " + span.get("criticalPathNs").getAsString());

    browser.findElement(By.cssSelector("#waterfall [data-toggle='" + parent + "']")).click();
    new WebDriverWait(browser, Duration.ofSeconds(10)).until(driver ->
        driver.findElements(By.cssSelector("#waterfall .span-row")).size() < rows);
    assertThat(browser.findElements(By.cssSelector("#waterfall .span-row")).size())
        .isLessThan(rows);
  }

  /**
   * Finding one's way in the 10 000-span trace: collapse all leaves the root, a depth shows the
   * rows down to it, a search by name and by attribute marks exactly the spans that hold the
   * text and shows the first in the detail panel; a row of the spans by operation adds up.
   */
  @Test
  void largeTrace_foldsToADepthAndFindsSpansByNameAndAttribute() throws Exception {
    JsonObject profile = api("/api/v1/traces/" + LARGE.toHex());
    long stepThrees = 0;
    long onW7 = 0;
    for (JsonElement element : profile.getAsJsonArray("spans")) {
      JsonObject span = element.getAsJsonObject();
      stepThrees += span.get("name").getAsString().equals("step 3") ? 1 : 0;
      // The text is found anywhere in "key=value": w7 and w70 to w79.
      onW7 += ("thread.id=" + span.getAsJsonObject("attributes").get("thread.id").getAsString())
          .contains("thread.id=w7") ? 1 : 0;
    }
    openTrace(LARGE.toHex());
    WebElement rows = browser.findElement(By.cssSelector("#waterfall svg"));

    browser.findElement(By.id("collapse-all")).click();
    assertThat(rows.getAttribute("data-rows")).isEqualTo("1");
    new Select(browser.findElement(By.id("expand-depth"))).selectByValue("1");
    assertThat(rows.getAttribute("data-rows")).isEqualTo(String.valueOf(LARGE_SPANS));
    browser.findElement(By.id("collapse-all")).click();

    browser.findElement(By.id("find-span")).sendKeys("step 3");
    assertThat(browser.findElement(By.id("waterfall")).getAttribute("data-matches"))
        .isEqualTo(String.valueOf(stepThrees));
    assertThat(rows.getAttribute("data-rows")).as("the matches unfolded")
        .isEqualTo(String.valueOf(LARGE_SPANS));
    assertThat(browser.findElement(By.id("find-count")).getText())
        .isEqualTo("1 of " + stepThrees);
    assertThat(browser.findElement(By.cssSelector("#span-detail strong")).getText())
        .isEqualTo("step 3");
    browser.findElement(By.id("find-next")).click();
    assertThat(browser.findElement(By.id("find-count")).getText())
        .isEqualTo("2 of " + stepThrees);

    WebElement find = browser.findElement(By.id("find-span"));
    find.clear();
    find.sendKeys("thread.id=w7");
    assertThat(browser.findElement(By.id("waterfall")).getAttribute("data-matches"))
        .isEqualTo(String.valueOf(onW7)).isEqualTo("1100");

    WebElement stepRow = browser.findElement(By.xpath(
        "//table[@id='by-operation']//tr[td/a[text()='step 3']]"));
    assertThat(stepRow.findElements(By.tagName("td")).get(2).getText().replace(",", ""))
        .isEqualTo(String.valueOf(stepThrees));
  }

  /**
   * A row is selected wherever it is clicked, and so is a lane segment's span; a name is not cut
   * short where the column has room, and the column widens when its edge is dragged; folding
   * away the selected span hands the selection, and the panel, to the row that holds it.
   */
  @Test
  void trace_rowsAndLanesSelect_namesShowWhole_andTheDetailFollowsFolding() throws Exception {
    openTrace(FAILED.toHex());
    WebElement rows = browser.findElement(By.cssSelector("#waterfall svg"));

    WebElement bankRow = browser.findElement(By.cssSelector(
        "#waterfall .span-row[data-span='0000000000000002'] rect.row-bg"));
    new Actions(browser).moveToElement(bankRow, -bankRow.getSize().getWidth() / 2 + 200, 0)
        .click().perform();
    assertThat(browser.findElement(By.cssSelector("#span-detail strong")).getText())
        .isEqualTo("bank");

    browser.findElement(By.cssSelector("#lanes rect.lane[data-span='0000000000000003']")).click();
    assertThat(browser.findElement(By.cssSelector("#span-detail strong")).getText())
        .isEqualTo("audit");
    assertThat(browser.findElement(By.cssSelector(
        "#waterfall .span-row.selected")).getAttribute("data-span"))
        .isEqualTo("0000000000000003");

    String label = browser.findElement(By.cssSelector(
        "#waterfall .span-row[data-span='0000000000000004'] text.span-label"))
        .getAttribute("textContent");
    assertThat(label).contains(LONG_NAME);
    WebElement handle = browser.findElement(By.id("column-handle"));
    int width = Integer.parseInt(handle.getAttribute("data-width"));
    new Actions(browser).dragAndDropBy(handle, 120, 0).perform();
    assertThat(Integer.parseInt(browser.findElement(By.id("column-handle"))
        .getAttribute("data-width"))).isGreaterThan(width);

    browser.findElement(By.cssSelector("#waterfall .span-row[data-span='0000000000000002'] text"))
        .click();
    browser.findElement(By.cssSelector("#waterfall [data-toggle='0000000000000001']")).click();
    assertThat(rows.getAttribute("data-rows")).isEqualTo("2");
    assertThat(browser.findElement(By.cssSelector("#span-detail strong")).getText())
        .isEqualTo("pay");
  }

  /**
   * Times in local time or UTC as the header's toggle chooses, each with how long ago it was;
   * the list refreshes itself while its box is ticked, the overview from the start.
   */
  @Test
  void times_switchToUtcAndSayHowLongAgo_andTheListRefreshesWhenAsked() throws Exception {
    open("traces?service=shop&operation=pay");
    WebElement start = waitFor(By.cssSelector("#traces-table .time"));
    assertThat(start.getText()).doesNotContain("UTC").contains(" ago)");

    browser.findElement(By.id("time-zone")).click();
    new WebDriverWait(browser, Duration.ofSeconds(30)).until(driver -> driver.findElements(
        By.cssSelector("#traces-table .time")).stream()
        .anyMatch(time -> time.getText().contains("UTC")));
    String utc = browser.findElement(By.cssSelector("#traces-table .time")).getText();
    browser.findElement(By.id("time-zone")).click(); // back to local, for the other tests
    waitFor(By.cssSelector("#traces-table .time"));

    // FAILED started 1 ms after the epoch.
    assertThat(utc).startsWith("01/01/1970, 00:00:00 UTC").contains(" years ago)");
    WebElement results = browser.findElement(By.id("traces"));
    String shownAt = results.getAttribute("data-shown-at");
    WebElement refresh = browser.findElement(By.id("auto-refresh"));
    assertThat(refresh.isSelected()).as("off on the list at first").isFalse();
    refresh.click();
    new WebDriverWait(browser, Duration.ofSeconds(20)).until(driver ->
        !shownAt.equals(driver.findElement(By.id("traces")).getAttribute("data-shown-at")));
    browser.findElement(By.id("auto-refresh")).click();
    open("");
    assertThat(waitFor(By.id("auto-refresh")).isSelected()).as("on on the overview").isTrue();
  }

  /** Dark mode when the system asks for it: the page's colours, the charts' axes too. */
  @Test
  void darkMode_whenTheSystemPrefersIt() throws Exception {
    browser.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
        List.of(Map.of("name", "prefers-color-scheme", "value", "dark"))));
    try {
      open("operations?service=shop&operation=GET+%2Fcheckout");
      waitFor(By.cssSelector(".chart[data-kind='duration'] canvas"));
      String background = (String) browser.executeScript(
          "return getComputedStyle(document.documentElement).backgroundColor");
      assertThat(brightness(background)).as(background).isLessThan(60);
      Chromium.screenshot(browser, "operation-dark");
    } finally {
      browser.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features", List.of()));
    }
    open("");
    waitFor(By.id("status"));
    assertThat(brightness((String) browser.executeScript(
        "return getComputedStyle(document.documentElement).backgroundColor"))).isGreaterThan(200);
  }

  /**
   * The 10 000-span profile's JSON as served, gzipped as served, and as it would be without the
   * spans' own attributes, events, links and resources (both as Gson writes them, to compare
   * alike).
   */
  private String profileSizes() throws Exception {
    String path = "/api/v1/traces/" + LARGE.toHex();
    String served = get(path);
    HttpResponse<byte[]> gzipped = http.send(HttpRequest.newBuilder(URI.create(
            Ports.of(context).httpUrl(path))).header("Accept-Encoding", "gzip").build(),
        HttpResponse.BodyHandlers.ofByteArray());
    JsonObject profile = JsonParser.parseString(served).getAsJsonObject();
    String whole = profile.toString();
    profile.remove("otelResources");
    profile.remove("attributesKept");
    for (JsonElement span : profile.getAsJsonArray("spans")) {
      for (String field : new String[] {"attributes", "events", "links", "otelResource"}) {
        span.getAsJsonObject().remove(field);
      }
    }
    String without = profile.toString();
    return String.format("its profile: %,d bytes of JSON, %,d gzipped as served; the spans' own "
            + "data %,d of them (%,d without it, as Gson writes both)%n", served.length(),
        gzipped.body().length, whole.length() - without.length(), without.length());
  }

  /** The mean of a CSS rgb() colour's channels. */
  private static double brightness(String rgb) {
    return Arrays.stream(rgb.replaceAll("[^0-9,]", "").split(",")).limit(3)
        .mapToInt(Integer::parseInt).average().orElseThrow();
  }

  /**
   * A path the UI does not have answers a page in its style for a browser, Micronaut's JSON
   * error for anything else, both 404; every page names its icon, which is served.
   */
  @Test
  void unknownPath_isAStyled404_andThePagesHaveAnIcon() throws Exception {
    open("no/such/page");
    assertThat(waitFor(By.id("not-found")).getText()).contains("/no/such/page");
    assertThat(browser.findElement(By.cssSelector("header nav")).getText()).contains("Traces");
    String icon = browser.findElement(By.cssSelector("link[rel=icon]")).getAttribute("href");
    HttpResponse<String> html = http.send(HttpRequest.newBuilder(URI.create(
        Ports.of(context).httpUrl("/no/such/page"))).header("Accept", "text/html").build(),
        HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> json = http.send(HttpRequest.newBuilder(URI.create(
        Ports.of(context).httpUrl("/api/v1/no-such"))).build(),
        HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> favicon = http.send(HttpRequest.newBuilder(URI.create(icon)).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(html.statusCode()).isEqualTo(404);
    assertThat(html.body()).contains("ui/missing.js").contains("<base href=\"../../\">");
    assertThat(json.statusCode()).isEqualTo(404);
    assertThat(json.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(favicon.statusCode()).isEqualTo(200);
    assertThat(favicon.body()).startsWith("<svg");
  }

  /**
   * The generated 10 000-span trace: every lane segment drawn, the waterfall's rows all laid out
   * (only those in view drawn). The time from the profile's arrival to the next painted frame is
   * written to target/ui-screenshots/render-times.txt: measured, not asserted.
   */
  @Test
  void largeTrace_drawsEveryLaneAndLaysOutEverySpan() throws Exception {
    JsonObject profile = api("/api/v1/traces/" + LARGE.toHex());
    openTrace(LARGE.toHex());

    assertThat(browser.findElements(By.cssSelector("#lanes rect.lane")))
        .hasSize(profile.getAsJsonArray("lanes").size());
    assertThat(browser.findElement(By.cssSelector("#waterfall svg")).getAttribute("data-rows"))
        .isEqualTo(String.valueOf(LARGE_SPANS));
    assertThat(browser.findElements(By.cssSelector("#waterfall .span-row")).size())
        .isLessThan(LARGE_SPANS);
    String renderMs = browser.findElement(By.tagName("body")).getAttribute("data-render-ms");
    String loadedMs = browser.findElement(By.tagName("body")).getAttribute("data-loaded-ms");
    Files.createDirectories(Path.of("target", "ui-screenshots"));
    Files.writeString(Path.of("target", "ui-screenshots", "render-times.txt"),
        "10 000-span trace: drawn and painted in " + renderMs + " ms after the profile arrived; "
            + loadedMs + " ms after navigation started\n" + profileSizes());
    Chromium.screenshot(browser, "trace-large");
  }

  @Test
  void operation_plotsItsDistributionsAndListsItsNeighbours() throws Exception {
    open("operations?service=worker&operation=query");
    WebElement duration = waitFor(By.cssSelector(".chart[data-kind='duration'] canvas"));

    assertThat(duration.isDisplayed()).isTrue();
    // The query has an expected interval: its durations are also corrected for coordinated
    // omission.
    assertThat(browser.findElement(By.cssSelector(".chart[data-kind='duration']"))
        .getAttribute("data-series"))
        .isEqualTo("cumulative|window|cumulative, corrected|window, corrected");
    assertThat(browser.findElements(By.cssSelector(".chart[data-kind] canvas"))).hasSize(3);
    // The query takes seconds: its ticks read as seconds, in few digits.
    assertThat(browser.findElement(By.cssSelector(".chart[data-kind='duration']"))
        .getAttribute("data-y-labels").split("\\|"))
        .allMatch(label -> label.matches("\\d{1,3}(\\.\\d{1,2})? (ns|µs|ms|s)"))
        .anyMatch(label -> label.endsWith(" s"));
    JsonObject edges = api("/api/v1/ranking/edges?service=worker&operation=query");
    assertThat(browser.findElements(By.cssSelector("#callees tbody tr")))
        .hasSize(edges.getAsJsonArray("callees").size());
    assertThat(browser.findElement(By.id("operation-traces")).getText())
        .contains(expected("seed-profiling-dop").get("traceId").getAsString());
    Chromium.screenshot(browser, "operation");
  }

  /**
   * The call graph over all traces has a node per row of the ranking and an edge per call
   * between two operations, as many as the ranking's edges list; over one root's traces, the
   * nodes of that root's ranking. A node opens its operation.
   */
  @Test
  void graph_hasTheRankingsNodesAndEdges_perRootToo_andANodeOpensItsOperation()
      throws Exception {
    open("graph");
    WebElement graph = waitFor(By.id("call-graph"));
    JsonArray ranking = apiArray("/api/v1/ranking?top=100000");
    int edges = 0;
    for (JsonElement row : ranking) {
      JsonObject operation = row.getAsJsonObject();
      edges += api("/api/v1/ranking/edges?" + query("service",
          operation.get("service").getAsString(), "operation",
          operation.get("name").getAsString())).getAsJsonArray("callees").size();
    }
    List<WebElement> nodes = browser.findElements(By.cssSelector("#call-graph g.node"));
    List<WebElement> calls = browser.findElements(By.cssSelector("#call-graph g.call"));

    assertThat(nodes).hasSize(ranking.size());
    assertThat(graph.getAttribute("data-nodes")).isEqualTo(String.valueOf(ranking.size()));
    assertThat(calls).hasSize(edges).isNotEmpty();
    WebElement reserve = browser.findElement(By.cssSelector(
        "#call-graph g.call[data-callee='inventory: reserve']"));
    assertThat(reserve.getAttribute("data-caller")).isEqualTo("gateway: call inventory");
    Chromium.screenshot(browser, "graph");

    open("graph?service=shop&operation=GET+%2Fcheckout");
    waitFor(By.id("call-graph"));
    assertThat(browser.findElements(By.cssSelector("#call-graph g.node")))
        .hasSize(apiArray("/api/v1/ranking?top=100000&service=shop"
            + "&operation=GET%20%2Fcheckout").size());
    browser.findElement(By.cssSelector("#call-graph g.node[data-operation='db.query'] rect"))
        .click();
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.urlContains("operations?service=shop&operation=db.query"));
  }

  private static String query(String... namesAndValues) {
    StringBuilder query = new StringBuilder();
    for (int k = 0; k < namesAndValues.length; k += 2) {
      query.append(k == 0 ? "" : "&").append(namesAndValues[k]).append('=')
          .append(URLEncoder.encode(namesAndValues[k + 1], StandardCharsets.UTF_8));
    }
    return query.toString();
  }

  /**
   * The checkout's durations span decades (its slow traces 20 times slower): on a log axis whose
   * ticks are each power of ten from below the fastest to the slowest; the toggle draws them on
   * a linear one.
   */
  @Test
  void durationPlot_onALogAxis_ticksEveryPowerOfTenTheValuesSpan() throws Exception {
    JsonObject answer = api("/api/v1/distributions?service=shop&operation=GET%20/checkout"
        + "&kind=duration");
    double minMs = Double.MAX_VALUE;
    double maxMs = 0;
    for (JsonElement point : answer.getAsJsonObject("cumulative").getAsJsonArray("percentiles")) {
      JsonObject p = point.getAsJsonObject();
      double ms = p.get("valueNs").getAsDouble() / 1e6;
      if (p.get("percentile").getAsDouble() <= 99.99 && ms > 0) {
        minMs = Math.min(minMs, ms);
        maxMs = Math.max(maxMs, ms);
      }
    }
    open("operations?service=shop&operation=GET+%2Fcheckout");
    WebElement chart = waitFor(By.cssSelector(".chart[data-kind='duration'][data-y-ticks]"));

    List<Double> ticks = Arrays.stream(chart.getAttribute("data-y-ticks").split("\\|"))
        .map(Double::parseDouble).toList();
    assertThat(chart.getAttribute("data-y-scale")).isEqualTo("log");
    assertThat(ticks).hasSizeGreaterThanOrEqualTo(2);
    for (int i = 0; i < ticks.size(); i++) {
      assertThat(Math.log10(ticks.get(i))).as("tick %s", ticks.get(i))
          .isCloseTo(Math.rint(Math.log10(ticks.get(0))) + i, within(1e-9));
    }
    assertThat(ticks.get(0)).isLessThanOrEqualTo(minMs);
    assertThat(ticks.get(ticks.size() - 1) * 10).isGreaterThan(maxMs);

    browser.findElement(By.id("log-axis")).click();
    assertThat(waitFor(By.cssSelector(".chart[data-kind='duration']"))
        .getAttribute("data-y-scale")).isEqualTo("linear");
  }

  /**
   * The checkouts whose query is 20 times slower in one in ten: the root's page puts the query
   * first, with all of the excess, and stacks the slow traces' mean path to its mean duration.
   */
  @Test
  void rootOperation_showsWhySlowTracesAreSlow() throws Exception {
    JsonObject tail = api("/api/v1/tail?service=shop&operation=GET%20/checkout&quantile=0.9");
    open("operations?service=shop&operation=GET+%2Fcheckout");
    waitFor(By.cssSelector("#tail-operations tbody tr"));

    WebElement first = browser.findElement(By.cssSelector("#tail-operations tbody tr"));
    JsonObject query = tail.getAsJsonArray("operations").get(0).getAsJsonObject();
    assertThat(first.getText()).contains("db.query");
    assertThat(Double.parseDouble(first.findElement(By.cssSelector("[data-ns]"))
        .getAttribute("data-ns"))).isEqualTo(query.get("excessNs").getAsDouble());
    double slowBar = browser.findElements(By.cssSelector("#tail-bars [data-set='slow'] rect"))
        .stream().mapToDouble(rect -> Double.parseDouble(rect.getAttribute("data-ns"))).sum();
    assertThat(slowBar).isCloseTo(tail.get("meanSlowNs").getAsDouble(),
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(browser.findElement(By.id("tail-legend")).getText())
        .as("the legend names the service").contains("shop: db.query");
    List<String> fills = browser.findElements(By.cssSelector("#tail-bars [data-set='slow'] rect"))
        .stream().map(rect -> rect.getAttribute("fill")).toList();
    assertThat(new HashSet<>(fills)).hasSameSizeAs(fills);
    Chromium.screenshot(browser, "why-slow");
  }

  /** The operations' palette keeps 25 apart: no colour twice. */
  @Test
  void palette_ofTwentyFiveOperations_hasTwentyFiveColours() {
    open("graph");
    waitFor(By.id("root"));
    Object colours = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
        + "import(new URL('ui/common.js', document.baseURI)).then(m => done(m.palette(25)));");

    assertThat((List<?>) colours).hasSize(25).doesNotHaveDuplicates();
  }

  /** A slow checkout's page: its query 200 ms against the root's average of 29 ms. */
  @Test
  void slowTrace_showsItsCriticalPathAgainstItsRootsAverage() throws Exception {
    openTrace(CheckoutLoad.traceIds(CHECKOUTS).get(9).toHex());
    WebElement first = waitFor(By.cssSelector("#against-root-table tbody tr"));

    assertThat(first.getText()).contains("db.query");
    assertThat(Double.parseDouble(first.findElement(By.cssSelector("[data-ns]"))
        .getAttribute("data-ns"))).isCloseTo(171.0 * CheckoutLoad.MS,
        org.assertj.core.data.Offset.offset(1.0));
  }

  @Test
  void whySlow_quantileChosenOnThePage_answersForIt() throws Exception {
    JsonObject tail = api("/api/v1/tail?service=shop&operation=GET%20/checkout&quantile=0.99");
    open("operations?service=shop&operation=GET+%2Fcheckout");

    new Select(waitFor(By.id("quantile"))).selectByVisibleText("p99");

    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.urlContains("quantile=0.99"));
    WebElement heading = waitFor(By.cssSelector("#why-slow h2"));
    assertThat(heading.getText()).isEqualTo("Why slow: traces at or above p99 against all");
    assertThat(new Select(browser.findElement(By.id("quantile"))).getFirstSelectedOption()
        .getText()).isEqualTo("p99");
    assertThat(browser.findElement(By.cssSelector("#why-slow .figures")).getText())
        .contains(String.valueOf(tail.get("slowTraces").getAsLong()));
  }

  @Test
  void pools_stackEachWindowsUtilizationAndAttribution() throws Exception {
    open("pools");
    waitFor(By.cssSelector("section[data-pool='worker/w1'] .chart[data-chart='utilization'] canvas"));

    JsonArray windows = apiArray("/api/v1/pools").get(0).getAsJsonObject()
        .getAsJsonArray("windows");
    double maxUtilization = 0;
    for (JsonElement window : windows) {
      double sum = 0;
      for (var entry : window.getAsJsonObject().getAsJsonObject("utilization").entrySet()) {
        sum += entry.getValue().getAsDouble();
      }
      maxUtilization = Math.max(maxUtilization, sum);
    }
    WebElement utilization = browser.findElement(
        By.cssSelector("section[data-pool='worker/w1'] .chart[data-chart='utilization']"));
    assertThat(Double.parseDouble(utilization.getAttribute("data-max")))
        .isCloseTo(maxUtilization, org.assertj.core.data.Offset.offset(1e-9));
    String classes = browser.findElement(
        By.cssSelector("section[data-pool='worker/w1'] .chart[data-chart='attributionNs']"))
        .getAttribute("data-series");
    assertThat(classes).as("cpu at the bottom of the stack, idle at the top")
        .startsWith("cpu|").endsWith("|idle");
    assertThat(utilization.getAttribute("data-series")).endsWith("|idle");
    List<WebElement> charts = browser.findElements(By.cssSelector(".chart[data-chart]"));
    assertThat(charts).hasSizeGreaterThan(1).allSatisfy(chart -> {
      assertThat(chart.getAttribute("data-from")).isEqualTo(utilization.getAttribute("data-from"));
      assertThat(chart.getAttribute("data-to")).isEqualTo(utilization.getAttribute("data-to"));
    });
    Chromium.screenshot(browser, "pools");
  }

  @Test
  void underAReverseProxysSubPath_pagesLoadTheirModulesAndData() throws Exception {
    String traceId = expected("seed-time-case3-overlap").get("traceId").getAsString();
    try (SubPathProxy proxy = new SubPathProxy(Ports.of(context).httpUrl(""))) {
      browser.get(proxy.root() + "traces/" + traceId);
      waitFor(By.cssSelector("#lanes rect.lane"));

      assertThat(browser.findElement(By.cssSelector("header a.brand")).getAttribute("href"))
          .isEqualTo(proxy.root());
      browser.findElement(By.linkText("Traces")).click();
      waitFor(By.id("traces-table"));
      assertThat(browser.getCurrentUrl()).startsWith(proxy.root() + "traces");
    }
  }

  private void open(String path) {
    browser.get(root + path);
  }

  /** Opens a trace's page and waits until its pictures are drawn and painted. */
  private void openTrace(String traceId) {
    open("traces/" + traceId);
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(driver ->
        driver.findElement(By.tagName("body")).getDomAttribute("data-render-ms") != null);
  }

  private WebElement waitFor(By locator) {
    return new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.presenceOfElementLocated(locator));
  }

  private static long length(WebElement segment) {
    return Long.parseLong(segment.getAttribute("data-end"))
        - Long.parseLong(segment.getAttribute("data-start"));
  }

  private List<String> rankingRows() {
    return browser.findElements(By.cssSelector("#ranking-table tbody tr")).stream()
        .map(row -> row.findElements(By.tagName("td")))
        .map(cells -> cells.get(1).getText() + " " + cells.get(2).getText())
        .toList();
  }

  private List<String> apiRanking(String sort) throws Exception {
    List<String> rows = new ArrayList<>();
    apiArray("/api/v1/ranking?top=20&sort=" + sort).forEach(row -> rows.add(
        row.getAsJsonObject().get("service").getAsString() + " "
            + row.getAsJsonObject().get("name").getAsString()));
    return rows;
  }

  private JsonObject api(String path) throws Exception {
    return JsonParser.parseString(get(path)).getAsJsonObject();
  }

  private JsonArray apiArray(String path) throws Exception {
    return JsonParser.parseString(get(path)).getAsJsonArray();
  }

  private String get(String path) throws Exception {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response.body();
  }

  private static JsonObject expected(String name) throws IOException {
    return JsonParser.parseString(new String(GoldenCases.expectedJson(name),
        StandardCharsets.UTF_8)).getAsJsonObject();
  }

  private static JsonObject spanOf(JsonObject profile, String spanId) {
    for (JsonElement span : profile.getAsJsonArray("spans")) {
      if (span.getAsJsonObject().get("spanId").getAsString().equals(spanId)) {
        return span.getAsJsonObject();
      }
    }
    throw new AssertionError("no span " + spanId);
  }

  /**
   * A root of 100 ms fanning out to 100 threads, each running spans one after another, 1 ms
   * each, in turn running, waiting on the database and waiting on the network.
   */
  private static Span.Builder[] largeTrace() {
    long startNanos = 1_700_000_000_000_000_000L;
    String[] states = {"running", "wait.db", "wait.net"};
    Span.Builder[] spans = new Span.Builder[LARGE_SPANS];
    spans[0] = Otlp.span(LARGE, 1).setName("GET /batch")
        .setStartTimeUnixNano(startNanos).setEndTimeUnixNano(startNanos + 100_000_000)
        .addAttributes(attribute("thread.id", "main"));
    for (int i = 1; i < LARGE_SPANS; i++) {
      int thread = i % 100;
      int step = i / 100;
      long from = startNanos + step * 1_000_000L;
      spans[i] = Otlp.span(LARGE, i + 1).setName("step " + step % 7)
          .setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(1).array()))
          .setStartTimeUnixNano(from).setEndTimeUnixNano(from + 1_000_000)
          .addAttributes(attribute("thread.id", "w" + thread))
          .addAttributes(attribute("spanprof.state", states[(thread + step) % 3]));
    }
    return spans;
  }

  private static ExportTraceServiceRequest failedCheckout() {
    return Otlp.request("shop",
        Otlp.span(FAILED, 1).setName("pay").setStartTimeUnixNano(1_000_000)
            .setEndTimeUnixNano(9_000_000).addAttributes(attribute("thread.id", "t1")),
        child(FAILED, 2, 1, "bank", 2_000_000, 8_000_000).setStatus(
            io.opentelemetry.proto.trace.v1.Status.newBuilder().setCode(
                io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR)
                .setMessage("503 Service Unavailable"))
            .addAttributes(attribute("http.route", "/bank/pay"))
            .addEvents(Span.Event.newBuilder().setName("exception").setTimeUnixNano(7_500_000)
                .addAttributes(attribute("exception.stacktrace",
                    "java.io.IOException: 503\n\tat Bank.pay(Bank.java:42)"))),
        child(FAILED, 3, 0xFF, "audit", 3_000_000, 4_000_000),
        child(FAILED, 4, 1, LONG_NAME, 1_500_000, 1_900_000));
  }

  private static Span.Builder child(TraceId trace, long id, long parent, String name, long start,
      long end) {
    return Otlp.span(trace, id).setName(name).setStartTimeUnixNano(start).setEndTimeUnixNano(end)
        .setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parent).array()))
        .addAttributes(attribute("thread.id", "t" + id));
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder().setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }
}
