package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PartSizesTest {
  private static final long MIB = 1 << 20;
  private static final long GIB = 1L << 30;

  @Test
  void theDefaultPartSizeHoldsObjectsFarBeyondTenThousandOfItsParts() {
    PartSizes sizes = PartSizes.growingFrom(S3Settings.DEFAULT_PART_SIZE_BYTES);
    // One extract worker's pack of a 100 TiB sort on 100 workers: 1 TiB, far more than 10,000 parts of 8 MiB.
    assertThat(10_000 * 8 * MIB).isLessThan(1024 * GIB);
    assertThat(sizes.maxObjectBytes()).isGreaterThan(1024 * GIB);
  }

  @Test
  void partsStartAtTheSetSizeAndGrowToTheCapWithoutShrinking() {
    PartSizes sizes = PartSizes.growingFrom(S3Settings.DEFAULT_PART_SIZE_BYTES);
    assertThat(sizes.ofPart(1)).isEqualTo(8 << 20);
    assertThat(sizes.ofPart(500)).isEqualTo(8 << 20);
    assertThat(sizes.ofPart(501)).isEqualTo(16 << 20);
    int previous = 0;
    for (int part = 1; part <= PartSizes.MAX_PARTS; part++) {
      assertThat(sizes.ofPart(part)).isGreaterThanOrEqualTo(previous).isLessThanOrEqualTo(PartSizes.MAX_GROWN_BYTES);
      previous = sizes.ofPart(part);
    }
    assertThat(previous).isEqualTo(PartSizes.MAX_GROWN_BYTES);
  }

  @Test
  void aPartSizeSetAboveTheCapStaysAsSet() {
    PartSizes sizes = PartSizes.growingFrom(512 << 20);
    assertThat(sizes.ofPart(1)).isEqualTo(512 << 20);
    assertThat(sizes.ofPart(PartSizes.MAX_PARTS)).isEqualTo(512 << 20);
  }
}
