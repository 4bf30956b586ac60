package dev.spanprof.assembly;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code prefix} and a count from 1, for the pipeline's thread pools. */
public final class NamedDaemonThreads implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger next = new AtomicInteger();

  public NamedDaemonThreads(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread thread = new Thread(task, prefix + next.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }
}
