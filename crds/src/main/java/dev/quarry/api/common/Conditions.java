package dev.quarry.api.common;

/** Condition types and reasons shared by every kind. {@code Ready} is always present in a status. */
public final class Conditions {
  /** The resource reached what its spec asks for (job finished, volume synced, caches serving). */
  public static final String READY = "Ready";

  private Conditions() {}
}
