package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.msgpack.MsgpackShards;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.InputOrder;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How extract groups a shard's members into records, whatever its format (shards made by Python's tarfile, zipfile and
 * msgpack): by WebDataset's rule, records in the order their first member came, a record's members in stream order
 * wherever they lie, and a member name seen before handled by the duplicatedRecords policy; the same whether the
 * grouping held the whole shard or spilled at every member (its parts joined from its spills: {@link RecordGrouping}).
 */
class ShardExtractorTest {
  /**
   * Members in shard order: a/x's two members apart, a/x.jpg twice (the second a different copy), and a/v last though
   * its key sorts first.
   */
  private static final String MEMBERS = """
      a/x.jpg x-image
      a/y.jpg y-image
      a/x.cls 1
      a/x.jpg second copy
      a/y.seg.png mask
      a/v.txt v-text
      """;
  /** A grouping budget that spills at every member; and one that holds the shard. */
  private static final long SPILLS_EVERY_MEMBER = 1;
  private static final long HOLDS_THE_SHARD = 1 << 20;

  static Stream<Arguments> formatsAndGroupings() {
    return Stream.of(ShardFormat.TAR, ShardFormat.ZIP, ShardFormat.MSGPACK)
        .flatMap(format -> Stream.of(Arguments.of(format, HOLDS_THE_SHARD), Arguments.of(format, SPILLS_EVERY_MEMBER)));
  }

  @TempDir
  Path temp;

  @ParameterizedTest(name = "{0}, grouping budget {1}")
  @MethodSource("formatsAndGroupings")
  void recordsGroupByKeyInOrderOfFirstAppearanceWithMembersInStreamOrder(ShardFormat format, long grouping)
      throws Exception {
    Problems problems = new Problems();
    Extracted extracted = extract(format, Policy.IGNORE, problems, grouping);

    assertThat(extracted.entries()).as("given in key order").extracting(RecordEntry::key)
        .containsExactly("a/v", "a/x", "a/y");
    List<RecordEntry> inInputOrder = extracted.entries().stream().sorted(InputOrder.ENTRIES).toList();
    assertThat(inInputOrder).extracting(RecordEntry::key).containsExactly("a/x", "a/y", "a/v");
    assertThat(inInputOrder).as("the ordinals of their first members").extracting(RecordEntry::position)
        .containsExactly(0, 1, 5);
    assertThat(extracted.members(inInputOrder.get(0))).containsExactly("a/x.jpg=x-image", "a/x.cls=1");
    assertThat(extracted.members(inInputOrder.get(1))).containsExactly("a/y.jpg=y-image", "a/y.seg.png=mask");
    assertThat(extracted.members(inInputOrder.get(2))).containsExactly("a/v.txt=v-text");
    if (format == ShardFormat.TAR) {
      assertThat(inInputOrder.get(0).ranges()).as("a/x's members are not adjacent").hasSize(2);
    }
    assertThat(problems.count(ShardExtractor.DUPLICATE_MEMBER)).isEqualTo(1);
    assertThat(problems.warnings()).isEmpty();
  }

  @ParameterizedTest(name = "{0}, grouping budget {1}")
  @MethodSource("formatsAndGroupings")
  void warnKeepsTheFirstOccurrenceAndSaysSo(ShardFormat format, long grouping) throws Exception {
    Problems problems = new Problems();
    Extracted extracted = extract(format, Policy.WARN, problems, grouping);

    assertThat(extracted.members(extracted.entries().get(1))).containsExactly("a/x.jpg=x-image", "a/x.cls=1");
    assertThat(problems.warnings()).containsExactly(
        "member a/x.jpg appears more than once in shard in." + format.extension() + "; kept the first");
  }

  @ParameterizedTest(name = "{0}, grouping budget {1}")
  @MethodSource("formatsAndGroupings")
  void abortNamesTheMemberAndThePolicy(ShardFormat format, long grouping) {
    assertThatThrownBy(() -> extract(format, Policy.ABORT, new Problems(), grouping))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member a/x.jpg of shard in." + format.extension() + ": it appears more than once in"
            + " the shard (policy duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)");
  }

  /** What extract gave: the entries, and the bytes their ranges point into (the input, or its pack). */
  private record Extracted(List<RecordEntry> entries, byte[] source) {
    /** A record's members as create sees them: its ranges, in order, read back as a tar. */
    List<String> members(RecordEntry entry) throws IOException {
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      for (RawRange range : entry.ranges()) {
        raw.write(source, (int) range.offset(), (int) range.length());
      }
      raw.write(new byte[1024]);
      List<String> members = new ArrayList<>();
      try (ShardReader reader = ShardReaders.open(ShardFormat.TAR, new ByteArrayInputStream(raw.toByteArray()),
          "record", ArchiveLimits.DEFAULT)) {
        for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
          members.add(member.name() + "=" + new String(member.readData(), StandardCharsets.UTF_8));
        }
      }
      return members;
    }
  }

  private Extracted extract(ShardFormat format, Policy duplicates, Problems problems, long grouping)
      throws Exception {
    Path shard = temp.resolve("in." + format.extension());
    CommandResult made = CommandResult.run(temp, List.of(MsgpackShards.python(), "-c", """
        import io, msgpack, sys, tarfile, warnings, zipfile
        members = [line.split(" ", 1) for line in sys.argv[3].splitlines()]
        if sys.argv[1] == "tar":
            with tarfile.open(sys.argv[2], "w", format=tarfile.PAX_FORMAT) as tar:
                for name, data in members:
                    info = tarfile.TarInfo(name)
                    info.size = len(data.encode())
                    tar.addfile(info, io.BytesIO(data.encode()))
        elif sys.argv[1] == "zip":
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate name, and writes it
            with zipfile.ZipFile(sys.argv[2], "w") as z:
                for name, data in members:
                    z.writestr(name, data)
        else:
            with open(sys.argv[2], "wb") as out:
                for name, data in members:
                    key, suffix = name.split(".", 1)
                    out.write(msgpack.packb({"__key__": key, suffix: data.encode()}))
        """, format.extension(), shard.toString(), MEMBERS));
    assertThat(made.exitCode()).as(made.stderr()).isZero();

    SortSpec spec = new SortSpec(new SortSpec.Input(null, null, List.of(shard.toString()), null),
        new SortSpec.Output(temp + "/out/x-{0..}.tar", null, null, 10L, null),
        new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        new SortSpec.Policies(duplicates, null, null, null, null), null, null, false);
    List<RecordEntry> entries = new ArrayList<>();
    byte[] source;
    try (LocalPacks packs = new LocalPacks(temp.resolve("packs"), 1 << 20)) {
      try (ShardExtractor.ExtractedShard extracted = new ShardExtractor(spec, packs,
          ShardExtractor.Packing.TARS_NOT_READABLE_AGAIN, problems, temp, grouping)
          .extract(new InputShard(0, "in." + format.extension(), format), Files.newInputStream(shard), true)) {
        extracted.records(entries::add);
      }
      try (Stream<Path> left = Files.list(temp)) {
        assertThat(left.map(path -> path.getFileName().toString())).as("spills deleted")
            .noneMatch(name -> name.startsWith("grouping-"));
      }
      long end = entries.stream().flatMap(entry -> entry.ranges().stream()).mapToLong(RawRange::end).max()
          .orElse(0);
      if (format == ShardFormat.TAR) {
        source = Files.readAllBytes(shard);
      } else {
        try (InputStream pack = packs.read(0, 0, end)) {
          source = pack.readAllBytes();
        }
      }
    }
    assertThat(entries).allSatisfy(entry -> assertThat(entry.packed()).isEqualTo(format != ShardFormat.TAR));
    return new Extracted(entries, source);
  }
}
