package dev.quarry.core.sync.pull;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

/**
 * Which paths of a version a pull selects: glob patterns on '/'-separated paths relative to the version's root, where
 * {@code *} stays within a folder and {@code **} crosses folders; a leading {@code **}/ also matches at the top.
 * No patterns selects everything. Also tells which folders can hold a match, so a partial pull fetches only those
 * manifests.
 */
public final class IncludeFilter {
  private final List<PathMatcher> matchers = new ArrayList<>();
  private final List<String> patterns = new ArrayList<>();

  public IncludeFilter(List<String> patterns) {
    for (String pattern : patterns) {
      if (pattern.isEmpty() || pattern.startsWith("/") || pattern.contains("\0")) {
        throw new IllegalArgumentException("Invalid include pattern: " + pattern
            + " (must be a glob relative to the version's root, such as images/**/*.jpg)");
      }
      try {
        matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern));
        if (pattern.startsWith("**/")) {
          matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern.substring(3)));
        }
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("Invalid include pattern: " + pattern + " (" + e.getDescription() + ")", e);
      }
      this.patterns.add(pattern);
    }
  }

  public boolean selectsEverything() {
    return matchers.isEmpty();
  }

  public boolean matches(String path) {
    if (matchers.isEmpty()) {
      return true;
    }
    Path asPath = Path.of(path);
    return matchers.stream().anyMatch(matcher -> matcher.matches(asPath));
  }

  /** Whether something under {@code folder} could match: a folder outside every pattern's fixed part cannot. */
  public boolean mayContain(String folder) {
    if (matchers.isEmpty() || matches(folder)) {
      return true;
    }
    String withSlash = folder + "/";
    int depth = folder.split("/").length;
    for (String pattern : patterns) {
      String prefix = literalPrefix(pattern);
      if (prefix.startsWith(withSlash)) {
        return true; // the folder is on the pattern's fixed path
      }
      boolean inside = prefix.isEmpty() || withSlash.startsWith(prefix + "/");
      if (inside && (pattern.contains("**") || pattern.split("/").length > depth)) {
        return true; // the pattern's wildcard part can reach below the folder
      }
    }
    return false;
  }

  /**
   * The only names that a selected path can have directly under {@code folder} ("" for the top), when every pattern
   * fixes them (as {@code a/b/c.jpg} fixes {@code b} under {@code a}); empty when a pattern leaves them open or there
   * are no patterns. A pull reads in a chunked folder only the chunks that hold them.
   */
  public Optional<Set<String>> namesUnder(String folder) {
    if (patterns.isEmpty()) {
      return Optional.empty();
    }
    String[] path = folder.isEmpty() ? new String[0] : folder.split("/");
    Set<String> names = new HashSet<>();
    for (String pattern : patterns) {
      String[] parts = pattern.split("/");
      if (parts.length <= path.length) {
        if (Arrays.stream(parts).anyMatch(IncludeFilter::isGlob)) {
          return Optional.empty(); // it may match the folder itself, or one above it, and so all of it
        }
        continue;
      }
      boolean onPath = true;
      for (int i = 0; i <= path.length; i++) {
        if (isGlob(parts[i])) {
          return Optional.empty();
        }
        onPath &= i == path.length || parts[i].equals(path[i]);
      }
      if (onPath) {
        names.add(parts[path.length]);
      }
    }
    return Optional.of(names);
  }

  private static boolean isGlob(String component) {
    return component.matches(".*[*?\\[\\]{}\\\\].*");
  }

  /** The folders before the first component with a glob character: {@code a/b/*.jpg} gives {@code a/b}. */
  private static String literalPrefix(String pattern) {
    String[] parts = pattern.split("/");
    StringBuilder prefix = new StringBuilder();
    for (int i = 0; i < parts.length - 1; i++) {
      if (isGlob(parts[i])) {
        break;
      }
      prefix.append(prefix.isEmpty() ? "" : "/").append(parts[i]);
    }
    return prefix.toString();
  }
}
