package dev.spanprof.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Ways to a trace, in real Chromium: with {@code spanprof.ui.trace-link}, every trace row and the
 * trace page link to the trace in the tracing backend that receives the forwarded spans; every
 * page's header goes to a trace by its pasted id.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.ui.trace-link", value = "https://jaeger.example/trace/{traceId}?from=spanprof&x=1")
class UiTraceLinkTest {

  private static final String CASE = "seed-time-case3-overlap";

  @TempDir static Path browserProfile;
  @Inject ApplicationContext context;
  private ChromeDriver browser;
  private String root;
  private String traceId;

  @BeforeAll
  void analyseATraceAndStartTheBrowser() throws Exception {
    TestTraffic.postGolden(context, CASE);
    traceId = JsonParser.parseString(new String(GoldenCases.expectedJson(CASE),
        StandardCharsets.UTF_8)).getAsJsonObject().get("traceId").getAsString();
    TestTraffic.complete(context, TraceId.fromHex(traceId));
    root = Ports.of(context).httpUrl("/");
    browser = Chromium.start(1200, 900, browserProfile);
  }

  @AfterAll
  void stopTheBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void tracePage_linksToTheTraceInTheBackend() {
    browser.get(root + "traces/" + traceId);
    WebElement link = waitFor(By.cssSelector("h1 a.backend-link"));

    assertThat(link.getAttribute("href"))
        .isEqualTo("https://jaeger.example/trace/" + traceId + "?from=spanprof&x=1");
    assertThat(link.getText()).isEqualTo("jaeger.example ↗");
    assertThat(link.getAttribute("target")).isEqualTo("_blank");
  }

  @Test
  void everyTraceRow_linksToItsPageAndToTheBackend() {
    browser.get(root + "traces");
    waitFor(By.cssSelector("tbody tr a.backend-link"));
    List<WebElement> rows = browser.findElements(By.cssSelector("tbody tr"));

    assertThat(rows).isNotEmpty().allSatisfy(row -> {
      String own = row.findElement(By.cssSelector("a[href^='traces/']")).getText();
      assertThat(row.findElement(By.cssSelector("a.backend-link")).getAttribute("href"))
          .isEqualTo("https://jaeger.example/trace/" + own + "?from=spanprof&x=1");
    });
  }

  @Test
  void aPastedTraceId_inAnyPagesHeader_opensTheTrace() {
    browser.get(root + "pools");
    WebElement box = waitFor(By.id("trace-search"));

    box.sendKeys("  " + traceId.toUpperCase() + " " + Keys.ENTER);

    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.urlToBe(root + "traces/" + traceId));
    assertThat(waitFor(By.cssSelector("h1 .muted")).getText()).startsWith(traceId);
  }

  @Test
  void notATraceId_isRefusedWhereItIsTyped() {
    browser.get(root + "pools");
    WebElement box = waitFor(By.id("trace-search"));

    box.sendKeys("checkout" + Keys.ENTER);

    assertThat(browser.getCurrentUrl()).isEqualTo(root + "pools");
    assertThat((Boolean) browser.executeScript(
        "return document.getElementById('trace-search').validity.patternMismatch")).isTrue();
  }

  private WebElement waitFor(By locator) {
    return new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.presenceOfElementLocated(locator));
  }
}
