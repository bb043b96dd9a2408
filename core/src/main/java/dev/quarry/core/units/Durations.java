package dev.quarry.core.units;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as Kubernetes users write them: {@code 24h}, {@code 1h30m}, {@code 90s}, {@code 500ms}. */
public final class Durations {
  private static final Pattern WHOLE = Pattern.compile("([0-9]+(ms|s|m|h))+");
  private static final Pattern PART = Pattern.compile("([0-9]+)(ms|s|m|h)");

  private Durations() {}

  public static Duration parse(String text) {
    if (text == null || !WHOLE.matcher(text).matches()) {
      throw new IllegalArgumentException("Invalid duration: " + text + " (must be like 24h, 1h30m, 90s or 500ms)");
    }
    Duration total = Duration.ZERO;
    Matcher part = PART.matcher(text);
    while (part.find()) {
      long amount = Long.parseLong(part.group(1));
      total = total.plus(switch (part.group(2)) {
        case "h" -> Duration.ofHours(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "s" -> Duration.ofSeconds(amount);
        default -> Duration.ofMillis(amount);
      });
    }
    return total;
  }
}
