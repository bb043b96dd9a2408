package dev.quarry.core.text;

import java.util.HexFormat;

/**
 * Untrusted text (member names, record keys, object names) made safe to put in a message: control and format
 * characters (ESC, newlines, bidirectional overrides) escaped as {@code \}{@code uXXXX}, so that a name cannot forge
 * terminal output or a line of its own, and cut to {@value #MAX_CHARS} characters, so that a hostile name cannot
 * make a message of megabytes. The one such rule for every message that quotes what it read.
 */
public final class Printable {
  /** The most characters a shown value has, escapes included, before the count of those left off. */
  public static final int MAX_CHARS = 200;
  /** The most bytes shown in hex. */
  private static final int MAX_HEX_BYTES = 64;

  private Printable() {}

  /** {@code value} escaped and cut to size; "null" for null. */
  public static String of(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (at < value.length() && out.length() < MAX_CHARS) {
      int c = value.codePointAt(at);
      if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
          || Character.getType(c) == Character.LINE_SEPARATOR
          || Character.getType(c) == Character.PARAGRAPH_SEPARATOR || Character.getType(c) == Character.SURROGATE) {
        out.append(String.format("\\u%04x", c));
      } else {
        out.appendCodePoint(c);
      }
      at += Character.charCount(c);
    }
    return at < value.length() ? out + "... (" + (value.length() - at) + " more characters)" : out.toString();
  }

  /**
   * {@code value} as {@link #of} makes it, then cut at a code point (never within a surrogate pair) so that its UTF-8
   * is at most {@code maxBytes}, "..." included: for places whose size is counted in bytes, such as a Kubernetes
   * termination message.
   */
  public static String within(String value, int maxBytes) {
    String shown = of(value);
    if (utf8Length(shown, shown.length()) <= maxBytes) {
      return shown;
    }
    int budget = maxBytes - 3;
    int bytes = 0;
    int at = 0;
    while (at < shown.length()) {
      int c = shown.codePointAt(at);
      int size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (bytes + size > budget) {
        break;
      }
      bytes += size;
      at += Character.charCount(c);
    }
    return shown.substring(0, at) + "...";
  }

  private static int utf8Length(String text, int end) {
    int bytes = 0;
    for (int at = 0; at < end; ) {
      int c = text.codePointAt(at);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      at += Character.charCount(c);
    }
    return bytes;
  }

  /** Raw bytes that are not text, as 0x and hex, cut to size. */
  public static String hex(byte[] raw) {
    String shown = "0x" + HexFormat.of().formatHex(raw, 0, Math.min(raw.length, MAX_HEX_BYTES));
    return raw.length > MAX_HEX_BYTES ? shown + "... (" + (raw.length - MAX_HEX_BYTES) + " more bytes)" : shown;
  }
}
