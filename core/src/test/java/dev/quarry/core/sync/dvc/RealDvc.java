package dev.quarry.core.sync.dvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.commons.io.output.NullOutputStream;

/** A DVC 3 project made and pushed by the real {@code dvc} (from e2e/tools/install-dvc-env.sh). */
final class RealDvc {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  private final Path project;
  private final Map<String, String> environment;

  RealDvc(Path project, Map<String, String> environment) throws Exception {
    this.project = Files.createDirectories(project);
    this.environment = new TreeMap<>(environment);
    this.environment.put("DVC_NO_ANALYTICS", "1");
    dvc("init", "--no-scm", "-q");
  }

  Path project() {
    return project;
  }

  /** Runs dvc in the project; fails the test with its output when it fails. */
  String dvc(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(TestTools.dvc().toString()));
    command.addAll(List.of(args));
    CommandResult result = CommandResult.run(project, environment, command);
    assertThat(result.exitCode()).as("dvc %s: %s%s", String.join(" ", args), result.stdout(), result.stderr())
        .isZero();
    return result.stdout();
  }

  /**
   * A folder of {@code files} files in nested folders: random bytes of sizes from 0 to 300 KiB, one content twice,
   * names with spaces and non-ASCII letters.
   */
  Path dataset(String name, int files, long seed) throws IOException {
    Path data = Files.createDirectories(project.resolve(name));
    Random random = new Random(seed);
    for (int i = 0; i < files; i++) {
      Path file = data.resolve("part-" + (i % 4)).resolve(i % 3 == 0 ? "sub dir/café " + i + ".bin" : "f" + i);
      Files.createDirectories(file.getParent());
      byte[] bytes = new byte[i == 0 ? 0 : random.nextInt(i % 7 == 0 ? 300 << 10 : 4096)];
      random.nextBytes(bytes);
      Files.write(file, bytes);
    }
    Files.copy(data.resolve("part-1/f1"), data.resolve("part-2/same-as-f1"));
    return data;
  }

  /** Pulls a version of {@code cas} into a new folder and checks it holds exactly the bytes of {@code original}. */
  static void assertPulledEqual(CasRemote cas, String version, Path original, Path into) throws IOException {
    try (SyncSession session = new SyncSession(into, null, cas, QUIET)) {
      Pull.run(session, new Pull.Options(version, List.of(), false, null));
    }
    assertSameFiles(original, into);
  }

  /**
   * Pulls the version a .dvc file names straight from the DVC remote at {@code prefix} of {@code store} into a
   * folder, and checks it holds exactly the bytes of {@code original}.
   */
  static SyncResult pullFromDvc(ObjectStore store, String prefix, Path dvcFile, Path original, Path into)
      throws IOException {
    return pullFromDvc(store, prefix, dvcFile, original, into, List.of());
  }

  /** As {@link #pullFromDvc}, with {@code leftOut}: paths of {@code original} that DVC does not track. */
  static SyncResult pullFromDvc(ObjectStore store, String prefix, Path dvcFile, Path original, Path into,
      List<String> leftOut) throws IOException {
    SyncResult result;
    try (SyncSession session = new SyncSession(into, null, new CasRemote(store, prefix, 8), QUIET)) {
      result = DvcPull.run(session, new DvcRemote(store, prefix, DvcFile.read(dvcFile), "pull"),
          new Pull.Options("", List.of(), false, null));
    }
    Map<String, byte[]> expected = files(original);
    leftOut.forEach(expected::remove);
    assertSame(expected, files(into));
    return result;
  }

  /** The status of a folder against the version a .dvc file names on the DVC remote at {@code prefix}. */
  static SyncResult statusFromDvc(ObjectStore store, String prefix, Path dvcFile, Path folder) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, new CasRemote(store, prefix, 8), QUIET)) {
      return DvcStatus.run(session, new DvcRemote(store, prefix, DvcFile.read(dvcFile), "compare with"));
    }
  }

  /** Checks that {@code actual} holds exactly the files of {@code expected}, byte for byte (state folders aside). */
  static void assertSameFiles(Path expected, Path actual) throws IOException {
    assertSame(files(expected), files(actual));
  }

  private static void assertSame(Map<String, byte[]> expected, Map<String, byte[]> actual) {
    assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
    for (Map.Entry<String, byte[]> file : expected.entrySet()) {
      assertThat(actual.get(file.getKey())).as(file.getKey()).isEqualTo(file.getValue());
    }
  }

  private static Map<String, byte[]> files(Path root) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.filter(Files::isRegularFile).toList()) {
        String relative = root.relativize(path).toString();
        if (!relative.startsWith(".quarry/")) {
          files.put(relative, Files.readAllBytes(path));
        }
      }
    }
    return files;
  }
}
