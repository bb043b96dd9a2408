package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository's shell scripts run under {@code set -o pipefail} (or are sourced by scripts that do), where a
 * pipeline whose reader exits before reading all its input ({@code grep -q}, {@code head}, {@code awk '...exit'})
 * fails at random: the writer gets SIGPIPE (exit 141) when it writes after the reader left, which happens under
 * load. Such a test is captured into a variable and tested, or the reader reads everything.
 */
class ShellPipelinesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern PIPE = Pattern.compile("(?<![|>])\\|(?!\\|)&?");
  private static final Pattern GREP_STOPS_EARLY =
      Pattern.compile("-[a-zA-Z]*[qlm][a-zA-Z0-9]*|--quiet|--silent|--max-count.*|--files-with-matches");
  private static final Pattern SED_QUIT = Pattern.compile("(^|[\\s;{}/0-9$])[qQ]([\\s;}0-9]|$)");

  @Test
  void noPipelineEndsInAReaderThatExitsEarly() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path script : shellScripts()) {
      List<String> lines = Files.readAllLines(script, StandardCharsets.UTF_8);
      for (int start = 0; start < lines.size(); ) {
        int end = start;
        StringBuilder command = new StringBuilder(code(lines.get(start)));
        while (end + 1 < lines.size() && continues(command, code(lines.get(end + 1)))) {
          end++;
          command.append(' ').append(code(lines.get(end)));
        }
        if (readsPartly(command)) {
          found.add(ROOT.relativize(script) + ":" + (start + 1) + ": " + command.toString().strip());
        }
        start = end + 1;
      }
    }
    assertThat(found).as("pipelines whose writer can die of SIGPIPE under pipefail").isEmpty();
  }

  @Test
  void theCheckFindsTheFormsThatFail() {
    for (String pipeline : List.of("\"$out/etcd\" --version | grep -q \"etcd Version: $v\"",
        "kind get clusters | grep -qx \"$KIND_CLUSTER\"", "java -version 2>&1 | head -1",
        "apt-get indextargets | awk '$2 == main { print $1; exit }'", "go list -m | sed -n 1p | head -n 1",
        "ps | grep --quiet java", "ls | grep -m1 x", "make |& head -n 1",
        "ls | sed 1q", "echo \"$(kubectl logs java | head -n 1)\"")) {
      assertThat(readsPartly(pipeline)).as(pipeline).isTrue();
    }
    for (String pipeline : List.of("ls | grep x >/dev/null", "a || head -1 file", "a | grep -c x", "a |& tee log",
        "a | sed 's/^/  /'", "case $x in a | quiet)",
        "[ \"$(findmnt | grep -cx \"$m\")\" -eq 2 ] || fail \"-q\"", "sed -n '2,26p' \"$0\" | sed 's/^# //'; exit 0 ;;",
        "printf '%s\\n' \"$table\" | sed 's/q/Q/' | tr -s ' '")) {
      assertThat(readsPartly(pipeline)).as(pipeline).isFalse();
    }
  }

  /** Whether a command has a pipeline with a reader after the first command that may leave input unread. */
  private static boolean readsPartly(CharSequence command) {
    return PIPE.splitAsStream(command).skip(1).map(ShellPipelinesTest::words).anyMatch(words -> !words.isEmpty()
        && switch (words.getFirst()) {
          case "head" -> true;
          case "grep", "egrep", "fgrep" -> words.stream().anyMatch(word -> GREP_STOPS_EARLY.matcher(word).matches());
          case "awk", "gawk", "mawk" -> words.stream().anyMatch(word -> word.matches("(?s).*\\bexit\\b.*"));
          case "sed" -> words.stream().skip(1).anyMatch(word -> SED_QUIT.matcher(word).find());
          default -> false;
        });
  }

  /**
   * The words of a command, as written (quotes kept), up to the first unquoted {@code ;}, {@code &}, {@code |},
   * {@code )} or redirection: what follows belongs to the next command.
   */
  private static List<String> words(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ';' || c == '&' || c == '|' || c == ')' || c == '>' || c == '<') {
        break;
      } else if (Character.isWhitespace(c)) {
        if (!word.isEmpty()) {
          words.add(word.toString());
          word.setLength(0);
        }
        continue;
      }
      word.append(c);
    }
    if (!word.isEmpty()) {
      words.add(word.toString());
    }
    return words;
  }

  /** A line without a whole-line comment. */
  private static String code(String line) {
    return line.stripLeading().startsWith("#") ? "" : line;
  }

  /** Whether the next line continues the command: after a backslash or a pipe, or when it starts with a pipe. */
  private static boolean continues(CharSequence command, String next) {
    String text = command.toString().stripTrailing();
    return text.endsWith("\\") || (text.endsWith("|") && !text.endsWith("||")) || next.stripLeading().startsWith("|");
  }

  /** Shell scripts: {@code *.sh}, and files starting with a shell's #! line (the launcher, CI's entry point). */
  private static List<Path> shellScripts() throws IOException {
    try (Stream<Path> files = Files.walk(ROOT)) {
      List<Path> scripts = files.filter(file -> !ignored(ROOT.relativize(file))).filter(Files::isRegularFile)
          .filter(ShellPipelinesTest::isShellScript).sorted().toList();
      assertThat(scripts).as("shell scripts under " + ROOT)
          .contains(ROOT.resolve("quarry"), ROOT.resolve("e2e/tools/install-test-tools.sh"));
      return scripts;
    }
  }

  private static boolean ignored(Path relative) {
    for (Path part : relative) {
      String name = part.toString();
      if (name.startsWith(".") && !name.equals(".ci") || name.equals("target") || name.equals("node_modules")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isShellScript(Path file) {
    if (file.toString().endsWith(".sh")) {
      return true;
    }
    try (var in = Files.newInputStream(file)) {
      String start = new String(in.readNBytes(64), StandardCharsets.ISO_8859_1);
      return start.matches("(?s)#!\\s*/(usr/)?bin/(env\\s+)?(ba|da)?sh\\b.*");
    } catch (IOException e) {
      return false;
    }
  }
}
