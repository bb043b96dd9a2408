package dev.quarry.core.sort.order;

import dev.quarry.core.sort.spec.SortSpec;
import java.nio.charset.StandardCharsets;

/** The content key of a content order: which member holds it, and its value as the order compares it. */
public final class ContentKeys {
  private ContentKeys() {}

  /** Whether {@code memberName} is the content member: its extension (after the first dot of its base name). */
  public static boolean isMember(SortSpec.ContentKey content, String memberName) {
    if (content == null) {
      return false;
    }
    String base = memberName.substring(memberName.lastIndexOf('/') + 1);
    int dot = base.indexOf('.');
    return dot >= 0 && base.substring(dot + 1).equals(content.member());
  }

  /**
   * The member's text, stripped, as a Long, Double or String by the key's type; a malformed number throws
   * {@link NumberFormatException}.
   */
  public static Object parse(SortSpec.ContentKey content, byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8).strip();
    return switch (content.type()) {
      case INT -> Long.parseLong(text);
      case FLOAT -> Double.parseDouble(text);
      case STRING -> text;
    };
  }
}
