package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The one rule for a host path a privileged process uses on a node (the NodeCache agent's mount roots, mount points,
 * cache folders and sources): the path must lie under one of the roots the cluster admin chose, and it is walked from
 * that root one component at a time without following anything. A symbolic link on the way is refused, and so is a
 * mount the caller did not make (a file system other than its parent's, or a path the mount table lists): otherwise
 * an image left mounted under a root, or a link on shared storage, could lead the path anywhere on the node. Missing
 * folders are created by the walk itself, mode 0755, never through a link.
 *
 * <p>The roots themselves are the admin's and trusted. A folder checked by the walk may be swapped for a link
 * afterwards by whoever writes to the storage (from another machine, say), so a file is looked up once: {@link #file}
 * records the identity of the file it checked, and every later use verifies that it acts on that very file
 * ({@link #open} here; a loop device's backing file in {@code Mounts}).
 */
public final class RootedPaths {
  private final List<Path> roots;
  private final Consumer<Path> afterCheck;

  /** The paths under {@code roots} (normalized absolute folders). */
  public RootedPaths(List<Path> roots) {
    for (Path root : roots) {
      if (!root.isAbsolute() || !root.normalize().equals(root)) {
        throw new IllegalArgumentException("Invalid root: " + root + " (must be a normalized absolute path)");
      }
    }
    this.roots = List.copyOf(roots);
    this.afterCheck = path -> {};
  }

  private RootedPaths(List<Path> roots, Consumer<Path> afterCheck) {
    this.roots = roots;
    this.afterCheck = afterCheck;
  }

  /**
   * These roots, calling {@code hook} with each file {@link #file} checked, before it returns: for tests that change
   * the tree between a check and a use.
   */
  public RootedPaths afterEachCheck(Consumer<Path> hook) {
    return new RootedPaths(roots, hook);
  }

  /** A regular file as {@link #file} checked it: its path, and which file that was. */
  public record CheckedFile(Path path, FileIdentity identity) {}

  /**
   * A channel open on a {@link CheckedFile} and what the open file is ({@code fstat}): its size and modification time
   * are those of the checked file, never of one put at its path since.
   */
  public record OpenFile(FileChannel channel, BasicFileAttributes attributes) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /**
   * The mounts a walk may meet: every mount point of the node ({@code /proc/self/mountinfo}), and those of them the
   * caller made (which it may pass).
   */
  public record KnownMounts(Set<Path> points, Predicate<Path> own) {
    /** No mount is known to the caller, and none is its own: a walk detects mounts by their file system alone. */
    public static final KnownMounts NONE_OWN = new KnownMounts(Set.of(), path -> false);
  }

  public List<Path> roots() {
    return roots;
  }

  /** Whether {@code path} is one of the roots or lies under one, by name. */
  public boolean contains(Path path) {
    return roots.stream().anyMatch(path.normalize()::startsWith);
  }

  /**
   * {@code path} as a real folder: each component under its root is a folder or is created as one (0755); none is
   * a link or a mount that is not the caller's.
   *
   * @throws IOException "Cannot use PATH: ..." naming the component refused
   */
  public Path folder(Path path, KnownMounts mounts) throws IOException {
    return walk(path, mounts, true);
  }

  /**
   * {@code path}, whose every component exists and none is a link or a mount that is not the caller's; the last may be
   * a file.
   *
   * @throws NoSuchFileException when a component does not exist
   * @throws IOException "Cannot use PATH: ..." naming the component refused
   */
  public Path existing(Path path, KnownMounts mounts) throws IOException {
    return walk(path, mounts, false);
  }

  /**
   * {@code path}, checked like {@link #existing} and a regular file, with its identity from the same look-up.
   *
   * @throws NoSuchFileException when a component does not exist
   * @throws IOException "Cannot use PATH: ..." naming the component refused
   */
  public CheckedFile file(Path path, KnownMounts mounts) throws IOException {
    Path file = walk(path, mounts, false);
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IOException(refusal(path, "it is not a regular file"));
    }
    CheckedFile checked = new CheckedFile(file, FileIdentity.of(file));
    afterCheck.accept(file);
    return checked;
  }

  /**
   * Opens {@code file} for reading, verified to be the file that was checked: the path is opened again by name (Java
   * has no openat), so whatever it names now is compared by identity with what the check saw.
   *
   * @throws IOException "Cannot use PATH: it was replaced ..." when the path names another file now
   */
  public OpenFile open(CheckedFile file) throws IOException {
    // Looked at before it is opened too: a FIFO put in its place would block the open itself.
    requireSame(file, FileIdentity.of(file.path(), new LinkOption[0]));
    FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    try {
      OpenDescriptors.Opened opened = OpenDescriptors.describe(channel);
      requireSame(file, opened.identity());
      return new OpenFile(channel, opened.attributes());
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static void requireSame(CheckedFile file, FileIdentity now) throws IOException {
    if (!now.equals(file.identity())) {
      throw new IOException(refusal(file.path(), "it was replaced after it was checked (it named " + file.identity()
          + ", now " + now + "): a folder on the way was swapped, perhaps for a link"));
    }
  }

  private Path walk(Path path, KnownMounts mounts, boolean create) throws IOException {
    Path root = rootOf(path);
    BasicFileAttributes rootAttributes = attributes(root, path, create);
    if (!rootAttributes.isDirectory()) {
      throw new IOException(refusal(path, root + " is not a folder"));
    }
    Object device = device(root);
    Path current = root;
    Path rest = root.relativize(path.normalize());
    int count = rest.toString().isEmpty() ? 0 : rest.getNameCount();
    for (int i = 0; i < count; i++) {
      Path next = current.resolve(rest.getName(i));
      boolean last = i == count - 1;
      BasicFileAttributes attributes = attributes(next, path, create);
      if (attributes.isSymbolicLink()) {
        throw new IOException(refusal(path, next + " is a symbolic link, which is never followed under the roots"
            + " the cluster admin allows"));
      }
      if (!attributes.isDirectory() && (create || !last)) {
        throw new IOException(refusal(path, next + " is not a folder"));
      }
      Object nextDevice = device(next);
      boolean mount = !nextDevice.equals(device) || mounts.points().contains(next);
      if (mount && !mounts.own().test(next)) {
        throw new IOException(refusal(path, next + " is a mount this agent did not make (an image left mounted by"
            + " an agent that is gone, or a mount made by hand); unmount it"));
      }
      device = nextDevice;
      current = next;
    }
    return current;
  }

  private Path rootOf(Path path) throws IOException {
    Path normal = path.normalize();
    if (!path.isAbsolute() || !normal.equals(path)) {
      throw new IOException(refusal(path, "it is not a normalized absolute path"));
    }
    return roots.stream().filter(normal::startsWith).findFirst().orElseThrow(() -> new IOException(refusal(path,
        "it is not under " + roots.stream().map(Path::toString).collect(Collectors.joining(" or "))
            + ", the roots the cluster admin allows")));
  }

  /** The attributes of {@code component} itself; a missing folder is made first when {@code create}. */
  private static BasicFileAttributes attributes(Path component, Path path, boolean create) throws IOException {
    try {
      return Files.readAttributes(component, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      if (!create) {
        throw e;
      }
    }
    try {
      // mkdir never follows a link at the name itself; the mode is set apart, since the umask would narrow it.
      Files.createDirectory(component);
      Files.setPosixFilePermissions(component, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (FileAlreadyExistsException raced) {
      // Made by someone else meanwhile: looked at below like anything found there.
    }
    return Files.readAttributes(component, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  private static Object device(Path path) throws IOException {
    return Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS);
  }

  private static String refusal(Path path, String reason) {
    return "Cannot use " + path + ": " + reason;
  }
}
