package dev.quarry.operator.status;

/**
 * Text cut to fit a resource's field (status messages, events): at most a number of UTF-16 chars, ending with a
 * marker when cut, and never between the two halves of a surrogate pair, which would leave invalid UTF-16 that the API
 * server stores as a replacement character or refuses.
 */
public final class CutText {
  private CutText() {}

  public static String toLength(String text, int maxChars, String marker) {
    if (text.length() <= maxChars) {
      return text;
    }
    int end = maxChars - marker.length();
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + marker;
  }
}
