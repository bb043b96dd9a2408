package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart, checked with the real helm built by e2e/tools. */
class HelmChartIT {
  private final Path chart = RepositoryRoot.find().resolve("charts/quarry");

  @Test
  void chartLintsClean() throws Exception {
    String output = helm("lint", chart.toString());
    assertThat(output).contains("1 chart(s) linted, 0 chart(s) failed").doesNotContain("[ERROR]", "[WARNING]");
  }

  @Test
  void templateRendersTheCommittedCrds() throws Exception {
    String rendered = helm("template", "quarry", chart.toString(), "--include-crds");
    List<String> documents = Arrays.stream(rendered.split("(?m)^---\\s*$")).map(String::strip)
        .filter(doc -> doc.contains("kind:")).toList();
    List<Path> crdFiles;
    try (Stream<Path> files = Files.list(chart.resolve("crds"))) {
      crdFiles = files.sorted().toList();
    }
    assertThat(crdFiles).hasSize(3);
    for (Path crd : crdFiles) {
      String committed = Files.readString(crd).strip();
      assertThat(documents).anySatisfy(doc -> assertThat(doc).endsWith(body(committed)));
    }
  }

  /** The YAML without its leading comment line, which helm replaces with a "# Source:" line. */
  private static String body(String yaml) {
    return yaml.lines().filter(line -> !line.startsWith("#")).reduce((a, b) -> a + "\n" + b).orElseThrow();
  }

  private static String helm(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("helm").toString());
    command.addAll(List.of(args));
    return CommandResult.check(null, command.toArray(String[]::new));
  }
}
