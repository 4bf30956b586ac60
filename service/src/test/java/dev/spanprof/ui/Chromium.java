package dev.spanprof.ui;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, through Debian's ChromeDriver: both installed by
 * scripts/install-test-tools.sh, named here so that Selenium never looks for a browser of its own
 * to download. The flags keep Chromium off the network this machine does not have.
 */
public final class Chromium {

  private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  private Chromium() {}

  /** Chromium with its profile in {@code profile}, a directory the test removes after it. */
  public static ChromeDriver start(int width, int height, Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=" + width + "," + height,
        "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File("/usr/bin/chromedriver"))
        .usingAnyFreePort()
        .build();
    return new ChromeDriver(service, options);
  }

  /** Saves what the browser shows as target/ui-screenshots/{name}.png, a test artefact. */
  public static Path screenshot(ChromeDriver driver, String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    Path file = SCREENSHOTS.resolve(name + ".png");
    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), file,
        StandardCopyOption.REPLACE_EXISTING);
    return file;
  }
}
