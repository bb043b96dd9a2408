package dev.quarry.core.cache.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quarry.core.cache.copy.CacheDirectory;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import dev.quarry.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What one owner (a NodeCache) has on a node, and nothing more: its folder {@code <cacheDirectory>/<owner>}, marked
 * with its name and UID when the agent created it (a NodeCache recreated under the same name is another owner), with its copies in {@code copies/}, and the record of every mount point its
 * agent mounted on ({@code mounts.json}, written before each mount). Its folders are resolved inside the admin's
 * cache roots without following a link. An agent unmounts and deletes only what this
 * names, so two NodeCaches sharing the roots, or files and mounts of anyone else there, are never touched.
 */
public final class OwnedPaths {
  static final String MARKER = ".quarry-nodecache";
  private static final String MOUNTS = "mounts.json";
  private static final String COPIES = "copies";

  private final Path folder;
  private final CacheDirectory copies;
  /** Each recorded mount point with the files (device and inode) mounted there; null for a record that names none. */
  private final TreeMap<Path, Set<FileIdentity>> mountPoints;

  private OwnedPaths(Path folder, CacheDirectory copies, TreeMap<Path, Set<FileIdentity>> mountPoints) {
    this.folder = folder;
    this.copies = copies;
    this.mountPoints = mountPoints;
  }

  /**
   * The folder of {@code owner}, the NodeCache with UID {@code uid}, under {@code cacheDirectory}, created and marked
   * (name and UID) if it is not there. A folder of that name that holds something but not this owner's mark is
   * someone else's: it is refused, never used, and so is the folder of an earlier NodeCache of the same name (a
   * different UID, or none recorded), whose mounts and copies {@link CacheAgent#removeOwned} removes first; so is a
   * cache directory reached through a link or a foreign mount under {@code cacheRoots}.
   */
  public static OwnedPaths open(RootedPaths cacheRoots, Path cacheDirectory, String owner, String uid)
      throws IOException {
    if (uid == null || uid.isBlank() || uid.contains("\n")) {
      throw new IllegalArgumentException("Invalid UID of NodeCache " + owner + ": " + uid
          + " (must be one line, not empty)");
    }
    return open(cacheRoots, cacheDirectory, owner, Optional.of(uid));
  }

  /**
   * The marked folder of {@code owner} under {@code cacheDirectory}, whichever NodeCache of that name marked it: what
   * removing its mounts and copies reads. Nothing is created.
   */
  static OwnedPaths existing(RootedPaths cacheRoots, Path cacheDirectory, String owner) throws IOException {
    return open(cacheRoots, cacheDirectory, owner, Optional.empty());
  }

  /**
   * The UID in the mark of {@code owner}'s folder: empty when there is no marked folder of that name; {@code ""} for
   * a mark that names no UID (written before marks held one).
   */
  static Optional<String> markedUid(Path cacheDirectory, String owner) throws IOException {
    Path marker = folderOf(cacheDirectory, owner).resolve(MARKER);
    if (!Files.isRegularFile(marker, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Mark mark = Mark.read(marker);
    return mark.name().equals(owner) ? Optional.of(mark.uid()) : Optional.empty();
  }

  private static OwnedPaths open(RootedPaths cacheRoots, Path cacheDirectory, String owner, Optional<String> uid)
      throws IOException {
    Path folder = folderOf(cacheDirectory, owner);
    RootedPaths.KnownMounts noneOwn = new RootedPaths.KnownMounts(MountTable.read().mountPoints(), path -> false);
    cacheRoots.folder(cacheDirectory, noneOwn);
    if (uid.isPresent()) {
      try {
        Files.createDirectory(folder);
      } catch (FileAlreadyExistsException e) {
        // Ours if marked by us, or empty (an agent that stopped between creating and marking it).
      }
    }
    Path marker = folder.resolve(MARKER);
    if (!Files.isDirectory(folder) || Files.isSymbolicLink(folder)) {
      throw new IOException(refusal(folder, owner, "it is not a folder"));
    }
    if (Files.exists(marker)) {
      Mark mark = Mark.read(marker);
      if (!owner.equals(mark.name())) {
        throw new IOException(refusal(folder, owner, "it belongs to NodeCache " + mark.name()));
      }
      if (uid.isPresent() && !uid.get().equals(mark.uid())) {
        throw new IOException(refusal(folder, owner, "it belongs to an earlier NodeCache of that name (UID "
            + (mark.uid().isEmpty() ? "not recorded" : mark.uid()) + ")"));
      }
    } else if (uid.isPresent() && isEmpty(folder)) {
      Files.writeString(marker, owner + "\n" + uid.get() + "\n", StandardCharsets.UTF_8);
    } else {
      throw new IOException(refusal(folder, owner, "it exists and Quarry's agent did not create it"));
    }
    Path mounts = folder.resolve(MOUNTS);
    TreeMap<Path, Set<FileIdentity>> points = new TreeMap<>();
    if (Files.exists(mounts)) {
      for (JsonNode point : Json.read(Files.readAllBytes(mounts), JsonNode.class)) {
        if (point.isTextual()) { // a record written before layers were recorded
          points.put(Path.of(point.asText()), null);
        } else {
          RecordedMount recorded = Json.read(point.toString(), RecordedMount.class);
          points.put(Path.of(recorded.path()), new HashSet<>(recorded.layers()));
        }
      }
    }
    return new OwnedPaths(folder, new CacheDirectory(cacheRoots.folder(folder.resolve(COPIES), noneOwn)), points);
  }

  /** A folder's mark: the NodeCache's name on its first line, its UID on the second. */
  private record Mark(String name, String uid) {
    static Mark read(Path marker) throws IOException {
      List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
      return new Mark(lines.isEmpty() ? "" : lines.get(0).strip(), lines.size() < 2 ? "" : lines.get(1).strip());
    }
  }

  /** The owners with a marked folder under {@code cacheDirectory}: what a node reset removes. */
  public static List<String> owners(Path cacheDirectory) throws IOException {
    List<String> owners = new ArrayList<>();
    if (!Files.isDirectory(cacheDirectory)) {
      return owners;
    }
    try (Stream<Path> folders = Files.list(cacheDirectory)) {
      for (Path folder : (Iterable<Path>) folders.sorted()::iterator) {
        Path marker = folder.resolve(MARKER);
        if (Files.isDirectory(folder) && !Files.isSymbolicLink(folder) && Files.isRegularFile(marker)
            && Mark.read(marker).name().equals(folder.getFileName().toString())) {
          owners.add(folder.getFileName().toString());
        }
      }
    }
    return owners;
  }

  /**
   * Removes the owner's folder when it is there unmarked and empty (an agent that stopped between creating and marking
   * it); an unmarked folder that holds anything is not the agent's and stays.
   */
  static void removeUnmarked(Path cacheDirectory, String owner) throws IOException {
    Path folder = folderOf(cacheDirectory, owner);
    if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS) && !Files.exists(folder.resolve(MARKER))) {
      deleteEmpty(folder);
    }
  }

  private static Path folderOf(Path cacheDirectory, String owner) {
    if (owner.isEmpty() || owner.contains("/") || owner.equals(".") || owner.equals("..")) {
      throw new IllegalArgumentException("Invalid owner: " + owner + " (must be a NodeCache name)");
    }
    return cacheDirectory.resolve(owner);
  }

  private static String refusal(Path folder, String owner, String reason) {
    return "Cannot use " + folder + " as the cache folder of NodeCache " + owner + ": " + reason
        + "; move it away or set another spec.cache.directory";
  }

  private static boolean isEmpty(Path folder) throws IOException {
    try (Stream<Path> entries = Files.list(folder)) {
      return entries.findAny().isEmpty();
    }
  }

  /** The name of the NodeCache that owns these paths. */
  public String owner() {
    return folder.getFileName().toString();
  }

  /** The owner's copies. */
  public CacheDirectory copies() {
    return copies;
  }

  /** Mount points the owner's agent mounted on, and has not unmounted yet. */
  public Set<Path> mountPoints() {
    return Set.copyOf(mountPoints.keySet());
  }

  public boolean owns(Path mountPoint) {
    return mountPoints.containsKey(mountPoint);
  }

  /**
   * Whether the owner's agent mounted {@code file} (a loop device's backing file) at {@code mountPoint}: a layer it
   * may detach. A record written before layers were recorded names none, and every layer there counts as the owner's.
   */
  public boolean mounted(Path mountPoint, FileIdentity file) {
    if (!mountPoints.containsKey(mountPoint)) {
      return false;
    }
    Set<FileIdentity> layers = mountPoints.get(mountPoint);
    return layers == null || layers.contains(file);
  }

  /**
   * Records {@code file} as mounted by the owner at {@code mountPoint}; called before mounting it, so a crash never
   * loses a mount.
   */
  public void recordMount(Path mountPoint, FileIdentity file) throws IOException {
    Set<FileIdentity> layers = mountPoints.computeIfAbsent(mountPoint, point -> new HashSet<>());
    if (layers != null && layers.add(file)) {
      save();
    }
  }

  /** Forgets {@code mountPoint}, once nothing of the owner is mounted on it any more. */
  public void forgetMount(Path mountPoint) throws IOException {
    if (mountPoints.containsKey(mountPoint)) {
      mountPoints.remove(mountPoint);
      save();
    }
  }

  /** One entry of {@code mounts.json}: a mount point and the files the owner mounted there. */
  private record RecordedMount(String path, List<FileIdentity> layers) {}

  /**
   * Removes the owner's folder once its copies and mounts are gone: only the files this class writes, and folders
   * only when empty (a folder someone put inside stays, with everything in it).
   */
  public void removeFolder() throws IOException {
    for (String name : copies.names()) {
      copies.delete(name);
    }
    deleteEmpty(copies.root());
    Files.deleteIfExists(folder.resolve(MOUNTS));
    Files.deleteIfExists(folder.resolve(MARKER));
    deleteEmpty(folder);
  }

  private static void deleteEmpty(Path directory) throws IOException {
    try {
      Files.deleteIfExists(directory);
    } catch (DirectoryNotEmptyException e) {
      // not only ours: left alone
    }
  }

  private void save() throws IOException {
    Path mounts = folder.resolve(MOUNTS);
    Path temp = folder.resolve(MOUNTS + ".tmp");
    List<Object> records = new ArrayList<>();
    mountPoints.forEach((point, layers) -> records.add(layers == null ? point.toString()
        : new RecordedMount(point.toString(), layers.stream()
            .sorted(Comparator.comparingLong(FileIdentity::device).thenComparingLong(FileIdentity::inode)).toList())));
    Files.write(temp, Json.bytes(records));
    Files.move(temp, mounts, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
