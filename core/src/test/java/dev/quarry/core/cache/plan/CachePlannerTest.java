package dev.quarry.core.cache.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CachePlannerTest {
  private static final long GIB = 1L << 30;

  private static CacheCandidate image(String name, long sizeGib, long readGib, boolean cached) {
    return new CacheCandidate(name, sizeGib * GIB, cached ? 0 : readGib * GIB, cached ? readGib * GIB : 0, cached,
        false, 0, false);
  }

  @Test
  void choosesTheSetThatSavesTheMostSourceReadsNotTheHottestPerByte() {
    // Greedy by read-per-byte takes a (10/4) then b (20/10) = 30; the exact answer is b + c = 38.
    List<CacheCandidate> images = List.of(image("a", 4, 10, false), image("b", 10, 20, false),
        image("c", 10, 18, false));
    CachePlan plan = new CachePlanner(0).plan(images, 20 * GIB);
    assertThat(plan.byName().get("a").local()).isFalse();
    assertThat(plan.byName().get("b").local()).isTrue();
    assertThat(plan.byName().get("c").local()).isTrue();
    assertThat(plan.exact()).isTrue();
    assertThat(plan.plannedBytes()).isEqualTo(20 * GIB);
    assertThat(plan.byName().get("a").reason()).isEqualTo("outranked: 10.0 GiB read in the window (250% of its"
        + " size); the images chosen by traffic save more source reads (38.0 GiB) in the space left");
    assertThat(plan.byName().get("b").reason()).isEqualTo("hot: 20.0 GiB read in the window (200% of its size)");
  }

  @Test
  void localCopyReadsCountAsValueSoACachedImageStays() {
    CachePlan plan = new CachePlanner(10).plan(List.of(image("cached", 10, 10, true)), 10 * GIB);
    assertThat(plan.byName().get("cached").local()).isTrue();
  }

  @Test
  void hysteresisKeepsACachedImageAgainstASlightlyHotterNewcomer() {
    List<CacheCandidate> images = List.of(image("old", 10, 100, true), image("new", 10, 105, false));
    assertThat(new CachePlanner(10).plan(images, 10 * GIB).byName().get("old").local()).isTrue();
    assertThat(new CachePlanner(0).plan(images, 10 * GIB).byName().get("new").local()).isTrue();
    List<CacheCandidate> muchHotter = List.of(image("old", 10, 100, true), image("new", 10, 111, false));
    assertThat(new CachePlanner(10).plan(muchHotter, 10 * GIB).byName().get("new").local()).isTrue();
  }

  @Test
  void forcedImagesGoFirstS3BeforePinsAndByPriority() {
    List<CacheCandidate> images = List.of(
        new CacheCandidate("hot", GIB, 100 * GIB, 0, false, false, 0, false),
        new CacheCandidate("pin-low", 4 * GIB, 0, 0, false, true, 1, false),
        new CacheCandidate("pin-high", 4 * GIB, 0, 0, false, true, 9, false),
        new CacheCandidate("s3", 4 * GIB, 0, 0, false, false, 0, true));
    CachePlan plan = new CachePlanner(0).plan(images, 9 * GIB);
    assertThat(plan.byName().get("s3")).isEqualTo(
        new ImageChoice("s3", true, "stored in S3, so served from the cache only"));
    assertThat(plan.byName().get("pin-high").local()).isTrue();
    assertThat(plan.byName().get("pin-low")).isEqualTo(new ImageChoice("pin-low", false,
        "pinned, but does not fit: needs 4.0 GiB, 1.0 GiB left after images placed first"));
    assertThat(plan.byName().get("hot").local()).isTrue();
    assertThat(plan.choices()).extracting(ImageChoice::name).containsExactly("hot", "pin-low", "pin-high", "s3");
  }

  @Test
  void explainsColdAndOversizedImages() {
    List<CacheCandidate> images = List.of(image("cold", 1, 0, false), image("huge", 50, 500, false));
    CachePlan plan = new CachePlanner(10).plan(images, 10 * GIB);
    assertThat(plan.byName().get("cold").reason()).isEqualTo("cold: not read in the window");
    assertThat(plan.byName().get("huge").reason())
        .isEqualTo("does not fit: 50.0 GiB, 10.0 GiB of cache left for images chosen by traffic");
  }

  @Test
  void equalTrafficGoesToHigherPriority() {
    List<CacheCandidate> images = List.of(
        new CacheCandidate("a", GIB, 5 * GIB, 0, false, false, 1, false),
        new CacheCandidate("b", GIB, 5 * GIB, 0, false, false, 7, false));
    CachePlan plan = new CachePlanner(0).plan(images, GIB);
    assertThat(plan.byName().get("b").local()).isTrue();
    assertThat(plan.byName().get("a").local()).isFalse();
  }

  @Test
  void refusesAnInvalidHysteresis() {
    assertThatThrownBy(() -> new CachePlanner(-1))
        .hasMessage("Invalid hysteresis: -1% (must be 0 to 1000)");
  }
}
