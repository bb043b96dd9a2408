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

  /**
   * Parts read from where they lie are sized from the object's length: a quarter of it (4 go at once), at least the
   * set size, at most 128 MiB until 10,000 of those would not hold the object, in whole MiB; S3 holds at most 5 TiB.
   */
  @Test
  void partsReadFromWhereTheyLieAreSizedFromTheLength() {
    int set = S3Settings.DEFAULT_PART_SIZE_BYTES;
    assertThat(PartSizes.forLength(0, set)).isEqualTo(set);
    assertThat(PartSizes.forLength(8 * MIB, set)).as("one part: one PutObject").isEqualTo(set);
    assertThat(PartSizes.forLength(20 * MIB, set)).isEqualTo(set);
    assertThat(PartSizes.forLength(256 * MIB, set)).as("4 parts").isEqualTo(64 * MIB);
    assertThat(PartSizes.forLength(256 * MIB + 1, set)).isEqualTo(65 * MIB);
    assertThat(PartSizes.forLength(102 * GIB, set)).as("816 parts, not 2,350 grown from 8 MiB")
        .isEqualTo(PartSizes.MAX_GROWN_BYTES);
    assertThat(PartSizes.forLength(2048 * GIB, set)).as("10,000 parts").isEqualTo(210 * MIB);
    assertThat(PartSizes.forLength(PartSizes.MAX_OBJECT_BYTES, set)).isEqualTo(525 * MIB);
    assertThat(PartSizes.forLength(64 * MIB, 512 << 20)).as("a set size above stays").isEqualTo(512 << 20);
    for (long length : new long[] {MIB, 9 * MIB, 300 * MIB, 1234 * GIB, PartSizes.MAX_OBJECT_BYTES}) {
      long part = PartSizes.forLength(length, set);
      assertThat(Math.ceilDiv(length, part)).as(length + " bytes").isLessThanOrEqualTo(PartSizes.MAX_PARTS);
      assertThat(part % MIB).isZero();
    }
  }
}
