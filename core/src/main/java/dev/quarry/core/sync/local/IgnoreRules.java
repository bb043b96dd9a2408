package dev.quarry.core.sync.local;

import dev.quarry.core.text.Utf8File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a folder's {@code .quarryignore}, in gitignore's syntax and with git's meaning, so that the file can be
 * written as a {@code .gitignore} is: blank lines and {@code #} comments; {@code !} re-includes; a trailing {@code /}
 * matches folders only; a {@code /} at the start or in the middle anchors the pattern to the folder's top, otherwise
 * it matches at any depth; {@code *}, {@code ?} and {@code [...]} stay within a path component, {@code **} crosses
 * components ({@code **}/x, x/{@code **}, a/{@code **}/b); a backslash escapes the next character (a trailing space,
 * a leading {@code #} or {@code !}); the last matching rule wins; and, as in git, nothing inside an ignored folder can
 * be re-included. Only the file at the folder's top is read; a {@code .quarryignore} deeper down is an ordinary file.
 * Rules may also come from a file in a folder above ({@link #parse(List, String, String)}, as DVC reads its
 * {@code .dvcignore} files): theirs match paths as seen from that folder, and rules added later ({@link #then}) win.
 * Rule sets of different files may also be combined as a union ({@link #or}): each keeps its own order, and a path is
 * ignored when any of them ignores it.
 */
public final class IgnoreRules {
  public static final String FILE_NAME = ".quarryignore";
  /** The most bytes the file may hold: it may come with a cloned folder, so it is read bounded. */
  static final int MAX_BYTES = 1 << 20;
  private static final IgnoreRules NONE = new IgnoreRules(List.of());

  /** {@code base}: the path from the folder of the rule's file to the folder whose paths it is asked about. */
  private record Rule(Glob glob, boolean negated, boolean foldersOnly, boolean wholePath, String base) {}

  /** Each a list of rules whose last match decides; a path is ignored when one of them ignores it. None empty. */
  private final List<List<Rule>> sets;

  private IgnoreRules(List<List<Rule>> sets) {
    this.sets = List.copyOf(sets);
  }

  private static IgnoreRules single(List<Rule> rules) {
    return rules.isEmpty() ? NONE : new IgnoreRules(List.of(List.copyOf(rules)));
  }

  /** No rules: nothing is ignored. */
  public static IgnoreRules none() {
    return NONE;
  }

  /** The rules of {@code folder/.quarryignore}, or none when there is no such regular file. */
  public static IgnoreRules of(Path folder) throws IOException {
    Path file = folder.resolve(FILE_NAME);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return NONE;
    }
    String text = Utf8File.read(file, MAX_BYTES, FILE_NAME, FILE_NAME);
    return parse(text.lines().toList(), file.toString());
  }

  /** The rules of these lines, in order. */
  public static IgnoreRules parse(List<String> lines) {
    return parse(lines, FILE_NAME);
  }

  /** {@code source}: the file the lines came from, named in a refusal. */
  private static IgnoreRules parse(List<String> lines, String source) {
    return parse(lines, source, "");
  }

  /**
   * The rules of lines from a file in a folder above the one asked about: {@code base} is the path from the file's
   * folder down to that one, ending with '/' ("" for the same folder), which a rule with a '/' matches paths under.
   */
  public static IgnoreRules parse(List<String> lines, String source, String base) {
    List<Rule> rules = new ArrayList<>();
    for (int number = 1; number <= lines.size(); number++) {
      Rule rule = rule(lines.get(number - 1), " (line " + number + " of " + source + ")", base);
      if (rule != null) {
        rules.add(rule);
      }
    }
    return single(rules);
  }

  public boolean isEmpty() {
    return sets.isEmpty();
  }

  /**
   * These rules, then {@code later}'s: where both match a path, {@code later}'s decides. Of a union, each set is
   * followed by each of {@code later}'s: (a or b) then c is (a then c) or (b then c).
   */
  public IgnoreRules then(IgnoreRules later) {
    if (isEmpty() || later.isEmpty()) {
      return isEmpty() ? later : this;
    }
    List<List<Rule>> combined = new ArrayList<>();
    for (List<Rule> set : sets) {
      for (List<Rule> next : later.sets) {
        List<Rule> all = new ArrayList<>(set);
        all.addAll(next);
        combined.add(List.copyOf(all));
      }
    }
    return new IgnoreRules(combined);
  }

  /**
   * The union of these rules and {@code other}: a path is ignored when either ignores it, each deciding by its own
   * rules in its own order, so a negation in one never re-includes what the other ignores.
   */
  public IgnoreRules or(IgnoreRules other) {
    List<List<Rule>> both = new ArrayList<>(sets);
    both.addAll(other.sets);
    return new IgnoreRules(both);
  }

  /**
   * Whether {@code path} ('/'-separated, relative to the folder's top) is ignored, itself or through a folder that
   * holds it; {@code folder}: whether the path is a folder.
   */
  public boolean ignores(String path, boolean folder) {
    if (sets.isEmpty()) {
      return false;
    }
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      if (ignoresItself(path.substring(0, slash), true)) {
        return true;
      }
    }
    return ignoresItself(path, folder);
  }

  /**
   * Whether the rules ignore {@code path} itself, its folders not considered: for a walk that never enters an ignored
   * folder, and so has checked them already.
   */
  public boolean ignoresItself(String path, boolean folder) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    for (List<Rule> rules : sets) {
      if (lastMatchIgnores(rules, path, name, folder)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the last of {@code rules} that matches the path ignores it. */
  private static boolean lastMatchIgnores(List<Rule> rules, String path, String name, boolean folder) {
    for (int i = rules.size() - 1; i >= 0; i--) {
      Rule rule = rules.get(i);
      if ((folder || !rule.foldersOnly()) && rule.glob().matches(rule.wholePath() ? rule.base() + path : name)) {
        return !rule.negated();
      }
    }
    return false;
  }

  /** One line as a rule, or null for a blank line or a comment. */
  private static Rule rule(String line, String where, String base) {
    if (line.startsWith("#")) {
      return null;
    }
    String text = withoutTrailingSpaces(line);
    boolean negated = text.startsWith("!");
    if (negated) {
      text = text.substring(1);
    }
    boolean foldersOnly = text.endsWith("/") && !text.endsWith("\\/");
    if (foldersOnly) {
      text = text.substring(0, text.length() - 1);
    }
    if (text.isEmpty() || text.endsWith("\\") && !text.endsWith("\\\\")) {
      return null; // nothing left, or a dangling escape: git's rule matches nothing
    }
    boolean wholePath = text.indexOf('/') >= 0;
    if (text.startsWith("/")) {
      text = text.substring(1);
    }
    return new Rule(Glob.compile(text, where), negated, foldersOnly, wholePath, base);
  }

  /** Drops trailing spaces, but not one escaped by a backslash. */
  private static String withoutTrailingSpaces(String line) {
    int end = line.length();
    while (end > 0 && line.charAt(end - 1) == ' ' && !(end > 1 && line.charAt(end - 2) == '\\')) {
      end--;
    }
    return line.substring(0, end);
  }
}
