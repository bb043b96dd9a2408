package dev.quarry.core.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizeTest {
  @ParameterizedTest
  @CsvSource({"0,0", "1048576,1048576", "1Ki,1024", "256Mi,268435456", "2Gi,2147483648", "3k,3000", "2G,2000000000",
      "1Ei,1152921504606846976"})
  void parsesKubernetesQuantities(String text, long bytes) {
    assertThat(ByteSize.parse(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"100MB", "1.5Gi", "-1", "Mi", "", "16Ei", "99999999999999999999"})
  void refusesOtherForms(String text) {
    assertThatThrownBy(() -> ByteSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid byte size: " + text + " (must be a whole number with an optional suffix Ki, Mi, Gi, Ti,"
            + " Pi, Ei, k, M, G, T, P or E, for example 256Mi)");
  }

  @ParameterizedTest
  @CsvSource({"0,0 B", "1023,1023 B", "1024,1.0 KiB", "1572864,1.5 MiB", "268435456,256.0 MiB"})
  void formatsForPeople(long bytes, String text) {
    assertThat(ByteSize.format(bytes)).isEqualTo(text);
  }
}
