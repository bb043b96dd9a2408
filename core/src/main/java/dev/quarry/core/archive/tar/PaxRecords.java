package dev.quarry.core.archive.tar;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.MemberNames;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** PAX extended header records: {@code "<length> <key>=<value>\n"}, the length counting the whole record. */
final class PaxRecords {
  /** The keys whose values become member names. */
  private static final Set<String> NAME_KEYS = Set.of("path", "GNU.sparse.name");

  private PaxRecords() {}

  static Map<String, String> parse(String shard, byte[] data, long offset) throws ArchiveException {
    Map<String, String> records = new LinkedHashMap<>();
    int position = 0;
    while (position < data.length) {
      if (data[position] == 0) {
        break; // Some writers pad the header's data with NULs.
      }
      int space = position;
      int length = 0;
      while (space < data.length && data[space] >= '0' && data[space] <= '9' && length < 100_000_000) {
        length = length * 10 + (data[space] - '0');
        space++;
      }
      if (space == position || space >= data.length || data[space] != ' ' || length <= space - position + 1
          || position + length > data.length || data[position + length - 1] != '\n') {
        throw ArchiveException.of(shard, "malformed PAX extended header at offset " + offset
            + " (a record is not '<length> <key>=<value>\\n'; the shard is corrupt)");
      }
      int equals = space + 1;
      while (equals < position + length - 1 && data[equals] != '=') {
        equals++;
      }
      if (equals == space + 1 || equals == position + length - 1) {
        throw ArchiveException.of(shard, "malformed PAX extended header at offset " + offset
            + " (a record has no '<key>='; the shard is corrupt)");
      }
      String key = new String(data, space + 1, equals - space - 1, StandardCharsets.UTF_8);
      byte[] value = Arrays.copyOfRange(data, equals + 1, position + length - 1);
      // Names are decoded strictly (a lossy decoding could merge two names); other values are only validated.
      records.put(key, NAME_KEYS.contains(key) ? MemberNames.decode(shard, value)
          : new String(value, StandardCharsets.UTF_8));
      position += length;
    }
    return records;
  }

  /** Encodes records; each length includes its own digits, which is why the loop may add one digit. */
  static byte[] encode(Map<String, String> records) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    records.forEach((key, value) -> {
      byte[] body = (" " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8);
      int length = body.length + 1;
      while (length != body.length + Integer.toString(length).length()) {
        length = body.length + Integer.toString(length).length();
      }
      out.writeBytes(Integer.toString(length).getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(body);
    });
    return out.toByteArray();
  }
}
