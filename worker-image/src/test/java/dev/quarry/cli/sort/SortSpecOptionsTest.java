package dev.quarry.cli.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.S3Settings;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --spec} takes a ShardSortJob as {@code kubectl apply} does, or its spec, in YAML or JSON; its store
 * connection is used; mistakes are one line naming the file and line, and name each field as the user gave it.
 */
class SortSpecOptionsTest {
  private static final String MANIFEST = """
      # The README's job, as applied with kubectl.
      apiVersion: quarry.dev/v1alpha1
      kind: ShardSortJob
      metadata:
        name: shuffle-train
        namespace: ml
      spec:
        store:
          endpoint: http://minio.storage:9000
          region: eu-west-3
          pathStyle: true
          credentialsSecret:
            name: minio-credentials
        input:
          template: s3://datasets/train-{000000..000127}.tar
        output:
          template: s3://datasets/shuffled/train-{000000..}.tar
          shardSize: 256Mi
        order:
          kind: shuffle
          seed: 7
        scratch: s3://datasets/.quarry-scratch/shuffle-train/
        workers:
          memoryBudget: 2Gi
          retriesPerIndex: 2
          resources:
            requests: {cpu: "2"}
      """;

  @TempDir Path temp;

  private static SortSpecOptions options(String... args) {
    SortRunCommand command = new SortRunCommand();
    new CommandLine(command).parseArgs(args);
    return command.job;
  }

  private Path file(String name, String content) throws Exception {
    return Files.writeString(temp.resolve(name), content);
  }

  private static SortSpec readme() {
    return new SortSpec(new SortSpec.Input("s3://datasets/train-{000000..000127}.tar", null, null, null),
        new SortSpec.Output("s3://datasets/shuffled/train-{000000..}.tar", null, "256Mi", null, null),
        new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null), null, new SortSpec.Workers("2Gi", null),
        "s3://datasets/.quarry-scratch/shuffle-train/", false, false);
  }

  @Test
  void aShardSortJobManifestInYamlIsTheJob() throws Exception {
    SortSpecOptions options = options("--spec", file("job.yaml", MANIFEST).toString());

    assertThat(options.spec()).isEqualTo(readme());
  }

  @Test
  void aBareSpecInYamlOrJsonIsTheJobToo() throws Exception {
    String bare = MANIFEST.substring(MANIFEST.indexOf("spec:\n") + 6).replaceAll("(?m)^  ", "");
    assertThat(options("--spec", file("spec.yaml", bare).toString()).spec()).isEqualTo(readme());

    String json = """
        {"input": {"template": "s3://datasets/train-{000000..000127}.tar"},
         "output": {"template": "s3://datasets/shuffled/train-{000000..}.tar", "shardSize": "256Mi"},
         "order": {"kind": "shuffle", "seed": 7}, "workers": {"memoryBudget": "2Gi"},
         "scratch": "s3://datasets/.quarry-scratch/shuffle-train/"}""";
    assertThat(options("--spec", file("spec.json", json).toString()).spec()).isEqualTo(readme());
  }

  @Test
  void theSpecsStoreConnectionWinsOverTheEnvironment() throws Exception {
    S3Settings environment = S3Settings.defaults().withEndpoint(URI.create("http://elsewhere:9000"))
        .withRegion("us-west-2").withPathStyle(false).withCredentials("id", "secret");

    S3Settings settings = options("--spec", file("job.yaml", MANIFEST).toString()).s3Settings(environment);

    assertThat(settings).isEqualTo(environment.withEndpoint(URI.create("http://minio.storage:9000"))
        .withRegion("eu-west-3").withPathStyle(true).withRequestsInFlight(64));
  }

  @Test
  void withoutAStoreInTheSpecTheEnvironmentDecides() throws Exception {
    S3Settings environment = S3Settings.defaults().withEndpoint(URI.create("http://elsewhere:9000"));

    assertThat(options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar", "--shard-count", "2",
        "--requests-in-flight", "9").s3Settings(environment)).isEqualTo(environment.withRequestsInFlight(9));
  }

  @Test
  void aYamlSyntaxErrorIsOneLineWithTheFileAndLine() throws Exception {
    Path job = file("job.yaml", "kind: ShardSortJob\nspec:\n  input: {template: \"s3://b/x-{0..1}.tar\"\n"
        + "  output:\n    shardSize: 1Mi\n");

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot read --spec " + job + ": line 3, column ")
        .hasMessageEndingWith("(must be a ShardSortJob or its spec, in YAML or JSON)")
        .hasMessageNotContaining("\n").hasMessageNotContaining("shardSize");
  }

  @Test
  void aJsonSyntaxErrorIsOneLineWithTheFileAndLine() throws Exception {
    Path job = file("job.json", "{\"input\": {\"template\": \"s3://b/x-{0..1}.tar\"},\n \"output\": }\n");

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .hasMessageStartingWith("Cannot read --spec " + job + ": line 2, column ")
        .hasMessageNotContaining("\n").hasMessageNotContaining("REDACTED");
  }

  @Test
  void aValueOfTheWrongKindNamesTheFieldAndLine() throws Exception {
    Path job = file("job.yaml", MANIFEST.replace("kind: shuffle", "kind: shufle"));

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .hasMessage("Cannot read --spec " + job + ": line 20, column 11: order.kind: shufle is not one of"
            + " alphanumeric, none, md5, shuffle, content, keymap");
  }

  @Test
  void aSpecThatIsTooLargeOrNotTextIsOneLineAndNeverRead() throws Exception {
    assertThatThrownBy(() -> options("--spec", "/dev/zero").spec())
        .hasMessage("Cannot read --spec /dev/zero: it is larger than 1 MiB (must be a ShardSortJob or its spec, in"
            + " YAML or JSON)");
    Path binary = Files.write(temp.resolve("job.yaml"), new byte[] {'k', 'i', (byte) 0xff, '\n'});
    assertThatThrownBy(() -> options("--spec", binary.toString()).spec())
        .hasMessage("Cannot read --spec " + binary + ": it is not UTF-8 text (must be a ShardSortJob or its spec,"
            + " in YAML or JSON)");
  }

  @Test
  void aFieldGivenTwiceIsRefused() throws Exception {
    Path json = file("twice.json", "{\"input\": {\"template\": \"/in/x-{0..1}.tar\"}, \"order\": {\"kind\":"
        + " \"none\"},\n \"output\":"
        + " {\"template\": \"/out/y-{0..}.tar\", \"shardCount\": 2},\n \"output\": {\"template\":"
        + " \"/elsewhere/y-{0..}.tar\", \"shardCount\": 2}}\n");
    assertThatThrownBy(() -> options("--spec", json.toString()).spec())
        .hasMessageStartingWith("Cannot read --spec " + json + ": line 3, column ")
        .hasMessageContaining("Duplicate field 'output'");
    Path yaml = file("twice.yaml", "input: {template: '/in/x-{0..1}.tar'}\norder: {kind: none}\noutput: {template:"
        + " '/out/y-{0..}.tar', shardCount: 2}\noutput: {template: '/elsewhere/y-{0..}.tar', shardCount: 2}\n");
    assertThatThrownBy(() -> options("--spec", yaml.toString()).spec())
        .hasMessageStartingWith("Cannot read --spec " + yaml + ": line 4, column ")
        .hasMessageContaining("Duplicate field 'output'");
  }

  @Test
  void aTypeTagIsOneLineWithoutJavaNames() throws Exception {
    for (String value : List.of("!!binary AAAA", "[1, 2]", "{a: 1}", "!!timestamp 2001-12-14")) {
      Path yaml = file("tag.yaml", "input: {template: '/in/x-{0..1}.tar'}\norder: {kind: none}\n"
          + "output: {template: '/out/y-{0..}.tar', shardCount: " + value + "}\n");
      assertThatThrownBy(() -> options("--spec", yaml.toString()).spec()).as(value)
          .satisfies(e -> assertThat(e.getMessage()).startsWith("Cannot read --spec " + yaml + ": line 3, column ")
              .contains("output.shardCount: ").doesNotContain("java.", "dev.quarry", "`", "\n"));
    }
  }

  @Test
  void anOutputTemplateWithoutAFolderIsInTheWorkingDirectory() throws Exception {
    assertThat(options("--input", "/in/x-{0..1}.tar", "--output", "s-{000..}.tar", "--shard-count", "2").spec()
        .outputLocation().url()).isEqualTo("./");
  }

  @Test
  void anotherKindIsRefusedByName() throws Exception {
    Path job = file("sync.yaml", "apiVersion: quarry.dev/v1alpha1\nkind: DatasetSync\nspec: {}\n");

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .hasMessage("Cannot read --spec " + job + ": it is a DatasetSync (must be a ShardSortJob or its spec, in"
            + " YAML or JSON)");
  }

  @Test
  void aSpecThatIsAFolderSaysSo() {
    assertThatThrownBy(() -> options("--spec", temp.toString()).spec())
        .hasMessage("Cannot read --spec " + temp + ": it is a folder");
  }

  @Test
  void aMissingSpecFileSaysSo() {
    Path job = temp.resolve("nope.yaml");

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .hasMessage("Cannot read --spec " + job + ": no such file");
  }

  @Test
  void aRefusedValueFromTheSpecNamesTheSpecField() throws Exception {
    Path job = file("job.yaml", MANIFEST.replace("shardSize: 256Mi", "shardSize: \"0\""));

    assertThatThrownBy(() -> options("--spec", job.toString()).spec())
        .hasMessage("Cannot read --spec " + job + ": Invalid output.shardSize: 0 (must be at least 1 byte)");
  }

  @Test
  void aRefusedValueFromAnOptionNamesTheOption() {
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-size", "0").spec())
        .hasMessage("Invalid --shard-size: 0 (must be at least 1 byte)");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-size", "1Mi", "--shard-count", "3").spec())
        .hasMessage("Invalid output sizing: 2 of --shard-size, --records-per-shard and --shard-count given (must be"
            + " exactly one)");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-count", "3", "--order", "shuffle").spec())
        .hasMessage("Invalid --order: shuffle needs --seed");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-count", "3", "--memory-budget", "1Mi").spec())
        .hasMessage("Invalid --memory-budget: 1Mi (must be at least 16Mi)");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-size", "10XB").spec())
        .hasMessage("Invalid --shard-size: 10XB (must be a whole number with an optional suffix Ki, Mi, Gi, Ti, Pi,"
            + " Ei, k, M, G, T, P or E, for example 256Mi)");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--shard-count", "3").spec())
        .hasMessage("Missing --output (must be given; with a keymap order, its folder is the output location the key"
            + " map's templates must stay in)");
  }

  @Test
  void withASpecEachFieldIsNamedAsItWasGiven() throws Exception {
    Path job = file("job.yaml", MANIFEST);

    assertThatThrownBy(() -> options("--spec", job.toString(), "--memory-budget", "1Mi").spec())
        .hasMessage("Invalid --memory-budget: 1Mi (must be at least 16Mi)");
    assertThatThrownBy(() -> options("--spec", job.toString(), "--descending").spec())
        .as("the spec's kind, the option's descending")
        .hasMessage("Invalid --descending: only allowed with order.kind alphanumeric or content");
  }

  @Test
  void optionsOverrideSingleFieldsOfTheSpecsOrder() throws Exception {
    Path job = file("job.yaml", MANIFEST);

    assertThat(options("--spec", job.toString(), "--seed", "9").spec().order())
        .isEqualTo(new SortSpec.Order(OrderKind.SHUFFLE, null, 9L, null, null));
    assertThat(options("--spec", job.toString(), "--order", "md5").spec().order())
        .as("another kind: the order is the options' alone")
        .isEqualTo(new SortSpec.Order(OrderKind.MD5, null, null, null, null));
  }

  @Test
  void anUnknownContentTypeNamesTheTypesThereAre() {
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--output", "/out/y-{0..}.tar",
        "--shard-count", "3", "--order", "content", "--content-member", "cls", "--content-type", "bogus").spec())
        .hasMessage("Invalid --content-type: bogus (must be int, float or string)");
  }

  @Test
  void aMissingKeymapFileSaysSo() {
    Path keymap = temp.resolve("keymap.tsv");
    assertThatThrownBy(() -> options("--input", "/in/x-{0..3}.tar", "--shard-count", "3", "--order", "keymap",
        "--keymap-file", keymap.toString()).spec())
        .hasMessage("Cannot read --keymap-file " + keymap + ": no such file");
  }
}
