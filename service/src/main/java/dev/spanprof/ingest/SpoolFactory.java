package dev.spanprof.ingest;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.SpoolConfiguration;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.spool.Spool;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the spool when {@code spanprof.export.spool.directory} is set. */
@Factory
final class SpoolFactory {

  private static final Logger LOG = LoggerFactory.getLogger(SpoolFactory.class);

  @Singleton
  @Bean(preDestroy = "close")
  @Requires(property = SpoolConfiguration.PREFIX + ".directory", pattern = ".*\\S.*")
  Spool spool(SpoolConfiguration configuration, ExportConfiguration export) throws IOException {
    if (!export.enabled()) {
      throw new IllegalArgumentException(SpoolConfiguration.PREFIX + ".directory is set but "
          + ExportConfiguration.PREFIX + ".endpoint is not: the spool keeps spans until they are "
          + "forwarded, so it needs a next hop");
    }
    Spool spool = new Spool(Path.of(configuration.getDirectory()), configuration.getMaxSize(),
        configuration.getSegmentSize(), configuration.getFsyncInterval().isZero(), payload -> {
          try {
            return OtlpSpanCount.of(payload, payload.length);
          } catch (InvalidOtlpException notARequest) {
            return -1;
          }
        });
    LOG.info("spooling accepted spans in {} (at most {} MiB); {} spans found there to forward",
        configuration.getDirectory(), configuration.getMaxSize() >> 20, spool.recoveredSpans());
    if (spool.truncatedSegments() > 0) {
      LOG.warn("{} spool segments ended in a record cut short or corrupt, dropped from there on",
          spool.truncatedSegments());
    }
    return spool;
  }
}
