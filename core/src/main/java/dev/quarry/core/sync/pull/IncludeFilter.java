package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.remote.ChildNames;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
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
  /** The characters that make a pattern component a glob (']' and '}' too, to be safe). */
  private static final String GLOB_CHARACTERS = "*?[]{}\\";
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
   * The names that a selected path can have directly under {@code folder} ("" for the top), when every pattern bounds
   * them: a pattern whose components on the way match the folder's names the child exactly ({@code a/b/c.jpg} names
   * {@code b} under {@code a}) or by the literal start of its component ({@code *}{@code /img_001*.jpg} wants the
   * names starting with {@code img_001} under any top folder); a pattern that ends above the folder names nothing
   * there. Empty when a pattern leaves the names open (a {@code **} on the way, a component that starts with a
   * wildcard, a brace group that spans folders) or there are no patterns. A pull reads in a chunked folder only the
   * chunks that can hold the names.
   */
  public Optional<ChildNames> namesUnder(String folder) {
    if (patterns.isEmpty()) {
      return Optional.empty();
    }
    String[] path = folder.isEmpty() ? new String[0] : folder.split("/");
    Set<String> exact = new HashSet<>();
    Set<String> prefixes = new HashSet<>();
    for (String pattern : patterns) {
      if (bracesSpanFolders(pattern)) {
        return Optional.empty();
      }
      String[] parts = pattern.split("/");
      boolean onPath = true;
      for (int i = 0; i < Math.min(path.length, parts.length) && onPath; i++) {
        if (parts[i].contains("**")) {
          return Optional.empty(); // it crosses folders from here on: any name below
        }
        onPath = isGlob(parts[i]) ? componentMatcher(parts[i]).matches(Path.of(path[i])) : parts[i].equals(path[i]);
      }
      if (!onPath || parts.length <= path.length) {
        continue; // without ** it matches nothing below the folder
      }
      String child = parts[path.length];
      String literal = literalStart(child);
      if (literal.length() == child.length()) {
        exact.add(child);
      } else if (literal.isEmpty()) {
        return Optional.empty();
      } else {
        prefixes.add(literal);
      }
    }
    return Optional.of(new ChildNames(exact, prefixes));
  }

  /** The characters of a pattern component before its first glob character. */
  private static String literalStart(String component) {
    int end = 0;
    while (end < component.length() && GLOB_CHARACTERS.indexOf(component.charAt(end)) < 0) {
      end++;
    }
    return component.substring(0, end);
  }

  /** Whether a brace group holds a '/': then the pattern's components are not its '/'-separated parts. */
  private static boolean bracesSpanFolders(String pattern) {
    int depth = 0;
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth = Math.max(0, depth - 1);
      } else if (c == '/' && depth > 0) {
        return true;
      }
    }
    return false;
  }

  private static PathMatcher componentMatcher(String component) {
    return FileSystems.getDefault().getPathMatcher("glob:" + component);
  }

  private static boolean isGlob(String component) {
    return !literalStart(component).equals(component);
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
