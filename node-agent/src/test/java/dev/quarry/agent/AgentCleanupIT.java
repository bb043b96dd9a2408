package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.cache.agent.OwnedPaths;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.host.Mounts;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code quarry-agent cleanup} on real loop mounts: it removes what the agents recorded, and nothing else. */
class AgentCleanupIT {
  @TempDir Path temp;

  @Test
  void removesTheRecordedMountsAndCopiesAndLeavesForeignMountsAndFiles() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "cat\n");
    Path image = ImageBuilder.build(content, temp.resolve("pets.sqfs"), ImageBuilder.Compression.GZIP, 2).image();
    Path cache = temp.resolve("cache");
    Path mounted = temp.resolve("mnt/pets");
    OwnedPaths owned = OwnedPaths.open(new RootedPaths(List.of(cache)), cache, "pets", "pets-uid");
    owned.recordMount(mounted, FileIdentity.of(image));
    Mounts.mountImage(image, FileIdentity.of(image), Files.createDirectories(mounted));
    Path byHand = temp.resolve("mnt/by-hand");
    Mounts.mountImage(image, FileIdentity.of(image), Files.createDirectories(byHand));
    Path notes = Files.writeString(cache.resolve("notes.json"), "{}");
    try {
      assertThat(new CommandLine(new AgentCommand()).execute("cleanup", "--cache-dir", cache.toString(),
          "--cache-roots", cache.toString(), "--mount-roots", temp.resolve("mnt").toString())).isZero();
      assertThat(MountTable.read().stackAt(mounted)).isEmpty();
      assertThat(mounted).doesNotExist();
      assertThat(cache.resolve("pets")).doesNotExist();
      assertThat(MountTable.read().stackAt(byHand)).as("a mount no agent recorded").hasSize(1);
      assertThat(notes).exists();
    } finally {
      if (!MountTable.read().stackAt(byHand).isEmpty()) {
        Mounts.detachTop(byHand);
      }
    }
  }

  @Test
  void aLayerOfAnotherNodeCacheOverOneOfItsOwnIsLeftWithItsRecordAndNamedWhileTheOthersAreCleaned()
      throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "fish\n");
    Path image = ImageBuilder.build(content, temp.resolve("pets.sqfs"), ImageBuilder.Compression.GZIP, 2).image();
    Path other = Files.copy(image, temp.resolve("other.sqfs"));
    Path cache = temp.resolve("cache");
    Path point = Files.createDirectories(temp.resolve("mnt/pets"));
    OwnedPaths a = OwnedPaths.open(new RootedPaths(List.of(cache)), cache, "team-a", "team-a-uid");
    a.recordMount(point, FileIdentity.of(image));
    Mounts.mountImage(image, FileIdentity.of(image), point);
    OwnedPaths b = OwnedPaths.open(new RootedPaths(List.of(cache)), cache, "team-b", "team-b-uid");
    b.recordMount(point, FileIdentity.of(other));
    Mounts.mountImage(other, FileIdentity.of(other), point);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new AgentCommand());
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    String[] cleanup = {"cleanup", "--cache-roots", cache.toString(), "--mount-roots", temp.resolve("mnt").toString()};

    assertThat(command.execute(cleanup)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry-agent: Cannot remove all mounts of NodeCache team-a (records in "
        + cache + "): Cannot unmount " + point + ": its layer reading " + other + " (" + FileIdentity.of(other)
        + ") was not mounted by NodeCache team-a; it is left alone with the layers under it (remove it by hand, or"
        + " delete the NodeCache that mounted it)" + System.lineSeparator());
    assertThat(out.toString()).isEqualTo("Removed the mounts and copies of NodeCache team-b (records in " + cache
        + ")" + System.lineSeparator());
    assertThat(MountTable.read().stackAt(point)).as("team-a's layer, under team-b's until team-b went").hasSize(1);
    assertThat(OwnedPaths.owners(cache)).containsExactly("team-a");

    assertThat(new CommandLine(new AgentCommand()).execute(cleanup)).isZero();
    assertThat(MountTable.read().stackAt(point)).isEmpty();
    assertThat(OwnedPaths.owners(cache)).isEmpty();
  }

  @Test
  void cleansTheRecordsOfEveryCacheFolderUnderTheCacheRoots() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "dog\n");
    Path image = ImageBuilder.build(content, temp.resolve("pets.sqfs"), ImageBuilder.Compression.GZIP, 2).image();
    Path cacheRoot = temp.resolve("cache");
    Path mountRoot = temp.resolve("mnt");
    List<Path> points = new ArrayList<>();
    for (String owner : List.of("team-a", "team-b")) {
      Path folder = cacheRoot.resolve("folders").resolve(owner); // each NodeCache's own spec.cache.directory
      Files.createDirectories(folder);
      OwnedPaths owned = OwnedPaths.open(new RootedPaths(List.of(cacheRoot)), folder, owner, owner + "-uid");
      Path point = mountRoot.resolve(owner).resolve("pets");
      owned.recordMount(point, FileIdentity.of(image));
      Mounts.mountImage(image, FileIdentity.of(image), Files.createDirectories(point));
      points.add(point);
    }
    StringWriter out = new StringWriter();
    CommandLine command = new CommandLine(new AgentCommand());
    command.setOut(new PrintWriter(out, true));
    assertThat(command.execute("cleanup", "--cache-roots", cacheRoot.toString(), "--mount-roots",
        mountRoot.toString())).isZero();
    for (Path point : points) {
      assertThat(MountTable.read().stackAt(point)).isEmpty();
    }
    assertThat(out.toString().lines()).containsExactly(
        "Removed the mounts and copies of NodeCache team-a (records in " + cacheRoot.resolve("folders/team-a") + ")",
        "Removed the mounts and copies of NodeCache team-b (records in " + cacheRoot.resolve("folders/team-b") + ")");
  }

  @Test
  void rootsThatAreNotNormalizedAbsoluteFoldersOtherThanSlashAreOneLineMistakes() {
    for (List<String> args : List.of(List.of("--mount-roots", "mnt/quarry"), List.of("--mount-roots", "/"),
        List.of("--cache-roots", "/var/lib/quarry/../x"), List.of("--cache-dir", "/etc"))) {
      StringWriter err = new StringWriter();
      CommandLine command = new CommandLine(new AgentCommand());
      command.setErr(new PrintWriter(err, true));
      List<String> line = new ArrayList<>(List.of("cleanup"));
      line.addAll(args);
      assertThat(command.execute(line.toArray(String[]::new))).as("%s", args).isEqualTo(2);
      assertThat(err.toString().lines()).as("%s", args).singleElement().asString().startsWith("quarry-agent: Invalid "
          + args.get(0) + ": " + args.get(1) + " (must be ");
    }
  }
}
