package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupTrainingTest {
  @TempDir Path temp;

  @Test
  void runsEveryPodCommandToTheEnd() throws Exception {
    StartupTraining.run(temp);

    // The phases committed, with the same shards as the local run: every phase command ran through.
    List<Path> phases = shards(temp.resolve("phases"));
    assertThat(phases).hasSizeGreaterThan(1);
    assertThat(phases.stream().map(p -> p.getFileName().toString()).toList())
        .isEqualTo(shards(temp.resolve("run")).stream().map(p -> p.getFileName().toString()).toList());
    for (Path shard : phases) {
      assertThat(Files.readAllBytes(shard)).isEqualTo(Files.readAllBytes(temp.resolve("run").resolve(
          shard.getFileName())));
    }
    try (Stream<Path> manifests = Files.list(temp.resolve("phases"))) {
      assertThat(manifests.map(p -> p.getFileName().toString())).anyMatch(name -> name.endsWith(".json"));
    }
    assertThat(temp.resolve("pulled/folder/file")).hasContent("quarry");
    // The status against the S3 remote on the training endpoint ran to its end: it recorded the folder it scanned.
    assertThat(temp.resolve("sync/.quarry/config.local")).content().contains("quarry-training");
    assertThat(temp.resolve("s3-state/state.db")).isNotEmptyFile();
  }

  @Test
  void theTrainingEndpointAnswersEveryRequestThatTheObjectIsMissing() throws Exception {
    try (MissingObjectsEndpoint endpoint = MissingObjectsEndpoint.start()) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (String method : List.of("GET", "HEAD", "PUT")) {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(endpoint.url().resolve("/bucket/key"))
            .method(method, method.equals("PUT") ? HttpRequest.BodyPublishers.ofString("body")
                : HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method).isEqualTo(404);
        assertThat(response.body()).isEqualTo(method.equals("HEAD") ? ""
            : "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code>"
                + "<Message>The specified key does not exist.</Message></Error>");
      }
    }
  }

  @Test
  void aFailingCommandFailsTheTrainingWithItsOutput() throws Exception {
    Files.writeString(temp.resolve("remote"), "a file where the sync remote's folder should be");

    assertThatThrownBy(() -> StartupTraining.run(temp)).isInstanceOf(IOException.class)
        .hasMessageContaining("quarry sync push").hasMessageContaining("exited with 1")
        .hasMessageContaining("remote");
  }

  private static List<Path> shards(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tar")).sorted().toList();
    }
  }
}
