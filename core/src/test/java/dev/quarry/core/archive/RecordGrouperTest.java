package dev.quarry.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordGrouperTest {
  /** A tar whose members of one record are not adjacent, with a repeated name. */
  private static byte[] interleavedWithDuplicate() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarWriter tar = new TarWriter(bytes)) {
      tar.writeMember("a/x.jpg", "x-image".getBytes());
      tar.writeMember("a/y.jpg", "y-image".getBytes());
      tar.writeMember("a/x.cls", "1".getBytes());
      tar.writeMember("a/x.jpg", "second copy".getBytes());
      tar.writeMember("a/y.seg.png", "mask".getBytes());
    }
    return bytes.toByteArray();
  }

  private static List<GroupedRecord> group(Policy policy, Problems problems) throws Exception {
    try (ShardReader reader = ShardReaders.open(ShardFormat.TAR,
        new ByteArrayInputStream(interleavedWithDuplicate()), "mixed.tar", ArchiveLimits.DEFAULT)) {
      return RecordGrouper.group(reader, "mixed.tar", policy, problems);
    }
  }

  @Test
  void groupsByKeyInOrderOfFirstAppearanceWithMembersInStreamOrder() throws Exception {
    Problems problems = new Problems();
    List<GroupedRecord> records = group(Policy.IGNORE, problems);

    assertThat(records).extracting(GroupedRecord::key).containsExactly("a/x", "a/y");
    assertThat(records.get(0).record().members()).extracting(Member::name).containsExactly("a/x.jpg", "a/x.cls");
    assertThat(new String(records.get(0).record().members().get(0).data())).isEqualTo("x-image");
    assertThat(records.get(1).record().members()).extracting(Member::suffix).containsExactly("jpg", "seg.png");
    assertThat(records.get(0).rawRanges()).as("a/x's members are not adjacent").hasSize(2);
    assertThat(problems.count(RecordGrouper.DUPLICATE_MEMBER)).isEqualTo(1);
    assertThat(problems.warnings()).isEmpty();
  }

  @Test
  void warnKeepsTheFirstOccurrenceAndSaysSo() throws Exception {
    Problems problems = new Problems();
    group(Policy.WARN, problems);
    assertThat(problems.warnings()).containsExactly(
        "member a/x.jpg appears more than once in shard mixed.tar; kept the first");
  }

  @Test
  void abortNamesTheMemberAndThePolicy() {
    assertThatThrownBy(() -> group(Policy.ABORT, new Problems()))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member a/x.jpg of shard mixed.tar: it appears more than once in the shard (policy"
            + " duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)");
  }

  @Test
  void recordKeysFollowWebDatasetsRule() {
    assertThat(RecordKeys.of("a/b.c/x.seg.png")).isEqualTo("a/b.c/x");
    assertThat(RecordKeys.of("noext")).isEqualTo("noext");
    assertThat(RecordKeys.of(".hidden")).isEqualTo("");
    assertThat(new Member("a/x.seg.png", new byte[0]).suffix()).isEqualTo("seg.png");
  }

  @Test
  void formatIsInferredFromTheLongestExtension() {
    assertThat(ShardFormat.ofName("s3://b/train-000001.tar.gz")).isEqualTo(ShardFormat.TAR_GZ);
    assertThat(ShardFormat.ofName("x.TGZ")).isEqualTo(ShardFormat.TAR_GZ);
    assertThat(ShardFormat.ofName("x.tar.lz4")).isEqualTo(ShardFormat.TAR_LZ4);
    assertThat(ShardFormat.ofName("x.tar")).isEqualTo(ShardFormat.TAR);
    assertThatThrownBy(() -> ShardFormat.ofName("x.rar")).hasMessage("Cannot infer the shard format of x.rar: its"
        + " name must end in .tar, .tar.gz, .tar.lz4, .zip, .msgpack, or give the format explicitly");
  }
}
