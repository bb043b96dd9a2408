package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --result FILE} is how worker pods hand their result to the operator, through the termination message that
 * Kubernetes cuts at 4 KiB: it is one compact line.
 */
class ResultFileIT {
  @TempDir Path temp;

  @Test
  void aSyncResultFileIsOneCompactJsonLine() throws Exception {
    Path folder = Files.createDirectories(temp.resolve("data/sub"));
    Files.writeString(folder.resolve("a.txt"), "hello");
    CommandResult push = QuarryJar.run(temp, "sync", "push", temp.resolve("data").toString(), "--remote",
        temp.resolve("cas").toString(), "--result", temp.resolve("result.json").toString());
    assertThat(push.exitCode()).as(push.stderr()).isZero();
    String result = Files.readString(temp.resolve("result.json"));
    assertThat(result.lines()).hasSize(1);
    assertThat(result).startsWith("{\"operation\":\"push\"").contains("\"files\":1").doesNotContain(": ");
  }
}
