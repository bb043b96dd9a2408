package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What a scan found in one folder, as the state database keeps it (table {@code folder_state}, docs/formats.md
 * "Local state"): each entry in the order the walk met it, with its name, type and mode, a file's (inode, mtime, size)
 * and digest, a link's target, a subfolder's manifest digest, files and bytes; and the folder's own manifest digest,
 * files and bytes. A later scan that lstats the same entries in the same order, every file with the same (inode,
 * mtime, size), takes the folder's digest from here without encoding or hashing its manifest; a folder that changed
 * still takes the digests of its unchanged files from here, without reading the files' rows. Read in place: no object
 * per entry until one is asked for. Version 2 adds a chunked folder's chunks (what its lowest index names), so that
 * a later build takes the chunks whose entries did not change as they were; a version 1 listing is read as one
 * without chunks.
 */
final class FolderListing {
  private static final byte VERSION = 2;
  private static final byte VERSION_WITHOUT_CHUNKS = 1;
  static final byte FILE = 0;
  static final byte DIRECTORY = 1;
  static final byte LINK = 2;
  private static final HexFormat HEX = HexFormat.of();
  /** Version, digest (32 bytes and the manifest's length), files, bytes, chunked, entry count. */
  private static final int HEADER = 1 + 32 + 8 + 8 + 8 + 1 + 4;
  /** A chunk without its first name: the name's length, SHA-256, length, entries, files and bytes. */
  private static final int CHUNK_MIN = 4 + 32 + 8 * 4;
  /** The smallest entry: a name's length, type, mode and a link target's length. */
  private static final int MIN_ENTRY = 4 + 1 + 2 + 4;

  private final ByteBuffer data;
  /** Where each entry starts: the length of its name. */
  private final int[] offsets;
  /** Where the chunk list starts (after the entries), or -1 in a version 1 listing. */
  private final int chunksAt;
  private Map<String, Integer> byName;

  private FolderListing(ByteBuffer data, int[] offsets, int chunksAt) {
    this.data = data;
    this.offsets = offsets;
    this.chunksAt = chunksAt;
  }

  /** The listing these bytes hold, or null when they are not one this version wrote (the folder is built again). */
  static FolderListing decode(byte[] bytes) {
    try {
      ByteBuffer data = ByteBuffer.wrap(bytes);
      byte version = bytes.length < HEADER ? 0 : data.get(0);
      if (version != VERSION && version != VERSION_WITHOUT_CHUNKS) {
        return null;
      }
      int count = data.getInt(HEADER - 4);
      if (count < 0 || count > (bytes.length - HEADER) / MIN_ENTRY) {
        return null; // damaged: never an array of a count the bytes cannot hold
      }
      int[] offsets = new int[count];
      int at = HEADER;
      for (int i = 0; i < count; i++) {
        offsets[i] = at;
        at += 4 + data.getInt(at);
        byte type = data.get(at);
        at += 3;
        at += switch (type) {
          case FILE -> 24 + 32;
          case DIRECTORY -> 32 + 24;
          case LINK -> 4 + data.getInt(at);
          default -> throw new IndexOutOfBoundsException();
        };
      }
      int chunksAt = -1;
      if (version == VERSION) {
        chunksAt = at;
        int chunks = data.getInt(at);
        if (chunks < 0 || chunks > (bytes.length - at) / CHUNK_MIN) {
          return null;
        }
        at += 4;
        for (int i = 0; i < chunks; i++) {
          at += 4 + data.getInt(at) + CHUNK_MIN - 4;
        }
      }
      return at == bytes.length ? new FolderListing(data, offsets, chunksAt) : null;
    } catch (IndexOutOfBoundsException e) {
      return null;
    }
  }

  int count() {
    return offsets.length;
  }

  Digest digest() {
    return new Digest(HEX.formatHex(data.array(), 1, 33), data.getLong(33));
  }

  long files() {
    return data.getLong(41);
  }

  long bytes() {
    return data.getLong(49);
  }

  /** Whether the folder was stored as chunks: its digest is then never taken from here. */
  boolean chunked() {
    return data.get(57) != 0;
  }

  /** A chunked folder's chunks when it was built (Manifest#chunks): empty when not chunked or not recorded. */
  List<ChunkIndex.Chunk> chunks() {
    if (chunksAt < 0) {
      return List.of();
    }
    int count = data.getInt(chunksAt);
    List<ChunkIndex.Chunk> chunks = new ArrayList<>(count);
    int at = chunksAt + 4;
    for (int i = 0; i < count; i++) {
      int length = data.getInt(at);
      String first = new String(data.array(), at + 4, length, StandardCharsets.UTF_8);
      at += 4 + length;
      Digest digest = new Digest(HEX.formatHex(data.array(), at, at + 32), data.getLong(at + 32));
      chunks.add(new ChunkIndex.Chunk(first, digest, data.getLong(at + 40), data.getLong(at + 48),
          data.getLong(at + 56)));
      at += 64;
    }
    return chunks;
  }

  /** Whether entry {@code i} is named {@code name}; without decoding the name when it is ASCII. */
  boolean isNamed(int i, String name) {
    int length = data.getInt(offsets[i]);
    int start = offsets[i] + 4;
    if (length != name.length()) {
      return length > name.length() && new String(data.array(), start, length, StandardCharsets.UTF_8).equals(name);
    }
    byte[] array = data.array();
    for (int k = 0; k < length; k++) {
      byte b = array[start + k];
      if (b < 0) {
        return new String(array, start, length, StandardCharsets.UTF_8).equals(name);
      }
      if (b != name.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  String name(int i) {
    return new String(data.array(), offsets[i] + 4, data.getInt(offsets[i]), StandardCharsets.UTF_8);
  }

  /** The index of the entry named {@code name}, or -1. */
  synchronized int indexOf(String name) {
    if (byName == null) {
      byName = new HashMap<>();
      for (int i = 0; i < offsets.length; i++) {
        byName.put(name(i), i);
      }
    }
    return byName.getOrDefault(name, -1);
  }

  private int afterName(int i) {
    return offsets[i] + 4 + data.getInt(offsets[i]);
  }

  byte type(int i) {
    return data.get(afterName(i));
  }

  int mode(int i) {
    return data.getShort(afterName(i) + 1);
  }

  /** Whether file entry {@code i} was recorded with this (inode, mtime, size). */
  boolean sameFile(int i, FileIdentity identity) {
    int at = afterName(i) + 3;
    return data.getLong(at) == identity.inode() && data.getLong(at + 8) == identity.mtimeNanos()
        && data.getLong(at + 16) == identity.size();
  }

  /** A file entry's content, or a folder entry's manifest. */
  Digest digest(int i) {
    int at = afterName(i) + 3;
    return type(i) == FILE ? new Digest(HEX.formatHex(data.array(), at + 24, at + 56), data.getLong(at + 16))
        : new Digest(HEX.formatHex(data.array(), at, at + 32), data.getLong(at + 32));
  }

  /** Whether folder entry {@code i} was recorded with this manifest digest, files and bytes. */
  boolean sameFolder(int i, Digest digest, long files, long bytes) {
    int at = afterName(i) + 3;
    return data.getLong(at + 32) == digest.size() && data.getLong(at + 40) == files
        && data.getLong(at + 48) == bytes && HEX.formatHex(data.array(), at, at + 32).equals(digest.hex());
  }

  String target(int i) {
    int at = afterName(i) + 3;
    return new String(data.array(), at + 4, data.getInt(at), StandardCharsets.UTF_8);
  }

  /** Writes a listing, entry by entry in the walk's order. */
  static final class Writer {
    private final ByteArrayOutputStream bytes;
    private final DataOutputStream out;
    private int count;

    Writer(int expectedEntries) {
      bytes = new ByteArrayOutputStream(HEADER + expectedEntries * 72);
      out = new DataOutputStream(bytes);
      try {
        out.write(new byte[HEADER]); // filled in by finish
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void start(String name, byte type, int mode) throws IOException {
      byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
      out.writeInt(utf8.length);
      out.write(utf8);
      out.writeByte(type);
      out.writeShort(mode);
      count++;
    }

    void file(String name, int mode, FileIdentity identity, Digest digest) {
      try {
        start(name, FILE, mode);
        out.writeLong(identity.inode());
        out.writeLong(identity.mtimeNanos());
        out.writeLong(identity.size());
        out.write(HEX.parseHex(digest.hex()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void directory(String name, int mode, Digest digest, long files, long totalBytes) {
      try {
        start(name, DIRECTORY, mode);
        out.write(HEX.parseHex(digest.hex()));
        out.writeLong(digest.size());
        out.writeLong(files);
        out.writeLong(totalBytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void link(String name, String target) {
      try {
        start(name, LINK, 0);
        byte[] utf8 = target.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Entry {@code i} of {@code listing} as it is there. */
    void copy(FolderListing listing, int i) {
      int start = listing.offsets[i];
      int end = i + 1 < listing.offsets.length ? listing.offsets[i + 1]
          : listing.chunksAt >= 0 ? listing.chunksAt : listing.data.capacity();
      try {
        out.write(listing.data.array(), start, end - start);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      count++;
    }

    /**
     * The listing's bytes, with the folder's manifest digest, files and bytes, and its chunks ({@code chunks}: empty
     * for a folder of one manifest).
     */
    byte[] finish(Digest digest, long files, long totalBytes, boolean chunked, List<ChunkIndex.Chunk> chunks) {
      try {
        out.writeInt(chunks.size());
        for (ChunkIndex.Chunk chunk : chunks) {
          byte[] first = chunk.first().getBytes(StandardCharsets.UTF_8);
          out.writeInt(first.length);
          out.write(first);
          out.write(HEX.parseHex(chunk.digest().hex()));
          out.writeLong(chunk.digest().size());
          out.writeLong(chunk.entries());
          out.writeLong(chunk.files());
          out.writeLong(chunk.bytes());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] result = bytes.toByteArray();
      ByteBuffer header = ByteBuffer.wrap(result);
      header.put(0, VERSION);
      header.put(1, HEX.parseHex(digest.hex()));
      header.putLong(33, digest.size());
      header.putLong(41, files);
      header.putLong(49, totalBytes);
      header.put(57, (byte) (chunked ? 1 : 0));
      header.putInt(58, count);
      return result;
    }
  }
}
