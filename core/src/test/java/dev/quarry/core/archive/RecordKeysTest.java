package dev.quarry.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Record keys by WebDataset's rule, and formats by their names. Grouping: ShardExtractorTest. */
class RecordKeysTest {
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
