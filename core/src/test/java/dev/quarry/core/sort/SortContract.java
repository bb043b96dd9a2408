package dev.quarry.core.sort;

import static dev.quarry.core.sort.SortFixture.fingerprint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.commit.Manifest;
import dev.quarry.core.sort.commit.OutputClaim;
import dev.quarry.core.sort.commit.PendingOutput;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole sort, every order checked against a reference computed independently, on any store: subclasses give the
 * store and a URL root under which each test writes.
 */
abstract class SortContract {
  static final PrintStream QUIET = new PrintStream(java.io.OutputStream.nullOutputStream());

  @TempDir Path temp;
  /** Where this test's objects go, ending with '/': a folder or an S3 prefix. */
  String root;
  ObjectStores stores;
  List<List<Record>> dataset;
  List<Record> all;

  /** The stores the sort runs against. */
  final ObjectStores openStores() {
    return openStores(UnaryOperator.identity());
  }

  /** The stores the sort runs against, each passed through {@code decorate}. */
  abstract ObjectStores openStores(UnaryOperator<ObjectStore> decorate);

  /** A fresh URL root for one test, ending with '/'. */
  abstract String newRoot();

  @BeforeEach
  void setUp() {
    stores = openStores();
    root = newRoot();
    dataset = SortFixture.dataset(6, 40, 11);
    all = dataset.stream().flatMap(List::stream).toList();
  }

  @AfterEach
  void tearDown() {
    stores.close();
  }

  byte[] bytes(String url) throws java.io.IOException {
    var location = stores.locate(url);
    try (var in = location.store().get(location.key())) {
      return in.readAllBytes();
    }
  }

  String sibling(String url, String name) {
    return url.substring(0, url.lastIndexOf('/') + 1) + name;
  }

  private String input(ShardFormat format) throws Exception {
    SortFixture.write(stores, root + "in/", format, dataset);
    return root + "in/in-{000..005}." + format.extension();
  }

  SortSpec spec(String input, SortSpec.Order order, SortSpec.Output output) {
    return new SortSpec(new SortSpec.Input(input, null, null, null), output, order, null,
        new SortSpec.Workers("32Mi", 8), null, false);
  }

  static SortSpec.Output records(String template, long perShard) {
    return new SortSpec.Output(template, null, null, perShard, null);
  }

  /** Runs the sort locally and returns the output records in order, shard after shard, read via the manifest. */
  private List<Record> runAndRead(SortSpec spec, String manifestUrl, ShardFormat format) throws Exception {
    LocalSort.run(spec, stores, temp.resolve("work"), QUIET);
    Manifest manifest = Json.read(bytes(manifestUrl), Manifest.class);
    List<Record> records = new ArrayList<>();
    for (Manifest.Shard shard : manifest.shards()) {
      String url = sibling(manifestUrl, shard.name());
      List<Record> inShard = SortFixture.read(stores, url, format);
      assertThat(inShard).hasSize((int) shard.records());
      assertThat((long) bytes(url).length).isEqualTo(shard.size());
      records.addAll(inShard);
    }
    return records;
  }

  private static List<String> fingerprints(List<Record> records) {
    return records.stream().map(SortFixture::fingerprint).toList();
  }

  private List<String> keys() {
    return all.stream().map(Record::key).toList();
  }

  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"TAR", "TAR_GZ", "TAR_LZ4"})
  void alphanumericIsUtf8ByteOrderAscendingAndDescending(ShardFormat format) throws Exception {
    String input = input(format);
    List<Record> expected = new ArrayList<>(all);
    expected.sort(Comparator.comparing(r -> r.key().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
    List<Record> up = runAndRead(spec(input, new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null),
        records(root + "up/part-{000..}." + format.extension(), 50)), root + "up/part.manifest.json", format);
    assertThat(fingerprints(up)).containsExactlyElementsOf(fingerprints(expected));

    List<Record> down = runAndRead(spec(input, new SortSpec.Order(OrderKind.ALPHANUMERIC, true, null, null, null),
        records(root + "down/part-{000..}." + format.extension(), 50)), root + "down/part.manifest.json", format);
    List<Record> reversed = new ArrayList<>(expected);
    java.util.Collections.reverse(reversed);
    assertThat(fingerprints(down)).containsExactlyElementsOf(fingerprints(reversed));
  }

  @Test
  void noneKeepsInputOrder() throws Exception {
    List<Record> out = runAndRead(spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null,
        null), records(root + "out/x-{0..}.tar", 7)), root + "out/x.manifest.json", ShardFormat.TAR);
    assertThat(fingerprints(out)).containsExactlyElementsOf(fingerprints(all));
  }

  @Test
  void md5OrderMatchesPythonsHashlib() throws Exception {
    List<Record> out = runAndRead(spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.MD5, null, null, null,
        null), records(root + "out/x-{0..}.tar", 100)), root + "out/x.manifest.json", ShardFormat.TAR);
    Files.write(temp.resolve("keys.txt"), keys());
    List<String> reference = CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import hashlib
        keys = open('keys.txt').read().split()
        for k in sorted(keys, key=lambda k: (hashlib.md5(k.encode()).hexdigest(), k.encode())): print(k)
        """).lines().toList();
    assertThat(out.stream().map(Record::key).toList()).containsExactlyElementsOf(reference);
  }

  @Test
  void contentOrderMatchesPythonSortingByTheLabel() throws Exception {
    SortSpec.ContentKey cls = new SortSpec.ContentKey("cls", SortSpec.ContentType.INT);
    List<Record> out = runAndRead(spec(input(ShardFormat.TAR_GZ), new SortSpec.Order(OrderKind.CONTENT, true, null,
        cls, null), records(root + "out/x-{0..}.tar.gz", 64)), root + "out/x.manifest.json", ShardFormat.TAR_GZ);
    List<String> lines = all.stream().map(r -> r.key() + " " + new String(r.members().get(0).data())).toList();
    Files.write(temp.resolve("labels.txt"), lines);
    List<String> reference = CommandResult.check(temp, TestTools.python().toString(), "-c", """
        rows = [line.split() for line in open('labels.txt')]
        for key, label in sorted(rows, key=lambda r: (-int(r[1]), r[0].encode())): print(key)
        """).lines().toList();
    assertThat(out.stream().map(Record::key).toList()).containsExactlyElementsOf(reference);
  }

  @Test
  void shuffleIsAPermutationFixedByTheSeed() throws Exception {
    String input = input(ShardFormat.TAR);
    List<String> seven = fingerprints(runAndRead(spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null,
        null), records(root + "a/x-{0..}.tar", 50)), root + "a/x.manifest.json", ShardFormat.TAR));
    List<String> sevenAgain = fingerprints(runAndRead(spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 7L,
        null, null), records(root + "b/x-{0..}.tar", 50)), root + "b/x.manifest.json", ShardFormat.TAR));
    List<String> eight = fingerprints(runAndRead(spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 8L, null,
        null), records(root + "c/x-{0..}.tar", 50)), root + "c/x.manifest.json", ShardFormat.TAR));
    assertThat(seven).containsExactlyInAnyOrderElementsOf(fingerprints(all)).isEqualTo(sevenAgain)
        .isNotEqualTo(eight).isNotEqualTo(fingerprints(all));
    for (int i = 0; i < 5; i++) {
      assertThat(bytes(root + "a/x-" + i + ".tar"))
          .as("byte-identical shard %d", i).isEqualTo(bytes(root + "b/x-" + i + ".tar"));
    }
  }

  @Test
  void keymapRoutesRecordsToTheTemplateOfTheFirstMatchingLine() throws Exception {
    // An absolute template inside the output location, and one relative to it.
    String keymap = "img/[a-m].*\t" + root + "km/early-{00..}.tar\n# a comment\n"
        + "img/.*\tlate-{00..}.tar\n";
    List<Record> early = runAndRead(spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.KEYMAP, null, null,
        null, new SortSpec.Keymap(keymap, null, null)), records(root + "km/by-keymap-{0..}.tar", 30)),
        root + "km/early.manifest.json", ShardFormat.TAR);
    List<Record> late = new ArrayList<>();
    Manifest manifest = Json.read(bytes(root + "km/late.manifest.json"), Manifest.class);
    for (Manifest.Shard shard : manifest.shards()) {
      late.addAll(SortFixture.read(stores, root + "km/" + shard.name(), ShardFormat.TAR));
    }
    assertThat(early).allMatch(r -> r.key().charAt(4) <= 'm').isNotEmpty();
    assertThat(late).allMatch(r -> r.key().charAt(4) > 'm').isNotEmpty();
    assertThat(early.size() + late.size()).isEqualTo(all.size());
    assertThat(early.stream().map(Record::key).toList()).isSorted();
  }

  /** Every form of escape a key map template can take, on this store. */
  List<String> escapingTemplates() {
    return List.of("../outside/km-{0..}.tar", root + "outside/km-{0..}.tar", "s3://quarry-elsewhere/km-{0..}.tar",
        "/etc/quarry-km-{0..}.tar", root + "out/sub/../../outside/km-{0..}.tar");
  }

  @Test
  void keymapTemplatesCannotEscapeTheOutputLocation() throws Exception {
    String input = input(ShardFormat.TAR);
    for (String escaping : escapingTemplates()) {
      String keymap = "img/[a-m].*\tkm-{0..}.tar\nimg/.*\t" + escaping + "\n";
      SortSpec spec = spec(input, new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
          new SortSpec.Keymap(keymap, null, null)), records(root + "out/x-{0..}.tar", 30));
      assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET)).as(escaping)
          .hasMessage("Invalid key map line 2: its template names shards outside the output location " + root
              + "out/ (policy keymapMalformedLine is abort; fix the line, or set the policy to warn or ignore to"
              + " skip it)");
    }
    Location outside = stores.locate(root + "outside/");
    assertThat(outside.store().listAll(outside.key()).toList()).as("nothing written outside").isEmpty();
    assertThat(Files.exists(Path.of("/etc/quarry-km-0.tar"))).isFalse();
  }

  @Test
  void noOutputNameIsInTheReservedScratchFolder() throws Exception {
    String input = input(ShardFormat.TAR);
    String keymap = "img/[a-m].*\tkm-{0..}.tar\nimg/.*\t.quarry-scratch/j/packs/{00000000..}.tar\n";
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap(keymap, null, null)), records(root + "out/x-{0..}.tar", 30));
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Invalid key map line 2: its template names shards in a .quarry-scratch folder, which is"
            + " reserved for sort scratch (policy keymapMalformedLine is abort; fix the line, or set the policy to"
            + " warn or ignore to skip it)");
    assertThatThrownBy(() -> records(root + "out/.quarry-scratch/j/x-{0..}.tar", 30))
        .hasMessage("Invalid output.template: " + root + "out/.quarry-scratch/j/x-{0..}.tar (must not be in a"
            + " .quarry-scratch folder, which is reserved for sort scratch)");
    Location reserved = stores.locate(root + "out/.quarry-scratch/");
    assertThat(reserved.store().listAll(reserved.key()).toList()).as("nothing written there").isEmpty();
  }

  /**
   * Shards are written in the format their names end in, as dSort's output extension decides its format: tar input
   * into {@code x-{0..}.zip} writes zip shards, where before it wrote tar bytes under .zip names (the input's format
   * was the default whatever the names said). A name that ends in no format's extension takes the input's; an
   * {@code output.format} that differs from the names' is refused when the spec is read. With a key map order the
   * output template gives only the folder: its lines' templates decide, and a line naming another format than
   * output.format, or without one than the first line's, is a malformed line, refused at extract before anything is
   * written.
   */
  @Test
  void theOutputIsWrittenInTheFormatItsNamesEndIn() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null);
    List<Record> zipped = runAndRead(spec(input, shuffle, records(root + "zip/x-{0..}.zip", 30)),
        root + "zip/x.manifest.json", ShardFormat.ZIP);
    assertThat(Json.read(bytes(root + "zip/x.manifest.json"), Manifest.class).format()).isEqualTo("zip");
    assertThat(bytes(root + "zip/x-0.zip")).startsWith('P', 'K', 3, 4);
    assertThat(fingerprints(zipped)).isEqualTo(fingerprints(runAndRead(spec(input, shuffle,
        records(root + "tar/x-{0..}.tar", 30)), root + "tar/x.manifest.json", ShardFormat.TAR)));
    runAndRead(spec(input, shuffle, records(root + "bare/x-{0..}", 30)), root + "bare/x.manifest.json",
        ShardFormat.TAR);
    assertThat(Json.read(bytes(root + "bare/x.manifest.json"), Manifest.class).format()).isEqualTo("tar");
    assertThatThrownBy(() -> spec(input, shuffle, new SortSpec.Output(root + "o/x-{0..}.zip", "tar", null, 30L,
        null))).hasMessage("Invalid output.format: tar, where output.template " + root + "o/x-{0..}.zip names zip"
            + " shards (name the shards .tar, or set output.format to zip)");

    // A key map's lines decide, whatever the output template's name: here .tar, the folder's alone.
    SortSpec.Order keymap = new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap("img/[a-m].*\tkm-{0..}.zip\nimg/.*\tother-{0..}\n", null, null));
    runAndRead(spec(input, keymap, new SortSpec.Output(root + "km/x-{0..}.tar", "zip", null, 30L, null)),
        root + "km/km.manifest.json", ShardFormat.ZIP);
    assertThat(Json.read(bytes(root + "km/other.manifest.json"), Manifest.class).format()).isEqualTo("zip");
    runAndRead(spec(input, keymap, records(root + "km2/x-{0..}.tar", 30)), root + "km2/other.manifest.json",
        ShardFormat.ZIP);
    record Refused(String keymap, String format, String problem) {}
    for (Refused refused : List.of(
        new Refused("img/[a-m].*\tkm-{0..}.tar\nimg/.*\tother-{0..}.zip\n", null, "its template names zip"
            + " shards, where line 1's names tar (a job writes one format: name them alike, or set output.format)"),
        new Refused("img/[a-m].*\tkm-{0..}.zip\nimg/.*\tother-{0..}.tar\n", "zip", "its template names tar"
            + " shards, where output.format is zip (name them .zip)"))) {
      SortSpec mixed = spec(input, new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
          new SortSpec.Keymap(refused.keymap(), null, null)),
          new SortSpec.Output(root + "mixed/x-{0..}.tar", refused.format(), null, 30L, null));
      assertThatThrownBy(() -> LocalSort.run(mixed, stores, temp.resolve("work"), QUIET)).as(refused.keymap())
          .hasMessage("Invalid key map line 2: " + refused.problem() + " (policy keymapMalformedLine is abort; fix"
              + " the line, or set the policy to warn or ignore to skip it)");
      SortPhases phases = phases(mixed, root + "mixed-scratch-" + (refused.format() == null ? "named" : "declared")
          + "/");
      assertThatThrownBy(() -> phases.extract(0, 1)).as("extract").hasMessageStartingWith("Invalid key map line 2");
      Location mixedOut = stores.locate(root + "mixed/");
      assertThat(mixedOut.store().listAll(mixedOut.key()).toList()).as("nothing written").isEmpty();
    }
  }

  @Test
  void anOutputTemplateWithItsRangeInAFolderIsRefused() throws Exception {
    assertThatThrownBy(() -> records(root + "o2/{000..}/s.tar", 30))
        .hasMessage("Invalid output.template: " + root + "o2/{000..}/s.tar (must have its range in the file name,"
            + " not in a folder name)");
    String keymap = "img/[a-m].*\tkm-{0..}.tar\nimg/.*\tsub-{0..}/s.tar\n";
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap(keymap, null, null)), records(root + "out/x-{0..}.tar", 30));
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Invalid key map line 2: its template has its range in a folder name (must be in the file name)"
            + " (policy keymapMalformedLine is abort; fix the line, or set the policy to warn or ignore to skip it)");
  }

  @Test
  void twoKeymapTemplatesThatWouldShareOneManifestAreRefused() throws Exception {
    String keymap = "img/[a-m].*\ta-{0..}.tar\nimg/.*\ta_{000..}.tar\n";
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap(keymap, null, null)), records(root + "out/x-{0..}.tar", 30));
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Invalid key map line 2: its template would share the manifest " + root + "out/a.manifest.json"
            + " with line 1's (give each template its own name before the range) (policy keymapMalformedLine is"
            + " abort; fix the line, or set the policy to warn or ignore to skip it)");
    Location out = stores.locate(root + "out/");
    assertThat(out.store().listAll(out.key()).toList()).as("nothing written").isEmpty();
  }

  @Test
  void aPlanWhoseShardNamesWereTamperedWithWritesNothingOutside() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{0..}.tar", 1000));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extract(0, 1);
    phases.plan(1);
    String shards = new String(bytes(root + "scratch/plan/shards-00000-000000.json"), StandardCharsets.UTF_8);
    scratch.store().put(new Scratch(scratch.key()).planShards(0, 0),
        shards.replace(root + "out/x-0.tar", root + "outside/x-0.tar").getBytes(StandardCharsets.UTF_8));
    // Refused as a name its template does not give; were it the template's, the output rule would refuse it still.
    assertThatThrownBy(() -> phases.create(0, 1))
        .hasMessage("Cannot read the plan's output shards: shard 0 does not have the name its template gives it (the"
            + " scratch was changed; clean it and sort again)");
    Location outside = stores.locate(root + "outside/");
    assertThat(outside.store().listAll(outside.key()).toList()).as("nothing written outside").isEmpty();
  }

  @Test
  void cleanDeletesOnlyWhatThePhasesWroteUnderTheirMarkedScratch() throws Exception {
    String input = input(ShardFormat.TAR_GZ); // packs too
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 45));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extractThenPlan(0, 1);
    phases.createThenCommit(0, 1);
    Map<String, byte[]> inputs = objects(root + "in/");
    Map<String, byte[]> outputs = objects(root + "out/");
    assertThat(objects(root + "scratch/")).containsKey(".quarry-scratch.json");
    scratch.store().put(scratch.key() + "someone-elses.txt", "keep".getBytes(StandardCharsets.UTF_8));
    // A content step's list as the previous release named it: a newer clean deletes it too.
    scratch.store().put(scratch.key() + "partition/00000/ordered-" + java.util.UUID.randomUUID() + "-00003.run",
        new byte[] {1});

    ScratchCleaning.Cleaned cleaned = ScratchCleaning.clean(scratch, ScratchMarker.of(spec));

    assertThat(cleaned.kept()).isEqualTo(1);
    assertThat(cleaned.objects()).isGreaterThan(10);
    assertThat(objects(root + "scratch/").keySet()).containsExactly("someone-elses.txt");
    assertThat(objects(root + "in/")).containsOnlyKeys(inputs.keySet());
    assertThat(objects(root + "out/")).containsOnlyKeys(outputs.keySet());
  }

  /**
   * A store that refuses to list unfinished uploads does not stop a clean: the rest is deleted, the refusal said. Any
   * other failure keeps the marker, so that the next clean tries again.
   */
  @Test
  void cleanUnderAStoreThatRefusesToListUploadsDeletesTheRestAndSaysWhy() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 45));
    java.util.concurrent.atomic.AtomicReference<IOException> failure = new java.util.concurrent.atomic.AtomicReference<>(
        new IOException("Cannot list the uploads under the scratch: SlowDown (HTTP 503)"));
    try (ObjectStores failing = openStores(store -> new DelegatingStore(store) {
      @Override
      public int removeAbandonedUploads(String prefix, java.time.Duration olderThan) throws IOException {
        throw failure.get();
      }
    })) {
      Location scratch = failing.locate(root + "scratch/");
      SortPhases phases = new SortPhases(spec, failing, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
      phases.extractThenPlan(0, 1);
      phases.createThenCommit(0, 1);

      assertThatThrownBy(() -> ScratchCleaning.clean(scratch, ScratchMarker.of(spec)))
          .hasMessage("Cannot list the uploads under the scratch: SlowDown (HTTP 503)");
      assertThat(objects(root + "scratch/").keySet()).as("the marker, for the next clean")
          .containsExactly(".quarry-scratch.json");

      failure.set(new dev.quarry.core.store.RequestRefusedException("Cannot list the uploads under the scratch:"
          + " AccessDenied (HTTP 403)", null));
      ScratchCleaning.Cleaned cleaned = ScratchCleaning.clean(scratch, ScratchMarker.of(spec));

      assertThat(cleaned.uploadsLeft()).isEqualTo("Cannot list the uploads under the scratch: AccessDenied (HTTP 403)");
    }
    assertThat(objects(root + "scratch/")).as("the marker too").isEmpty();
    assertThat(objects(root + "out/")).containsKey("x.manifest.json");
  }

  @Test
  void cleanRefusesAPrefixWithoutMarkerAndAPhaseRefusesToWriteThere() throws Exception {
    String input = input(ShardFormat.TAR);
    Location data = stores.locate(root + "data/");
    data.store().put(data.key() + "inputs.json", "precious".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> ScratchCleaning.clean(data, new ScratchMarker(ScratchMarker.FORMAT, "0".repeat(64))))
        .hasMessage("Cannot clean " + data.url() + ": it has no .quarry-scratch.json, so it is not a sort's scratch;"
            + " nothing was deleted");
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    SortPhases phases = new SortPhases(spec, stores, data, new ScratchPacks(data.store(), new Scratch(data.key())),
        false, QUIET);
    assertThatThrownBy(() -> phases.extract(0, 1))
        .hasMessage("Cannot use scratch " + data.url() + ": it holds objects but no .quarry-scratch.json, so it is"
            + " not a sort's scratch (choose an empty folder of its own)");
    assertThat(objects(root + "data/").keySet()).containsExactly("inputs.json");
    assertThat(new String(bytes(root + "data/inputs.json"), StandardCharsets.UTF_8)).isEqualTo("precious");
  }

  @Test
  void aScratchOfAnotherJobIsRefused() throws Exception {
    String input = input(ShardFormat.TAR);
    Location scratch = stores.locate(root + "scratch/");
    SortPhases first = new SortPhases(spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "a/x-{000..}.tar", 45)), stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    first.extract(0, 1);
    SortPhases second = new SortPhases(spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "b/x-{000..}.tar", 45)), stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    assertThatThrownBy(() -> second.plan(1)).hasMessage("Cannot use scratch " + scratch.url() + ": it is the"
        + " scratch of another job (its input, output, order or policies differ; choose another folder)");
  }

  /**
   * Extract run again in the same scratch with fewer workers (4, then 2): the first of the 2 to finish does not take
   * the earlier run's results of its indexes for this run's and does not plan; the last one does. Before, the first
   * planned, the plan refused the earlier run's marker of worker 1 ("ran with --count 4"), and a worker that had done
   * its work failed (in a cluster, again on each retry).
   */
  @Test
  void aPhaseRunAgainWithFewerWorkersPlansOnlyOnceAllOfThisRunHaveFinished() throws Exception {
    SortSpec job = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.MD5, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    SortPhases phases = phases(job, root + "scratch/");
    for (int index = 0; index < 4; index++) {
      phases.extract(index, 4);
    }
    assertThat(phases.extractThenPlan(0, 2)).extracting(PhaseResult::phase).containsExactly("extract");
    assertThat(phases.extractThenPlan(1, 2)).extracting(PhaseResult::phase).containsExactly("extract", "plan");
  }

  /**
   * Two jobs marking one empty scratch at the same moment (both looked and found it empty before either wrote): one
   * marks it, the other is refused. Before, the marker was written unconditionally, both went on, and one job's
   * extract markers and runs could replace the other's under the same names.
   */
  @Test
  void twoJobsMarkingOneScratchAtTheSameMomentMarkItOnce() throws Exception {
    String input = input(ShardFormat.TAR);
    List<SortSpec> jobs = List.of(
        spec(input, new SortSpec.Order(OrderKind.MD5, null, null, null, null), records(root + "a/x-{000..}.tar", 45)),
        spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
            records(root + "b/x-{000..}.tar", 45)));
    Location scratch = stores.locate(root + "scratch/");
    List<Throwable> refused = new ArrayList<>();
    String winner = atTheSameMoment(new Scratch(scratch.key()).marker(), jobs, refused,
        (latched, job) -> ScratchMarker.of(job).claim(latched.locate(root + "scratch/")));
    assertThat(refused).singleElement().satisfies(e -> assertThat(e).hasMessage("Cannot use scratch "
        + scratch.url() + ": it is the scratch of another job (its input, output, order or policies differ; choose"
        + " another folder)"));
    assertThat(ScratchMarker.read(scratch).map(ScratchMarker::job)).contains(winner);
  }

  /**
   * A job begun by an earlier Quarry, whose scratch has another layout, is refused by every phase in one line that
   * says what to do, and cleaned by clean: before, a newer worker read the earlier layout's objects as its own (the
   * whole input list of version 1 as version 2's summary of pages; version 2's extract runs, numbered across
   * partitions, under version 3's names of other runs).
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"quarry-sort-scratch/1", "quarry-sort-scratch/2",
      "quarry-sort-scratch/3"})
  void aScratchOfAnEarlierLayoutIsRefusedByThePhasesAndCleanedByClean(String earlier) throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "a/x-{000..}.tar", 45));
    Location scratch = stores.locate(root + "scratch/");
    phases(spec, root + "scratch/").extract(0, 1);
    String marker = new Scratch(scratch.key()).marker();
    scratch.store().put(marker, new String(scratch.store().getBytes(marker), StandardCharsets.UTF_8)
        .replace(ScratchMarker.FORMAT, earlier).getBytes(StandardCharsets.UTF_8));

    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatThrownBy(() -> phases(spec, root + "scratch/").plan(1)).hasMessage("Cannot use scratch "
          + scratch.url() + ": an earlier Quarry began this job there (" + earlier + ", not "
          + ScratchMarker.FORMAT + "); run quarry sort clean for it, then sort again");
    }
    assertThat(ScratchCleaning.clean(scratch, ScratchMarker.of(spec)).objects()).isGreaterThan(1);
    assertThat(objects(root + "scratch/")).isEmpty();
    phases(spec, root + "scratch/").extract(0, 1);
  }

  @Test
  void cleanOfOneJobLeavesTheScratchOfAnotherThatItsSpecNamed() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec owner = spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "b/x-{000..}.tar", 45));
    SortSpec intruder = spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "a/x-{000..}.tar", 45));
    Location scratch = stores.locate(root + "scratch/");
    phases(owner, root + "scratch/").extract(0, 1);
    assertThatThrownBy(() -> phases(intruder, root + "scratch/").extract(0, 1))
        .hasMessageContaining("it is the scratch of another job");
    Map<String, byte[]> before = objects(root + "scratch/");

    assertThatThrownBy(() -> ScratchCleaning.clean(scratch, ScratchMarker.of(intruder)))
        .hasMessage("Cannot clean " + scratch.url() + ": it is the scratch of another job (its input, output, order"
            + " or policies differ); nothing was deleted");
    assertThat(objects(root + "scratch/")).containsOnlyKeys(before.keySet());
    assertThat(ScratchCleaning.clean(scratch, ScratchMarker.of(owner)).objects()).isGreaterThan(1);
  }

  @Test
  void aRerunOfExtractWithAnotherCountRedoesItsShareAndPlanRefusesMixedCounts() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 4);
    phases.extract(1, 4);
    assertThatThrownBy(() -> phases.plan(2)).hasMessage("Cannot plan: extract worker 0 ran with --count 4, not 2"
        + " (rerun every extract worker with --count 2)");

    phases.extract(0, 2);
    phases.extract(1, 2);
    phases.plan(2);
    phases.createThenCommit(0, 1);

    Manifest manifest = Json.read(bytes(root + "out/x.manifest.json"), Manifest.class);
    assertThat(manifest.shards().stream().mapToLong(Manifest.Shard::records).sum()).isEqualTo(all.size());
  }

  /**
   * Create workers in separate processes read plain tar records where they are: a committed output sorted again in
   * place, with overwrite, had one create worker replace input shards another still read from (wrong bytes in the
   * output, or a failed read). Extract packs the inputs the output can replace, so create reads the pack.
   */
  @Test
  void createWorkersThatOverwriteTheirInputsInPlaceReadTheirRecordsFromPacksAndWriteThemWhole() throws Exception {
    String input = input(ShardFormat.TAR);
    LocalSort.run(spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 1L, null, null),
        records(root + "out/x-{000..}.tar", 40)), stores, temp.resolve("work"), QUIET);

    SortSpec again = overwriting(spec(root + "out/x-{000..005}.tar",
        new SortSpec.Order(OrderKind.SHUFFLE, null, 2L, null, null), records(root + "out/x-{000..}.tar", 40)));
    SortPhases phases = phases(again, root + "scratch/");
    phases.extract(0, 1);
    phases.plan(1);
    for (int index = 0; index < 3; index++) {
      phases.create(index, 3);
    }
    phases.commit();

    List<String> written = new ArrayList<>();
    for (int shard = 0; shard < 6; shard++) {
      SortFixture.read(stores, root + "out/x-00" + shard + ".tar", ShardFormat.TAR).stream()
          .map(SortFixture::fingerprint).forEach(written::add);
    }
    assertThat(written).containsExactlyInAnyOrderElementsOf(all.stream().map(SortFixture::fingerprint).toList());
  }

  static SortSpec overwriting(SortSpec spec) {
    return new SortSpec(spec.input(), spec.output(), spec.order(), spec.policies(), spec.workers(), spec.scratch(),
        spec.dryRun(), true);
  }

  /**
   * The phases over {@code scratchUrl}; an extract index other than 0 waits a moment for index 0's splitters, since
   * the tests often run index 0 last.
   */
  SortPhases phases(SortSpec spec, String scratchUrl) {
    Location scratch = stores.locate(scratchUrl);
    return new SortPhases(spec, stores, scratch, new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false,
        java.time.Duration.ofMillis(100), QUIET);
  }

  /**
   * Extract index 0 draws the key sample once and stores the splitters in scratch; index 1, run as another process
   * with stores of its own, uses them: its requests to the inputs are a HEAD and a GET of each of its own shards and
   * nothing else, and its done marker names the same splitters. Clean deletes them with the rest.
   */
  @Test
  void extractIndex0DrawsTheKeySampleOnceAndTheOtherIndexesUseItsSplitters() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null),
        records(root + "out/x-{000..}.tar", 20));
    Location scratch = stores.locate(root + "scratch/");
    phases(spec, root + "scratch/").extract(0, 2, 4);
    assertThat(objects(root + "scratch/").keySet()).contains("sample/splitters-00004.json");
    try (ObjectStores worker1 = openStores()) {
      new SortPhases(spec, worker1, scratch, new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false,
          java.time.Duration.ofMinutes(10), QUIET).extract(1, 2, 4);
      assertThat(worker1.requests().total()).as("requests of extract index 1 to the inputs").isEqualTo(2 * 3);
    }
    Scratch names = new Scratch(scratch.key());
    var markers = new ArrayList<dev.quarry.core.sort.extract.ExtractResult>();
    for (int index = 0; index < 2; index++) {
      markers.add(StoredJson.read(scratch.store(), names.extractDone(index),
          dev.quarry.core.sort.extract.ExtractResult.class));
    }
    assertThat(markers.get(0).splittersSha256()).isNotNull().isEqualTo(markers.get(1).splittersSha256());
    ScratchCleaning.clean(scratch, ScratchMarker.of(spec));
    assertThat(objects(root + "scratch/")).as("clean deletes the splitters too").isEmpty();
  }

  @Test
  void aRerunIntoACommittedOutputIsRefusedUnlessOverwriteWhichLeavesOnlyTheNewRun() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order md5 = new SortSpec.Order(OrderKind.MD5, null, null, null, null);
    LocalSort.run(spec(input, md5, records(root + "out/x-{000..}.tar", 20)), stores, temp.resolve("work"), QUIET);
    Location out = stores.locate(root + "out/");
    out.store().put(out.key() + "README.txt", "not a shard".getBytes(StandardCharsets.UTF_8));
    out.store().put(out.key() + "y-000.tar", "another template's".getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> before = objects(root + "out/");
    assertThat(before).hasSize(12 + 2 + 2);

    SortSpec rerun = spec(input, md5, records(root + "out/x-{000..}.tar", 45));
    assertThatThrownBy(() -> LocalSort.run(rerun, stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot sort into " + root + "out/x-{000..}.tar: " + root + "out/x.manifest.json commits the"
            + " output of an earlier run (12 shards); pass --overwrite (overwrite: true in a ShardSortJob) to replace"
            + " it, or choose another output");
    Map<String, byte[]> refused = objects(root + "out/");
    assertThat(refused.keySet()).isEqualTo(before.keySet());
    before.forEach((name, bytes) -> assertThat(refused.get(name)).as(name).isEqualTo(bytes));

    LocalSort.run(overwriting(rerun), stores, temp.resolve("work"), QUIET);
    LocalSort.run(spec(input, md5, records(root + "fresh/x-{000..}.tar", 45)), stores, temp.resolve("work"), QUIET);
    Map<String, byte[]> replaced = objects(root + "out/");
    Map<String, byte[]> fresh = objects(root + "fresh/");
    fresh.put("README.txt", before.get("README.txt"));
    fresh.put("y-000.tar", before.get("y-000.tar"));
    assertThat(replaced.keySet()).isEqualTo(fresh.keySet());
    fresh.forEach((name, bytes) -> assertThat(replaced.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void aManifestOrPendingRecordNamingAFileThatIsNoShardOfTheTemplateDeletesNothing() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order md5 = new SortSpec.Order(OrderKind.MD5, null, null, null, null);
    SortSpec spec = spec(input, md5, records(root + "out/x-{000..}.tar", 45));
    LocalSort.run(spec, stores, temp.resolve("work"), QUIET);
    Location out = stores.locate(root + "out/");
    out.store().put(out.key() + "README.md", "precious".getBytes(StandardCharsets.UTF_8));
    Manifest manifest = Json.read(bytes(root + "out/x.manifest.json"), Manifest.class);
    List<Manifest.Shard> shards = new ArrayList<>(manifest.shards());
    shards.add(new Manifest.Shard("README.md", 8, 0, "0".repeat(64)));
    out.store().put(out.key() + "x.manifest.json", Json.bytes(new Manifest(manifest.version(), manifest.createdBy(),
        manifest.format(), manifest.records(), manifest.bytes(), shards)));
    assertThatThrownBy(() -> LocalSort.run(overwriting(spec(input, md5, records(root + "out/x-{000..}.tar", 20))),
        stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot use " + root + "out/x.manifest.json: it names a shard that is not a shard of "
            + root + "out/x-{000..}.tar (it is corrupt or not Quarry's; move it away, or choose another output)");
    assertThat(new String(bytes(root + "out/README.md"), StandardCharsets.UTF_8)).isEqualTo("precious");

    out.store().delete(out.key() + "x.manifest.json");
    out.store().put(out.key() + "x.pending.json", Json.bytes(new dev.quarry.core.sort.commit.PendingOutput(
        dev.quarry.core.sort.commit.PendingOutput.FORMAT, ScratchMarker.of(spec).job(), List.of("README.md"))));
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot use " + root + "out/x.pending.json: it names a shard that is not a shard of "
            + root + "out/x-{000..}.tar (it is corrupt or not Quarry's; move it away, or choose another output)");
    assertThat(new String(bytes(root + "out/README.md"), StandardCharsets.UTF_8)).isEqualTo("precious");
  }

  /** A manifest larger than any Quarry writes (1 GiB, by its size) is refused without a GET of it. */
  @Test
  void aManifestTooLargeToBeQuarrysIsRefusedUnread() throws Exception {
    String input = input(ShardFormat.TAR);
    Location out = stores.locate(root + "out/");
    out.store().put(out.key() + "x.manifest.json", "{}".getBytes(StandardCharsets.UTF_8));
    String manifestKey = out.key() + "x.manifest.json";
    AtomicInteger manifestGets = new AtomicInteger();
    SortSpec spec = overwriting(spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45)));
    try (ObjectStores huge = openStores(store -> new DelegatingStore(store) {
      @Override
      public Optional<ObjectInfo> head(String key) throws IOException {
        return super.head(key).map(info -> key.equals(manifestKey)
            ? new ObjectInfo(info.key(), (1L << 30) + 1, info.etag(), info.lastModified()) : info);
      }

      @Override
      public void before(String kind, String key) {
        if (key.equals(manifestKey) && kind.equals("GET")) {
          manifestGets.incrementAndGet();
        }
      }
    })) {
      assertThatThrownBy(() -> new OutputClaim(huge, spec).check(List.of(BraceTemplate.parse(root
          + "out/x-{000..}.tar", true)))).hasMessage("Cannot use " + root + "out/x.manifest.json: it is larger than"
          + " 1024 MiB, more than a Quarry manifest has (move it away, or choose another output)");
    }
    assertThat(manifestGets).hasValue(0);
  }

  /**
   * The manifest of an output of 250,000 shards (about 39 MiB) is read back, its names alone held, so the output can
   * be replaced with overwrite: before, a manifest past 32 MiB (some 150,000 shards) was refused, and an output of the
   * projected 100 TiB in 256 MiB shards (409,600) could never be sorted into again.
   */
  @Test
  void theManifestOfAnOutputOfHundredsOfThousandsOfShardsIsReadBack() throws Exception {
    String input = input(ShardFormat.TAR);
    Location out = stores.locate(root + "out/");
    List<Manifest.Shard> shards = new ArrayList<>();
    for (int i = 0; i < 250_000; i++) {
      shards.add(new Manifest.Shard(String.format("x-%06d.tar", i), 268_435_456L, 2_621L, "0".repeat(64)));
    }
    byte[] manifest = Json.bytes(new Manifest(Manifest.VERSION, "quarry", "tar", 524_200_000L, 0L, shards));
    assertThat(manifest.length).isGreaterThan(32 << 20);
    out.store().put(out.key() + "x.manifest.json", manifest);
    List<BraceTemplate> templates = List.of(BraceTemplate.parse(root + "out/x-{000..}.tar", true));
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));

    assertThatThrownBy(() -> new OutputClaim(stores, spec).check(templates)).hasMessage("Cannot sort into " + root
        + "out/x-{000..}.tar: " + root + "out/x.manifest.json commits the output of an earlier run (250000 shards);"
        + " pass --overwrite (overwrite: true in a ShardSortJob) to replace it, or choose another output");
    new OutputClaim(stores, overwriting(spec)).check(templates);
  }

  /** A pending record naming more shards than two runs may write is refused in one line as it is read. */
  @Test
  void aPendingRecordNamingMoreShardsThanTwoRunsWriteIsRefused() throws Exception {
    String input = input(ShardFormat.TAR);
    Location out = stores.locate(root + "out/");
    StringBuilder record = new StringBuilder("{\"format\":\"" + dev.quarry.core.sort.commit.PendingOutput.FORMAT
        + "\",\"job\":\"" + "0".repeat(64) + "\",\"shards\":[");
    for (int i = 0; i <= 2 * OutputClaim.MAX_SHARDS; i++) {
      record.append(i == 0 ? "\"x-" : ",\"x-").append(i).append(".tar\"");
    }
    out.store().put(out.key() + "x.pending.json", record.append("]}").toString().getBytes(StandardCharsets.UTF_8));
    SortSpec spec = overwriting(spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45)));
    assertThatThrownBy(() -> new OutputClaim(stores, spec).check(List.of(BraceTemplate.parse(root
        + "out/x-{000..}.tar", true)))).hasMessage("Cannot use " + root + "out/x.pending.json: it names more than "
        + 2 * OutputClaim.MAX_SHARDS + " shards, more than a Quarry pending record has (move it away, or choose"
        + " another output)");
  }

  @Test
  void shardsNoManifestOrPendingRecordNamesAreRefusedEvenWithOverwrite() throws Exception {
    String input = input(ShardFormat.TAR);
    Location out = stores.locate(root + "out/");
    out.store().put(out.key() + "x-000.tar", "someone's".getBytes(StandardCharsets.UTF_8));
    out.store().put(out.key() + "x-7.tar", "someone's".getBytes(StandardCharsets.UTF_8));
    SortSpec spec = overwriting(spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45)));
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot sort into " + root + "out/x-{000..}.tar: 2 objects in " + root + "out/ match the template"
            + " but no manifest or pending record of a Quarry run names them (x-000.tar, x-7.tar); move or delete"
            + " them, or choose another output");
    assertThat(objects(root + "out/").keySet()).containsExactly("x-000.tar", "x-7.tar");
  }

  /**
   * Two jobs claim one output at the same moment: both look and find nothing, then write their pending records (a
   * barrier holds each write until both come to it). One takes the output; the other is refused as it would be a
   * moment later, before it deletes or writes anything. Before, both wrote, the second record won, and the shards of
   * the two runs mixed under one manifest (formats.md's former "known limit").
   */
  @Test
  void twoJobsClaimingOneOutputAtTheSameMomentTakeItOnce() throws Exception {
    String input = input(ShardFormat.TAR);
    String template = root + "out/x-{000..}.tar";
    List<SortSpec> jobs = List.of(
        spec(input, new SortSpec.Order(OrderKind.MD5, null, null, null, null), records(template, 45)),
        spec(input, new SortSpec.Order(OrderKind.NONE, null, null, null, null), records(template, 45)));
    List<BraceTemplate> templates = List.of(BraceTemplate.parse(template, true));
    List<List<String>> planned = List.of(List.of(root + "out/x-000.tar", root + "out/x-001.tar"));
    List<Throwable> refused = new ArrayList<>();
    String winner = atTheSameMoment(stores.locate(root + "out/x.pending.json").key(), jobs, refused,
        (latched, job) -> new OutputClaim(latched, job).claim(templates, planned));
    assertThat(refused).singleElement().satisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot sort into " + template + ": " + root + "out/x.pending.json names the unfinished output"
            + " of another job; pass --overwrite (overwrite: true in a ShardSortJob) to replace it, or choose"
            + " another output"));
    Location record = stores.locate(root + "out/x.pending.json");
    assertThat(Json.read(record.store().getBytes(record.key()), PendingOutput.class).job()).isEqualTo(winner);
  }

  /**
   * A claim whose writes if absent keep finding the name taken while its looks find no record there (other jobs'
   * records coming and going, here a store that answers so) is refused in one line after ten, not retried forever.
   */
  @Test
  void aClaimThatNeverFindsTheRecordItsWriteCollidedWithGivesUpInOneLine() throws Exception {
    String template = root + "out/x-{000..}.tar";
    SortSpec job = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.MD5, null, null, null, null),
        records(template, 45));
    String pending = stores.locate(root + "out/x.pending.json").key();
    AtomicInteger writes = new AtomicInteger();
    try (ObjectStores colliding = openStores(store -> new DelegatingStore(store) {
      @Override
      public boolean putIfAbsent(String key, byte[] data) throws IOException {
        if (key.equals(pending)) {
          writes.incrementAndGet();
          return false;
        }
        return super.putIfAbsent(key, data);
      }
    })) {
      assertThatThrownBy(() -> new OutputClaim(colliding, job).claim(List.of(BraceTemplate.parse(template, true)),
          List.of(List.of(root + "out/x-000.tar"))))
          .hasMessage("Cannot sort into " + template + ": " + root + "out/x.pending.json came and went 10 times while"
              + " this job claimed the output (other jobs are sorting into it); run one job into an output at a time");
    }
    assertThat(writes).hasValue(10);
    assertThat(objects(root + "out/")).isEmpty();
  }

  /**
   * Giving up killed workers' uploads only tidies: a store that refuses to list them (a bucket policy without
   * s3:ListBucketMultipartUploads) does not stop the commit, which says so in one warning. Any other failure (a 503)
   * fails the commit before its manifest, the run unfinished, and its rerun commits.
   */
  @Test
  void aStoreThatRefusesToListUploadsStillCommitsWithAWarningAndAFailureIsRunAgain() throws Exception {
    SortSpec job = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.MD5, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    java.util.concurrent.atomic.AtomicReference<IOException> failure = new java.util.concurrent.atomic.AtomicReference<>(
        new IOException("Cannot list the uploads under the output: SlowDown (HTTP 503)"));
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    try (ObjectStores failing = openStores(store -> new DelegatingStore(store) {
      @Override
      public int removeUnfinishedUploadsOf(String prefix, java.util.Set<String> keys) throws IOException {
        throw failure.get();
      }
    })) {
      assertThatThrownBy(() -> LocalSort.run(job, failing, temp.resolve("work"), QUIET))
          .hasMessage("Cannot list the uploads under the output: SlowDown (HTTP 503)");
      assertThat(objects(root + "out/")).as("unfinished").containsKey("x.pending.json")
          .doesNotContainKey("x.manifest.json");

      failure.set(new dev.quarry.core.store.RequestRefusedException("Cannot list the uploads under the output:"
          + " AccessDenied (HTTP 403)", null));
      LocalSort.run(job, failing, temp.resolve("work"), new PrintStream(log, true, StandardCharsets.UTF_8));
    }
    assertThat(objects(root + "out/")).containsKey("x.manifest.json").doesNotContainKey("x.pending.json");
    assertThat(log.toString(StandardCharsets.UTF_8)).containsOnlyOnce("; warning: left any unfinished uploads of its"
        + " shards to the bucket's lifecycle rule (Cannot list the uploads under the output: AccessDenied (HTTP 403))");
  }

  /** A done marker in scratch that names another object than its planned shard stops the commit, naming both. */
  @Test
  void aDoneMarkerNamingAnotherObjectThanItsShardStopsTheCommit() throws Exception {
    SortSpec job = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.MD5, null, null, null, null),
        records(root + "out/x-{000..}.tar", 45));
    SortPhases phases = phases(job, root + "scratch/");
    phases.extractThenPlan(0, 1);
    phases.create(0, 1);
    Location scratch = stores.locate(root + "scratch/");
    String marker = new Scratch(scratch.key()).created(1);
    dev.quarry.core.sort.create.CreatedShard done = Json.read(scratch.store().get(marker).readAllBytes(),
        dev.quarry.core.sort.create.CreatedShard.class);
    scratch.store().put(marker, Json.bytes(new dev.quarry.core.sort.create.CreatedShard(done.index(),
        root + "out/someone-elses.tar", done.size(), done.records(), done.sha256())));

    assertThatThrownBy(phases::commit).hasMessage("Cannot commit: the done marker of output shard " + done.url()
        + " names " + root + "out/someone-elses.tar (the scratch was changed; clean it and sort again)");
    assertThat(objects(root + "out/")).doesNotContainKey("x.manifest.json");
  }

  /**
   * A copy of the plan that stalls after it looked at the output and before it claimed it (a zombie pod of a plan that
   * was started again), while the other copy's run goes through create and commit, takes nothing when it resumes:
   * before, it wrote the pending record again and deleted the manifest just committed, so the finished output looked
   * unfinished and nothing would commit it again.
   */
  @Test
  void aStalledCopyOfThePlanDoesNotUndoTheCommitOfAnother() throws Exception {
    SortSpec job = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        records(root + "out/x-{000..}.tar", 45));
    phases(job, root + "scratch/").extract(0, 1);
    String pending = stores.locate(root + "out/x.pending.json").key();
    AtomicInteger stalls = new AtomicInteger();
    Map<String, byte[]> committed = new TreeMap<>();
    try (ObjectStores stalled = openStores(store -> DelegatingStore.withHook(store, (kind, key) -> {
      if (key.equals(pending) && kind.equals("PUT") && stalls.getAndIncrement() == 0) {
        try { // the other copy runs to its commit while this one waits to write its pending record
          SortPhases other = phases(job, root + "scratch/");
          other.plan(1);
          other.createThenCommit(0, 1);
          committed.putAll(objects(root + "out/"));
        } catch (Exception e) {
          throw new IOException("the other copy failed", e);
        }
      }
    }))) {
      Location scratch = stalled.locate(root + "scratch/");
      SortPhases zombie = new SortPhases(job, stalled, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
      assertThatThrownBy(() -> zombie.plan(1)).hasMessageContaining("Cannot sort into " + root + "out/x-{000..}.tar: "
          + root + "out/x.manifest.json was written while this run claimed the output (another run of this job"
          + " committed it first); nothing was deleted");
    }
    assertThat(committed).containsKey("x.manifest.json").doesNotContainKey("x.pending.json");
    assertThat(objects(root + "out/")).as("the committed output, as the commit left it")
        .containsOnlyKeys(committed.keySet());
    objects(root + "out/").forEach((name, bytes) -> assertThat(bytes).as(name).isEqualTo(committed.get(name)));
  }

  @Test
  void aRunKilledMidwayNeverLooksFinishedAndItsRerunReplacesItsShards() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order md5 = new SortSpec.Order(OrderKind.MD5, null, null, null, null);
    LocalSort.run(spec(input, md5, records(root + "out/x-{000..}.tar", 20)), stores, temp.resolve("work"), QUIET);

    // An overwriting run is killed after half its shards: the earlier run no longer looks finished, and no mix does.
    SortSpec second = overwriting(spec(input, md5, records(root + "out/x-{000..}.tar", 45)));
    SortPhases killed = phases(second, root + "scratch/");
    killed.extract(0, 1);
    killed.plan(1);
    killed.create(0, 2);
    assertThat(objects(root + "out/").keySet()).as("no manifest, no index: nothing looks finished")
        .containsExactly("x-000.tar", "x-001.tar", "x-002.tar", "x-003.tar", "x-004.tar", "x-005.tar",
            "x.pending.json");

    SortSpec other = spec(input, md5, records(root + "out/x-{000..}.tar", 30));
    assertThatThrownBy(() -> LocalSort.run(other, stores, temp.resolve("work"), QUIET))
        .hasMessage("Cannot sort into " + root + "out/x-{000..}.tar: " + root + "out/x.pending.json names the"
            + " unfinished output of another job; pass --overwrite (overwrite: true in a ShardSortJob) to replace it,"
            + " or choose another output");

    // The same job again, in a new scratch and without overwrite: its own unfinished shards are its to replace.
    LocalSort.run(spec(input, md5, records(root + "out/x-{000..}.tar", 45)), stores, temp.resolve("work"), QUIET);
    LocalSort.run(spec(input, md5, records(root + "fresh/x-{000..}.tar", 45)), stores, temp.resolve("work"), QUIET);
    Map<String, byte[]> rerun = objects(root + "out/");
    Map<String, byte[]> fresh = objects(root + "fresh/");
    assertThat(rerun.keySet()).isEqualTo(fresh.keySet()).doesNotContain("x.pending.json");
    fresh.forEach((name, bytes) -> assertThat(rerun.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void aCorruptPlanIsReportedWithoutQuotingIt() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{0..}.tar", 1000));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1);
    phases.plan(1);
    Location scratch = stores.locate(root + "scratch/");
    String plan = new Scratch(scratch.key()).planDone();
    scratch.store().put(plan, "aws_secret_access_key=wJalrXUtnFEMI {".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> phases.create(0, 1))
        .hasMessage("Cannot read " + scratch.store().url(plan) + ": it is not a valid PlanSummary document (it was"
            + " changed or is corrupt; rerun the phase that wrote it)")
        .hasNoCause();
  }

  @Test
  void aDryRunIntoACommittedOutputFailsAsTheRunWouldAndChangesNothing() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order keymap = new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap("img/.*\tkm-{00..}.tar\n", null, null));
    LocalSort.run(spec(input, keymap, records(root + "out/x-{0..}.tar", 30)), stores, temp.resolve("work"), QUIET);
    Map<String, byte[]> before = objects(root + "out/");
    SortSpec dry = new SortSpec(new SortSpec.Input(input, null, null, null), records(root + "out/x-{0..}.tar", 45),
        keymap, null, null, null, true);
    assertThatThrownBy(() -> LocalSort.run(dry, stores, temp.resolve("work"), QUIET))
        .hasMessageStartingWith("Cannot sort into " + root + "out/km-{00..}.tar: " + root + "out/km.manifest.json"
            + " commits the output of an earlier run (8 shards)");
    Map<String, byte[]> after = objects(root + "out/");
    assertThat(after.keySet()).isEqualTo(before.keySet());
    before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void shardCountGivesEqualCountsWithinOne() throws Exception {
    runAndRead(spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        new SortSpec.Output(root + "n/x-{0..}.tar", null, null, null, 7L)), root + "n/x.manifest.json",
        ShardFormat.TAR);
    Manifest manifest = Json.read(bytes(root + "n/x.manifest.json"), Manifest.class);
    assertThat(manifest.shards()).hasSize(7);
    assertThat(manifest.shards()).extracting(Manifest.Shard::records).containsExactly(35L, 35L, 34L, 34L, 34L, 34L,
        34L);
  }

  @Test
  void shardSizePutsEachRecordInTheShardOfItsStartOffset() throws Exception {
    long target = 40_000;
    List<Record> out = runAndRead(spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null,
        null, null), new SortSpec.Output(root + "s/x-{0..}.tar", null, "40000", null, null)),
        root + "s/x.manifest.json", ShardFormat.TAR);
    Manifest manifest = Json.read(bytes(root + "s/x.manifest.json"), Manifest.class);
    assertThat(out).hasSize(all.size());
    // The reference: each record's start is the sum of the raw tar bytes before it, each record counted at most
    // the size; shard k holds the records starting in [k * size, (k + 1) * size).
    Map<Long, Long> expected = new java.util.TreeMap<>();
    long start = 0;
    for (Record record : out) {
      long size = record.members().stream()
          .mapToLong(m -> 512 + dev.quarry.core.archive.tar.TarFormat.padded(m.data().length)).sum();
      expected.merge(start / target, size, Long::sum);
      start += Math.min(size, target);
    }
    assertThat(manifest.shards()).extracting(shard -> shard.size() - 1024) // minus the end-of-archive blocks
        .containsExactlyElementsOf(expected.values());
  }

  /** Runs the phases with {@code extract} extract workers and {@code partitions} partitions and create workers. */
  private List<PhaseResult> runPartitioned(SortSpec spec, String scratchUrl, int extract, int partitions)
      throws Exception {
    SortPhases phases = phases(spec, scratchUrl);
    List<PhaseResult> results = new ArrayList<>();
    for (int index = extract - 1; index >= 0; index--) {
      results.add(phases.extract(index, extract, partitions));
    }
    for (int index = partitions - 1; index >= 0; index--) {
      results.addAll(phases.partitionThenPlan(index, partitions, extract));
    }
    for (int index = 0; index < partitions; index++) {
      results.addAll(phases.createThenCommit(index, partitions));
    }
    return results;
  }

  @ParameterizedTest
  @EnumSource(OrderKind.class)
  void theOutputIsByteIdenticalWhateverTheExtractWorkersAndPartitions(OrderKind kind) throws Exception {
    // Plain tars are sampled for an alphanumeric order's splitters; compressed ones are packed the same way.
    String input = input(kind == OrderKind.SHUFFLE ? ShardFormat.TAR_GZ : ShardFormat.TAR);
    SortSpec.Order order = order(kind, "ev-{00..}.tar", "od-{00..}.tar");
    Map<String, byte[]> first = null;
    for (int[] workers : new int[][] {{1, 1}, {2, 3}, {4, 4}}) {
      String run = "e" + workers[0] + "p" + workers[1];
      // Shards of about 9 records, cut by bytes: shards go on across partitions.
      SortSpec spec = spec(input, order, new SortSpec.Output(root + run + "/x-{000..}.tar", null, "40000", null,
          null));
      runPartitioned(spec, root + "scratch-" + run + "/", workers[0], workers[1]);
      Map<String, byte[]> output = objects(root + run + "/");
      assertThat(output).as(run).containsKey(kind == OrderKind.KEYMAP ? "ev.manifest.json" : "x.manifest.json");
      if (first == null) {
        first = output;
        assertThat(output.size()).isGreaterThan(8);
      } else {
        assertThat(output.keySet()).as(run).isEqualTo(first.keySet());
        for (var object : first.entrySet()) {
          assertThat(output.get(object.getKey())).as(run + " " + object.getKey()).isEqualTo(object.getValue());
        }
      }
    }
  }

  /**
   * Eight plain tar shards of records holding a long (.lng, with ties), a double (.dbl) and a string (.str) content
   * member, every eleventh record lacking all three; and {@code copies} keys found again, with other content and
   * bytes, in a shard three or five further on (or earlier), so in another extract worker's share and, mostly,
   * another partition: the first copy in input order is the one kept.
   */
  private String contentInput(int copies) throws Exception {
    java.util.Random random = new java.util.Random(17);
    dataset = new ArrayList<>();
    for (int shard = 0; shard < 8; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        records.add(contentRecord(String.format("img/%c%04d", (char) ('a' + random.nextInt(26)), shard * 100 + i),
            i % 11 == 5, random));
      }
      dataset.add(records);
    }
    List<List<Record>> originals = dataset.stream().map(List::copyOf).toList();
    for (int copy = 0; copy < copies; copy++) {
      int from = copy % 8;
      int to = (from + (copy % 2 == 0 ? 3 : 5)) % 8;
      Record original = originals.get(from).get(7 + copy * 3 % 50);
      dataset.get(to).add(random.nextInt(dataset.get(to).size()), contentRecord(original.key(), false, random));
    }
    all = dataset.stream().flatMap(List::stream).toList();
    return input(ShardFormat.TAR).replace("{000..005}", "{000..007}");
  }

  private static Record contentRecord(String key, boolean lacking, java.util.Random random) {
    byte[] image = new byte[100 + random.nextInt(1500)];
    random.nextBytes(image);
    List<dev.quarry.core.archive.Member> members = new ArrayList<>();
    if (!lacking) {
      members.add(new dev.quarry.core.archive.Member(key + ".dbl",
          Double.toString((random.nextInt(2_000_000) - 1_000_000) / 1024.0).getBytes(StandardCharsets.US_ASCII)));
      members.add(new dev.quarry.core.archive.Member(key + ".lng",
          Long.toString(random.nextInt(61) - 30).getBytes(StandardCharsets.US_ASCII)));
      members.add(new dev.quarry.core.archive.Member(key + ".str", (Character.toString('A' + random.nextInt(58))
          + random.nextInt(1000)).getBytes(StandardCharsets.US_ASCII)));
    }
    members.add(new dev.quarry.core.archive.Member(key + ".jpg", image));
    return new Record(key, members);
  }

  /** The content key of {@code record}'s {@code member}, as {@code type} parses it; null when it has none. */
  private static Comparable<?> contentOf(Record record, String member, SortSpec.ContentType type) {
    for (var m : record.members()) {
      if (m.name().endsWith("." + member)) {
        String text = new String(m.data(), StandardCharsets.US_ASCII);
        return switch (type) {
          case INT -> Long.parseLong(text);
          case FLOAT -> Double.parseDouble(text);
          case STRING -> text;
        };
      }
    }
    return null;
  }

  /**
   * Content and none orders spread over the partitions: the output is the same with 1, 2 or 4 extract workers and 1,
   * 3 or 4 partitions, and it is the reference computed here: every key's first copy in input order, ordered by the
   * content key in the order's direction (then key; records lacking it last) or by input position.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"lng,INT,false", "dbl,FLOAT,true", "str,STRING,false", ",,false"})
  void contentAndNoneOrdersKeepTheFirstCopyAndGiveTheSameBytesWhateverTheWorkersAndPartitions(String member,
      SortSpec.ContentType type, boolean descending) throws Exception {
    String input = contentInput(20);
    SortSpec.Order order = member == null ? new SortSpec.Order(OrderKind.NONE, null, null, null, null)
        : new SortSpec.Order(OrderKind.CONTENT, descending, null, new SortSpec.ContentKey(member, type), null);
    Map<String, Record> firsts = new java.util.LinkedHashMap<>();
    all.forEach(record -> firsts.putIfAbsent(record.key(), record));
    List<Record> expected = new ArrayList<>(firsts.values());
    if (member != null) {
      Comparator<Comparable<?>> values = (a, b) -> compareValues(a, b);
      expected.sort(Comparator.comparing((Record r) -> contentOf(r, member, type),
          Comparator.nullsLast(descending ? values.reversed() : values)).thenComparing(Record::key));
    }
    assertThat(all.size() - expected.size()).as("copies").isEqualTo(20);
    Map<String, byte[]> first = null;
    for (int[] workers : new int[][] {{1, 1}, {2, 3}, {4, 4}}) {
      String run = "e" + workers[0] + "p" + workers[1];
      SortSpec spec = new SortSpec(new SortSpec.Input(input, null, null, null),
          new SortSpec.Output(root + run + "/x-{000..}.tar", null, "20000", null, null), order,
          new SortSpec.Policies(dev.quarry.core.policy.Policy.WARN, null, null, null,
              dev.quarry.core.policy.Policy.WARN), new SortSpec.Workers("32Mi", 8), null, false);
      List<PhaseResult> results = runPartitioned(spec, root + "scratch-" + run + "/", workers[0], workers[1]);
      assertThat(results.stream().filter(r -> r.phase().equals("partition"))
          .mapToLong(r -> ((Number) r.details().get("duplicatesDropped")).longValue()).sum()).as(run).isEqualTo(20);
      // Each step dedupes and orders its share, not every record.
      assertThat(results.stream().filter(r -> r.phase().equals("partition")).mapToLong(PhaseResult::records).max()
          .orElseThrow()).as(run).isLessThanOrEqualTo((long) (1.25 * all.size() / workers[1]));
      Map<String, byte[]> output = objects(root + run + "/");
      Manifest manifest = Json.read(output.get("x.manifest.json"), Manifest.class);
      List<Record> records = new ArrayList<>();
      for (Manifest.Shard shard : manifest.shards()) {
        records.addAll(SortFixture.read(stores, root + run + "/" + shard.name(), ShardFormat.TAR));
      }
      assertThat(fingerprints(records)).as(run).containsExactlyElementsOf(fingerprints(expected));
      if (first == null) {
        first = output;
        assertThat(output.size()).isGreaterThan(8);
      } else {
        assertThat(output.keySet()).as(run).isEqualTo(first.keySet());
        for (var object : first.entrySet()) {
          assertThat(output.get(object.getKey())).as(run + " " + object.getKey()).isEqualTo(object.getValue());
        }
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareValues(Comparable a, Comparable b) {
    return a.compareTo(b);
  }

  /** Under abort, a key found in two extract workers' shards fails the step of its key, naming both shards. */
  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"CONTENT", "NONE"})
  void aCopyOfAKeyInAnotherWorkersShardAbortsNamingBothShards(OrderKind kind) throws Exception {
    String input = contentInput(1);
    String key = dataset.get(0).get(7).key();
    SortSpec spec = new SortSpec(new SortSpec.Input(input, null, null, null),
        new SortSpec.Output(root + "out/x-{000..}.tar", null, "20000", null, null),
        new SortSpec.Order(kind, null, null, kind == OrderKind.CONTENT
            ? new SortSpec.ContentKey("lng", SortSpec.ContentType.INT) : null, null),
        new SortSpec.Policies(dev.quarry.core.policy.Policy.ABORT, null, null, null,
            dev.quarry.core.policy.Policy.WARN), new SortSpec.Workers("32Mi", 8), null, false);
    assertThatThrownBy(() -> runPartitioned(spec, root + "scratch/", 4, 3))
        .hasMessage("Cannot sort: record key " + key + " appears in input shards 0 and 3 (policy duplicatedRecords"
            + " is abort; set it to warn or ignore to keep the first occurrence)");
    assertThat(objects(root + "out/")).isEmpty();
  }

  /** A content step's counts per partition are checked as its other counts are: one per partition, adding up. */
  @Test
  void planRefusesAContentStepWhoseCountsPerPartitionAreMissingOrDoNotAddUp() throws Exception {
    SortSpec spec = new SortSpec(new SortSpec.Input(contentInput(0), null, null, null),
        new SortSpec.Output(root + "out/x-{000..}.tar", null, "20000", null, null),
        new SortSpec.Order(OrderKind.CONTENT, null, null, new SortSpec.ContentKey("lng", SortSpec.ContentType.INT),
            null),
        new SortSpec.Policies(null, null, null, null, dev.quarry.core.policy.Policy.IGNORE),
        new SortSpec.Workers("32Mi", 8), null, false);
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.partition(0, 2, 1);
    phases.partition(1, 2, 1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var step = StoredJson.read(scratch.store(), names.partitionDone(1), dev.quarry.core.sort.plan.PartitionResult.class);
    assertThat(step.outputs()).hasSize(2).allSatisfy(output -> assertThat(output.counts().records()).isPositive());
    for (var outputs : java.util.Arrays.asList(null, step.outputs().subList(0, 1),
        List.of(step.outputs().get(1), step.outputs().get(1)))) {
      StoredJson.write(scratch.store(), names.partitionDone(1), new dev.quarry.core.sort.plan.PartitionResult(
          step.index(), step.count(), step.extractCount(), step.packs(), step.keymapSha256(), step.ordered(),
          step.recordsOrdered(), step.duplicatesDropped(), step.recordsDropped(), step.templates(), outputs));
      assertThatThrownBy(() -> phases.plan(1)).hasMessage(outputs == null
          ? "Cannot plan: partition step 1 did not count its records by partition (the scratch was changed; clean it"
              + " and sort again)"
          : "Cannot plan: the counts of partition 1 do not fit its records (the scratch was changed; clean it and sort"
              + " again)");
    }
  }

  /**
   * A content or none step writes a list of a partition only when it holds records of it, and its done marker counts
   * those alone, without the partitions' last entries (in a small run of its own the plan merges): at P = 40, 480
   * records had 1,600 lists (1,560 empty) and 227,586 bytes of step markers, against 395 at P = 1, all of which the
   * plan held at once. Create worker 0 opens its partition's non-empty lists alone, and a step reads no segment table
   * (the create worker locates the entries in its own segments), whatever P; the output is the same bytes.
   */
  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"CONTENT", "NONE"})
  void aContentOrNoneStepWritesAndCountsOnlyTheListsOfItsRecordsWhateverThePartitions(OrderKind kind)
      throws Exception {
    dataset = SortFixture.dataset(8, 60, 7);
    all = dataset.stream().flatMap(List::stream).toList();
    String input = input(ShardFormat.TAR).replace("{000..005}", "{000..007}");
    KeyHashMetadata one = keyHashMetadata(kind, input, 1);
    KeyHashMetadata forty = keyHashMetadata(kind, input, 40);
    assertThat(forty.lists()).as("lists written at P = 40 (" + forty.emptyLists() + " empty), for " + all.size()
        + " records").isLessThanOrEqualTo(all.size()).isPositive();
    assertThat(forty.emptyLists()).as("empty lists written").isZero();
    assertThat(forty.markerBytes()).as("bytes of the 40 steps' done markers, of the 1 at P = 1: "
        + one.markerBytes()).isLessThanOrEqualTo(40 * one.markerBytes() + 100L * forty.lists());
    assertThat(forty.listsOpened()).as("lists create worker 0 opened, of the " + forty.listsOfPartition0()
        + " non-empty lists of partition 0").isEqualTo(forty.listsOfPartition0());
    assertThat(forty.tableBytes()).as("segment table bytes read by step 0, at P = 1: " + one.tableBytes())
        .isLessThanOrEqualTo(one.tableBytes());
    Map<String, byte[]> oneOutput = objects(root + "p1/");
    Map<String, byte[]> fortyOutput = objects(root + "p40/");
    assertThat(fortyOutput.keySet()).isEqualTo(oneOutput.keySet()).contains("x.manifest.json");
    oneOutput.forEach((name, bytes) -> assertThat(fortyOutput.get(name)).as(name).isEqualTo(bytes));
  }

  /** What {@link #keyHashMetadata} counted. */
  private record KeyHashMetadata(long lists, long emptyLists, long markerBytes, long listsOpened,
      long listsOfPartition0, long tableBytes) {}

  /**
   * Sorts {@code input} by {@code kind} with 4 extract workers and {@code partitions} partitions, counting the
   * ordered lists the steps wrote (and how many are empty), the bytes of their done markers, the lists create worker
   * 0 opened (of the non-empty lists of partition 0), and the segment table bytes step 0 read.
   */
  private KeyHashMetadata keyHashMetadata(OrderKind kind, String input, int partitions) throws Exception {
    String run = "p" + partitions;
    SortSpec spec = spec(input, order(kind, null, null), records(root + run + "/x-{000..}.tar", 10));
    String scratchUrl = root + "scratch-" + run + "/";
    SortPhases phases = phases(spec, scratchUrl);
    for (int index = 0; index < 4; index++) {
      phases.extract(index, 4, partitions);
    }
    Location scratch = stores.locate(scratchUrl);
    java.util.concurrent.atomic.AtomicLong tableBytes = new java.util.concurrent.atomic.AtomicLong();
    var tables = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        if (key.endsWith(".pack")) {
          tableBytes.addAndGet(length);
        }
        return super.getRange(key, offset, length);
      }
    };
    new SortPhases(spec, stores, new Location(tables, scratch.key()), new ScratchPacks(tables,
        new Scratch(scratch.key())), false, QUIET).partition(0, partitions, 4);
    for (int index = 1; index < partitions; index++) {
      phases.partition(index, partitions, 4);
    }
    phases.plan(4);
    var storage = new dev.quarry.core.sort.records.StoreRunStorage(scratch.store());
    long lists = 0;
    long empty = 0;
    long markerBytes = 0;
    java.util.Set<String> listsOf0 = new java.util.HashSet<>();
    for (var object : objects(scratchUrl).entrySet()) {
      String name = object.getKey();
      if (name.matches("partition/[0-9]{5}/done\\.json")) {
        markerBytes += object.getValue().length;
      }
      if (name.matches("partition/[0-9]{5}/(ordered-[0-9a-f-]{36}-[0-9]{5}|from-[0-9]{5}-[0-9a-f-]{36})\\.run")) {
        lists++;
        try (var reader = new dev.quarry.core.sort.records.RunReader(storage.open(scratch.key() + name), name)) {
          var first = reader.next();
          if (first == null) {
            empty++;
          } else if (first.segment() == 0) {
            listsOf0.add(name);
          }
        }
      }
    }
    java.util.Set<String> opened = java.util.concurrent.ConcurrentHashMap.newKeySet();
    var counted = dev.quarry.core.store.DelegatingStore.withHook(scratch.store(), (request, key) -> {
      if (key.endsWith(".run") && key.contains("/partition/")) {
        opened.add(key.substring(scratch.key().length()));
      }
    });
    new SortPhases(spec, stores, new Location(counted, scratch.key()), new ScratchPacks(counted,
        new Scratch(scratch.key())), false, QUIET).create(0, partitions);
    for (int index = 1; index < partitions; index++) {
      phases.create(index, partitions);
    }
    phases.commit();
    return new KeyHashMetadata(lists, empty, markerBytes, opened.size(), listsOf0.size(), tableBytes.get());
  }

  /**
   * A content or none entry read from scratch that names a segment its pack does not have is refused in one line,
   * as every other changed scratch object is: at the step, in its extract run, and at create, in an ordered list.
   */
  @Test
  void anEntryNamingAForgedSegmentIsRefusedAsAChangedScratch() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), order(OrderKind.CONTENT, null, null),
        records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    Location scratch = stores.locate(root + "scratch/");
    var storage = new dev.quarry.core.sort.records.StoreRunStorage(scratch.store());
    String run = objects(root + "scratch/").keySet().stream().filter(name -> name.startsWith("extract/00000/run-")
        && name.contains("-00001-")).findFirst().orElseThrow();
    String key = rewriteFirst(storage, scratch.key() + run, 7);
    assertThatThrownBy(() -> phases.partition(1, 2, 1)).hasMessage("Cannot read the record entries: record " + key
        + " names segment 7 of a pack of 2 (the scratch was changed; clean it and sort again)");

    SortPhases again = phases(spec, root + "scratch-2/");
    again.extract(0, 1, 2);
    again.plan(1);
    String list = objects(root + "scratch-2/").keySet().stream()
        .filter(name -> name.startsWith("partition/00001/from-")).findFirst().orElseThrow();
    Location scratch2 = stores.locate(root + "scratch-2/");
    String inList = rewriteFirst(new dev.quarry.core.sort.records.StoreRunStorage(scratch2.store()),
        scratch2.key() + list, 0);
    assertThatThrownBy(() -> again.create(1, 2)).hasMessage("Cannot read the record entries: record " + inList
        + " of partition 1 names segment 0 (the scratch was changed; clean it and sort again)");
  }

  /** The plan refuses a content step's run of last entries that does not hold one per list the step wrote. */
  @Test
  void planRefusesAStepsLastEntriesThatAreNotOnePerListItWrote() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), order(OrderKind.CONTENT, null, null),
        records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.partition(0, 2, 1);
    phases.partition(1, 2, 1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var step = StoredJson.read(scratch.store(), names.partitionDone(1), dev.quarry.core.sort.plan.PartitionResult.class);
    assertThat(step.outputs()).hasSize(2);
    var storage = new dev.quarry.core.sort.records.StoreRunStorage(scratch.store());
    try (var writer = new dev.quarry.core.sort.records.RunWriter(storage.create(names.partitionLastOf(
        step.ordered())))) {
      writer.finish();
    }
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: the partition steps' last entries of partition"
        + " 0 are not one per list they wrote of it (the scratch was changed; clean it and sort again)");
    assertThat(objects(root + "scratch/").keySet()).noneMatch(name -> name.startsWith("plan/"));
  }

  /** Rewrites run {@code name} with its first entry naming segment {@code segment}; returns that entry's key. */
  private static String rewriteFirst(dev.quarry.core.sort.records.StoreRunStorage storage, String name, int segment)
      throws Exception {
    List<dev.quarry.core.sort.records.RecordEntry> entries = new ArrayList<>();
    try (var reader = new dev.quarry.core.sort.records.RunReader(storage.open(name), name)) {
      for (var entry = reader.next(); entry != null; entry = reader.next()) {
        entries.add(entry);
      }
    }
    var first = entries.getFirst();
    entries.set(0, new dev.quarry.core.sort.records.RecordEntry(first.key(), first.shard(), first.position(),
        first.packed(), first.ranges(), first.size(), first.contentKey(), segment));
    try (var writer = new dev.quarry.core.sort.records.RunWriter(storage.create(name))) {
      for (var entry : entries) {
        writer.write(entry);
      }
      writer.finish();
    }
    return first.key();
  }

  /**
   * The input list is kept in pages of 4,096 inputs beside a small summary: a partition step and the plan read the
   * summary alone, and a create worker the pages of the inputs its records lie in, where each read the whole list (41
   * MB at 409,600 inputs, a 100 TiB job of 256 MiB shards, and refused past about 600,000). Here 9,000 inputs, of which
   * six exist, in pages 0 and 1.
   */
  @Test
  void aStepAndThePlanReadTheInputListsSummaryAndACreateWorkerThePagesOfItsRecordsAlone() throws Exception {
    input(ShardFormat.TAR);
    int[] places = {0, 1, 2, 4096, 4097, 4098};
    for (int shard = 0; shard < places.length; shard++) {
      var location = stores.locate(root + String.format("many/in-%04d.tar", places[shard]));
      location.store().put(location.key(), bytes(root + String.format("in/in-%03d.tar", shard)));
    }
    SortSpec spec = new SortSpec(new SortSpec.Input(root + "many/in-{0000..8999}.tar", null, null, null),
        records(root + "out/x-{000..}.tar", 30), new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        new SortSpec.Policies(null, dev.quarry.core.policy.Policy.IGNORE, null, null, null),
        new SortSpec.Workers("32Mi", 8), null, false);
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 2);
    phases.extract(1, 2);
    Location scratch = stores.locate(root + "scratch/");
    Map<String, Long> inputListBytes = new java.util.concurrent.ConcurrentHashMap<>();
    var counted = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public java.io.InputStream get(String key) throws java.io.IOException {
        String name = key.substring(scratch.key().length());
        if (name.startsWith("inputs")) {
          inputListBytes.merge(name, (long) super.get(key).readAllBytes().length, Long::sum);
        }
        return super.get(key);
      }
    };
    SortPhases countedPhases = new SortPhases(spec, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, QUIET);
    countedPhases.partition(0, 1, 2);
    assertThat(inputListBytes).as("what of the input list the partition step read").containsOnlyKeys("inputs.json")
        .allSatisfy((name, bytes) -> assertThat(bytes).isLessThan(1024));
    inputListBytes.clear();
    countedPhases.plan(2);
    assertThat(inputListBytes).as("what of the input list the plan read").containsOnlyKeys("inputs.json")
        .allSatisfy((name, bytes) -> assertThat(bytes).isLessThan(1024));
    inputListBytes.clear();
    countedPhases.create(0, 1);
    assertThat(inputListBytes.keySet()).as("what of the input list the create worker read")
        .containsExactlyInAnyOrder("inputs.json", "inputs/000000.json", "inputs/000001.json");
    phases.commit();
    assertThat(SortFixture.read(stores, root + "out/x-000.tar", ShardFormat.TAR)).hasSize(30);
  }

  /** A page of the input list whose shards are not in their places is refused in one line. */
  @Test
  void aTamperedPageOfTheInputListIsRefused() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        records(root + "out/x-{000..}.tar", 30));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1);
    phases.plan(1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var page = StoredJson.read(scratch.store(), names.inputsPage(0), dev.quarry.core.sort.input.InputShard[].class);
    var swapped = page.clone();
    swapped[0] = page[1];
    swapped[1] = page[0];
    StoredJson.write(scratch.store(), names.inputsPage(0), swapped);
    assertThatThrownBy(() -> phases.create(0, 1)).hasMessage("Cannot read the input list: input shard 0 is not where"
        + " page 0 has it (the scratch was changed; clean it and sort again)");
  }

  /** Eight plain tar shards, the first much the largest, so that it is read last of the four read at once. */
  private String unevenInput() throws Exception {
    dataset = new ArrayList<>(SortFixture.dataset(8, 200, 13));
    for (int shard = 1; shard < 8; shard++) {
      dataset.set(shard, dataset.get(shard).subList(0, 2 + shard));
    }
    all = dataset.stream().flatMap(List::stream).toList();
    return input(ShardFormat.TAR).replace("{000..005}", "{000..007}");
  }

  /** The keys of the raw tar members in {@code bytes}, each once, in the order they come. */
  private static List<String> tarKeys(byte[] bytes) {
    List<String> keys = new ArrayList<>();
    for (int at = 0; at + 512 <= bytes.length; ) {
      String name = new String(bytes, at, 100, StandardCharsets.US_ASCII).replace("\0", "");
      long size = Long.parseLong(new String(bytes, at + 124, 11, StandardCharsets.US_ASCII).trim(), 8);
      String key = name.substring(0, name.indexOf('.', name.lastIndexOf('/')));
      if (keys.isEmpty() || !keys.getLast().equals(key)) {
        keys.add(key);
      }
      at += 512 + (size + 511) / 512 * 512;
    }
    return keys;
  }

  /**
   * Input shard by input shard whatever order they were read in (the first, the largest, is read last), and within a
   * shard in key order, as its grouping gives them: the same bytes for every attempt over the same inputs, whatever
   * the grouping spilled.
   */
  @Test
  void anExtractWorkersPackHoldsEachPartitionsRecordsInInputShardOrder() throws Exception {
    SortSpec spec = spec(unevenInput(), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 20));
    Location scratch = stores.locate(root + "scratch/");
    phases(spec, root + "scratch/").extract(0, 1, 2);
    var done = StoredJson.read(scratch.store(), new Scratch(scratch.key()).extractDone(0),
        dev.quarry.core.sort.extract.ExtractResult.class);
    byte[] pack = bytes(scratch.store().url(done.pack()));
    Map<String, Integer> shardOf = new java.util.HashMap<>();
    for (int shard = 0; shard < dataset.size(); shard++) {
      for (Record record : dataset.get(shard)) {
        shardOf.put(record.key(), shard);
      }
    }
    Comparator<String> shardThenKey = Comparator.<String>comparingInt(shardOf::get)
        .thenComparing(dev.quarry.core.sort.order.KeyOrder::compareKeys);
    assertThat((long) pack.length).as("records, then 3 offsets").isEqualTo(done.packRecordBytes() + 3 * 8);
    var table = java.nio.ByteBuffer.wrap(pack, (int) done.packRecordBytes(), 3 * 8);
    long[] offsets = {table.getLong(), table.getLong(), table.getLong()};
    assertThat(offsets[0]).isZero();
    assertThat(offsets[2]).isEqualTo(done.packRecordBytes());
    for (int partition = 0; partition < 2; partition++) {
      byte[] segment = Arrays.copyOfRange(pack, (int) offsets[partition], (int) offsets[partition + 1]);
      List<String> keys = tarKeys(segment);
      assertThat(keys).as("partition " + partition).hasSizeGreaterThan(10);
      assertThat(keys).as("partition " + partition).isSortedAccordingTo(shardThenKey);
      assertThat(keys.stream().map(shardOf::get).distinct().count()).as("from many shards").isGreaterThan(1);
    }
  }

  @Test
  void partitionStepsOfAnEarlierExtractAttemptAreOrderedAgainNotReadWithTheNewPacks() throws Exception {
    String input = unevenInput();
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null);
    SortSpec spec = spec(input, shuffle, records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.partition(0, 2, 1);
    phases.partition(1, 2, 1);
    // An input shard is replaced before extract runs again: the earlier ordered lists point into the old pack.
    dataset.set(2, SortFixture.dataset(1, 30, 99).getFirst());
    all = dataset.stream().flatMap(List::stream).toList();
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    phases.extract(0, 1, 3);
    phases.extract(0, 1, 2);
    phases.plan(1);
    phases.createThenCommit(0, 1);

    runPartitioned(spec(input, shuffle, records(root + "fresh/x-{000..}.tar", 20)), root + "scratch-fresh/", 1, 1);
    Map<String, byte[]> expected = objects(root + "fresh/");
    Map<String, byte[]> output = objects(root + "out/");
    assertThat(output.keySet()).isEqualTo(expected.keySet());
    for (var object : expected.entrySet()) {
      assertThat(output.get(object.getKey())).as(object.getKey()).isEqualTo(object.getValue());
    }
  }

  /**
   * Create checks what it reads, then a partition step runs again (over an extract attempt of changed inputs) and
   * writes its ordered list, then create reads the list: it reads the one the plan was made from, never the new one.
   * The store holds create at its first request for the ordered list until the rerun is done.
   */
  @Test
  void createReadsThePlannedOrderedListWhileAPartitionStepRunsAgain() throws Exception {
    String input = unevenInput();
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null);
    SortSpec spec = spec(input, shuffle, records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.partition(0, 2, 1);
    phases.partition(1, 2, 1);
    phases.plan(1);

    Location scratch = stores.locate(root + "scratch/");
    String orderedOfPartition0 = new Scratch(scratch.key()).prefix() + "partition/00000/ordered";
    java.util.concurrent.CountDownLatch createChecked = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch rerunDone = new java.util.concurrent.CountDownLatch(1);
    var held = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public void before(String kind, String key) throws java.io.IOException {
        if (key.startsWith(orderedOfPartition0) && createChecked.getCount() > 0) {
          createChecked.countDown();
          try {
            rerunDone.await();
          } catch (InterruptedException e) {
            throw new java.io.InterruptedIOException();
          }
        }
      }
    };
    SortPhases heldPhases = new SortPhases(spec, stores, new Location(held, scratch.key()),
        new ScratchPacks(held, new Scratch(scratch.key())), false, QUIET);
    try (ExecutorService worker = Executors.newSingleThreadExecutor()) {
      Future<PhaseResult> create = worker.submit(() -> heldPhases.create(0, 2));
      createChecked.await();
      // An input shard is replaced and extract runs again: partition 0's step orders the new records again.
      List<Record> original = dataset.set(2, SortFixture.dataset(1, 30, 99).getFirst());
      SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
      phases.extract(0, 1, 3);
      phases.extract(0, 1, 2);
      phases.partition(0, 2, 1);
      rerunDone.countDown();
      create.get();
      dataset.set(2, original);
    }
    phases.create(1, 2);
    phases.commit();

    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    runPartitioned(spec(input, shuffle, records(root + "fresh/x-{000..}.tar", 20)), root + "scratch-fresh/", 1, 2);
    Map<String, byte[]> expected = objects(root + "fresh/");
    Map<String, byte[]> output = objects(root + "out/");
    assertThat(output.keySet()).isEqualTo(expected.keySet());
    for (var object : expected.entrySet()) {
      assertThat(output.get(object.getKey())).as(object.getKey()).isEqualTo(object.getValue());
    }
    assertThat(objects(root + "scratch/").keySet()).filteredOn(name -> name.startsWith("partition/00000/ordered-"))
        .as("both attempts' lists").hasSize(2);
    ScratchCleaning.clean(scratch, ScratchMarker.of(spec));
    assertThat(objects(root + "scratch/")).as("clean deletes the lists of every attempt").isEmpty();
  }

  @Test
  void createRefusesAnOrderedListShorterThanThePlanCounts() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.plan(1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var storage = new dev.quarry.core.sort.records.StoreRunStorage(scratch.store());
    String ordered = StoredJson.read(scratch.store(), names.partitionDone(1),
        dev.quarry.core.sort.plan.PartitionResult.class).ordered();
    List<dev.quarry.core.sort.records.RecordEntry> entries = new ArrayList<>();
    try (var reader = new dev.quarry.core.sort.records.RunReader(storage.open(ordered), ordered)) {
      for (var entry = reader.next(); entry != null; entry = reader.next()) {
        entries.add(entry);
      }
    }
    try (var writer = new dev.quarry.core.sort.records.RunWriter(storage.create(ordered))) {
      for (var entry : entries.subList(1, entries.size())) {
        writer.write(entry);
      }
      writer.finish();
    }
    assertThatThrownBy(() -> phases.create(1, 2)).hasMessage("Cannot create shards: partition 1's ordered list holds "
        + (entries.size() - 1) + " records of template 0, not the " + entries.size() + " the plan counts (the scratch"
        + " was changed; clean it and sort again)");
  }

  @Test
  void commitRefusesCreatedShardsWhoseRecordsAreNotThePlans() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.plan(1);
    phases.create(0, 1);
    Location scratch = stores.locate(root + "scratch/");
    String created = new Scratch(scratch.key()).created(0);
    var shard = StoredJson.read(scratch.store(), created, dev.quarry.core.sort.create.CreatedShard.class);
    StoredJson.write(scratch.store(), created, new dev.quarry.core.sort.create.CreatedShard(shard.index(), shard.url(),
        shard.size(), shard.records() + 1, shard.sha256()));
    assertThatThrownBy(phases::commit).hasMessage("Cannot commit: the created shards of template " + root
        + "out/x-{000..}.tar hold " + (all.size() + 1) + " records, not the " + all.size() + " of the plan (the"
        + " scratch was changed; clean it and sort again)");
    assertThat(objects(root + "out/").keySet()).noneMatch(name -> name.endsWith(".manifest.json"));
  }

  @Test
  void planRefusesExtractAndPartitionMarkersWhoseNamesSegmentsOrCountsItsWorkersCannotHaveWritten() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 1));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.partition(0, 2, 1);
    phases.partition(1, 2, 1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var extract = StoredJson.read(scratch.store(), names.extractDone(0),
        dev.quarry.core.sort.extract.ExtractResult.class);
    interface Tampered {
      dev.quarry.core.sort.extract.ExtractResult with(String attempt, String pack, long recordBytes);
    }
    Tampered tampered = (attempt, pack, recordBytes) -> new dev.quarry.core.sort.extract.ExtractResult(
        extract.index(), extract.count(), extract.partitions(), extract.from(), extract.to(), extract.shards(),
        extract.missingShards(), extract.records(), extract.bytes(), extract.inputBytes(), attempt, extract.runs(),
        extract.runsByPartition(), extract.peakMetadataBytes(), extract.metadataBytesPerRecord(), pack, recordBytes,
        extract.splittersSha256(), extract.keymapSha256(), extract.shardsGroupedOnDisk());
    String notItsOwn = "Cannot plan: the done marker of extract worker 0 names an attempt or pack that is not one of"
        + " its own (the scratch was changed; clean it and sort again)";

    StoredJson.write(scratch.store(), names.extractDone(0), tampered.with(extract.attempt(),
        names.prefix() + "inputs.json", extract.packRecordBytes()));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage(notItsOwn);
    StoredJson.write(scratch.store(), names.extractDone(0), tampered.with("../../x", extract.pack(),
        extract.packRecordBytes()));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage(notItsOwn);

    long size = extract.packRecordBytes();
    StoredJson.write(scratch.store(), names.extractDone(0), tampered.with(extract.attempt(), extract.pack(),
        size + 1));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: the pack of extract worker 0 holds "
        + (size + 3 * 8) + " bytes, not " + (size + 1 + 3 * 8) + " (the scratch was changed; clean it and sort"
        + " again)");

    StoredJson.write(scratch.store(), names.extractDone(0), extract);
    byte[] pack = bytes(scratch.store().url(extract.pack()));
    byte[] swapped = pack.clone();
    java.nio.ByteBuffer.wrap(swapped).putLong((int) size + 8, size + 1); // segment 1 starts past the records' end
    scratch.store().put(extract.pack(), swapped);
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot read the pack " + scratch.store().url(extract.pack())
        + ": its segment table is not 3 offsets rising from 0 to " + size + " (the scratch was changed; clean it and"
        + " sort again)");
    scratch.store().put(extract.pack(), pack);

    StoredJson.write(scratch.store(), names.extractDone(0), extract);
    var partition = StoredJson.read(scratch.store(), names.partitionDone(1),
        dev.quarry.core.sort.plan.PartitionResult.class);
    var counts = partition.templates().getFirst();
    long more = 1L << 20;
    StoredJson.write(scratch.store(), names.partitionDone(1), new dev.quarry.core.sort.plan.PartitionResult(
        partition.index(), partition.count(), partition.extractCount(), partition.packs(), partition.keymapSha256(),
        partition.ordered(), partition.recordsOrdered() + more, partition.duplicatesDropped(),
        partition.recordsDropped(),
        List.of(new dev.quarry.core.sort.plan.PartitionResult.TemplateCounts(counts.records() + more, counts.bytes()
            + more, counts.span() + more, counts.lastSpan())), null));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: the partition steps ordered "
        + (all.size() + more) + " records, not the " + all.size() + " the extract workers found (the scratch was"
        + " changed; clean it and sort again)");

    String otherList = StoredJson.read(scratch.store(), names.partitionDone(0),
        dev.quarry.core.sort.plan.PartitionResult.class).ordered();
    StoredJson.write(scratch.store(), names.partitionDone(1), new dev.quarry.core.sort.plan.PartitionResult(
        partition.index(), partition.count(), partition.extractCount(), partition.packs(), partition.keymapSha256(),
        otherList,
        partition.recordsOrdered(), partition.duplicatesDropped(), partition.recordsDropped(), partition.templates(),
        null));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: the done marker of partition 1 names an"
        + " ordered list that is not one of its own (the scratch was changed; clean it and sort again)");

    String json = new String(Json.bytes(partition), StandardCharsets.UTF_8).replace("\"duplicatesDropped\" : 0",
        "\"duplicatesDropped\" : 1");
    scratch.store().put(names.partitionDone(1), json.getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot read " + scratch.store().url(names.partitionDone(1))
        + ": it is not a valid PartitionResult document (it was changed or is corrupt; rerun the phase that wrote"
        + " it)");
  }

  /**
   * Extract, the partition steps and the plan each read the key map object: one edited while the job runs would
   * split, route and count records by different key maps. Extract records the SHA-256 of the text it read; workers
   * that read different texts, and a partition step or plan that reads another than theirs, are refused.
   */
  @Test
  void aKeymapObjectEditedWhileTheJobRunsIsRefusedNotMixedIntoTheOutput() throws Exception {
    dataset = SortFixture.dataset(6, 20, 31);
    all = dataset.stream().flatMap(List::stream).toList();
    String in = input(ShardFormat.TAR);
    String key = dataset.get(5).getLast().key();
    boolean even = "02468".indexOf(key.charAt(key.length() - 1)) >= 0;
    String v1 = "img/.*[02468]\t" + root + "out/ev-{00..}.tar\n.*\t" + root + "out/od-{00..}.tar\n";
    String v2 = key + "\t" + root + "out/" + (even ? "od" : "ev") + "-{00..}.tar\n" + v1;
    Location km = stores.locate(root + "km.txt");
    km.store().put(km.key(), v1.getBytes(StandardCharsets.UTF_8));
    SortSpec spec = spec(in, new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap(null, root + "km.txt", null)), records(root + "out/x-{000..}.tar", 7));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(1, 2, 4); // under v1
    km.store().put(km.key(), v2.getBytes(StandardCharsets.UTF_8));
    phases.extract(0, 2, 4); // under v2
    String mixed = " extract workers 0 and 1 read different key maps (the key map object changed while they ran;"
        + " clean the scratch and sort again)";
    assertThatThrownBy(() -> phases.partition(3, 4, 2)).hasMessage("Cannot partition:" + mixed);
    assertThatThrownBy(() -> phases.plan(2)).hasMessage("Cannot plan:" + mixed);

    SortPhases again = phases(spec, root + "scratch-2/");
    again.extract(0, 2, 4);
    again.extract(1, 2, 4); // both under v2
    again.partition(0, 4, 2);
    km.store().put(km.key(), v1.getBytes(StandardCharsets.UTF_8));
    String changed = " the key map object changed since the extract workers read it (clean the scratch and sort"
        + " again)";
    assertThatThrownBy(() -> again.partition(1, 4, 2)).hasMessage("Cannot partition:" + changed);
    assertThatThrownBy(() -> again.plan(2)).hasMessage("Cannot plan:" + changed);
    assertThat(objects(root + "out/").keySet()).isEmpty();
  }

  /**
   * A partition step's done marker holds the SHA-256 of the key map it routed by: after every extract worker ran
   * again under an edited key map (one partition, so no pack name changes), the earlier step is ordered again, and
   * the output is that of a job under the edited key map alone.
   */
  @Test
  void aPartitionStepOfAnotherKeymapIsOrderedAgain() throws Exception {
    String v1 = "img/.*[02468]\t" + root + "out/ev-{00..}.tar\n.*\t" + root + "out/od-{00..}.tar\n";
    String v2 = "img/.*[0-4]\t" + root + "out/ev-{00..}.tar\n.*\t" + root + "out/od-{00..}.tar\n";
    Location km = stores.locate(root + "km.txt");
    km.store().put(km.key(), v1.getBytes(StandardCharsets.UTF_8));
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap(null, root + "km.txt", null)), records(root + "out/x-{000..}.tar", 7));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 1);
    phases.partition(0, 1, 1);
    km.store().put(km.key(), v2.getBytes(StandardCharsets.UTF_8));
    Location scratch = stores.locate(root + "scratch/");
    scratch.store().delete(new Scratch(scratch.key()).extractDone(0)); // as if the worker's pod ran it again
    phases.extract(0, 1, 1);
    phases.plan(1);
    phases.create(0, 1);
    phases.commit();

    String fresh = v2.replace(root + "out/", root + "fresh/");
    km.store().put(km.key(), fresh.getBytes(StandardCharsets.UTF_8));
    runPartitioned(spec(input(ShardFormat.TAR), spec.order(), records(root + "fresh/x-{000..}.tar", 7)),
        root + "scratch-fresh/", 1, 1);
    var got = objects(root + "out/");
    var expected = objects(root + "fresh/");
    assertThat(got.keySet()).isEqualTo(expected.keySet()).contains("ev.manifest.json");
    expected.forEach((name, bytes) -> {
      if (!name.endsWith(".json")) {
        assertThat(got.get(name)).as(name).isEqualTo(bytes);
      }
    });
  }

  /**
   * A partition step and the plan name each extract worker's runs of a partition from its done marker, which counts
   * them partition by partition: they list no extract run (before, a listing of each worker's runs in every step, W x
   * P for the job, and one per worker that wrote no pack in the plan), whether the records spread over 3 partitions
   * or stay in 1; the output is the local run's.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3})
  void thePartitionStepsAndThePlanListNoExtractRuns(int partitions) throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "p/x-{000..}.tar", 90));
    Location scratch = stores.locate(root + "scratch/");
    Map<String, Integer> requests = new java.util.concurrent.ConcurrentSkipListMap<>();
    java.util.concurrent.atomic.AtomicBoolean counting = new java.util.concurrent.atomic.AtomicBoolean();
    var counted = dev.quarry.core.store.DelegatingStore.withHook(scratch.store(), (kind, key) -> {
      if (counting.get()) {
        requests.merge(kind + (key.contains("/extract/") ? " extract/" : " other"), 1, Integer::sum);
      }
    });
    SortPhases phases = new SortPhases(spec, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, java.time.Duration.ofMillis(100), QUIET);
    phases.extract(0, 2, partitions);
    phases.extract(1, 2, partitions);
    counting.set(true);
    if (partitions > 1) {
      for (int index = 0; index < partitions; index++) {
        phases.partition(index, partitions, 2);
      }
    }
    phases.plan(2);
    counting.set(false);
    assertThat(requests.getOrDefault("LIST extract/", 0)).as("listings of extract runs by the partition steps and"
        + " the plan; their requests: " + requests).isZero();
    phases.create(0, 1);
    phases.commit();
    assertTheOutputIsTheLocalRuns(spec);
  }

  /**
   * Where partition p lies in each extract worker's pack is written by the plan, which reads every pack's table whole
   * to check it, as one document per partition: a step reads no pack, and a create worker reads each pack once, for
   * its partition's segment, and its partition's document once. Before, a key order's step and a create worker each
   * read their partition's row of every pack's table first (16 bytes: two GETs more per extract worker and partition,
   * 2 M at 1,000 extract and 1,000 create workers, against 1,000 PUTs and 1,000 GETs of the documents). And a phase
   * reads a marker it looks for with one GET, without a HEAD before it (a step looked at every extract worker's
   * marker twice). With 2 extract workers, 3 partitions and 3 create workers the output is the local run's.
   */
  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"SHUFFLE", "ALPHANUMERIC"})
  void eachCreateWorkerReadsEachPackOnceAndNoMarkerIsLookedAtBeforeItIsRead(OrderKind kind) throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), order(kind, null, null), records(root + "p/x-{000..}.tar", 90));
    Location scratch = stores.locate(root + "scratch/");
    Map<String, Integer> requests = new java.util.concurrent.ConcurrentSkipListMap<>();
    java.util.concurrent.atomic.AtomicReference<String> phase = new java.util.concurrent.atomic.AtomicReference<>();
    var counted = dev.quarry.core.store.DelegatingStore.withHook(scratch.store(), (request, key) -> {
      String object = key.contains("/packs/") ? "pack" : key.contains("/plan/segments-") ? "segments"
          : key.endsWith(".json") ? "json" : "other";
      requests.merge(phase.get() + " " + request + " " + object, 1, Integer::sum);
    });
    SortPhases phases = new SortPhases(spec, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, java.time.Duration.ofMillis(100), QUIET);
    phase.set("extract");
    phases.extract(0, 2, 3);
    phases.extract(1, 2, 3);
    phase.set("partition");
    for (int index = 0; index < 3; index++) {
      phases.partition(index, 3, 2);
    }
    phase.set("plan");
    phases.plan(2);
    phase.set("create");
    for (int index = 0; index < 3; index++) {
      phases.create(index, 3);
    }
    phase.set("commit");
    phases.commit();
    assertThat(requests).as("requests of the scratch by phase, kind and object")
        .containsEntry("plan GET pack", 2) // each pack's table, checked
        .containsEntry("plan PUT segments", 3) // each partition's segments
        .containsEntry("create GET pack", 6) // each create worker's segment of each pack
        .containsEntry("create GET segments", 3) // each create worker's partition's
        .doesNotContainKeys("partition GET pack")
        .allSatisfy((request, number) -> assertThat(request).doesNotEndWith("HEAD json"));
    assertTheOutputIsTheLocalRuns(spec);
  }

  /**
   * A run a done marker names that is gone is refused in one line naming its extract worker and partition: by the
   * partition step that merges it, and, for a worker that wrote no pack, by the plan before it runs any step. Never
   * skipped: a listing found only the runs that were there, and a step of a spread worker's partitions merged the
   * rest without a word.
   */
  @Test
  void aRunADoneMarkerNamesThatIsGoneIsRefusedNamingItsWorkerAndPartition() throws Exception {
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null);
    String input = input(ShardFormat.TAR);
    for (int partitions : new int[] {2, 1}) {
      String scratchUrl = root + "scratch-" + partitions + "/";
      SortSpec spec = spec(input, shuffle, records(root + "out-" + partitions + "/x-{000..}.tar", 90));
      SortPhases phases = phases(spec, scratchUrl);
      phases.extract(0, 2, partitions);
      phases.extract(1, 2, partitions);
      String partitionPart = partitions > 1 ? "-00001-" : "-";
      String run = objects(scratchUrl).keySet().stream()
          .filter(name -> name.matches("extract/00001/run-[0-9a-f-]{36}" + partitionPart + "[0-9]{6}\\.run"))
          .findFirst().orElseThrow();
      Location scratch = stores.locate(scratchUrl);
      scratch.store().delete(scratch.key() + run);
      String gone = ": run 0 of partition " + (partitions - 1) + " of extract worker 1, which its done marker names,"
          + " does not exist (the scratch was changed; clean it and sort again)";
      if (partitions > 1) {
        assertThatThrownBy(() -> phases.partition(1, 2, 2)).hasMessage("Cannot partition" + gone);
      }
      assertThatThrownBy(() -> phases.plan(2)).hasMessage((partitions > 1 ? "Cannot partition" : "Cannot plan")
          + gone);
      assertThat(objects(scratchUrl).keySet()).as("partitions " + partitions)
          .noneMatch(name -> name.matches("partition/0000" + (partitions - 1) + "/done\\.json|plan/.*"));
    }
  }

  /**
   * A marker's partition count decides how many partition steps the plan runs: one out of the names' range, or that
   * its run counts do not cover, is refused where the marker is read, and one its runs do not bear out is refused
   * before any step runs.
   */
  @Test
  void aForgedPartitionCountIsRefusedBeforeThePlanRunsAnyPartitionStep() throws Exception {
    ExtractedMarker marker = extractedMarker();
    SortPhases phases = marker.phases();
    String json = marker.json();

    String runs = "\"runsByPartition\" : [ [ 1, 1 ] ]";
    assertThat(json).contains("\"partitions\" : 1,", runs);
    String invalid = "Cannot read " + marker.url() + ": it is not a valid ExtractResult"
        + " document (it was changed or is corrupt; rerun the phase that wrote it)";
    // Out of the names' range; run counts that do not cover the partitions; a marker of the previous layout, which
    // counted no runs by partition.
    for (String forged : List.of(json.replace("\"partitions\" : 1,", "\"partitions\" : 100000,"),
        json.replace("\"partitions\" : 1,", "\"partitions\" : 400,"), json.replace(runs + ",", ""))) {
      assertThat(forged).isNotEqualTo(json);
      marker.forge(forged);
      assertThatThrownBy(() -> phases.plan(1)).hasMessage(invalid);
    }

    marker.forge(json.replace("\"partitions\" : 1,", "\"partitions\" : 400,")
        .replace(runs, "\"runsByPartition\" : [ [ 1, 1 ], [ 0, 399 ] ]"));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: run 0 of partition 0 of extract worker 0,"
        + " which its done marker names, does not exist (the scratch was changed; clean it and sort again)");
    marker.forge(json.replace("\"partitions\" : 1,", "\"partitions\" : 400,")
        .replace(runs, "\"runsByPartition\" : [ [ 0, 1 ], [ 1, 1 ], [ 0, 398 ] ]"));
    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: extract worker 0 wrote no pack, yet its done"
        + " marker counts runs of partitions other than 0 (the scratch was changed; clean it and sort again)");
    assertThat(objects(root + "scratch/").keySet()).noneMatch(name -> name.startsWith("partition/"));
  }

  /** Extract worker 0 of 1 of a sort in input order, run, and its done marker, for tests that forge it. */
  private ExtractedMarker extractedMarker() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        records(root + "out/x-{000..}.tar", 7));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 1);
    Location scratch = stores.locate(root + "scratch/");
    String key = new Scratch(scratch.key()).extractDone(0);
    return new ExtractedMarker(phases, scratch.store(), key,
        new String(scratch.store().getBytes(key), StandardCharsets.UTF_8));
  }

  private record ExtractedMarker(SortPhases phases, ObjectStore store, String key, String json) {
    String url() {
      return store.url(key);
    }

    void forge(String forged) throws IOException {
      store.put(key, forged.getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * A marker that counts more runs than its worker can have written, two billion, is refused where it is read, before
   * any run is named: on a scratch in an object store a worker writes one run of each partition, on a local one no
   * more than its records. Before, the plan named every run it counts in a list, and ran out of memory.
   */
  @Test
  void aMarkerCountingMoreRunsThanItsWorkerCanWriteIsRefusedBeforeAnyRunIsNamed() throws Exception {
    ExtractedMarker marker = extractedMarker();
    SortPhases phases = marker.phases();
    String json = marker.json();
    assertThat(json).contains("\"runs\" : 1,", "\"runsByPartition\" : [ [ 1, 1 ] ]");
    marker.forge(json.replace("\"runs\" : 1,", "\"runs\" : 2000000000,")
        .replace("[ [ 1, 1 ] ]", "[ [ 2000000000, 1 ] ]"));

    assertThatThrownBy(() -> phases.plan(1)).hasMessage("Cannot plan: the done marker of extract worker 0 counts "
        + (marker.store().isLocal() ? "2000000000 runs of " + all.size() + " records"
            : "2000000000 runs of one partition, where a worker writes one to a scratch in an object store")
        + " (the scratch was changed; clean it and sort again)");
    assertThat(objects(root + "scratch/").keySet()).noneMatch(name -> name.startsWith("partition/"));
  }

  /**
   * A marker whose runs and records are both forged to two billion passes the count check on a local scratch (a
   * worker there writes up to a run a record); the plan and the steps then name the runs as they reach them, and fail
   * at the first that does not exist, naming it. Before, they named every counted run first, and ran out of memory.
   * On a scratch in an object store the count check refuses it, as above. Both orders: one where the worker wrote no
   * pack (the plan looks at its runs) and a shuffle over two partitions (each step merges its runs).
   */
  @Test
  void aMarkerForgedToCountARunPerRecordFailsAtTheFirstRunThatIsNotThere() throws Exception {
    ExtractedMarker unpacked = extractedMarker();
    assertThat(unpacked.json()).contains("\"runs\" : 1,", "\"runsByPartition\" : [ [ 1, 1 ] ]",
        "\"records\" : " + all.size() + ",");
    unpacked.forge(unpacked.json().replace("\"runs\" : 1,", "\"runs\" : 2000000000,")
        .replace("[ [ 1, 1 ] ]", "[ [ 2000000000, 1 ] ]")
        .replace("\"records\" : " + all.size() + ",", "\"records\" : 2000000000,"));
    assertThatThrownBy(() -> unpacked.phases().plan(1)).hasMessage(unpacked.store().isLocal()
        ? "Cannot plan: run 1 of partition 0 of extract worker 0, which its done marker names, does not exist (the"
            + " scratch was changed; clean it and sort again)"
        : "Cannot plan: the done marker of extract worker 0 counts 2000000000 runs of one partition, where a worker"
            + " writes one to a scratch in an object store (the scratch was changed; clean it and sort again)");

    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 7));
    SortPhases phases = phases(spec, root + "shuffled/");
    phases.extract(0, 1, 2);
    Location scratch = stores.locate(root + "shuffled/");
    ExtractedMarker packed = new ExtractedMarker(phases, scratch.store(), new Scratch(scratch.key()).extractDone(0),
        new String(scratch.store().getBytes(new Scratch(scratch.key()).extractDone(0)), StandardCharsets.UTF_8));
    assertThat(packed.json()).contains("\"runs\" : 2,", "\"runsByPartition\" : [ [ 1, 2 ] ]");
    packed.forge(packed.json().replace("\"runs\" : 2,", "\"runs\" : 2000000000,")
        .replace("[ [ 1, 2 ] ]", "[ [ 1000000000, 2 ] ]")
        .replace("\"records\" : " + all.size() + ",", "\"records\" : 2000000000,"));
    assertThatThrownBy(() -> phases.partition(1, 2, 1)).hasMessage(packed.store().isLocal()
        ? "Cannot partition: run 1 of partition 1 of extract worker 0, which its done marker names, does not exist"
            + " (the scratch was changed; clean it and sort again)"
        : "Cannot partition: the done marker of extract worker 0 counts 1000000000 runs of one partition, where a"
            + " worker writes one to a scratch in an object store (the scratch was changed; clean it and sort again)");
    assertThat(objects(root + "shuffled/").keySet()).noneMatch(name -> name.startsWith("partition/"));
  }

  /**
   * Create reads a packed record at the offset its partition's ordered list gives, from the start of its segment of
   * the pack: one that a changed list puts past the segment's end (into the next segment, or the segment table) is
   * refused, not read as record bytes; so is one that names another segment than its partition's.
   */
  @Test
  void createRefusesAnOrderedListPointingPastThePacksRecords() throws Exception {
    SortSpec spec = spec(input(ShardFormat.TAR), new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + "out/x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, 2);
    phases.plan(1);
    Location scratch = stores.locate(root + "scratch/");
    Scratch names = new Scratch(scratch.key());
    var extract = StoredJson.read(scratch.store(), names.extractDone(0),
        dev.quarry.core.sort.extract.ExtractResult.class);
    var storage = new dev.quarry.core.sort.records.StoreRunStorage(scratch.store());
    String ordered = StoredJson.read(scratch.store(), names.partitionDone(1),
        dev.quarry.core.sort.plan.PartitionResult.class).ordered();
    List<dev.quarry.core.sort.records.RecordEntry> entries = new ArrayList<>();
    try (var reader = new dev.quarry.core.sort.records.RunReader(storage.open(ordered), ordered)) {
      for (var entry = reader.next(); entry != null; entry = reader.next()) {
        entries.add(entry);
      }
    }
    var last = entries.getLast();
    long length = last.ranges().getFirst().length();
    var segment = StoredJson.read(scratch.store(), names.planSegments(1),
        dev.quarry.core.sort.extract.SegmentTable.Segment[].class)[0];
    record Tampered(long offset, int segment, String message) {}
    for (Tampered tampered : List.of(
        new Tampered(segment.length() - length + 8, 1, "one points outside partition 1's segment of "
            + extract.pack()),
        new Tampered(last.ranges().getFirst().offset(), 0, "record " + last.key() + " of partition 1 names segment"
            + " 0"))) {
      List<dev.quarry.core.sort.records.RecordEntry> changed = new ArrayList<>(entries);
      changed.set(entries.size() - 1, new dev.quarry.core.sort.records.RecordEntry(last.key(), last.shard(),
          last.position(), true, List.of(new dev.quarry.core.archive.RawRange(tampered.offset(), length)),
          last.size(), last.contentKey(), tampered.segment()));
      try (var writer = new dev.quarry.core.sort.records.RunWriter(storage.create(ordered))) {
        for (var entry : changed) {
          writer.write(entry);
        }
        writer.finish();
      }
      assertThatThrownBy(() -> phases.create(1, 2)).as(tampered.toString()).hasMessage("Cannot read the record"
          + " entries: " + tampered.message() + " (the scratch was changed; clean it and sort again)");
    }
  }

  /**
   * An order of {@code kind} over the fixture's records: shuffle seeded, content by the .cls number, a key map
   * sending the keys ending in an even digit to {@code even}'s shards and the others to {@code odd}'s.
   */
  private static SortSpec.Order order(OrderKind kind, String even, String odd) {
    return new SortSpec.Order(kind, null, kind == OrderKind.SHUFFLE ? 11L : null,
        kind == OrderKind.CONTENT ? new SortSpec.ContentKey("cls", SortSpec.ContentType.INT) : null,
        kind == OrderKind.KEYMAP ? new SortSpec.Keymap("img/.*[02468]\t" + even + "\n.*\t" + odd + "\n", null, null)
            : null);
  }

  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"SHUFFLE", "ALPHANUMERIC", "KEYMAP", "CONTENT", "NONE"})
  void eachPartitionOrdersItsShareOfTheRecordsAndCreateWorkersTheirPartitionsShards(OrderKind kind)
      throws Exception {
    dataset = SortFixture.dataset(8, 250, 5);
    all = dataset.stream().flatMap(List::stream).toList();
    String input = input(ShardFormat.TAR);
    SortSpec spec = spec(input.replace("{000..005}", "{000..007}"), order(kind, "ev-{000..}.tar",
        "od-{000..}.tar"), records(root + "p/x-{000..}.tar", 50));
    List<PhaseResult> results = runPartitioned(spec, root + "scratch/", 2, 4);
    long mostOrdered = results.stream().filter(r -> r.phase().equals("partition")).mapToLong(PhaseResult::records)
        .max().orElseThrow();
    assertThat(mostOrdered).isLessThanOrEqualTo((long) (1.25 * all.size() / 4));
    // Two templates for the key map: a partition may own the last, partial shard of the first and the first of the
    // second, and its splitters come from a sample of about 50 keys. A content order's partitions, from a sample of
    // about 60 content keys, are as uneven; its steps, by key hash, are not. A shard that goes on into the next
    // partitions counts for the worker that joined its pieces, which may be the next partition's.
    long[] shardRange = kind == OrderKind.KEYMAP ? new long[] {7, 14}
        : kind == OrderKind.CONTENT ? new long[] {6, 15} : new long[] {8, 12};
    assertThat(results.stream().filter(r -> r.phase().equals("create")).mapToLong(PhaseResult::shards))
        .allSatisfy(shards -> assertThat(shards).isBetween(shardRange[0], shardRange[1])).hasSize(4);

    Location scratch = stores.locate(root + "scratch/");
    assertThat(objects(root + "scratch/").keySet()).anyMatch(name -> name.startsWith("packs/extract-"))
        .anyMatch(name -> name.startsWith("partition/00003/"));
    ScratchCleaning.clean(scratch, ScratchMarker.of(spec));
    assertThat(objects(root + "scratch/")).as("clean deletes the packs and partition files too").isEmpty();
  }

  /**
   * Shards go on across partitions, and a shard's records in the next partitions lie scattered through their
   * segments: read from there, across gaps of up to 1 MiB, small records cost the whole of those segments again (the
   * sort-scale benchmark measured reads of 2.57 times the input at 1 KiB records and 64 workers, where 2 is the
   * rule). Each create worker instead reads its own partition's segments once and nothing else of the packs: the
   * worker of each partition a shard goes on into writes that shard's records there as a piece, and the last of them
   * to write its piece joins the pieces into the shard. The output is the local run's, byte for byte.
   */
  @Test
  void createWorkersReadEachPackSegmentOnceAndShardsAcrossPartitionsAreJoinedFromPieces() throws Exception {
    Planned planned = plannedAcrossPartitions();
    SortSpec spec = planned.spec();
    SortPhases phases = planned.phases();
    Location scratch = stores.locate(root + "scratch/");
    java.util.concurrent.atomic.AtomicInteger packGets = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong packBytes = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicInteger pieceGets = new java.util.concurrent.atomic.AtomicInteger();
    var counted = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public void before(String kind, String key) {
        if (kind.equals("GET") && key.contains("/packs/extract-")) {
          packGets.incrementAndGet();
        }
        if (kind.equals("GET") && key.matches(".*/create/pieces/[0-9]+/[0-9]+\\.tar")) {
          pieceGets.incrementAndGet();
        }
      }

      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        if (key.contains("/packs/extract-")) {
          packBytes.addAndGet(length);
        }
        return super.getRange(key, offset, length);
      }
    };
    SortPhases countedPhases = new SortPhases(spec, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, QUIET);
    for (int index = 0; index < 4; index++) {
      countedPhases.create(index, 4);
    }
    var plan = StoredJson.read(scratch.store(), new Scratch(scratch.key()).planDone(),
        dev.quarry.core.sort.plan.PlanSummary.class);
    long continued = plan.partitions().stream().skip(1).filter(start -> start.records().getFirst() % 90 != 0)
        .count();
    assertThat(continued).as("shards that go on into the next partition").isEqualTo(3);
    long records = plan.packs().stream().mapToLong(dev.quarry.core.sort.plan.PlanSummary.ExtractPack::recordBytes)
        .sum();
    assertThat(packGets.get()).as("GETs of the packs by the create workers: a segment of each of 2 packs, by 4"
        + " workers").isEqualTo(2 * 4);
    assertThat(packBytes.get()).as("bytes of the packs read by the create workers, of " + records + " of records")
        .isEqualTo(records);
    assertThat(objects(root + "scratch/").keySet()).filteredOn(name -> name.startsWith("create/pieces/"))
        .as("a piece of each shard that goes on and its entries, from the partition that came first: the last to"
            + " come joins the shard without storing its own").hasSize(3 * 2);
    assertThat(pieceGets.get()).as("pieces read back: the stored one of each shard that goes on, by its joiner")
        .isEqualTo(3);
    phases.commit();

    assertTheOutputIsTheLocalRuns(spec);
  }

  /**
   * A create worker reads no row of a pack's segment table (the plan's document of its partition says where its
   * segments lie), and fetches its segments from all packs at once: it read its row of each table first, a content
   * order's worker each row again to locate its entries, one request per extract worker in a row, and fetched the
   * segments one after another, through one connection at a time.
   */
  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"SHUFFLE", "CONTENT"})
  void aCreateWorkerReadsNoPacksTableAndFetchesItsSegmentsAtOnce(OrderKind kind) throws Exception {
    Planned planned = plannedAcrossPartitions(kind);
    Location scratch = stores.locate(root + "scratch/");
    Map<String, java.util.concurrent.atomic.AtomicInteger> rowReads = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.CyclicBarrier bothPacks = new java.util.concurrent.CyclicBarrier(2);
    var counted = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        if (key.contains("/packs/extract-") && length == 16) {
          rowReads.computeIfAbsent(key, pack -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
        } else if (key.contains("/packs/extract-")) {
          try {
            bothPacks.await(10, java.util.concurrent.TimeUnit.SECONDS); // the other pack's segment is read meanwhile
          } catch (java.util.concurrent.TimeoutException | java.util.concurrent.BrokenBarrierException e) {
            throw new java.io.IOException("the segments of the two packs were not read at once", e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException();
          }
        }
        return super.getRange(key, offset, length);
      }
    };
    SortPhases countedPhases = new SortPhases(planned.spec(), stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, QUIET);
    for (int index = 0; index < 4; index++) {
      countedPhases.create(index, 4);
    }

    assertThat(rowReads).as("reads of a row of a pack's segment table, by 4 create workers").isEmpty();
    planned.phases().commit();
    assertTheOutputIsTheLocalRuns(planned.spec());
  }

  /**
   * The partition steps and the plan read the workers' done markers and check the packs (a HEAD and the segment table
   * of each) at once, the plan writes the partitions' segments at once, a create worker looks its shards' done markers
   * up at once, and an extract worker writes the runs of a spill at once: one after another, 200 extract workers were
   * 400 requests in a row for every step and 600 for the plan before it began, 400 shards 400 requests before a worker
   * began, and 1,000 partitions 1,000 PUTs at each spill (and at the plan). The first request of each kind waits here until a second one like it is in
   * flight.
   */
  @Test
  void extractTheStepsThePlanAndCreateMakeTheirRequestsOfEachKindAtOnce() throws Exception {
    dataset = SortFixture.dataset(8, 50, 5);
    all = dataset.stream().flatMap(List::stream).toList();
    SortSpec spec = spec(input(ShardFormat.TAR).replace("{000..005}", "{000..007}"), order(OrderKind.SHUFFLE, null,
        null), records(root + "p/x-{000..}.tar", 90));
    SortPhases phases = phases(spec, root + "scratch/");
    Location scratch = stores.locate(root + "scratch/");
    Map<String, java.util.concurrent.CountDownLatch> pairs = new java.util.concurrent.ConcurrentHashMap<>();
    // An extract worker and a step read their own done marker alone, to find whether they are done.
    java.util.concurrent.atomic.AtomicReference<String> phase = new java.util.concurrent.atomic.AtomicReference<>(
        "extract");
    var latched = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public void before(String kind, String key) throws java.io.IOException {
        String which = kind.equals("GET") && !key.contains("/" + phase.get() + "/")
            && key.matches(".*/(extract|partition)/[0-9]+/done\\.json")
            ? "the done markers of " + key.replaceAll(".*/(extract|partition)/.*", "$1")
            : kind.equals("GET") && key.matches(".*/create/[0-9]+\\.json") ? "the created shards' markers"
            : kind.equals("PUT") && key.matches(".*/plan/segments-[0-9]+\\.json") ? "the partitions' segments"
            : kind.equals("PUT") && key.matches(".*/extract/[0-9]+/run-.*") ? "the runs of a spill" : null;
        if (which != null) {
          pair(which);
        }
      }

      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        if (key.contains("/packs/extract-") && length == 5 * 8) { // a whole table: 4 segments and the end
          pair("the packs' segment tables");
        }
        return super.getRange(key, offset, length);
      }

      private void pair(String which) throws java.io.IOException {
        java.util.concurrent.CountDownLatch two = pairs.computeIfAbsent(which,
            kind -> new java.util.concurrent.CountDownLatch(2));
        two.countDown();
        try {
          if (!two.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new java.io.IOException(which + " were not in flight at once");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException();
        }
      }
    };
    SortPhases latchedPhases = new SortPhases(spec, stores, new Location(latched, scratch.key()),
        new ScratchPacks(latched, new Scratch(scratch.key())), false, QUIET);

    for (int index = 0; index < 2; index++) {
      latchedPhases.extract(index, 2, 4);
    }
    phase.set("partition");
    for (int index = 0; index < 4; index++) {
      latchedPhases.partition(index, 4, 2);
    }
    phase.set("plan");
    latchedPhases.plan(2);
    latchedPhases.create(0, 1);

    assertThat(pairs).as("kinds of request made two at a time").containsOnlyKeys("the runs of a spill",
        "the done markers of extract", "the done markers of partition", "the packs' segment tables",
        "the partitions' segments", "the created shards' markers");
    phases.commit();
    assertTheOutputIsTheLocalRuns(spec);
  }

  /**
   * The pieces of a shard that goes on, each interleaving forced: a worker killed between its piece and the piece's
   * entries leaves the shard unjoined, the other worker does not join it without that piece, and the rerun joins it;
   * two workers that write their pieces and then look at once both join it, into the same bytes. The output is the
   * local run's every time.
   */
  @Test
  void aShardOfPiecesIsJoinedByTheLastToWriteItsPieceWhateverTheInterleaving() throws Exception {
    Planned planned = plannedAcrossPartitions();
    SortSpec spec = planned.spec();
    SortPhases phases = planned.phases();
    Location scratch = stores.locate(root + "scratch/");
    // Worker 1 dies as it writes the entries of its piece of the shard that goes on from partition 0.
    var dying = dev.quarry.core.store.DelegatingStore.withHook(scratch.store(), (kind, key) -> {
      if (kind.equals("PUT") && key.matches(".*/create/pieces/[0-9]+/00001\\.run")) {
        throw new java.io.IOException("killed");
      }
    });
    assertThatThrownBy(() -> new SortPhases(spec, stores, new Location(dying, scratch.key()),
        new ScratchPacks(dying, new Scratch(scratch.key())), false, QUIET).create(1, 4)).hasMessage("killed");
    phases.create(0, 4);
    String leading = objects(root + "scratch/").keySet().stream().filter(name -> name.endsWith("/00001.tar"))
        .findFirst().orElseThrow();
    long shard = Long.parseLong(leading.split("/")[2]);
    assertThat(objects(root + "scratch/")).as("not joined without worker 1's piece")
        .doesNotContainKey(String.format("create/%08d.json", shard));
    // Worker 3 stores its piece of the shard between partitions 2 and 3 (worker 2 joins it alone), so that the
    // latches below hold worker 2's looks at the shard between 1 and 2 only: with both counted, a look at the other
    // shard could open them before worker 1 came, and the interleaving was not the one forced.
    phases.create(3, 4);
    String trailingPiece = objects(root + "scratch/").keySet().stream().filter(name -> name.endsWith("/00003.tar"))
        .findFirst().orElseThrow();
    long trailing = Long.parseLong(trailingPiece.split("/")[2]);

    // Worker 1 again, and worker 2 at once: both find the other's piece missing, store their own, then both look
    // again before either joins.
    java.util.concurrent.CountDownLatch looking = new java.util.concurrent.CountDownLatch(2);
    Map<String, Integer> joins = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.CountDownLatch firstLooks = new java.util.concurrent.CountDownLatch(2);
    ThreadLocal<Boolean> stored = ThreadLocal.withInitial(() -> false);
    var meeting = dev.quarry.core.store.DelegatingStore.withHook(scratch.store(), (kind, key) -> {
      if (kind.equals("PUT") && key.matches(".*/create/[0-9]{8}\\.json")) {
        joins.merge(key, 1, Integer::sum);
      }
      boolean between = key.matches(".*/create/pieces/[0-9]+/.*") && !key.contains(String.format("/%08d/", shard))
          && !key.contains(String.format("/%08d/", trailing));
      if (kind.equals("PUT") && between && key.endsWith(".run")) {
        stored.set(true);
      }
      if (kind.equals("LIST") && between && !stored.get()) {
        firstLooks.countDown();
        try {
          assertThat(firstLooks.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
      if (kind.equals("LIST") && between && stored.get()) {
        looking.countDown();
        try {
          assertThat(looking.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
    });
    SortPhases meetingPhases = new SortPhases(spec, stores, new Location(meeting, scratch.key()),
        new ScratchPacks(meeting, new Scratch(scratch.key())), false, QUIET);
    java.util.concurrent.CompletableFuture<PhaseResult> two = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return meetingPhases.create(2, 4);
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    PhaseResult one = meetingPhases.create(1, 4);
    PhaseResult other = two.get(60, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(one.shards() + other.shards()).isPositive();
    assertThat(joins.values()).as("the shard between partitions 1 and 2 was joined by both").containsOnlyOnce(2);
    phases.commit();

    assertTheOutputIsTheLocalRuns(spec);
  }

  /** A plan of 2 extract workers and 4 partitions of 2000 small records into shards of 90, 3 of which go on. */
  private record Planned(SortSpec spec, SortPhases phases) {}

  private Planned plannedAcrossPartitions() throws Exception {
    return plannedAcrossPartitions(OrderKind.SHUFFLE);
  }

  /** 2,000 records extracted by 2 workers into 4 partitions, ordered and planned, in shards of 90 records. */
  private Planned plannedAcrossPartitions(OrderKind kind) throws Exception {
    dataset = SortFixture.dataset(8, 250, 5);
    all = dataset.stream().flatMap(List::stream).toList();
    SortSpec spec = spec(input(ShardFormat.TAR).replace("{000..005}", "{000..007}"), order(kind, null, null),
        records(root + "p/x-{000..}.tar", 90));
    SortPhases phases = phases(spec, root + "scratch/");
    for (int index = 0; index < 2; index++) {
      phases.extract(index, 2, 4);
    }
    for (int index = 0; index < 4; index++) {
      phases.partitionThenPlan(index, 4, 2);
    }
    return new Planned(spec, phases);
  }

  /** The shards and manifest under p/ are those a local run of {@code spec} writes, byte for byte. */
  private void assertTheOutputIsTheLocalRuns(SortSpec spec) throws Exception {
    LocalSort.run(spec(spec.input().template(), spec.order(), records(root + "local/x-{000..}.tar", 90)), stores,
        temp.resolve("work"), QUIET);
    var localObjects = objects(root + "local/");
    var partitionedObjects = objects(root + "p/");
    assertThat(partitionedObjects.keySet()).isEqualTo(localObjects.keySet()).contains("x.manifest.json");
    localObjects.forEach((name, bytes) -> assertThat(partitionedObjects.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * What a partition step and a create worker read of the scratch's metadata (done markers, the plan, the packs'
   * segment tables) is their own column: it stays about the same with 8 partitions as with 1, for 8 extract workers.
   */
  @Test
  void aPartitionStepAndACreateWorkerReadMetadataOfTheirOwnPartitionNotOfEveryPartition() throws Exception {
    dataset = SortFixture.dataset(8, 40, 7);
    all = dataset.stream().flatMap(List::stream).toList();
    String input = input(ShardFormat.TAR).replace("{000..005}", "{000..007}");
    long[] one = metadataRead(input, 1);
    long[] eight = metadataRead(input, 8);
    assertThat(eight[0]).as("metadata bytes read by partition step 0 of 8, of 1: " + one[0])
        .isLessThanOrEqualTo(one[0] * 3 / 2);
    assertThat(eight[1]).as("metadata bytes read by create worker 0 of 8, of 1: " + one[1])
        .isLessThanOrEqualTo(one[1] * 3 / 2);
  }

  /**
   * The plan every create worker reads stays the same size whatever the number of output shards (at 100 TiB there
   * are 409,600 of them, and so many inputs: 80 MB of JSON read by each worker, past what a scratch document may be),
   * and a create worker reads the page of its own partition's shards alone, and no input list when the records are
   * in partition packs.
   */
  @Test
  void thePlanStaysSmallAndACreateWorkerReadsOnlyThePageOfItsOwnShards() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null);
    runPartitioned(spec(input, shuffle, records(root + "few/x-{000..}.tar", 60)), root + "scratch-few/", 2, 4);
    SortSpec many = spec(input, shuffle, records(root + "many/x-{000..}.tar", 1));
    SortPhases phases = phases(many, root + "scratch-many/");
    for (int index = 0; index < 2; index++) {
      phases.extract(index, 2, 4);
    }
    for (int index = 0; index < 4; index++) {
      phases.partitionThenPlan(index, 4, 2);
    }
    int fewPlan = bytes(root + "scratch-few/plan/plan.json").length;
    assertThat(bytes(root + "scratch-many/plan/plan.json").length).as("bytes of the plan of " + all.size()
        + " shards, of 4: " + fewPlan).isLessThan(fewPlan + 256);

    Location scratch = stores.locate(root + "scratch-many/");
    List<String> read = java.util.Collections.synchronizedList(new ArrayList<>());
    var counted = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public java.io.InputStream get(String key) throws java.io.IOException {
        if (key.endsWith(".json")) {
          read.add(key.substring(scratch.key().length()));
        }
        return super.get(key);
      }
    };
    PhaseResult create = new SortPhases(many, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, QUIET).create(1, 4);
    assertThat(create.shards()).as("create worker 1's shards").isBetween(1L, all.size() / 2L);
    assertThat(read).as("documents create worker 1 read")
        .filteredOn(key -> !key.startsWith("create/") && !key.equals(Scratch.MARKER))
        .containsExactlyInAnyOrder("plan/plan.json", "plan/shards-00001-000000.json", "plan/segments-00001.json");
    for (int index = 0; index < 4; index++) {
      if (index != 1) {
        phases.create(index, 4);
      }
    }
    phases.commit();
    Map<String, byte[]> output = objects(root + "many/");
    assertThat(output).hasSize(all.size() + 2);
  }

  /**
   * Sorts {@code input} with 8 extract workers and {@code partitions} partitions; returns the bytes of metadata
   * partition step 0 and create worker 0 read from scratch (JSON documents, and ranged reads of segment tables).
   */
  private long[] metadataRead(String input, int partitions) throws Exception {
    String run = "p" + partitions;
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        records(root + run + "/x-{000..}.tar", 10));
    SortPhases phases = phases(spec, root + "scratch-" + run + "/");
    for (int index = 0; index < 8; index++) {
      phases.extract(index, 8, partitions);
    }
    for (int index = 1; index < partitions; index++) {
      phases.partition(index, partitions, 8);
    }
    Location scratch = stores.locate(root + "scratch-" + run + "/");
    java.util.concurrent.atomic.AtomicLong metadata = new java.util.concurrent.atomic.AtomicLong();
    var counted = new dev.quarry.core.store.DelegatingStore(scratch.store()) {
      @Override
      public java.io.InputStream get(String key) throws java.io.IOException {
        return key.endsWith(".json") ? counting(super.get(key)) : super.get(key);
      }

      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        boolean table = key.endsWith(".pack") && length <= 16;
        return table ? counting(super.getRange(key, offset, length)) : super.getRange(key, offset, length);
      }

      private java.io.InputStream counting(java.io.InputStream in) {
        return new java.io.FilterInputStream(in) {
          @Override
          public int read() throws java.io.IOException {
            int b = super.read();
            metadata.addAndGet(b < 0 ? 0 : 1);
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws java.io.IOException {
            int n = super.read(buffer, offset, length);
            metadata.addAndGet(Math.max(n, 0));
            return n;
          }
        };
      }
    };
    SortPhases countedPhases = new SortPhases(spec, stores, new Location(counted, scratch.key()),
        new ScratchPacks(counted, new Scratch(scratch.key())), false, QUIET);
    countedPhases.partition(0, partitions, 8);
    long partitionStep = metadata.getAndSet(0);
    phases.plan(8);
    countedPhases.create(0, partitions);
    return new long[] {partitionStep, metadata.get()};
  }

  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"TAR", "TAR_GZ"})
  void phasesInSeparateWorkersGiveByteIdenticalOutputToALocalRun(ShardFormat format) throws Exception {
    String input = input(format);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 42L, null, null);
    LocalSort.run(spec(input, shuffle, records(root + "local/x-{000..}." + format.extension(), 45)), stores,
        temp.resolve("work"), QUIET);

    SortSpec distributed = spec(input, shuffle, records(root + "dist/x-{000..}." + format.extension(), 45));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(distributed, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    for (int i = 0; i < 3; i++) {
      phases.extract(i, 3);
    }
    phases.plan(3);
    phases.create(1, 2);
    phases.create(0, 2);
    phases.commit();

    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> dist = objects(root + "dist/");
    assertThat(dist.keySet()).isEqualTo(local.keySet()).contains("x.manifest.json", "x.wids.json");
    local.forEach((name, bytes) -> assertThat(dist.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void theLastWorkerOfExtractPlansAndTheLastOfCreateCommitsEvenWhenTwoFinishTogether() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null);
    LocalSort.run(spec(input, shuffle, records(root + "local/x-{000..}.tar", 45)), stores, temp.resolve("work"),
        QUIET);

    SortSpec distributed = spec(input, shuffle, records(root + "dist/x-{000..}.tar", 45));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(distributed, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    assertThat(phases.extractThenPlan(2, 3)).extracting(PhaseResult::phase).containsExactly("extract");
    assertThat(phases.extractThenPlan(0, 3)).extracting(PhaseResult::phase).containsExactly("extract");
    // Index 1 finishes last, twice at once (a retried pod and its predecessor, say): both plan, neither in the way.
    List<List<PhaseResult>> lasts;
    try (ExecutorService both = Executors.newFixedThreadPool(2)) {
      Future<List<PhaseResult>> first = both.submit(() -> phases.extractThenPlan(1, 3));
      Future<List<PhaseResult>> second = both.submit(() -> phases.extractThenPlan(1, 3));
      lasts = List.of(first.get(), second.get());
    }
    assertThat(lasts).allSatisfy(results -> assertThat(results).extracting(PhaseResult::phase)
        .containsExactly("extract", "plan"));
    assertThat(lasts.get(0).get(1).shards()).isEqualTo(lasts.get(1).get(1).shards()).isPositive();

    assertThat(phases.createThenCommit(1, 2)).extracting(PhaseResult::phase).containsExactly("create");
    assertThat(stores.locate(root + "dist/x.manifest.json").store().head(stores.locate(root + "dist/x.manifest.json")
        .key())).as("no manifest before every shard is created").isEmpty();
    List<PhaseResult> last = phases.createThenCommit(0, 2);
    assertThat(last).extracting(PhaseResult::phase).containsExactly("create", "commit");

    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> dist = objects(root + "dist/");
    assertThat(dist.keySet()).isEqualTo(local.keySet()).contains("x.manifest.json", "x.wids.json");
    local.forEach((name, bytes) -> assertThat(dist.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void aLocalRunWhosePacksOutgrowItsBudgetSpillsThemAndWritesTheSameShards() throws Exception {
    dataset = SortFixture.dataset(6, 2500, 12); // about 4 MiB a shard: 24 MiB of packs against 8 MiB held
    String input = input(ShardFormat.TAR_GZ); // compressed input is packed in any mode
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null);
    SortSpec.Output output = new SortSpec.Output(root + "small/x-{000..}.tar", null, "2Mi", null, null);
    SortSpec small = new SortSpec(new SortSpec.Input(input, null, null, null), output, shuffle, null,
        new SortSpec.Workers("16Mi", 8), null, false);
    PhaseResult extract = LocalSort.run(small, stores, temp.resolve("work"), QUIET).getFirst();
    SortSpec large = new SortSpec(small.input(), new SortSpec.Output(root + "large/x-{000..}.tar", null, "2Mi", null,
        null), shuffle, null, new SortSpec.Workers("1Gi", 8), null, false);
    PhaseResult roomy = LocalSort.run(large, stores, temp.resolve("work"), QUIET).getFirst();

    assertThat((long) extract.details().get("packBytesSpilled")).as("spilled").isGreaterThan(12L << 20);
    assertThat(roomy.details().get("packBytesSpilled")).isEqualTo(0L);
    Map<String, byte[]> spilled = objects(root + "small/");
    Map<String, byte[]> inMemory = objects(root + "large/");
    assertThat(spilled.keySet()).isEqualTo(inMemory.keySet()).hasSizeGreaterThan(10);
    inMemory.forEach((name, bytes) -> assertThat(spilled.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * One output shard of more entries than the least budget's heap holds (60,000 records of Python's tarfile): its
   * entries wait on the create worker's disk and its pieces are gathered in chunks, each later chunk reading what the
   * first streamed past, or (in one process, to a store that is not local) it is written to the work folder before
   * its upload reads it part by part. The shard is byte for byte the one made where everything is held, in one process
   * and as phases. Before, a create batch was never less than one shard, all of whose entries were in the heap
   * (ShardOfManyRecordsHeapTest).
   */
  @Test
  void aShardOfMoreEntriesThanTheHeapHoldsIsTheSameBytesAsOneHeldWhole() throws Exception {
    Path made = Files.createDirectories(temp.resolve("many"));
    CommandResult python = CommandResult.run(temp, List.of(dev.quarry.core.archive.msgpack.MsgpackShards.python(),
        "-c", """
        import io, sys, tarfile
        folder = sys.argv[1]
        for shard in range(2):
            with tarfile.open(f"{folder}/in-{shard:03d}.tar", "w", format=tarfile.GNU_FORMAT) as tar:
                for record in range(30000):
                    data = f"{shard} {record}".encode()
                    info = tarfile.TarInfo(f"s{shard}/record-{record * 7919 % 30000:06d}.txt")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
        """, made.toString()));
    assertThat(python.exitCode()).as(python.stderr()).isZero();
    for (int shard = 0; shard < 2; shard++) {
      Location location = stores.locate(root + String.format("many/in-%03d.tar", shard));
      location.store().put(location.key(), Files.readAllBytes(made.resolve(String.format("in-%03d.tar", shard))));
    }
    SortSpec.Input input = new SortSpec.Input(root + "many/in-{000..001}.tar", null, null, null);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null);
    Map<String, Object> onDisk = new java.util.LinkedHashMap<>();
    for (String run : List.of("roomy", "least", "phased")) {
      SortSpec spec = new SortSpec(input, records(root + run + "/x-{0..}.tar", 100_000), shuffle, null,
          new SortSpec.Workers(run.equals("roomy") ? "1Gi" : "16Mi", 8), null, false);
      List<PhaseResult> results;
      if (run.equals("phased")) {
        SortPhases phases = phases(spec, root + "scratch/");
        phases.extract(0, 1);
        phases.plan(1);
        results = List.of(phases.create(0, 1), phases.commit());
      } else {
        results = LocalSort.run(spec, stores, temp.resolve("work"), QUIET);
      }
      onDisk.put(run, results.stream().filter(result -> result.phase().equals("create")).findFirst().orElseThrow()
          .details().get("shardEntriesOnDisk"));
    }
    assertThat(onDisk).as("shards whose entries waited on disk").containsExactly(Map.entry("roomy", 0L),
        Map.entry("least", 1L), Map.entry("phased", 1L));
    byte[] held = objects(root + "roomy/").get("x-0.tar");
    assertThat(held).hasSizeGreaterThan(60_000 * 1024);
    assertThat(objects(root + "least/").get("x-0.tar")).isEqualTo(held);
    assertThat(objects(root + "phased/").get("x-0.tar")).isEqualTo(held);
  }

  /**
   * Shards whose records' members lie apart (Python's tarfile wrote each shard's .txt members, then its .cls) and are
   * more than the grouping's share of the least budget holds: each shard's grouping spills and joins its records'
   * parts from the worker's disk, and the shards are byte for byte those of a run that held each shard whole, in one
   * process and as phases over two partitions. Before, a shard's grouping was held whole in the heap, outside any
   * budget (ShardEntriesHeapTest).
   */
  @Test
  void recordsWhoseMembersLieApartAcrossTheGroupingsSpillsSortToTheSameShards() throws Exception {
    int shards = 3;
    int perShard = 6000;
    Path made = Files.createDirectories(temp.resolve("apart"));
    CommandResult python = CommandResult.run(temp, List.of(dev.quarry.core.archive.msgpack.MsgpackShards.python(),
        "-c", """
        import io, sys, tarfile
        folder, shards, records = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        for shard in range(shards):
            with tarfile.open(f"{folder}/in-{shard:03d}.tar", "w", format=tarfile.GNU_FORMAT) as tar:
                for suffix in ("txt", "cls"):
                    for record in range(records):
                        data = f"{suffix} {shard} {record}".encode()
                        info = tarfile.TarInfo(f"s{shard}/record-{record * 7919 % records:06d}.{suffix}")
                        info.size = len(data)
                        tar.addfile(info, io.BytesIO(data))
        """, made.toString(), Integer.toString(shards), Integer.toString(perShard)));
    assertThat(python.exitCode()).as(python.stderr()).isZero();
    for (int shard = 0; shard < shards; shard++) {
      Location location = stores.locate(root + String.format("apart/in-%03d.tar", shard));
      location.store().put(location.key(), Files.readAllBytes(made.resolve(String.format("in-%03d.tar", shard))));
    }
    SortSpec.Input input = new SortSpec.Input(root + "apart/in-{000..002}.tar", null, null, null);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null);
    SortSpec least = new SortSpec(input, records(root + "least/x-{000..}.tar", 1000), shuffle, null,
        new SortSpec.Workers("16Mi", 8), null, false);
    SortSpec roomy = new SortSpec(input, records(root + "roomy/x-{000..}.tar", 1000), shuffle, null,
        new SortSpec.Workers("1Gi", 8), null, false);
    SortSpec phased = new SortSpec(input, records(root + "phased/x-{000..}.tar", 1000), shuffle, null,
        new SortSpec.Workers("16Mi", 8), null, false);

    PhaseResult spilled = LocalSort.run(least, stores, temp.resolve("work"), QUIET).getFirst();
    PhaseResult whole = LocalSort.run(roomy, stores, temp.resolve("work"), QUIET).getFirst();
    SortPhases phases = phases(phased, root + "scratch/");
    long groupedAsPhases = 0;
    for (int index = 0; index < 2; index++) {
      groupedAsPhases += (int) phases.extract(index, 2, 2).details().get("shardsGroupedOnDisk");
    }
    for (int index = 0; index < 2; index++) {
      phases.partition(index, 2, 2);
    }
    phases.plan(2);
    for (int index = 0; index < 2; index++) {
      phases.create(index, 2);
    }
    phases.commit();

    assertThat(spilled.details().get("shardsGroupedOnDisk")).as("grouped on disk").isEqualTo(shards);
    assertThat(groupedAsPhases).isEqualTo(shards);
    assertThat(whole.details().get("shardsGroupedOnDisk")).as("held whole").isEqualTo(0);
    Map<String, byte[]> inMemory = objects(root + "roomy/");
    assertThat(inMemory).hasSize(shards * perShard / 1000 + 2);
    for (String grouped : List.of("least/", "phased/")) {
      Map<String, byte[]> onDisk = objects(root + grouped);
      assertThat(onDisk.keySet()).as(grouped).isEqualTo(inMemory.keySet());
      inMemory.forEach((name, bytes) -> assertThat(onDisk.get(name)).as(grouped + name).isEqualTo(bytes));
    }
    List<Record> sorted = new ArrayList<>();
    for (String name : inMemory.keySet().stream().filter(name -> name.endsWith(".tar")).toList()) {
      sorted.addAll(SortFixture.read(stores, root + "roomy/" + name, ShardFormat.TAR));
    }
    assertThat(sorted).hasSize(shards * perShard).allSatisfy(record -> assertThat(record.members())
        .extracting(member -> member.name().substring(record.key().length())).containsExactly(".txt", ".cls"));
  }

  @Test
  void anInputCutShortAfterExtractFailsCreateClearlyAndWritesNoShard() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec spec = spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
        records(root + "cut/x-{000..}.tar", 60));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extract(0, 1);
    phases.plan(1);
    Location shard = stores.locate(root + "in/in-003.tar");
    byte[] whole = bytes(root + "in/in-003.tar");
    shard.store().put(shard.key(), Arrays.copyOf(whole, whole.length / 2));

    assertThatThrownBy(() -> phases.create(0, 1))
        .hasMessageContaining("input shard 3")
        .hasMessageContaining("the input changed since extract; rerun the job");
    assertThat(objects(root + "cut/").keySet()).as("no shard written, only the run's pending record")
        .containsExactly("x.pending.json");
  }

  /**
   * An input rewritten after extract with the same bytes, its records in another order (so its length is the same),
   * fails create in one line that says so, into tar (records copied raw) and into zip (records converted), and no
   * shard appears. Before, the tar run copied the bytes at the old places: member boundaries in the middle of data,
   * or other records where the plan has these, in a shard with a checksum of them and no error.
   */
  @Test
  void anInputRewrittenWithItsRecordsInAnotherOrderAfterExtractFailsCreateAndWritesNoShard() throws Exception {
    String input = input(ShardFormat.TAR);
    for (String output : List.of("moved/x-{000..}.tar", "movedZip/x-{000..}.zip")) {
      SortSpec spec = spec(input, new SortSpec.Order(OrderKind.SHUFFLE, null, 5L, null, null),
          records(root + output, 60));
      SortPhases phases = phases(spec, root + "scratch-" + output.substring(0, output.indexOf('/')) + "/");
      phases.extract(0, 1);
      phases.plan(1);
      Location shard = stores.locate(root + "in/in-003.tar");
      byte[] before = bytes(root + "in/in-003.tar");
      byte[] after = recordsReversed(before);
      assertThat(after).hasSameSizeAs(before).isNotEqualTo(before);
      shard.store().put(shard.key(), after);

      assertThatThrownBy(() -> phases.create(0, 1)).as(output)
          .hasMessageContaining("the input changed since extract; rerun the job");
      String folder = output.substring(0, output.indexOf('/') + 1);
      assertThat(objects(root + folder).keySet()).as("no shard written, only the run's pending record")
          .containsExactly("x.pending.json");
      shard.store().put(shard.key(), before);
    }
  }

  /** The tar {@code tar} with its records' members, each record's together, in the reverse order of records. */
  private static byte[] recordsReversed(byte[] tar) throws java.io.IOException {
    java.util.LinkedHashMap<String, java.io.ByteArrayOutputStream> records = new java.util.LinkedHashMap<>();
    long end = 0;
    try (var reader = new dev.quarry.core.archive.tar.TarReader(new java.io.ByteArrayInputStream(tar), "in",
        dev.quarry.core.archive.ArchiveLimits.DEFAULT)) {
      for (var member = reader.next(); member != null; member = reader.next()) {
        var raw = member.raw();
        records.computeIfAbsent(dev.quarry.core.archive.RecordKeys.of(member.name()),
            key -> new java.io.ByteArrayOutputStream()).write(tar, (int) raw.offset(), (int) raw.length());
        end = raw.offset() + raw.length();
      }
    }
    java.io.ByteArrayOutputStream reversed = new java.io.ByteArrayOutputStream();
    new ArrayList<>(records.values()).reversed().forEach(record -> reversed.writeBytes(record.toByteArray()));
    reversed.write(tar, (int) end, tar.length - (int) end); // the end-of-archive blocks and padding, as they were
    return reversed.toByteArray();
  }

  @Test
  void manyShardsPerWorkerAreGatheredInBatchesIdenticallyToALocalRun() throws Exception {
    String input = input(ShardFormat.TAR);
    SortSpec.Order md5 = new SortSpec.Order(OrderKind.MD5, null, null, null, null);
    LocalSort.run(spec(input, md5, records(root + "local/x-{0000..}.tar", 1)), stores, temp.resolve("work"), QUIET);

    SortSpec distributed = spec(input, md5, records(root + "dist/x-{0000..}.tar", 1));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(distributed, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    phases.extract(0, 1);
    phases.plan(1);
    PhaseResult create = phases.create(0, 1); // 240 shards: several batches of gathered reads
    PhaseResult commit = phases.commit();

    assertThat(create.shards()).isEqualTo(all.size());
    assertThat(commit.requests().head() + commit.requests().get())
        .as("commit: one request per shard, and the plan's and its page of shards")
        .isLessThanOrEqualTo(all.size() + 5L);
    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> dist = objects(root + "dist/");
    assertThat(dist.keySet()).isEqualTo(local.keySet()).hasSize(all.size() + 2);
    local.forEach((name, bytes) -> assertThat(dist.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * A create worker whose shards take several batches (here one worker of one partition, 240 shards in batches of
   * 64) gets each input's bytes from the store once: a batch's records of a shuffle lie all through every input, so
   * its reads, merged across gaps of up to 1 MiB, streamed each input whole from S3, and every later batch streamed
   * them again (4.0 times the input on MinIO). What a batch streams past is kept on the worker's disk for the
   * batches after it (KeptBytes). Bytes are counted as the store serves them: an S3 range whole, gaps too; a local
   * file's bytes read, since it seeks past gaps (so nothing is kept from one).
   */
  @Test
  void aCreateWorkerWhoseShardsTakeSeveralBatchesGetsEachInputFromTheStoreOnce() throws Exception {
    dataset = SortFixture.dataset(6, 1600, 29); // inputs of about 4 MiB, whose first and last records lie far apart
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    long inputBytes = objects(root + "in/").values().stream().mapToLong(bytes -> bytes.length).sum();
    java.util.concurrent.atomic.AtomicLong served = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicBoolean creating = new java.util.concurrent.atomic.AtomicBoolean();
    String inputs = stores.locate(root + "in/").key();
    try (ObjectStores counted = openStores(store -> new dev.quarry.core.store.DelegatingStore(store) {
      @Override
      public java.io.InputStream getRange(String key, long offset, long length) throws java.io.IOException {
        java.io.InputStream in = super.getRange(key, offset, length);
        if (!creating.get() || !key.startsWith(inputs)) {
          return in;
        }
        if (!isLocal()) {
          served.addAndGet(length);
          return in;
        }
        return new java.io.FilterInputStream(in) {
          @Override
          public int read() throws java.io.IOException {
            int b = super.read();
            served.addAndGet(b < 0 ? 0 : 1);
            return b;
          }

          @Override
          public int read(byte[] bytes, int from, int length) throws java.io.IOException {
            int n = super.read(bytes, from, length);
            served.addAndGet(Math.max(0, n));
            return n;
          }
        };
      }
    })) {
      SortSpec spec = spec(root + "in/in-{000..005}.tar", order(OrderKind.SHUFFLE, null, null),
          records(root + "out/x-{0000..}.tar", 40));
      Location scratch = counted.locate(root + "scratch/");
      SortPhases phases = new SortPhases(spec, counted, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
      phases.extract(0, 1);
      phases.plan(1);
      creating.set(true);
      assertThat(phases.create(0, 1).shards()).isEqualTo(240);
      creating.set(false);
      phases.commit();
    }
    assertThat(served.get()).as("input bytes the store served create, of %d", inputBytes)
        .isBetween(inputBytes * 99 / 100, inputBytes * 101 / 100);
    all = dataset.stream().flatMap(List::stream).toList();
    LocalSort.run(spec(root + "in/in-{000..005}.tar", order(OrderKind.SHUFFLE, null, null),
        records(root + "local/x-{0000..}.tar", 40)), stores, temp.resolve("work"), QUIET);
    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> created = objects(root + "out/");
    assertThat(created.keySet()).isEqualTo(local.keySet()).hasSize(242);
    local.forEach((name, bytes) -> assertThat(created.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * An extract worker whose entries spill several times (80,000 records of long keys under the least budget, 16Mi:
   * about 24,000 entries a spill) writes one run per partition to a scratch across the network, its spills merged
   * on its own disk: before, one run per partition at each spill (12 here; S x W x P objects written, read and
   * deleted over a job, and S times the runs each partition step merged). A local scratch keeps a run per spill (it
   * costs no request). The output is a local run's byte for byte either way.
   */
  @Test
  void anExtractWorkerWhoseEntriesSpillWritesOneRunPerPartitionToAScratchAcrossTheNetwork() throws Exception {
    List<Record> records = new ArrayList<>();
    java.util.Random random = new java.util.Random(17);
    for (int i = 0; i < 80_000; i++) {
      String key = String.format("%08d-", random.nextInt(100_000_000)) + "k".repeat(80) + i;
      records.add(new Record(key, List.of(new dev.quarry.core.archive.Member(key + ".c",
          new byte[] {(byte) ('0' + i % 10)}))));
    }
    dataset = List.of(records.subList(0, 40_000), records.subList(40_000, 80_000));
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    // Shuffle's steps sort their entries again (so spill too); alphanumeric's write the merged runs as they are.
    for (SortSpec.Order order : List.of(new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null),
        new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null))) {
      String job = root + order.kind() + "/";
      SortSpec spec = new SortSpec(new SortSpec.Input(root + "in/in-{000..001}.tar", null, null, null),
          records(job + "dist/x-{000..}.tar", 5_000), order, null, new SortSpec.Workers("16Mi", 8), null, false);
      SortPhases phases = phases(spec, job + "scratch/");
      PhaseResult extract = phases.extract(0, 1, 3);
      Location scratch = stores.locate(job + "scratch/");
      long runObjects = objects(job + "scratch/").keySet().stream().filter(name -> name.endsWith(".run")).count();
      if (scratch.store().isLocal()) {
        assertThat(extract.details().get("runs")).as("runs of a local scratch: one per partition a spill")
            .isEqualTo((int) runObjects);
        assertThat(runObjects).as("runs of a local scratch: spilled several times").isGreaterThan(6);
      } else {
        assertThat(extract.details().get("runs")).as("runs written").isEqualTo(3);
        assertThat(runObjects).as("run objects in scratch").isEqualTo(3);
      }
      List<String> ownRuns = ownRunsWritten(spec, job + "scratch/", everyStep(3, 1));
      if (order.kind() == OrderKind.SHUFFLE && scratch.store().isLocal()) {
        assertThat(ownRuns).as("a step's spills in a local scratch: its entries pass its budget").isNotEmpty();
      } else {
        assertThat(ownRuns).as("runs of the steps' own sorts written to scratch").isEmpty();
      }
      phases.plan(1);
      for (int index = 0; index < 3; index++) {
        phases.create(index, 3);
      }
      phases.commit();
      LocalSort.run(new SortSpec(spec.input(), records(job + "local/x-{000..}.tar", 5_000), order, null,
          new SortSpec.Workers("1Gi", 8), null, false), stores, temp.resolve("work"), QUIET);
      Map<String, byte[]> local = objects(job + "local/");
      Map<String, byte[]> dist = objects(job + "dist/");
      assertThat(dist.keySet()).as(order.kind().toString()).isEqualTo(local.keySet()).hasSize(16 + 2);
      local.forEach((name, bytes) -> assertThat(dist.get(name)).as(order.kind() + " " + name).isEqualTo(bytes));
    }
  }

  /**
   * The runs {@code phases} (given phases over a scratch that records them) write under {@code partition/<p>/sort/}:
   * a step's sort and the passes of merges, runs no other process reads.
   */
  private List<String> ownRunsWritten(SortSpec spec, String scratchUrl, PhasesRun phases) throws Exception {
    Location scratch = stores.locate(scratchUrl);
    List<String> written = java.util.Collections.synchronizedList(new ArrayList<>());
    ObjectStore recording = new DelegatingStore(scratch.store()) {
      @Override
      public dev.quarry.core.store.ObjectUpload upload(String key) throws IOException {
        if (key.matches(".*partition/[0-9]{5}/sort/.*")) {
          written.add(key);
        }
        return super.upload(key);
      }
    };
    phases.run(new SortPhases(spec, stores, new Location(recording, scratch.key()),
        new ScratchPacks(recording, new Scratch(scratch.key())), false, QUIET));
    return written;
  }

  /** Phases to run. */
  @FunctionalInterface
  private interface PhasesRun {
    void run(SortPhases phases) throws Exception;
  }

  /** Every partition step of a job of {@code partitions} over {@code extractCount} extract workers. */
  private static PhasesRun everyStep(int partitions, int extractCount) {
    return phases -> {
      for (int index = 0; index < partitions; index++) {
        phases.partition(index, partitions, extractCount);
      }
    };
  }

  /**
   * A partition step that merges more extract runs than its fan-in (33 extract workers, one partition) merges them in
   * a pass whose runs are read by no other process: on a scratch across the network they stay on the step's disk
   * (before, the pass was written to scratch and read back, window by window: at 1,000 extract workers, the step's
   * every entry once more through the store), as does the run a shuffle's step sorts its entries into, even when
   * they fit its budget. The output is the same as a local run's.
   */
  @Test
  void aStepMergingMoreExtractRunsThanItsFanInKeepsThePassOnItsOwnDisk() throws Exception {
    dataset = SortFixture.dataset(RunMerger.FAN_IN + 1, 20, 23);
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec.Order shuffle = new SortSpec.Order(OrderKind.SHUFFLE, null, 9L, null, null);
    SortSpec spec = spec(root + "in/in-{000..032}.tar", shuffle, records(root + "dist/x-{000..}.tar", 100));
    SortPhases phases = phases(spec, root + "scratch/");
    for (int index = 0; index <= RunMerger.FAN_IN; index++) {
      phases.extract(index, RunMerger.FAN_IN + 1, 1);
    }
    List<String> ownRuns = ownRunsWritten(spec, root + "scratch/", everyStep(1, RunMerger.FAN_IN + 1));
    if (stores.locate(root + "scratch/").store().isLocal()) {
      assertThat(ownRuns).as("the pass and the shuffle's one sorted run, in a local scratch").hasSize(2);
    } else {
      assertThat(ownRuns).as("runs of the step's merge written to scratch").isEmpty();
    }
    phases.plan(RunMerger.FAN_IN + 1);
    phases.create(0, 1);
    phases.commit();
    all = dataset.stream().flatMap(List::stream).toList();
    LocalSort.run(spec(root + "in/in-{000..032}.tar", shuffle, records(root + "local/x-{000..}.tar", 100)), stores,
        temp.resolve("work"), QUIET);
    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> dist = objects(root + "dist/");
    assertThat(dist.keySet()).isEqualTo(local.keySet()).hasSize(660 / 100 + 1 + 2);
    local.forEach((name, bytes) -> assertThat(dist.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * A create worker of a content order whose partition's records lie in more steps' lists than its fan-in (33
   * key-hash steps, each holding records of every partition) merges them in a pass read by no other process: on a
   * scratch across the network it stays on the worker's disk. The output is the same as a local run's.
   */
  @Test
  void aCreateWorkerMergingMoreListsThanItsFanInKeepsThePassOnItsOwnDisk() throws Exception {
    int partitions = RunMerger.FAN_IN + 1;
    dataset = SortFixture.dataset(2, 3_000, 31);
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec.Order byClass = new SortSpec.Order(OrderKind.CONTENT, null, null,
        new SortSpec.ContentKey("cls", SortSpec.ContentType.INT), null);
    SortSpec spec = spec(root + "in/in-{000..001}.tar", byClass, records(root + "dist/x-{000..}.tar", 500));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1, partitions);
    for (int index = 0; index < partitions; index++) {
      phases.partition(index, partitions, 1);
    }
    phases.plan(1);
    List<String> passes = ownRunsWritten(spec, root + "scratch/", creating -> {
      for (int index = 0; index < partitions; index++) {
        creating.create(index, partitions);
      }
    });
    if (scratch.store().isLocal()) {
      assertThat(passes).as("passes of create's merges, in a local scratch").isNotEmpty();
    } else {
      assertThat(passes).as("runs of create's merges written to scratch").isEmpty();
    }
    phases.commit();
    LocalSort.run(spec(root + "in/in-{000..001}.tar", byClass, records(root + "local/x-{000..}.tar", 500)), stores,
        temp.resolve("work"), QUIET);
    Map<String, byte[]> local = objects(root + "local/");
    Map<String, byte[]> dist = objects(root + "dist/");
    assertThat(dist.keySet()).isEqualTo(local.keySet()).hasSize(12 + 2);
    local.forEach((name, bytes) -> assertThat(dist.get(name)).as(name).isEqualTo(bytes));
  }

  /** What each of two jobs does with stores of its own. */
  interface JobAction {
    void run(ObjectStores stores, SortSpec job) throws Exception;
  }

  /**
   * Runs {@code action} for both {@code jobs} at once, each held at its first write of {@code key} until the other
   * comes to its own (so both looked before either wrote); adds what each that failed threw to {@code refused} and
   * returns the job digest of the one that did not fail (null if both did).
   */
  String atTheSameMoment(String key, List<SortSpec> jobs, List<Throwable> refused, JobAction action)
      throws Exception {
    CyclicBarrier together = new CyclicBarrier(2);
    AtomicInteger writes = new AtomicInteger();
    String winner = null;
    try (ObjectStores latched = openStores(store -> DelegatingStore.withHook(store, (kind, written) -> {
          if (written.equals(key) && kind.equals("PUT") && writes.getAndIncrement() < 2) {
            try {
              together.await(1, TimeUnit.MINUTES);
            } catch (Exception e) {
              throw new IOException("the other job never came to its write", e);
            }
          }
        }));
        ExecutorService threads = Executors.newFixedThreadPool(2)) {
      List<Future<?>> runs = new ArrayList<>();
      for (SortSpec job : jobs) {
        runs.add(threads.submit(() -> {
          action.run(latched, job);
          return null;
        }));
      }
      for (int i = 0; i < jobs.size(); i++) {
        try {
          runs.get(i).get();
          winner = ScratchMarker.of(jobs.get(i)).job();
        } catch (ExecutionException e) {
          refused.add(e.getCause());
        }
      }
    }
    return winner;
  }

  Map<String, byte[]> objects(String prefix) throws Exception {
    var location = stores.locate(prefix);
    Map<String, byte[]> objects = new java.util.TreeMap<>();
    for (var object : location.store().listAll(location.key()).toList()) {
      objects.put(object.key().substring(location.key().length()), bytes(location.store().url(object.key())));
    }
    return objects;
  }

  @Test
  void aDryRunWritesNoShard() throws Exception {
    SortSpec spec = new SortSpec(new SortSpec.Input(input(ShardFormat.TAR), null, null, null),
        records(root + "dry/x-{0..}.tar", 10), new SortSpec.Order(OrderKind.NONE, null, null, null, null), null,
        null, null, true);
    List<PhaseResult> results = LocalSort.run(spec, stores, temp.resolve("work"), QUIET);
    assertThat(results).extracting(PhaseResult::phase).containsExactly("extract", "plan");
    assertThat(results.get(1).shards()).isEqualTo(24);
    assertThat(stores.locate(root + "dry/").store().list(stores.locate(root + "dry/").key(), null, 10).objects())
        .as("no shard written").isEmpty();
    assertThat(temp.resolve("work")).as("the work folder is removed").isEmptyDirectory();
  }
}
