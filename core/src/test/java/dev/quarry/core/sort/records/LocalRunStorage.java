package dev.quarry.core.sort.records;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Runs in a test's temporary folder. */
class LocalRunStorage implements RunStorage {
  private final Path dir;

  LocalRunStorage(Path dir) {
    this.dir = dir;
  }

  @Override
  public RunOutput create(String name) throws IOException {
    Path partial = dir.resolve(name + ".partial");
    OutputStream out = Files.newOutputStream(partial);
    return new RunOutput() {
      @Override
      public OutputStream stream() {
        return out;
      }

      @Override
      public void commit() throws IOException {
        out.close();
        Files.move(partial, dir.resolve(name));
      }

      @Override
      public void close() throws IOException {
        out.close();
        Files.deleteIfExists(partial);
      }
    };
  }

  @Override
  public InputStream open(String name) throws IOException {
    return Files.newInputStream(dir.resolve(name));
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
    }
  }

  @Override
  public void delete(String name) throws IOException {
    Files.deleteIfExists(dir.resolve(name));
  }
}
