package dev.quarry.core.sync.cas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quarry.core.json.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * One update of a ref, appended to its log ({@code refs-log/<ref>/<newest-first-time>-<random>.json}) just before the
 * ref itself is written: who moved it, when, with what command, and from which root to which. Read back as untrusted
 * input: {@link #parse} bounds and checks every field.
 *
 * @param previousRoot the root the ref named before, null for a new ref
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"format", "ref", "at", "by", "command", "previousRoot", "previousRootSize", "root", "rootSize",
    "files", "bytes"})
public record RefLogEntry(String format, String ref, String at, String by, String command, String previousRoot,
    Long previousRootSize, String root, long rootSize, long files, long bytes) {
  public static final String FORMAT = "quarry-ref-log/1";
  /** The most an entry may take on the remote; a larger object is refused unread. */
  public static final int MAX_BYTES = 8 << 10;
  private static final int MAX_TEXT = 1024;

  /**
   * An entry for a move of {@code ref} to {@code next}. {@code by} must pass {@link #requireAuthor}; the command is
   * made printable and cut to size (a folder name may hold anything), so that every entry written can be read.
   */
  public static RefLogEntry of(String ref, Instant at, String by, String command, Digest previous, Ref next) {
    requireAuthor(by);
    String shown = printable(command);
    shown = shown.isEmpty() ? "?" : shown.substring(0, shown.offsetByCodePoints(0,
        Math.min(shown.codePointCount(0, shown.length()), MAX_TEXT)));
    return new RefLogEntry(FORMAT, ref, at.toString(), by, shown, previous != null ? previous.text() : null,
        previous != null ? previous.size() : null, next.root(), next.rootSize(), next.files(), next.bytes());
  }

  /** Refuses a name for the log's {@code by} that is empty, longer than 1024 characters or unprintable. */
  public static String requireAuthor(String by) {
    if (by == null || by.isEmpty() || by.length() > MAX_TEXT || !by.equals(printable(by))) {
      throw new IllegalArgumentException("Invalid author for the ref log: " + printable(by) + " (must be 1 to "
          + MAX_TEXT + " printable characters)");
    }
    return by;
  }

  /** Parses and checks an entry read from {@code key}, which must belong to {@code ref}'s log. */
  public static RefLogEntry parse(String key, String ref, byte[] json) throws IOException {
    if (json.length > MAX_BYTES) {
      throw invalid(key, "larger than " + MAX_BYTES + " bytes");
    }
    RefLogEntry entry;
    try {
      entry = Json.read(json, RefLogEntry.class);
    } catch (IOException e) {
      throw invalid(key, "not a Quarry ref log entry");
    }
    if (!FORMAT.equals(entry.format())) {
      throw invalid(key, "format " + printable(entry.format()) + " (must be " + FORMAT + "; a newer Quarry wrote it?)");
    }
    if (!ref.equals(entry.ref())) {
      throw invalid(key, "it names ref " + printable(entry.ref()) + " (must be " + ref + ")");
    }
    try {
      Instant.parse(String.valueOf(entry.at()));
      entry.rootDigest();
      entry.previousDigest();
    } catch (DateTimeParseException | IllegalArgumentException e) {
      throw invalid(key, "a bad time or digest");
    }
    if (entry.files() < 0 || entry.bytes() < 0) {
      throw invalid(key, "negative totals");
    }
    requireText(key, "by", entry.by());
    requireText(key, "command", entry.command());
    return entry;
  }

  public Instant time() {
    return Instant.parse(at);
  }

  public Digest rootDigest() {
    return new Digest(Digest.parseHex(String.valueOf(root)), rootSize);
  }

  public Optional<Digest> previousDigest() {
    if (previousRoot == null && previousRootSize == null) {
      return Optional.empty();
    }
    if (previousRoot == null || previousRootSize == null) {
      throw new IllegalArgumentException("Invalid previous root: " + previousRoot + " of size " + previousRootSize);
    }
    return Optional.of(new Digest(Digest.parseHex(previousRoot), previousRootSize));
  }

  public byte[] toJson() {
    return Json.bytes(this);
  }

  private static void requireText(String key, String field, String value) throws IOException {
    if (value == null || value.isEmpty() || value.length() > MAX_TEXT || !value.equals(printable(value))) {
      throw invalid(key, "a missing, long or unprintable " + field);
    }
  }

  /**
   * The value with control and format characters (such as bidirectional overrides) replaced by '?', so that a hostile
   * entry cannot forge terminal output.
   */
  public static String printable(String value) {
    return value == null ? null : value.codePoints()
        .map(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? '?' : c)
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
  }

  private static IOException invalid(String key, String reason) {
    return new IOException("Invalid ref log entry " + key + ": " + reason + " (must be " + FORMAT
        + " JSON as docs/formats.md describes; delete it if Quarry did not write it)");
  }
}
