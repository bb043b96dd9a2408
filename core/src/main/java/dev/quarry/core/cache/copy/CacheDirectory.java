package dev.quarry.core.cache.copy;

import dev.quarry.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The node-local folder of cached images: {@code <name>.sqfs} (a verified copy), {@code <name>.json} (its
 * {@link CopyRecord}), {@code <name>.sqfs.part} and {@code <name>.part.json} (a copy in progress and the source it
 * copies). A copy appears under its final name only when whole and verified.
 */
public final class CacheDirectory {
  private static final String IMAGE = ".sqfs";
  private static final String PART = ".sqfs.part";

  private final Path root;

  public CacheDirectory(Path root) throws IOException {
    this.root = Files.createDirectories(root);
  }

  public Path root() {
    return root;
  }

  public Path image(String name) {
    return root.resolve(name + IMAGE);
  }

  Path record(String name) {
    return root.resolve(name + ".json");
  }

  Path part(String name) {
    return root.resolve(name + PART);
  }

  Path partRecord(String name) {
    return root.resolve(name + ".part.json");
  }

  /** The record of a finished copy of {@code name}, if its copy and record are both there. */
  public Optional<CopyRecord> finished(String name) throws IOException {
    Path record = record(name);
    if (!Files.exists(record) || !Files.exists(image(name))) {
      return Optional.empty();
    }
    try {
      return Optional.of(Json.read(Files.readAllBytes(record), CopyRecord.class));
    } catch (IOException e) {
      return Optional.empty(); // a torn record: the copy is redone
    }
  }

  /** Bytes of a copy in progress of {@code name}, zero when none. */
  public long partBytes(String name) throws IOException {
    Path part = part(name);
    return Files.exists(part) ? Files.size(part) : 0;
  }

  /** Deletes the copy of {@code name}, its record and any copy in progress. */
  public void delete(String name) throws IOException {
    Files.deleteIfExists(record(name));
    Files.deleteIfExists(image(name));
    Files.deleteIfExists(part(name));
    Files.deleteIfExists(partRecord(name));
  }

  /** Names of every image with a file here, finished or not. */
  public Set<String> names() throws IOException {
    Set<String> names = new HashSet<>();
    try (Stream<Path> files = Files.list(root)) {
      files.map(p -> p.getFileName().toString()).forEach(file -> {
        for (String suffix : new String[] {PART, IMAGE, ".part.json", ".json"}) {
          if (file.endsWith(suffix)) {
            names.add(file.substring(0, file.length() - suffix.length()));
            return;
          }
        }
      });
    }
    return names;
  }

  /** Bytes of every file in this folder. */
  public long usedBytes() throws IOException {
    long used = 0;
    try (Stream<Path> files = Files.list(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        try {
          used += Files.size(file);
        } catch (NoSuchFileException e) {
          // renamed or deleted by the running copy since the listing
        }
      }
    }
    return used;
  }

  static void writeAtomically(Path target, Object value) throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    Files.write(temp, Json.bytes(value));
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
