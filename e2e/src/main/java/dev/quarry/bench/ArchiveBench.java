package dev.quarry.bench;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.gen.DatasetSpec;
import dev.quarry.core.gen.RecordFactory;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Read and write throughput of each shard format on this machine, against {@code cat} (and GNU tar for tar) on the
 * same bytes in the same run. Usage: ArchiveBench WORKDIR MIB FORMAT...
 */
public final class ArchiveBench {
  private static final int RUNS = 3;

  public static void main(String[] args) throws Exception {
    Path work = Files.createDirectories(Path.of(args[0]));
    int mib = Integer.parseInt(args[1]);
    List<ShardFormat> formats = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      formats.add(ShardFormat.ofExtension(args[i]));
    }
    int recordBytes = 100 * 1024;
    int records = (int) ((long) mib * 1024 * 1024 / recordBytes);
    // Image-like members of random bytes (incompressible, like JPEGs) and a small label each.
    DatasetSpec spec = new DatasetSpec("bench", 1, records, recordBytes, 25, 1000, ShardFormat.TAR, 1);
    RecordFactory factory = new RecordFactory(spec);
    List<Record> data = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      data.add(factory.record(0, i));
    }
    long payload = data.stream().mapToLong(Record::size).sum();
    System.out.printf(Locale.ROOT, "%d records, %.0f MiB of member data, best of %d runs, page cache warm%n%n",
        records, payload / 1048576.0, RUNS);
    System.out.printf(Locale.ROOT, "%-8s %9s %11s %10s %9s %13s %13s %15s%n", "format", "size MiB", "write MB/s",
        "read MB/s", "cat MB/s", "read vs cat", "tar MB/s", "read vs tar");
    for (ShardFormat format : formats) {
      Path file = work.resolve("bench." + format.extension());
      double write = best(() -> write(format, data, file));
      long size = Files.size(file);
      double read = best(() -> read(format, file));
      double cat = best(() -> command(List.of("sh", "-c", "cat " + file + " > /dev/null")));
      String tarSpeed = "-";
      String tarRatio = "-";
      if (format.isTar()) {
        String decompress = switch (format) {
          case TAR_GZ -> "-z ";
          case TAR_LZ4 -> "-I lz4 ";
          default -> "";
        };
        double tar = best(() -> command(List.of("sh", "-c", "tar " + decompress + "-xOf " + file + " > /dev/null")));
        tarSpeed = String.format(Locale.ROOT, "%.0f", mb(size, tar));
        tarRatio = String.format(Locale.ROOT, "%.2fx", tar / read);
      }
      System.out.printf(Locale.ROOT, "%-8s %9.0f %11.0f %10.0f %9.0f %12.2fx %13s %15s%n", format.extension(),
          size / 1048576.0, mb(size, write), mb(size, read), mb(size, cat), cat / read, tarSpeed, tarRatio);
    }
    System.out.println();
    System.out.println("write and read are MB/s of archive bytes (compressed size for tar.gz, tar.lz4, zip);");
    System.out.println("read vs cat = our read speed as a multiple of cat's on the same file (cat to /dev/null);");
    System.out.println("read vs tar = our read speed as a multiple of GNU tar -xO (with -z or -I lz4) to /dev/null;");
    System.out.println("our read hands every member's bytes to the caller as an array, GNU tar only copies them.");
  }

  private interface Timed {
    void run() throws Exception;
  }

  private static double best(Timed timed) throws Exception {
    timed.run(); // warm-up: JIT and page cache
    double best = Double.MAX_VALUE;
    for (int i = 0; i < RUNS; i++) {
      long start = System.nanoTime();
      timed.run();
      best = Math.min(best, (System.nanoTime() - start) / 1e9);
    }
    return best;
  }

  private static double mb(long bytes, double seconds) {
    return bytes / 1e6 / seconds;
  }

  private static void write(ShardFormat format, List<Record> records, Path file) throws IOException {
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        ShardWriter writer = ShardWriters.open(format, out)) {
      for (Record record : records) {
        writer.write(record);
      }
    }
  }

  private static void read(ShardFormat format, Path file) throws IOException {
    long bytes = 0;
    try (InputStream in = Files.newInputStream(file);
        ShardReader reader = ShardReaders.open(format, in, file.toString(), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        bytes += member.readData().length;
      }
    }
    if (bytes == 0) {
      throw new IllegalStateException("read nothing from " + file);
    }
  }

  private static void command(List<String> command) throws Exception {
    Process process = new ProcessBuilder(command).inheritIO().start();
    if (process.waitFor() != 0) {
      throw new IllegalStateException(command + " failed");
    }
  }
}
