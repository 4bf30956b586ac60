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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A trace whose own attributes are no longer kept ({@code spanprof.query.recent-trace-bytes}
 * keeps none here): its page still shows its profile, and the detail panel says what is gone.
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.query.recent-trace-bytes", value = "0")
class UiAttributesGoneTest {

  private static final String CASE = "seed-time-case3-overlap";

  @TempDir Path browserProfile;
  @Inject ApplicationContext context;

  @Test
  void detailPanel_saysTheSpansOwnDataIsNoLongerKept() throws Exception {
    TestTraffic.postGolden(context, CASE);
    String traceId = JsonParser.parseString(new String(GoldenCases.expectedJson(CASE),
        StandardCharsets.UTF_8)).getAsJsonObject().get("traceId").getAsString();
    TestTraffic.complete(context, TraceId.fromHex(traceId));
    ChromeDriver browser = Chromium.start(1200, 900, browserProfile);
    try {
      browser.get(Ports.of(context).httpUrl("/traces/" + traceId));
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
      wait.until(ExpectedConditions.presenceOfElementLocated(
          By.cssSelector("#waterfall .span-row text.span-label"))).click();

      assertThat(wait.until(ExpectedConditions.presenceOfElementLocated(
          By.id("attributes-gone"))).getText()).contains("no longer kept");
      assertThat(browser.findElements(By.id("span-own-attributes"))).isEmpty();
      assertThat(browser.findElement(By.id("span-attributes")).getText())
          .contains("spanprof.state");
    } finally {
      browser.quit();
    }
  }
}
