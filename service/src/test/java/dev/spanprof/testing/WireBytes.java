package dev.spanprof.testing;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Protobuf fields written one by one, for encodings protobuf's own encoder never produces: fields
 * out of order, unknown fields, frames whose content is not what their field holds.
 */
public final class WireBytes {

  private WireBytes() {}

  /** A length-delimited field holding {@code parts} one after the other. */
  public static byte[] field(int fieldNumber, byte[]... parts) {
    byte[] content = concat(parts);
    return write(out -> out.writeByteArray(fieldNumber, content));
  }

  public static byte[] varintField(int fieldNumber, long value) {
    return write(out -> out.writeUInt64(fieldNumber, value));
  }

  public static byte[] fixed32Field(int fieldNumber, int value) {
    return write(out -> out.writeFixed32(fieldNumber, value));
  }

  public static byte[] fixed64Field(int fieldNumber, long value) {
    return write(out -> out.writeFixed64(fieldNumber, value));
  }

  public static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      bytes.writeBytes(part);
    }
    return bytes.toByteArray();
  }

  private static byte[] write(Field field) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      field.writeTo(out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory", e);
    }
    return bytes.toByteArray();
  }

  @FunctionalInterface
  private interface Field {
    void writeTo(CodedOutputStream out) throws IOException;
  }
}
