package dev.quarry.core.cache.agent;

import dev.quarry.core.cache.copy.Bandwidth;
import dev.quarry.core.cache.copy.CacheDirectory;
import dev.quarry.core.cache.copy.CopyRecord;
import dev.quarry.core.cache.copy.ImageCopier;
import dev.quarry.core.cache.copy.SourceIdentity;
import dev.quarry.core.cache.host.DiskStats;
import dev.quarry.core.cache.host.LoopDevice;
import dev.quarry.core.cache.host.MountEntry;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.host.Mounts;
import dev.quarry.core.cache.plan.CacheCandidate;
import dev.quarry.core.cache.plan.CachePlan;
import dev.quarry.core.cache.plan.CachePlanner;
import dev.quarry.core.cache.plan.ImageChoice;
import dev.quarry.core.cache.traffic.DeviceUse;
import dev.quarry.core.cache.traffic.ImageTraffic;
import dev.quarry.core.cache.traffic.Layer;
import dev.quarry.core.cache.traffic.TrafficMeter;
import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import dev.quarry.core.store.FileRangeStream;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node's cache of dataset images. Each {@link #pass} rebuilds what is mounted from {@code /proc/self/mountinfo}
 * and sysfs (so a restarted agent carries on where the last one stopped and leaves working mounts alone), repairs
 * what is wrong, measures traffic, plans, evicts, starts at most one copy and switches finished copies in. Every
 * mount is read-only and loop devices are autoclear; every unmount is lazy, so open files keep reading. The agent
 * unmounts and deletes only what its {@link OwnedPaths} name: other NodeCaches' images, and anything else under the
 * same roots, are left alone.
 */
public final class CacheAgent implements AutoCloseable {
  private final ImageSources sources;
  private final CopySlots slots;
  private final Clock clock;
  private final Duration copyRetryDelay;
  private final DecisionLog decisions;
  private final ExecutorService copier = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("cache-copy").factory());
  private final Semaphore wakeUp = new Semaphore(0);
  private final Map<String, Failure> copyFailures = new HashMap<>();
  /** Foreign layers already reported in a decision, so that a pass blocked by one does not repeat it. */
  private final Set<String> reportedForeign = new HashSet<>();
  private final AtomicLong copiesCompleted = new AtomicLong();
  private final AtomicLong copiesFailed = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private volatile TrafficMeter meter; // read by metrics scrapes outside the pass
  private Duration meterWindow;
  private CopyJob copy;
  private CopySlots.Slot copySlot;

  /** A copy that failed, not retried before {@code retryAt} unless its source changes. */
  private record Failure(SourceIdentity source, String message, Instant retryAt) {}

  public CacheAgent(ImageSources sources, CopySlots slots, Clock clock, Duration copyRetryDelay) {
    this.sources = sources;
    this.slots = slots;
    this.clock = clock;
    this.copyRetryDelay = copyRetryDelay;
    this.decisions = new DecisionLog(clock);
  }

  /** Waits up to {@code timeout} for a reason to run the next pass early: a copy finished, or {@link #wake}. */
  public void awaitWork(Duration timeout) throws InterruptedException {
    if (wakeUp.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      wakeUp.drainPermits();
    }
  }

  /** Ends the current {@link #awaitWork} early, for example because the settings changed. */
  public void wake() {
    wakeUp.release();
  }

  public long copiesCompleted() {
    return copiesCompleted.get();
  }

  /** Copies that failed (a read error, a checksum that did not match), each attempt once. */
  public long copiesFailed() {
    return copiesFailed.get();
  }

  public long evictions() {
    return evictions.get();
  }

  /** Bytes {@code image} read since the agent started, by layer. */
  public ImageTraffic lifetimeTraffic(String image) {
    TrafficMeter current = meter;
    return current == null ? ImageTraffic.NONE : current.lifetime(image);
  }

  /** One reconciliation of this node with {@code settings}. */
  public synchronized NodeReport pass(AgentSettings settings) throws IOException {
    if (meter == null || !settings.window().equals(meterWindow)) {
      meter = new TrafficMeter(settings.window());
      meterWindow = settings.window();
    }
    removeEarlierOwner(settings);
    OwnedPaths owned = OwnedPaths.open(settings.roots().caches(), settings.cacheDirectory(), settings.owner(),
        settings.ownerUid());
    CacheDirectory cache = owned.copies();
    settings.roots().mounts().folder(settings.mountRoot(), mounted(owned));
    Map<String, ImageSpec> wanted = new LinkedHashMap<>();
    settings.images().forEach(image -> wanted.put(image.name(), image));
    collectFinishedCopy();
    MountTable mounts = MountTable.read(); // stacks change only where repair or removal acts, each re-reading its own
    removeUnwanted(settings, owned, wanted.keySet(), mounts);

    Map<String, Observed> observed = new LinkedHashMap<>();
    for (ImageSpec image : wanted.values()) {
      try {
        observed.put(image.name(), repair(image, settings, owned, mounts));
      } catch (ForeignLayer e) {
        Observed o = new Observed();
        o.state = ImageState.FAILED;
        o.message = e.getMessage();
        observed.put(image.name(), o);
      }
    }
    sampleTraffic(settings, cache, observed);
    Map<String, ImageTraffic> traffic = meter.window();

    long capacity = settings.capacity().resolve(cache.root());
    List<CacheCandidate> candidates = new ArrayList<>();
    for (ImageSpec image : wanted.values()) {
      Observed o = observed.get(image.name());
      if (o.identity != null) {
        ImageTraffic t = traffic.getOrDefault(image.name(), ImageTraffic.NONE);
        candidates.add(new CacheCandidate(image.name(), o.identity.size(), t.sourceBytes(), t.localBytes(),
            o.copy != null, image.pinned(), image.priority(), image.inObjectStore()));
      }
    }
    CachePlan plan = new CachePlanner(settings.hysteresisPercent()).plan(candidates, capacity);
    Map<String, ImageChoice> choices = plan.byName();

    for (ImageSpec image : wanted.values()) {
      ImageChoice choice = choices.get(image.name());
      if (choice != null && !choice.local()) {
        evict(image, settings, owned, observed.get(image.name()), choice.reason());
      }
    }
    long draining = drainingBytes(cache);
    long used = cache.usedBytes() + draining;
    for (ImageSpec image : wanted.values()) {
      ImageChoice choice = choices.get(image.name());
      if (choice != null && choice.local()) {
        admit(image, settings, owned, observed.get(image.name()), choice.reason(), capacity, used);
      }
    }

    sampleTraffic(settings, cache, observed); // counts new layers from now on, not from the next pass

    List<ImageReport> reports = new ArrayList<>();
    for (ImageSpec image : wanted.values()) {
      Observed o = observed.get(image.name());
      ImageChoice choice = choices.get(image.name());
      ImageTraffic t = traffic.getOrDefault(image.name(), ImageTraffic.NONE);
      boolean copying = copy != null && copy.image().equals(image.name());
      ImageState state = o.state == ImageState.SOURCE && copying ? ImageState.COPYING : o.state;
      reports.add(new ImageReport(image.name(), state, o.identity == null ? 0 : o.identity.size(),
          t.sourceBytes(), t.localBytes(), copying ? copy.percent() : null,
          choice == null ? null : choice.reason(), o.message));
    }
    return new NodeReport(clock.instant(), reports, capacity, used, draining,
        decisions.latest(), plan.nanos());
  }

  /**
   * A cache folder of this name marked by another NodeCache (deleted, then created again under the same name before
   * its agents cleaned up) is not adopted: its mounts and copies are removed as its own agent would, and this
   * NodeCache starts afresh.
   */
  private void removeEarlierOwner(AgentSettings settings) throws IOException {
    Optional<String> earlier = OwnedPaths.markedUid(settings.cacheDirectory(), settings.owner())
        .filter(uid -> !uid.equals(settings.ownerUid()));
    if (earlier.isPresent()) {
      removeOwned(settings.roots(), settings.cacheDirectory(), settings.owner());
      decisions.add(settings.owner(), "RemoveEarlier", "removed the mounts and copies of an earlier NodeCache "
          + settings.owner() + " (UID " + (earlier.get().isEmpty() ? "not recorded" : earlier.get())
          + "): NodeCache UID " + settings.ownerUid() + " does not adopt them");
    }
  }

  /** What one image looks like after repair. */
  private static final class Observed {
    ImageState state = ImageState.PENDING;
    SourceIdentity identity;
    CopyRecord copy; // a finished copy that matches the source
    String message;
  }

  private Observed repair(ImageSpec image, AgentSettings settings, OwnedPaths owned, MountTable mounts)
      throws IOException {
    Observed o = new Observed();
    CacheDirectory cache = owned.copies();
    Path point = settings.mountRoot().resolve(image.name());
    if (!owned.owns(point) && !mounts.stackAt(point).isEmpty()) {
      o.state = ImageState.FAILED;
      o.message = "Cannot mount image " + image.name() + " at " + point + ": something this NodeCache's agent did"
          + " not mount is there (another NodeCache's image, or a mount made by hand); rename the image or set"
          + " another spec.mountRoot";
      return o;
    }
    RootedPaths.CheckedFile sourceFile = null;
    if (!image.inObjectStore()) {
      SourceRoots.Checked checked = SourceRoots.check(image, settings.roots().sources(),
          new RootedPaths.KnownMounts(mounts.mountPoints(), path -> false));
      if (checked.refusal() != null) {
        o.state = ImageState.FAILED;
        o.message = checked.refusal();
        return o;
      }
      sourceFile = checked.file();
    }
    try {
      Optional<ObjectInfo> info = image.inObjectStore() ? headOfObject(image) : headOfFile(settings, sourceFile);
      if (info.isEmpty()) {
        o.state = ImageState.FAILED;
        o.message = "Cannot mount image " + image.name() + ": its source " + image.source()
            + " does not exist; fix spec.images[].source or publish the image there";
        return o;
      }
      o.identity = SourceIdentity.of(image.source(), info.get());
    } catch (IOException | RuntimeException e) {
      o.state = ImageState.FAILED;
      o.message = "Cannot read the source of image " + image.name() + ": " + e.getMessage();
      return o;
    }
    List<MountedLayer> stack = layers(mounts, point);
    // A copy still in flight may have renamed its file already: it counts once collected, with its decision.
    Optional<CopyRecord> finished = copy != null && copy.image().equals(image.name()) ? Optional.empty()
        : cache.finished(image.name());
    if (finished.isPresent() && !finished.get().source().equals(o.identity)) {
      detach(owned, point, stack, stack.size());
      stack = List.of();
      cache.delete(image.name());
      evictions.incrementAndGet();
      decisions.add(image.name(), "Evict", "source changed: " + image.source() + " is no longer the copied version");
      finished = Optional.empty();
    }
    o.copy = finished.orElse(null);
    Failure failure = copyFailures.get(image.name());
    if (failure != null && failure.source().equals(o.identity)) {
      o.message = failure.message();
    }
    Path local = cache.image(image.name());
    if (image.inObjectStore()) {
      boolean good = stack.size() == 1 && o.copy != null && stack.get(0).serves(local);
      if (!good) {
        detach(owned, point, stack, stack.size());
      }
      if (o.copy != null) {
        if (!good) {
          try {
            mount(settings, owned, local, FileIdentity.of(local), point);
          } catch (IOException e) {
            o.state = ImageState.FAILED;
            o.message = e.getMessage();
            return o;
          }
        }
        o.state = ImageState.CACHED;
      }
      return o;
    }
    Path file = Path.of(image.source());
    if (stack.isEmpty() || !stack.get(0).serves(file)) {
      if (!stack.isEmpty()) {
        detach(owned, point, stack, stack.size());
        decisions.add(image.name(), "Remount", "the mounted source was replaced or is not " + file);
      }
      try {
        mount(settings, owned, file, sourceFile.identity(), point);
      } catch (IOException e) {
        o.state = ImageState.FAILED;
        o.message = e.getMessage();
        return o;
      }
      stack = layers(MountTable.read(), point);
    }
    List<MountedLayer> above = stack.subList(1, stack.size());
    boolean cachedOnTop = above.size() == 1 && o.copy != null && above.get(0).serves(local);
    if (!above.isEmpty() && !cachedOnTop) {
      // Stacked duplicates or a stale copy: peel back to the source; a valid copy is switched in again below.
      detach(owned, point, stack, above.size());
    }
    o.state = cachedOnTop ? ImageState.CACHED : ImageState.SOURCE;
    return o;
  }

  private void evict(ImageSpec image, AgentSettings settings, OwnedPaths owned, Observed o, String reason)
      throws IOException {
    CacheDirectory cache = owned.copies();
    if (copy != null && copy.image().equals(image.name())) {
      cancelCopy();
      cache.delete(image.name());
    }
    if (o.copy == null) {
      return;
    }
    Path point = settings.mountRoot().resolve(image.name());
    if (o.state == ImageState.CACHED) {
      List<MountedLayer> stack = layers(MountTable.read(), point);
      detach(owned, point, stack, 1); // the copy: the only layer of an S3 image, the top one of any other
      if (image.inObjectStore()) {
        o.state = ImageState.FAILED;
        o.message = "Cannot mount image " + image.name() + ": it is stored in S3 and " + reason
            + "; raise spec.cache.capacity";
      } else {
        o.state = ImageState.SOURCE;
      }
    }
    cache.delete(image.name());
    o.copy = null;
    evictions.incrementAndGet();
    decisions.add(image.name(), "Evict", reason);
  }

  private void admit(ImageSpec image, AgentSettings settings, OwnedPaths owned, Observed o, String reason,
      long capacity, long used) throws IOException {
    CacheDirectory cache = owned.copies();
    Path point = settings.mountRoot().resolve(image.name());
    if (o.copy != null) {
      if (o.state != ImageState.CACHED) {
        mount(settings, owned, cache.image(image.name()), FileIdentity.of(cache.image(image.name())), point);
        o.state = ImageState.CACHED;
        o.message = null;
        decisions.add(image.name(), "Cache", reason);
      }
      return;
    }
    if (copy != null) {
      if (!copy.image().equals(image.name()) && o.message == null) {
        o.message = "waiting: the node copies " + copy.image() + " first";
      }
      return;
    }
    Failure failure = copyFailures.get(image.name());
    if (failure != null && failure.source().equals(o.identity) && clock.instant().isBefore(failure.retryAt())) {
      return;
    }
    long needed = o.identity.size() - cache.partBytes(image.name());
    long free = Math.min(capacity - used, Files.getFileStore(cache.root()).getUsableSpace());
    if (needed > free) {
      o.message = "waiting for space: needs " + ByteSize.format(needed) + ", " + ByteSize.format(Math.max(0, free))
          + " free (evicted copies still open count until closed)";
      return;
    }
    Optional<CopySlots.Slot> slot = slots.tryAcquire(image.name());
    if (slot.isEmpty()) {
      o.message = "waiting for a copy slot: the cluster-wide limit of concurrent copies is reached";
      return;
    }
    startCopy(image, settings, cache, o.identity, slot.get());
  }

  private void startCopy(ImageSpec image, AgentSettings settings, CacheDirectory cache, SourceIdentity identity,
      CopySlots.Slot slot) {
    ImageCopier.Source source = image.inObjectStore() ? ImageCopier.Source.of(sources.locate(image.source()))
        : checkedFileSource(image, settings, identity);
    AtomicLong copied = new AtomicLong();
    ImageCopier copier = new ImageCopier(cache);
    Bandwidth bandwidth = Bandwidth.perSecond(settings.copyBytesPerSecond());
    copySlot = slot;
    AtomicLong resumedFrom = new AtomicLong(-1);
    FutureTask<CopyRecord> task = new FutureTask<>(() -> copier.copy(image.name(), source, identity, image.sha256(),
        bandwidth, bytes -> {
          resumedFrom.compareAndSet(-1, bytes);
          copied.set(bytes);
        })) {
      @Override
      protected void done() {
        wakeUp.release(); // after the outcome is set, so the next pass sees it
      }
    };
    copy = new CopyJob(image.name(), identity, copied, resumedFrom, System.nanoTime(), task);
    this.copier.execute(task);
  }

  private void collectFinishedCopy() {
    if (copy == null || !copy.result().isDone()) {
      return;
    }
    CopyJob done = copy;
    copy = null;
    copySlot.close();
    copySlot = null;
    try {
      CopyRecord record = outcome(done);
      copiesCompleted.incrementAndGet();
      copyFailures.remove(done.image());
      long resumedFrom = done.resumedFrom().get();
      decisions.add(done.image(), "Copied", "verified " + ByteSize.format(done.source().size()) + " with SHA-256 "
          + record.sha256().substring(0, 12) + String.format(Locale.ROOT, " in %.1f s",
              (System.nanoTime() - done.startNanos()) / 1e9)
          + (resumedFrom > 0 ? ", resumed at " + ByteSize.format(resumedFrom) : ""));
    } catch (IOException | RuntimeException e) {
      copiesFailed.incrementAndGet();
      copyFailures.put(done.image(), new Failure(done.source(), e.getMessage(), clock.instant().plus(copyRetryDelay)));
      decisions.add(done.image(), "CopyFailed", e.getMessage());
    }
  }

  private static CopyRecord outcome(CopyJob done) throws IOException {
    try {
      return done.result().get();
    } catch (ExecutionException e) {
      throw Futures.unwrap(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private void cancelCopy() {
    copy.result().cancel(true);
    copySlot.close();
    copy = null;
    copySlot = null;
  }

  /**
   * Mounts {@code image} at {@code point}, recorded first as this owner's so that it is never lost. The point is made
   * a real folder under the mount root first: a link or someone else's mount there is refused, never mounted over.
   */
  private static void mount(AgentSettings settings, OwnedPaths owned, Path image, FileIdentity identity, Path point)
      throws IOException {
    settings.roots().mounts().folder(point, mounted(owned));
    owned.recordMount(point, identity);
    Mounts.mountImage(image, identity, point);
  }

  /** The size and version of an image in an object store. */
  private Optional<ObjectInfo> headOfObject(ImageSpec image) throws IOException {
    Location source = sources.locate(image.source());
    return source.store().head(source.key());
  }

  /** The size and version of a checked source file (empty when missing), read from the very file that was checked. */
  private static Optional<ObjectInfo> headOfFile(AgentSettings settings, RootedPaths.CheckedFile file)
      throws IOException {
    if (file == null) {
      return Optional.empty();
    }
    try (RootedPaths.OpenFile open = settings.roots().sources().open(file)) {
      return Optional.of(FileStore.info(file.path().getFileName().toString(), open.attributes()));
    }
  }

  /**
   * The copy's reader of a path source: the path is checked again and opened as the file that was checked; its size
   * and version must still be {@code identity}, the source the pass decided to copy.
   */
  private static ImageCopier.Source checkedFileSource(ImageSpec image, AgentSettings settings,
      SourceIdentity identity) {
    return (offset, length) -> {
      RootedPaths sources = settings.roots().sources();
      RootedPaths.CheckedFile file = sources.file(Path.of(image.source()),
          new RootedPaths.KnownMounts(MountTable.read().mountPoints(), path -> false));
      RootedPaths.OpenFile open = sources.open(file);
      SourceIdentity now = SourceIdentity.of(image.source(),
          FileStore.info(file.path().getFileName().toString(), open.attributes()));
      if (!now.equals(identity)) {
        open.close();
        throw new IOException("Cannot copy image " + image.name() + ": its source " + image.source()
            + " changed since it was checked");
      }
      return new FileRangeStream(open.channel(), image.source(), offset, offset + length);
    };
  }

  /** The mounts of the node now, and which of them this owner's agent made. */
  private static RootedPaths.KnownMounts mounted(OwnedPaths owned) throws IOException {
    return new RootedPaths.KnownMounts(MountTable.read().mountPoints(), owned::owns);
  }

  /**
   * Unmounts this owner's images no longer wanted (or left under an earlier mount root) and deletes their copies;
   * mounts it did not make are not looked at.
   */
  private void removeUnwanted(AgentSettings settings, OwnedPaths owned, Set<String> wanted, MountTable mounts)
      throws IOException {
    CacheDirectory cache = owned.copies();
    for (Path point : owned.mountPoints()) {
      String name = point.getFileName().toString();
      if (!settings.mountRoot().equals(point.getParent()) || !wanted.contains(name)) {
        try {
          detachOwned(settings.roots(), owned, point, mounts);
        } catch (ForeignLayer e) {
          if (reportedForeign.add(e.getMessage())) {
            decisions.add(name, "UnmountBlocked", e.getMessage());
          }
          continue; // still recorded: the next pass tries again
        }
        owned.forgetMount(point);
        decisions.add(name, "Unmount", "no longer in the NodeCache");
      }
    }
    for (String name : cache.names()) {
      if (!wanted.contains(name)) {
        if (copy != null && copy.image().equals(name)) {
          cancelCopy();
        }
        cache.delete(name);
      }
    }
  }

  private void sampleTraffic(AgentSettings settings, CacheDirectory cache, Map<String, Observed> observed)
      throws IOException {
    MountTable table = MountTable.read();
    Set<DeviceUse> uses = new HashSet<>();
    for (var entry : observed.entrySet()) {
      List<MountEntry> stack = table.stackAt(settings.mountRoot().resolve(entry.getKey()));
      for (int i = 0; i < stack.size(); i++) {
        Optional<LoopDevice> loop = LoopDevice.ofDevice(stack.get(i).device());
        if (loop.isPresent()) {
          boolean local = loop.get().backingFile().startsWith(cache.root());
          uses.add(new DeviceUse(loop.get().name(), loop.get().backingFile().toString(), entry.getKey(),
              local ? Layer.LOCAL : Layer.SOURCE));
        }
      }
    }
    meter.retainImages(observed.keySet());
    meter.sample(System.nanoTime(), uses, DiskStats.bytesRead());
  }

  /** Space of evicted copies that open files still hold: loop devices on deleted files of the cache folder. */
  private static long drainingBytes(CacheDirectory cache) throws IOException {
    long bytes = 0;
    for (LoopDevice loop : LoopDevice.attached()) {
      if (loop.deleted() && loop.backingFile().startsWith(cache.root())) {
        bytes += loop.sizeBytes();
      }
    }
    return bytes;
  }

  private static List<MountedLayer> layers(MountTable mounts, Path point) throws IOException {
    List<MountedLayer> layers = new ArrayList<>();
    for (MountEntry entry : mounts.stackAt(point)) {
      layers.add(new MountedLayer(entry, LoopDevice.ofDevice(entry.device()).orElse(null)));
    }
    return layers;
  }

  /**
   * Lazily unmounts the top {@code layers} of {@code stack}, the mounts at {@code point}, top first, each only when
   * the owner's record says it mounted that layer's file (the loop device's backing file, by device and inode). A
   * layer it did not mount (another NodeCache's, recorded at the same point, or one made by hand) stops it: that layer
   * and everything under it stay, and the exception names it.
   */
  private static void detach(OwnedPaths owned, Path point, List<MountedLayer> stack, int layers) throws IOException {
    for (int i = stack.size() - 1; i >= stack.size() - layers; i--) {
      MountedLayer layer = stack.get(i);
      FileIdentity file = layer.loop() == null ? null : Mounts.backingFile(layer.loop());
      if (file == null || !owned.mounted(point, file)) {
        throw new ForeignLayer("Cannot unmount " + point + ": its layer "
            + (file == null ? "of " + layer.mount().device() + " (" + layer.mount().fsType() + ")"
                : "reading " + layer.loop().backingFile() + " (" + file + ")")
            + " was not mounted by NodeCache " + owned.owner() + "; it is left alone with the layers under it (remove"
            + " it by hand, or delete the NodeCache that mounted it)");
      }
      Mounts.detachTop(point);
    }
  }

  /** A layer at one of the owner's mount points that the owner did not mount. */
  private static final class ForeignLayer extends IOException {
    ForeignLayer(String message) {
      super(message);
    }
  }

  /**
   * Removes what {@code owner} has on this node: every mount its agent made (with its mount point folder when
   * empty), every copy, and its folder in {@code cacheDirectory}. For a deleted NodeCache, and for resetting a node.
   * Nothing else under the same roots is touched. Open files keep working until closed.
   */
  public static void removeOwned(NodeRoots roots, Path cacheDirectory, String owner) throws IOException {
    if (OwnedPaths.markedUid(cacheDirectory, owner).isEmpty()) {
      OwnedPaths.removeUnmarked(cacheDirectory, owner);
      return;
    }
    OwnedPaths owned = OwnedPaths.existing(roots.caches(), cacheDirectory, owner);
    MountTable mounts = MountTable.read();
    List<String> foreign = new ArrayList<>();
    for (Path point : owned.mountPoints()) {
      boolean detached;
      try {
        detached = detachOwned(roots, owned, point, mounts);
      } catch (ForeignLayer e) {
        foreign.add(e.getMessage());
        continue; // still recorded, for the next try
      }
      if (detached && MountTable.read().stackAt(point).isEmpty()) { // someone else's layers under ours stay
        try {
          Files.deleteIfExists(point);
        } catch (DirectoryNotEmptyException e) {
          // something else put files there: they stay
        }
      }
      owned.forgetMount(point);
    }
    if (!foreign.isEmpty()) {
      throw new IOException(String.join("; ", foreign));
    }
    owned.removeFolder();
  }

  /**
   * Unmounts the owner's layers at {@code point}, one of its recorded mount points, when it is still reached from the
   * mount roots without a link or a foreign mount (umount follows links); returns whether it was. Layers under the
   * owner's lowest one stay; a layer of someone else above one of the owner's stops it ({@link ForeignLayer}).
   */
  private static boolean detachOwned(NodeRoots roots, OwnedPaths owned, Path point, MountTable mounts)
      throws IOException {
    try {
      roots.mounts().existing(point, new RootedPaths.KnownMounts(mounts.mountPoints(), owned::owns));
    } catch (IOException e) {
      // Gone, or reached only through a link or a mount not ours: nothing of ours can be unmounted there.
      return false;
    }
    List<MountedLayer> stack = layers(mounts, point);
    int lowestOwn = stack.size();
    for (int i = stack.size() - 1; i >= 0; i--) {
      if (stack.get(i).loop() != null && owned.mounted(point, Mounts.backingFile(stack.get(i).loop()))) {
        lowestOwn = i;
      }
    }
    detach(owned, point, stack, stack.size() - lowestOwn); // layers under the owner's lowest are someone else's
    return true;
  }

  @Override
  public synchronized void close() {
    if (copy != null) {
      cancelCopy();
    }
    copier.shutdownNow();
    try {
      copier.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
