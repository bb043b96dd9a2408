package dev.quarry.core.archive;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers: whole shards written to bytes, and read back as name-to-bytes maps. */
public final class Shards {
  private Shards() {}

  public static byte[] write(ShardFormat format, List<Record> records) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ShardWriter writer = ShardWriters.open(format, bytes)) {
      for (Record record : records) {
        writer.write(record);
      }
    }
    return bytes.toByteArray();
  }

  /** Every member's name and data, in stream order (a LinkedHashMap; duplicate names keep the last). */
  public static Map<String, byte[]> read(ShardFormat format, InputStream in, String shard) throws IOException {
    Map<String, byte[]> members = new LinkedHashMap<>();
    try (ShardReader reader = ShardReaders.open(format, in, shard, ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        members.put(member.name(), member.readData());
      }
    }
    return members;
  }

  public static Map<String, byte[]> read(ShardFormat format, byte[] shard) throws IOException {
    return read(format, new ByteArrayInputStream(shard), "test." + format.extension());
  }

  public static Map<String, byte[]> read(ShardFormat format, Path shard) throws IOException {
    try (InputStream in = Files.newInputStream(shard)) {
      return read(format, in, shard.getFileName().toString());
    }
  }

  /** The members of every record, as a name-to-bytes map in write order. */
  public static Map<String, byte[]> members(List<Record> records) {
    Map<String, byte[]> members = new LinkedHashMap<>();
    records.forEach(r -> r.members().forEach(m -> members.put(m.name(), m.data())));
    return members;
  }

  /** Names to a SHA-256 of the data, so maps of members compare by content. */
  public static Map<String, String> fingerprints(Map<String, byte[]> members) {
    Map<String, String> prints = new LinkedHashMap<>();
    members.forEach((name, data) -> prints.put(name, sha256(data)));
    return prints;
  }

  /** The SHA-256 of what {@code data} gives to its end, read in blocks (large members, never whole). */
  public static String sha256(InputStream data) throws IOException {
    java.security.MessageDigest digest;
    try {
      digest = java.security.MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buffer = new byte[1 << 16];
    for (int n = data.read(buffer); n >= 0; n = data.read(buffer)) {
      digest.update(buffer, 0, n);
    }
    return java.util.HexFormat.of().formatHex(digest.digest());
  }

  public static String sha256(byte[] data) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(data));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Records with an image-like and a label member each, names given by {@code keys}. */
  public static List<Record> records(List<String> keys, int imageBytes) {
    List<Record> records = new ArrayList<>();
    java.util.Random random = new java.util.Random(keys.hashCode());
    for (String key : keys) {
      byte[] image = new byte[imageBytes + random.nextInt(Math.max(1, imageBytes / 2 + 1))];
      random.nextBytes(image);
      records.add(new Record(key, List.of(new Member(key + ".cls", Integer.toString(random.nextInt(10)).getBytes()),
          new Member(key + ".jpg", image))));
    }
    return records;
  }

  /** The first header of {@code tar} with {@code value} at {@code offset} and a checksum that matches again. */
  public static byte[] withHeaderField(byte[] tar, int offset, byte[] value) {
    byte[] out = tar.clone();
    System.arraycopy(value, 0, out, offset, value.length);
    java.util.Arrays.fill(out, 148, 156, (byte) ' ');
    long sum = 0;
    for (int i = 0; i < 512; i++) {
      sum += out[i] & 0xff;
    }
    byte[] checksum = String.format("%06o\0 ", sum).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(checksum, 0, out, 148, 8);
    return out;
  }
}
