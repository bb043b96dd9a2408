package dev.quarry.core.sync;

/** A number of objects and their bytes. */
public record Amount(long objects, long bytes) {
  public static final Amount NONE = new Amount(0, 0);
}
