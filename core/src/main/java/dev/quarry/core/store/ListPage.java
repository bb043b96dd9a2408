package dev.quarry.core.store;

import java.util.List;

/**
 * One page of a listing.
 *
 * @param objects the objects of this page, in UTF-8 binary key order
 * @param nextStartAfter the start-after of the next page, or null when this was the last page
 */
public record ListPage(List<ObjectInfo> objects, String nextStartAfter) {
  public ListPage {
    objects = List.copyOf(objects);
  }
}
