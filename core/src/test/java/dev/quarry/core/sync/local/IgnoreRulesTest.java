package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table of gitignore rules and paths, each with the answer git documents; every row is also put to the real
 * {@code git check-ignore} (over the same rules, with the paths made on disk), so the table cannot drift from git.
 */
class IgnoreRulesTest {
  @TempDir Path temp;

  /** A path of a case: a trailing '/' makes it a folder. '+' marks ignored, '-' not ignored. */
  private record Case(String rules, List<String> paths) {}

  private static final List<Case> TABLE = List.of(
      new Case("*.log", List.of("+a.log", "+deep/er/b.log", "-a.txt", "-log", "+x.log/", "-deep/")),
      new Case("build/", List.of("+build/", "+build/out.bin", "+src/build/", "+src/build/x", "-src/", "-notbuild/",
          "-docs/build")),
      new Case("/top.txt", List.of("+top.txt", "-sub/top.txt")),
      new Case("doc/frotz/", List.of("+doc/frotz/", "+doc/frotz/a", "-a/doc/frotz/", "-doc/", "-doc/frotz2/")),
      new Case("doc/*.txt", List.of("+doc/a.txt", "-doc/sub/a.txt", "-a.txt", "-x/doc/a.txt")),
      new Case("**/logs", List.of("+logs/", "+a/logs/", "+a/b/logs", "-a/logsx")),
      new Case("**/logs/debug.log", List.of("+logs/debug.log", "+a/b/logs/debug.log", "-logs/x/debug.log")),
      new Case("abc/**", List.of("-abc/", "+abc/x", "+abc/y/z", "-x/abc/y")),
      new Case("a/**/b", List.of("+a/b", "+a/x/b", "+a/x/y/b", "-a/xb", "-c/a/b")),
      new Case("a**b", List.of("+ab", "+axxb", "-a/b/", "-a/c/b")),
      new Case("*.tmp\n!keep.tmp", List.of("+x.tmp", "-keep.tmp", "+d/x.tmp", "-d/keep.tmp")),
      new Case("build/\n!build/keep.txt", List.of("+build/", "+build/keep.txt", "+build/other")),
      new Case("/*\n!/src/", List.of("+readme", "-src/", "-src/main.c", "+data/", "+data/x")),
      new Case("*\n!*/\n!*.py", List.of("-pkg/", "+pkg/data.bin", "-pkg/mod.py", "-top.py", "+top.bin")),
      new Case("# a comment\n\n   \n\\#hash\n\\!bang", List.of("+#hash", "+!bang", "-# a comment", "-a")),
      new Case("trailing   \nspace\\ ", List.of("+trailing", "-trailing   ", "+space ", "-space")),
      new Case("file?.txt\n[ab]c\n[!0-9]x\n[[:digit:]]y\n[a-c]z", List.of("+file1.txt", "-file12.txt", "+ac",
          "+bc", "-cc", "+ax", "-1x", "+7y", "-ay", "+bz", "-dz")),
      new Case("a\\*b\nq\\?", List.of("+a*b", "-axb", "+q?", "-qx")),
      new Case("dir/sub", List.of("+dir/sub/", "+dir/sub/file", "-other/dir/sub", "-dir/subx")),
      new Case("*.bin\n!/keep/**", List.of("+a.bin", "-keep/a.bin", "-keep/x/b.bin", "+nokeep/a.bin")),
      new Case("/", List.of("-a", "-b/")),
      new Case("data/\n!data/", List.of("-data/", "-data/x")),
      new Case("a/\n!a/b/", List.of("+a/", "+a/b/", "+a/b/c")));

  @Test
  void everyRowOfTheTableMatchesWhatGitSays() throws Exception {
    List<String> wrong = new ArrayList<>();
    int caseNumber = 0;
    for (Case c : TABLE) {
      IgnoreRules rules = IgnoreRules.parse(c.rules().lines().toList());
      Path repo = Files.createDirectories(temp.resolve("case" + caseNumber++));
      Set<String> byGit = gitIgnores(repo, c);
      for (String row : c.paths()) {
        boolean expected = row.charAt(0) == '+';
        String path = row.substring(1);
        boolean folder = path.endsWith("/");
        String plain = folder ? path.substring(0, path.length() - 1) : path;
        if (rules.ignores(plain, folder) != expected) {
          wrong.add("rules " + c.rules().replace("\n", " | ") + ": " + path + " ignored by quarry: " + !expected);
        }
        if (byGit.contains(plain) != expected) {
          wrong.add("rules " + c.rules().replace("\n", " | ") + ": " + path + " ignored by git: " + !expected);
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void aWalkThatSkipsIgnoredFoldersNeedsOnlyThePathItself() {
    IgnoreRules rules = IgnoreRules.parse(List.of("build/", "!build/keep.txt"));
    assertThat(rules.ignoresItself("build/keep.txt", false)).isFalse();
    assertThat(rules.ignores("build/keep.txt", false)).isTrue();
  }

  @Test
  void theFileIsReadFromTheFolderTopAndAMissingOneIgnoresNothing() throws IOException {
    assertThat(IgnoreRules.of(temp).isEmpty()).isTrue();
    Files.writeString(temp.resolve(IgnoreRules.FILE_NAME), "*.log\n");
    assertThat(IgnoreRules.of(temp).ignores("x.log", false)).isTrue();
  }

  @Test
  void aFileThatIsNotUtf8IsRefusedInOneLine() throws IOException {
    Path file = Files.write(temp.resolve(IgnoreRules.FILE_NAME), new byte[] {'*', '.', (byte) 0xff, '\n'});
    assertThatThrownBy(() -> IgnoreRules.of(temp))
        .hasMessage("Invalid .quarryignore: " + file + " (must be UTF-8 text)");
  }

  @Test
  void anUnknownCharacterClassOrARangeThatGoesDownIsRefusedInOneLineNamingTheFile() throws IOException {
    assertThatThrownBy(() -> IgnoreRules.parse(List.of("*.log", "[[:nope:]]")))
        .hasMessage("Invalid character class: [:nope:] (line 2 of .quarryignore) (must be one of alnum, alpha, blank,"
            + " cntrl, digit, graph, lower, print, punct, space, upper, xdigit)");
    Path file = Files.writeString(temp.resolve(IgnoreRules.FILE_NAME), "# ranges\n[z-a].txt\n");
    assertThatThrownBy(() -> IgnoreRules.of(temp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid range: z-a (line 2 of " + file + ") (must go up, as a-z)");
  }

  @Test
  void aPathologicalGlobMatchesInLinearTime() {
    IgnoreRules rules = IgnoreRules.parse(List.of("*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*a*a*a*a*/**/b"));
    String name = "a".repeat(255);
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      for (int i = 0; i < 100; i++) {
        assertThat(rules.ignores(name, false)).isFalse();
        assertThat(rules.ignores(name + "/" + name + "/" + name + "/c", false)).isFalse();
      }
    });
    assertThat(rules.ignores(name + "b", false)).isTrue();
  }

  @Test
  void anIgnoreFileLargerThanOneMibIsRefusedInOneLine() throws IOException {
    Path file = Files.writeString(temp.resolve(IgnoreRules.FILE_NAME), "#".repeat((1 << 20) + 1));
    assertThatThrownBy(() -> IgnoreRules.of(temp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read " + file + ": it is larger than 1 MiB, more than a .quarryignore may hold");
  }

  /** The paths of {@code c} that {@code git check-ignore} reports ignored, with the paths made on disk. */
  private static Set<String> gitIgnores(Path repo, Case c) throws IOException, InterruptedException {
    run(repo, null, "git", "init", "-q");
    Files.writeString(repo.resolve(".gitignore"), c.rules() + "\n", StandardCharsets.UTF_8);
    Map<String, Boolean> paths = new LinkedHashMap<>();
    for (String row : c.paths()) {
      String path = row.substring(1);
      paths.put(path.endsWith("/") ? path.substring(0, path.length() - 1) : path, path.endsWith("/"));
    }
    for (Map.Entry<String, Boolean> entry : paths.entrySet()) {
      Path onDisk = repo.resolve(entry.getKey());
      if (entry.getValue()) {
        Files.createDirectories(onDisk);
      } else if (!Files.isDirectory(onDisk)) {
        Files.createDirectories(onDisk.getParent());
        Files.writeString(onDisk, "x");
      }
    }
    String output = run(repo, String.join("\n", paths.keySet()) + "\n", "git", "-c", "core.excludesFile=/dev/null",
        "-c", "core.ignoreCase=false", "check-ignore", "--no-index", "--stdin");
    return new TreeSet<>(output.lines().toList());
  }

  private static String run(Path directory, String input, String... command) throws IOException,
      InterruptedException {
    Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
    if (input != null) {
      process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    }
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s: %s", String.join(" ", command), output).isIn(0, 1);
    return output;
  }

  @Test
  void rulesFromAFolderAboveMatchPathsAsSeenFromThereAndLaterRulesWin() {
    IgnoreRules top = IgnoreRules.parse(List.of("*.tmp", "/group/data/cache/", "/data/x"), "top", "group/data/");
    IgnoreRules group = IgnoreRules.parse(List.of("/data/notes.txt", "!keep.tmp"), "group", "data/");
    IgnoreRules rules = top.then(group);
    assertThat(rules.ignores("a.tmp", false)).isTrue();
    assertThat(rules.ignores("keep.tmp", false)).as("the later file re-includes it").isFalse();
    assertThat(rules.ignores("cache/big.bin", false)).isTrue();
    assertThat(rules.ignores("notes.txt", false)).isTrue();
    assertThat(rules.ignores("sub/notes.txt", false)).isFalse();
    assertThat(rules.ignores("x", false)).as("/data/x is under the top, not under group").isFalse();
    assertThat(group.then(top).ignores("keep.tmp", false)).as("the other order: *.tmp wins").isTrue();
  }

  @Test
  void aUnionIgnoresWhatEitherIgnoresEachByItsOwnOrder() {
    IgnoreRules quarry = IgnoreRules.parse(List.of("local.csv", "*.log", "!keep.log"));
    IgnoreRules dvc = IgnoreRules.parse(List.of("*", "!*/", "!*.csv"), "dvc", "");
    IgnoreRules union = quarry.or(dvc);
    assertThat(union.ignores("local.csv", false)).as("the other's negation does not re-include it").isTrue();
    assertThat(union.ignores("data.csv", false)).isFalse();
    assertThat(union.ignores("notes.txt", false)).isTrue();
    assertThat(union.ignores("keep.log", false)).as("one's negation does not undo the other's *").isTrue();
    assertThat(quarry.then(dvc).ignores("local.csv", false)).as("then: the later set's negation wins").isFalse();
    IgnoreRules later = IgnoreRules.parse(List.of("data.csv"));
    assertThat(union.then(later).ignores("data.csv", false)).as("(a or b) then c is (a then c) or (b then c)")
        .isTrue();
    assertThat(IgnoreRules.none().or(IgnoreRules.none()).isEmpty()).isTrue();
  }
}
