package dev.quarry.core.units;

/** A count with its noun, as a person reads it: "1 file", "2 files", "0 files". */
public final class Counted {
  private Counted() {}

  /** {@code count} and {@code noun} (singular), made plural with an "s" unless the count is one. */
  public static String of(long count, String noun) {
    return count + " " + noun(count, noun);
  }

  /** {@code count} and {@code singular}, or {@code plural} unless the count is one: "1 entry", "2 entries". */
  public static String of(long count, String singular, String plural) {
    return count + " " + (count == 1 ? singular : plural);
  }

  /** The noun for {@code count} of it: "file" for one, "files" for any other number. */
  public static String noun(long count, String noun) {
    return count == 1 ? noun : noun + "s";
  }
}
