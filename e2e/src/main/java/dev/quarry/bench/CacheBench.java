package dev.quarry.bench;

import dev.quarry.core.cache.agent.AgentSettings;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.CacheCapacity;
import dev.quarry.core.cache.agent.CopySlots;
import dev.quarry.core.cache.agent.ImageSpec;
import dev.quarry.core.cache.agent.NodeRoots;
import dev.quarry.core.cache.agent.ImageState;
import dev.quarry.core.cache.agent.NodeReport;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.cache.plan.CacheCandidate;
import dev.quarry.core.cache.plan.CachePlan;
import dev.quarry.core.cache.plan.CachePlanner;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The NodeCache benchmark: cold read throughput from an image's source mount and from its cached copy, against
 * {@code cat} of the image file; time from an image turning hot to being served locally, against {@code cp} of the
 * same file; the live switch under 8 readers; and the planner's decision time for 10k images.
 * Usage: CacheBench WORK_DIR IMAGE_MIB
 */
public final class CacheBench {
  private static final long MIB = 1 << 20;

  private CacheBench() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    int imageMib = Integer.parseInt(args[1]);
    Path mountRoot = Files.createDirectories(work.resolve("mnt"));
    Path cacheDir = Files.createDirectories(work.resolve("cache"));
    Path image = buildImage(work, imageMib);
    List<String> rows = new ArrayList<>();
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults());
        CacheAgent agent = new CacheAgent(stores::locate, CopySlots.unlimited(), Clock.systemUTC(), Duration.ofMinutes(5))) {
      AgentSettings cold = settings(mountRoot, cacheDir, image, false, "100Gi");
      agent.pass(cold);
      Path mounted = mountRoot.resolve("bench");

      double catSeconds = timeRead(() -> Files.newInputStream(image));
      double sourceSeconds = timeRead(() -> concatenated(mounted));
      rows.add(row("read, cat of the image file (baseline)", imageMib, catSeconds, 1));
      rows.add(row("read through the source mount", imageMib, sourceSeconds, catSeconds / sourceSeconds));

      // The image turns hot when it is read (the reads above): the time measured is traffic seen, decision, copy,
      // verification and switch, with a pass every second or as soon as the copy ends.
      long hotAt = System.nanoTime();
      NodeReport report = agent.pass(cold);
      while (report.images().get(0).state() != ImageState.CACHED) {
        agent.awaitWork(Duration.ofSeconds(1));
        report = agent.pass(cold);
      }
      double hotToLocal = (System.nanoTime() - hotAt) / 1e9;
      double cpSeconds = timeCommand("cp", image.toString(), work.resolve("cp-copy.sqfs").toString());
      Files.delete(work.resolve("cp-copy.sqfs"));
      rows.add(row("copy, cp of the image file (baseline)", imageMib, cpSeconds, 1));
      double cpVerifySeconds = timeCommand("sh", "-c", "cp " + image + " " + work.resolve("cp-copy.sqfs")
          + " && sha256sum " + work.resolve("cp-copy.sqfs") + " >/dev/null && sync -f " + work.resolve("cp-copy.sqfs"));
      Files.delete(work.resolve("cp-copy.sqfs"));
      rows.add(row("copy, cp + sha256sum + sync (baseline)", imageMib, cpVerifySeconds, 1));
      rows.add(row("hot to served locally (decide, copy, verify, switch)", imageMib, hotToLocal,
          cpVerifySeconds / hotToLocal));
      System.out.println("copy: " + report.decisions().stream().filter(d -> d.action().equals("Copied"))
          .map(d -> d.reason()).findFirst().orElse("?"));
      double localSeconds = timeRead(() -> concatenated(mounted));
      rows.add(row("read through the cached copy", imageMib, localSeconds, catSeconds / localSeconds));

      // Evict, then switch again while 8 readers read every file in a loop.
      agent.pass(settings(mountRoot, cacheDir, image, false, "1Mi"));
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      AtomicLong errors = new AtomicLong();
      List<Thread> readers = startReaders(mounted, 8, stop, reads, errors);
      long switchAt = System.nanoTime();
      AgentSettings pinned = settings(mountRoot, cacheDir, image, true, "100Gi");
      report = agent.pass(pinned);
      while (report.images().get(0).state() != ImageState.CACHED) {
        agent.awaitWork(Duration.ofSeconds(1));
        report = agent.pass(pinned);
      }
      double switchSeconds = (System.nanoTime() - switchAt) / 1e9;
      long readsAtSwitch = reads.get();
      Thread.sleep(1000);
      stop.set(true);
      for (Thread reader : readers) {
        reader.join();
      }
      System.out.printf(Locale.ROOT, "%n%-58s %9s %9s %10s %8s%n", "step", "MiB", "seconds", "MiB/s", "ratio");
      rows.forEach(System.out::println);
      System.out.printf(Locale.ROOT, "%nlive switch under 8 readers: copied and switched in %.2f s; %d file reads"
          + " (%d after the switch), %d errors%n", switchSeconds, reads.get(), reads.get() - readsAtSwitch,
          errors.get());
    } finally {
      CacheAgent.removeOwned(roots(mountRoot, cacheDir, image), cacheDir, "bench");
    }
    decisionTimes();
  }

  private static AgentSettings settings(Path mountRoot, Path cacheDir, Path image, boolean pinned, String capacity) {
    return new AgentSettings("bench", "bench-uid", List.of(new ImageSpec("bench", image.toString(), null, pinned, 0)), mountRoot,
        cacheDir, roots(mountRoot, cacheDir, image), CacheCapacity.parse(capacity), Duration.ofMinutes(10), 10, 0);
  }

  private static NodeRoots roots(Path mountRoot, Path cacheDir, Path image) {
    return NodeRoots.of(List.of(mountRoot), List.of(cacheDir), List.of(image.getParent()));
  }

  private static Path buildImage(Path work, int imageMib) throws IOException {
    Path folder = Files.createDirectories(work.resolve("content"));
    SplittableRandom random = new SplittableRandom(42);
    byte[] data = new byte[(int) (4 * MIB)];
    for (int i = 0; i < imageMib / 4; i++) {
      random.nextBytes(data);
      Files.write(folder.resolve(String.format(Locale.ROOT, "shard-%05d.bin", i)), data);
    }
    ImageBuilder.BuiltImage built = ImageBuilder.build(folder, work.resolve("bench.sqfs"),
        ImageBuilder.Compression.NONE, 2);
    System.out.printf(Locale.ROOT, "image: %s, %d files of 4 MiB%n", ByteSize.format(built.sizeBytes()), imageMib / 4);
    return built.image();
  }

  private interface Opener {
    InputStream open() throws IOException;
  }

  /** Seconds to read everything {@code opener} gives, after dropping the page cache so that disks are read. */
  private static double timeRead(Opener opener) throws IOException {
    Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
    long start = System.nanoTime();
    byte[] buffer = new byte[(int) MIB];
    try (InputStream in = opener.open()) {
      while (in.read(buffer) >= 0) {
        // Only the time matters.
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static InputStream concatenated(Path folder) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(folder)) {
      files = list.sorted().toList();
    }
    List<InputStream> streams = new ArrayList<>();
    for (Path file : files) {
      streams.add(Files.newInputStream(file));
    }
    return new java.io.SequenceInputStream(java.util.Collections.enumeration(streams));
  }

  private static double timeCommand(String... command) throws IOException, InterruptedException {
    Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
    long start = System.nanoTime();
    int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
    if (exit != 0) {
      throw new IOException(String.join(" ", command) + " exited with " + exit);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static List<Thread> startReaders(Path mounted, int count, AtomicBoolean stop, AtomicLong reads,
      AtomicLong errors) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(mounted)) {
      files = list.sorted().toList();
    }
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      int first = r;
      readers.add(Thread.ofPlatform().start(() -> {
        byte[] buffer = new byte[(int) MIB];
        int i = first;
        while (!stop.get()) {
          try (InputStream in = Files.newInputStream(files.get(i++ % files.size()))) {
            while (in.read(buffer) >= 0) {
              // Reading is the point.
            }
            reads.incrementAndGet();
          } catch (IOException e) {
            errors.incrementAndGet();
          }
        }
      }));
    }
    return readers;
  }

  private static String row(String step, long mib, double seconds, double ratio) {
    return String.format(Locale.ROOT, "%-58s %9d %9.2f %10.0f %7.2fx", step, mib, seconds, mib / seconds, ratio);
  }

  /** The planner on 10k images of three traffic shapes; median of 21 runs after warm-up. */
  private static void decisionTimes() {
    System.out.printf(Locale.ROOT, "%n%-45s %8s %10s %10s %s%n", "decision for 10,000 images", "median", "p95",
        "chosen", "optimal");
    for (String shape : List.of("uniform traffic", "zipf traffic (few hot images)", "each image read once")) {
      List<CacheCandidate> candidates = candidates(shape, 10_000);
      long capacity = candidates.stream().mapToLong(CacheCandidate::sizeBytes).sum() / 5;
      CachePlanner planner = new CachePlanner(10);
      for (int i = 0; i < 10; i++) {
        planner.plan(candidates, capacity);
      }
      long[] nanos = new long[21];
      CachePlan plan = null;
      for (int i = 0; i < nanos.length; i++) {
        plan = planner.plan(candidates, capacity);
        nanos[i] = plan.nanos();
      }
      Arrays.sort(nanos);
      long chosen = plan.choices().stream().filter(c -> c.local()).count();
      System.out.printf(Locale.ROOT, "%-45s %6.1fms %8.1fms %10d %s%n", shape, nanos[10] / 1e6, nanos[19] / 1e6,
          chosen, plan.exact() ? "proven" : String.format(Locale.ROOT, "within %.5f%%", plan.maxShortfall() * 100));
    }
  }

  private static List<CacheCandidate> candidates(String shape, int count) {
    SplittableRandom random = new SplittableRandom(shape.hashCode());
    List<CacheCandidate> candidates = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long size = (1L << 30) + random.nextLong(200L << 30);
      long read = switch (shape) {
        case "uniform traffic" -> random.nextLong(1L << 40);
        case "zipf traffic (few hot images)" -> (long) ((1L << 42) / Math.pow(i + 1, 1.1));
        default -> size;
      };
      boolean cached = random.nextInt(10) == 0;
      candidates.add(new CacheCandidate("image-" + i, size, cached ? 0 : read, cached ? read : 0, cached,
          random.nextInt(500) == 0, random.nextInt(3), false));
    }
    return candidates;
  }
}
