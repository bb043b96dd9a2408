package dev.quarry.api.common;

/** The API group and version every Quarry kind belongs to. */
public final class QuarryApi {
  public static final String GROUP = "quarry.dev";
  public static final String VERSION = "v1alpha1";
  /** The category of the kinds users write: {@code kubectl get quarry} lists them all. */
  public static final String CATEGORY = "quarry";
  /** JSON path of a resource's Ready condition, for printer columns. */
  public static final String READY_CONDITION = ".status.conditions[?(@.type==\"Ready\")]";

  private QuarryApi() {}
}
