package dev.spanprof.api;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.pool.PoolSweep;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.ranking.RankingState;
import dev.spanprof.analysis.tail.TailBreakdown;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.analysis.tail.TailState;
import dev.spanprof.analysis.tail.TailWindow;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.fleet.PeerClient;
import dev.spanprof.fleet.PeerClient.Replies;
import dev.spanprof.fleet.PeerClient.Reply;
import dev.spanprof.span.Operation;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.FleetRanking;
import dev.spanprof.stages.RankingService;
import dev.spanprof.stages.TailService;
import dev.spanprof.v1.PoolWindowState;
import dev.spanprof.v1.State;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.zip.DataFormatException;

/**
 * The fleet's answers (semantics.md §7, contract.md "A fleet of replicas"): each asks every peer,
 * this replica among them, for its own additive state of what the question needs, merges it
 * exactly (sum, min, max, HdrHistogram add) and derives once. Peers that did not answer are
 * named in {@link Answer#missingPeers()}; the rest is the others' data.
 */
@Singleton
final class Fleet implements FleetRanking {

  static final String PROTOBUF = "application/x-protobuf";
  /**
   * Names the peers missing from an answer that is a JSON array (an object answer carries them as
   * {@code missingPeers}), comma-separated; absent when none is.
   */
  static final String MISSING_PEERS_HEADER = "Spanprof-Missing-Peers";

  private final PeerClient peers;
  private final RankingService ranking;
  private final TailService tail;
  private final int significantDigits;
  private final JsonMapper json;

  Fleet(PeerClient peers, RankingService ranking, TailService tail,
      HistogramConfiguration histograms, JsonMapper json) {
    this.peers = peers;
    this.json = json;
    this.ranking = ranking;
    this.tail = tail;
    this.significantDigits = histograms.getSignificantDigits();
  }

  /** A fleet's answer and the peers that gave none, each with why. */
  record Answer<T>(T value, List<String> missingPeers) {

    /** What {@code derive} makes of this answer's value, naming the same peers. */
    <U> Answer<U> map(Function<T, U> derive) {
      return new Answer<>(derive.apply(value), missingPeers);
    }

    /** {@code response} with the missing peers named in {@link #MISSING_PEERS_HEADER}. */
    <B> HttpResponse<B> named(MutableHttpResponse<B> response) {
      if (!missingPeers.isEmpty()) {
        response.header(MISSING_PEERS_HEADER, String.join(", ", missingPeers));
      }
      return response;
    }
  }

  /** Whether an answer is the fleet's: peers are configured and the asker did not want local. */
  boolean answers(boolean local) {
    return peers.enabled() && !local;
  }

  @Override
  public Optional<RankingSnapshot> fleetRanking() {
    return peers.enabled() ? Optional.of(ranking(null).value()) : Optional.empty();
  }

  /** The ranking over {@code root}'s traces, or all with null. */
  Answer<RankingSnapshot> ranking(Operation root) {
    long asOfNanos = ranking.nowNanos();
    Gathered gathered = states("ranking", root, "asOf=" + asOfNanos, "summed=true");
    List<RankingState> states = new ArrayList<>();
    gathered.each((peer, state) -> states.add(
        sameSlices(state.ranking(), RankingState::sliceNanos, ranking.sliceNanos())));
    return gathered.answer(ranking.merge(states, root, asOfNanos));
  }

  /** Every root operation with traces in the fleet's tail window. */
  Answer<List<TailRoot>> tailRoots() {
    long asOfNanos = tail.nowNanos();
    return tail(null, asOfNanos).map(window -> window.roots(asOfNanos));
  }

  /** The breakdown of the fleet's tail of {@code root} at {@code quantile}. */
  Answer<Optional<TailBreakdown>> tailBreakdown(Operation root, double quantile) {
    long asOfNanos = tail.nowNanos();
    return tail(root, asOfNanos).map(window -> window.breakdown(root, quantile, asOfNanos));
  }

  /**
   * The tail window of {@code root}'s traces, or of every root with null, cut at {@code
   * asOfNanos} on every peer.
   */
  private Answer<TailWindow> tail(Operation root, long asOfNanos) {
    Gathered gathered = states("tail", root, "asOf=" + asOfNanos, "summed=true");
    List<TailState> states = new ArrayList<>();
    gathered.each((peer, state) -> states.add(
        sameSlices(state.tail(), TailState::sliceNanos, tail.sliceNanos())));
    return gathered.answer(tail.merge(states));
  }

  /** One operation's distribution of one kind; empty when no replica has it. */
  Answer<Optional<DistributionService.Merged>> distribution(Kind kind, Operation operation) {
    Gathered gathered = states("distribution", operation, "kind=" + kind.name().toLowerCase(Locale.ROOT));
    StateProtos.MergedHistograms merged = new StateProtos.MergedHistograms(significantDigits);
    boolean[] found = {false};
    gathered.each((peer, state) -> {
      try {
        found[0] |= state.addDistribution(merged, operation, kind);
      } catch (DataFormatException e) {
        throw new IllegalArgumentException("an undecodable histogram: " + e.getMessage(), e);
      }
    });
    return gathered.answer(found[0] ? Optional.of(merged.merged()) : Optional.empty());
  }

  /**
   * Every pool's final windows, each window's A_c added across replicas, U_c derived with the
   * capacity counted once; the CPU attribution per replica (it does not merge, semantics.md §7).
   */
  Answer<Map<String, List<PoolsController.Window>>> pools() {
    Gathered gathered = states("pools", null);
    // By pool, then by the window's start (the same span-time window on every replica).
    Map<String, Map<Long, List<PeerWindow>>> byPool = new TreeMap<>();
    gathered.each((peer, state) -> {
      for (PoolWindowState window : state.pools()) {
        byPool.computeIfAbsent(window.getPool(), unused -> new TreeMap<>())
            .computeIfAbsent(window.getStartNanos(), unused -> new ArrayList<>())
            .add(new PeerWindow(peer, window));
      }
    });
    Map<String, List<PoolsController.Window>> pools = new LinkedHashMap<>();
    byPool.forEach((pool, windows) -> pools.put(pool, windows.values().stream().map(parts -> {
      PoolWindowState first = parts.get(0).window();
      Map<String, Double> occupiedNs = new TreeMap<>();
      Map<String, Map<String, Double>> attributionByReplica = new TreeMap<>();
      for (PeerWindow part : parts) {
        part.window().getOccupiedNsMap().forEach((category, ns) ->
            occupiedNs.merge(category, ns, Double::sum));
        attributionByReplica.put(part.peer(),
            new TreeMap<>(part.window().getAttributionNsMap()));
      }
      return new PoolsController.Window(first.getStartNanos(), first.getEndNanos(),
          first.getCapacity(), first.getAvailableNs(),
          PoolSweep.utilization(occupiedNs, first.getAvailableNs()), Map.of(),
          attributionByReplica);
    }).toList()));
    return gathered.answer(pools);
  }

  /**
   * Every replica's counters added up, on this replica's clock ({@code here}: its own answer, for
   * the clock and the windows).
   */
  Answer<StatusController.Status> status(StatusController.Status here) {
    Replies replies = peers.get("/api/v1/status?scope=local", "application/json");
    List<String> missing = new ArrayList<>(replies.missingPeers());
    StatusController.Status sum = here.zero();
    for (Reply reply : replies.replies()) {
      try {
        sum = sum.plus(json.readValue(reply.body(), StatusController.Status.class));
      } catch (IOException | RuntimeException e) {
        missing.add(reply.peer() + " (unreadable status: " + e.getMessage() + ")");
      }
    }
    return new Answer<>(sum, missing);
  }

  /** The matching recent traces of every replica, merged in the query's order. */
  Answer<List<TraceSummary>> traces(TraceQuery query) {
    // Each replica's first offset + limit: the page is cut from them once merged.
    Gathered gathered = states("traces", null, query.fromFirst().toQueryString());
    List<TraceSummary> all = new ArrayList<>();
    gathered.each((peer, state) -> all.addAll(state.traces()));
    all.sort(query.slowest() ? RecentProfiles.SLOWEST : RecentProfiles.NEWEST);
    int from = Math.min(all.size(), query.offset());
    return gathered.answer(List.copyOf(all.subList(from,
        Math.min(all.size(), from + query.limit()))));
  }

  /**
   * The JSON profile of a trace from the replica that has it (a trace is whole on one; should
   * several hold fragments of it, the largest answer); empty when none has it.
   */
  Answer<Optional<byte[]>> trace(TraceId traceId) {
    Replies replies = peers.get("/api/v1/traces/" + traceId.toHex() + "?scope=local",
        "application/json");
    Optional<byte[]> found = replies.replies().stream()
        .filter(reply -> reply.status() == 200)
        .map(Reply::body)
        .max((a, b) -> Integer.compare(a.length, b.length));
    return new Answer<>(found, replies.missingPeers());
  }

  /** Asks every peer for the state {@code part}, of one root or operation, with more parameters. */
  private Gathered states(String part, Operation operation, String... parameters) {
    StringBuilder query = new StringBuilder("/api/v1/state?scope=local&part=").append(part);
    if (operation != null) {
      query.append("&service=").append(encode(operation.service()))
          .append("&operation=").append(encode(operation.name()));
    }
    for (String parameter : parameters) {
      if (!parameter.isEmpty()) {
        query.append('&').append(parameter);
      }
    }
    Replies replies = peers.get(query.toString(), PROTOBUF);
    List<String> missing = new ArrayList<>(replies.missingPeers());
    Map<String, StateProtos.Reader> states = new LinkedHashMap<>();
    for (Reply reply : replies.replies()) {
      if (reply.status() != 200) {
        missing.add(reply.peer() + " (HTTP " + reply.status() + ")");
        continue;
      }
      try {
        states.put(reply.peer(), new StateProtos.Reader(State.parseFrom(reply.body())));
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        missing.add(reply.peer() + " (unreadable state: " + e.getMessage() + ")");
      }
    }
    return new Gathered(states, missing);
  }

  private record PeerWindow(String peer, PoolWindowState window) {}

  /** A state whose slices are of another length than this replica's cannot merge. */
  private static <S> S sameSlices(S state, ToLongFunction<S> sliceNanos, long expected) {
    if (sliceNanos.applyAsLong(state) != expected) {
      throw new IllegalArgumentException("slices of " + sliceNanos.applyAsLong(state)
          + " ns, not " + expected + " ns: the replicas' windows differ");
    }
    return state;
  }

  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The states that came in, by peer; a peer whose state does not merge joins the missing. */
  private static final class Gathered {
    private final Map<String, StateProtos.Reader> states;
    private final List<String> missing;

    Gathered(Map<String, StateProtos.Reader> states, List<String> missing) {
      this.states = states;
      this.missing = missing;
    }

    interface PeerState {
      void accept(String peer, StateProtos.Reader state);
    }

    void each(PeerState action) {
      states.forEach((peer, state) -> {
        try {
          action.accept(peer, state);
        } catch (IllegalArgumentException e) {
          missing.add(peer + " (" + e.getMessage() + ")");
        }
      });
    }

    <T> Answer<T> answer(T value) {
      return new Answer<>(value, List.copyOf(missing));
    }
  }
}
