package dev.quarry.core.sync.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.sync.remote.ChildNames;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IncludeFilterTest {
  @Test
  void starStaysInAFolderAndDoubleStarCrossesFolders() {
    IncludeFilter filter = new IncludeFilter(List.of("val/**", "annotations/*.json", "**/*.txt"));
    assertThat(filter.matches("val/a/b.jpg")).isTrue();
    assertThat(filter.matches("annotations/x.json")).isTrue();
    assertThat(filter.matches("annotations/sub/x.json")).isFalse();
    assertThat(filter.matches("readme.txt")).isTrue();
    assertThat(filter.matches("deep/er/notes.txt")).isTrue();
    assertThat(filter.matches("train/a.jpg")).isFalse();
  }

  @Test
  void onlyFoldersThatCanHoldAMatchAreVisited() {
    IncludeFilter filter = new IncludeFilter(List.of("images/val/*.jpg"));
    assertThat(filter.mayContain("images")).isTrue();
    assertThat(filter.mayContain("images/val")).isTrue();
    assertThat(filter.mayContain("images/train")).isFalse();
    assertThat(filter.mayContain("labels")).isFalse();
    assertThat(new IncludeFilter(List.of("**/*.jpg")).mayContain("anything/at/all")).isTrue();
    assertThat(new IncludeFilter(List.of("labels.json")).mayContain("train")).isFalse();
    assertThat(new IncludeFilter(List.of("*/x.jpg")).mayContain("a")).isTrue();
    assertThat(new IncludeFilter(List.of("*/x.jpg")).mayContain("a/b")).isFalse();
    assertThat(new IncludeFilter(List.of()).selectsEverything()).isTrue();
  }

  @Test
  void namesUnderAFolderAreKnownOnlyWhenEveryPatternBoundsThem() {
    IncludeFilter fixed = new IncludeFilter(List.of("img-05000.jpg", "labels/val/a.json", "labels/train.json"));
    assertThat(fixed.namesUnder("")).contains(exactly("img-05000.jpg", "labels"));
    assertThat(fixed.namesUnder("labels")).contains(exactly("val", "train.json"));
    assertThat(fixed.namesUnder("labels/val")).contains(exactly("a.json"));
    assertThat(fixed.namesUnder("other")).contains(exactly());
    IncludeFilter open = new IncludeFilter(List.of("labels/*.json", "img-05000.jpg"));
    assertThat(open.namesUnder("")).contains(exactly("labels", "img-05000.jpg"));
    assertThat(open.namesUnder("labels")).isEmpty();
    assertThat(new IncludeFilter(List.of("**/a.jpg")).namesUnder("")).isEmpty();
    assertThat(new IncludeFilter(List.of("data/**/a.jpg")).namesUnder("data/x")).isEmpty();
    assertThat(new IncludeFilter(List.of("{data/x,y}/a.jpg")).namesUnder("data")).isEmpty();
    assertThat(new IncludeFilter(List.of()).namesUnder("")).isEmpty();
    assertThat(new IncludeFilter(List.of("*")).namesUnder("x")).as("* matches nothing below x").contains(exactly());
  }

  @Test
  void aWildcardAfterALiteralStartBoundsTheNamesByThatStart() {
    IncludeFilter filter = new IncludeFilter(List.of("data/img_001*", "*/sub/x?.jpg", "data/a[0-9]/b.jpg"));
    assertThat(filter.namesUnder("data")).contains(new ChildNames(Set.of("sub"), Set.of("img_001", "a")));
    assertThat(filter.namesUnder("other")).contains(exactly("sub"));
    assertThat(filter.namesUnder("data/sub")).contains(new ChildNames(Set.of(), Set.of("x")));
    assertThat(filter.namesUnder("data/a1")).contains(exactly("b.jpg"));
    assertThat(filter.namesUnder("data/b1")).contains(exactly());
    assertThat(new IncludeFilter(List.of("data/img**")).namesUnder("data")).contains(
        new ChildNames(Set.of(), Set.of("img")));
    assertThat(new IncludeFilter(List.of("data/\\*x")).namesUnder("data")).as("an escape ends the literal start")
        .isEmpty();
  }

  private static ChildNames exactly(String... names) {
    return ChildNames.exactly(Set.of(names));
  }

  @Test
  void refusesAbsolutePatterns() {
    assertThatThrownBy(() -> new IncludeFilter(List.of("/etc/*")))
        .hasMessageStartingWith("Invalid include pattern: /etc/*");
  }
}
