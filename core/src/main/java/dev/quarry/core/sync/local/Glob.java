package dev.quarry.core.sync.local;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One gitignore glob, as git's wildmatch reads it with WM_PATHNAME: {@code *}, {@code ?} and {@code [...]} stay within
 * a path component, {@code **}/ matches any folders (none included), a trailing /{@code **} everything below, a
 * backslash escapes the next character. Matched as a set of pattern positions advanced one character of the name at a
 * time, so a match costs at most (pattern length) x (name length) steps whatever the pattern: a glob such as
 * {@code *a*a*a*a*a*a*b} cannot make a scan backtrack for ever over a long name, as a regular expression would.
 */
final class Glob {
  private sealed interface Token {}

  /** One given character. */
  private record Literal(int codePoint) implements Token {}

  /** One character other than '/' of a class ({@code ?} is the class of every character). */
  private record OneOf(Pattern characterClass) implements Token {}

  /** Any characters other than '/', none included. */
  private record Star() implements Token {}

  /** Any folders: nothing, or anything that ends with '/'. */
  private record AnyFolders() implements Token {}

  /** Anything at all. */
  private record Everything() implements Token {}

  private static final Pattern ANY_CHARACTER = Pattern.compile(".", Pattern.DOTALL);

  private final Token[] tokens;

  private Glob(List<Token> tokens) {
    this.tokens = tokens.toArray(Token[]::new);
  }

  /**
   * Whether the whole of {@code text} matches. {@code current[i]}: the name so far can be followed by token i;
   * {@code within[i]}, for an {@link AnyFolders} token: the name so far ends within its folders, short of their '/'.
   */
  boolean matches(String text) {
    int count = tokens.length;
    boolean[] current = new boolean[count + 1];
    boolean[] within = new boolean[count];
    boolean[] next = new boolean[count + 1];
    boolean[] nextWithin = new boolean[count];
    current[0] = true;
    closeOverEmpty(current);
    for (int at = 0; at < text.length(); ) {
      int c = text.codePointAt(at);
      at += Character.charCount(c);
      Arrays.fill(next, false);
      Arrays.fill(nextWithin, false);
      boolean alive = false;
      for (int i = 0; i < count; i++) {
        if (!current[i] && !within[i]) {
          continue;
        }
        switch (tokens[i]) {
          case Literal literal -> next[i + 1] |= literal.codePoint() == c;
          case OneOf one -> next[i + 1] |= c != '/' && one.characterClass().matcher(Character.toString(c)).matches();
          case Star star -> next[i] |= c != '/';
          case Everything everything -> next[i] = true;
          case AnyFolders folders -> {
            nextWithin[i] = true;
            next[i + 1] |= c == '/';
          }
        }
        alive |= next[i] || next[i + 1] || nextWithin[i];
      }
      if (!alive) {
        return false;
      }
      closeOverEmpty(next);
      boolean[] swap = current;
      current = next;
      next = swap;
      swap = within;
      within = nextWithin;
      nextWithin = swap;
    }
    return current[count];
  }

  /** Adds the positions reached by tokens that may match nothing. */
  private void closeOverEmpty(boolean[] states) {
    for (int i = 0; i < tokens.length; i++) {
      if (states[i] && !(tokens[i] instanceof Literal) && !(tokens[i] instanceof OneOf)) {
        states[i + 1] = true;
      }
    }
  }

  /** {@code glob} compiled; {@code where} (" (line N of FILE)") goes into the refusal of a bad bracket. */
  static Glob compile(String glob, String where) {
    List<Token> tokens = new ArrayList<>();
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
          tokens.add(new AnyFolders()); // "**/": any folders, none included
          i = after + 1;
        } else if (stars >= 2 && startOfComponent && after == glob.length()) {
          tokens.add(new Everything()); // a trailing "**": everything below
          i = after;
        } else {
          tokens.add(new Star());
          i = after;
        }
      } else if (c == '?') {
        tokens.add(new OneOf(ANY_CHARACTER));
        i++;
      } else if (c == '[') {
        int end = bracketEnd(glob, i);
        if (end < 0) {
          tokens.add(new Literal('['));
          i++;
        } else {
          tokens.add(new OneOf(Pattern.compile(bracket(glob.substring(i + 1, end), where), Pattern.DOTALL)));
          i = end + 1;
        }
      } else if (c == '\\' && i + 1 < glob.length()) {
        int escaped = glob.codePointAt(i + 1);
        tokens.add(new Literal(escaped));
        i += 1 + Character.charCount(escaped);
      } else {
        int literal = glob.codePointAt(i);
        tokens.add(new Literal(literal));
        i += Character.charCount(literal);
      }
    }
    return new Glob(tokens);
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

  /** The members of a bracket expression as a Java character class (of one character: matched in constant time). */
  private static String bracket(String members, String where) {
    StringBuilder out = new StringBuilder("[");
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
          out.append(posixClass(members.substring(i + 2, close), where));
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
        if (last < c) {
          throw new IllegalArgumentException("Invalid range: " + c + "-" + last + where + " (must go up, as a-z)");
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

  private static String posixClass(String name, String where) {
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
      default -> throw new IllegalArgumentException("Invalid character class: [:" + name + ":]" + where
          + " (must be one of alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit)");
    };
  }
}
