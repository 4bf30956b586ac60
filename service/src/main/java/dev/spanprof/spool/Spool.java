package dev.spanprof.spool;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * What spanprof accepted, on disk until it is forwarded: a write-ahead log of requests. A request
 * is appended before the client is told it was taken, so that neither a restart nor {@code kill
 * -9} loses it; it is loaded into the pipeline at once when there is room, or stays pending on
 * disk while the pipeline is full (the next hop down longer than memory holds) and is loaded, in
 * order, as room frees up. Once every span of a request has been forwarded or given up, its
 * record is done; a segment whose records are all done is deleted. At start the records left
 * are pending: forwarded again at least once (spans forwarded before a crash are forwarded
 * twice).
 *
 * <p><b>Format.</b> Segment files {@code spool-<first record's number, 20 digits>.log} of at most
 * {@code segmentBytes} each (one record may make a segment larger). A record is its length (4
 * bytes), the CRC-32C of its payload (4 bytes), both little-endian, and the payload: an OTLP
 * {@code ExportTraceServiceRequest} in protobuf holding the accepted spans. Reading stops at the
 * first record cut short or whose checksum does not hold (a write a crash interrupted); the rest
 * of that segment is dropped, counted.
 *
 * <p><b>Durability.</b> A record is written to the file before the request is answered, so a
 * process that dies loses nothing; {@code fsync} runs every {@code fsyncInterval} (and on
 * rotation), so a machine that loses power loses at most that much. An interval of zero syncs
 * every record before it is answered. With each sync the file {@code spool.watermark} is
 * replaced by the number of the oldest record not done: a start skips the records below it, so
 * what it forwards again is what was not done at the last sync (or when spanprof last closed).
 */
public final class Spool implements AutoCloseable {

  private static final String PREFIX = "spool-";
  private static final String SUFFIX = ".log";
  private static final int HEADER_BYTES = 8;
  private static final String WATERMARK = "spool.watermark";

  private final Path directory;
  private final long maxBytes;
  private final long segmentBytes;
  private final boolean syncEachRecord;
  private final TreeMap<Long, Segment> segments = new TreeMap<>();
  /** Records not in the pipeline, by number: loaded oldest first. */
  private final TreeMap<Long, Record> pending = new TreeMap<>();
  /** Records not done, by number: the oldest is the watermark. */
  private final TreeMap<Long, Record> live = new TreeMap<>();
  private final Map<SpanResource, Record> byResource = new ConcurrentHashMap<>();
  private final CRC32C crc = new CRC32C();
  private Segment writing;
  private long nextRecord;
  private long bytes;
  private long pendingSpans;
  private long truncatedSegments;
  private long recoveredSpans;
  private boolean dirty;
  private long watermark;

  /**
   * Opens the spool in {@code directory}, creating it if need be; the records found there are
   * pending, oldest first. {@code spansOf} counts a recovered record's spans.
   */
  public Spool(Path directory, long maxBytes, long segmentBytes, boolean syncEachRecord,
      SpanCounter spansOf) throws IOException {
    this.directory = directory;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    this.syncEachRecord = syncEachRecord;
    Files.createDirectories(directory);
    recover(spansOf);
  }

  /** Counts the spans of a record's payload; -1 when it is not a request. */
  @FunctionalInterface
  public interface SpanCounter {
    int spans(byte[] payload);
  }

  /** One request on disk. */
  public static final class Record {
    final long number;
    final Segment segment;
    final long offset;
    final int length;
    final int spans;
    private final AtomicInteger unresolved = new AtomicInteger();
    private List<SpanResource> resources = List.of();

    Record(long number, Segment segment, long offset, int length, int spans) {
      this.number = number;
      this.segment = segment;
      this.offset = offset;
      this.length = length;
      this.spans = spans;
    }

    /** Its spans, as counted when written (or, found at start, as framed in the request). */
    public int spans() {
      return spans;
    }
  }

  /** A segment file and its records not yet done. */
  static final class Segment {
    final long first;
    final Path path;
    final FileChannel channel;
    long size;
    int live;
    boolean sealed;

    Segment(long first, Path path, FileChannel channel, long size) {
      this.first = first;
      this.path = path;
      this.channel = channel;
      this.size = size;
    }
  }

  /**
   * Writes a request of {@code spans} spans. The caller then either {@link #loaded loads} it or
   * leaves it {@link #unload pending}; until then no one else loads it. Null when the spool has
   * no room for it: the caller refuses the request.
   */
  public synchronized Record append(byte[] payload, int length, int spans) {
    if (bytes + HEADER_BYTES + length > maxBytes) {
      return null;
    }
    try {
      if (writing == null || writing.size >= segmentBytes) {
        rotate();
      }
      crc.reset();
      crc.update(payload, 0, length);
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN)
          .putInt(length).putInt((int) crc.getValue()).flip();
      ByteBuffer body = ByteBuffer.wrap(payload, 0, length);
      long offset = writing.size;
      while (header.hasRemaining() || body.hasRemaining()) {
        writing.channel.write(new ByteBuffer[] {header, body});
      }
      if (syncEachRecord) {
        writing.channel.force(false);
      } else {
        dirty = true;
      }
      writing.size += HEADER_BYTES + length;
      writing.live++;
      bytes += HEADER_BYTES + length;
      Record record = new Record(nextRecord++, writing, offset, length, spans);
      live.put(record.number, record);
      return record;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to the spool in " + directory, e);
    }
  }

  /**
   * {@code record}'s spans, as mapped from it, go into the pipeline now: the record is done once
   * each has been {@link #resolved} (forwarded or given up). None: done now.
   */
  public synchronized void loaded(Record record, List<SpanRecord> spans) {
    if (pending.remove(record.number) != null) {
      pendingSpans -= record.spans;
    }
    Set<SpanResource> resources = Collections.newSetFromMap(new IdentityHashMap<>());
    for (SpanRecord span : spans) {
      resources.add(span.resource());
    }
    record.resources = List.copyOf(resources);
    record.unresolved.set(spans.size());
    for (SpanResource resource : resources) {
      byResource.put(resource, record);
    }
    if (spans.isEmpty()) {
      done(record);
    }
  }

  /**
   * {@code record}'s spans were not taken (or not offered): it waits on disk, in its place among
   * the pending records, to be loaded from there.
   */
  public synchronized void unload(Record record) {
    for (SpanResource resource : record.resources) {
      byResource.remove(resource, record);
    }
    record.resources = List.of();
    if (pending.put(record.number, record) == null) {
      pendingSpans += record.spans;
    }
    notifyAll();
  }

  /** Whether a record older than {@code record} waits to be loaded: then it waits too. */
  public synchronized boolean hasPendingBefore(Record record) {
    return !pending.isEmpty() && pending.firstKey() < record.number;
  }

  /** The oldest record waiting to be loaded, waiting up to {@code timeoutMillis}; else null. */
  public synchronized Record nextPending(long timeoutMillis) throws InterruptedException {
    if (pending.isEmpty() && timeoutMillis > 0) {
      wait(timeoutMillis);
    }
    return pending.isEmpty() ? null : pending.firstEntry().getValue();
  }

  /** A pending record's payload, read back from its segment. */
  public byte[] read(Record record) throws IOException {
    ByteBuffer payload = ByteBuffer.allocate(record.length);
    long at = record.offset + HEADER_BYTES;
    while (payload.hasRemaining()) {
      int read = record.segment.channel.read(payload, at + payload.position());
      if (read < 0) {
        throw new IOException("spool segment " + record.segment.path + " ends inside a record");
      }
    }
    return payload.array();
  }

  /**
   * {@code spans} spans of {@code resource}'s block were forwarded or given up; when that is all
   * of its record's, the record is done. Spans of blocks the spool does not hold are ignored.
   */
  public void resolved(SpanResource resource, int spans) {
    Record record = byResource.get(resource);
    if (record != null && record.unresolved.addAndGet(-spans) == 0) {
      synchronized (this) {
        done(record);
      }
    }
  }

  /**
   * Resolves the span of each of {@code holders}, by the resource block it came in: one lookup
   * per run of spans of one block, as a forwarded batch groups them.
   */
  public <T> void resolved(List<T> holders, Function<T, SpanResource> resourceOf) {
    SpanResource run = null;
    int count = 0;
    for (T holder : holders) {
      SpanResource resource = resourceOf.apply(holder);
      if (resource != run) {
        if (count > 0) {
          resolved(run, count);
        }
        run = resource;
        count = 0;
      }
      count++;
    }
    if (count > 0) {
      resolved(run, count);
    }
  }

  /**
   * Writes what was appended to the disk itself, and the watermark: the oldest record not done,
   * below which a start skips the records. The service calls it every fsync interval.
   */
  public synchronized void sync() {
    try {
      if (dirty && writing != null) {
        writing.channel.force(false);
        dirty = false;
      }
      long oldest = live.isEmpty() ? nextRecord : live.firstKey();
      if (oldest != watermark) {
        Path written = directory.resolve(WATERMARK + ".new");
        Files.write(written, Long.toString(oldest).getBytes(StandardCharsets.US_ASCII));
        Files.move(written, directory.resolve(WATERMARK), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        watermark = oldest;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync the spool in " + directory, e);
    }
  }

  /** Spans written and not yet loaded into the pipeline. */
  public synchronized long pendingSpans() {
    return pendingSpans;
  }

  /** Bytes of the segments on disk. */
  public synchronized long bytes() {
    return bytes;
  }

  /** Segments whose tail was found cut short or corrupt at start, and dropped. */
  public long truncatedSegments() {
    return truncatedSegments;
  }

  /** Spans of the records found at start, to be forwarded again. */
  public long recoveredSpans() {
    return recoveredSpans;
  }

  @Override
  public synchronized void close() throws IOException {
    sync();
    for (Segment segment : segments.values()) {
      segment.channel.close();
    }
  }

  private void done(Record record) {
    live.remove(record.number);
    for (SpanResource resource : record.resources) {
      byResource.remove(resource, record);
    }
    Segment segment = record.segment;
    segment.live--;
    deleteIfDone(segment);
  }

  private void deleteIfDone(Segment segment) {
    if (!segment.sealed || segment.live > 0) {
      return;
    }
    try {
      segment.channel.close();
      Files.deleteIfExists(segment.path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the spool segment " + segment.path, e);
    }
    segments.remove(segment.first);
    bytes -= segment.size;
  }

  private void rotate() throws IOException {
    if (writing != null) {
      writing.channel.force(false);
      dirty = false;
      writing.sealed = true;
      deleteIfDone(writing);
    }
    Path path = directory.resolve(String.format("%s%020d%s", PREFIX, nextRecord, SUFFIX));
    writing = new Segment(nextRecord, path, FileChannel.open(path, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.READ, StandardOpenOption.WRITE), 0);
    segments.put(writing.first, writing);
  }

  /** Reads the segments left by an earlier run: their records are pending, and sealed. */
  private void recover(SpanCounter spansOf) throws IOException {
    Path watermarkFile = directory.resolve(WATERMARK);
    if (Files.exists(watermarkFile)) {
      watermark = Long.parseLong(
          Files.readString(watermarkFile, StandardCharsets.US_ASCII).trim());
    }
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*" + SUFFIX)) {
      files.forEach(found::add);
    }
    found.sort(null);
    for (Path path : found) {
      long first = Long.parseLong(path.getFileName().toString()
          .substring(PREFIX.length(), path.getFileName().toString().length() - SUFFIX.length()));
      FileChannel channel = FileChannel.open(path, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      Segment segment = new Segment(first, path, channel, 0);
      segment.sealed = true;
      segments.put(first, segment);
      long end = channel.size();
      long at = 0;
      long number = first;
      while (at + HEADER_BYTES <= end) {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        channel.read(header, at);
        int length = header.getInt(0);
        if (length < 0 || at + HEADER_BYTES + length > end) {
          break;
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        channel.read(payload, at + HEADER_BYTES);
        crc.reset();
        crc.update(payload.array());
        int spans = (int) crc.getValue() == header.getInt(4) ? spansOf.spans(payload.array()) : -1;
        if (spans < 0) {
          break;
        }
        if (number >= watermark) {
          Record record = new Record(number, segment, at, length, spans);
          pending.put(number, record);
          live.put(number, record);
          pendingSpans += spans;
          recoveredSpans += spans;
          segment.live++;
        }
        at += HEADER_BYTES + length;
        number++;
      }
      if (at < end) {
        truncatedSegments++;
        channel.truncate(at);
      }
      segment.size = at;
      bytes += at;
      nextRecord = Math.max(nextRecord, number);
      deleteIfDone(segment);
    }
    nextRecord = Math.max(nextRecord, watermark);
  }
}
