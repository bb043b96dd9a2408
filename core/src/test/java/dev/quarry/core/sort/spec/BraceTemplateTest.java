package dev.quarry.core.sort.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BraceTemplateTest {
  @Test
  void expandsWithZeroPaddingAndStep() {
    assertThat(BraceTemplate.parse("s3://b/train-{0000..0006..3}.tar", false).expand())
        .containsExactly("s3://b/train-0000.tar", "s3://b/train-0003.tar", "s3://b/train-0006.tar");
    assertThat(BraceTemplate.parse("x{8..11}", false).expand()).containsExactly("x8", "x9", "x10", "x11");
    assertThat(BraceTemplate.parse("x{098..101}", false).expand()).containsExactly("x098", "x099", "x100", "x101");
  }

  @Test
  void openEndedTemplatesNameAnyIndex() {
    BraceTemplate out = BraceTemplate.parse("s3://b/out-{000000..}.tar", true);
    assertThat(out.size()).isEqualTo(-1);
    assertThat(out.name(0)).isEqualTo("s3://b/out-000000.tar");
    assertThat(out.name(1234567)).isEqualTo("s3://b/out-1234567.tar");
  }

  @Test
  void aClosedOutputRangeRefusesNamesPastItsEnd() {
    assertThatThrownBy(() -> BraceTemplate.parse("o-{0..2}.tar", true).name(3))
        .hasMessage("Cannot name item 3 of template o-{0..2}.tar: it has 3 names");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "train.tar | it has no numeric range such as {0000..0999}",
      "t-{0..3}-{0..3}.tar | it has more than one range",
      "t-{5..3}.tar | the range ends before it starts",
      "t-{0..}.tar | an input range must have an end, like {0000..0999}",
      "t-{0..10..0}.tar | the step must be at least 1",
      "{a,b}-{0..3}.tar | only one numeric range in braces is supported, no lists like {a,b}",
      "t-{0..99999999}.tar | it expands to more than 10000000 names"})
  void refusesWithTheReason(String template, String reason) {
    assertThatThrownBy(() -> BraceTemplate.parse(template, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid template: " + template + " (" + reason + ")");
  }
}
