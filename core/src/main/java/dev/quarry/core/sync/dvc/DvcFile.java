package dev.quarry.core.sync.dvc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one output a DVC 3 {@code .dvc} file tracks (docs/formats.md, "DVC layouts, as read"): its {@code md5} (of a
 * file, or {@code <md5>.dir} of a folder's listing), {@code size} (bytes of all its files), {@code nfiles} and
 * {@code path}. DVC 2 files (no {@code hash: md5}) hashed text with its line endings normalized, so their md5s name
 * other bytes than the files': they are refused.
 *
 * @param size bytes of all its files: every read from the remote is bounded by it, so a .dvc file without it is
 *     refused; -1 only for a version named by its md5 alone ({@code import-dvc --md5}: each object bounded by a HEAD)
 * @param files files of a folder, -1 when the file does not say (or for a file)
 */
public record DvcFile(DvcHash hash, long size, long files, String path) {
  /** A .dvc file is a few lines; anything larger is not one. */
  private static final long MAX_BYTES = 1 << 20;
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String NO_SIZE = "its out has no size (must declare the bytes it tracks, as DVC 3 always writes:"
      + " every read from the remote is bounded by it)";

  public static DvcFile read(Path file) throws IOException {
    if (Files.size(file) > MAX_BYTES) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": larger than 1 MiB (must be DVC's few lines)");
    }
    JsonNode root;
    try {
      root = YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": not YAML");
    }
    JsonNode outs = root != null ? root.get("outs") : null;
    if (outs == null || !outs.isArray() || outs.size() != 1) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": " + (outs == null || !outs.isArray()
          ? "no outs list" : outs.size() + " outs") + " (must track exactly one file or folder)");
    }
    JsonNode out = outs.get(0);
    String hash = text(out, "hash");
    if (!"md5".equals(hash)) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": " + (hash == null ? "no hash field"
          : "hash " + Printable.of(hash)) + " (must be hash: md5, as DVC 3 writes; a DVC 2 file? re-add the data with"
          + " DVC 3)");
    }
    long size = number(file, out, "size");
    if (size < 0) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": " + NO_SIZE);
    }
    return new DvcFile(DvcHash.parse(text(out, "md5")), size, number(file, out, "nfiles"), text(out, "path"));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.asText() : null;
  }

  private static long number(Path file, JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null) {
      return -1;
    }
    if (!value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
      throw new IllegalArgumentException("Invalid .dvc file " + file + ": " + field + " is not a count"
          + " (must be a whole number of 0 or more)");
    }
    return value.asLong();
  }
}
