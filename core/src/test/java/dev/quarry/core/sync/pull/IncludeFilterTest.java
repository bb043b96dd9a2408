package dev.quarry.core.sync.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
  void refusesAbsolutePatterns() {
    assertThatThrownBy(() -> new IncludeFilter(List.of("/etc/*")))
        .hasMessageStartingWith("Invalid include pattern: /etc/*");
  }
}
