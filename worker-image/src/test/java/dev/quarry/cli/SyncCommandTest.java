package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The sync commands as people type them: refusals in one line, the ref log, and a hung endpoint. */
class SyncCommandTest {
  @TempDir Path temp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int quarry(String... args) {
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  @Test
  void aMistypedFolderIsRefusedAndNeverCreated() {
    Path typo = temp.resolve("data/cocoo");
    String remote = temp.resolve("remote").toString();

    assertThat(quarry("sync", "push", typo.toString(), "--remote", remote)).isEqualTo(1);
    assertThat(quarry("sync", "status", typo.toString(), "--remote", remote)).isEqualTo(1);

    assertThat(err.toString()).isEqualTo("quarry: Cannot push " + typo + ": no such folder\n"
        + "quarry: Cannot compare " + typo + ": no such folder\n");
    assertThat(temp.resolve("data")).doesNotExist();
  }

  @Test
  void anEmptyFolderNeedsAllowEmpty() throws Exception {
    Path empty = Files.createDirectories(temp.resolve("empty"));
    String remote = temp.resolve("remote").toString();

    assertThat(quarry("sync", "push", empty.toString(), "--remote", remote)).isEqualTo(1);
    assertThat(err.toString()).contains("\nquarry: Cannot push " + empty + ": it holds no files");
    assertThat(quarry("sync", "push", empty.toString(), "--remote", remote, "--allow-empty")).isZero();
  }

  @Test
  void logShowsEveryPushNewestFirstAndGcKeepsWhatItNames() throws Exception {
    String remote = temp.resolve("remote").toString();
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("file"), "one");
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote, "--by", "alice@laptop")).isZero();
    Files.writeString(data.resolve("file"), "two");
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote, "--by", "datasetsync/ml/coco")).isZero();
    out.getBuffer().setLength(0);

    assertThat(quarry("sync", "log", "--remote", remote, "--json")).isZero();
    JsonNode log = new ObjectMapper().readTree(out.toString());
    assertThat(log).hasSize(2);
    assertThat(log.get(0).get("by").asText()).isEqualTo("datasetsync/ml/coco");
    assertThat(log.get(0).get("previousRoot").asText()).isEqualTo(log.get(1).get("root").asText());
    assertThat(log.get(1).has("previousRoot")).isFalse();
    out.getBuffer().setLength(0);

    assertThat(quarry("sync", "log", "latest", "--remote", remote)).isZero();
    String first = log.get(0).get("root").asText();
    assertThat(out.toString()).contains(log.get(1).get("root").asText() + " -> " + first)
        .contains("by datasetsync/ml/coco: sync push " + data + " --ref latest");
    out.getBuffer().setLength(0);

    String older = log.get(1).get("root").asText();
    assertThat(quarry("sync", "gc", "--remote", remote, "--grace-period", "0s", "--delete")).isZero();
    Path back = temp.resolve("back");
    assertThat(quarry("sync", "pull", back.toString(), "--remote", remote, "--version", older)).as("%s", err)
        .isZero();
    assertThat(back.resolve("file")).hasContent("one");
    assertThat(quarry("sync", "gc", "--remote", remote, "--retention", "soon")).isEqualTo(1);
    assertThat(err.toString()).contains("Invalid duration: soon");
  }

  /** A real process against an endpoint that accepts and never answers: it ends within the deadline and says why. */
  @Test
  void aHungEndpointEndsTheCommandWithinTheDeadline() throws Exception {
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual().start(() -> {
        while (!hung.isClosed()) {
          try {
            held.add(hung.accept());
          } catch (Exception closed) {
            return;
          }
        }
      });
      Path data = Files.createDirectories(temp.resolve("data"));
      Files.writeString(data.resolve("file"), "content");
      List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
          .toString(), "-cp", System.getProperty("java.class.path"), QuarryCommand.class.getName(), "sync", "status",
          data.toString(), "--remote", "s3://bucket/cas"));
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("QUARRY_S3_ENDPOINT", "http://127.0.0.1:" + hung.getLocalPort());
      builder.environment().put("QUARRY_S3_REQUEST_DEADLINE", "5s");
      builder.environment().put("AWS_ACCESS_KEY_ID", "id");
      builder.environment().put("AWS_SECRET_ACCESS_KEY", "secret");
      long start = System.nanoTime();
      Process process = builder.start();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("ended").isTrue();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(process.exitValue()).isEqualTo(1);
      assertThat(took).as("the deadline, plus a JVM's start").isLessThan(Duration.ofSeconds(5 + 6));
      assertThat(stderr.lines().filter(line -> line.startsWith("quarry: "))).singleElement().asString()
          .startsWith("quarry: Cannot read s3://bucket/cas/")
          .contains("no answer from http://127.0.0.1:" + hung.getLocalPort() + " within 5 s")
          .endsWith("check that the endpoint is up and reachable from here, or allow more with"
              + " QUARRY_S3_REQUEST_DEADLINE");
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
  }

  @Test
  void getRefusesToWriteThroughALinkOrIntoAFolderThatIsNotThere() throws Exception {
    String remote = temp.resolve("remote").toString();
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("hello.txt"), "hello");
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote)).isZero();
    Path target = Files.writeString(temp.resolve("precious"), "keep me");
    Path link = Files.createSymbolicLink(temp.resolve("link"), target);
    err.getBuffer().setLength(0);
    assertThat(quarry("sync", "get", "latest", "hello.txt", link.toString(), "--remote", remote)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot write " + link + ": it is a symbolic link (remove it, or"
        + " name where to write)\n");
    assertThat(link).isSymbolicLink();
    assertThat(target).hasContent("keep me");

    err.getBuffer().setLength(0);
    String newFolder = temp.resolve("newdir") + "/";
    assertThat(quarry("sync", "get", "latest", "hello.txt", newFolder, "--remote", remote)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot write into " + newFolder + ": no such folder (create it"
        + " first, or name a file)\n");
    assertThat(temp.resolve("newdir")).doesNotExist();
  }

  @Test
  void diffLsAndGetInspectVersionsWithoutPulling() throws Exception {
    String remote = temp.resolve("remote").toString();
    Path data = Files.createDirectories(temp.resolve("data/images"));
    Files.writeString(data.resolve("cat.jpg"), "meow");
    Files.writeString(data.resolve("dog.jpg"), "woof");
    assertThat(quarry("sync", "push", temp.resolve("data").toString(), "--remote", remote, "--ref", "v1")).isZero();
    Files.writeString(data.resolve("dog.jpg"), "woof!");
    Files.move(data.resolve("cat.jpg"), data.resolve("kitten.jpg"));
    assertThat(quarry("sync", "push", temp.resolve("data").toString(), "--remote", remote, "--ref", "v2")).isZero();
    out.getBuffer().setLength(0);

    assertThat(quarry("sync", "diff", "v1", "v2", "--remote", remote)).isZero();
    assertThat(out.toString()).isEqualTo("M  images/dog.jpg  (5 B)\nR  images/cat.jpg -> images/kitten.jpg  (4 B)\n"
        + "v1 -> v2: 0 added, 0 deleted, 1 modified, 1 renamed (2 manifests read)\n");
    out.getBuffer().setLength(0);

    assertThat(quarry("sync", "ls", "v2", "images", "--remote", remote, "--json")).isZero();
    JsonNode listing = new ObjectMapper().readTree(out.toString());
    assertThat(listing).hasSize(2);
    assertThat(listing.get(0).get("path").asText()).isEqualTo("images/dog.jpg");
    assertThat(listing.get(0).get("size").asLong()).isEqualTo(5);

    Path copy = temp.resolve("copy");
    assertThat(quarry("sync", "get", "v1", "images", copy.toString(), "--remote", remote)).isZero();
    assertThat(copy.resolve("cat.jpg")).hasContent("meow");
    assertThat(copy.resolve(".quarry")).doesNotExist();
    assertThat(quarry("sync", "get", "v2", "images/dog.jpg", copy.resolve("dog.jpg").toString(), "--remote", remote))
        .isZero();
    assertThat(copy.resolve("dog.jpg")).hasContent("woof!");

    err.getBuffer().setLength(0);
    assertThat(quarry("sync", "diff", "v1", "--remote", remote)).isEqualTo(1);
    assertThat(quarry("sync", "get", "v2", "images/nope", "--remote", remote)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid diff: no B (must name a second version B or a folder with"
        + " --folder, one of them)\nquarry: Cannot find images/nope in v2: images/nope does not exist there\n");
  }

  @Test
  void importDvcMakesAVersionOfWhatDvcPushedAndRefusesADvc2FileInOneLine() throws Exception {
    String remote = temp.resolve("remote").toString();
    Path dvcRemote = temp.resolve("dvc-remote");
    byte[] content = "hello\n".getBytes(StandardCharsets.UTF_8);
    String md5 = "b1946ac92492d2347c6235b4d2611184"; // of "hello\n"
    Files.createDirectories(dvcRemote.resolve("files/md5/b1"));
    Files.write(dvcRemote.resolve("files/md5/b1/" + md5.substring(2)), content);
    Path dvcFile = Files.writeString(temp.resolve("hello.txt.dvc"), "outs:\n- md5: " + md5 + "\n  size: 6\n"
        + "  hash: md5\n  path: hello.txt\n");

    assertThat(quarry("sync", "import-dvc", dvcFile.toString(), "--dvc-remote", dvcRemote.toString(), "--remote",
        remote, "--ref", "v1")).isZero();
    assertThat(out.toString()).startsWith("import-dvc " + md5 + " -> v1 sha256:").contains(": 1 files, 6 B; 1 blobs"
        + " copied (6 B), 0 reused\n");
    out.getBuffer().setLength(0);
    assertThat(quarry("sync", "get", "v1", "hello.txt", temp.resolve("got").toString(), "--remote", remote)).isZero();
    assertThat(temp.resolve("got")).hasContent("hello");

    Path dvc2 = Files.writeString(temp.resolve("old.dvc"), "outs:\n- md5: " + md5 + "\n  path: hello.txt\n");
    err.getBuffer().setLength(0);
    assertThat(quarry("sync", "import-dvc", dvc2.toString(), "--dvc-remote", dvcRemote.toString(), "--remote",
        remote)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid .dvc file " + dvc2 + ": no hash field (must be hash: md5, as"
        + " DVC 3 writes; a DVC 2 file? re-add the data with DVC 3)\n");
  }

  @Test
  void statusAndPullReadAVersionStraightFromADvcRemoteAndRefuseMixedOptionsInOneLine() throws Exception {
    Path dvcRemote = temp.resolve("dvc-remote");
    String md5 = "b1946ac92492d2347c6235b4d2611184"; // of "hello\n"
    Files.createDirectories(dvcRemote.resolve("files/md5/b1"));
    Files.writeString(dvcRemote.resolve("files/md5/b1/" + md5.substring(2)), "hello\n");
    Path dvcFile = Files.writeString(temp.resolve("hello.txt.dvc"), "outs:\n- md5: " + md5 + "\n  size: 6\n"
        + "  hash: md5\n  path: hello.txt\n");
    Path folder = temp.resolve("data");

    assertThat(quarry("sync", "pull", folder.toString(), "--dvc", dvcFile.toString(), "--dvc-remote",
        dvcRemote.toString())).isZero();
    assertThat(folder.resolve("hello.txt")).hasContent("hello");
    assertThat(quarry("sync", "status", folder.toString(), "--dvc", dvcFile.toString(), "--dvc-remote",
        dvcRemote.toString(), "-q")).isZero();
    Files.writeString(folder.resolve("hello.txt"), "changed");
    out.getBuffer().setLength(0);
    assertThat(quarry("sync", "status", folder.toString(), "--dvc", dvcFile.toString(), "--dvc-remote",
        dvcRemote.toString(), "--exit-code")).isEqualTo(1);
    assertThat(out.toString()).contains("hello.txt");

    err.getBuffer().setLength(0);
    assertThat(quarry("sync", "pull", folder.toString(), "--dvc", dvcFile.toString())).isEqualTo(1);
    assertThat(quarry("sync", "status", folder.toString(), "--dvc", dvcFile.toString(), "--dvc-remote",
        dvcRemote.toString(), "--remote", "./store")).isEqualTo(1);
    assertThat(quarry("sync", "pull", folder.toString(), "--dvc", dvcFile.toString(), "--dvc-remote",
        dvcRemote.toString(), "--version", "v1")).isEqualTo(1);
    assertThat(quarry("sync", "pull", folder.toString(), "--dvc-remote", dvcRemote.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid --dvc " + dvcFile + " (must come with --dvc-remote, the"
        + " DVC remote's url in .dvc/config)\n"
        + "quarry: Invalid --remote with --dvc: ./store (must be left out: the version and its data come from"
        + " --dvc-remote)\n"
        + "quarry: Invalid --version with --dvc (must be left out: the .dvc file names the version)\n"
        + "quarry: Invalid --dvc-remote " + dvcRemote + " (must come with --dvc FILE.dvc, the version to read from"
        + " it)\n");
  }
}
