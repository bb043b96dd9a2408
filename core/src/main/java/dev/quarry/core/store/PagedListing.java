package dev.quarry.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.function.Consumer;

/** The objects under a prefix, one LIST page at a time, fetched only when the previous page is used up. */
final class PagedListing implements Spliterator<ObjectInfo> {
  static final int PAGE_SIZE = 1000;

  private final ObjectStore store;
  private final String prefix;
  private Iterator<ObjectInfo> page = Collections.emptyIterator();
  private String startAfter;
  private boolean lastPageFetched;

  PagedListing(ObjectStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  @Override
  public boolean tryAdvance(Consumer<? super ObjectInfo> action) {
    while (!page.hasNext()) {
      if (lastPageFetched) {
        return false;
      }
      fetchNextPage();
    }
    action.accept(page.next());
    return true;
  }

  private void fetchNextPage() {
    ListPage next;
    try {
      next = store.list(prefix, startAfter, PAGE_SIZE);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    page = next.objects().iterator();
    startAfter = next.nextStartAfter();
    lastPageFetched = startAfter == null;
  }

  @Override
  public Spliterator<ObjectInfo> trySplit() {
    return null;
  }

  @Override
  public long estimateSize() {
    return Long.MAX_VALUE;
  }

  @Override
  public int characteristics() {
    return ORDERED | DISTINCT | NONNULL;
  }
}
