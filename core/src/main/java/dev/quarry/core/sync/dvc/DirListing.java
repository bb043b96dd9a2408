package dev.quarry.core.sync.dvc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A DVC 3 folder listing (the {@code <md5>.dir} object): a JSON array of {@code {"md5": ..., "relpath": ...}}, one per
 * file. Nothing in it is trusted: every relpath must be a relative path of real names (no empty, ".", ".."
 * component, no leading '/', no '\', no NUL, no sync state folder), none may repeat or be both a file and a folder
 * on another's way, and the listing may hold no more files than its .dvc file declares (or this JVM can hold).
 * Messages name the listing by its md5 and never quote more than the offending path.
 */
public record DirListing(List<Entry> entries) {
  private static final JsonFactory JSON =
      JsonFactory.builder().disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

  /** One file of the folder. */
  public record Entry(String relpath, String md5) {}

  public DirListing {
    entries = List.copyOf(entries);
  }

  /** Parses and checks listing bytes (verified against their md5 by the caller); at most {@code maxFiles} entries. */
  public static DirListing parse(DvcHash hash, byte[] data, long maxFiles) {
    String what = "Invalid .dir listing " + hash + ": ";
    List<Entry> entries = new ArrayList<>();
    try (JsonParser parser = JSON.createParser(data)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw new IllegalArgumentException(what + "not a JSON array");
      }
      while (parser.nextToken() == JsonToken.START_OBJECT) {
        if (entries.size() >= maxFiles) {
          throw new IllegalArgumentException(what + "it holds more than " + maxFiles + " files (at most what its"
              + " .dvc file declares, and what this JVM can hold)");
        }
        String md5 = null;
        String relpath = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String field = parser.currentName();
          JsonToken value = parser.nextToken();
          if (field.equals("md5") && value == JsonToken.VALUE_STRING) {
            md5 = parser.getText();
          } else if (field.equals("relpath") && value == JsonToken.VALUE_STRING) {
            relpath = parser.getText();
          } else {
            parser.skipChildren(); // DVC may add fields (isexec, size): they name nothing we write
          }
        }
        if (relpath == null || md5 == null) {
          throw new IllegalArgumentException(what + "entry " + (entries.size() + 1) + " lacks its md5 or relpath");
        }
        if (!DvcHash.isMd5(md5)) {
          throw new IllegalArgumentException(what + "the md5 of " + Printable.of(relpath)
              + " is not 32 lowercase hex characters");
        }
        requireRelative(what, relpath);
        entries.add(new Entry(relpath, md5));
      }
      if (parser.currentToken() != JsonToken.END_ARRAY || parser.nextToken() != null) {
        throw new IllegalArgumentException(what + "not an array of {md5, relpath} objects");
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(what + "not JSON at byte " + e.getLocation().getByteOffset());
    } catch (IOException e) {
      throw new IllegalArgumentException(what + "cannot parse it");
    }
    requireNoCollisions(what, entries);
    return new DirListing(entries);
  }

  /** Refuses a relpath that is not relative, real names only; {@code what} starts the message. */
  static void requireRelative(String what, String relpath) {
    if (relpath.isEmpty() || relpath.startsWith("/") || relpath.indexOf('\\') >= 0 || relpath.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(what + "path " + Printable.of(relpath)
          + " is not relative (must be names joined by '/', no leading '/', no '\\' or NUL)");
    }
    for (String component : relpath.split("/", -1)) {
      if (component.isEmpty() || component.equals(".") || component.equals("..")) {
        throw new IllegalArgumentException(what + "path " + Printable.of(relpath)
            + " could escape its folder (must not have empty, . or .. components)");
      }
      if (component.equals(SyncSession.DEFAULT_STATE_FOLDER)) {
        throw new IllegalArgumentException(what + "path " + Printable.of(relpath)
            + " names a sync state folder, which no version may hold");
      }
    }
  }

  /** No path twice, and no file where another path needs a folder. */
  private static void requireNoCollisions(String what, List<Entry> entries) {
    Set<String> files = new HashSet<>();
    for (Entry entry : entries) {
      if (!files.add(entry.relpath())) {
        throw new IllegalArgumentException(what + "path " + Printable.of(entry.relpath()) + " is listed twice");
      }
    }
    for (Entry entry : entries) {
      String path = entry.relpath();
      for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
        if (files.contains(path.substring(0, slash))) {
          throw new IllegalArgumentException(what + "path " + Printable.of(path.substring(0, slash))
              + " is both a file and a folder");
        }
      }
    }
  }
}
