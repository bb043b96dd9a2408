package dev.quarry.core.store;

import java.util.Comparator;

/**
 * The order of keys in listings: the binary order of their UTF-8 bytes, which S3 uses. It equals code point order,
 * and differs from {@link String#compareTo(String)} only where a character above U+FFFF (a surrogate pair in Java)
 * meets one from U+E000 to U+FFFF.
 */
public final class KeyOrder {
  public static final Comparator<String> UTF8_BINARY = KeyOrder::compare;

  private KeyOrder() {}

  public static int compare(String a, String b) {
    int length = Math.min(a.length(), b.length());
    for (int i = 0; i < length; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        return Integer.compare(codePointRank(x), codePointRank(y));
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /** Moves surrogates (D800-DFFF) above E000-FFFF, so that UTF-16 units compare like the code points they start. */
  private static int codePointRank(char c) {
    if (c < 0xD800) {
      return c;
    }
    return Character.isSurrogate(c) ? c + 0x2000 : c - 0x800;
  }
}
