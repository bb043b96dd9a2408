package dev.quarry.core.archive.msgpack;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Record;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes records as msgpack shards and reads them back whole, for the msgpack tests. */
public final class MsgpackShards {
  private static String python;

  private MsgpackShards() {}

  static byte[] write(List<Record> records) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (MsgpackWriter writer = new MsgpackWriter(out)) {
      for (Record record : records) {
        writer.write(record);
      }
    }
    return out.toByteArray();
  }

  /** Every member's name and data as hex, in stream order. */
  static Map<String, String> read(byte[] shard) throws IOException {
    return read(shard, ArchiveLimits.DEFAULT);
  }

  static Map<String, String> read(byte[] shard, ArchiveLimits limits) throws IOException {
    Map<String, String> members = new LinkedHashMap<>();
    try (MsgpackReader reader = new MsgpackReader(new ByteArrayInputStream(shard), "test.msgpack", limits)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        byte[] data = member.readData();
        if (data.length != member.size()) {
          throw new AssertionError(member.name() + " has " + data.length + " bytes, size() says " + member.size());
        }
        if (members.put(member.name(), HexFormat.of().formatHex(data)) != null) {
          throw new AssertionError(member.name() + " was read twice");
        }
      }
    }
    return members;
  }

  /**
   * A Python that has the msgpack module: the one on PATH, else Debian's (which python3-msgpack installs into, while
   * a pyenv Python may come first on PATH).
   */
  public static synchronized String python() throws IOException, InterruptedException {
    if (python == null) {
      for (String candidate : List.of("python3", "/usr/bin/python3")) {
        try {
          if (CommandResult.run(null, List.of(candidate, "-c", "import msgpack")).exitCode() == 0) {
            python = candidate;
            break;
          }
        } catch (IOException e) {
          // Not installed there; try the next.
        }
      }
      if (python == null) {
        throw new IllegalStateException("Cannot find a python3 with the msgpack module: run "
            + "e2e/tools/install-packages.sh (it installs python3-msgpack)");
      }
    }
    return python;
  }
}
