package dev.quarry.operator.scale;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sums of the samples of one metric in Prometheus' text format, grouped by what a function makes of the labels. */
final class PrometheusText {
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? ([0-9.eE+-]+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private PrometheusText() {}

  /** The samples of {@code metric}, summed by the key {@code key} gives their labels (null: left out). */
  static Map<String, Double> sum(String text, String metric, Function<Map<String, String>, String> key) {
    Map<String, Double> sums = new TreeMap<>();
    for (String line : text.split("\n")) {
      Matcher sample = SAMPLE.matcher(line.trim());
      if (!sample.matches() || !sample.group(1).equals(metric)) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      if (sample.group(3) != null) {
        Matcher label = LABEL.matcher(sample.group(3));
        while (label.find()) {
          labels.put(label.group(1), label.group(2));
        }
      }
      String group = key.apply(labels);
      if (group != null) {
        sums.merge(group, Double.parseDouble(sample.group(4)), Double::sum);
      }
    }
    return sums;
  }
}
