package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.retries.api.BackoffStrategy;

class ResumingInputStreamTest {
  private static final byte[] DATA = ObjectStoreContract.bytes(10_000, 9);
  private static final String URL = "s3://bucket/key";

  /** Serves DATA like a server whose connections break after {@code bytesPerConnection} bytes. */
  private static final class BreakingServer {
    final List<Long> openedAt = new ArrayList<>();
    private final int bytesPerConnection;

    BreakingServer(int bytesPerConnection) {
      this.bytesPerConnection = bytesPerConnection;
    }

    InputStream open(long position) {
      openedAt.add(position);
      return new InputStream() {
        private long at = position;
        private int sent;

        @Override
        public int read() throws IOException {
          if (sent == bytesPerConnection) {
            throw new SocketException("Connection reset");
          }
          sent++;
          return DATA[(int) at++] & 0xFF;
        }
      };
    }
  }

  private static ResumingInputStream resuming(BreakingServer server, long offset, long end, int maxAttempts)
      throws IOException {
    return new ResumingInputStream(URL, server.open(offset), offset, end, server::open, maxAttempts,
        BackoffStrategy.retryImmediately(), java.time.Duration.ofMinutes(1));
  }

  @Test
  void aBrokenConnectionResumesWhereItStopped() throws IOException {
    BreakingServer server = new BreakingServer(3000);

    try (InputStream in = resuming(server, 0, DATA.length, 3)) {
      assertThat(in.readAllBytes()).isEqualTo(DATA);
    }
    assertThat(server.openedAt).containsExactly(0L, 3000L, 6000L, 9000L);
  }

  @Test
  void aRangeResumesWithinTheRange() throws IOException {
    BreakingServer server = new BreakingServer(400);

    try (InputStream in = resuming(server, 1000, 2000, 2)) {
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(DATA, 1000, 2000));
    }
    assertThat(server.openedAt).containsExactly(1000L, 1400L, 1800L);
  }

  @Test
  void itGivesUpAfterMaxAttemptsWithoutProgress() throws IOException {
    BreakingServer server = new BreakingServer(0);

    try (InputStream in = resuming(server, 0, DATA.length, 3)) {
      assertThatThrownBy(in::read).isInstanceOf(IOException.class)
          .hasMessage("Cannot read " + URL + ": the connection failed 3 times in a row at byte 0: Connection reset")
          .hasCauseInstanceOf(SocketException.class);
    }
    assertThat(server.openedAt).hasSize(3);
  }

  /** A body that stalls again and again ends at the request deadline, not after attempts times the read timeout. */
  @Test
  void itGivesUpOnceNoByteCameForTheDeadline() throws IOException {
    ResumingInputStream.Source stalling = position -> new InputStream() {
      @Override
      public int read() throws IOException {
        try {
          Thread.sleep(40);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new java.net.SocketTimeoutException("Read timed out");
      }
    };

    long start = System.nanoTime();
    try (InputStream in = new ResumingInputStream(URL, stalling.open(0), 0, DATA.length, stalling, 1000,
        BackoffStrategy.retryImmediately(), java.time.Duration.ofMillis(200))) {
      assertThatThrownBy(in::read).isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot read " + URL + ": no bytes came for 0 s at byte 0 (")
          .hasMessageEndingWith("); check that the endpoint is up and reachable from here, or allow more with"
              + " QUARRY_S3_REQUEST_DEADLINE");
    }
    assertThat((System.nanoTime() - start) / 1e6).isLessThan(1000);
  }

  @Test
  void aResponseThatEndsEarlyIsResumedToo() throws IOException {
    List<Long> openedAt = new ArrayList<>();
    ResumingInputStream.Source halves = position -> {
      openedAt.add(position);
      int end = (int) Math.min(DATA.length, position + 5000);
      return new ByteArrayInputStream(Arrays.copyOfRange(DATA, (int) position, end));
    };

    try (InputStream in = new ResumingInputStream(URL, halves.open(0), 0, DATA.length, halves, 2,
        BackoffStrategy.retryImmediately(), java.time.Duration.ofMinutes(1))) {
      assertThat(in.readAllBytes()).isEqualTo(DATA);
    }
    assertThat(openedAt).containsExactly(0L, 5000L);
  }
}
