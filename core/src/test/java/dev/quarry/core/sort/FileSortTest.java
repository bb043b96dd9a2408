package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.extract.LocalPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.RequestKind;
import dev.quarry.core.store.S3Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The sort contract on the filesystem store, the embedded default. */
class FileSortTest extends SortContract {
  @Override
  ObjectStores openStores(UnaryOperator<ObjectStore> decorate) {
    return new ObjectStores(S3Settings.defaults(), decorate);
  }

  @Override
  String newRoot() {
    return temp + "/";
  }

  /**
   * A worker killed while it wrote a pack leaves the pack's temp file in the scratch folder (as a multipart upload
   * on S3 leaves its parts), which no listing shows: clean gives it up with the rest of the scratch. Before, it stayed
   * until a listing or a write in that folder passed it a day later, which after a clean none does.
   */
  @Test
  void cleanGivesUpTheUploadOfAWorkerKilledWhileItWroteAPack() throws Exception {
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec spec = spec(root + "in/in-{000..005}.tar", new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new dev.quarry.core.sort.extract.ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extract(0, 1);
    dev.quarry.core.store.ObjectUpload killed = scratch.store().upload(new Scratch(scratch.key()).pack(3));
    killed.stream().write(new byte[4096]);
    killed.stream().flush();
    assertThat(uploadTemps(temp.resolve("scratch"))).as("the killed writer's temp file").hasSize(1);

    ScratchCleaning.Cleaned cleaned = ScratchCleaning.clean(scratch, ScratchMarker.of(spec));

    assertThat(cleaned.uploads()).isEqualTo(1);
    assertThat(uploadTemps(temp.resolve("scratch"))).isEmpty();
    assertThat(objects(root + "scratch/")).isEmpty();
    killed.close();
  }

  private static List<Path> uploadTemps(Path folder) throws Exception {
    try (var files = Files.walk(folder)) {
      return files.filter(file -> file.getFileName().toString().startsWith(".quarry-upload-")).toList();
    }
  }

  /**
   * A local run leaves the records of plain tars in local files where they are (none of their bytes held in memory)
   * and its create reads each record's bytes once, hashing them as it writes them; the shards are byte-identical to
   * those it writes from the same tars gzipped, whose records it packs.
   */
  @Test
  void aLocalRunReadsPlainTarsInLocalFilesWhereTheyAreOnceAndWritesTheShardsItWouldFromPacks() throws Exception {
    SortFixture.write(stores, root + "tar/", ShardFormat.TAR, dataset);
    SortFixture.write(stores, root + "gz/", ShardFormat.TAR_GZ, dataset);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null);
    SortSpec fromTars = spec(root + "tar/in-{000..005}.tar", shuffle, records(root + "fromTars/x-{000..}.tar", 45));
    SortSpec fromPacks = spec(root + "gz/in-{000..005}.tar.gz", shuffle,
        new SortSpec.Output(root + "fromPacks/x-{000..}.tar", "tar", null, 45L, null));

    ObjectStore files = stores.locate(root).store();
    long getsBeforeCreate;
    long getsOfCreate;
    try (LocalPacks packs = new LocalPacks(temp.resolve("packs"), 64L << 20)) {
      SortPhases phases = new SortPhases(fromTars, stores, stores.locateUnsynced(temp.resolve("scratch")), packs,
          true, QUIET);
      phases.extract(0, 1);
      assertThat(packs.heldBytes()).as("record bytes of local plain tars held in memory").isZero();
      phases.plan(1);
      getsBeforeCreate = files.requests().get(RequestKind.GET);
      phases.create(0, 1);
      getsOfCreate = files.requests().get(RequestKind.GET) - getsBeforeCreate;
      phases.commit();
    }
    // Each record's members are contiguous in its tar: one range, read once (a pass to hash, then one to write,
    // would read it twice).
    assertThat(getsOfCreate).as("GETs of the inputs by create").isEqualTo(all.size());

    PhaseResult packed = LocalSort.run(fromPacks, stores, temp.resolve("work"), QUIET).getFirst();
    // This spec's budget leaves no room for packs in memory: they spill to the work folder.
    assertThat((long) packed.details().get("packBytesInMemory") + (long) packed.details().get("packBytesSpilled"))
        .as("record bytes of gzipped tars packed").isPositive();
    Map<String, byte[]> read = objects(root + "fromTars/");
    Map<String, byte[]> held = objects(root + "fromPacks/");
    assertThat(read.keySet()).isEqualTo(held.keySet()).contains("x-000.tar", "x-005.tar");
    held.forEach((name, bytes) -> {
      if (name.endsWith(".tar")) {
        assertThat(read.get(name)).as(name).isEqualTo(bytes);
      }
    });
  }

  /** A local plain tar cut short after a local run's extract fails its create in one line, and no shard appears. */
  @Test
  void aLocalTarCutShortAfterALocalRunsExtractFailsCreateClearlyAndWritesNoShard() throws Exception {
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec spec = spec(root + "in/in-{000..005}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        records(root + "cut/x-{000..}.tar", 60));
    try (LocalPacks packs = new LocalPacks(temp.resolve("packs"), 64L << 20)) {
      SortPhases phases = new SortPhases(spec, stores, stores.locateUnsynced(temp.resolve("scratch")), packs, true,
          QUIET);
      phases.extract(0, 1);
      phases.plan(1);
      Location shard = stores.locate(root + "in/in-003.tar");
      byte[] whole = bytes(root + "in/in-003.tar");
      shard.store().put(shard.key(), Arrays.copyOf(whole, whole.length / 2));

      assertThatThrownBy(() -> phases.create(0, 1))
          .hasMessageContaining("Cannot read record bytes of input shard 3")
          .hasMessageContaining("(the input changed since extract; rerun the job)");
    }
    assertThat(objects(root + "cut/").keySet()).as("no shard written, only the run's pending record")
        .containsExactly("x.pending.json");
  }

  /**
   * A folder where the output's pending record goes is refused in one line: the claim looks and finds no record
   * there, and its write if absent finds the name taken; it looked again and wrote again forever (the review's find).
   */
  @Test
  void aFolderAtThePendingRecordsNameIsRefusedNotClaimedForever() throws Exception {
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    Files.createDirectories(Path.of(root + "out/x.pending.json"));
    SortSpec spec = spec(root + "in/in-{000..005}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        records(root + "out/x-{000..}.tar", 60));
    assertTimeoutPreemptively(java.time.Duration.ofMinutes(1), () -> assertThatThrownBy(() ->
        LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot write file://" + root + "out/x.pending.json: Is a directory"));
  }

  /**
   * A local run whose output replaces its own input shards (a committed output sorted again in place, with
   * overwrite) holds their records rather than reading them where they are, which its shards replace as it writes.
   */
  @Test
  void aLocalRunThatOverwritesItsInputsInPlaceHoldsTheirRecordsAndWritesThemWhole() throws Exception {
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    LocalSort.run(spec(root + "in/in-{000..005}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 1L, null, null),
        records(root + "out/x-{000..}.tar", 40)), stores, temp.resolve("work"), QUIET);

    SortSpec again = spec(root + "out/x-{000..005}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 2L, null, null),
        records(root + "out/x-{000..}.tar", 40));
    LocalSort.run(overwriting(again), stores, temp.resolve("work"), QUIET);

    List<String> written = new ArrayList<>();
    for (int shard = 0; shard < 6; shard++) {
      SortFixture.read(stores, root + "out/x-00" + shard + ".tar", ShardFormat.TAR).stream()
          .map(SortFixture::fingerprint).forEach(written::add);
    }
    assertThat(written).containsExactlyInAnyOrderElementsOf(all.stream().map(SortFixture::fingerprint).toList());
  }

  /**
   * A local run writes its shards past the page cache through aligned buffers (whole 1 MiB blocks with O_DIRECT, the
   * tail as usual): shards of several MiB whose sizes are no multiple of the block size come out byte-identical to
   * those of phases that gather and write through the page cache, and the manifest's sha256 is each file's.
   */
  @Test
  void aLocalRunsShardsWrittenPastThePageCacheAreThoseOfPhasesWritingThroughIt() throws Exception {
    java.nio.file.Path in = java.nio.file.Path.of(root, "big");
    new dev.quarry.core.gen.DatasetGenerator(new dev.quarry.core.gen.DatasetSpec("in", 4, 30, 100 << 10, 25, 10,
        ShardFormat.TAR, 3)).writeTo(in, 2, shard -> {});
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 9L, null, null);
    SortSpec local = spec(root + "big/in-{000000..000003}.tar", shuffle, records(root + "direct/x-{00..}.tar", 25));
    SortSpec phased = spec(root + "big/in-{000000..000003}.tar", shuffle, records(root + "cached/x-{00..}.tar", 25));

    LocalSort.run(local, stores, temp.resolve("work"), QUIET);
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(phased, stores, scratch,
        new dev.quarry.core.sort.extract.ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extract(0, 1);
    phases.plan(1);
    phases.create(0, 1);
    phases.commit();

    Map<String, byte[]> direct = objects(root + "direct/");
    Map<String, byte[]> cached = objects(root + "cached/");
    assertThat(direct.keySet()).isEqualTo(cached.keySet()).contains("x-00.tar", "x-04.tar");
    assertThat(direct.entrySet()).as("a shard whose size is no multiple of the block size")
        .anyMatch(shard -> shard.getKey().endsWith(".tar") && shard.getValue().length % 4096 != 0);
    dev.quarry.core.sort.commit.Manifest manifest = dev.quarry.core.json.Json.read(direct.get("x.manifest.json"),
        dev.quarry.core.sort.commit.Manifest.class);
    for (dev.quarry.core.sort.commit.Manifest.Shard shard : manifest.shards()) {
      String name = shard.name().substring(shard.name().lastIndexOf('/') + 1);
      byte[] bytes = direct.get(name);
      assertThat(bytes.length).as(name + " size").isGreaterThan(1 << 20);
      assertThat(bytes).as(name).isEqualTo(cached.get(name));
      assertThat(shard.sha256()).as(name + " sha256").isEqualTo(java.util.HexFormat.of().formatHex(
          java.security.MessageDigest.getInstance("SHA-256").digest(bytes)));
    }
  }
}
