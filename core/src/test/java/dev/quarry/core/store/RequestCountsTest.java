package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class RequestCountsTest {
  private static RequestCounts counts(int head, int list, int get, int put, int delete) {
    RequestCounts counts = new RequestCounts();
    for (RequestKind kind : RequestKind.values()) {
      int times = switch (kind) {
        case HEAD -> head;
        case LIST -> list;
        case GET -> get;
        case PUT -> put;
        case DELETE -> delete;
      };
      for (int i = 0; i < times; i++) {
        counts.count(kind);
      }
    }
    return counts;
  }

  @Test
  void countsEachKindAndTheTotal() {
    RequestCounts counts = counts(1, 2, 3, 4, 5);

    assertThat(counts.head()).isEqualTo(1);
    assertThat(counts.list()).isEqualTo(2);
    assertThat(counts.get()).isEqualTo(3);
    assertThat(counts.put()).isEqualTo(4);
    assertThat(counts.delete()).isEqualTo(5);
    assertThat(counts.total()).isEqualTo(15);
    assertThat(counts).hasToString("HEAD 1, LIST 2, GET 3, PUT 4, DELETE 5 (15 in all)");
  }

  @Test
  void aSnapshotStaysAsItWasAndCannotCount() {
    RequestCounts live = counts(1, 0, 0, 0, 0);
    RequestCounts snapshot = live.snapshot();

    live.count(RequestKind.HEAD);

    assertThat(snapshot.head()).isEqualTo(1);
    assertThat(live.head()).isEqualTo(2);
    assertThatThrownBy(() -> snapshot.count(RequestKind.GET)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("Cannot count a GET request: these counts are a snapshot");
  }

  @Test
  void minusGivesPerPhaseNumbersAndPlusSumsStores() {
    RequestCounts before = counts(1, 1, 1, 1, 1).snapshot();
    RequestCounts after = counts(3, 1, 11, 2, 1);

    assertThat(after.minus(before)).isEqualTo(counts(2, 0, 10, 1, 0));
    assertThat(after.plus(before)).isEqualTo(counts(4, 2, 12, 3, 2));
    assertThat(after.minus(before).hashCode()).isEqualTo(counts(2, 0, 10, 1, 0).hashCode());
  }

  @Test
  void countingIsThreadSafe() {
    RequestCounts counts = new RequestCounts();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 10_000; i++) {
        threads.submit(() -> counts.count(RequestKind.GET));
      }
    }
    assertThat(counts.get()).isEqualTo(10_000);
  }

  @Test
  void everyS3OperationThatAStoreSendsHasAKind() {
    assertThat(RequestCountingInterceptor.kindOf("HeadObject")).isEqualTo(RequestKind.HEAD);
    assertThat(RequestCountingInterceptor.kindOf("ListObjectsV2")).isEqualTo(RequestKind.LIST);
    assertThat(RequestCountingInterceptor.kindOf("GetObject")).isEqualTo(RequestKind.GET);
    for (String put : new String[] {"PutObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload"}) {
      assertThat(RequestCountingInterceptor.kindOf(put)).as(put).isEqualTo(RequestKind.PUT);
    }
    assertThat(RequestCountingInterceptor.kindOf("DeleteObject")).isEqualTo(RequestKind.DELETE);
    assertThat(RequestCountingInterceptor.kindOf("AbortMultipartUpload")).isEqualTo(RequestKind.DELETE);
    assertThat(RequestCountingInterceptor.kindOf("ListBuckets")).isNull();
  }
}
