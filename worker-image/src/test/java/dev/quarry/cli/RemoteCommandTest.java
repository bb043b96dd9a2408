package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Remotes by name as people use them, on the filesystem store: the folder's config and its local one, the default,
 * every sync command taking a name, one-line refusals; and status that names paths and gates a script.
 */
class RemoteCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;

  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  private int quarry(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  private Path folder() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/images"));
    Files.writeString(data.resolve("1.jpg"), "one");
    Files.writeString(data.resolve("2.jpg"), "two");
    return data.getParent();
  }

  @Test
  void remotesAreAddedListedMadeDefaultAndRemovedInTheFolderConfigAndItsLocalOne() throws Exception {
    Path data = folder();
    String dir = data.toString();

    assertThat(quarry("remote", "add", "--folder", dir, "origin", "../store", "--default")).as(err.toString())
        .isZero();
    assertThat(quarry("remote", "add", "--folder", dir, "--local", "lab", "s3://datasets/cas/coco", "--endpoint",
        "http://minio:9000", "--profile", "minio", "--region", "eu-west-3")).as(err.toString()).isZero();
    assertThat(Files.readString(data.resolve(".quarry/config"))).contains("[core]\n    remote = origin\n",
        "[remote \"origin\"]\n    url = ../store\n");
    assertThat(Files.readString(data.resolve(".quarry/config.local"))).contains("[remote \"lab\"]\n"
        + "    url = s3://datasets/cas/coco\n    endpoint = http://minio:9000\n    profile = minio\n"
        + "    region = eu-west-3\n");

    assertThat(quarry("remote", "list", "--folder", dir)).isZero();
    assertThat(out.toString()).contains("* origin\t../store  (" + data.resolve(".quarry/config") + ")",
        "  lab\ts3://datasets/cas/coco  endpoint=http://minio:9000  profile=minio  region=eu-west-3  ("
            + data.resolve(".quarry/config.local") + ")");

    assertThat(quarry("remote", "default", "--folder", dir, "--local", "lab")).isZero();
    assertThat(quarry("remote", "default", "--folder", dir)).isZero();
    assertThat(out.toString()).as("the local config wins").isEqualTo("lab\n");
    assertThat(quarry("remote", "add", "--folder", dir, "origin", "/elsewhere")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot add remote origin: " + data.resolve(".quarry/config")
        + " already has it (remove it first, or add with --force to replace it)\n");

    assertThat(quarry("remote", "remove", "--folder", dir, "--local", "lab")).isZero();
    assertThat(quarry("remote", "default", "--folder", dir)).isZero();
    assertThat(out.toString()).as("the local default went with its remote").isEqualTo("origin\n");
    assertThat(quarry("remote", "remove", "--folder", dir, "lab")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Unknown remote: lab in " + data.resolve(".quarry/config")
        + " (it has origin; see quarry remote list)\n");
  }

  @Test
  void everySyncCommandTakesARemoteByNameOrTheDefault() throws Exception {
    Path data = folder();
    String dir = data.toString();
    assertThat(quarry("remote", "add", "--folder", dir, "store", "../store", "--default")).isZero();

    assertThat(quarry("sync", "push", dir, "-j", "4")).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("push file://" + temp.resolve("store") + "/ sha256:");
    assertThat(quarry("sync", "status", dir, "--remote", "store", "--exit-code")).as(err.toString()).isZero();
    Path copy = temp.resolve("copy");
    assertThat(quarry("sync", "pull", copy.toString(), "--remote", temp.resolve("store").toString())).isZero();
    assertThat(copy.resolve("images/2.jpg")).hasContent("two");

    assertThat(quarry("sync", "status", dir, "--remote", "stor")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Unknown remote: stor (known: store; add one with quarry remote"
        + " add stor s3://bucket/prefix)\n");
    assertThat(quarry("sync", "pull", copy.toString())).as("the copy has no config").isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot find the remote: no --remote given and no default"
        + " remote set (set one with quarry remote default NAME, or give --remote NAME or --remote"
        + " s3://bucket/prefix)\n");
  }

  @Test
  void aConfigWithATypoOrCredentialsIsRefusedInOneLine() throws Exception {
    Path data = folder();
    Path config = Files.createDirectories(data.resolve(".quarry")).resolve("config");
    Files.writeString(config, "[remote \"origin\"]\n    url = ../store\n    endpont = http://minio:9000\n");
    assertThat(quarry("sync", "status", data.toString(), "--remote", "origin")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid key: endpont in [remote \"origin\"] (line 3 of " + config
        + ") (must be url, endpoint, profile or region)\n");

    Files.writeString(config, "[remote \"origin\"]\n    url = s3://bucket/cas\n    secret_access_key = hunter2\n");
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot keep secret_access_key in a Quarry config (line 3 of "
        + config + "): credentials belong in ~/.aws/credentials under a profile (then set profile = NAME) or in"
        + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, never in a file that may be committed\n");
    assertThat(err.toString()).doesNotContain("hunter2");

    Files.delete(config);
    assertThat(quarry("remote", "add", "--folder", data.toString(), "origin", "s3://bucket/cas", "--endpoint",
        "http://me:hunter2@minio:9000")).isEqualTo(1);
    assertThat(err.toString()).startsWith("quarry: Cannot keep a user and password in the endpoint of remote"
        + " origin in a Quarry config: credentials belong in ~/.aws/credentials").doesNotContain("hunter2");
    assertThat(config).doesNotExist();
    Files.writeString(config, "; the team's store\n[core]\n    remote = origin  # the default\n[remote \"origin\"]\n"
        + "    url = \"../store\" ; kept relative to the folder\n");
    assertThat(quarry("remote", "list", "--folder", data.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo("* origin\t../store  (" + config + ")\n");
    assertThat(quarry("remote", "add", "--folder", data.toString(), "my/remote", "s3://bucket/cas")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid remote name: my/remote (must be 1 to 64 letters, digits,"
        + " '.', '_' or '-', starting with a letter or digit)\n");
  }

  @Test
  void aConfigIsNeverWrittenOrReadThroughALinkAndIsReadBounded() throws Exception {
    Path data = folder();
    Path quarryFolder = Files.createDirectories(data.resolve(".quarry"));
    Path bashrc = Files.writeString(temp.resolve("bashrc"), "alias ls='ls --color'\n");
    Files.createSymbolicLink(quarryFolder.resolve("config.tmp"), bashrc);
    assertThat(quarry("remote", "add", "--folder", data.toString(), "origin", "../store")).as(err.toString())
        .isZero();
    assertThat(Files.readString(bashrc)).as("a planted temporary is not written through").isEqualTo(
        "alias ls='ls --color'\n");
    assertThat(Files.readString(quarryFolder.resolve("config"))).contains("url = ../store");

    Path config = quarryFolder.resolve("config");
    Files.delete(config);
    Files.createSymbolicLink(config, bashrc);
    assertThat(quarry("remote", "add", "--folder", data.toString(), "lab", "../lab")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use " + config + ": it is a symbolic link (a Quarry config"
        + " must be a regular file)\n");
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use " + config + ": it is a symbolic link (a Quarry config"
        + " must be a regular file)\n");
    assertThat(Files.readString(bashrc)).isEqualTo("alias ls='ls --color'\n");
    Files.delete(config);

    Path linkedFolder = data.resolveSibling("linked");
    Files.createDirectories(linkedFolder);
    Path moved = Files.move(quarryFolder, temp.resolve("elsewhere"));
    Files.createSymbolicLink(quarryFolder, moved);
    assertThat(quarry("remote", "add", "--folder", data.toString(), "origin", "../store")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use " + quarryFolder + ": it is a symbolic link (a Quarry"
        + " config folder must be a folder)\n");
    Files.delete(quarryFolder);
    Files.createDirectories(quarryFolder);

    Files.write(config, new byte[(1 << 20) + 1]);
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot read " + config + ": it is larger than 1 MiB, more than a"
        + " Quarry config may hold\n");
    Files.write(config, new byte[] {'#', (byte) 0xff, '\n'});
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Invalid config: " + config + " (must be UTF-8 text)\n");
    Files.delete(config);
    Path fifo = temp.resolve("fifo");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    Files.createSymbolicLink(config, fifo);
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use " + config + ": it is a symbolic link (a Quarry config"
        + " must be a regular file)\n");
    Files.delete(config);
    assertThat(new ProcessBuilder("mkfifo", config.toString()).start().waitFor()).isZero();
    assertThat(quarry("remote", "list", "--folder", data.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use " + config + ": it is not a regular file (a Quarry"
        + " config must be a regular file)\n");
  }

  @Test
  void statusResultFileCutsPathsToBytesAtACodePoint() throws Exception {
    Path data = folder();
    String remote = temp.resolve("store").toString();
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote)).isZero();
    Files.writeString(data.resolve("images/" + "a".repeat(89) + "\uD83D\uDE00".repeat(10)), "emoji");
    Files.writeString(data.resolve("images/" + "猫".repeat(80)), "cat");
    Path result = temp.resolve("result.json");
    assertThat(quarry("sync", "status", data.toString(), "--remote", remote, "--result", result.toString()))
        .as(err.toString()).isZero();
    JsonNode paths = JSON.readTree(result.toFile()).get("changes").get("added").get("paths");
    assertThat(paths).hasSize(2);
    for (JsonNode path : paths) {
      assertThat(path.asText().getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(100);
      assertThat(path.asText()).endsWith("...");
    }
  }

  @Test
  void aNamedRemoteSaysWhichFileItCameFromAndTheCommittedConfigCannotSendToPlainHttp() throws Exception {
    Path data = folder();
    Path config = Files.createDirectories(data.resolve(".quarry")).resolve("config");
    Files.writeString(config, "[remote \"origin\"]\n    url = ../store\n");
    assertThat(quarry("sync", "push", data.toString(), "--remote", "origin")).as(err.toString()).isZero();
    assertThat(err.toString()).contains("remote origin (from " + config + "): " + temp.resolve("store") + "\n");
    assertThat(quarry("sync", "status", data.toString(), "--remote", "origin")).isZero();
    assertThat(err.toString()).contains("remote origin (from " + config + "): ");

    assertThat(quarry("remote", "add", "--folder", data.toString(), "lab", "s3://bucket/cas", "--endpoint",
        "http://minio:9000")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot add remote lab to " + config + " with the plain http"
        + " endpoint http://minio:9000: the folder's config is committed, and a remote it gives cannot use plain"
        + " http (add it with --local for this machine, or --global)\n");
    Files.writeString(config, "[remote \"origin\"]\n    url = s3://bucket/cas\n    endpoint = http://evil:9000\n"
        + "    profile = prod\n");
    assertThat(quarry("sync", "push", data.toString(), "--remote", "origin")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("quarry: Cannot use remote origin of " + config + ": its endpoint"
        + " http://evil:9000 is plain http, set by the file that comes with the folder (a clone could send your"
        + " requests and data anywhere); to trust it, add the remote to this machine's config: quarry remote add"
        + " --local origin s3://bucket/cas --endpoint http://evil:9000\n");

    Files.writeString(data.resolve(".quarry/config.local"), "[remote \"origin\"]\n    url = s3://bucket/cas\n"
        + "    endpoint = http://127.0.0.1:1\n");
    assertThat(quarry("sync", "status", data.toString(), "--remote", "origin")).isEqualTo(1);
    assertThat(err.toString()).as("this machine's config may use plain http").contains("remote origin (from "
        + data.resolve(".quarry/config.local") + "): s3://bucket/cas, endpoint http://127.0.0.1:1\n").doesNotContain("plain http");
  }

  @Test
  void aProfileOrRegionWithControlCharactersIsPrintedEscaped() throws Exception {
    Path data = folder();
    Path config = Files.createDirectories(data.resolve(".quarry")).resolve("config.local");
    Files.writeString(config, "[remote \"origin\"]\n    url = s3://bucket/cas\n    profile = p\u001b[2Jx\n"
        + "    region = r\u001b]0;x\n");
    assertThat(quarry("remote", "list", "--folder", data.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("profile=p\\u001b[2Jx  region=r\\u001b]0;x").doesNotContain("\u001b");
    assertThat(quarry("sync", "status", data.toString(), "--remote", "origin")).isEqualTo(1);
    assertThat(err.toString()).contains("Invalid AWS profile: p\\u001b[2Jx (must be a profile in ")
        .doesNotContain("\u001b");
  }

  @Test
  void statusNamesPathsAndWithExitCodeOrQuietExitsOneOnADifference() throws Exception {
    Path data = folder();
    String remote = temp.resolve("store").toString();
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote)).isZero();
    assertThat(quarry("sync", "status", data.toString(), "--remote", remote, "-q")).isZero();
    assertThat(out.toString() + err).isEmpty();

    for (int i = 0; i < 30; i++) {
      Files.writeString(data.resolve("images/new-" + (100 + i) + ".jpg"), "new " + i);
    }
    Files.writeString(data.resolve("images/1.jpg"), "ONE");
    assertThat(quarry("sync", "status", data.toString(), "--remote", remote)).as("no gate asked").isZero();
    assertThat(out.toString()).contains("  added: 30 paths\n    images/new-100.jpg\n",
        "    images/new-119.jpg\n    and 10 more (--json lists every path)\n",
        "  modified: 1 path\n    images/1.jpg\n", "  not on the remote: 31 paths\n");
    assertThat(quarry("sync", "status", data.toString(), "--remote", remote, "--exit-code")).isEqualTo(1);
    assertThat(out.toString()).contains("  modified: 1 path\n");
    assertThat(err.toString()).doesNotContain("quarry:");
    Path result = temp.resolve("result.json");
    assertThat(quarry("sync", "status", data.toString(), "--remote", remote, "-q", "--result", result.toString()))
        .isEqualTo(1);
    assertThat(out.toString() + err).isEmpty();
    JsonNode added = JSON.readTree(result.toFile()).get("changes").get("added");
    assertThat(added.get("count").asLong()).isEqualTo(30);
    assertThat(added.get("paths")).as("capped for the termination message").hasSize(5);

    assertThat(quarry("sync", "status", data.toString(), "--remote", remote, "--json")).isZero();
    assertThat(JSON.readTree(out.toString()).get("changes").get("added").get("paths")).hasSize(30);

    String missing = temp.resolve("no-such-folder").toString();
    assertThat(quarry("sync", "status", missing, "--remote", remote)).as("an error, no gate asked").isEqualTo(1);
    assertThat(quarry("sync", "status", missing, "--remote", remote, "--exit-code")).as("as diff(1)").isEqualTo(2);
    assertThat(err.toString()).startsWith("quarry: ");
    assertThat(quarry("sync", "status", missing, "--remote", remote, "-q")).isEqualTo(2);
    assertThat(quarry("sync", "status", "--help")).isZero();
    assertThat(out.toString().replaceAll("\\s+", " ")).contains("1 when the folder and the ref's version differ",
        "an error exits 2");
  }
}
