package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Any input format converts to any output format with every record's names and bytes intact. */
class FormatConversionTest {
  @TempDir Path temp;

  static Stream<Arguments> pairs() {
    List<Arguments> pairs = new ArrayList<>();
    for (ShardFormat in : ShardFormat.values()) {
      for (ShardFormat out : ShardFormat.values()) {
        pairs.add(Arguments.of(in, out));
      }
    }
    return pairs.stream();
  }

  @ParameterizedTest(name = "{0} to {1}")
  @MethodSource("pairs")
  void convertsEveryRecordIntact(ShardFormat in, ShardFormat out) throws Exception {
    List<List<Record>> dataset = SortFixture.dataset(3, 15, in.ordinal() * 5L + out.ordinal());
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      SortFixture.write(stores, temp + "/in/", in, dataset);
      SortSpec spec = new SortSpec(new SortSpec.Input(temp + "/in/in-{000..002}." + in.extension(), null, null, null),
          new SortSpec.Output(temp + "/out/x-{0..}." + out.extension(), out.extension(), null, 20L, null),
          new SortSpec.Order(OrderKind.NONE, null, null, null, null), null, null, null, false);
      LocalSort.run(spec, stores, temp.resolve("work"), SortContract.QUIET);
      List<Record> converted = new ArrayList<>();
      for (int shard = 0; shard < 3; shard++) {
        converted.addAll(SortFixture.read(stores, temp + "/out/x-" + shard + "." + out.extension(), out));
      }
      assertThat(converted.stream().map(SortFixture::fingerprint).toList()).containsExactlyElementsOf(
          dataset.stream().flatMap(List::stream).map(SortFixture::fingerprint).toList());
    }
  }
}
