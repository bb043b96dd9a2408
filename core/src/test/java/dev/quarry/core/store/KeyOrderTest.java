package dev.quarry.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyOrderTest {
  private static final String ALPHABET = "a-./0Z\u00e9\u4E2D\uE000\uFFFD\uD83D\uDE00\uD800\uDC00";

  private static String randomKey(Random random) {
    int[] codePoints = ALPHABET.codePoints().toArray();
    StringBuilder key = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      key.appendCodePoint(codePoints[random.nextInt(codePoints.length)]);
    }
    return key.toString();
  }

  @Test
  void comparesLikeTheUtf8Bytes() {
    Random random = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      String a = randomKey(random);
      String b = randomKey(random);
      assertThat(Integer.signum(KeyOrder.compare(a, b)))
          .as("%s vs %s", a, b)
          .isEqualTo(Integer.signum(Arrays.compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8))));
    }
  }

  @Test
  void differsFromJavaStringOrderAboveTheBasicPlane() {
    String emoji = "\uD83D\uDE00";
    String replacement = "\uFFFD";

    assertThat(emoji.compareTo(replacement)).isNegative();
    assertThat(KeyOrder.compare(emoji, replacement)).isPositive();
    assertThat(KeyOrder.compare("a-b", "a/b")).isNegative();
    assertThat(KeyOrder.compare("a/b", "a0")).isNegative();
    assertThat(KeyOrder.compare("a", "a/")).isNegative();
  }
}
