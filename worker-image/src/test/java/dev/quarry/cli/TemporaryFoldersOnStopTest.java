package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The temporary folders of import-dvc and get go when the process is stopped (Ctrl-C, SIGTERM) mid-transfer, in a
 * process of its own held on a FIFO where a remote's object should be.
 */
class TemporaryFoldersOnStopTest {
  @TempDir Path temp;

  private static void mkfifo(Path path) throws Exception {
    Files.createDirectories(path.getParent());
    assertThat(new ProcessBuilder("mkfifo", path.toString()).start().waitFor()).isZero();
  }

  /** Runs quarry with its own temporary folder, stops it once {@code prefix} appears there, and lists what is left. */
  private List<Path> leftAfterStop(String prefix, String... args) throws Exception {
    Path tmp = Files.createDirectories(temp.resolve("tmp"));
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), QuarryCommand.class.getName()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(temp.resolve("output").toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (children(tmp, prefix).isEmpty() && System.nanoTime() < deadline && process.isAlive()) {
        Thread.sleep(50);
      }
      assertThat(children(tmp, prefix)).as(Files.readString(temp.resolve("output"))).isNotEmpty();
      Thread.sleep(500); // held on the FIFO by now
      process.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the JVM runs its shutdown hooks
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      process.destroyForcibly();
    }
    return children(tmp, prefix);
  }

  private static List<Path> children(Path folder, String prefix) throws Exception {
    try (Stream<Path> list = Files.list(folder)) {
      return list.filter(path -> path.getFileName().toString().startsWith(prefix)).toList();
    }
  }

  @Test
  void importDvcRemovesItsTemporaryFolderWhenStopped() throws Exception {
    String md5 = "b1946ac92492d2347c6235b4d2611184";
    mkfifo(temp.resolve("dvc/files/md5/b1/" + md5.substring(2)));
    Path dvcFile = Files.writeString(temp.resolve("hello.txt.dvc"), "outs:\n- md5: " + md5 + "\n  size: 6\n"
        + "  hash: md5\n  path: hello.txt\n");
    assertThat(leftAfterStop("quarry-import-dvc-", "sync", "import-dvc", dvcFile.toString(), "--dvc-remote",
        temp.resolve("dvc").toString(), "--remote", temp.resolve("remote").toString())).isEmpty();
  }

  @Test
  void getOfAFolderRemovesItsTemporaryStateWhenStopped() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/images"));
    Files.writeString(data.resolve("cat.jpg"), "meow");
    String remote = temp.resolve("remote").toString();
    CommandLine commandLine = QuarryCommand.commandLine();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    commandLine.setErr(new PrintWriter(err, true));
    assertThat(commandLine.execute("sync", "push", data.getParent().toString(), "--remote", remote))
        .as(err.toString()).isZero();
    Path blob;
    try (Stream<Path> files = Files.walk(Path.of(remote))) {
      blob = files.filter(Files::isRegularFile).filter(file -> {
        try {
          return Files.readString(file).equals("meow");
        } catch (Exception e) {
          return false;
        }
      }).findFirst().orElseThrow();
    }
    Files.delete(blob);
    mkfifo(blob);
    assertThat(leftAfterStop("quarry-get-", "sync", "get", "latest", "images", temp.resolve("copy").toString(),
        "--remote", remote)).isEmpty();
  }
}
