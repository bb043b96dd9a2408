package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record of 2 GiB or more cannot be held whole (create and the local run hold one record's bytes in one array): it
 * is refused at extract, naming the record, its member and shard and the limit, before anything is read past its
 * header. The input is a real tar whose 2 GiB member is a sparse hole, so the test writes a few blocks.
 */
class RecordSizeLimitTest {
  @TempDir Path temp;

  /** A tar holding small.cls then big.bin, whose header says {@code size} bytes and whose data is a sparse hole. */
  private Path sparseTar(long size) throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, List.of(
        new Record("small", List.of(new Member("small.cls", "1".getBytes(StandardCharsets.US_ASCII)))),
        new Record("big", List.of(new Member("big.bin", new byte[1])))));
    byte[] head = Arrays.copyOf(tar, 1024 + 512); // small.cls header and data, big.bin header
    String octal = String.format("%011o\0", size);
    byte[] header = Shards.withHeaderField(
        Arrays.copyOfRange(head, 1024, 1536), 124, octal.getBytes(StandardCharsets.US_ASCII));
    System.arraycopy(header, 0, head, 1024, 512);
    Path file = Files.createDirectories(temp.resolve("in")).resolve("in-0.tar");
    Files.write(file, head);
    try (RandomAccessFile sparse = new RandomAccessFile(file.toFile(), "rw")) {
      sparse.setLength(head.length + (size + 511) / 512 * 512 + 1024);
    }
    return file;
  }

  @Test
  void aRecordOf2GibIsRefusedAtExtractNamingItAndTheLimit() throws Exception {
    Path input = sparseTar(2L << 30);
    SortSpec spec = new SortSpec(new SortSpec.Input(null, null, List.of(input.toString()), null),
        new SortSpec.Output(temp + "/out/x-{0..}.tar", null, null, 10L, null),
        new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null), null, null, null, false);
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      Location scratch = stores.locate(temp + "/scratch/");
      SortPhases phases = new SortPhases(spec, stores, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, SortContract.QUIET);
      assertThatThrownBy(() -> phases.extract(0, 1))
          .hasMessage("Cannot read member big.bin of shard " + input + ": its record big would hold 2147484160"
              + " bytes or more, over the 2146435072 bytes (2047 MiB) a record may have (split the file or"
              + " keep it outside the dataset)");
      assertThatThrownBy(() -> LocalSort.run(spec, stores, temp.resolve("work"), SortContract.QUIET))
          .hasMessageStartingWith("Cannot read member big.bin of shard " + input + ": its record big would hold");
    }
  }
}
