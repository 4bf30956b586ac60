package dev.spanprof.ingest.http;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.Transport;
import com.google.rpc.Code;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.config.ListenerLimits;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.util.ReferenceCountUtil;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Limits on each HTTP request's headers, in time and in size.
 *
 * <p>A deadline ({@code spanprof.ingest.read-header-timeout}): the read and idle timeouts start
 * again with every byte, so a client sending a header byte every few seconds would hold a
 * connection, and enough of them every connection the listener allows. The first request's
 * headers must be whole within the timeout of the connection's opening, a later one's within the
 * timeout of its first byte; else the connection is closed and counted in
 * spanprof_rejected_requests_total{reason="header_timeout"}.
 *
 * <p>Headers above {@code spanprof.ingest.max-header-size} get 431 (RFC 6585) with an OTLP
 * {@code Status} in JSON (the request's content type may be in what was cut), counted as
 * {@code too_large}; the HTTP codec marks such a request failed and Micronaut would answer 413.
 */
@Singleton
final class HttpHeaderLimits
    implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

  private static final String CODEC = ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC;

  private final long timeoutNanos;
  private final IngestListener listener;

  HttpHeaderLimits(ListenerLimits limits, IngestListener listener) {
    this.timeoutNanos = limits.getReadHeaderTimeout().toNanos();
    this.listener = listener;
  }

  @Override
  public NettyServerCustomizer.Registry onCreated(
      BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
    event.getBean().register(new NettyServerCustomizer() {
      @Override
      public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
        return role == ChannelRole.CONNECTION ? new Connection(channel) : this;
      }
    });
    return event.getBean();
  }

  private final class Connection implements NettyServerCustomizer {
    private final Channel channel;

    Connection(Channel channel) {
      this.channel = channel;
    }

    @Override
    public void onStreamPipelineBuilt() {
      ChannelPipeline pipeline = channel.pipeline();
      if (pipeline.get(CODEC) != null) {
        Deadline deadline = new Deadline();
        pipeline.addBefore(CODEC, "spanprof-header-deadline-bytes", deadline.bytes);
        pipeline.addAfter(CODEC, "spanprof-header-deadline-requests", deadline.requests);
        deadline.start(pipeline.context(deadline.bytes));
      }
    }
  }

  private void headersTooLarge(ChannelHandlerContext ctx) {
    listener.onRequestRejected(Transport.HTTP, RequestRejection.TOO_LARGE);
    byte[] body = ("{\"code\":" + Code.RESOURCE_EXHAUSTED_VALUE + ",\"message\":\"the request's "
        + "headers are larger than " + IngestConfiguration.PREFIX + ".max-header-size\"}")
        .getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
        HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    // Written from here, the head of what the codec sends on: the codec encodes it.
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * One connection's deadline, seen from both sides of the HTTP codec: bytes before it (the first
   * byte of a request starts the clock), decoded requests after it (whole headers stop it). Both
   * run on the connection's event loop, so the state needs no lock.
   */
  private final class Deadline {
    /** Between requests: the next byte read starts the clock. */
    private boolean idle;
    private ScheduledFuture<?> timer;

    final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (idle) {
          start(ctx);
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
      }
    };

    final ChannelInboundHandlerAdapter requests = new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
          stop();
          if (request.decoderResult().cause() instanceof TooLongHttpHeaderException) {
            ReferenceCountUtil.release(msg);
            headersTooLarge(ctx);
            return;
          }
        }
        if (msg instanceof LastHttpContent) {
          idle = true;
        }
        ctx.fireChannelRead(msg);
      }
    };

    void start(ChannelHandlerContext ctx) {
      idle = false;
      timer = ctx.executor().schedule(() -> {
        listener.onRequestRejected(Transport.HTTP, RequestRejection.HEADER_TIMEOUT);
        ctx.channel().close();
      }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    void stop() {
      idle = false;
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }
  }
}
