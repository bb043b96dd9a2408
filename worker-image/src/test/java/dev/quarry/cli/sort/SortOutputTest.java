package dev.quarry.cli.sort;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.store.RequestTotals;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SortOutputTest {
  private static PhaseResult result(String phase, int warnings, int shardNames) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("peakHeapBytes", 123456789L);
    if (shardNames > 0) {
      details.put("shardNames", IntStream.range(0, shardNames).mapToObj(i -> String.format(
          "s3://a-bucket-with-a-long-name/datasets/imagenet/shuffled/train-%06d.tar (2573 records, 268435456 bytes)",
          i)).toList());
    }
    List<String> warningList = new ArrayList<>();
    for (int i = 0; i < warnings; i++) {
      warningList.add("Record key imagenet/train/n01440764_" + i + " is in input shards 12 and 47; the copy in 47"
          + " is dropped (policies.duplicateRecord: warn)");
    }
    return new PhaseResult(phase, 0, 8, "2026-11-22T01:00:00Z", "2026-11-22T01:01:00Z", 60, 31, 7990, 7_990_000,
        133_166, new RequestTotals(1, 2, 3, 4, 0), Map.of("duplicateRecord", (long) warnings), warningList, details);
  }

  @Test
  void aResultThatFitsATerminationMessageIsWrittenWhole() {
    List<PhaseResult> results = List.of(result("extract", 2, 0), result("plan", 0, 5));
    assertThat(SortOutput.forResultFile(results)).isEqualTo(Json.writeCompact(results));
  }

  @Test
  void longWarningListsAndShardNamesGiveWaySoThatTheResultStillParsesInFourKib() throws Exception {
    List<PhaseResult> results = List.of(result("extract", 100, 0), result("plan", 0, 20));
    assertThat(Json.writeCompact(results).getBytes(StandardCharsets.UTF_8)).hasSizeGreaterThan(8192);

    String text = SortOutput.forResultFile(results);
    assertThat(text.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(SortOutput.RESULT_FILE_LIMIT);
    JsonNode parsed = new ObjectMapper().readTree(text);
    assertThat(parsed).hasSize(2);
    JsonNode extract = parsed.get(0);
    assertThat(extract.path("problems").path("duplicateRecord").asLong()).as("counts stay whole").isEqualTo(100);
    assertThat(extract.path("records").asLong()).isEqualTo(7990);
    JsonNode warnings = extract.path("warnings");
    assertThat(warnings.get(0).asText()).contains("n01440764_0 ");
    assertThat(warnings.get(warnings.size() - 1).asText()).matches("\\.\\.\\. and \\d+ more warnings");
    assertThat(parsed.get(1).path("details").has("shardNames")).isFalse();
    assertThat(parsed.get(1).path("details").path("peakHeapBytes").asLong()).isEqualTo(123456789L);
  }
}
