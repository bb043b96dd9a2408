package dev.quarry.core.units;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountedTest {
  @Test
  void oneIsSingularAndEveryOtherCountPlural() {
    assertThat(Counted.of(1, "file")).isEqualTo("1 file");
    assertThat(Counted.of(0, "file")).isEqualTo("0 files");
    assertThat(Counted.of(2, "folder")).isEqualTo("2 folders");
    assertThat(Counted.noun(1, "shard")).isEqualTo("shard");
    assertThat(Counted.of(2, "entry", "entries")).isEqualTo("2 entries");
    assertThat(Counted.of(1, "entry", "entries")).isEqualTo("1 entry");
  }
}
