package dev.spanprof.ingest.kafka;

import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.KafkaConfiguration;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.config.TailConfiguration;
import dev.spanprof.ingest.IngestResult;
import dev.spanprof.ingest.LogRecordOrigin;
import dev.spanprof.ingest.TraceIngest;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads OTLP spans from {@code spanprof.kafka.topic} as one consumer of {@code
 * spanprof.kafka.group-id}, each record as the Collector's Kafka exporter writes it (with {@code
 * partition_traces_by_id}: the spans of one trace, keyed by its hex id, so every span of a trace
 * is in one partition), through the same admission, assembly, analysis and forwarding as an OTLP
 * request.
 *
 * <ul>
 *   <li><b>Commits only what is done.</b> A partition's offset is committed up to the first
 *       record with a span not yet analysed and forwarded ({@link PartitionProgress}); the
 *       commit's metadata names the records above it that are done, so that their next reader
 *       counts them as replayed, and which consumer built the windows from which records ({@link
 *       CommitMetadata}).
 *   <li><b>Back-pressure.</b> A record the pipeline has no room for stays at the head of its
 *       partition's backlog, the partition paused, and is offered again at each poll; nothing is
 *       dropped or committed past.
 *   <li><b>Handover.</b> Partitions given up (a rebalance, a shutdown) begin no more analyses
 *       here; once the spans whose analysis began are forwarded (within {@code
 *       spanprof.kafka.handover-timeout}) each is committed at its first record not done, so
 *       that the next owner reads every trace read here only in part again, whole.
 *   <li><b>Windows rebuilt.</b> On assignment a partition is read again from one window (the
 *       longest of the ranking's, tail's and distributions', plus the maximum trace age) before
 *       its committed offset, where the consumer that built the windows from those records has
 *       left the group ({@link CustodyPlan}): those records are analysed, not forwarded, each
 *       trace in the slice of its latest record timestamp, so the windows are what they were
 *       (semantics.md §7), and nothing a live consumer holds is counted twice.
 * </ul>
 */
@Context
@Requires(property = KafkaConfiguration.PREFIX + ".bootstrap-servers", pattern = ".*\\S.*")
public final class KafkaIngest implements ConsumerRebalanceListener {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaIngest.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final TraceIngest ingest;
  private final KafkaListener listener;
  private final KafkaConfiguration configuration;
  private final boolean json;
  /** Analysed, and forwarded when there is a next hop. */
  private final int stepsPerSpan;
  private final long replayWindowMillis;
  /** This process's, unique: it names the process in the custody of the windows. */
  private final String clientId;
  private final KafkaConsumer<byte[], byte[]> consumer;
  /** Asks which consumers are in the group; made at the first assignment. */
  private Admin admin;
  /** The partitions assigned, in the poll thread's hands only. */
  private final Map<TopicPartition, PartitionProgress> partitions = new HashMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long lastCommitNanos = System.nanoTime();

  KafkaIngest(TraceIngest ingest, KafkaListener listener, KafkaConfiguration configuration,
      ExportConfiguration export, AssemblyConfiguration assembly, RankingConfiguration ranking,
      TailConfiguration tail, HistogramConfiguration histograms) {
    this.ingest = ingest;
    this.listener = listener;
    this.configuration = configuration;
    this.json = configuration.getEncoding() == KafkaConfiguration.Encoding.OTLP_JSON;
    this.stepsPerSpan = export.enabled() ? 2 : 1;
    Duration window = Stream.of(ranking.getWindow(), tail.getWindow(), histograms.getWindow())
        .filter(Objects::nonNull).max(Duration::compareTo).orElseThrow();
    this.replayWindowMillis = window.plus(assembly.getMaxTraceAge()).toMillis();
    this.clientId = "spanprof-" + UUID.randomUUID();
    this.consumer = new KafkaConsumer<>(consumerProperties(configuration, clientId),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.thread = new Thread(this::run, "spanprof-kafka");
    thread.setDaemon(true);
    thread.start();
    LOG.info("reading {} from Kafka {} as group {}, {} records rebuild the windows",
        configuration.getTopic(), configuration.getBootstrapServers(),
        configuration.getGroupId(), Duration.ofMillis(replayWindowMillis));
  }

  /**
   * The client ids of the group's consumers now; on failure none, so that every run of records
   * whose consumer is unknown is rebuilt.
   */
  private Set<String> groupMembers() {
    try {
      if (admin == null) {
        admin = Admin.create(adminProperties(configuration));
      }
      return admin.describeConsumerGroups(List.of(configuration.getGroupId()))
          .describedGroups().get(configuration.getGroupId())
          .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .members().stream().map(MemberDescription::clientId).collect(Collectors.toSet());
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      LOG.warn("Kafka: the group's members are unknown ({}); windows of every earlier consumer "
          + "are rebuilt", e.toString());
      return Set.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Set.of();
    }
  }

  private Properties adminProperties(KafkaConfiguration configuration) {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, configuration.getBootstrapServers());
    properties.putAll(configuration.getProperties());
    properties.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
    return properties;
  }

  /**
   * Ours first, then {@code spanprof.kafka.properties.*} over them; the client id is each
   * process's own, which names it in the custody of the windows ({@link CommitMetadata}).
   */
  static Properties consumerProperties(KafkaConfiguration configuration, String clientId) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, configuration.getBootstrapServers());
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, configuration.getGroupId());
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // A group's first consumer reads what the exporter wrote before it started.
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    properties.putAll(configuration.getProperties());
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    return properties;
  }

  /**
   * Stops reading, hands the partitions over (their spans done and committed, within the
   * handover timeout) and leaves the group; waits at most {@code timeout}. Runs before the
   * pipeline drains, so that the spans it read complete as they would have, not cut short.
   */
  public void stop(Duration timeout) throws InterruptedException {
    running = false;
    thread.join(Math.max(1, timeout.toMillis()));
  }

  @PreDestroy
  void close() throws InterruptedException {
    stop(configuration.getHandoverTimeout().plus(REQUEST_TIMEOUT));
  }

  private void run() {
    try {
      consumer.subscribe(List.of(configuration.getTopic()), this);
      while (running) {
        try {
          ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
          for (TopicPartition partition : records.partitions()) {
            PartitionProgress progress = partitions.get(partition);
            if (progress != null) {
              progress.backlog().addAll(records.records(partition));
            }
          }
          take();
          if (System.nanoTime() - lastCommitNanos >= configuration.getCommitInterval().toNanos()) {
            commit(partitions.keySet(), false);
            reportLag();
            lastCommitNanos = System.nanoTime();
          }
        } catch (KafkaException e) {
          LOG.error("Kafka: {}; trying again", e.toString());
          Thread.sleep(POLL.toMillis()); // not to spin on a failure that repeats at once
        }
      }
      handOver(new ArrayList<>(partitions.keySet()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("Kafka ingest stopped", e);
    } finally {
      try {
        consumer.close(Duration.ofSeconds(5));
        if (admin != null) {
          admin.close(Duration.ofSeconds(5));
        }
      } catch (RuntimeException e) {
        LOG.warn("Kafka consumer did not close cleanly: {}", e.toString());
      }
    }
  }

  /** Offers each partition's backlog in order; a partition without room waits, paused. */
  private void take() {
    for (Map.Entry<TopicPartition, PartitionProgress> entry : partitions.entrySet()) {
      TopicPartition partition = entry.getKey();
      PartitionProgress progress = entry.getValue();
      while (!progress.backlog().isEmpty()) {
        if (!offer(partition, progress, progress.backlog().peekFirst())) {
          if (!progress.paused()) {
            consumer.pause(Set.of(partition));
            progress.paused(true);
          }
          break;
        }
        progress.backlog().pollFirst();
      }
      if (progress.backlog().isEmpty() && progress.paused()) {
        consumer.resume(Set.of(partition));
        progress.paused(false);
      }
    }
  }

  /** Whether the record was taken (or skipped as invalid); false: no room, offer it again. */
  private boolean offer(TopicPartition partition, PartitionProgress progress,
      ConsumerRecord<byte[], byte[]> record) {
    long arrivalEpochNanos = record.timestamp() * 1_000_000L;
    if (progress.readBefore(record.offset())) {
      return rebuild(partition, progress, record, arrivalEpochNanos);
    }
    RecordTicket ticket = new RecordTicket(record.offset(), stepsPerSpan, progress);
    if (progress.doneByOwnerBefore(record.offset())) {
      ticket.skip(); // analysed and forwarded by the owner before, which keeps its windows
      progress.taken(ticket);
      return true;
    }
    IngestResult result = exportRecord(record, ticket, arrivalEpochNanos);
    return switch (result.outcome()) {
      case ACCEPTED -> {
        progress.taken(ticket);
        if (progress.forwardedBefore(record.offset())) {
          listener.onReplayed(ticket.spans());
        }
        yield true;
      }
      case MALFORMED, TOO_LARGE -> {
        invalid(partition, record, result.message());
        ticket.skip();
        progress.taken(ticket);
        yield true;
      }
      case FULL, UNAVAILABLE -> false;
    };
  }

  /** A record read before: analysed again where its windows are to be rebuilt, else skipped. */
  private boolean rebuild(TopicPartition partition, PartitionProgress progress,
      ConsumerRecord<byte[], byte[]> record, long arrivalEpochNanos) {
    if (!progress.rebuildsWindows(record.offset())) {
      progress.readAgain(record.offset()); // a consumer still in the group holds its windows
      return true;
    }
    RecordTicket ticket = RecordTicket.rebuilding(record.offset(), progress);
    IngestResult result = exportRecord(record, ticket, arrivalEpochNanos);
    return switch (result.outcome()) {
      case ACCEPTED -> {
        progress.rebuilt(ticket);
        listener.onWindowRebuilt(ticket.spans());
        yield true;
      }
      case MALFORMED, TOO_LARGE -> {
        invalid(partition, record, result.message());
        progress.readAgain(record.offset());
        yield true;
      }
      case FULL, UNAVAILABLE -> false;
    };
  }

  private IngestResult exportRecord(ConsumerRecord<byte[], byte[]> record, LogRecordOrigin origin,
      long arrivalEpochNanos) {
    if (record.value() == null) {
      return IngestResult.refused(IngestResult.Outcome.MALFORMED, "the record has no value");
    }
    return ingest.exportRecord(record.value(), json, origin, arrivalEpochNanos);
  }

  private void invalid(TopicPartition partition, ConsumerRecord<byte[], byte[]> record,
      String why) {
    listener.onInvalidRecord();
    LOG.warn("skipped the record at {} offset {}: {}", partition, record.offset(), why);
  }

  /**
   * Commits each partition's committable offset that moved, with who holds the windows built
   * from it and what is done above it ({@link CommitMetadata}).
   */
  private void commit(Collection<TopicPartition> which, boolean sync) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : which) {
      PartitionProgress progress = partitions.get(partition);
      long offset = progress == null ? -1 : progress.committable();
      if (offset < 0) {
        continue;
      }
      String metadata = CommitMetadata.encode(offset, progress.custody(), progress.doneAbove());
      if (progress.changedSinceCommit(offset, metadata)) {
        offsets.put(partition, new OffsetAndMetadata(offset, metadata));
        progress.committed(offset, metadata);
      }
    }
    if (offsets.isEmpty()) {
      return;
    }
    if (sync) {
      consumer.commitSync(offsets, REQUEST_TIMEOUT);
      return;
    }
    consumer.commitAsync(offsets, (committed, failure) -> {
      if (failure != null) {
        LOG.warn("Kafka: a commit failed ({}); the next one carries it", failure.toString());
        for (TopicPartition partition : committed.keySet()) {
          PartitionProgress progress = partitions.get(partition);
          if (progress != null) {
            progress.committed(-2, "");
          }
        }
      }
    });
  }

  /**
   * Each owned partition's end offset less this consumer's position. Asked of the broker: the
   * consumer's own estimate ({@code currentLag}) went stale, below zero, after a seek.
   */
  private void reportLag() {
    if (partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions.keySet(), REQUEST_TIMEOUT);
    for (TopicPartition partition : partitions.keySet()) {
      Long end = ends.get(partition);
      if (end != null) {
        listener.onLag(partition.partition(), Math.max(0, end - consumer.position(partition)));
      }
    }
  }

  /**
   * Gives {@code given} up: no span read from them begins its analysis here any more; waits for
   * those whose analysis began to be forwarded (within the handover timeout), then commits at
   * each partition's first record not done. The next owner reads from there, so a trace read
   * only in part (its later records unread) is read again whole, never split between owners.
   */
  private void handOver(Collection<TopicPartition> given) throws InterruptedException {
    long deadline = System.nanoTime() + configuration.getHandoverTimeout().toNanos();
    for (TopicPartition partition : given) {
      PartitionProgress progress = partitions.get(partition);
      if (progress != null) {
        progress.backlog().clear();
        progress.giveUp();
      }
    }
    for (TopicPartition partition : given) {
      PartitionProgress progress = partitions.get(partition);
      if (progress != null && !progress.awaitBegunDone(deadline)) {
        LOG.warn("handing over {}: spans analysed from it were not forwarded within {}; its "
            + "next owner forwards them again", partition, configuration.getHandoverTimeout());
      }
    }
    try {
      commit(given, true);
    } catch (KafkaException e) {
      LOG.warn("handing over {}: the commit failed ({}); the next owner reads from the last one",
          given, e.toString());
    }
    forget(given);
  }

  private void forget(Collection<TopicPartition> given) {
    for (TopicPartition partition : given) {
      if (partitions.remove(partition) != null) {
        listener.onUnassigned(partition.partition());
      }
    }
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    try {
      handOver(revoked);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      forget(revoked);
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> lost) {
    LOG.warn("Kafka: lost {} without handing them over; their next owner reads from the last "
        + "commit", lost);
    for (TopicPartition partition : lost) {
      PartitionProgress progress = partitions.get(partition);
      if (progress != null) {
        progress.giveUp();
      }
    }
    forget(lost);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
    // Called after every rebalance, with the partitions new to this consumer (maybe none): a
    // rebalance is also when a consumer that built windows from a partition this one owns may
    // have left, its windows to be rebuilt here.
    Map<TopicPartition, OffsetAndMetadata> committed = assigned.isEmpty() ? Map.of()
        : consumer.committed(new HashSet<>(assigned), REQUEST_TIMEOUT);
    Set<String> members = groupMembers();
    Map<TopicPartition, Long> replayFrom = replayFrom(assigned, committed);
    for (TopicPartition partition : partitions.keySet()) {
      rebuildWhatLeft(partition, partitions.get(partition), members, replayFrom);
    }
    for (TopicPartition partition : assigned) {
      OffsetAndMetadata commit = committed.get(partition);
      long committedOffset = commit == null ? -1 : commit.offset();
      CommitMetadata previous = commit == null ? CommitMetadata.none(-1)
          : CommitMetadata.decode(commit.offset(), commit.metadata());
      CustodyPlan plan = CustodyPlan.of(committedOffset, previous.custody(),
          replayFrom.getOrDefault(partition, committedOffset), members, clientId);
      if (plan.replayStart() >= 0) {
        consumer.seek(partition, plan.replayStart());
      }
      partitions.put(partition, new PartitionProgress(committedOffset, plan, previous,
          listener::onHandedOver));
      LOG.info("assigned {}: committed at {}, windows rebuilt from {}", partition,
          commit == null ? "none" : commit.offset(),
          plan.replayStart() < 0 ? "none" : plan.replayStart());
    }
  }

  /**
   * The first offset within the replay window of each partition owned or {@code assigned} (with
   * a commit); absent where no record is that recent.
   */
  private Map<TopicPartition, Long> replayFrom(Collection<TopicPartition> assigned,
      Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<TopicPartition, Long> since = new HashMap<>();
    long from = System.currentTimeMillis() - replayWindowMillis;
    for (TopicPartition partition : assigned) {
      if (committed.get(partition) != null) {
        since.put(partition, from);
      }
    }
    for (TopicPartition partition : partitions.keySet()) {
      since.put(partition, from);
    }
    Map<TopicPartition, Long> starts = new HashMap<>();
    if (!since.isEmpty()) {
      consumer.offsetsForTimes(since, REQUEST_TIMEOUT).forEach((partition, start) -> {
        if (start != null) {
          starts.put(partition, start.offset());
        }
      });
    }
    return starts;
  }

  /**
   * Reads again, to rebuild the windows, the records of an owned partition whose windows a
   * consumer now gone from the group had built, if any, and then goes on where it was.
   */
  private void rebuildWhatLeft(TopicPartition partition, PartitionProgress progress,
      Set<String> members, Map<TopicPartition, Long> replayFrom) {
    List<CommitMetadata.Custody> custody = progress.custody();
    boolean someoneLeft = custody.stream().anyMatch(run ->
        !run.holder().equals(clientId) && !members.contains(run.holder()));
    if (!someoneLeft) {
      return;
    }
    long resumeAt = progress.backlog().isEmpty() ? consumer.position(partition)
        : progress.backlog().peekFirst().offset();
    long end = Math.max(progress.readAgainBelow(), resumeAt);
    CustodyPlan plan = CustodyPlan.of(end, custody, replayFrom.getOrDefault(partition, end),
        members, clientId);
    if (plan.replayStart() >= 0) {
      progress.replan(plan, end);
      consumer.seek(partition, plan.replayStart());
      LOG.info("{}: windows rebuilt from {} to {}, their consumer gone", partition,
          plan.replayStart(), end);
    }
  }
}
