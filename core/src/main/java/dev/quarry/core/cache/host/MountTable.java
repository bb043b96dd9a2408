package dev.quarry.core.cache.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The mounts this process sees, read from {@code /proc/self/mountinfo}; the agent rebuilds its state from it. */
public final class MountTable {
  private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
  private final List<MountEntry> entries;

  private MountTable(List<MountEntry> entries) {
    this.entries = entries;
  }

  /** The current mounts. */
  public static MountTable read() throws IOException {
    return parse(Files.readAllLines(MOUNTINFO));
  }

  /** Parses mountinfo lines (see proc(5)). */
  public static MountTable parse(List<String> lines) {
    List<MountEntry> entries = new ArrayList<>();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      String[] fields = line.split(" ");
      int separator = List.of(fields).indexOf("-");
      if (fields.length < 7 || separator < 6 || separator + 2 >= fields.length) {
        throw new IllegalArgumentException("Invalid mountinfo line: " + line);
      }
      entries.add(new MountEntry(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]), fields[2],
          Path.of(unescape(fields[4])), fields[separator + 1], unescape(fields[separator + 2])));
    }
    return new MountTable(List.copyOf(entries));
  }

  /** Every mount, in the kernel's order. */
  public List<MountEntry> entries() {
    return entries;
  }

  /**
   * The mounts stacked on {@code mountPoint}, lowest first: each one after the first is mounted over the one before
   * (its parent). Several independent stacks on one path (a bind mount of the parent) are not ours to manage; the
   * first stack found is returned.
   */
  public List<MountEntry> stackAt(Path mountPoint) {
    List<MountEntry> at = entries.stream().filter(e -> e.mountPoint().equals(mountPoint)).toList();
    Optional<MountEntry> bottom = at.stream()
        .filter(e -> at.stream().noneMatch(other -> other.id() == e.parentId()))
        .findFirst();
    List<MountEntry> stack = new ArrayList<>();
    Optional<MountEntry> next = bottom;
    while (next.isPresent()) {
      MountEntry current = next.get();
      stack.add(current);
      next = at.stream().filter(e -> e.parentId() == current.id()).findFirst();
    }
    return stack;
  }

  /** Every mount point, each once. */
  public Set<Path> mountPoints() {
    return entries.stream().map(MountEntry::mountPoint).collect(Collectors.toUnmodifiableSet());
  }

  /** Mount points directly under {@code root}, each once. */
  public List<Path> mountPointsUnder(Path root) {
    return entries.stream()
        .map(MountEntry::mountPoint)
        .filter(point -> root.equals(point.getParent()))
        .distinct()
        .toList();
  }

  /** mountinfo escapes space, tab, newline and backslash as three octal digits. */
  static String unescape(String field) {
    if (field.indexOf('\\') < 0) {
      return field;
    }
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && isOctal(field, i + 1)) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean isOctal(String s, int from) {
    if (from + 3 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '7') {
        return false;
      }
    }
    return true;
  }
}
