package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChildNamesTest {
  @Test
  void shortNamesAreKeptAsTheyAre() {
    assertThat(ChildNames.of("imagenet-shuffle", "extract")).isEqualTo("imagenet-shuffle-extract");
  }

  @Test
  void longNamesFitALabelKeepTheirSuffixAndStayDistinct() {
    String owner = "a".repeat(60);
    String extract = ChildNames.of(owner, "extract");
    String other = ChildNames.of(owner + "b", "extract");
    assertThat(extract).hasSizeLessThanOrEqualTo(63).endsWith("-extract").startsWith("aaaa");
    assertThat(other).hasSizeLessThanOrEqualTo(63).isNotEqualTo(extract);
    assertThat(ChildNames.of(owner, "extract")).as("stable").isEqualTo(extract);
  }
}
