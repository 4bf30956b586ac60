package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.pool.ChosenSegment;
import dev.spanprof.analysis.span.StateClass;
import dev.spanprof.analysis.span.TraceId;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.config.QueryConfiguration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentProfilesTest {

  @Test
  void get_keptTrace_answersWithItsProfileWithoutSegments() {
    RecentProfiles recent = recentProfiles(3);
    TraceId id = new TraceId(1, 2);

    keep(recent, id, 5);

    assertThat(recent.get(id)).hasValueSatisfying(profile -> {
      assertThat(profile.spanCount()).isEqualTo(5);
      assertThat(profile.segments()).isEmpty();
    });
    assertThat(recent.get(new TraceId(1, 3))).isEmpty();
  }

  @Test
  void get_idsSharingTheirLowHalf_tellsThemApart() {
    RecentProfiles recent = recentProfiles(3);
    TraceId first = new TraceId(1, 7);
    TraceId second = new TraceId(2, 7);

    keep(recent, first, 1);
    keep(recent, second, 2);

    assertThat(recent.get(first)).map(TraceProfile::spanCount).hasValue(1);
    assertThat(recent.get(second)).map(TraceProfile::spanCount).hasValue(2);
    assertThat(recent.get(new TraceId(3, 7))).isEmpty();
  }

  @Test
  void get_moreAnalysesThanKept_forgetsTheOldestFirst() {
    RecentProfiles recent = recentProfiles(3);
    for (long low = 1; low <= 5; low++) {
      TraceId id = new TraceId(0, low);
      keep(recent, id, (int) low);
    }

    assertThat(recent.get(new TraceId(0, 1))).isEmpty();
    assertThat(recent.get(new TraceId(0, 2))).isEmpty();
    for (long low = 3; low <= 5; low++) {
      assertThat(recent.get(new TraceId(0, low))).map(TraceProfile::spanCount).hasValue((int) low);
    }
  }

  @Test
  void get_traceAnalysedAgain_answersWithTheLatestProfile() {
    RecentProfiles recent = recentProfiles(3);
    TraceId id = new TraceId(4, 4);
    TraceId other = new TraceId(5, 5);

    keep(recent, id, 1);
    keep(recent, other, 9);
    keep(recent, id, 2);

    assertThat(recent.get(id)).map(TraceProfile::spanCount).hasValue(2);
    assertThat(recent.get(other)).map(TraceProfile::spanCount).hasValue(9);
  }

  private static RecentProfiles recentProfiles(int capacity) {
    QueryConfiguration configuration = new QueryConfiguration();
    configuration.setRecentTraces(capacity);
    return new RecentProfiles(configuration);
  }

  /** Hands {@code recent} an analysis of {@code id} with {@code spanCount} spans. */
  private static void keep(RecentProfiles recent, TraceId id, int spanCount) {
    recent.accept(
        new CompletedTrace(id, List.of(), Completion.TIMEOUT, false), profile(id, spanCount), 0);
  }

  private static TraceProfile profile(TraceId id, int spanCount) {
    ChosenSegment segment = new ChosenSegment("pool", "running", StateClass.CPU, "cpu", 1, 0, 10);
    return new TraceProfile(id, spanCount, 0, 0, 0, 0, 0, 0, List.of(), List.of(), List.of(),
        List.of(), List.of(), List.of(), List.of(), List.of(segment), -1);
  }
}
