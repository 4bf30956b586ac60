package dev.spanprof.otlp;

/**
 * Reads the protobuf wire format in place, over a window of one byte array: tags, varints, fixed
 * 64-bit values and length-delimited fields, each of the last only located (offset and length),
 * never copied. Ingest walks OTLP requests with it, so that a request becomes span records without
 * the message tree protobuf's parser would build and throw away; export reads a span's fields with
 * it when it repairs their strings.
 *
 * <p>Malformed input (a truncated field, a length past the end of its message, a varint of more
 * than ten bytes, a group or an unknown wire type) throws {@link InvalidOtlpException}, saying
 * where. Not thread-safe; cheap enough to make one per message.
 */
public final class WireReader {

  public static final int VARINT = 0;
  public static final int FIXED64 = 1;
  public static final int LENGTH_DELIMITED = 2;
  public static final int FIXED32 = 5;

  private final byte[] buffer;
  private final int limit;
  private int position;
  /** Where the last length-delimited field read by {@link #readLength()} starts. */
  private int fieldOffset;

  /** A reader of {@code buffer[offset, offset + length)}. */
  public WireReader(byte[] buffer, int offset, int length) {
    this.buffer = buffer;
    this.position = offset;
    this.limit = offset + length;
  }

  public boolean hasMore() {
    return position < limit;
  }

  /** The next tag: field number {@code tag >>> 3}, wire type {@code tag & 7}. */
  public int readTag() throws InvalidOtlpException {
    long tag = readVarint();
    if ((tag >>> 3) == 0 || tag > Integer.MAX_VALUE) {
      throw malformed("invalid tag " + tag);
    }
    return (int) tag;
  }

  public long readVarint() throws InvalidOtlpException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position >= limit) {
        throw malformed("truncated varint");
      }
      byte b = buffer[position++];
      value |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw malformed("varint longer than ten bytes");
  }

  public long readFixed64() throws InvalidOtlpException {
    if (limit - position < 8) {
      throw malformed("truncated fixed64");
    }
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = (value << 8) | (buffer[position + i] & 0xFF);
    }
    position += 8;
    return value;
  }

  /**
   * Reads a length-delimited field's length and steps over its content, which then lies at
   * {@link #fieldOffset()}.
   */
  public int readLength() throws InvalidOtlpException {
    long length = readVarint();
    if (length < 0 || length > limit - position) {
      throw malformed("truncated or misframed: a field of " + length
          + " bytes runs past the end of its message");
    }
    fieldOffset = position;
    position += (int) length;
    return (int) length;
  }

  public int fieldOffset() {
    return fieldOffset;
  }

  /** Where the next read starts. */
  public int position() {
    return position;
  }

  /** Steps over the value of a field with this tag. */
  public void skip(int tag) throws InvalidOtlpException {
    switch (tag & 7) {
      case VARINT -> readVarint();
      case FIXED64 -> skipBytes(8);
      case LENGTH_DELIMITED -> readLength();
      case FIXED32 -> skipBytes(4);
      default -> throw malformed("unsupported wire type " + (tag & 7) + " (field " + (tag >>> 3) + ")");
    }
  }

  private void skipBytes(int count) throws InvalidOtlpException {
    if (limit - position < count) {
      throw malformed("truncated field");
    }
    position += count;
  }

  private InvalidOtlpException malformed(String what) {
    return new InvalidOtlpException(what + " at byte " + position);
  }
}
