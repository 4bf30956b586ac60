package dev.spanprof.ingest.grpc;

import dev.spanprof.ingest.IngestListener.RequestRejection;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * The OTLP/gRPC endpoint's marshaller: reads each request body into an array used again once the
 * request is mapped ({@link ReceivedBody#release}). A fresh array per request was the largest
 * allocation per span left in the service, about 450 bytes a span for every request, accepted or
 * refused; the mapper copies out what it keeps, so nothing refers to the array afterwards.
 *
 * <p>At most {@link #POOLED_ARRAYS} arrays of at most {@link #MAX_POOLED_BYTES} each are kept
 * (32 MiB at worst, about 2 MiB for SDK-sized requests of 512 spans). Larger bodies get an array of
 * their own, as do requests whose call ends before they are mapped: their array is simply not
 * given back.
 */
final class RequestBodies implements MethodDescriptor.Marshaller<ReceivedBody> {

  static final int POOLED_ARRAYS = 8;
  static final int MAX_POOLED_BYTES = 4 << 20;
  /** The first array for a body of unknown length (a compressed request). */
  private static final int MIN_BYTES = 64 << 10;

  private final ArrayBlockingQueue<byte[]> free = new ArrayBlockingQueue<>(POOLED_ARRAYS);

  /** OTLP's trace {@code Export} method, the request read into a reused array. */
  MethodDescriptor<ReceivedBody, ExportTraceServiceResponse> traceExport() {
    return TraceServiceGrpc.getExportMethod().toBuilder(this,
            ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
        .build();
  }

  @Override
  public InputStream stream(ReceivedBody body) {
    throw new UnsupportedOperationException("the OTLP endpoint only receives export requests");
  }

  /**
   * The body, read to its end. gRPC's stream of an uncompressed message knows its length, so the
   * array fits at once; otherwise it doubles as needed.
   *
   * <p>A compressed message is decompressed as it is read here, on the call's thread, and gRPC
   * enforces the size limit on what it expands to while it is read. Thrown out of this method,
   * that limit's RESOURCE_EXHAUSTED, or a decompressor's error, would end the call as UNKNOWN
   * ("Application error processing RPC"), uncounted; so the body is returned refused instead.
   */
  @Override
  public ReceivedBody parse(InputStream stream) {
    byte[] buffer = null;
    try (stream) {
      int knownBytes = stream instanceof KnownLength ? stream.available() : 0;
      buffer = take(Math.max(knownBytes, 1));
      int length = 0;
      while (true) {
        int read = stream.read(buffer, length, buffer.length - length);
        if (read < 0) {
          return new ReceivedBody(this, buffer, length);
        }
        length += read;
        if (length == buffer.length) {
          int next = stream.read();
          if (next < 0) {
            return new ReceivedBody(this, buffer, length);
          }
          byte[] larger = take(Math.max(2 * buffer.length, MIN_BYTES));
          System.arraycopy(buffer, 0, larger, 0, length);
          give(buffer);
          buffer = larger;
          buffer[length++] = (byte) next;
        }
      }
    } catch (StatusRuntimeException e) {
      give(buffer);
      Status status = e.getStatus();
      return ReceivedBody.refused(status.getCode() == Status.Code.RESOURCE_EXHAUSTED
              ? RequestRejection.TOO_LARGE : RequestRejection.MALFORMED,
          Objects.toString(status.getDescription(), status.getCode().toString()));
    } catch (IOException e) {
      give(buffer);
      return ReceivedBody.refused(RequestRejection.MALFORMED,
          "the request's compressed bytes do not decompress: " + e.getMessage());
    }
  }

  /** An array of at least {@code bytes}: a kept one if it is large enough, else a new one. */
  byte[] take(int bytes) {
    byte[] kept = free.poll();
    if (kept != null && kept.length >= bytes) {
      return kept;
    }
    // A kept array too small is left to the collector; a new one is rounded up to a power of
    // two, so that requests of slightly different sizes can share it.
    if (bytes > MAX_POOLED_BYTES) {
      return new byte[bytes];
    }
    return new byte[Math.max(Integer.highestOneBit(bytes - 1) << 1, 1)];
  }

  void give(byte[] buffer) {
    if (buffer != null && buffer.length <= MAX_POOLED_BYTES) {
      free.offer(buffer);
    }
  }
}
