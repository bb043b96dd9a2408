package dev.quarry.core.archive.tar;

import dev.quarry.core.archive.ArchiveException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** PAX extended header records: {@code "<length> <key>=<value>\n"}, the length counting the whole record. */
final class PaxRecords {
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
      String record = new String(data, space + 1, position + length - space - 2, StandardCharsets.UTF_8);
      int equals = record.indexOf('=');
      if (equals <= 0) {
        throw ArchiveException.of(shard, "malformed PAX extended header at offset " + offset
            + " (a record has no '<key>='; the shard is corrupt)");
      }
      records.put(record.substring(0, equals), record.substring(equals + 1));
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
