package dev.quarry.cli.options;

import dev.quarry.core.archive.ShardFormat;
import java.util.Arrays;
import java.util.Iterator;
import picocli.CommandLine.ITypeConverter;

/** Reads a shard format by its extension ({@code tar}, {@code tar.gz}, ...). */
public final class ShardFormatConverter implements ITypeConverter<ShardFormat> {
  @Override
  public ShardFormat convert(String value) {
    return ShardFormat.ofExtension(value);
  }

  /** The extensions, for help texts. */
  public static final class Candidates implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Arrays.stream(ShardFormat.values()).map(ShardFormat::extension).iterator();
    }
  }
}
