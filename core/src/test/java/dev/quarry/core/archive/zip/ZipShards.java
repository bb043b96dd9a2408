package dev.quarry.core.archive.zip;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.RecordKeys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Builds records, writes them as zips and reads zips back whole, for the zip tests. */
final class ZipShards {
  private ZipShards() {}

  /** Records of the given keys, each a small .cls text and a .bin of {@code binBytes} seeded random bytes. */
  static List<Record> records(List<String> keys, int binBytes) {
    Random random = new Random(keys.hashCode());
    List<Record> records = new ArrayList<>();
    for (String key : keys) {
      byte[] bin = new byte[binBytes];
      random.nextBytes(bin);
      records.add(new Record(key, List.of(new Member(key + ".cls", ("class of " + key).getBytes()),
          new Member(key + ".bin", bin))));
    }
    return records;
  }

  /** One record per member, grouped by the WebDataset key rule. */
  static List<Record> recordsOf(Map<String, byte[]> members) {
    Map<String, List<Member>> byKey = new LinkedHashMap<>();
    members.forEach((name, data) -> byKey.computeIfAbsent(RecordKeys.of(name), k -> new ArrayList<>())
        .add(new Member(name, data)));
    List<Record> records = new ArrayList<>();
    byKey.forEach((key, list) -> records.add(new Record(key, list)));
    return records;
  }

  static byte[] write(List<Record> records) throws IOException {
    return write(records, ZipWriter.Method.DEFLATED);
  }

  static byte[] write(List<Record> records, ZipWriter.Method method) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZipWriter writer = new ZipWriter(out, method)) {
      for (Record record : records) {
        writer.write(record);
      }
    }
    return out.toByteArray();
  }

  /** Every member's name and data, in stream order. */
  static Map<String, byte[]> read(byte[] zip) throws IOException {
    return read(zip, ArchiveLimits.DEFAULT);
  }

  static Map<String, byte[]> read(byte[] zip, ArchiveLimits limits) throws IOException {
    Map<String, byte[]> members = new LinkedHashMap<>();
    try (ZipReader reader = new ZipReader(new ByteArrayInputStream(zip), "test.zip", limits)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        byte[] data = member.readData();
        if (data.length != member.size()) {
          throw new AssertionError(member.name() + " has " + data.length + " bytes, size() says " + member.size());
        }
        members.put(member.name(), data);
      }
    }
    return members;
  }

  static Map<String, byte[]> read(Path zip) throws IOException {
    return read(Files.readAllBytes(zip));
  }

  /** Member names and data as the readers return them, comparable with AssertJ. */
  static Map<String, String> hex(Map<String, byte[]> members) {
    Map<String, String> hex = new LinkedHashMap<>();
    members.forEach((name, data) -> hex.put(name, java.util.HexFormat.of().formatHex(data)));
    return hex;
  }

  static Map<String, byte[]> members(List<Record> records) {
    Map<String, byte[]> members = new LinkedHashMap<>();
    for (Record record : records) {
      for (Member member : record.members()) {
        members.put(member.name(), member.data());
      }
    }
    return members;
  }
}
