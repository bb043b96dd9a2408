package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code quarry cache build} and {@code quarry cache plan} as users run them. */
class CacheCommandsIT {
  @TempDir Path temp;

  @Test
  void buildsAnImageThatUnsquashfsListsAndPrintsItsChecksum() throws Exception {
    Path folder = Files.createDirectories(temp.resolve("dataset/train"));
    Files.writeString(folder.resolve("0001.cls"), "7");
    Files.write(folder.resolve("0001.jpg"), new byte[100_000]);
    CommandResult result = QuarryJar.run(temp, "cache", "build", temp.resolve("dataset").toString(),
        temp.resolve("images/dataset.sqfs").toString(), "--compression", "gzip");
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    String sha256 = CommandResult.check(temp, "sha256sum", temp.resolve("images/dataset.sqfs").toString())
        .split(" ")[0];
    assertThat(result.stdout()).contains("checksum: sha256:" + sha256);
    String listing = CommandResult.check(temp, "unsquashfs", "-lls", temp.resolve("images/dataset.sqfs").toString());
    assertThat(listing).contains("root/root").contains("squashfs-root/train/0001.cls")
        .contains("squashfs-root/train/0001.jpg");
    try (var files = Files.list(temp.resolve("images"))) {
      assertThat(files.toList()).as("no temporary file left").containsExactly(temp.resolve("images/dataset.sqfs"));
    }
  }

  @Test
  void refusesAMissingFolderAndAnUnknownCompression() throws Exception {
    CommandResult missing = QuarryJar.run(temp, "cache", "build", temp.resolve("nope").toString(),
        temp.resolve("x.sqfs").toString());
    assertThat(missing.exitCode()).isNotZero();
    assertThat(missing.stderr()).contains("Cannot build an image of " + temp.resolve("nope") + ": it is not a folder");
    Files.createDirectories(temp.resolve("d"));
    CommandResult compression = QuarryJar.run(temp, "cache", "build", temp.resolve("d").toString(),
        temp.resolve("x.sqfs").toString(), "--compression", "brotli");
    assertThat(compression.stderr()).contains("Invalid compression: brotli (must be zstd, gzip, lz4, xz or none)");
  }

  @Test
  void plansFromATrafficTableWithReasons() throws Exception {
    Path table = temp.resolve("traffic.csv");
    Files.writeString(table, """
        name,size,source,local,cached,pinned,priority,s3
        imagenet,140Gi,420Gi,0,false,false,0,false
        coco,20Gi,0,50Gi,true,false,0,false
        laion,400Gi,900Gi,0,false,false,0,false
        audio,30Gi,0,0,false,true,5,false
        weights,8Gi,0,0,false,false,0,true
        cold,50Gi,0,0,false,false,0,false
        """);
    CommandResult result = QuarryJar.run(temp, "cache", "plan", table.toString(), "--capacity", "500Gi");
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    assertThat(result.stdout().lines())
        .anySatisfy(l -> assertThat(l).startsWith("imagenet  no ").contains("outranked: 420.0 GiB read"))
        .anySatisfy(l -> assertThat(l).startsWith("laion     yes").endsWith("hot: 900.0 GiB read in the window (225% of its size)"))
        .anySatisfy(l -> assertThat(l).startsWith("audio     yes").endsWith("pinned"))
        .anySatisfy(l -> assertThat(l).startsWith("weights   yes").endsWith("stored in S3, so served from the cache only"))
        .anySatisfy(l -> assertThat(l).startsWith("cold      no ").endsWith("cold: not read in the window"))
        .anySatisfy(l -> assertThat(l).startsWith("Planned 458.0 GiB of 500.0 GiB for 6 images in ").endsWith("(optimal)"));

    Files.writeString(table, "name,size\nx,1Gi\n");
    CommandResult bad = QuarryJar.run(temp, "cache", "plan", table.toString(), "--capacity", "10%");
    assertThat(bad.stderr()).contains("Invalid capacity: 10% (must be a byte quantity such as 500Gi here");
    CommandResult noColumn = QuarryJar.run(temp, "cache", "plan", table.toString(), "--capacity", "1Ti");
    assertThat(noColumn.stderr()).contains("no column source in the header name,size");
  }
}
