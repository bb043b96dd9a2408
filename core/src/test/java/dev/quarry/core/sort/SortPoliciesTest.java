package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.InvalidSpecException;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input is handled as each policy says: abort with a message naming the problem, or carry on and count it. */
class SortPoliciesTest {
  @TempDir Path temp;
  ObjectStores stores;

  @BeforeEach
  void setUp() {
    stores = new ObjectStores(S3Settings.defaults());
  }

  @AfterEach
  void tearDown() {
    stores.close();
  }

  private static Record record(String key, String label) {
    return new Record(key, List.of(new Member(key + ".cls", label.getBytes(StandardCharsets.US_ASCII)),
        new Member(key + ".jpg", (key + label).getBytes(StandardCharsets.US_ASCII))));
  }

  private List<PhaseResult> run(SortSpec.Input input, SortSpec.Order order, SortSpec.Policies policies)
      throws Exception {
    SortSpec spec = new SortSpec(input, new SortSpec.Output(temp + "/out/x-{0..}.tar", null, null, 100L, null),
        order, policies, null, null, false);
    return LocalSort.run(spec, stores, temp.resolve("work"), SortContract.QUIET);
  }

  private static SortSpec.Order alphanumeric() {
    return new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null);
  }

  private static SortSpec.Policies policies(Policy duplicates, Policy missing, Policy malformed, Policy missingKey,
      Policy content) {
    return new SortSpec.Policies(duplicates, missing, malformed, missingKey, content);
  }

  @Test
  void aMissingShardAbortsByDefaultNamingIt() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(List.of(record("a", "1"))));
    assertThatThrownBy(() -> run(new SortSpec.Input(temp + "/in/in-{000..001}.tar", null, null, null), alphanumeric(),
        null))
        .hasMessage("Cannot read input shard " + temp + "/in/in-001.tar: it does not exist (policy missingShards is"
            + " abort; set it to warn or ignore to sort without it)");
  }

  @Test
  void aMissingShardIsFoundBeforeAnyShardIsRead() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(List.of(record("a", "1")),
        List.of(record("b", "2"))));
    List<String> inputsRead = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    List<String> inputsLookedAt = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    stores.close();
    stores = new ObjectStores(S3Settings.defaults(), store -> DelegatingStore.withHook(store, (kind, key) -> {
      if (key.contains("/in/")) {
        (kind.equals("GET") ? inputsRead : inputsLookedAt).add(key);
      }
    }));
    assertThatThrownBy(() -> run(new SortSpec.Input(temp + "/in/in-{000..002}.tar", null, null, null), alphanumeric(),
        null))
        .hasMessage("Cannot read input shard " + temp + "/in/in-002.tar: it does not exist (policy missingShards is"
            + " abort; set it to warn or ignore to sort without it)");
    assertThat(inputsRead).as("input shards read, after looking at " + inputsLookedAt).isEmpty();
    assertThat(inputsLookedAt).as("looks at the input shards (HEADs or a listing)").isNotEmpty();
  }

  @Test
  void aMissingShardUnderWarnIsSkippedAndReported() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(List.of(record("a", "1"), record("b", "2"))));
    List<PhaseResult> results = run(new SortSpec.Input(temp + "/in/in-{000..001}.tar", null, null, null),
        alphanumeric(), policies(null, Policy.WARN, null, null, null));
    assertThat(results.get(0).warnings()).containsExactly("input shard " + temp + "/in/in-001.tar is missing");
    assertThat(results.get(0).problems()).containsEntry("missingShard", 1L);
    assertThat(results.get(3).records()).isEqualTo(2);
  }

  @Test
  void aKeyInTwoShardsAbortsUnderAbort() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR,
        List.of(List.of(record("same", "1")), List.of(record("same", "2"))));
    assertThatThrownBy(() -> run(new SortSpec.Input(temp + "/in/in-{000..001}.tar", null, null, null),
        alphanumeric(), policies(Policy.ABORT, null, null, null, null)))
        .hasMessage("Cannot sort: record key same appears in input shards 0 and 1 (policy duplicatedRecords is"
            + " abort; set it to warn or ignore to keep the first occurrence)");
  }

  @Test
  void aPartitionStepThatAbortsLeavesNoOrderedList() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR,
        List.of(List.of(record("a", "1"), record("same", "1")), List.of(record("same", "2"))));
    SortSpec spec = new SortSpec(new SortSpec.Input(temp + "/in/in-{000..001}.tar", null, null, null),
        new SortSpec.Output(temp + "/out/x-{0..}.tar", null, null, 100L, null), alphanumeric(),
        policies(Policy.ABORT, null, null, null, null), null, null, false);
    var scratch = stores.locate(temp + "/scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, SortContract.QUIET);
    phases.extract(0, 1, 1);
    assertThatThrownBy(() -> phases.partition(0, 1, 1)).hasMessageStartingWith("Cannot sort: record key same");
    assertThat(scratch.store().listAll(new Scratch(scratch.key()).prefix() + "partition/").toList())
        .as("no ordered list").isEmpty();
  }

  @Test
  void aKeyInTwoShardsKeepsTheFirstInInputOrderByDefault() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR,
        List.of(List.of(record("same", "first"), record("x", "1")), List.of(record("same", "second"))));
    List<PhaseResult> results = run(new SortSpec.Input(temp + "/in/in-{000..001}.tar", null, null, null),
        alphanumeric(), null);
    assertThat(results.get(1).warnings()).containsExactly(
        "record same of input shard 1 repeats a key of input shard 0; kept the first");
    List<Record> out = SortFixture.read(stores, temp + "/out/x-0.tar", ShardFormat.TAR);
    assertThat(out).extracting(Record::key).containsExactly("same", "x");
    assertThat(new String(out.get(0).members().get(0).data(), StandardCharsets.US_ASCII)).isEqualTo("first");
  }

  @Test
  void aMalformedKeymapLineAbortsNamingTheLine() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(List.of(record("a", "1"))));
    SortSpec.Order order = new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap("a\tkm/a-{0..}.tar\nno separator here\n", null, null));
    assertThatThrownBy(() -> run(new SortSpec.Input(temp + "/in/in-{000..000}.tar", null, null, null), order, null))
        .hasMessage("Invalid key map line 2: it has no pattern before the separator (policy"
            + " keymapMalformedLine is abort; fix the line, or set the policy to warn or ignore to skip it)");
  }

  @Test
  void aKeyNoLineMatchesAbortsOrIsDropped() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(List.of(record("a", "1"), record("b", "2"))));
    SortSpec.Order order = new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
        new SortSpec.Keymap("a\tkm/a-{0..}.tar\n", null, null));
    SortSpec.Input input = new SortSpec.Input(temp + "/in/in-{000..000}.tar", null, null, null);
    assertThatThrownBy(() -> run(input, order, null))
        .hasMessage("Cannot sort: record b matches no key map line (policy keymapMissingKey is abort; add a line for"
            + " it, or set the policy to warn or ignore to drop such records)");
    List<PhaseResult> results = run(input, order, policies(null, null, null, Policy.IGNORE, null));
    assertThat(results.get(1).problems()).containsEntry("keymapMissingKey", 1L);
    assertThat(SortFixture.read(stores, temp + "/out/km/a-0.tar", ShardFormat.TAR)).extracting(Record::key)
        .containsExactly("a");
  }

  @Test
  void anUnparsableContentKeyAbortsOrSortsLast() throws Exception {
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR,
        List.of(List.of(record("a", "3"), record("b", "cat"), record("c", "1"))));
    SortSpec.Order order = new SortSpec.Order(OrderKind.CONTENT, null, null,
        new SortSpec.ContentKey("cls", SortSpec.ContentType.INT), null);
    SortSpec.Input input = new SortSpec.Input(temp + "/in/in-{000..000}.tar", null, null, null);
    assertThatThrownBy(() -> run(input, order, null))
        .hasMessage("Cannot sort by content: member b.cls of shard " + temp + "/in/in-000.tar does not hold an"
            + " integer (policy contentKeyMissing is abort; set it to warn or ignore to sort such records last)");
    run(input, order, policies(null, null, null, null, Policy.WARN));
    assertThat(SortFixture.read(stores, temp + "/out/x-0.tar", ShardFormat.TAR)).extracting(Record::key)
        .containsExactly("c", "a", "b");
  }

  @Test
  void aClosedOutputTemplateThatIsTooShortFailsBeforeAnyShardIsWritten() throws Exception {
    List<Record> many = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      many.add(record("k" + i, "1"));
    }
    SortFixture.write(stores, temp + "/in/", ShardFormat.TAR, List.of(many));
    SortSpec spec = new SortSpec(new SortSpec.Input(temp + "/in/in-{000..000}.tar", null, null, null),
        new SortSpec.Output(temp + "/out/x-{0..2}.tar", null, null, 2L, null), alphanumeric(), null, null, null,
        false);
    assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), SortContract.QUIET))
        .hasMessage("Cannot plan: output template " + temp + "/out/x-{0..2}.tar has 3 names but the job needs more"
            + " shards (use an open-ended range such as {000000..}, or larger shards)");
    assertThat(temp.resolve("out")).doesNotExist();
  }

  @Test
  void specsAreCheckedLikeTheSchemaChecksThemNamingEachFieldByItsPath() {
    assertThatThrownBy(() -> new SortSpec.Order(OrderKind.MD5, null, 3L, null, null))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessage("Invalid order.seed: only allowed with order.kind shuffle");
    assertThatThrownBy(() -> new SortSpec.Output("x-{0..}.tar", null, "1Mi", 5L, null))
        .hasMessage("Invalid output sizing: 2 of output.shardSize, output.recordsPerShard and output.shardCount"
            + " given (must be exactly one)");
    assertThatThrownBy(() -> new SortSpec.Input(null, null, null, null))
        .hasMessage("Invalid input: 0 of input.template, input.prefix and input.objects given (must be exactly"
            + " one)");
    assertThatThrownBy(() -> new SortSpec.Order(null, null, null, null, null)).hasMessage("Missing order.kind");
  }

  @Test
  void aRefusedSpecNamesItsFieldsAsTheCallerAsks() {
    InvalidSpecException refused = catchThrowableOfType(InvalidSpecException.class,
        () -> new SortSpec.Order(OrderKind.SHUFFLE, null, null, null, null));

    assertThat(refused.fields()).containsExactly("order.kind", "order.seed");
    assertThat(refused.message(path -> path.equals("order.kind") ? "--order" : "spec field " + path))
        .isEqualTo("Invalid --order: shuffle needs spec field order.seed");
  }
}
