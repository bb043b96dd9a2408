package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.Manifest;
import java.nio.file.Path;
import java.util.Map;

/** A scanned folder: its manifest and its scanned subfolders by name. */
public record LocalDirectory(Path path, Manifest manifest, Map<String, LocalDirectory> subdirectories) {
  public LocalDirectory {
    subdirectories = Map.copyOf(subdirectories);
  }
}
