package dev.quarry.core.sort.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A name template with one bash-style numeric range: {@code s3://b/train-{000000..001281}.tar}, with an optional step
 * ({@code {0..998..2}}), or open-ended for outputs ({@code {000000..}}). A start written with leading zeros pads every
 * number to its width, as bash does.
 */
public final class BraceTemplate {
  /** The most names one template may expand to. */
  public static final long MAX_NAMES = 10_000_000;

  private static final Pattern RANGE = Pattern.compile("\\{([0-9]+)\\.\\.([0-9]*)(?:\\.\\.([0-9]+))?}");

  private final String template;
  private final String prefix;
  private final String suffix;
  private final long start;
  private final Long end;
  private final long step;
  private final int width;

  private BraceTemplate(String template, String prefix, String suffix, long start, Long end, long step, int width) {
    this.template = template;
    this.prefix = prefix;
    this.suffix = suffix;
    this.start = start;
    this.end = end;
    this.step = step;
    this.width = width;
  }

  /** Parses a template; {@code openEndAllowed} is true for output templates. */
  public static BraceTemplate parse(String template, boolean openEndAllowed) {
    Matcher matcher = RANGE.matcher(template);
    if (!matcher.find()) {
      throw invalid(template, "it has no numeric range such as {0000..0999}");
    }
    int rangeStart = matcher.start();
    int rangeEnd = matcher.end();
    if (matcher.find()) {
      throw invalid(template, "it has more than one range");
    }
    String prefix = template.substring(0, rangeStart);
    String suffix = template.substring(rangeEnd);
    if (prefix.contains("{") || suffix.contains("{") || prefix.contains("}") || suffix.contains("}")) {
      throw invalid(template, "only one numeric range in braces is supported, no lists like {a,b}");
    }
    matcher.reset();
    matcher.find();
    String startText = matcher.group(1);
    String endText = matcher.group(2);
    long start = parseNumber(template, startText);
    Long end = endText.isEmpty() ? null : parseNumber(template, endText);
    long step = matcher.group(3) == null ? 1 : parseNumber(template, matcher.group(3));
    if (end == null && !openEndAllowed) {
      throw invalid(template, "an input range must have an end, like {0000..0999}");
    }
    if (step < 1) {
      throw invalid(template, "the step must be at least 1");
    }
    if (end != null && end < start) {
      throw invalid(template, "the range ends before it starts");
    }
    if (end != null && (end - start) / step + 1 > MAX_NAMES) {
      throw invalid(template, "it expands to more than " + MAX_NAMES + " names");
    }
    int width = startText.length() > 1 && startText.startsWith("0") ? startText.length() : 0;
    return new BraceTemplate(template, prefix, suffix, start, end, step, width);
  }

  private static long parseNumber(String template, String digits) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw invalid(template, "the number " + digits + " is too large");
    }
  }

  private static InvalidTemplate invalid(String template, String why) {
    return new InvalidTemplate(template, why);
  }

  /** A template that does not parse; {@link #reason()} says why without quoting it (it may be object content). */
  public static final class InvalidTemplate extends IllegalArgumentException {
    private final String reason;

    InvalidTemplate(String template, String reason) {
      super("Invalid template: " + template + " (" + reason + ")");
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  /** The number of names, or -1 for an open-ended template. */
  public long size() {
    return end == null ? -1 : (end - start) / step + 1;
  }

  /** The {@code index}-th name (from 0); fails past the end of a closed range. */
  public String name(long index) {
    if (index < 0 || (end != null && index >= size())) {
      throw new IllegalArgumentException("Cannot name item " + index + " of template " + template + ": it has "
          + size() + " names");
    }
    String number = Long.toString(start + index * step);
    return prefix + (number.length() < width ? "0".repeat(width - number.length()) + number : number) + suffix;
  }

  /** Every name of a closed template. */
  public List<String> expand() {
    if (end == null) {
      throw new IllegalStateException("Cannot expand open-ended template " + template);
    }
    List<String> names = new ArrayList<>((int) size());
    for (long i = 0; i < size(); i++) {
      names.add(name(i));
    }
    return names;
  }

  /** The text before the range, for example {@code s3://b/train-}. */
  public String prefix() {
    return prefix;
  }

  /** The text after the range, for example {@code .tar}. */
  public String suffix() {
    return suffix;
  }

  @Override
  public String toString() {
    return template;
  }
}
