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

  /**
   * What an upload holds, which a merge of spilled runs counts against its budget: below a part, a buffer doubled
   * from 64 KiB to the size and the one before it; past a part, the 4 parts in flight and the one filling, each of the
   * size the parts have grown to (16 MiB past 500 parts of 8 MiB), and no more parts than the object has.
   */
  @Test
  void anUploadHoldsItsBufferOrItsPartsInFlightOfTheirGrownSize() {
    PartSizes sizes = PartSizes.growingFrom(S3Settings.DEFAULT_PART_SIZE_BYTES);
    assertThat(S3Upload.bufferBytes(1, sizes)).isEqualTo(96 << 10);
    assertThat(S3Upload.bufferBytes(MIB + 1, sizes)).isEqualTo(3 * MIB);
    assertThat(S3Upload.bufferBytes(8 * MIB, sizes)).isEqualTo(12 * MIB);
    assertThat(S3Upload.bufferBytes(12 * MIB, sizes)).isEqualTo(2 * 8 * MIB);
    assertThat(S3Upload.bufferBytes(100 * MIB, sizes)).isEqualTo(5 * 8 * MIB);
    assertThat(S3Upload.bufferBytes(5 * GIB, sizes)).isEqualTo(5 * 16 * MIB);
  }
}
