package dev.quarry.core.sync.remote;

/**
 * How a run found out which objects a remote holds, and why: the numbers behind the choice, for people.
 *
 * @param name {@code none} (nothing unknown), {@code head} (one HEAD per unknown object) or {@code list} (listing the
 *     key ranges around the unknown objects)
 */
public record Strategy(String name, String reason) {
  public static Strategy none(String reason) {
    return new Strategy("none", reason);
  }
}
