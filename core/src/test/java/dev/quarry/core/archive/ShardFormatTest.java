package dev.quarry.core.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardFormatTest {
  /**
   * A name's format is its longest known extension in any ASCII case, as the CRD's rule reads it (CEL's lowerAscii):
   * the Kelvin sign (U+212A), which Unicode folding takes for a k, names no format, so the rule and the engine never
   * disagree on whether an output.format matches the template.
   */
  @Test
  void aNameEndsInAFormatInAnyAsciiCaseAndNoOther() {
    assertThat(ShardFormat.named("s3://b/x-{0..}.ZIP")).contains(ShardFormat.ZIP);
    assertThat(ShardFormat.named("x-{0..}.Tar.Gz")).contains(ShardFormat.TAR_GZ);
    assertThat(ShardFormat.named("x-{0..}.tgz")).contains(ShardFormat.TAR_GZ);
    assertThat(ShardFormat.named("x-{0..}.tar.lz4")).contains(ShardFormat.TAR_LZ4);
    assertThat(ShardFormat.named("x-{0..}.tar")).contains(ShardFormat.TAR);
    assertThat(ShardFormat.named("x-{0..}.MSGPACK")).contains(ShardFormat.MSGPACK);
    assertThat(ShardFormat.named("x-{0..}.msgpac\u212A")).isEqualTo(Optional.empty());
    assertThat(ShardFormat.named("x-{0..}.gz")).isEmpty();
    assertThat(ShardFormat.named("x-{0..}")).isEmpty();
    assertThat(ShardFormat.named("x-{0..}.shard")).isEmpty();
  }
}
