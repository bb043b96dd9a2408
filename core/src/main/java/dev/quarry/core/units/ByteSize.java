package dev.quarry.core.units;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte counts written as Kubernetes quantities, the same syntax the custom resources accept: a whole number with
 * an optional binary ({@code Ki Mi Gi Ti Pi Ei}) or decimal ({@code k M G T P E}) suffix.
 */
public final class ByteSize {
  private static final Pattern QUANTITY = Pattern.compile("([0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?");
  private static final String[] BINARY_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSize() {}

  /** Parses {@code 256Mi}, {@code 2G} or {@code 1048576} into bytes. */
  public static long parse(String text) {
    Matcher matcher = QUANTITY.matcher(text.trim());
    if (!matcher.matches()) {
      throw invalid(text);
    }
    try {
      long number = Long.parseLong(matcher.group(1));
      String suffix = matcher.group(2);
      return suffix == null ? number : Math.multiplyExact(number, multiplier(suffix));
    } catch (ArithmeticException | NumberFormatException e) {
      throw invalid(text);
    }
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException("Invalid byte size: " + text
        + " (must be a whole number with an optional suffix Ki, Mi, Gi, Ti, Pi, Ei, k, M, G, T, P or E,"
        + " for example 256Mi)");
  }

  private static long multiplier(String suffix) {
    return switch (suffix) {
      case "Ki" -> 1L << 10;
      case "Mi" -> 1L << 20;
      case "Gi" -> 1L << 30;
      case "Ti" -> 1L << 40;
      case "Pi" -> 1L << 50;
      case "Ei" -> 1L << 60;
      case "k" -> 1_000L;
      case "M" -> 1_000_000L;
      case "G" -> 1_000_000_000L;
      case "T" -> 1_000_000_000_000L;
      case "P" -> 1_000_000_000_000_000L;
      case "E" -> 1_000_000_000_000_000_000L;
      default -> throw new IllegalStateException("unreachable: " + suffix);
    };
  }

  /** A byte count for people: {@code 1.5 GiB}, {@code 512 B}. */
  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    int unit = Math.min((63 - Long.numberOfLeadingZeros(bytes)) / 10, BINARY_UNITS.length - 1);
    return String.format(Locale.ROOT, "%.1f %s", bytes / (double) (1L << (unit * 10)), BINARY_UNITS[unit]);
  }
}
