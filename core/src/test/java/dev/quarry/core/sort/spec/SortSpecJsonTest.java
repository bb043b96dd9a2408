package dev.quarry.core.sort.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.json.Json;
import org.junit.jupiter.api.Test;

/** The spec as the operator hands it to its workers: a ShardSortJob's spec in JSON. */
class SortSpecJsonTest {
  private static final String JOB = """
      {"store": {"endpoint": "http://minio:9000"},
       "input": {"template": "s3://datasets/in/train-{0..9}.tar"},
       "output": {"template": "s3://datasets/out/train-{000000..}.tar", "shardSize": "256Mi"},
       "order": {"kind": "shuffle", "seed": 1},
       "scratch": "%s", "overwrite": %s}
      """;

  @Test
  void overwriteIsReadFromTheSpec() throws Exception {
    assertThat(Json.read(JOB.formatted("s3://datasets/.quarry-scratch/ns/job/", "true"), SortSpec.class)
        .isOverwrite()).isTrue();
    assertThat(Json.read(JOB.formatted("s3://datasets/.quarry-scratch/ns/job/", "false"), SortSpec.class)
        .isOverwrite()).isFalse();
  }

  @Test
  void anOverlappingScratchIsRefusedWhenTheSpecIsRead() {
    assertThatThrownBy(() -> Json.read(JOB.formatted("s3://datasets/", "false"), SortSpec.class))
        .hasMessageContaining("Invalid scratch: s3://datasets/ (must not overlap the input location"
            + " s3://datasets/in/");
  }
}
