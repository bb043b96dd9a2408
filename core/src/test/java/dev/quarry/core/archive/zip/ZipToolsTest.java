package dev.quarry.core.archive.zip;

import static dev.quarry.core.archive.zip.ZipShards.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Zips made by Info-ZIP's zip and Python's zipfile read here; zips written here pass unzip -t and Python. */
class ZipToolsTest {
  @TempDir Path temp;

  @ParameterizedTest
  @ValueSource(strings = {"-6", "-0"})
  void readsZipsMadeByTheZipCommand(String level) throws Exception {
    Path tree = Files.createDirectories(temp.resolve("tree"));
    Map<String, byte[]> expected = sampleFiles();
    for (Map.Entry<String, byte[]> file : expected.entrySet()) {
      Path path = tree.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.write(path, file.getValue());
    }
    Files.createDirectories(tree.resolve("empty-dir"));
    run(tree, "zip", "-q", "-r", "-X", level, "../made.zip", ".");

    Map<String, byte[]> read = new LinkedHashMap<>();
    long directories;
    try (ZipReader reader = reader(Files.readAllBytes(temp.resolve("made.zip")), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        read.put(member.name(), member.readData());
        assertThat(member.raw()).isNull();
      }
      directories = reader.directoriesSkipped();
    }
    assertThat(hex(read)).containsExactlyInAnyOrderEntriesOf(hex(expected));
    assertThat(directories).as("train/, train/deep/, données/, empty-dir/").isEqualTo(4);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ZIP_STORED", "ZIP_DEFLATED"})
  void readsPythonZipfileWrittenToAPipeWithDataDescriptors(String method) throws Exception {
    Map<String, byte[]> expected = sampleFiles();
    Path script = temp.resolve("write.py");
    StringBuilder py = new StringBuilder("import sys, zipfile\n")
        .append("with zipfile.ZipFile(sys.stdout.buffer, 'w', zipfile.").append(method).append(") as z:\n");
    for (Map.Entry<String, byte[]> file : expected.entrySet()) {
      py.append("    z.writestr(").append(pyString(file.getKey())).append(", bytes.fromhex('")
          .append(HexFormat.of().formatHex(file.getValue())).append("'))\n");
    }
    Files.writeString(script, py);
    // Through cat, so that Python writes to a pipe it cannot seek: sizes then follow each member's data.
    run(temp, "sh", "-c", "python3 write.py | cat > streamed.zip");
    byte[] zip = Files.readAllBytes(temp.resolve("streamed.zip"));
    assertThat(zip[6] & 0x08).as("first member has a data descriptor").isEqualTo(0x08);

    assertThat(hex(ZipShards.read(zip))).containsExactlyEntriesOf(hex(expected));
  }

  @Test
  void ourZipsPassUnzipTestAndPythonWithEveryNameAndBytePreserved() throws Exception {
    Map<String, byte[]> members = sampleFiles();
    byte[] random = new byte[300_000];
    new Random(7).nextBytes(random);
    members.put("big/random.bin", random);
    byte[] compressible = new byte[2_000_000];
    for (int i = 0; i < compressible.length; i++) {
      compressible[i] = (byte) (random[i % random.length] & 3);
    }
    members.put("big/compressible.bin", compressible);
    Path zip = Files.write(temp.resolve("ours.zip"), ZipShards.write(ZipShards.recordsOf(members)));

    assertThat(run(temp, "unzip", "-t", "ours.zip")).contains("No errors detected");
    List<String> lines = run(temp, "python3", "-c", """
        import hashlib, zipfile
        with zipfile.ZipFile('ours.zip') as z:
            assert z.testzip() is None
            assert z.comment == b''
            for i in z.infolist():
                assert i.date_time == (1980, 1, 1, 0, 0, 0), i.date_time
                assert i.create_system == 3 and i.external_attr >> 16 == 0o100444, oct(i.external_attr >> 16)
                assert i.extra == b'' and i.comment == b'', i.extra
                print(i.filename, i.compress_type, hashlib.sha256(z.read(i)).hexdigest())
        """).lines().toList();

    List<String> expected = new ArrayList<>();
    members.forEach((name, data) -> expected.add(name + " " + (shrinksWhenDeflated(data) ? 8 : 0) + " "
        + sha256(data)));
    assertThat(lines).containsExactlyElementsOf(expected);
    assertThat(lines).contains("big/random.bin 0 " + sha256(random), "big/compressible.bin 8 " + sha256(compressible));
    assertThat(hex(ZipShards.read(zip))).containsExactlyEntriesOf(hex(members));
  }

  @Test
  void writesZip64ForSeventyThousandMembersThatUnzipPythonAndOurReaderList() throws Exception {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 70_000; i++) {
      String key = String.format("s/%06d", i);
      records.add(new Record(key, List.of(new Member(key + ".txt", Integer.toString(i).getBytes()))));
    }
    Path zip = Files.write(temp.resolve("many.zip"), ZipShards.write(records, ZipWriter.Method.STORED));

    List<String> listing = run(temp, "unzip", "-l", "many.zip").lines().toList();
    assertThat(listing.getLast()).matches("\\s*\\d+\\s+70000 files");
    assertThat(run(temp, "python3", "-c", """
        import zipfile
        with zipfile.ZipFile('many.zip') as z:
            names = z.namelist()
            print(len(names), z.read('s/069999.txt').decode(), z.read(names[0]).decode())
        """)).isEqualTo("70000 69999 0\n");
    long count = 0;
    try (ZipReader reader = reader(Files.readAllBytes(zip), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        if (count == 69_999) {
          assertThat(member.name()).isEqualTo("s/069999.txt");
          assertThat(new String(member.readData(), StandardCharsets.UTF_8)).isEqualTo("69999");
        }
        count++;
      }
    }
    assertThat(count).isEqualTo(70_000);
  }

  @ParameterizedTest
  @ValueSource(strings = {"BZIP2", "LZMA"})
  void refusesMembersCompressedWithOtherMethodsByName(String method) throws Exception {
    run(temp, "python3", "-c", "import zipfile\n"
        + "with zipfile.ZipFile('other.zip', 'w', zipfile.ZIP_" + method + ") as z:\n"
        + "    z.writestr('plain.txt', b'stored', zipfile.ZIP_STORED)\n"
        + "    z.writestr('packed.txt', b'packed ' * 100)\n");

    try (ZipReader reader = reader(Files.readAllBytes(temp.resolve("other.zip")), ArchiveLimits.DEFAULT)) {
      assertThat(reader.next().readData()).asString().isEqualTo("stored");
      assertThatThrownBy(reader::next).isInstanceOf(ArchiveException.class)
          .hasMessage("Cannot read member packed.txt of shard test.zip: it is compressed with " + method + " (method "
              + (method.equals("BZIP2") ? 12 : 14) + "); Quarry reads only stored and deflated members");
    }
  }

  @Test
  void capsStoredMembersWithDataDescriptorsThatMustBeHeldWhole() throws Exception {
    run(temp, "sh", "-c", "python3 -c \"import sys, zipfile\n"
        + "with zipfile.ZipFile(sys.stdout.buffer, 'w') as z:\n"
        + "    z.writestr('big.bin', bytes(5000))\n\" | cat > dd.zip");
    ArchiveLimits small = new ArchiveLimits(1000, 1 << 20, 1000, 1L << 40);

    try (ZipReader reader = reader(Files.readAllBytes(temp.resolve("dd.zip")), small)) {
      assertThatThrownBy(reader::next).isInstanceOf(ArchiveException.class)
          .hasMessage("Cannot read member big.bin of shard test.zip: it has no size in its local header, so it is read "
              + "whole into memory, and it has more than the 1000 bytes a member may have in memory");
    }
  }

  @Test
  void refusesASymbolicLinkMadeByZipSymlinksByName() throws Exception {
    Path tree = Files.createDirectories(temp.resolve("tree/d"));
    Files.writeString(tree.resolve("a.txt"), "hello");
    Files.createSymbolicLink(tree.resolve("link.txt"), Path.of("a.txt"));
    run(temp.resolve("tree"), "zip", "-q", "--symlinks", "-r", "../links.zip", "d");

    assertThatThrownBy(() -> ZipShards.read(temp.resolve("links.zip")))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member d/link.txt of shard test.zip: it is a symbolic link (shards may hold only "
            + "regular files and directories; store the file itself instead)");
  }

  @Test
  void refusesAZipBombByItsExpansionRatio() throws Exception {
    // 200 MiB of zeros deflate to about 200 KB: a ratio above 1000.
    run(temp, "python3", "-c", """
        import zipfile
        with zipfile.ZipFile('bomb.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            with z.open('bomb.bin', 'w') as f:
                block = bytes(1 << 20)
                for _ in range(200):
                    f.write(block)
        """);
    byte[] bomb = Files.readAllBytes(temp.resolve("bomb.zip"));
    assertThat(bomb.length).isLessThan(400_000);

    String refusal = "Cannot read member bomb.bin of shard test.zip: it expands more than 1000 times (";
    assertThatThrownBy(() -> ZipShards.read(bomb)).isInstanceOf(ArchiveException.class)
        .hasMessageStartingWith(refusal)
        .hasMessageEndingWith("compressed bytes): a zip bomb, or raise the expansion ratio limit");
    // Passing over the member without reading it inflates it all the same, and is refused the same way.
    try (ZipReader reader = reader(bomb, ArchiveLimits.DEFAULT)) {
      assertThat(reader.next().size()).isEqualTo(200L << 20);
      assertThatThrownBy(reader::next).hasMessageStartingWith(refusal);
    }
  }

  private static ZipReader reader(byte[] zip, ArchiveLimits limits) {
    return new ZipReader(new ByteArrayInputStream(zip), "test.zip", limits);
  }

  /** Nested paths, a non-ASCII name, an empty file, text and binary data. */
  private static Map<String, byte[]> sampleFiles() {
    Map<String, byte[]> files = new LinkedHashMap<>();
    byte[] binary = new byte[5000];
    new Random(3).nextBytes(binary);
    files.put("train/a.cls", "3".getBytes());
    files.put("train/a.bin", binary);
    files.put("train/deep/b.txt", "the quick brown fox ".repeat(200).getBytes());
    files.put("données/été.txt", "non-ASCII name".getBytes(StandardCharsets.UTF_8));
    files.put("empty.txt", new byte[0]);
    return files;
  }

  private static String pyString(String text) {
    StringBuilder out = new StringBuilder("'");
    text.codePoints().forEach(c -> out.append(c < 128 ? Character.toString(c) : String.format("\\U%08x", c)));
    return out.append("'").toString();
  }

  private static boolean shrinksWhenDeflated(byte[] data) {
    Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    deflater.setInput(data);
    deflater.finish();
    byte[] chunk = new byte[1 << 16];
    long length = 0;
    while (!deflater.finished()) {
      length += deflater.deflate(chunk);
    }
    deflater.end();
    return length < data.length;
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static String run(Path dir, String... command) throws IOException, InterruptedException {
    return CommandResult.check(dir, command);
  }
}
