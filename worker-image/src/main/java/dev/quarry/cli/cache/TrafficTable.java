package dev.quarry.cli.cache;

import dev.quarry.core.cache.plan.CacheCandidate;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The input of {@code quarry cache plan}: a CSV table with a header naming its columns, one image per row.
 * Columns: {@code name}, {@code size} (a quantity), {@code source} and {@code local} (bytes read over the window
 * from the source and from a local copy, quantities), and optional {@code cached}, {@code pinned}, {@code s3}
 * (true/false) and {@code priority}.
 */
final class TrafficTable {
  private TrafficTable() {}

  static List<CacheCandidate> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("Invalid traffic table " + file + ": it is empty (must start with a header"
          + " such as name,size,source,local,cached,pinned,priority,s3)");
    }
    List<String> header = Arrays.stream(lines.get(0).split(",")).map(h -> h.trim().toLowerCase(Locale.ROOT)).toList();
    for (String required : List.of("name", "size", "source")) {
      if (!header.contains(required)) {
        throw new IllegalArgumentException("Invalid traffic table " + file + ": no column " + required
            + " in the header " + lines.get(0) + " (columns: name,size,source,local,cached,pinned,priority,s3)");
      }
    }
    List<CacheCandidate> candidates = new ArrayList<>();
    for (int row = 1; row < lines.size(); row++) {
      String[] cells = lines.get(row).split(",", -1);
      if (cells.length != header.size()) {
        throw new IllegalArgumentException("Invalid traffic table " + file + ", line " + (row + 1) + ": "
            + cells.length + " cells, the header has " + header.size());
      }
      Row r = new Row(header, cells);
      candidates.add(new CacheCandidate(r.text("name"), r.bytes("size"), r.bytes("source"), r.bytes("local"),
          r.flag("cached"), r.flag("pinned"), (int) r.number("priority"), r.flag("s3")));
    }
    return candidates;
  }

  private record Row(List<String> header, String[] cells) {
    String text(String column) {
      int index = header.indexOf(column);
      return index < 0 ? "" : cells[index].trim();
    }

    long bytes(String column) {
      String value = text(column);
      return value.isEmpty() ? 0 : ByteSize.parse(value);
    }

    long number(String column) {
      String value = text(column);
      return value.isEmpty() ? 0 : Long.parseLong(value);
    }

    boolean flag(String column) {
      String value = text(column).toLowerCase(Locale.ROOT);
      return switch (value) {
        case "", "false", "no" -> false;
        case "true", "yes" -> true;
        default -> throw new IllegalArgumentException("Invalid " + column + ": " + text(column)
            + " (must be true or false)");
      };
    }
  }
}
