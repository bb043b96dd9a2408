package dev.quarry.core.sort.spec;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A scratch that overlaps the data is refused when the spec is read, so in every phase and in sort clean's job. */
class ScratchOverlapTest {
  private static SortSpec spec(SortSpec.Input input, String output, String scratch) {
    return new SortSpec(input, new SortSpec.Output(output, null, null, 10L, null),
        new SortSpec.Order(OrderKind.NONE, null, null, null, null), null, null, scratch, false);
  }

  private static SortSpec.Input template(String template) {
    return new SortSpec.Input(template, null, null, null);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "s3://bkt/                     | input location s3://bkt/in/",
      "s3://bkt/in                   | input location s3://bkt/in/",
      "s3://bkt/in/                  | input location s3://bkt/in/",
      "s3://bkt/in/scratch/          | input location s3://bkt/in/",
      "s3://bkt/out/                 | output location s3://bkt/out/",
      "s3://bkt/out/tmp/             | output location s3://bkt/out/"})
  void refusesAScratchEqualToAboveOrBelowTheInputOrOutput(String scratch, String overlapped) {
    assertThatThrownBy(() -> spec(template("s3://bkt/in/train-{0..9}.tar"), "s3://bkt/out/x-{0..}.tar", scratch))
        .hasMessage("Invalid scratch: " + (scratch.endsWith("/") ? scratch : scratch + "/") + " (must not overlap"
            + " the " + overlapped + ": sort clean deletes scratch; choose a folder of its own, such as a"
            + " .quarry-scratch/<job>/ folder next to the output)");
  }

  @ParameterizedTest
  @CsvSource({"s3://bkt/.quarry-scratch/ns/job/", "s3://other/in/", "s3://bkt/scratch/job/", "s3://bkt/inx/"})
  void acceptsAScratchOfItsOwn(String scratch) {
    assertThatCode(() -> spec(template("s3://bkt/in/train-{0..9}.tar"), "s3://bkt/out/x-{0..}.tar", scratch))
        .doesNotThrowAnyException();
    // The reserved folder may be below a template's folder, here the bucket's root.
    assertThatCode(() -> spec(template("s3://bkt/train-{0..9}.tar"), "s3://bkt/x-{0..}.tar",
        "s3://bkt/.quarry-scratch/ns/job/")).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @CsvSource({"s3://bkt/data/.quarry-scratch/job/", "s3://bkt/data/", "s3://bkt/"})
  void refusesAScratchAnInputPrefixWouldList(String scratch) {
    assertThatThrownBy(() -> spec(new SortSpec.Input(null, "s3://bkt/data/", null, null), "s3://bkt/out/x-{0..}.tar",
        scratch)).hasMessageStartingWith("Invalid scratch: " + scratch + " (must not overlap the input location"
            + " s3://bkt/data/");
  }

  @ParameterizedTest
  @CsvSource({"/data/in/, /data/", "/data/in/, /data/in/", "/data/in/sub/, /data/in/"})
  void refusesOverlapOfLocalFoldersAndListedShards(String folder, String scratch) {
    assertThatThrownBy(() -> spec(new SortSpec.Input(null, null, List.of(folder + "a.tar", "/data/in/b.tar"), null),
        "/out/x-{0..}.tar", scratch)).hasMessageStartingWith("Invalid scratch: " + scratch);
  }

  @Test
  void aSymlinkInALocalScratchPathDoesNotHideTheOverlap(@TempDir Path temp) throws Exception {
    Path real = Files.createDirectories(temp.resolve("ds/real"));
    Files.createSymbolicLink(temp.resolve("ds/alias"), real);
    String input = temp.resolve("in").toString() + "/train-{0..9}.tar";
    assertThatThrownBy(() -> spec(template(input), real + "/x-{0..}.tar", temp.resolve("ds/alias") + "/"))
        .hasMessageStartingWith("Invalid scratch: " + temp.resolve("ds/alias") + "/ (must not overlap the output"
            + " location " + real + "/");
    assertThatThrownBy(() -> spec(template(input), real + "/x-{0..}.tar", temp.resolve("ds/alias/new/job") + "/"))
        .hasMessageStartingWith("Invalid scratch: " + temp.resolve("ds/alias/new/job") + "/ (must not overlap the"
            + " output location " + real + "/");
    assertThatCode(() -> spec(template(input), real + "/x-{0..}.tar", temp.resolve("ds/elsewhere") + "/"))
        .doesNotThrowAnyException();
  }

  @Test
  void aSymlinkInTheOutputFolderDoesNotLeadAnOutputNameOutOfIt(@TempDir Path temp) throws Exception {
    Path out = Files.createDirectories(temp.resolve("out"));
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Files.createSymbolicLink(out.resolve("link"), elsewhere);
    OutputLocation location = OutputLocation.of(out + "/x-{0..}.tar");
    assertThatThrownBy(() -> location.confine(out + "/link/km-0.tar"))
        .hasMessage("Invalid output name: " + out + "/link/km-0.tar (must be inside the output location " + out
            + "/, the folder of output.template)");
    assertThatCode(() -> location.confine(out + "/sub/km-0.tar")).doesNotThrowAnyException();
  }
}
