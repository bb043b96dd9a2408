package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkFolderTest {
  @TempDir Path parent;

  @Test
  void closingRemovesTheFolderAndAllInIt() throws Exception {
    Path path;
    try (WorkFolder work = WorkFolder.create(parent, "quarry-test-")) {
      path = work.path();
      Files.createDirectories(path.resolve("packs"));
      Files.write(path.resolve("packs/1.pack"), new byte[4096]);
      assertThat(path.getFileName().toString()).startsWith("quarry-test-")
          .contains("-" + ProcessHandle.current().pid() + "-");
    }
    assertThat(path).doesNotExist();
    assertThat(parent).isEmptyDirectory();
  }

  @Test
  void aNewFolderRemovesThoseOfDeadProcessesOfThisHostOnly() throws Exception {
    Path live;
    Path deadProcess;
    Path otherHost;
    Path otherPrefix;
    try (WorkFolder first = WorkFolder.create(parent, "quarry-test-")) {
      live = first.path();
      String name = live.getFileName().toString();
      String host = name.substring("quarry-test-".length(), name.lastIndexOf("-" + ProcessHandle.current().pid()));
      Process ended = new ProcessBuilder("true").start();
      ended.waitFor();
      deadProcess = Files.createDirectory(parent.resolve("quarry-test-" + host + "-" + ended.pid() + "-"
          + UUID.randomUUID()));
      Files.write(deadProcess.resolve("3.raw"), new byte[1024]);
      otherHost = Files.createDirectory(parent.resolve("quarry-test-elsewhere-" + ended.pid() + "-"
          + UUID.randomUUID()));
      otherPrefix = Files.createDirectory(parent.resolve("quarry-other-" + host + "-" + ended.pid() + "-"
          + UUID.randomUUID()));
      try (WorkFolder second = WorkFolder.create(parent, "quarry-test-")) {
        assertThat(deadProcess).as("left by a process that no longer runs").doesNotExist();
        assertThat(live).as("this process's own folder").isDirectory();
        assertThat(otherHost).as("another host's process may still run").isDirectory();
        assertThat(otherPrefix).as("not a folder of this kind").isDirectory();
        assertThat(second.path()).isDirectory();
      }
    }
    assertThat(live).doesNotExist();
  }

  @Test
  void aProcessStoppedWithSigtermRemovesItsFolder() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Holder.class.getName(), parent.toString())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    Path held;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      held = Path.of(out.readLine());
      assertThat(held.resolve("shard.raw")).exists();
      child.destroy(); // SIGTERM, as Kubernetes sends a pod it stops; Ctrl-C's SIGINT runs the same hooks
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(held).as("removed by the shutdown hook").doesNotExist();
  }

  /** A process that makes a work folder, writes into it, says where, and waits to be stopped. */
  public static final class Holder {
    public static void main(String[] args) throws Exception {
      WorkFolder work = WorkFolder.create(Path.of(args[0]), "quarry-test-");
      Files.write(work.path().resolve("shard.raw"), new byte[1 << 20]);
      System.out.println(work.path());
      System.out.flush();
      Thread.sleep(120_000);
    }
  }
}
