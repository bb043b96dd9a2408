package dev.quarry.core.sync.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void namesUnderAFolderAreKnownOnlyWhenEveryPatternFixesThem() {
    IncludeFilter fixed = new IncludeFilter(List.of("img-05000.jpg", "labels/val/a.json", "labels/train.json"));
    assertThat(fixed.namesUnder("")).contains(Set.of("img-05000.jpg", "labels"));
    assertThat(fixed.namesUnder("labels")).contains(Set.of("val", "train.json"));
    assertThat(fixed.namesUnder("labels/val")).contains(Set.of("a.json"));
    assertThat(fixed.namesUnder("other")).contains(Set.of());
    IncludeFilter open = new IncludeFilter(List.of("labels/*.json", "img-05000.jpg"));
    assertThat(open.namesUnder("")).contains(Set.of("labels", "img-05000.jpg"));
    assertThat(open.namesUnder("labels")).isEmpty();
    assertThat(new IncludeFilter(List.of("**/a.jpg")).namesUnder("")).isEmpty();
    assertThat(new IncludeFilter(List.of("*")).namesUnder("x")).isEmpty();
    assertThat(new IncludeFilter(List.of()).namesUnder("")).isEmpty();
  }

  @Test
  void refusesAbsolutePatterns() {
    assertThatThrownBy(() -> new IncludeFilter(List.of("/etc/*")))
        .hasMessageStartingWith("Invalid include pattern: /etc/*");
  }
}
