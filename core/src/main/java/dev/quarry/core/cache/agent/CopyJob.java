package dev.quarry.core.cache.agent;

import dev.quarry.core.cache.copy.CopyRecord;
import dev.quarry.core.cache.copy.SourceIdentity;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The copy into the cache running now (one per node at a time).
 *
 * @param resumedFrom bytes kept from an earlier attempt, -1 until the copy starts
 */
record CopyJob(
    String image, SourceIdentity source, AtomicLong copied, AtomicLong resumedFrom, long startNanos,
    Future<CopyRecord> result) {
  int percent() {
    long size = source.size();
    return size == 0 ? 100 : (int) Math.min(100, copied.get() * 100 / size);
  }
}
