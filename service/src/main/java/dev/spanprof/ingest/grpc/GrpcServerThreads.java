package dev.spanprof.ingest.grpc;

import dev.spanprof.assembly.NamedDaemonThreads;
import dev.spanprof.config.IngestConfiguration;
import io.grpc.ServerBuilder;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs the gRPC server's calls (OTLP export, {@code spanprof.v1.ProfileService}, health) on a fixed
 * pool of {@code spanprof.ingest.grpc-threads} threads, by default one per available processor,
 * rather than on Micronaut's I/O executor, a cached pool.
 *
 * <p>The cached pool hands each call's events from the event loop to a thread through a
 * {@code SynchronousQueue}, waking a parked thread for each, and grows a thread for each call that
 * finds none idle, each warming its own decode caches. Flat out on two cores these threads cost
 * 12 % less per span than the cached pool's, and the event loop 11 % less, each against the next
 * hop's CPU in the same run; overloaded on one core, where the cached pool can run a request walk
 * for each of sixteen streams at once, spanprof took 50 to 63 % more spans
 * ({@code bench/cpu-split.sh}, {@code bench/overload.sh}). A fixed pool also bounds the
 * threads, and what their caches hold, by configuration. Its queue is not bounded: gRPC must not
 * have a call's event refused. A call waiting in it holds what its client has sent, within
 * {@code spanprof.ingest.max-message-size}, as a call on a pooled thread did.
 */
@Singleton
final class GrpcServerThreads implements BeanCreatedEventListener<ServerBuilder<?>> {

  private final ThreadPoolExecutor executor;

  GrpcServerThreads(IngestConfiguration configuration) {
    int threads = configuration.effectiveGrpcThreads();
    this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(), new NamedDaemonThreads("spanprof-grpc-"));
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    return event.getBean().executor(executor);
  }

  /** Lets the calls already queued finish, then ends the threads: a closed context leaves none. */
  @PreDestroy
  void shutdown() {
    executor.shutdown();
  }
}
