package dev.spanprof.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * With read tokens set, the UI in real Chromium: the page loads (it holds no data), its API call
 * is refused, it asks for a token; given a write token it asks again, and with the read token
 * typed in it shows the data.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UiReadTokenTest implements TestPropertyProvider {

  @TempDir static Path files;
  private ChromeDriver browser;
  @Inject ApplicationContext context;

  @Override
  public Map<String, String> getProperties() {
    try {
      return Map.of(
          "spanprof.auth.read-tokens-file",
          Files.writeString(files.resolve("read"), "reader-7\n").toString(),
          "spanprof.auth.write-tokens-file",
          Files.writeString(files.resolve("write"), "writer-3\n").toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  void stopTheBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void page_asksForTheReadTokenAgainAfterAWriteToken_thenShowsTheData() throws Exception {
    browser = Chromium.start(1200, 800, files.resolve("chromium"));
    browser.get(Ports.of(context).httpUrl("/traces"));
    WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    WebElement form = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("token-form")));

    assertThat(browser.findElement(By.cssSelector("#traces .error")).getText())
        .contains("a bearer token is required to read profiles");
    form.findElement(By.name("token")).sendKeys("writer-3");
    form.findElement(By.tagName("button")).click();

    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#traces .error"),
        "this token may not read profiles"));
    form = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("token-form")));
    form.findElement(By.name("token")).sendKeys("reader-7");
    form.findElement(By.tagName("button")).click();

    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("traces"),
        "No recent trace matches."));
    assertThat(browser.findElements(By.id("token-form"))).isEmpty();
  }
}
