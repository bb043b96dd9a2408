package dev.quarry.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.FileRangeStream;
import dev.quarry.testkit.CommandResult;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native memory the JDK keeps after a thread's file I/O of heap arrays (its temporary direct buffers, which the JVM's
 * native memory tracking counts as "Other"), in a JVM of its own each time (the JDK reads its limit once): a 4 MiB
 * read leaves a 4 MiB buffer behind unless the limit is bounded first, and our file reads, in slices, leave at most
 * one slice's.
 */
class JdkIoBuffersTest {
  private static final int READ = 4 << 20;

  @TempDir
  Path dir;

  @Test
  void aBoundedJdkKeepsNoLargeBufferAfterALargeRead() throws Exception {
    assertThat(keptAfter("channel", false)).as("the JDK's default, which the bound is for")
        .isGreaterThan(READ / 2); // the tracking's figures are rounded to kilobytes
    assertThat(keptAfter("channel", true)).isLessThanOrEqualTo(JdkIoBuffers.CACHED_BYTES);
  }

  @Test
  void ourFileReadsGoInSlicesThatTheJdkKeepsWhateverItsLimit() throws Exception {
    assertThat(keptAfter("range-stream", false)).isLessThanOrEqualTo(JdkIoBuffers.CACHED_BYTES);
  }

  /** Native bytes held after one 4 MiB read, by {@code how}, in a new JVM, bounded first or not. */
  private long keptAfter(String how, boolean bound) throws Exception {
    Path file = dir.resolve("data");
    if (!Files.exists(file)) {
      Files.write(file, new byte[READ]);
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-XX:NativeMemoryTracking=summary", "-cp",
        System.getProperty("java.class.path"),
        OneRead.class.getName(), file.toString(), how, Boolean.toString(bound)));
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    return Long.parseLong(run.stdout().strip());
  }

  /** Reads the file once into a heap array and prints the native bytes held afterwards less those held before. */
  public static final class OneRead {
    public static void main(String[] args) throws Exception {
      if (Boolean.parseBoolean(args[2])) {
        JdkIoBuffers.bound();
      }
      long before = otherNativeBytes();
      byte[] bytes = new byte[READ];
      try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ)) {
        if (args[1].equals("channel")) {
          channel.read(ByteBuffer.wrap(bytes));
        } else {
          try (InputStream in = new FileRangeStream(channel, args[0], 0, READ)) {
            in.readNBytes(bytes, 0, READ);
          }
        }
      }
      System.out.println(otherNativeBytes() - before);
    }

    /** The "Other" memory of the JVM's native memory tracking, committed now. */
    private static long otherNativeBytes() throws Exception {
      String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
          new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
      Matcher other = Pattern.compile("Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)").matcher(summary);
      if (!other.find()) {
        throw new IllegalStateException("No Other memory in " + summary);
      }
      return Long.parseLong(other.group(1)) << 10;
    }
  }
}
