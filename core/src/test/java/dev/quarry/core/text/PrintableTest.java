package dev.quarry.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
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

  @Test
  void aValueIsCutToAByteBudgetAtACodePoint() {
    String emoji = "a".repeat(96) + "\uD83D\uDE00".repeat(10); // the pair straddles char 97
    String cut = Printable.within(emoji, 100);
    assertThat(cut).isEqualTo("a".repeat(96) + "...");
    assertThat(StandardCharsets.UTF_8.newEncoder().canEncode(cut)).isTrue();
    String cjk = "猫".repeat(100);
    assertThat(Printable.within(cjk, 100)).isEqualTo("猫".repeat(32) + "...");
    assertThat(Printable.within(cjk, 100).getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(100);
    assertThat(Printable.within("猫".repeat(33), 100)).as("99 bytes fit").isEqualTo("猫".repeat(33));
    assertThat(Printable.within("a\nb", 100)).isEqualTo("a\\u000ab");
  }
}
