package dev.quarry.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrintableTest {
  @Test
  void controlAndFormatCharactersAreEscapedSoNoValueForgesALine() {
    assertThat(Printable.of("a\nquarry: warning\u001b[0m\u202e\u2028b")).isEqualTo(
        "a\\u000aquarry: warning\\u001b[0m\\u202e\\u2028b");
    assertThat(Printable.of("café/猫.jpg")).isEqualTo("café/猫.jpg");
    assertThat(Printable.of(null)).isEqualTo("null");
  }

  @Test
  void aLongValueIsCutWithTheCountLeftOff() {
    assertThat(Printable.of("x".repeat(100_000))).isEqualTo("x".repeat(200) + "... (99800 more characters)");
    assertThat(Printable.of("x".repeat(200))).isEqualTo("x".repeat(200));
    assertThat(Printable.hex(new byte[1000])).isEqualTo("0x" + "00".repeat(64) + "... (936 more bytes)");
  }
}
