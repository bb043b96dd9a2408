package dev.quarry.core.memory;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The most memory this process may use, as the kernel enforces it: the memory limit of its cgroup (cgroup v2
 * {@code memory.max}, or v1 {@code memory.limit_in_bytes}), the lowest of its cgroup and the ancestors it can see,
 * else the machine's physical memory ({@code MemTotal} of {@code /proc/meminfo}). In a Kubernetes pod that is the
 * container's memory limit; without one, the node's memory. This is what the JVM sizes its own defaults from
 * ({@code -XX:MaxRAMPercentage}).
 *
 * @param source where the figure comes from, for messages: the file read
 */
public record MemoryLimit(long bytes, String source) {
  /** cgroup v1 writes a huge page-aligned number for "no limit"; anything this large is none. */
  private static final long UNLIMITED = 1L << 62;

  /** The limit of this process, read from the real /proc and /sys. */
  public static MemoryLimit ofThisProcess() {
    return Holder.THIS_PROCESS;
  }

  /**
   * The limit of the process whose {@code /proc/self} and cgroup file systems are found under {@code root} (a fake
   * tree in tests, {@code /} for this process).
   */
  public static MemoryLimit read(Path root) {
    try {
      MemoryLimit physical = physicalMemory(root);
      return cgroupLimit(root).filter(limit -> limit.bytes() < physical.bytes()).orElse(physical);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read this process's memory limit: " + e.getMessage(), e);
    }
  }

  private static MemoryLimit physicalMemory(Path root) throws IOException {
    Path meminfo = root.resolve("proc/meminfo");
    if (!Files.isReadable(meminfo)) {
      // Not Linux (a laptop running ./quarry): the JVM asks the operating system.
      return new MemoryLimit(ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getTotalMemorySize(),
          "the operating system");
    }
    for (String line : Files.readAllLines(meminfo)) {
      if (line.startsWith("MemTotal:")) {
        String[] fields = line.trim().split("\\s+");
        return new MemoryLimit(Long.parseLong(fields[1]) * 1024, "/proc/meminfo");
      }
    }
    throw new IOException(meminfo + " has no MemTotal line");
  }

  /**
   * The lowest limit on the way from this process's cgroup up to the root of its hierarchy: v2 where the process's
   * cgroup has a memory.max, else the v1 memory controller's hierarchy.
   */
  private static Optional<MemoryLimit> cgroupLimit(Path root) throws IOException {
    Path cgroups = root.resolve("proc/self/cgroup");
    Path mountinfo = root.resolve("proc/self/mountinfo");
    if (!Files.isReadable(cgroups) || !Files.isReadable(mountinfo)) {
      return Optional.empty();
    }
    List<String> memberships = Files.readAllLines(cgroups);
    List<String> mounts = Files.readAllLines(mountinfo);
    Optional<MemoryLimit> v2 = limitAlongPath(root, memberships, mounts, true, "memory.max");
    return v2.isPresent() ? v2 : limitAlongPath(root, memberships, mounts, false, "memory.limit_in_bytes");
  }

  private static Optional<MemoryLimit> limitAlongPath(Path root, List<String> memberships, List<String> mounts,
      boolean v2, String file) throws IOException {
    for (String membership : memberships) {
      // hierarchy-id:controllers:path; v2's line is 0::path, v1's memory line names the memory controller.
      String[] parts = membership.split(":", 3);
      if (parts.length < 3 || (v2 ? !parts[0].equals("0") || !parts[1].isEmpty()
          : !List.of(parts[1].split(",")).contains("memory"))) {
        continue;
      }
      Optional<Mount> mount = mounts.stream().map(Mount::parse).flatMap(Optional::stream)
          .filter(m -> v2 ? m.type().equals("cgroup2")
              : m.type().equals("cgroup") && List.of(m.options().split(",")).contains("memory"))
          .findFirst();
      if (mount.isEmpty()) {
        continue;
      }
      Path top = root.resolve(mount.get().point().substring(1));
      Path dir = top;
      String path = parts[2];
      String mountRoot = mount.get().root();
      // Without a cgroup namespace the path is the whole path, and the mount shows the hierarchy from its root.
      if (path.startsWith(mountRoot)) {
        String relative = path.substring(mountRoot.length()).replaceFirst("^/+", "");
        dir = relative.isEmpty() ? top : top.resolve(relative);
      }
      Optional<MemoryLimit> lowest = Optional.empty();
      for (Path at = dir; at != null && at.startsWith(top); at = at.getParent()) {
        Optional<Long> limit = readLimit(at.resolve(file));
        if (limit.isPresent() && (lowest.isEmpty() || limit.get() < lowest.get().bytes())) {
          lowest = Optional.of(new MemoryLimit(limit.get(), "/" + root.relativize(at.resolve(file))));
        }
      }
      return lowest;
    }
    return Optional.empty();
  }

  private static Optional<Long> readLimit(Path file) throws IOException {
    if (!Files.isReadable(file)) {
      return Optional.empty();
    }
    String value = Files.readString(file).trim();
    if (value.equals("max") || value.isEmpty()) {
      return Optional.empty();
    }
    // A value that is no number (a kernel or container runtime writing something new) limits nothing this can
    // tell: the next file up, else the physical memory, is the limit, as when the file is missing.
    if (!value.matches("[0-9]{1,19}")) {
      return Optional.empty();
    }
    long bytes = Long.parseLong(value);
    return bytes >= UNLIMITED ? Optional.empty() : Optional.of(bytes);
  }

  /** One line of /proc/self/mountinfo: what is mounted where, and its file system type and super options. */
  private record Mount(String root, String point, String type, String options) {
    static Optional<Mount> parse(String line) {
      String[] halves = line.split(" - ", 2);
      String[] fields = halves[0].split(" ");
      if (halves.length < 2 || fields.length < 5) {
        return Optional.empty();
      }
      String[] tail = halves[1].split(" ");
      return Optional.of(new Mount(unescape(fields[3]), unescape(fields[4]), tail[0],
          tail.length > 2 ? tail[2] : ""));
    }

    /** mountinfo writes a space, tab, newline and backslash in paths as octal escapes. */
    private static String unescape(String path) {
      return path.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }
  }

  /** Read once: a process's limit does not change while it runs, and every phase asks. */
  private static final class Holder {
    static final MemoryLimit THIS_PROCESS = read(Path.of("/"));
  }
}
