package dev.spanprof;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The analysis core and trace assembly stay pure Java: no Micronaut, gRPC, protobuf (OTLP
 * included) or Micrometer type, so they can be tested and benchmarked without a framework and
 * protobuf stops at the ingest mapper (conventions.md, rule 1).
 */
class ArchitectureTest {

  private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.spanprof");

  private static final String[] FRAMEWORKS = {
      "io.micronaut..", "io.grpc..", "com.google.protobuf..", "io.opentelemetry.proto..",
      "io.micrometer..", "jakarta.inject..",
  };

  /**
   * An allow-list: the analysis core and the span model it shares with ingest, assembly and export
   * import only the JDK and HdrHistogram (DEVELOPERS.md).
   */
  @Test
  void analysisAndSpanModel_importOnlyTheJdkAndHdrHistogram() {
    classes().that().resideInAnyPackage("dev.spanprof.analysis..", "dev.spanprof.span..")
        .should().onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "org.HdrHistogram..", "dev.spanprof.analysis..",
            "dev.spanprof.span..")
        .check(MAIN_CLASSES);
  }

  /** The span model is below the analysis: it knows nothing of what is computed from it. */
  @Test
  void spanModel_dependsOnNoAnalysis() {
    noClasses().that().resideInAPackage("dev.spanprof.span..")
        .should().dependOnClassesThat().resideInAPackage("dev.spanprof.analysis..")
        .check(MAIN_CLASSES);
  }

  @Test
  void assembly_dependsOnNoFrameworkOrProtobuf() {
    noClasses().that().resideInAPackage("dev.spanprof.assembly..")
        .should().dependOnClassesThat().resideInAnyPackage(FRAMEWORKS)
        .check(MAIN_CLASSES);
  }

  @Test
  void core_doesNotReachBackIntoAdapters() {
    noClasses().that().resideInAnyPackage("dev.spanprof.analysis..", "dev.spanprof.span..",
            "dev.spanprof.assembly..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.spanprof.ingest..", "dev.spanprof.metrics..", "dev.spanprof.config..",
            "dev.spanprof.management..")
        .check(MAIN_CLASSES);
  }

  /**
   * The packages follow the data: ingest → assembly → analysis → the stages after it (metrics,
   * export, api). The core (span model, assembly, analysis, the spool, time) is reached by every layer and reaches none;
   * the OTLP codecs (protobuf's wire, JSON through Gson) only by the adapters that speak OTLP:
   * ingest, export, and the API, which reads the spans kept as received; configuration is read by the adapters; ingest is read only by what
   * reports on it or wires it; the stages after the analysis (export, api) by metrics and the wiring; the peers of a fleet by the API. The UI's pages read the API over HTTP, like any client: nothing of spanprof's. The
   * bearer tokens are asked by the receivers, the API and the management port, each for the access
   * it needs, and TLS as a client serves forwarding and the peers; the UI's pages say they need none.
   */
  @Test
  void packages_followTheDataFlow() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Core").definedBy("dev.spanprof.span..", "dev.spanprof.analysis..",
            "dev.spanprof.assembly..", "dev.spanprof.spool..", "dev.spanprof.time..")
        .layer("Otlp").definedBy("dev.spanprof.otlp..")
        .layer("Config").definedBy("dev.spanprof.config..")
        .layer("Ingest").definedBy("dev.spanprof.ingest..")
        .layer("Stages").definedBy("dev.spanprof.stages..")
        .layer("Export").definedBy("dev.spanprof.export..")
        .layer("Api").definedBy("dev.spanprof.api..")
        .layer("Fleet").definedBy("dev.spanprof.fleet..")
        .layer("Metrics").definedBy("dev.spanprof.metrics..")
        .layer("Management").definedBy("dev.spanprof.management..")
        .layer("Wiring").definedBy("dev.spanprof.wiring..")
        .layer("Ui").definedBy("dev.spanprof.ui..")
        .layer("Security").definedBy("dev.spanprof.security..")
        .whereLayer("Wiring").mayNotBeAccessedByAnyLayer()
        .whereLayer("Otlp").mayOnlyBeAccessedByLayers("Ingest", "Export", "Api")
        .whereLayer("Ui").mayNotBeAccessedByAnyLayer()
        .whereLayer("Management").mayOnlyBeAccessedByLayers("Wiring")
        .whereLayer("Metrics").mayOnlyBeAccessedByLayers("Management", "Wiring")
        .whereLayer("Api").mayOnlyBeAccessedByLayers("Wiring")
        .whereLayer("Fleet").mayOnlyBeAccessedByLayers("Api", "Wiring")
        .whereLayer("Export").mayOnlyBeAccessedByLayers("Metrics", "Wiring")
        .whereLayer("Stages").mayOnlyBeAccessedByLayers("Export", "Api", "Metrics", "Wiring")
        .whereLayer("Ingest").mayOnlyBeAccessedByLayers("Management", "Metrics", "Wiring")
        .whereLayer("Security")
        .mayOnlyBeAccessedByLayers("Ingest", "Export", "Api", "Fleet", "Ui", "Management",
            "Wiring")
        .whereLayer("Config").mayOnlyBeAccessedByLayers("Ingest", "Stages", "Export", "Api", "Fleet",
            "Metrics", "Management", "Security", "Ui", "Wiring")
        .check(MAIN_CLASSES);
  }

  /**
   * No package depends on another that depends back on it, however far round: each can be read
   * and changed from the ones it uses. Configuration classes depend on nothing but the core; the
   * wiring that assembles the pipeline from them lives in {@code wiring}.
   */
  @Test
  void packages_dependOnEachOtherWithoutCycles() {
    slices().matching("dev.spanprof.(*)..").should().beFreeOfCycles().check(MAIN_CLASSES);
    slices().matching("dev.spanprof.analysis.(*)..").should().beFreeOfCycles()
        .check(MAIN_CLASSES);
    slices().matching("dev.spanprof.span.(*)..").should().beFreeOfCycles().check(MAIN_CLASSES);
  }

  /**
   * Inside the analysis, each package uses only those below it: what spans across traces
   * (distributions, ranking, the tail) reads the per-trace analysis and the pools; the shared
   * internals (sorts, heaps, reusable arrays, HdrHistogram's counts layout) know nothing of spans.
   */
  @Test
  void analysisPackages_areLayeredByRole() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Ranking").definedBy("dev.spanprof.analysis.ranking..")
        .layer("Tail").definedBy("dev.spanprof.analysis.tail..")
        .layer("Distribution").definedBy("dev.spanprof.analysis.distribution..")
        .layer("Trace").definedBy("dev.spanprof.analysis.trace..")
        .layer("Pool").definedBy("dev.spanprof.analysis.pool..")
        .layer("Span").definedBy("dev.spanprof.span..")
        .layer("Store").definedBy("dev.spanprof.span.store..")
        .layer("Internal").definedBy("dev.spanprof.analysis.internal..")
        .whereLayer("Ranking").mayNotBeAccessedByAnyLayer()
        .whereLayer("Tail").mayNotBeAccessedByAnyLayer()
        .whereLayer("Distribution").mayNotBeAccessedByAnyLayer()
        .whereLayer("Trace").mayOnlyBeAccessedByLayers("Ranking", "Tail")
        .whereLayer("Pool").mayOnlyBeAccessedByLayers("Trace", "Ranking")
        .whereLayer("Internal").mayOnlyBeAccessedByLayers("Trace", "Ranking", "Distribution")
        .check(MAIN_CLASSES);
  }
}
