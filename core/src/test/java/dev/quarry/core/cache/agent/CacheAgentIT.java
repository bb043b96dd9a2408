package dev.quarry.core.cache.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.cache.host.LoopDevice;
import dev.quarry.core.cache.host.MountEntry;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.host.Mounts;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent on real squashfs loop mounts (the test machines run as root). */
class CacheAgentIT {
  private static final long MIB = 1 << 20;
  private static final String OWNER = "datasets";
  @TempDir Path temp;
  private Path mountRoot;
  private Path cacheDir;
  /** The copies of the NodeCache {@link #OWNER}: {@code <cacheDir>/<owner>/copies}. */
  private Path copies;
  private ObjectStores stores;
  private final List<CacheAgent> agents = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    mountRoot = Files.createDirectories(temp.resolve("mnt"));
    cacheDir = Files.createDirectories(temp.resolve("cache"));
    copies = cacheDir.resolve(OWNER).resolve("copies");
    stores = new ObjectStores(S3Settings.defaults());
  }

  @AfterEach
  void tearDown() throws IOException {
    agents.forEach(CacheAgent::close);
    for (String owner : OwnedPaths.owners(cacheDir)) {
      CacheAgent.removeOwned(roots(), cacheDir, owner);
    }
    stores.close();
    assertThat(MountTable.read().mountPointsUnder(mountRoot)).isEmpty();
  }

  private CacheAgent agent() {
    CacheAgent agent = new CacheAgent(stores::locate, CopySlots.unlimited(), Clock.systemUTC(), Duration.ofMinutes(5));
    agents.add(agent);
    return agent;
  }

  private AgentSettings settings(String capacity, long bandwidth, ImageSpec... images) {
    return settings(OWNER, capacity, bandwidth, images);
  }

  private AgentSettings settings(String owner, String capacity, long bandwidth, ImageSpec... images) {
    return new AgentSettings(owner, owner + "-uid", List.of(images), mountRoot, cacheDir, roots(), CacheCapacity.parse(capacity),
        Duration.ofMinutes(10), 10, bandwidth);
  }

  /** The admin's roots: the mount root, the cache directory, and this test's folder for sources. */
  private NodeRoots roots() {
    return NodeRoots.of(List.of(mountRoot), List.of(cacheDir), List.of(temp));
  }

  private static NodeReport passUntil(CacheAgent agent, AgentSettings settings, Predicate<NodeReport> done)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    NodeReport report = agent.pass(settings);
    while (!done.test(report)) {
      assertThat(System.nanoTime()).as("waiting for the agent; last report %s", report).isLessThan(deadline);
      agent.awaitWork(Duration.ofMillis(100));
      report = agent.pass(settings);
    }
    return report;
  }

  private static ImageReport image(NodeReport report, String name) {
    return report.images().stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow();
  }

  private List<LoopDevice> stack(String name) throws IOException {
    List<LoopDevice> loops = new ArrayList<>();
    for (MountEntry entry : MountTable.read().stackAt(mountRoot.resolve(name))) {
      loops.add(LoopDevice.ofDevice(entry.device()).orElseThrow());
    }
    return loops;
  }

  /** The per-mount options of the top mount at {@code point}, from /proc/self/mountinfo (its sixth field). */
  private static List<String> mountOptions(Path point) throws IOException {
    List<String> options = List.of();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] fields = line.split(" ");
      if (fields[4].equals(point.toString())) {
        options = List.of(fields[5].split(","));
      }
    }
    return options;
  }

  private static void readAll(Path folder, Map<String, String> digests) throws IOException {
    for (var file : digests.entrySet()) {
      assertThat(Digest.ofFile(folder.resolve(file.getKey())).hex()).isEqualTo(file.getValue());
    }
  }

  @Test
  void switchesAHotImageToItsLocalCopyUnderEightReadersWithoutAReadError() throws Exception {
    TestImage data = TestImage.build(temp, "imagenet", 24, (int) MIB, 1);
    AgentSettings settings = settings("1Gi", 0, new ImageSpec("imagenet", data.image().toString(), data.sha256(),
        false, 0));
    CacheAgent agent = agent();
    NodeReport first = agent.pass(settings);
    assertThat(image(first, "imagenet").state()).isEqualTo(ImageState.SOURCE);
    assertThat(image(first, "imagenet").reason()).isEqualTo("cold: not read in the window");
    List<LoopDevice> source = stack("imagenet");
    assertThat(source).hasSize(1);
    assertThat(source.get(0).backingFile()).isEqualTo(data.image());
    assertThat(source.get(0).autoclear()).as("loop devices are autoclear").isTrue();

    Path mounted = mountRoot.resolve("imagenet");
    assertThat(mountOptions(mounted)).as("an image author's setuid files and device nodes stay inert")
        .contains("ro", "nosuid", "nodev");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> readers = new ArrayList<>();
    List<String> files = List.copyOf(data.fileDigests().keySet());
    for (int r = 0; r < 8; r++) {
      int reader = r;
      readers.add(Thread.ofPlatform().start(() -> {
        int i = reader;
        while (!stop.get()) {
          String file = files.get(i++ % files.size());
          try {
            if (!Digest.ofFile(mounted.resolve(file)).hex().equals(data.fileDigests().get(file))) {
              errors.add(new AssertionError("wrong bytes in " + file));
            }
            reads.incrementAndGet();
          } catch (IOException | RuntimeException e) {
            errors.add(e);
          }
        }
      }));
    }
    // One reader holds a file open across the switch: it must keep reading the source's bytes.
    InputStream held = Files.newInputStream(mounted.resolve(files.get(0)));
    byte[] head = held.readNBytes(4096);

    NodeReport cached = passUntil(agent, settings, r -> image(r, "imagenet").state() == ImageState.CACHED);
    long readsAtSwitch = reads.get();
    Thread.sleep(500);
    stop.set(true);
    for (Thread reader : readers) {
      reader.join();
    }
    byte[] rest = held.readAllBytes();
    held.close();
    assertThat(errors).as("read errors during the switch").isEmpty();
    assertThat(reads.get()).as("reads continued after the switch").isGreaterThan(readsAtSwitch);
    byte[] whole = new byte[head.length + rest.length];
    System.arraycopy(head, 0, whole, 0, head.length);
    System.arraycopy(rest, 0, whole, head.length, rest.length);
    assertThat(Digest.of(whole).hex()).isEqualTo(data.fileDigests().get(files.get(0)));

    assertThat(image(cached, "imagenet").reason()).startsWith("hot: ");
    assertThat(cached.decisions()).extracting(Decision::action).containsSubsequence("Copied", "Cache");
    List<LoopDevice> layers = stack("imagenet");
    assertThat(layers).extracting(LoopDevice::backingFile)
        .containsExactly(data.image(), copies.resolve("imagenet.sqfs"));
    assertThat(Digest.ofFile(copies.resolve("imagenet.sqfs")).hex()).isEqualTo(data.sha256());

    // New opens read the local copy: its loop device's read counter grows, the source's does not.
    dropCaches();
    readAll(mounted, data.fileDigests());
    NodeReport after = agent.pass(settings);
    assertThat(image(after, "imagenet").localBytes()).isGreaterThanOrEqualTo(24 * MIB);
  }

  @Test
  void evictsWhileFilesAreOpenAndCountsTheSpaceUntilTheyClose() throws Exception {
    TestImage data = TestImage.build(temp, "coco", 8, (int) MIB, 2);
    ImageSpec pinned = new ImageSpec("coco", data.image().toString(), data.sha256(), true, 0);
    CacheAgent agent = agent();
    passUntil(agent, settings("1Gi", 0, pinned), r -> image(r, "coco").state() == ImageState.CACHED);
    Path mounted = mountRoot.resolve("coco");
    String file = data.fileDigests().keySet().iterator().next();
    InputStream open = Files.newInputStream(mounted.resolve(file));
    byte[] head = open.readNBytes(1000);

    ImageSpec unpinned = new ImageSpec("coco", data.image().toString(), data.sha256(), false, 0);
    NodeReport evicted = agent.pass(settings("1Ki", 0, unpinned));
    assertThat(image(evicted, "coco").state()).isEqualTo(ImageState.SOURCE);
    assertThat(evicted.decisions()).extracting(Decision::action).endsWith("Evict");
    assertThat(stack("coco")).extracting(LoopDevice::backingFile).containsExactly(data.image());
    assertThat(Files.exists(copies.resolve("coco.sqfs"))).isFalse();
    assertThat(evicted.drainingBytes()).as("the deleted copy is held by the open file").isGreaterThanOrEqualTo(
        data.sizeBytes() - 4096);
    readAll(mounted, data.fileDigests()); // new opens read the source

    byte[] rest = open.readAllBytes();
    open.close();
    byte[] whole = new byte[head.length + rest.length];
    System.arraycopy(head, 0, whole, 0, head.length);
    System.arraycopy(rest, 0, whole, head.length, rest.length);
    assertThat(Digest.of(whole).hex()).isEqualTo(data.fileDigests().get(file));
    NodeReport freed = passUntil(agent, settings("1Ki", 0, unpinned), r -> r.drainingBytes() == 0);
    assertThat(freed.usedBytes()).isZero();
  }

  @Test
  void aRestartedAgentLeavesWorkingMountsAloneResumesItsCopyAndCleansStackedDuplicates() throws Exception {
    TestImage data = TestImage.build(temp, "laion", 16, (int) MIB, 3);
    ImageSpec image = new ImageSpec("laion", data.image().toString(), data.sha256(), true, 0);
    CacheAgent first = agent();
    NodeReport copying = passUntil(first, settings("1Gi", 4 * MIB, image),
        r -> image(r, "laion").state() == ImageState.COPYING && Files.exists(copies.resolve("laion.sqfs.part")));
    Thread.sleep(1200);
    List<Integer> mountIds = MountTable.read().stackAt(mountRoot.resolve("laion")).stream().map(MountEntry::id)
        .toList();
    first.close(); // the agent dies mid-copy
    long partBytes = Files.size(copies.resolve("laion.sqfs.part"));
    assertThat(partBytes).isGreaterThan(0).isLessThan(data.sizeBytes());

    CacheAgent second = agent();
    NodeReport resumed = second.pass(settings("1Gi", 0, image));
    assertThat(MountTable.read().stackAt(mountRoot.resolve("laion")).stream().map(MountEntry::id).toList())
        .as("the working source mount is left alone").isEqualTo(mountIds);
    assertThat(image(resumed, "laion").state()).isEqualTo(ImageState.COPYING);
    NodeReport done = passUntil(second, settings("1Gi", 0, image),
        r -> image(r, "laion").state() == ImageState.CACHED);
    assertThat(done.decisions()).filteredOn(d -> d.action().equals("Copied")).singleElement()
        .extracting(Decision::reason).asString().matches(".* in [0-9.]+ s, resumed at " + ByteSize.format(partBytes)
            .replace(".", "\\."));
    assertThat(Digest.ofFile(copies.resolve("laion.sqfs")).hex()).isEqualTo(data.sha256());

    // A duplicate of the copy on top (an older agent that crashed mid-repair, which recorded it before mounting it):
    // the stack is repaired to source + copy. Layers the NodeCache did not mount are left alone (test below).
    Path copy = copies.resolve("laion.sqfs");
    Mounts.mountImage(copy, FileIdentity.of(copy), mountRoot.resolve("laion"));
    assertThat(stack("laion")).hasSize(3);
    NodeReport repaired = agent().pass(settings("1Gi", 0, image));
    assertThat(image(repaired, "laion").state()).isEqualTo(ImageState.CACHED);
    assertThat(stack("laion")).extracting(LoopDevice::backingFile)
        .containsExactly(data.image(), copies.resolve("laion.sqfs"));
    readAll(mountRoot.resolve("laion"), data.fileDigests());
  }

  @Test
  void aCorruptCopyIsCaughtAndNeverMounted() throws Exception {
    TestImage data = TestImage.build(temp, "audio", 8, (int) MIB, 4);
    ImageSpec image = new ImageSpec("audio", data.image().toString(), data.sha256(), true, 0);
    CacheAgent first = agent();
    passUntil(first, settings("1Gi", 2 * MIB, image), r -> Files.exists(copies.resolve("audio.sqfs.part")));
    Thread.sleep(1200);
    first.close();
    // A disk error flips bytes in the part already copied; the resumed copy must not trust it.
    Path part = copies.resolve("audio.sqfs.part");
    byte[] bytes = Files.readAllBytes(part);
    assertThat(bytes.length).isGreaterThan(100);
    bytes[bytes.length / 2] ^= 0x5a;
    Files.write(part, bytes);

    CacheAgent second = agent();
    NodeReport failed = passUntil(second, settings("1Gi", 0, image),
        r -> r.decisions().stream().anyMatch(d -> d.action().equals("CopyFailed")));
    ImageReport report = image(failed, "audio");
    assertThat(second.copiesFailed()).as("the agent's quarry_cache_copy_failures_total").isEqualTo(1);
    assertThat(report.state()).isEqualTo(ImageState.SOURCE);
    assertThat(report.message()).startsWith("Cannot cache image audio: the copy of " + data.image())
        .contains("expected " + data.sizeBytes() + " bytes with SHA-256 " + data.sha256())
        .endsWith("Check the image's checksum in the NodeCache, or whether its source changed while it was copied");
    assertThat(stack("audio")).extracting(LoopDevice::backingFile).containsExactly(data.image());
    try (var files = Files.list(copies)) {
      assertThat(files.toList()).as("nothing of the bad copy is kept").isEmpty();
    }
    readAll(mountRoot.resolve("audio"), data.fileDigests());
  }

  @Test
  void aReplacedSourceIsRemountedAndItsStaleCopyDropped() throws Exception {
    TestImage v1 = TestImage.build(temp, "v1", 4, (int) MIB, 5);
    TestImage v2 = TestImage.build(temp, "v2", 4, (int) MIB, 6);
    Path cachedSource = Files.createDirectories(temp.resolve("shared")).resolve("speech.sqfs");
    Path uncachedSource = temp.resolve("shared/video.sqfs");
    Files.copy(v1.image(), cachedSource);
    Files.copy(v1.image(), uncachedSource);
    AgentSettings settings = settings("1Gi", 0, new ImageSpec("speech", cachedSource.toString(), null, true, 0),
        new ImageSpec("video", uncachedSource.toString(), null, false, 0));
    CacheAgent agent = agent();
    passUntil(agent, settings, r -> image(r, "speech").state() == ImageState.CACHED);
    readAll(mountRoot.resolve("speech"), v1.fileDigests());
    readAll(mountRoot.resolve("video"), v1.fileDigests());

    // Publish v2 the way users do: write beside, then rename over the old image.
    for (Path published : List.of(cachedSource, uncachedSource)) {
      Files.copy(v2.image(), published.resolveSibling("next.sqfs"));
      Files.move(published.resolveSibling("next.sqfs"), published, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    }
    NodeReport report = passUntil(agent, settings, r -> image(r, "speech").state() == ImageState.CACHED
        && r.decisions().stream().filter(d -> d.action().equals("Copied")).count() == 2);
    assertThat(report.decisions()).filteredOn(d -> d.action().equals("Evict")).singleElement()
        .extracting(Decision::reason).isEqualTo("source changed: " + cachedSource + " is no longer the copied version");
    assertThat(report.decisions()).filteredOn(d -> d.action().equals("Remount")).singleElement()
        .extracting(Decision::image).isEqualTo("video");
    readAll(mountRoot.resolve("speech"), v2.fileDigests());
    readAll(mountRoot.resolve("video"), v2.fileDigests());
    assertThat(stack("speech")).allMatch(loop -> !loop.deleted());
    assertThat(stack("video")).allMatch(loop -> !loop.deleted());
  }

  @Test
  void cleanUpRemovesEveryMountAndCopy() throws Exception {
    TestImage data = TestImage.build(temp, "tiny", 2, (int) MIB, 7);
    CacheAgent agent = agent();
    passUntil(agent, settings("1Gi", 0, new ImageSpec("tiny", data.image().toString(), data.sha256(), true, 0)),
        r -> image(r, "tiny").state() == ImageState.CACHED);
    agent.close();
    CacheAgent.removeOwned(roots(), cacheDir, OWNER);
    assertThat(MountTable.read().mountPointsUnder(mountRoot)).isEmpty();
    assertThat(mountRoot.resolve("tiny")).as("the mount point the agent made").doesNotExist();
    try (var files = Files.list(cacheDir)) {
      assertThat(files.toList()).isEmpty();
    }
    assertThat(LoopDevice.attached()).noneMatch(loop -> loop.backingFile().startsWith(temp));
  }

  @Test
  void aNodeCacheCreatedAgainUnderTheSameNameRemovesTheEarlierOnesMountsAndCopiesInsteadOfAdoptingThem()
      throws Exception {
    TestImage data = TestImage.build(temp, "tiny", 2, (int) MIB, 11);
    CacheAgent earlier = agent();
    passUntil(earlier, settings("1Gi", 0, new ImageSpec("tiny", data.image().toString(), data.sha256(), true, 0)),
        r -> image(r, "tiny").state() == ImageState.CACHED);
    earlier.close(); // deleted, and its agent gone before it cleaned up

    AgentSettings again = new AgentSettings(OWNER, "uid-2", List.of(new ImageSpec("tiny", data.image().toString(),
        null, false, 0)), mountRoot, cacheDir, roots(), CacheCapacity.parse("1Gi"), Duration.ofMinutes(10), 10, 0);
    NodeReport report = agent().pass(again);
    assertThat(report.decisions()).anySatisfy(d -> assertThat(d.action() + ": " + d.reason()).isEqualTo(
        "RemoveEarlier: removed the mounts and copies of an earlier NodeCache datasets (UID datasets-uid): NodeCache"
            + " UID uid-2 does not adopt them"));
    assertThat(image(report, "tiny").state()).isEqualTo(ImageState.SOURCE);
    assertThat(stack("tiny")).singleElement().extracting(LoopDevice::backingFile).isEqualTo(data.image());
    try (var files = Files.list(copies)) {
      assertThat(files.toList()).as("the earlier NodeCache's copy").isEmpty();
    }
    assertThat(cacheDir.resolve(OWNER).resolve(OwnedPaths.MARKER)).hasContent("datasets\nuid-2");
    readAll(mountRoot.resolve("tiny"), data.fileDigests());
  }

  @Test
  void aLayerAnotherNodeCacheRecordedAtTheSameMountPointIsNeverDetachedButReported() throws Exception {
    TestImage ours = TestImage.build(temp, "ours", 2, (int) MIB, 12);
    TestImage theirs = TestImage.build(temp, "theirs", 2, (int) MIB, 13);
    Path point = mountRoot.resolve("shared");
    CacheAgent a = agent();
    AgentSettings forA = settings("team-a", "1Gi", 0, new ImageSpec("shared", ours.image().toString(), null, false,
        0));
    assertThat(image(a.pass(forA), "shared").state()).isEqualTo(ImageState.SOURCE);
    // Another NodeCache's record names the same mount point, and its image is mounted on top of A's.
    OwnedPaths b = OwnedPaths.open(roots().caches(), cacheDir, "team-b", "team-b-uid");
    b.recordMount(point, FileIdentity.of(theirs.image()));
    Mounts.mountImage(theirs.image(), FileIdentity.of(theirs.image()), point);
    String left = "Cannot unmount " + point + ": its layer reading " + theirs.image() + " ("
        + FileIdentity.of(theirs.image()) + ") was not mounted by NodeCache team-a; it is left alone with the layers"
        + " under it (remove it by hand, or delete the NodeCache that mounted it)";

    ImageReport blocked = image(a.pass(forA), "shared");
    assertThat(blocked.state()).isEqualTo(ImageState.FAILED);
    assertThat(blocked.message()).isEqualTo(left);
    assertThatThrownBy(() -> CacheAgent.removeOwned(roots(), cacheDir, "team-a")).hasMessage(left);
    assertThat(stack("shared")).extracting(LoopDevice::backingFile).containsExactly(ours.image(), theirs.image());
    readAll(point, theirs.fileDigests());

    // B removes its own layer only; then A's pass and A's removal work again.
    CacheAgent.removeOwned(roots(), cacheDir, "team-b");
    assertThat(stack("shared")).extracting(LoopDevice::backingFile).containsExactly(ours.image());
    assertThat(image(a.pass(forA), "shared").state()).isEqualTo(ImageState.SOURCE);
    readAll(point, ours.fileDigests());
    CacheAgent.removeOwned(roots(), cacheDir, "team-a");
    assertThat(MountTable.read().stackAt(point)).isEmpty();
  }

  @Test
  void twoNodeCachesOnOneNodeLeaveEachOthersMountsAndCopiesAndForeignFilesAlone() throws Exception {
    TestImage first = TestImage.build(temp, "first", 2, (int) MIB, 8);
    TestImage second = TestImage.build(temp, "second", 2, (int) MIB, 9);
    Path foreignRecord = Files.writeString(cacheDir.resolve("notes.json"), "{\"kept\": true}");
    Path foreignImage = Files.copy(first.image(), cacheDir.resolve("backup.sqfs"));
    Path handMade = mountRoot.resolve("by-hand");
    Mounts.mountImage(second.image(), FileIdentity.of(second.image()), Files.createDirectories(handMade));
    try {
      CacheAgent a = agent();
      CacheAgent b = agent();
      AgentSettings forA = settings("team-a", "1Gi", 0, new ImageSpec("first", first.image().toString(),
          first.sha256(), true, 0));
      AgentSettings forB = settings("team-b", "1Gi", 0, new ImageSpec("second", second.image().toString(),
          second.sha256(), true, 0));
      passUntil(a, forA, r -> image(r, "first").state() == ImageState.CACHED);
      passUntil(b, forB, r -> image(r, "second").state() == ImageState.CACHED);
      a.pass(forA);
      b.pass(forB);
      readAll(mountRoot.resolve("first"), first.fileDigests());
      readAll(mountRoot.resolve("second"), second.fileDigests());
      readAll(handMade, second.fileDigests());
      assertThat(foreignRecord).hasContent("{\"kept\": true}");
      assertThat(foreignImage).exists();

      // B wants an image of A's name: A keeps it, B reports whose it is not.
      AgentSettings clash = settings("team-b", "1Gi", 0, new ImageSpec("second", second.image().toString(),
          second.sha256(), true, 0), new ImageSpec("first", second.image().toString(), null, false, 0));
      ImageReport refused = image(b.pass(clash), "first");
      assertThat(refused.state()).isEqualTo(ImageState.FAILED);
      assertThat(refused.message()).isEqualTo("Cannot mount image first at " + mountRoot.resolve("first")
          + ": something this NodeCache's agent did not mount is there (another NodeCache's image, or a mount made by"
          + " hand); rename the image or set another spec.mountRoot");
      b.pass(forB);
      readAll(mountRoot.resolve("first"), first.fileDigests());

      // B is deleted: its mounts and copies go, A's and the foreign ones stay.
      b.close();
      CacheAgent.removeOwned(roots(), cacheDir, "team-b");
      assertThat(MountTable.read().stackAt(mountRoot.resolve("second"))).isEmpty();
      assertThat(cacheDir.resolve("team-b")).doesNotExist();
      assertThat(a.pass(forA).images()).singleElement().extracting(ImageReport::state).isEqualTo(ImageState.CACHED);
      readAll(mountRoot.resolve("first"), first.fileDigests());
      readAll(handMade, second.fileDigests());
      assertThat(foreignRecord).exists();
      assertThat(foreignImage).exists();
    } finally {
      if (!MountTable.read().stackAt(handMade).isEmpty()) {
        Mounts.detachTop(handMade);
      }
    }
  }

  @Test
  void aSourceOutsideTheSourceRootsOrNotARegularFileIsNeitherMountedNorCopied() throws Exception {
    TestImage data = TestImage.build(temp, "outside", 2, (int) MIB, 10);
    Path shared = Files.createDirectories(temp.resolve("shared"));
    Path link = Files.createSymbolicLink(shared.resolve("link.sqfs"), Path.of("/etc/hostname"));
    AgentSettings settings = new AgentSettings(OWNER, OWNER + "-uid", List.of(
        new ImageSpec("shadow", "/etc/shadow", null, true, 0),
        new ImageSpec("linked", link.toString(), null, true, 0),
        new ImageSpec("folder", shared.toString(), null, true, 0),
        new ImageSpec("fine", data.image().toString(), null, true, 0)),
        mountRoot, cacheDir, NodeRoots.of(List.of(mountRoot), List.of(cacheDir), List.of(shared,
            data.image().getParent())), CacheCapacity.parse("1Gi"),
        Duration.ofMinutes(10), 10, 0);
    NodeReport report = passUntil(agent(), settings, r -> image(r, "fine").state() == ImageState.CACHED);
    assertThat(image(report, "shadow").message()).isEqualTo("Cannot mount image shadow from its source: Cannot use"
        + " /etc/shadow: it is not under " + shared + " or " + data.image().getParent() + ", the roots the cluster"
        + " admin allows");
    assertThat(image(report, "linked").message()).isEqualTo("Cannot mount image linked from its source: Cannot use "
        + link + ": " + link + " is a symbolic link, which is never followed under the roots the cluster admin"
        + " allows");
    assertThat(image(report, "folder").message()).isEqualTo("Cannot mount image folder from its source: Cannot use "
        + shared + ": it is not a regular file");
    for (String refused : List.of("shadow", "linked", "folder")) {
      assertThat(image(report, refused).state()).isEqualTo(ImageState.FAILED);
      assertThat(MountTable.read().stackAt(mountRoot.resolve(refused))).isEmpty();
    }
    try (var files = Files.list(copies)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList()).containsExactlyInAnyOrder("fine.sqfs",
          "fine.json");
    }
  }

  @Test
  void aMountRootThroughAnOrphanedImageOrAMountPointThatIsALinkIsRefusedNeverFollowed() throws Exception {
    // An image an agent that is gone left mounted under the mount root, holding a link out of it.
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Path content = Files.createDirectories(temp.resolve("orphan-content"));
    Files.createSymbolicLink(content.resolve("out"), elsewhere);
    Path orphanImage = ImageBuilder.build(content, temp.resolve("orphan.sqfs"), ImageBuilder.Compression.NONE, 2)
        .image();
    Path orphan = Files.createDirectories(mountRoot.resolve("orphan"));
    Mounts.mountImage(orphanImage, FileIdentity.of(orphanImage), orphan);
    TestImage data = TestImage.build(temp, "pets", 2, (int) MIB, 7);
    ImageSpec image = new ImageSpec("pets", data.image().toString(), null, true, 0);
    try {
      AgentSettings through = new AgentSettings(OWNER, OWNER + "-uid", List.of(image), orphan.resolve("out"), cacheDir, roots(),
          CacheCapacity.parse("1Gi"), Duration.ofMinutes(10), 10, 0);
      assertThatThrownBy(() -> agent().pass(through)).hasMessage("Cannot use " + orphan.resolve("out") + ": "
          + orphan + " is a mount this agent did not make (an image left mounted by an agent that is gone, or a"
          + " mount made by hand); unmount it");
      assertThat(elsewhere).isEmptyDirectory();
    } finally {
      Mounts.detachTop(orphan);
    }

    // A link where an image's mount point goes: the image fails, and nothing is mounted where the link leads.
    Files.createSymbolicLink(mountRoot.resolve("pets"), elsewhere);
    NodeReport report = agent().pass(settings("1Gi", 0, image));
    assertThat(image(report, "pets").state()).isEqualTo(ImageState.FAILED);
    assertThat(image(report, "pets").message()).isEqualTo("Cannot use " + mountRoot.resolve("pets") + ": "
        + mountRoot.resolve("pets") + " is a symbolic link, which is never followed under the roots the cluster"
        + " admin allows");
    assertThat(MountTable.read().stackAt(elsewhere)).isEmpty();
    assertThat(elsewhere).isEmptyDirectory();
  }

  /**
   * Shared storage written from another machine: its folder {@code a} holds the image, and is swapped for a link to
   * a folder outside the source roots (another NodeCache's copies, say) right after the agent's {@code check}-th
   * check of the image's path, before the agent uses it. Swapped back by {@link Swap#undo}.
   */
  private record Swap(Path shared, Path image, Path secret, AgentSettings settings) {
    static Swap after(Path temp, Path mountRoot, Path cacheDir, int check, boolean pinned) throws IOException {
      Path shared = Files.createDirectories(temp.resolve("shared"));
      TestImage data = TestImage.build(Files.createDirectories(shared.resolve("a")), "img", 4, (int) MIB, 21);
      TestImage secret = TestImage.build(Files.createDirectories(temp.resolve("private").resolve("a")), "img", 4,
          (int) MIB, 22);
      assertThat(secret.sizeBytes()).isEqualTo(data.sizeBytes());
      AtomicInteger checks = new AtomicInteger();
      RootedPaths sources = new RootedPaths(List.of(shared)).afterEachCheck(path -> {
        if (path.equals(data.image()) && checks.incrementAndGet() == check) {
          try {
            Files.move(shared.resolve("a"), shared.resolve("a.real"));
            Files.createSymbolicLink(shared.resolve("a"), secret.image().getParent());
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });
      NodeRoots roots = new NodeRoots(new RootedPaths(List.of(mountRoot)), new RootedPaths(List.of(cacheDir)),
          sources);
      AgentSettings settings = new AgentSettings(OWNER, OWNER + "-uid", List.of(new ImageSpec("img", data.image().toString(), null,
          pinned, 0)), mountRoot, cacheDir, roots, CacheCapacity.parse("1Gi"), Duration.ofMinutes(10), 10, 0);
      return new Swap(shared, data.image(), secret.image(), settings);
    }

    void undo() throws IOException {
      Files.delete(shared.resolve("a"));
      Files.move(shared.resolve("a.real"), shared.resolve("a"));
    }
  }

  @Test
  void aSourceFolderSwappedForALinkAfterItsCheckIsNeitherReadNorMounted() throws Exception {
    Swap swap = Swap.after(temp, mountRoot, cacheDir, 1, false);
    CacheAgent agent = agent();
    ImageReport report = image(agent.pass(swap.settings()), "img");
    assertThat(report.state()).isEqualTo(ImageState.FAILED);
    assertThat(report.message()).startsWith("Cannot read the source of image img: Cannot use " + swap.image()
        + ": it was replaced after it was checked (it named inode ");
    assertThat(stack("img")).isEmpty();

    swap.undo();
    assertThat(image(agent.pass(swap.settings()), "img").state()).isEqualTo(ImageState.SOURCE);
    assertThat(stack("img")).singleElement().extracting(LoopDevice::backingFile).isEqualTo(swap.image());
  }

  @Test
  void aSourceFolderSwappedForALinkBeforeItsCopyIsNotCopied() throws Exception {
    Swap swap = Swap.after(temp, mountRoot, cacheDir, 2, true); // the pass checks it first, the copy second
    CacheAgent agent = agent();
    NodeReport report = passUntil(agent, swap.settings(), r -> r.decisions().stream()
        .anyMatch(d -> d.action().startsWith("Copy")));
    assertThat(report.decisions()).filteredOn(d -> d.action().startsWith("Copy")).singleElement()
        .satisfies(d -> assertThat(d.action()).isEqualTo("CopyFailed"))
        .extracting(Decision::reason).asString().startsWith("Cannot use " + swap.image()
            + ": it was replaced after it was checked");
    assertThat(copies.resolve("img.sqfs")).doesNotExist();
    assertThat(image(report, "img").state()).isNotEqualTo(ImageState.CACHED);
    swap.undo();
  }

  @Test
  void anImageReplacedBetweenItsCheckAndItsMountIsNotMounted() throws Exception {
    TestImage checked = TestImage.build(temp, "checked", 2, (int) MIB, 23);
    TestImage other = TestImage.build(temp, "other", 2, (int) MIB, 24);
    FileIdentity identity = FileIdentity.of(checked.image());
    Files.move(other.image(), checked.image(), StandardCopyOption.REPLACE_EXISTING);
    Path point = Files.createDirectories(mountRoot.resolve("checked"));
    assertThatThrownBy(() -> Mounts.mountImage(checked.image(), identity, point))
        .hasMessageStartingWith("Cannot mount " + checked.image() + ": it was replaced after it was checked (it named "
            + identity + ", the loop device reads ");
    assertThat(MountTable.read().stackAt(point)).isEmpty();
    assertThat(LoopDevice.attached()).noneMatch(loop -> loop.backingFile().startsWith(temp));
  }

  private static void dropCaches() throws IOException {
    Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
  }
}
