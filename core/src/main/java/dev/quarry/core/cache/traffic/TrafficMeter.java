package dev.quarry.core.cache.traffic;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Turns the kernel's per-device read counters into bytes read per image and layer over a sliding window. Each
 * sample adds the growth of every device's counter since the previous sample to its image's running totals; a
 * device seen for the first time only sets its baseline, and a counter that went backwards (a device reattached)
 * counts from zero.
 */
public final class TrafficMeter {
  private final long windowNanos;
  private final Map<DeviceUse, Long> lastCounters = new HashMap<>();
  private final Map<String, Totals> totals = new HashMap<>();

  public TrafficMeter(Duration window) {
    this.windowNanos = window.toNanos();
  }

  /** Records one sample taken at {@code nanoTime} of {@code uses}, given each device's bytes read since boot. */
  public synchronized void sample(long nanoTime, Set<DeviceUse> uses, Map<String, Long> bytesReadByDevice) {
    lastCounters.keySet().retainAll(uses);
    for (DeviceUse use : uses) {
      Long counter = bytesReadByDevice.get(use.device());
      if (counter == null) {
        continue;
      }
      Long previous = lastCounters.put(use, counter);
      long growth = previous == null ? 0 : counter >= previous ? counter - previous : counter;
      Totals image = totals.computeIfAbsent(use.image(), name -> new Totals());
      if (use.layer() == Layer.SOURCE) {
        image.source += growth;
      } else {
        image.local += growth;
      }
    }
    for (Totals image : totals.values()) {
      image.record(nanoTime, windowNanos);
    }
  }

  /** Bytes each image read in the window ending at the last sample. */
  public synchronized Map<String, ImageTraffic> window() {
    Map<String, ImageTraffic> result = new HashMap<>();
    totals.forEach((image, t) -> result.put(image, t.inWindow()));
    return result;
  }

  /** Bytes {@code image} read since the meter started, for counters that only grow (Prometheus). */
  public synchronized ImageTraffic lifetime(String image) {
    Totals t = totals.get(image);
    return t == null ? ImageTraffic.NONE : new ImageTraffic(t.source, t.local);
  }

  /** Forgets images no longer configured. */
  public synchronized void retainImages(Set<String> images) {
    totals.keySet().retainAll(images);
  }

  /** Running totals of one image and the samples that cover the window. */
  private static final class Totals {
    private long source;
    private long local;
    private final Deque<long[]> samples = new ArrayDeque<>(); // {nanoTime, source, local}

    void record(long now, long windowNanos) {
      samples.addLast(new long[] {now, source, local});
      // Keep the newest sample at or before the window's start as the base of the difference.
      while (samples.size() > 1 && secondTime() <= now - windowNanos) {
        samples.removeFirst();
      }
    }

    private long secondTime() {
      Iterator<long[]> it = samples.iterator();
      it.next();
      return it.next()[0];
    }

    ImageTraffic inWindow() {
      if (samples.isEmpty()) {
        return ImageTraffic.NONE;
      }
      long[] base = samples.getFirst();
      return new ImageTraffic(source - base[1], local - base[2]);
    }
  }
}
