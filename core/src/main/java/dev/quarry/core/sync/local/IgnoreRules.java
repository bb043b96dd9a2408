package dev.quarry.core.sync.local;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of a folder's {@code .quarryignore}, in gitignore's syntax and with git's meaning, so that the file can be
 * written as a {@code .gitignore} is: blank lines and {@code #} comments; {@code !} re-includes; a trailing {@code /}
 * matches folders only; a {@code /} at the start or in the middle anchors the pattern to the folder's top, otherwise
 * it matches at any depth; {@code *}, {@code ?} and {@code [...]} stay within a path component, {@code **} crosses
 * components ({@code **}/x, x/{@code **}, a/{@code **}/b); a backslash escapes the next character (a trailing space,
 * a leading {@code #} or {@code !}); the last matching rule wins; and, as in git, nothing inside an ignored folder can
 * be re-included. Only the file at the folder's top is read; a {@code .quarryignore} deeper down is an ordinary file.
 */
public final class IgnoreRules {
  public static final String FILE_NAME = ".quarryignore";
  private static final IgnoreRules NONE = new IgnoreRules(List.of());

  private record Rule(Pattern pattern, boolean negated, boolean foldersOnly, boolean wholePath) {}

  private final List<Rule> rules;

  private IgnoreRules(List<Rule> rules) {
    this.rules = List.copyOf(rules);
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
    try {
      return parse(Files.readAllLines(file, StandardCharsets.UTF_8));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("Invalid " + FILE_NAME + ": " + file + " (must be UTF-8 text)", e);
    }
  }

  /** The rules of these lines, in order. */
  public static IgnoreRules parse(List<String> lines) {
    List<Rule> rules = new ArrayList<>();
    for (String line : lines) {
      Rule rule = rule(line);
      if (rule != null) {
        rules.add(rule);
      }
    }
    return new IgnoreRules(rules);
  }

  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /**
   * Whether {@code path} ('/'-separated, relative to the folder's top) is ignored, itself or through a folder that
   * holds it; {@code folder}: whether the path is a folder.
   */
  public boolean ignores(String path, boolean folder) {
    if (rules.isEmpty()) {
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
    for (int i = rules.size() - 1; i >= 0; i--) {
      Rule rule = rules.get(i);
      if ((folder || !rule.foldersOnly()) && rule.pattern().matcher(rule.wholePath() ? path : name).matches()) {
        return !rule.negated();
      }
    }
    return false;
  }

  /** One line as a rule, or null for a blank line or a comment. */
  private static Rule rule(String line) {
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
    return new Rule(Pattern.compile(regex(text), Pattern.DOTALL), negated, foldersOnly, wholePath);
  }

  /** Drops trailing spaces, but not one escaped by a backslash. */
  private static String withoutTrailingSpaces(String line) {
    int end = line.length();
    while (end > 0 && line.charAt(end - 1) == ' ' && !(end > 1 && line.charAt(end - 2) == '\\')) {
      end--;
    }
    return line.substring(0, end);
  }

  /** A glob as a regular expression over a path: what git's wildmatch does with WM_PATHNAME. */
  private static String regex(String glob) {
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < glob.length()) {
      char c = glob.charAt(i);
      if (c == '*') {
        int stars = 1;
        while (i + stars < glob.length() && glob.charAt(i + stars) == '*') {
          stars++;
        }
        boolean startOfComponent = i == 0 || glob.charAt(i - 1) == '/';
        int after = i + stars;
        if (stars >= 2 && startOfComponent && after < glob.length() && glob.charAt(after) == '/') {
          regex.append("(?:.*/)?"); // "**/": any folders, none included
          i = after + 1;
          continue;
        }
        if (stars >= 2 && startOfComponent && after == glob.length()) {
          regex.append(".*"); // a trailing "**": everything below
          i = after;
          continue;
        }
        regex.append("[^/]*");
        i = after;
      } else if (c == '?') {
        regex.append("[^/]");
        i++;
      } else if (c == '[') {
        int end = bracketEnd(glob, i);
        if (end < 0) {
          regex.append("\\[");
          i++;
        } else {
          regex.append(bracket(glob.substring(i + 1, end)));
          i = end + 1;
        }
      } else if (c == '\\' && i + 1 < glob.length()) {
        regex.append(Pattern.quote(String.valueOf(glob.charAt(i + 1))));
        i += 2;
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
        i++;
      }
    }
    return regex.toString();
  }

  /** Where the bracket expression opened at {@code open} closes, or -1 when it does not. */
  private static int bracketEnd(String glob, int open) {
    int i = open + 1;
    if (i < glob.length() && (glob.charAt(i) == '!' || glob.charAt(i) == '^')) {
      i++;
    }
    if (i < glob.length() && glob.charAt(i) == ']') {
      i++; // a ']' first is a member
    }
    while (i < glob.length()) {
      char c = glob.charAt(i);
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '[' && i + 1 < glob.length() && glob.charAt(i + 1) == ':') {
        int close = glob.indexOf(":]", i + 2);
        if (close > 0) {
          i = close + 2;
          continue;
        }
      }
      if (c == ']') {
        return i;
      }
      i++;
    }
    return -1;
  }

  /** The members of a bracket expression as a Java character class, never matching '/'. */
  private static String bracket(String members) {
    StringBuilder out = new StringBuilder("(?!/)[");
    int i = 0;
    if (!members.isEmpty() && (members.charAt(0) == '!' || members.charAt(0) == '^')) {
      out.append('^');
      i++;
    }
    while (i < members.length()) {
      char c = members.charAt(i);
      if (c == '[' && members.startsWith("[:", i)) {
        int close = members.indexOf(":]", i + 2);
        if (close > 0) {
          out.append(posixClass(members.substring(i + 2, close)));
          i = close + 2;
          continue;
        }
      }
      if (c == '\\' && i + 1 < members.length()) {
        c = members.charAt(++i);
      }
      if (i + 2 < members.length() && members.charAt(i + 1) == '-') {
        char last = members.charAt(i + 2);
        int next = i + 3;
        if (last == '\\' && i + 3 < members.length()) {
          last = members.charAt(i + 3);
          next = i + 4;
        }
        out.append(escaped(c)).append('-').append(escaped(last));
        i = next;
      } else {
        out.append(escaped(c));
        i++;
      }
    }
    return out.append(']').toString();
  }

  private static String escaped(char c) {
    return Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c;
  }

  private static String posixClass(String name) {
    return switch (name) {
      case "alnum" -> "\\p{Alnum}";
      case "alpha" -> "\\p{Alpha}";
      case "blank" -> " \\t";
      case "cntrl" -> "\\p{Cntrl}";
      case "digit" -> "0-9";
      case "graph" -> "\\p{Graph}";
      case "lower" -> "a-z";
      case "print" -> "\\p{Print}";
      case "punct" -> "\\p{Punct}";
      case "space" -> "\\s";
      case "upper" -> "A-Z";
      case "xdigit" -> "0-9A-Fa-f";
      default -> throw new IllegalArgumentException("Invalid character class in " + FILE_NAME + ": [:" + name
          + ":] (must be one of alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit)");
    };
  }
}
