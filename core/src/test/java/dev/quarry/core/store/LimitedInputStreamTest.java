package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LimitedInputStreamTest {
  /** An endless source that counts what was taken from it. */
  private static InputStream endless(AtomicLong taken) {
    return new InputStream() {
      @Override
      public int read() {
        taken.incrementAndGet();
        return 'x';
      }

      @Override
      public int read(byte[] buffer, int offset, int length) {
        taken.addAndGet(length);
        java.util.Arrays.fill(buffer, offset, offset + length, (byte) 'x');
        return length;
      }
    };
  }

  @Test
  void anObjectOfItsDeclaredSizeReadsWhole() throws IOException {
    try (InputStream in = new LimitedInputStream(new ByteArrayInputStream(new byte[6]), 6, "too large")) {
      assertThat(in.readAllBytes()).hasSize(6);
    }
    try (InputStream in = new LimitedInputStream(new ByteArrayInputStream(new byte[0]), 0, "too large")) {
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void aLargerObjectIsRefusedAfterOneByteMore() {
    AtomicLong taken = new AtomicLong();
    assertThatThrownBy(() -> new LimitedInputStream(endless(taken), 6, "x is larger than its digest declares")
        .readAllBytes()).isInstanceOf(LimitedInputStream.TooLargeException.class)
        .hasMessage("x is larger than its digest declares");
    assertThat(taken.get()).isEqualTo(7);
    taken.set(0);
    assertThatThrownBy(() -> {
      InputStream in = new LimitedInputStream(endless(taken), 3, "too large");
      while (in.read() >= 0) {
        // one byte at a time
      }
    }).hasMessage("too large");
    assertThat(taken.get()).isEqualTo(4);
  }
}
