package dev.spanprof.span;

import dev.spanprof.span.store.Slab;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One span as spanprof holds it: primitive ids and nanos, interned names, shared resource and
 * scope, and the span's original encoded bytes for forwarding.
 *
 * <p>Times are kept as received (Unix epoch nanoseconds). A span whose end is before its start is
 * kept unchanged and reported by {@link #endsBeforeStart()}; {@link #effectiveEndNanos()} treats
 * it as zero-length at its start, as semantics.md §1 requires. Nothing is ever dropped for it.
 *
 * <p>A span's own attributes may be decoded from its encoding only when first asked for (an
 * {@link AttributeDecoder}): a span waiting in the buffer for its trace then holds little more
 * than its encoded bytes, and spans nobody looks into are never decoded. A builder given a
 * {@link SpanMapping.Mapper} decodes them once to map the span, and keeps only the outcome.
 *
 * <p>Instances are immutable (the decoded attributes are a cache of what the encoding holds);
 * build them with a reusable {@link Builder}.
 */
public final class SpanRecord {

  private final long traceIdHigh;
  private final long traceIdLow;
  private final long spanId;
  private final long parentSpanId;
  private final String name;
  private final SpanKind kind;
  private final SpanStatus status;
  /** The status message of an ERROR span ({@code ""} for none, and for other spans). */
  private final String statusMessage;
  private final long startNanos;
  private final long endNanos;
  /**
   * The span's own attributes once known. Not volatile: {@link Attributes} is immutable with final
   * fields, so a thread that sees the reference sees the whole object; one that does not yet
   * decodes the same attributes again.
   */
  private Attributes attributes;
  private final AttributeDecoder attributeDecoder;
  private final SpanResource resource;
  private final SpanScope scope;
  /** The span's encoding is {@code encoded[encodedOffset, encodedOffset + encodedLength)}. */
  private final byte[] encoded;
  private final int encodedOffset;
  private final int encodedLength;
  /** The slab {@code encoded} belongs to, or null when the span has an array of its own. */
  private final Slab slab;
  /** What the builder's mapper made of the span; null when it had none. */
  private final MappedSpan mapped;
  /** Set by ingest before the span is buffered, read after (the buffer's locks order both). */
  private SpanOrigin origin = SpanOrigin.NONE;

  private SpanRecord(Builder builder) {
    this.traceIdHigh = builder.traceIdHigh;
    this.traceIdLow = builder.traceIdLow;
    this.spanId = builder.spanId;
    this.parentSpanId = builder.parentSpanId;
    this.name = Objects.requireNonNull(builder.name, "name");
    this.kind = Objects.requireNonNull(builder.kind, "kind");
    this.status = Objects.requireNonNull(builder.status, "status");
    this.statusMessage = Objects.requireNonNull(builder.statusMessage, "statusMessage");
    this.startNanos = builder.startNanos;
    this.endNanos = builder.endNanos;
    this.attributes = builder.attributes;
    this.attributeDecoder = builder.attributeDecoder;
    this.resource = Objects.requireNonNull(builder.resource, "resource");
    this.scope = Objects.requireNonNull(builder.scope, "scope");
    this.encoded = Objects.requireNonNull(builder.encoded, "encoded");
    this.encodedOffset = builder.encodedOffset;
    this.encodedLength = builder.encodedLength;
    this.slab = builder.slab;
    // Last, once every other field is set: the mapper reads the span. It reads the attributes
    // the builder was handed, or decodes them here, where the span's bytes were just written;
    // either way they are not kept, so that a span waiting for its trace holds no more than
    // before (BENCHMARKS.md, heap per buffered span).
    this.mapped = builder.mapper == null ? null : builder.mapper.mapped(this,
        attributes != null ? attributes
            : builder.attributesToMap != null ? builder.attributesToMap
            : attributeDecoder.decode(encoded, encodedOffset, encodedLength));
  }

  public static Builder builder() {
    return new Builder();
  }

  public long traceIdHigh() {
    return traceIdHigh;
  }

  public long traceIdLow() {
    return traceIdLow;
  }

  public TraceId traceId() {
    return new TraceId(traceIdHigh, traceIdLow);
  }

  public long spanId() {
    return spanId;
  }

  /** The parent's span id, or 0 for a span that names no parent. */
  public long parentSpanId() {
    return parentSpanId;
  }

  public String name() {
    return name;
  }

  /** The resource's {@code service.name}: with {@link #name()}, the span's operation. */
  public String serviceName() {
    return resource.serviceName();
  }

  public SpanKind kind() {
    return kind;
  }

  public SpanStatus status() {
    return status;
  }

  /** The status message of an ERROR span; {@code ""} without one, and for any other status. */
  public String statusMessage() {
    return statusMessage;
  }

  public long startNanos() {
    return startNanos;
  }

  /** The end as received; may be before the start (see {@link #effectiveEndNanos()}). */
  public long endNanos() {
    return endNanos;
  }

  public boolean endsBeforeStart() {
    return endNanos < startNanos;
  }

  /** The end used for analysis: the start when the span ends before it starts. */
  public long effectiveEndNanos() {
    return Math.max(startNanos, endNanos);
  }

  public long durationNanos() {
    return effectiveEndNanos() - startNanos;
  }

  /** The span's own attributes; see {@link #attribute(String)} for the lookup semantics.md uses. */
  public Attributes attributes() {
    Attributes known = attributes;
    if (known == null) {
      known = attributeDecoder.decode(encoded, encodedOffset, encodedLength);
      attributes = known;
    }
    return known;
  }

  /** What {@code mapping} makes of this span, when its builder's mapper was that mapping's. */
  public MappedSpan mappedBy(SpanMapping mapping) {
    MappedSpan known = mapped;
    return known != null && known.mapping() == mapping ? known : null;
  }

  /**
   * Whether the span may have an attribute whose key starts with {@code spanprof.}: false when
   * its mapping at ingest saw none, so a lookup of such a key need not decode its attributes.
   */
  public boolean mayNameSpanprofKeys() {
    return mapped == null || mapped.namesSpanprofKeys();
  }

  /** Decodes a span's own attributes from its encoding, {@code buffer[offset, offset + length)}. */
  @FunctionalInterface
  public interface AttributeDecoder {
    Attributes decode(byte[] buffer, int offset, int length);
  }

  /** The span's attribute {@code key}, else its resource's, else null (semantics.md §1). */
  public Object attribute(String key) {
    Object own = attributes().get(key);
    return own != null ? own : resource.attributes().get(key);
  }

  public SpanResource resource() {
    return resource;
  }

  public SpanScope scope() {
    return scope;
  }

  /**
   * The array holding the original encoded OTLP {@code Span} message, from {@link
   * #encodedOffset()} for {@link #encodedLength()} bytes; other spans' bytes may share it. Callers
   * must not modify it, nor read it once they released their hold ({@link Slab}).
   */
  public byte[] encodedArray() {
    return encoded;
  }

  public int encodedOffset() {
    return encodedOffset;
  }

  public int encodedLength() {
    return encodedLength;
  }

  /** A copy of the original encoded OTLP {@code Span} message. */
  public byte[] copyOfEncoded() {
    return Arrays.copyOfRange(encoded, encodedOffset, encodedOffset + encodedLength);
  }

  /** Releases one hold on the bytes of each of {@code spans}: their holder is done with them. */
  public static void releaseBytes(List<SpanRecord> spans) {
    Slab.release(spans, SpanRecord::slab);
  }

  /** The slab holding the span's bytes, or null when they are in an array of their own. */
  public Slab slab() {
    return slab;
  }

  /** Where the span was read from; {@link SpanOrigin#NONE} for a span from a request. */
  public SpanOrigin origin() {
    return origin;
  }

  /** Set before the span is buffered, once. */
  public void origin(SpanOrigin origin) {
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  @Override
  public String toString() {
    return "SpanRecord{trace=" + Ids.toHex(traceIdHigh) + Ids.toHex(traceIdLow)
        + ", span=" + Ids.toHex(spanId)
        + ", parent=" + Ids.toHex(parentSpanId)
        + ", service=" + serviceName()
        + ", name=" + name
        + ", kind=" + kind
        + ", start=" + startNanos
        + ", end=" + endNanos + '}';
  }

  /**
   * Builds span records. One builder can build many records: {@link #build()} copies the current
   * values, and every setter overwrites its field.
   */
  public static final class Builder {
    private long traceIdHigh;
    private long traceIdLow;
    private long spanId;
    private long parentSpanId;
    private String name = "";
    private SpanKind kind = SpanKind.UNSPECIFIED;
    private SpanStatus status = SpanStatus.UNSET;
    private String statusMessage = "";
    private long startNanos;
    private long endNanos;
    private Attributes attributes = Attributes.empty();
    private AttributeDecoder attributeDecoder;
    private Attributes attributesToMap;
    private SpanResource resource;
    private SpanScope scope;
    private byte[] encoded = new byte[0];
    private int encodedOffset;
    private int encodedLength;
    private Slab slab;
    private SpanMapping.Mapper mapper;

    private Builder() {}

    public Builder setTraceId(long high, long low) {
      this.traceIdHigh = high;
      this.traceIdLow = low;
      return this;
    }

    public Builder setSpanId(long spanId) {
      this.spanId = spanId;
      return this;
    }

    public Builder setParentSpanId(long parentSpanId) {
      this.parentSpanId = parentSpanId;
      return this;
    }

    public Builder setName(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder setKind(SpanKind kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    public Builder setStatusMessage(String statusMessage) {
      this.statusMessage = Objects.requireNonNull(statusMessage, "statusMessage");
      return this;
    }

    public Builder setStatus(SpanStatus status) {
      this.status = Objects.requireNonNull(status, "status");
      return this;
    }

    public Builder setStartNanos(long startNanos) {
      this.startNanos = startNanos;
      return this;
    }

    public Builder setEndNanos(long endNanos) {
      this.endNanos = endNanos;
      return this;
    }

    public Builder setAttributes(Attributes attributes) {
      this.attributes = Objects.requireNonNull(attributes, "attributes");
      this.attributeDecoder = null;
      this.attributesToMap = null;
      return this;
    }

    /** The attributes will be decoded from the encoded span when first asked for. */
    public Builder setAttributes(AttributeDecoder decoder) {
      this.attributeDecoder = Objects.requireNonNull(decoder, "decoder");
      this.attributes = null;
      this.attributesToMap = null;
      return this;
    }

    /**
     * As {@link #setAttributes(AttributeDecoder)}; {@code decoded} are the same attributes, read
     * from wherever the caller has them at hand, for the mapper only: not kept, and valid only
     * until {@link #build}.
     */
    public Builder setAttributes(AttributeDecoder decoder, Attributes decoded) {
      setAttributes(decoder);
      this.attributesToMap = Objects.requireNonNull(decoded, "decoded");
      return this;
    }

    public Builder setResource(SpanResource resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
      return this;
    }

    public Builder setScope(SpanScope scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
      return this;
    }

    /** The span's encoding, in an array of its own. */
    public Builder setEncoded(byte[] encoded) {
      this.encoded = Objects.requireNonNull(encoded, "encoded");
      this.encodedOffset = 0;
      this.encodedLength = encoded.length;
      this.slab = null;
      return this;
    }

    /** The span's encoding, placed in {@code slab} at {@code offset}; the span has a hold on it. */
    public Builder setEncoded(Slab slab, int offset, int length) {
      this.slab = Objects.requireNonNull(slab, "slab");
      this.encoded = slab.bytes();
      this.encodedOffset = offset;
      this.encodedLength = length;
      return this;
    }

    /**
     * Each record built is mapped by {@code mapper} as it is built (null: not mapped), so that the
     * analysis need not look into its attributes again.
     */
    public Builder setMapper(SpanMapping.Mapper mapper) {
      this.mapper = mapper;
      return this;
    }

    public SpanRecord build() {
      return new SpanRecord(this);
    }
  }
}
