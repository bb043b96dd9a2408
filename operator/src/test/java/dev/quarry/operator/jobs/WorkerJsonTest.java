package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerJsonTest {
  record Result(String phase, long records) {}

  @Test
  void readsAResultAndIgnoresFieldsItDoesNotKnow() {
    assertThat(WorkerJson.parse("{\"phase\":\"extract\",\"records\":7,\"new\":true}", Result.class))
        .contains(new Result("extract", 7));
  }

  @Test
  void aCutOrMissingResultIsNoResult() {
    assertThat(WorkerJson.parse("{\"phase\":\"extract\",\"rec", Result.class)).isEmpty();
    assertThat(WorkerJson.parse("quarry: Cannot read s3://b/k: Access Denied", Result.class)).isEmpty();
    assertThat(WorkerJson.parse(null, Result.class)).isEmpty();
  }

  @Test
  void theLastLineOfALogIsTheWorkersError() {
    assertThat(WorkerJson.lastLine("extract: 3/10 shards\nquarry: Cannot read s3://b/k: Access Denied\n\n"))
        .isEqualTo("quarry: Cannot read s3://b/k: Access Denied");
  }

  @Test
  void aWorkersLineInAStatusIsBoundedAndHasNoControlCharacters() {
    String line = "quarry: Cannot parse keymap line " + "x".repeat(4000) + "\u001b[31m";
    String message = WorkerJson.lastLine(line);
    assertThat(message).hasSize(WorkerJson.MESSAGE_LIMIT).startsWith("quarry: Cannot parse keymap line xxx")
        .endsWith("... (cut)");
    assertThat(WorkerJson.bounded("bad\u0000byte\tand\u001b[0m escape")).isEqualTo("bad byte and [0m escape");
    assertThat(WorkerJson.bounded(null)).isNull();
  }

  @Test
  void writesWithoutNulls() {
    assertThat(WorkerJson.write(Map.of("a", 1))).isEqualTo("{\"a\":1}");
    assertThat(WorkerJson.write(new Result(null, 2))).isEqualTo("{\"records\":2}");
  }
}
